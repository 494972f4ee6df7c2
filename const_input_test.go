package graphc_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/graphc/graphc"
	"github.com/graphc/graphc/frontend/onnx"
	"github.com/graphc/graphc/internal/onnxgen"
	"github.com/graphc/graphc/ir"
)

// TestWithConstInput: an input whose values decide a shape fails the import with a
// NeedConstError naming it; bound with WithConstInput, it is no longer an argument.
func TestWithConstInput(t *testing.T) {
	dir := t.TempDir()
	m := onnxgen.New("reshape", 17)
	m.Input("X", ir.F32, 2, 6)
	m.Input("S", ir.I64, 2)
	m.Node("Reshape", "reshape", []string{"X", "S"}, []string{"Y"})
	m.Output("Y", ir.F32, 3, 4)
	path := filepath.Join(dir, "reshape.onnx")
	require.NoError(t, m.Write(path))
	_, err := graphc.Compile(context.Background(), path)
	var nc *onnx.NeedConstError
	require.True(t, errors.As(err, &nc), "%v", err)
	assert.Equal(t, []string{"S"}, nc.Inputs())
	s := ir.NewTensor(ir.I64, []int64{2})
	s.I[0], s.I[1] = 3, 4
	res, err := graphc.Compile(context.Background(), path, graphc.WithConstInput("S", s))
	require.NoError(t, err)
	require.Len(t, res.Graph.Inputs, 1)
	assert.Equal(t, "f32[3, 4]", res.Graph.Outputs[0].Type.String())

	g := filepath.Join(dir, "p.graph")
	require.NoError(t, os.WriteFile(g, []byte("graph @g(%x: f32[2]) {\n  return %x\n}\n"), 0o644))
	_, err = graphc.Compile(context.Background(), g, graphc.WithConstInput("x", s))
	assert.ErrorIs(t, err, graphc.ErrUsage)
	assert.ErrorContains(t, err, "is for ONNX models")
}
