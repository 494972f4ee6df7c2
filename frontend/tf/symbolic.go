// This file holds symbolic shape values: small integer tensors whose elements are quasi-affine
// expressions of the symbolic dims (Shape of a tensor with an unknown batch, and what
// StridedSlice, Pack, ConcatV2, Cast and integer arithmetic make of it), as the ONNX importer
// has them. They let the shape subgraphs of exported models (Keras' Flatten: Shape →
// StridedSlice → Pack → Reshape) resolve at import while the batch stays symbolic. A symbolic
// value that an op reads as data is materialised as a values op.

package tf

import (
	"fmt"

	"github.com/graphc/graphc/ir"
	"github.com/graphc/graphc/volume"
)

// symTensor is an integer tensor of static shape whose elements are quasi-affine expressions.
type symTensor struct {
	elem  ir.DType
	shape []int64
	vals  []volume.Aff
}

// known returns input i as quasi-affine elements (constant integers or symbolic).
func (c *nodeCtx) known(i int) (*symTensor, bool) {
	if i >= len(c.inputs) {
		return nil, false
	}
	k := c.inputKey(i)
	if s, ok := c.im.syms[k]; ok {
		return s, true
	}
	t, ok := c.im.consts[k]
	if !ok || t.Elem.IsFloat() {
		return nil, false
	}
	t = t.Decoded()
	vals := make([]volume.Aff, len(t.I))
	for j, v := range t.I {
		vals[j] = volume.AffConst(v)
	}
	return &symTensor{elem: t.Elem, shape: t.Shape, vals: vals}, true
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
	return s.vals, nil
}

// SetSym binds output port to a symbolic tensor (a constant when it has no symbol).
func (c *nodeCtx) SetSym(port int, elem ir.DType, shape []int64, vals []volume.Aff) {
	t := ir.NewTensor(elem, shape)
	for i, v := range vals {
		x, ok := v.IsConst()
		if !ok {
			if c.im.syms == nil {
				c.im.syms = map[string]*symTensor{}
			}
			c.im.syms[key(c.node.Name, port)] = &symTensor{elem: elem, shape: append([]int64(nil), shape...), vals: vals}
			return
		}
		t.I[i] = elem.WrapInt(x)
	}
	c.SetConst(port, t)
}

// materializeSym emits a values op for a symbolic tensor that an op reads as data.
func (im *importer) materializeSym(k string, s *symTensor) (*ir.Value, error) {
	texts := make([]string, len(s.vals))
	for i, v := range s.vals {
		texts[i] = v.String()
	}
	name, _, _ := splitName(k)
	t := ir.StaticType(s.elem, s.shape...)
	op, err := im.g.NewOp("values", name, nil, ir.Attrs{"type": ir.StringAttr(t.String()), "values": ir.StringsAttr(texts...)})
	if err != nil {
		return nil, fmt.Errorf("materialising the symbolic value %s: %w", k, err)
	}
	im.vals[k] = op.Result
	return op.Result, nil
}

// symbolicOps evaluate a node on known inputs, some symbolic. They return false when the node
// does not fit (it is then imported as ops on materialised values).
var symbolicOps = map[string]func(c *nodeCtx, in []*symTensor) bool{
	"Identity":     symIdentity,
	"Cast":         symCast,
	"Add":          symBinary(func(a, b volume.Aff) (volume.Aff, bool) { return a.Add(b), true }),
	"AddV2":        symBinary(func(a, b volume.Aff) (volume.Aff, bool) { return a.Add(b), true }),
	"Sub":          symBinary(func(a, b volume.Aff) (volume.Aff, bool) { return a.Sub(b), true }),
	"Mul":          symBinary(symMul),
	"FloorDiv":     symBinary(symFloorDiv),
	"StridedSlice": symStridedSlice,
	"Pack":         symPack,
	"ConcatV2":     symConcat,
	"Prod":         symProd,
}

// trySymbolic evaluates the node symbolically when some input is symbolic and all are known.
func (im *importer) trySymbolic(c *nodeCtx) bool {
	f, ok := symbolicOps[c.node.Op]
	if !ok || len(im.syms) == 0 {
		return false
	}
	anySym := false
	var in []*symTensor
	for i := range c.inputs {
		if _, ok := im.syms[c.inputKey(i)]; ok {
			anySym = true
		}
		s, ok := c.known(i)
		if !ok {
			return false
		}
		in = append(in, s)
	}
	return anySym && f(c, in)
}

func symIdentity(c *nodeCtx, in []*symTensor) bool {
	if len(in) != 1 {
		return false
	}
	c.SetSym(0, in[0].elem, in[0].shape, in[0].vals)
	return true
}

