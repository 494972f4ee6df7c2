// This file holds the node evaluations on symbolic shape values that mean the same in every
// format: elementwise integer arithmetic, casts between integer types and the concatenation of
// vectors. A format's table of symbolic ops (symbolicOps) lists them next to its own.

package importer

import (
	"github.com/graphc/graphc/ir"
	"github.com/graphc/graphc/volume"
)

// SymOut is what a symbolic evaluation needs of the format's node context: binding output i
// to a symbolic tensor (or to a constant when no element is symbolic).
type SymOut interface {
	SetSym(i int, elem ir.DType, shape []int64, vals []volume.Aff)
}

// SymUnary returns the evaluation of a one-input node applying f to each element; it returns
// false (the node is imported as ops) when there is not exactly one input or f fails.
func SymUnary[N SymOut](f func(volume.Aff) (volume.Aff, bool)) func(c N, in []*Sym) bool {
	return func(c N, in []*Sym) bool {
		if len(in) != 1 {
			return false
		}
		out := make([]volume.Aff, len(in[0].Vals))
		for i, v := range in[0].Vals {
			r, ok := f(v)
			if !ok {
				return false
			}
			out[i] = r
		}
		c.SetSym(0, in[0].Elem, in[0].Shape, out)
		return true
	}
}

// SymBinary returns the evaluation of a two-input node applying f elementwise (equal sizes,
// or a single element broadcast; see Broadcast), the result of in[0]'s element type.
func SymBinary[N SymOut](f func(a, b volume.Aff) (volume.Aff, bool)) func(c N, in []*Sym) bool {
	return func(c N, in []*Sym) bool { return SymBroadcast(c, in, f, ir.Invalid) }
}

// SymBroadcast sets output 0 of c to f applied elementwise to in[0] and in[1] (see
// Broadcast), with element type elem (ir.Invalid: in[0]'s). It returns false when there are
// not two inputs or they do not fit.
func SymBroadcast[N SymOut](c N, in []*Sym, f func(a, b volume.Aff) (volume.Aff, bool), elem ir.DType) bool {
	if len(in) != 2 {
		return false
	}
	shape, out, ok := Broadcast(in[0], in[1], f)
	if !ok {
		return false
	}
	if elem == ir.Invalid {
		elem = in[0].Elem
	}
	c.SetSym(0, elem, shape, out)
	return true
}

// SymCast casts one symbolic input to the integer type to: the elements stay as they are (a
// shape value fits every integer type). A cast to a float or bool is not kept symbolic.
func SymCast(c SymOut, in []*Sym, to ir.DType) bool {
	if len(in) != 1 || to.IsFloat() || to == ir.Bool {
		return false
	}
	c.SetSym(0, to, in[0].Shape, in[0].Vals)
	return true
}

// SymConcat joins vectors into output 0 (false when one is not a vector).
func SymConcat[N SymOut](c N, in []*Sym) bool {
	if len(in) == 0 {
		return false
	}
	out, ok := Concat(in)
	if !ok {
		return false
	}
	c.SetSym(0, in[0].Elem, []int64{int64(len(out))}, out)
	return true
}
