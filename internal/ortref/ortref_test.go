package ortref

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/graphc/graphc/ir"
)

// TestWriteInputs writes the spec models/ort_reference.js and graphc-bench's session read: one
// raw file per input in its own element type, a scalar's shape as [] (not null), and an error
// naming the input whose element type onnxruntime-node cannot take.
func TestWriteInputs(t *testing.T) {
	dir := t.TempDir()
	x := ir.NewTensor(ir.F32, []int64{2, 3})
	for i := range x.F {
		x.F[i] = float64(i) - 2.5
	}
	n := ir.NewTensor(ir.I64, []int64{})
	n.I[0] = 7
	path, err := WriteInputs(dir, []string{"X", "n"}, []*ir.Tensor{x, n})
	require.NoError(t, err)
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	require.JSONEq(t, `[{"name": "X", "type": "float32", "shape": [2, 3], "file": "`+filepath.Join(dir, "in_0.bin")+`"},
		{"name": "n", "type": "int64", "shape": [], "file": "`+filepath.Join(dir, "in_1.bin")+`"}]`, string(data))
	var specs []InputSpec
	require.NoError(t, json.Unmarshal(data, &specs))
	for k, want := range []*ir.Tensor{x, n} {
		raw, err := os.ReadFile(specs[k].File)
		require.NoError(t, err)
		elem := ir.F32
		if specs[k].Type == "int64" {
			elem = ir.I64
		}
		got, err := ir.TensorFromBytes(elem, specs[k].Shape, raw)
		require.NoError(t, err)
		require.Equal(t, want.Bytes(), got.Bytes())
	}
	name, ok := TypeName(ir.U16)
	require.True(t, ok)
	require.Equal(t, "uint16", name)
	_, err = WriteInputs(dir, []string{"X"}, []*ir.Tensor{x, n})
	require.ErrorContains(t, err, "1 names for 2 inputs")
	_, err = WriteInputs(dir, []string{"h"}, []*ir.Tensor{ir.NewTensor(ir.F16, []int64{1})})
	require.ErrorContains(t, err, "input h: element type")
}
