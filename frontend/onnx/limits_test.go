package onnx_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

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
	cases := []struct {
		name      string
		ok, below ir.Limits
		want      string
	}{
		{"nodes", ir.Limits{MaxNodes: 3}, ir.Limits{MaxNodes: 2}, "3 nodes"},
		{"constant", ir.Limits{MaxConstantElements: 16}, ir.Limits{MaxConstantElements: 15}, `initializer "W"`},
		{"tensor", ir.Limits{MaxTensorElements: 128}, ir.Limits{MaxTensorElements: 127}, `node "add"`},
		{"string", ir.Limits{MaxStringBytes: 12}, ir.Limits{MaxStringBytes: 11}, "attribute note of 12 bytes"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := onnx.Import(m, "m.onnx", onnx.WithLimits(c.ok))
			require.NoError(t, err)
			_, err = onnx.Import(m, "m.onnx", onnx.WithLimits(c.below))
			require.ErrorIs(t, err, ir.ErrLimit)
			require.ErrorIs(t, err, onnx.ErrInvalid)
			require.Contains(t, err.Error(), c.want)
			require.True(t, strings.HasPrefix(err.Error(), "m.onnx: "), err.Error())
		})
	}
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