func symCast(c *nodeCtx, in []*symTensor) bool {
	to, ok, err := c.AttrType("DstT")
	if len(in) != 1 || err != nil || !ok || to.IsFloat() || to == ir.Bool {
		return false
	}
	c.SetSym(0, to, in[0].shape, in[0].vals)
	return true
}

// symBinary applies f elementwise to equal shapes or with a scalar operand.
func symBinary(f func(a, b volume.Aff) (volume.Aff, bool)) func(c *nodeCtx, in []*symTensor) bool {
	return func(c *nodeCtx, in []*symTensor) bool {
		if len(in) != 2 {
			return false
		}
		a, b := in[0], in[1]
		n := max(len(a.vals), len(b.vals))
		if len(a.vals) != n && len(a.vals) != 1 || len(b.vals) != n && len(b.vals) != 1 {
			return false
		}
		shape := a.shape
		if len(b.vals) > len(a.vals) || len(b.shape) > len(a.shape) {
			shape = b.shape
		}
		out := make([]volume.Aff, n)
		for i := range out {
			r, ok := f(a.vals[min(i, len(a.vals)-1)], b.vals[min(i, len(b.vals)-1)])
			if !ok {
				return false
			}
			out[i] = r
		}
		c.SetSym(0, a.elem, shape, out)
		return true
	}
}

func symMul(a, b volume.Aff) (volume.Aff, bool) {
	if k, ok := b.IsConst(); ok {
		return a.Mul(k), true
	}
	if k, ok := a.IsConst(); ok {
		return b.Mul(k), true
	}
	return volume.Aff{}, false // a product of symbols is not quasi-affine
}

func symFloorDiv(a, b volume.Aff) (volume.Aff, bool) {
	k, ok := b.IsConst()
	if !ok || k <= 0 {
		return volume.Aff{}, false
	}
	return a.FloorDiv(k), true
}

// symProd multiplies the elements of a vector (reduction_indices 0): quasi-affine when at
// most one is symbolic.
func symProd(c *nodeCtx, in []*symTensor) bool {
	if len(in) != 2 || len(in[0].shape) != 1 || c.AttrBool("keep_dims", false) {
		return false
	}
	if len(in[1].vals) != 1 {
		return false
	}
	if ax, ok := in[1].vals[0].IsConst(); !ok || ax != 0 && ax != -1 {
		return false
	}
	p := volume.AffConst(1)
	for _, v := range in[0].vals {
		var ok bool
		if p, ok = symMul(p, v); !ok {
			return false
		}
	}
	c.SetSym(0, in[0].elem, nil, []volume.Aff{p})
	return true
}

// symStridedSlice slices a vector (no new axes): the selected elements, a scalar when the axis
// shrinks.
func symStridedSlice(c *nodeCtx, in []*symTensor) bool {
	if len(in) != 4 || len(in[0].shape) != 1 || len(in[1].vals) != 1 || c.AttrInt("new_axis_mask", 0) != 0 {
		return false
	}
	var spec [3]int64
	for i := 1; i < 4; i++ {
		v, ok := in[i].vals[0].IsConst()
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
	n := int64(len(in[0].vals))
	first, ext, err := staticRange(n, a)
	if err != nil {
		return false // reported by the regular import
	}
	out := make([]volume.Aff, ext)
	for k := range out {
		out[k] = in[0].vals[first+int64(k)*a.stride]
	}
	var shape []int64
	if !a.shrink {
		shape = []int64{ext}
	}
	c.SetSym(0, in[0].elem, shape, out)
	return true
}

// symPack stacks scalars (or equal vectors) along axis 0.
func symPack(c *nodeCtx, in []*symTensor) bool {
	if len(in) == 0 || c.AttrInt("axis", 0) != 0 {
		return false
	}
	var out []volume.Aff
	for _, s := range in {
		if len(s.shape) != len(in[0].shape) || len(s.vals) != len(in[0].vals) {
			return false
		}
		out = append(out, s.vals...)
	}
	shape := append([]int64{int64(len(in))}, in[0].shape...)
	c.SetSym(0, in[0].elem, shape, out)
	return true
}

// symConcat joins vectors (the last input is the axis, 0).
func symConcat(c *nodeCtx, in []*symTensor) bool {
	if len(in) < 2 {
		return false
	}
	if ax, ok := in[len(in)-1].vals[0].IsConst(); !ok || ax != 0 && ax != -1 {
		return false
	}
	var out []volume.Aff
	for _, s := range in[:len(in)-1] {
		if len(s.shape) != 1 {
			return false
		}
		out = append(out, s.vals...)
	}
	c.SetSym(0, in[0].elem, []int64{int64(len(out))}, out)
	return true
}
