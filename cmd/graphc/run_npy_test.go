package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/graphc/graphc/ir"
	"github.com/graphc/graphc/modelrt"
)

// TestNpyRoundTrip writes every element type graphc run writes and reads it back.
func TestNpyRoundTrip(t *testing.T) {
	dir := t.TempDir()
	for dt, descr := range npyDescr {
		tt := ir.NewTensor(dt, []int64{2, 3})
		for i := 0; i < 6; i++ {
			if dt.IsFloat() {
				tt.F[i] = float64(i) - 2.5
			} else {
				tt.I[i] = dt.WrapInt(int64(i))
			}
		}
		p := filepath.Join(dir, dt.String()+".npy")
		require.NoError(t, writeNpy(p, modelrt.FromIR(tt)))
		a, err := readNpy(p)
		require.NoError(t, err, "%s", dt)
		assert.Equal(t, descr, a.descr)
		assert.Equal(t, []int64{2, 3}, a.shape)
		assert.Equal(t, tt.Bytes(), a.data, "%s", dt)
		back, err := tensorFromNpy(a, dt)
		require.NoError(t, err)
		assert.Equal(t, dt, back.DType)
	}
	// bfloat16 outputs are written as float32 values, and read back for a bf16 input
	bf := ir.NewTensor(ir.BF16, []int64{3})
	copy(bf.F, []float64{1.5, -2, 0.25})
	p := filepath.Join(dir, "bf16.npy")
	require.NoError(t, writeNpy(p, modelrt.FromIR(bf)))
	a, err := readNpy(p)
	require.NoError(t, err)
	assert.Equal(t, "<f4", a.descr)
	back, err := tensorFromNpy(a, ir.BF16)
	require.NoError(t, err)
	assert.Equal(t, bf.Bytes(), back.Bytes())
	// a scalar and a 1-d array use NumPy's tuple spelling
	require.NoError(t, writeNpy(p, modelrt.New([]int64{}, []float32{7})))
	a, err = readNpy(p)
	require.NoError(t, err)
	assert.Equal(t, []int64{}, a.shape)
	require.NoError(t, writeNpy(p, modelrt.New([]int64{4}, []int32{1, 2, 3, 4})))
	raw, err := os.ReadFile(p)
	require.NoError(t, err)
	assert.Contains(t, string(raw), "'shape': (4,)")
	assert.Zero(t, (len(raw)-16)%64, "the data starts at a multiple of 64 bytes")
}

// FuzzReadNpy: any file is an array or an error, never a panic or an allocation beyond the
// file's size.
func FuzzReadNpy(f *testing.F) {
	dir := f.TempDir()
	p := filepath.Join(dir, "seed.npy")
	if err := writeNpy(p, modelrt.New([]int64{2, 2}, []float32{1, 2, 3, 4})); err != nil {
		f.Fatal(err)
	}
	seed, _ := os.ReadFile(p)
	f.Add(seed)
	f.Add([]byte("\x93NUMPY\x02\x00\xff\xff\xff\x7f{'descr': '<f4'"))
	f.Add([]byte("\x93NUMPY\x01\x00\x30\x00{'descr': '<f8', 'fortran_order': False, 'shape': (99999999999, 99999999999), }"))
	f.Fuzz(func(t *testing.T, data []byte) {
		q := filepath.Join(t.TempDir(), "x.npy")
		if err := os.WriteFile(q, data, 0o644); err != nil {
			t.Fatal(err)
		}
		a, err := readNpy(q)
		if err == nil && int64(len(a.data)) > int64(len(data)) {
			t.Fatalf("%d data bytes from a file of %d", len(a.data), len(data))
		}
	})
}
