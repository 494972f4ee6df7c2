// Package abi is the signature document of a compiled entry: the JSON that `const char
// *ENTRY_signature(void)` returns (its inputs and outputs with element types and shapes over the
// symbolic dims, the symbolic dims in argument order, the weights file it takes, the
// requirements it checks, the dims it computes). package lower writes it and package modelrt
// reads it; this package is the one definition of its schema, and imports nothing of graphc.
package abi
