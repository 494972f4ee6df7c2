package onnx_test

// This file feeds malformed nodes of the ops added for ONNX coverage to the importer: each
// must fail with an error naming the node and the reason, never panic.

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/graphc/graphc/frontend/onnx"
	"github.com/graphc/graphc/internal/onnxgen"
	"github.com/graphc/graphc/ir"
)

func TestNewOpsRejectBadInput(t *testing.T) {
	type in struct {
		name string
		elem ir.DType
		dims []any
	}
	for _, tc := range []struct {
		op    string
		ins   []in
		attrs []onnxgen.Attr
		want  string
	}{
		{"GatherND", []in{{"X", ir.F32, []any{2, 3}}, {"I", ir.I64, []any{}}}, nil, "indices must have rank >= 1"},
		{"ScatterND", []in{{"X", ir.F32, []any{4, 3}}, {"I", ir.I64, []any{2, 1}}, {"U", ir.F32, []any{2, 2}}}, nil, "updates f32[2, 2] must have shape [2, 3]"},
		{"ScatterElements", []in{{"X", ir.F32, []any{4, 3}}, {"I", ir.I64, []any{2, 3}}, {"U", ir.F32, []any{2, 2}}}, nil, "differ in shape"},
		{"TopK", []in{{"X", ir.F32, []any{4}}, {"K", ir.I64, []any{1}}}, nil, "K"},
		{"Scan", []in{{"X", ir.F32, []any{4}}}, nil, "missing graph attribute"},
		{"Loop", []in{{"M", ir.I64, []any{}}}, nil, "missing graph attribute"},
		{"DFT", []in{{"X", ir.F32, []any{3}}}, nil, "rank >= 2"},
		{"GridSample", []in{{"X", ir.F32, []any{1, 1, 3, 3}}, {"G", ir.F32, []any{1, 2, 2, 3}}}, nil, "grid_sample"},
		{"TensorScatter", []in{{"C", ir.F32, []any{2, 4}}, {"U", ir.F32, []any{2, 1}}}, []onnxgen.Attr{onnxgen.IntAttr("axis", 0)}, "must not be the batch axis"},
		{"RoiAlign", []in{{"X", ir.F32, []any{1, 1, 4, 4}}, {"R", ir.F32, []any{2, 4}}, {"B", ir.I64, []any{2}}}, []onnxgen.Attr{onnxgen.StringAttr("coordinate_transformation_mode", "corners")}, "coordinate_transformation_mode \"corners\""},
		{"RoiAlign", []in{{"X", ir.F32, []any{1, 1, 4, 4}}, {"R", ir.F32, []any{2, 3}}, {"B", ir.I64, []any{2}}}, nil, "rois f32[2, 3] must be [R, 4]"},
		{"Det", []in{{"X", ir.F32, []any{2, 3}}}, nil, "square"},
		{"RotaryEmbedding", []in{{"X", ir.F32, []any{1, 2, 3, 8}}, {"C", ir.F32, []any{4, 2}}, {"S", ir.F32, []any{4, 2}}}, nil, "without position_ids the caches must be 3-D"},
		{"LinearAttention", []in{{"Q", ir.F32, []any{1, 2, 8}}, {"K", ir.F32, []any{1, 2, 8}}, {"V", ir.F32, []any{1, 2, 8}}}, nil, "q_num_heads"},
		{"Col2Im", []in{{"X", ir.F32, []any{1, 4, 5}}, {"S", ir.I64, []any{0}}, {"B", ir.I64, []any{0}}}, nil, "image_shape"},
		{"LSTM", []in{{"X", ir.F32, []any{2, 1, 3}}, {"W", ir.F32, []any{1, 6, 3}}, {"R", ir.F32, []any{1, 8, 2}}}, nil, "W f32[1, 6, 3] must be [1, 8, input]"},
	} {
		t.Run(tc.op, func(t *testing.T) {
			m := onnxgen.New("bad", 27)
			var names []string
			for _, i := range tc.ins {
				if i.elem == ir.I64 && (tc.op == "TopK" || tc.op == "Col2Im") {
					m.Init(i.name, ir.NewTensor(ir.I64, dimsOf(i.dims)))
				} else {
					m.Input(i.name, i.elem, i.dims...)
				}
				names = append(names, i.name)
			}
			if tc.op == "TopK" { // K = 9 for 4 elements
				k := ir.NewTensor(ir.I64, []int64{1})
				k.I[0] = 9
				m.G.Initializer = nil
				m.Init("K", k)
			}
			m.Node(tc.op, "n", names, []string{"Y"}, tc.attrs...)
			m.Output("Y", ir.F32)
			_, err := onnx.Import(m.Proto(), "bad.onnx")
			require.Error(t, err)
			require.ErrorContains(t, err, `node "n"`)
			require.ErrorContains(t, err, tc.want)
		})
	}
}

func dimsOf(ds []any) []int64 {
	out := make([]int64, len(ds))
	for i, d := range ds {
		out[i] = int64(d.(int))
	}
	return out
}
