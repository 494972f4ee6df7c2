package importer_test

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/require"

	kit "github.com/graphc/graphc/frontend/importer"
	"github.com/graphc/graphc/ir"
	"github.com/graphc/graphc/volume"
)

// TestInferExtent: the -1 of a reshape, with symbolic extents cancelling as factors, and the
// two kinds of failure (a bad count is the format's invalid error, a non-quasi-affine
// division unsupported).
func TestInferExtent(t *testing.T) {
	c := volume.AffConst
	b, s := volume.AffParam("B"), volume.AffParam("S")
	for _, tc := range []struct {
		total, known []volume.Aff
		want         volume.Aff
		err          error
	}{
		{[]volume.Aff{c(2), c(3), c(4)}, []volume.Aff{c(6)}, c(4), nil},
		{[]volume.Aff{b, s, c(4), c(8)}, []volume.Aff{b, s}, c(32), nil},
		{[]volume.Aff{b, c(6)}, []volume.Aff{c(3)}, b.Mul(2), nil},
		{[]volume.Aff{b.Mul(4)}, []volume.Aff{b}, c(4), nil},
		{[]volume.Aff{c(2), c(3), c(4)}, []volume.Aff{c(5)}, volume.Aff{}, errInvalid},
		{[]volume.Aff{c(2), c(0)}, []volume.Aff{c(0)}, volume.Aff{}, errInvalid},
		{[]volume.Aff{b, s}, nil, volume.Aff{}, kit.ErrUnsupported},
		{[]volume.Aff{b, c(6)}, []volume.Aff{c(4)}, volume.Aff{}, kit.ErrUnsupported},
	} {
		got, err := kit.InferExtent(tc.total, tc.known, errInvalid)
		if tc.err != nil {
			require.True(t, errors.Is(err, tc.err), "%v / %v: %v", tc.total, tc.known, err)
			continue
		}
		require.NoError(t, err)
		require.True(t, got.Equal(tc.want), "%v / %v = %s, want %s", tc.total, tc.known, got.String(), tc.want.String())
	}
}

// TestIdent: names from a model become IR identifiers, parsed back by the graph text's rule.
func TestIdent(t *testing.T) {
	for in, want := range map[string]string{
		"batch":      "batch",
		"seq.len":    "seq.len",
		"2batch":     "_batch",
		".x":         "_x",
		"a b/c:0":    "a_b_c_0",
		"ünits":      "_nits",
		"":           "",
		"x_1.y_2":    "x_1.y_2",
		"dim-param*": "dim_param_",
	} {
		require.Equal(t, want, kit.Ident(in), in)
	}
}

// symOut records what a symbolic evaluation binds.
type symOut struct {
	elem  ir.DType
	shape []int64
	vals  []volume.Aff
}

func (o *symOut) SetSym(i int, elem ir.DType, shape []int64, vals []volume.Aff) {
	o.elem, o.shape, o.vals = elem, shape, vals
}

// TestSymOps: the shared symbolic evaluations keep shape values quasi-affine, and decline
// (false) what they cannot keep, leaving it to the op importers.
func TestSymOps(t *testing.T) {
	b := volume.AffParam("B")
	vec := &kit.Sym{Elem: ir.I64, Shape: []int64{2}, Vals: []volume.Aff{b, volume.AffConst(3)}}
	two := &kit.Sym{Elem: ir.I64, Vals: []volume.Aff{volume.AffConst(2)}}

	var o symOut
	require.True(t, kit.SymBinary[*symOut](kit.Mul)(&o, []*kit.Sym{vec, two}))
	require.Equal(t, []int64{2}, o.shape)
	require.True(t, o.vals[0].Equal(b.Mul(2)) && o.vals[1].Equal(volume.AffConst(6)))
	require.False(t, kit.SymBinary[*symOut](kit.Mul)(&o, []*kit.Sym{vec, vec}), "B·B is not quasi-affine")
	require.False(t, kit.SymBinary[*symOut](kit.Add)(&o, []*kit.Sym{vec}), "one operand")

	require.True(t, kit.SymUnary[*symOut](func(a volume.Aff) (volume.Aff, bool) { return a.Neg(), true })(&o, []*kit.Sym{vec}))
	require.True(t, o.vals[0].Equal(b.Neg()))

	require.True(t, kit.SymCast(&o, []*kit.Sym{vec}, ir.I32))
	require.Equal(t, ir.I32, o.elem)
	require.False(t, kit.SymCast(&o, []*kit.Sym{vec}, ir.F32), "a float is data, not a shape")

	require.True(t, kit.SymConcat(&o, []*kit.Sym{vec, vec}))
	require.Equal(t, []int64{4}, o.shape)
	require.False(t, kit.SymConcat(&o, []*kit.Sym{vec, two}), "a scalar is not a vector")
}
