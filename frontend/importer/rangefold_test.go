package importer_test

import (
	"errors"
	"math"
	"testing"

	"github.com/stretchr/testify/require"

	kit "github.com/graphc/graphc/frontend/importer"
	"github.com/graphc/graphc/ir"
)

var errBad = errors.New("bad model")

func scalarI(t ir.DType, v int64) *ir.Tensor {
	x := ir.NewTensor(t, nil)
	x.I[0] = v
	return x
}

func scalarF(t ir.DType, v float64) *ir.Tensor {
	x := ir.NewTensor(t, nil)
	x.F[0] = v
	return x
}

// TestRangeTensor: Range's lengths as ONNX and TF define them (ceil((limit - start) / delta),
// never negative), counted exactly for integers whatever their magnitude, and a clear error
// for a zero step or a range too long to fold (a hostile bound must not allocate).
func TestRangeTensor(t *testing.T) {
	ints := func(s, l, d int64) ([]int64, error) {
		r, err := kit.RangeTensor(scalarI(ir.I64, s), scalarI(ir.I64, l), scalarI(ir.I64, d), errBad)
		if err != nil {
			return nil, err
		}
		return r.I, nil
	}
	for _, c := range []struct {
		s, l, d int64
		want    []int64
	}{
		{0, 5, 2, []int64{0, 2, 4}},
		{0, 6, 2, []int64{0, 2, 4}},
		{5, 0, -2, []int64{5, 3, 1}},
		{5, 5, 1, []int64{}},
		{5, 0, 1, []int64{}},
		{math.MinInt64, math.MaxInt64, math.MaxInt64, []int64{math.MinInt64, -1, math.MaxInt64 - 1}},
	} {
		got, err := ints(c.s, c.l, c.d)
		require.NoError(t, err, "%+v", c)
		require.Equal(t, c.want, got, "%+v", c)
	}
	_, err := ints(0, 1, 0)
	require.ErrorIs(t, err, errBad)
	require.ErrorContains(t, err, "delta is 0")
	for _, c := range [][3]int64{{0, math.MaxInt64, 1}, {math.MaxInt64, math.MinInt64, -1}, {0, kit.MaxFoldElements + 1, 1}} {
		_, err = ints(c[0], c[1], c[2])
		require.ErrorIs(t, err, errBad, "%v", c)
		require.ErrorContains(t, err, "more than 1048576 elements", "%v", c)
	}
	got, err := ints(0, kit.MaxFoldElements, 1)
	require.NoError(t, err)
	require.Len(t, got, kit.MaxFoldElements)

	// int32 elements wrap as the type's arithmetic does
	r, err := kit.RangeTensor(scalarI(ir.I32, math.MaxInt32-1), scalarI(ir.I32, math.MaxInt32), scalarI(ir.I32, 1), errBad)
	require.NoError(t, err)
	require.Equal(t, []int64{math.MaxInt32 - 1}, r.I)

	f, err := kit.RangeTensor(scalarF(ir.F32, 0), scalarF(ir.F32, 1), scalarF(ir.F32, 0.25), errBad)
	require.NoError(t, err)
	require.Equal(t, []float64{0, 0.25, 0.5, 0.75}, f.F)
	f, err = kit.RangeTensor(scalarF(ir.F32, 1), scalarF(ir.F32, 0), scalarF(ir.F32, 0.25), errBad)
	require.NoError(t, err)
	require.Empty(t, f.F)
	for _, c := range [][3]float64{{0, 1e30, 1}, {0, math.NaN(), 1}, {0, 1, 1e-300}} {
		_, err = kit.RangeTensor(scalarF(ir.F64, c[0]), scalarF(ir.F64, c[1]), scalarF(ir.F64, c[2]), errBad)
		require.ErrorIs(t, err, errBad, "%v", c)
	}
	_, err = kit.RangeTensor(ir.NewTensor(ir.I64, []int64{2}), scalarI(ir.I64, 1), scalarI(ir.I64, 1), errBad)
	require.ErrorContains(t, err, "start must be a scalar, got 2 elements")
}
