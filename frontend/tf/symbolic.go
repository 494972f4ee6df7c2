// This file holds what TensorFlow nodes do to symbolic shape values (kit.Sym: small integer
// tensors whose elements are quasi-affine expressions of the symbolic dims, such as Shape of a
// tensor with an unknown batch): StridedSlice, Pack, ConcatV2, Prod, Cast and integer
// arithmetic keep them symbolic. They let the shape subgraphs of exported models (Keras'
// Flatten: Shape → StridedSlice → Pack → Reshape) resolve at import while the batch stays
// symbolic. A symbolic value that an op reads as data is materialised as a values op.

package tf

import (
	"fmt"

	kit "github.com/graphc/graphc/frontend/importer"
	"github.com/graphc/graphc/ir"
	"github.com/graphc/graphc/volume"
)

// symTensor is an integer tensor of static shape whose elements are quasi-affine expressions.
type symTensor = kit.Sym

// known returns input i as quasi-affine elements (constant integers or symbolic).
func (c *nodeCtx) known(i int) (*symTensor, bool) {
	if i >= len(c.inputs) {
		return nil, false
	}
	return c.im.Known(c.inputKey(i))
}

// RequireSymInts returns input i as quasi-affine integers, or an error saying it must be known
// at import.
func (c *nodeCtx) RequireSymInts(i int, what string) ([]volume.Aff, error) {
	if i >= len(c.inputs) {
		return nil, fmt.Errorf("%w: missing input #%d (%s)", ErrInvalid, i, what)
	}
	s, ok := c.known(i)
	if !ok {
		if t, isConst := c.ConstInput(i); isConst && t.Elem.IsFloat() {
			return nil, fmt.Errorf("%w: input #%d (%s) must hold integers, got %s", ErrInvalid, i, what, t.Elem)
		}
		return nil, fmt.Errorf("%w: input #%d (%s) must be known at import (a constant, or computed from shapes)", ErrUnsupported, i, what)
	}
	return s.Vals, nil
}

// SetSym binds output port to a symbolic tensor (a constant when it has no symbol).
func (c *nodeCtx) SetSym(port int, elem ir.DType, shape []int64, vals []volume.Aff) {
	c.im.SetSym(key(c.node.Name, port), elem, shape, vals)
}

// symbolicOps evaluate a node on known inputs, some symbolic. They return false when the node
// does not fit (it is then imported as ops on materialised values).
var symbolicOps = map[string]func(c *nodeCtx, in []*symTensor) bool{
	"Identity":     kit.SymUnary[*nodeCtx](func(a volume.Aff) (volume.Aff, bool) { return a, true }),
	"Cast":         symCast,
	"Add":          kit.SymBinary[*nodeCtx](kit.Add),
	"AddV2":        kit.SymBinary[*nodeCtx](kit.Add),
	"Sub":          kit.SymBinary[*nodeCtx](kit.Sub),
	"Mul":          kit.SymBinary[*nodeCtx](kit.Mul),
	"FloorDiv":     kit.SymBinary[*nodeCtx](kit.FloorDiv),
	"StridedSlice": symStridedSlice,
	"Pack":         symPack,
	"ConcatV2":     symConcat,
	"Prod":         symProd,
}

// trySymbolic evaluates the node symbolically when some input is symbolic and all are known.
func (im *importer) trySymbolic(c *nodeCtx) bool {
	f, ok := symbolicOps[c.node.Op]
	if !ok || len(im.Syms) == 0 {
		return false
	}
	keys := make([]string, len(c.inputs))
	for i := range keys {
		keys[i] = c.inputKey(i)
	}
	in, anySym, ok := im.KnownInputs(keys)
	return ok && anySym && f(c, in)
}

func symCast(c *nodeCtx, in []*symTensor) bool {
	to, ok, err := c.AttrType("DstT")
	return err == nil && ok && kit.SymCast(c, in, to)
}

// symProd multiplies the elements of a vector (reduction_indices 0): quasi-affine when at
// most one is symbolic.
func symProd(c *nodeCtx, in []*symTensor) bool {
	if len(in) != 2 || len(in[0].Shape) != 1 || c.AttrBool("keep_dims", false) {
		return false
	}
	if len(in[1].Vals) != 1 {
		return false
	}
	if ax, ok := in[1].Vals[0].IsConst(); !ok || ax != 0 && ax != -1 {
		return false
	}
	p := volume.AffConst(1)
	for _, v := range in[0].Vals {
		var ok bool
		if p, ok = kit.Mul(p, v); !ok {
			return false
		}
	}
	c.SetSym(0, in[0].Elem, nil, []volume.Aff{p})
	return true
}

// symStridedSlice slices a vector (no new axes): the selected elements, a scalar when the axis
// shrinks.
func symStridedSlice(c *nodeCtx, in []*symTensor) bool {
	if len(in) != 4 || len(in[0].Shape) != 1 || len(in[1].Vals) != 1 || c.AttrInt("new_axis_mask", 0) != 0 {
		return false
	}
	var spec [3]int64
	for i := 1; i < 4; i++ {
		v, ok := in[i].Vals[0].IsConst()
		if !ok {
			return false
		}
		spec[i-1] = v
	}
	if spec[2] == 0 {
		return false
	}
	all := c.AttrInt("ellipsis_mask", 0)&1 != 0
	a := denseAxis{begin: spec[0], end: spec[1], stride: spec[2], beginAll: all || c.AttrInt("begin_mask", 0)&1 != 0,
		endAll: all || c.AttrInt("end_mask", 0)&1 != 0, shrink: !all && c.AttrInt("shrink_axis_mask", 0)&1 != 0}
	if all {
		a.stride = 1
	}
	n := int64(len(in[0].Vals))
	first, ext, err := staticRange(n, a)
	if err != nil {
		return false // reported by the regular import
	}
	out := make([]volume.Aff, ext)
	for k := range out {
		out[k] = in[0].Vals[first+int64(k)*a.stride]
	}
	var shape []int64
	if !a.shrink {
		shape = []int64{ext}
	}
	c.SetSym(0, in[0].Elem, shape, out)
	return true
}

// symPack stacks scalars (or equal vectors) along axis 0.
func symPack(c *nodeCtx, in []*symTensor) bool {
	if len(in) == 0 || c.AttrInt("axis", 0) != 0 {
		return false
	}
	var out []volume.Aff
	for _, s := range in {
		if len(s.Shape) != len(in[0].Shape) || len(s.Vals) != len(in[0].Vals) {
			return false
		}
		out = append(out, s.Vals...)
	}
	shape := append([]int64{int64(len(in))}, in[0].Shape...)
	c.SetSym(0, in[0].Elem, shape, out)
	return true
}

// symConcat joins vectors (the last input is the axis, 0).
func symConcat(c *nodeCtx, in []*symTensor) bool {
	if len(in) < 2 {
		return false
	}
	if ax, ok := in[len(in)-1].Vals[0].IsConst(); !ok || ax != 0 && ax != -1 {
		return false
	}
	return kit.SymConcat(c, in[:len(in)-1])
}
