package ir_test

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/graphc/graphc/ir"
)

// TestRawTensor checks that a tensor kept as its bytes reads exactly as the decoded one, for
// every element type with a raw layout: elements, bits, bytes, decoding, compaction, clones.
func TestRawTensor(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for _, elem := range []ir.DType{ir.F32, ir.F64, ir.F16, ir.BF16, ir.I8, ir.U8, ir.I16, ir.U16, ir.I32, ir.U32, ir.I64, ir.U64} {
		shape := []int64{3, ir.RawThreshold}
		raw := make([]byte, ir.NumElements(shape)*int64(elem.Size()))
		for i := range raw {
			raw[i] = byte(r.Uint32())
		}
		if elem.IsFloat() {
			// a few specials: -0, inf, NaN at the start
			d, _ := ir.TensorFromBytes(elem, shape, raw)
			d.F[0], d.F[1], d.F[2] = math.Copysign(0, -1), math.Inf(1), math.NaN()
			raw = d.Bytes()
		}
		rt, err := ir.TensorFromRaw(elem, shape, raw)
		require.NoError(t, err)
		require.True(t, rt.IsRaw(), "%s", elem)
		want, err := ir.TensorFromBytes(elem, shape, raw)
		require.NoError(t, err)
		require.Equal(t, want.Len(), rt.Len())
		for i := 0; i < rt.Len(); i++ {
			require.Equal(t, want.Bits(i), rt.Bits(i), "%s element %d", elem, i)
			require.Equal(t, math.Float64bits(want.Float(i)), math.Float64bits(rt.Float(i)))
			if !elem.IsFloat() {
				require.Equal(t, want.I[i], rt.Int(i))
			}
		}
		require.Equal(t, raw, rt.Bytes(), "a raw tensor's bytes are its own")
		require.Equal(t, want.Bytes(), rt.Bytes())
		dec := rt.Decoded()
		require.False(t, dec.IsRaw())
		require.Equal(t, want.Bytes(), dec.Bytes())
		require.False(t, rt.Clone().IsRaw(), "a clone may be modified: decoded")

		c := want.Clone().Compact()
		require.True(t, c.IsRaw())
		require.Equal(t, raw, c.Bytes(), "compaction keeps every bit")
	}
	// small tensors and types without a raw layout are decoded
	small, err := ir.TensorFromRaw(ir.F32, []int64{4}, make([]byte, 16))
	require.NoError(t, err)
	require.False(t, small.IsRaw())
	b, err := ir.TensorFromRaw(ir.Bool, []int64{ir.RawThreshold}, make([]byte, ir.RawThreshold))
	require.NoError(t, err)
	require.False(t, b.IsRaw())
	_, err = ir.TensorFromRaw(ir.F32, []int64{ir.RawThreshold}, make([]byte, 3))
	require.Error(t, err)
	// a large constant added to a graph is compacted
	g := ir.NewGraph("g")
	v := g.AddConst("w", ir.NewTensor(ir.F32, []int64{ir.RawThreshold}))
	require.True(t, v.Data.IsRaw())
	require.Len(t, v.Data.Bytes(), 4*ir.RawThreshold)
}
