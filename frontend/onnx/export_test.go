package onnx

// UnmarshalAliased exports unmarshalAliased to the tests.
var UnmarshalAliased = unmarshalAliased
