// This file imports the outputs of an If with a run-time condition whose branches produce
// different extents (torchvision's batched NMS: no boxes in one branch, the kept boxes in the
// other). Each extent that differs becomes a bounded dim, the then-branch's extent when the
// condition holds and the else-branch's otherwise, bounded by the larger of their bounds; the
// output reads each branch where that branch has the element.

package onnx

import (
	"fmt"
	"strings"

	"github.com/graphc/graphc/ir"
	"github.com/graphc/graphc/volume"
)

// affBody prints the affine expression a of symbolic dims (no iteration dims, no floors) in the
// body syntax, as i64.
func affBody(a volume.Aff) (string, error) {
	if len(a.Dims) > 0 || len(a.Floors) > 0 {
		return "", fmt.Errorf("extent %s is not an affine expression of symbolic dims", a.String())
	}
	s := fmt.Sprintf("%d:i64", a.Const)
	for _, p := range a.Params {
		t := fmt.Sprintf("param(%s)", p.Name)
		if p.Coef != 1 {
			t = fmt.Sprintf("mul(%d:i64, %s)", p.Coef, t)
		}
		s = fmt.Sprintf("add(%s, %s)", s, t)
	}
	return s, nil
}

// ifDifferingExtents returns where(cond, a, b) for a and b of the same element type and rank
// but different extents: the result's differing extents are new bounded dims.
func (e *emitter) ifDifferingExtents(name string, cond, a, b *ir.Value) (*ir.Value, error) {
	at, bt := a.Type, b.Type
	if at.Elem != bt.Elem || at.Rank() != bt.Rank() {
		return nil, fmt.Errorf("%w: the branches give %s and %s (a run-time condition needs one element type and rank)", ErrUnsupported, at, bt)
	}
	// every differing extent must be bounded before anything is emitted (an error leaves the
	// graph as it was: the caller then asks for the condition at compile time)
	for d := range at.Shape {
		if at.Shape[d].Equal(bt.Shape[d]) {
			continue
		}
		_, err1 := e.boundOf(at.Shape[d])
		_, err2 := e.boundOf(bt.Shape[d])
		_, err3 := affBody(at.Shape[d])
		_, err4 := affBody(bt.Shape[d])
		for _, err := range []error{err1, err2, err3, err4} {
			if err != nil {
				return nil, fmt.Errorf("%w: the branches give %s and %s: extent #%d: %v", ErrUnsupported, at, bt, d, err)
			}
		}
	}
	scalar := e.reshape(cond)
	shape := make([]volume.Aff, at.Rank())
	for d := range shape {
		if at.Shape[d].Equal(bt.Shape[d]) {
			shape[d] = at.Shape[d]
			continue
		}
		ba, _ := e.boundOf(at.Shape[d])
		bb, _ := e.boundOf(bt.Shape[d])
		ea, _ := affBody(at.Shape[d])
		eb, _ := affBody(bt.Shape[d])
		ps := paramList(at.Shape[d], bt.Shape[d])
		attrs := ir.Attrs{
			"type":   ir.StringAttr("i64[]"),
			"domain": ir.StringAttr(fmt.Sprintf("[%s] -> { [] }", ps)),
			"access": ir.StringsAttr("{ [] -> [] }"),
			"out":    ir.StringAttr("{ [] -> [] }"),
			"body":   ir.StringAttr(fmt.Sprintf("select(in0, %s, %s)", ea, eb)),
		}
		ext := e.Op("generic", fmt.Sprintf("%s_extent%d", name, d), attrs, scalar)
		shape[d] = volume.AffParam(e.boundedDim(fmt.Sprintf("%s_n%d", name, d), ext, max(ba, bb)))
	}
	if e.err != nil {
		return nil, e.err
	}
	dims := make([]string, len(shape))
	ext := make([]string, len(shape))
	var inA, inB []string
	for d := range dims {
		dims[d] = fmt.Sprintf("i%d", d)
		ext[d] = shape[d].String()
		if !at.Shape[d].Equal(shape[d]) {
			inA = append(inA, fmt.Sprintf("%s < %s", dims[d], at.Shape[d].String()))
		}
		if !bt.Shape[d].Equal(shape[d]) {
			inB = append(inB, fmt.Sprintf("%s < %s", dims[d], bt.Shape[d].String()))
		}
	}
	tup := strings.Join(dims, ", ")
	var all []volume.Aff
	all = append(all, shape...)
	all = append(all, at.Shape...)
	all = append(all, bt.Shape...)
	guarded := func(in []string) string {
		if len(in) == 0 {
			return fmt.Sprintf("{ [%s] -> [%s] }", tup, tup)
		}
		return fmt.Sprintf("[%s] -> { [%s] -> [%s] : %s }", paramList(all...), tup, tup, strings.Join(in, " and "))
	}
	attrs := ir.Attrs{
		"type":   ir.StringAttr(ir.TensorType{Elem: at.Elem, Shape: shape}.String()),
		"domain": ir.StringAttr(fmt.Sprintf("[%s] -> { [%s] : %s }", paramList(all...), tup, boxDomain(dims, ext))),
		"access": ir.StringsAttr("{ ["+tup+"] -> [] }", guarded(inA), guarded(inB)),
		"out":    ir.StringAttr(fmt.Sprintf("{ [%s] -> [%s] }", tup, tup)),
		"body":   ir.StringAttr(fmt.Sprintf("select(in0, select(avail(1), in1, %[1]s), select(avail(2), in2, %[1]s))", zeroOf(at.Elem))),
	}
	return e.Op("generic", name, attrs, scalar, a, b), e.err
}

// paramList returns the symbolic dims of the expressions, comma-separated.
func paramList(as ...volume.Aff) string {
	var ps []string
	seen := map[string]bool{}
	for _, a := range as {
		for _, p := range a.ParamNames() {
			if !seen[p] {
				seen[p] = true
				ps = append(ps, p)
			}
		}
	}
	return strings.Join(ps, ", ")
}

// zeroOf returns the zero of t in the body syntax.
func zeroOf(t ir.DType) string {
	if t.IsFloat() {
		return "0.0:" + t.String()
	}
	return "0:" + t.String()
}
