package importer_test

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/require"

	kit "github.com/graphc/graphc/frontend/importer"
	"github.com/graphc/graphc/ir"
	"github.com/graphc/graphc/volume"
)

var errInvalid = errors.New("invalid test model")

// TestFoldLimits: an op on constants folds up to MaxFoldElements; a generator (no operands)
// only up to MaxFoldGeneratedElements.
func TestFoldLimits(t *testing.T) {
	fill := func(n int64) *ir.Op {
		op, err := ir.MakeOp(nil, "fill", "f", nil, ir.Attrs{"type": ir.StringAttr(ir.StaticType(ir.F32, n).String()), "value": ir.FloatAttr(2)})
		require.NoError(t, err)
		return op
	}
	d, ok := kit.Fold(fill(kit.MaxFoldGeneratedElements))
	require.True(t, ok)
	require.Equal(t, 2.0, d.Float(0))
	_, ok = kit.Fold(fill(kit.MaxFoldGeneratedElements + 1))
	require.False(t, ok, "a large fill stays a loop")

	g := ir.NewGraph("g")
	c := g.AddConst("c", ir.NewTensor(ir.F32, []int64{kit.MaxFoldGeneratedElements + 1}))
	neg, err := ir.MakeOp(nil, "neg", "n", []*ir.Value{c}, nil)
	require.NoError(t, err)
	_, ok = kit.Fold(neg)
	require.True(t, ok, "an op on constants folds beyond the generator limit")

	x := g.AddInput("x", ir.StaticType(ir.F32, 2))
	neg, err = ir.MakeOp(nil, "neg", "n", []*ir.Value{x}, nil)
	require.NoError(t, err)
	_, ok = kit.Fold(neg)
	require.False(t, ok, "an op on an input does not fold")
}

// TestDims: a bound dim becomes its value, an unbound one a param; a bound name no input has
// is an ir.ErrUnknownDim listing the model's dims in order.
func TestDims(t *testing.T) {
	d := kit.NewDims(map[string]int64{"N": 4, "Q": 1})
	require.Equal(t, volume.AffConst(4), d.Extent("N", "N"))
	require.Equal(t, volume.AffParam("seq_len"), d.Extent("seq-len", "seq_len"))
	err := d.Check()
	require.ErrorIs(t, err, ir.ErrUnknownDim)
	require.ErrorContains(t, err, "--dim Q: the model has no such dim (its symbolic dims are N, seq-len)")
	d = kit.NewDims(map[string]int64{"N": 4})
	d.Extent("N", "N")
	require.NoError(t, d.Check())
}

// TestSymbolic: shape values stay quasi-affine through arithmetic, a product of two symbols
// does not, and a value without symbols is a constant.
func TestSymbolic(t *testing.T) {
	vs := kit.NewValues()
	n := volume.AffParam("N")
	vs.SetSym("shape", ir.I64, []int64{2}, []volume.Aff{n, volume.AffConst(12)})
	vs.Consts["four"] = &ir.Tensor{Elem: ir.I64, Shape: []int64{}, I: []int64{4}}
	in, anySym, ok := vs.KnownInputs([]string{"shape", "", "four"})
	require.True(t, ok)
	require.True(t, anySym)
	require.Nil(t, in[1])
	shape, out, ok := kit.Broadcast(in[0], in[2], kit.Mul)
	require.True(t, ok)
	require.Equal(t, []int64{2}, shape)
	require.Equal(t, []volume.Aff{n.Mul(4), volume.AffConst(48)}, out)
	_, ok = kit.Mul(n, n)
	require.False(t, ok)
	q, ok := kit.FloorDiv(n, volume.AffConst(2))
	require.True(t, ok)
	require.Equal(t, n.FloorDiv(2), q)

	vs.SetSym("static", ir.I64, []int64{1}, []volume.Aff{volume.AffConst(3)})
	require.Contains(t, vs.Consts, "static")
	require.NotContains(t, vs.Syms, "static")

	g := ir.NewGraph("g")
	g.Params = []string{"N"}
	v, ok, err := vs.Lookup(g, "shape", "shape")
	require.NoError(t, err)
	require.True(t, ok)
	require.Equal(t, "values", v.Def.Kind)
	_, ok, _ = vs.Lookup(g, "nothing", "nothing")
	require.False(t, ok)
}

// TestResolveAxes: negative axes count from the end; repeats and out-of-range axes wrap the
// format's invalid error.
func TestResolveAxes(t *testing.T) {
	axes, err := kit.ResolveAxes([]int64{-1, 0}, 3, errInvalid)
	require.NoError(t, err)
	require.Equal(t, []int{2, 0}, axes)
	_, err = kit.ResolveAxes([]int64{2, -1}, 3, errInvalid)
	require.ErrorIs(t, err, errInvalid)
	_, err = kit.ResolveAxes([]int64{3}, 3, errInvalid)
	require.ErrorIs(t, err, errInvalid)
}

// TestGraphLimits: limit errors wrap ir.ErrLimit and the format's invalid error.
func TestGraphLimits(t *testing.T) {
	l := kit.GraphLimits{Limits: ir.Limits{MaxNodes: 2, MaxStringBytes: 3}, Invalid: errInvalid}
	require.NoError(t, l.Nodes(2))
	require.ErrorIs(t, l.Nodes(3), ir.ErrLimit)
	err := l.Strings(kit.NodePrefix("x")+"input name", "ab", "abcd")
	require.ErrorIs(t, err, errInvalid)
	require.ErrorContains(t, err, `node "x": input name of 4 bytes (at most 3)`)
}
