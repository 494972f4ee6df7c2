// This file holds the signature document's types, its version and its parser.

package abi

import (
	"encoding/json"
	"fmt"
)

// Version is the "abi" field of the signature; a reader refuses another.
const Version = 1

// Signature is the JSON document ENTRY_signature returns.
type Signature struct {
	ABI      int      `json:"abi"`
	Entry    string   `json:"entry"`
	Triple   string   `json:"triple"`
	Params   []string `json:"params"` // the symbolic dims that are arguments, in order
	Inputs   []Arg    `json:"inputs"`
	Outputs  []Arg    `json:"outputs"`
	Weights  *Weights `json:"weights,omitempty"`
	Requires string   `json:"requires,omitempty"` // what the entry checks of the dims (status 1)
	// Profile: the entry counts cycles in globals and is not re-entrant.
	Profile bool `json:"profile,omitempty"`
	// Bounded lists the dims the entry computes: not arguments, their outputs are allocated at
	// the bounds and the values come back in the outputs named here.
	Bounded []Bounded `json:"bounded,omitempty"`
}

// Arg is one input or output: its model name, element type (ir.DType's name) and shape, one
// extent per dim.
type Arg struct {
	Name  string   `json:"name"`
	DType string   `json:"dtype"`
	Shape []Extent `json:"shape"`
}

// Extent is a quasi-affine extent over the symbolic dims:
// C + Σ P[name]·name + Σ F[i].K·floor(F[i].N / F[i].D).
type Extent struct {
	C int64            `json:"c"`
	P map[string]int64 `json:"p,omitempty"`
	F []FloorTerm      `json:"f,omitempty"`
}

// FloorTerm is K·floor(N / D).
type FloorTerm struct {
	K int64  `json:"k"`
	N Extent `json:"n"`
	D int64  `json:"d"`
}

// Weights describes the weights file the entry takes after the workspace.
type Weights struct {
	Bytes       int64  `json:"bytes"`
	Fingerprint string `json:"fingerprint"` // 0x%016x
}

// Bounded is a dim the entry computes: Param's value, in [0, Bound], is the scalar int64
// output #Output.
type Bounded struct {
	Param  string `json:"param"`
	Bound  int64  `json:"bound"`
	Output int    `json:"output"`
}

// Parse reads a signature document of this version.
func Parse(text []byte) (*Signature, error) {
	var s Signature
	if err := json.Unmarshal(text, &s); err != nil {
		return nil, fmt.Errorf("reading the signature: %w", err)
	}
	if s.ABI != Version {
		return nil, fmt.Errorf("signature of ABI version %d, this reader reads version %d", s.ABI, Version)
	}
	return &s, nil
}
