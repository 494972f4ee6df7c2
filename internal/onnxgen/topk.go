package onnxgen

import "github.com/graphc/graphc/ir"

// TopK returns a model of one TopK node over X f32[rows, n] with a constant k, giving V and I
// of [rows, k] (largest: the attribute).
func TopK(rows, n, k, largest int64) *Model {
	m := New("topk", 13)
	m.Input("X", ir.F32, rows, n)
	kt := ir.NewTensor(ir.I64, []int64{1})
	kt.I[0] = k
	m.Init("K", kt)
	m.Node("TopK", "t", []string{"X", "K"}, []string{"V", "I"}, IntAttr("largest", largest))
	m.Output("V", ir.F32, rows, k)
	m.Output("I", ir.I64, rows, k)
	return m
}
