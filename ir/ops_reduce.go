// This file declares the reductions over axes (sum, prod, max, min, with or without the
// reduced dims kept) and argmax/argmin. Each is one generic op: its domain is the operand's
// index box with the reduced axes as reduction iterators, the operand is read at the iteration
// point, and the result element drops (or pins to 0) the reduced coordinates.

package ir

import (
	"fmt"
	"math"
	"slices"

	"github.com/graphc/graphc/volume"
)

func reduceDef(name, summary string, kind ReduceKind) *OpDef {
	return &OpDef{Name: name, Summary: summary, MinOperands: 1, MaxOperands: 1,
		Example: "%s = " + name + "(%x) {axes = [1]} : f32[4]",
		Attrs: []AttrDef{
			{Name: "axes", Kind: AttrInts, Doc: "the reduced axes (negative counts from the end; [] reduces nothing)"},
			{Name: "keepdims", Kind: AttrInt, Default: dflt(IntAttr(1)), Doc: "1 keeps the reduced axes with extent 1"},
		},
		Build: func(b *Builder) error { return buildReduce(b, kind) }}
}

func argDef(name, summary string, first, last ReduceKind) *OpDef {
	return &OpDef{Name: name, Summary: summary, MinOperands: 1, MaxOperands: 1,
		Example: "%s = " + name + "(%x) {axis = 1, keepdims = 0} : i64[4]",
		Attrs: []AttrDef{
			{Name: "axis", Kind: AttrInt, Default: dflt(IntAttr(0)), Doc: "the axis searched (negative counts from the end)"},
			{Name: "keepdims", Kind: AttrInt, Default: dflt(IntAttr(1)), Doc: "1 keeps the axis with extent 1"},
			{Name: "select_last_index", Kind: AttrInt, Default: dflt(IntAttr(0)), Doc: "1 returns the last extremum instead of the first"},
		},
		Build: func(b *Builder) error {
			kind := first
			if b.Op.Attrs.Int("select_last_index", 0) != 0 {
				kind = last
			}
			if err := buildReduceAxes(b, []int64{b.Op.Attrs.Int("axis", 0)}, kind); err != nil {
				return err
			}
			ax, _ := resolveAxis(b.Op.Attrs.Int("axis", 0), b.In(0).Rank())
			if b.In(0).Shape[ax].Equal(volume.AffConst(0)) {
				return b.Errorf("axis %d is empty: there is no extremum to index", ax)
			}
			b.Op.ArgDim = ax
			b.Result.Elem = I64
			return nil
		}}
}

func init() {
	register(
		reduceDef("reduce_sum", "sum over axes (0 over an empty set)", ReduceSum),
		reduceDef("reduce_prod", "product over axes (1 over an empty set)", ReduceProd),
		reduceDef("reduce_max", "maximum over axes (the type's lowest value, -inf for floats, over an empty set)", ReduceMax),
		reduceDef("reduce_min", "minimum over axes (the type's highest value, +inf for floats, over an empty set)", ReduceMin),
		argDef("argmax", "index of the (first or last) maximum along an axis", ReduceArgMax, ReduceArgMaxLast),
		argDef("argmin", "index of the (first or last) minimum along an axis", ReduceArgMin, ReduceArgMinLast),
	)
}

// resolveAxis maps a possibly negative axis into [0, rank).
func resolveAxis(a int64, rank int) (int, error) {
	if a < -int64(rank) || a >= int64(rank) {
		return 0, fmt.Errorf("axis %d out of range for rank %d", a, rank)
	}
	if a < 0 {
		a += int64(rank)
	}
	return int(a), nil
}

func buildReduce(b *Builder, kind ReduceKind) error {
	return buildReduceAxes(b, b.Op.Attrs.Ints("axes", nil), kind)
}

// buildReduceAxes builds the reduction of operand 0 over axes with the given combination.
func buildReduceAxes(b *Builder, axes []int64, kind ReduceKind) error {
	x := b.In(0)
	r := x.Rank()
	red := make([]bool, r)
	for _, a := range axes {
		ax, err := resolveAxis(a, r)
		if err != nil {
			return b.Errorf("%v", err)
		}
		if red[ax] {
			return b.Errorf("axis %d listed twice", ax)
		}
		red[ax] = true
	}
	keep := b.Op.Attrs.Int("keepdims", 1) != 0
	iters := make([]IterKind, r)
	var outIdx, outShape []volume.Aff
	for d := 0; d < r; d++ {
		if red[d] {
			iters[d] = Reduction
			if keep {
				outIdx = append(outIdx, volume.AffConst(0))
				outShape = append(outShape, volume.AffConst(1))
			}
			continue
		}
		outIdx = append(outIdx, volume.AffDim(d))
		outShape = append(outShape, x.Shape[d])
	}
	b.SetBox(dimNames(r), x.Shape, iters)
	b.Op.Access = []Access{AffAccess(identity(0, r)...)}
	b.Op.Out = AffAccess(outIdx...)
	b.Op.Body = Read(0, x.Elem)
	b.Op.Reduce = kind
	switch kind {
	case ReduceProd:
		b.Op.Init = 1
	case ReduceMax:
		b.Op.Init = LowestValue(x.Elem)
	case ReduceMin:
		b.Op.Init = HighestValue(x.Elem)
	}
	if !slices.Contains(red, true) {
		b.Op.Reduce = ReduceNone // nothing combines: each element is written once
		if kind.IsArg() {
			b.Op.Reduce = kind
		}
	}
	b.Result = TensorType{Elem: x.Elem, Shape: outShape}
	return nil
}

// LowestValue returns the lowest value of type t (-inf for floats), the identity of max.
func LowestValue(t DType) float64 {
	switch t {
	case I64:
		return math.MinInt64
	case I32:
		return math.MinInt32
	case I8:
		return math.MinInt8
	case I16:
		return math.MinInt16
	case U8, Bool, U16, U32, U64:
		return 0
	}
	return math.Inf(-1)
}

// HighestValue returns the highest value of type t (+inf for floats), the identity of min.
// For i64 it is 2^63, one above the largest int64: IntInit saturates it.
func HighestValue(t DType) float64 {
	switch t {
	case I64:
		return math.MaxInt64
	case I32:
		return math.MaxInt32
	case I8:
		return math.MaxInt8
	case U8:
		return math.MaxUint8
	case I16:
		return math.MaxInt16
	case U16:
		return math.MaxUint16
	case U32:
		return math.MaxUint32
	case U64:
		return math.MaxUint64 // 2^64 as a float64: IntInit makes it all ones
	case Bool:
		return 1
	}
	return math.Inf(1)
}

// IntInit converts an op's Init to integer type t, saturating at the bounds of int64 (the
// float64 Init of a reduce_min over i64 is 2^63, which int64 cannot hold) and then wrapping to
// t. Evaluators and code generators use it for the initial value of integer results.
func IntInit(t DType, v float64) int64 {
	switch {
	case t == U64 && v >= math.MaxUint64:
		return -1 // all ones
	case t == U64 && v >= 1<<63:
		return int64(uint64(v))
	case v >= math.MaxInt64:
		return t.WrapInt(math.MaxInt64)
	case v <= math.MinInt64:
		return t.WrapInt(math.MinInt64)
	case math.IsNaN(v):
		return 0
	}
	return t.WrapInt(int64(v))
}
