package onnx_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/graphc/graphc/frontend/importer/importertest"
	"github.com/graphc/graphc/frontend/onnx"
	"github.com/graphc/graphc/internal/onnxgen"
	"github.com/graphc/graphc/ir"
)

// limitsModel has 3 nodes, a 16-element constant, an 8×8 result and a 12-byte attribute.
func limitsModel() *onnxgen.Model {
	m := onnxgen.New("limits", 17)
	m.Input("X", ir.F32, 8, 1)
	m.Init("W", ir.NewTensor(ir.F32, []int64{1, 16}))
	m.Node("Relu", "relu", []string{"X"}, []string{"R"}, onnxgen.StringAttr("note", "twelve bytes"))
	m.Node("Add", "add", []string{"R", "W"}, []string{"S"})
	m.Node("Neg", "neg", []string{"S"}, []string{"Y"})
	m.Output("Y", ir.F32, 8, 16)
	return m
}

// TestLimitsAdjustable checks that each limit rejects the model when set just below what it
// declares and accepts it at exactly that size, and that the defaults accept it.
func TestLimitsAdjustable(t *testing.T) {
	m := limitsModel().Proto()
	_, err := onnx.Import(m, "m.onnx")
	require.NoError(t, err)
	importertest.CheckLimits(t, func(l ir.Limits) error {
		_, err := onnx.Import(m, "m.onnx", onnx.WithLimits(l))
		return err
	}, onnx.ErrInvalid, "m.onnx", []importertest.LimitCase{
		{Name: "nodes", OK: ir.Limits{MaxNodes: 3}, Below: ir.Limits{MaxNodes: 2}, Want: "3 nodes"},
		{Name: "constant", OK: ir.Limits{MaxConstantElements: 16}, Below: ir.Limits{MaxConstantElements: 15}, Want: `initializer "W"`},
		{Name: "tensor", OK: ir.Limits{MaxTensorElements: 128}, Below: ir.Limits{MaxTensorElements: 127}, Want: `node "add"`},
		{Name: "string", OK: ir.Limits{MaxStringBytes: 12}, Below: ir.Limits{MaxStringBytes: 11}, Want: "attribute note of 12 bytes"},
	})
}

// TestMaxFileSize checks the file-size limit of Read, alone and through WithLimits.
func TestMaxFileSize(t *testing.T) {
	data, err := limitsModel().Bytes()
	require.NoError(t, err)
	n := int64(len(data))
	for _, opt := range []onnx.Option{onnx.WithMaxFileSize(n - 1), onnx.WithLimits(ir.Limits{MaxFileBytes: n - 1})} {
		_, err = onnx.Read(strings.NewReader(string(data)), "m.onnx", opt)
		require.ErrorIs(t, err, ir.ErrLimit)
	}
	_, err = onnx.Read(strings.NewReader(string(data)), "m.onnx", onnx.WithMaxFileSize(n))
	require.NoError(t, err)
}
