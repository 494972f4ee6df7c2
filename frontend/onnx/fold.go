// This file folds ops whose operands are all known at import into constants, so that shape
// computations (Shape → Gather → Concat → Reshape …) become the constant inputs later ops need.

package onnx

import (
	"github.com/graphc/graphc/ir"
	"github.com/graphc/graphc/ir/eval"
)

// maxFoldElems bounds the size of a tensor folded at import.
const maxFoldElems = 1 << 20

// maxGeneratorFoldElems bounds the size of an op without operands (fill, values) folded at
// import: small ones feed shape computations, large ones would only bloat the constants.
const maxGeneratorFoldElems = 1 << 10

// foldOutputs evaluates the ops just emitted for a node when all their operands are constants,
// replacing their results by constants known to the importer.
func (im *importer) foldOutputs(n int) {
	for _, name := range im.lastOutputs {
		v, ok := im.vals[name]
		if !ok || v.Def == nil {
			continue
		}
		t, ok := im.tryFold(v)
		if !ok {
			continue
		}
		im.consts[name] = t
		delete(im.vals, name)
	}
	if len(im.folded) == 0 {
		return
	}
	// a composite node's constant part (an index range beside data) folds although the ops
	// reading it do not: those read the constant instead. Folded ops are all the node's own
	// (an earlier node's op that could fold has folded then, or is known unfoldable).
	repl := map[*ir.Value]*ir.Value{}
	for _, op := range im.g.Ops[im.nodeStart:] {
		if im.folded[op] != nil {
			continue
		}
		for i, o := range op.Operands {
			t := im.folded[o.Def]
			if o.Def == nil || t == nil {
				continue
			}
			if repl[o] == nil {
				repl[o] = im.g.AddConst(o.Name, t)
			}
			op.Operands[i] = repl[o]
		}
	}
	for name, v := range im.vals {
		if r := repl[v]; r != nil {
			im.vals[name] = r
		}
	}
	im.g.RemoveOps(func(op *ir.Op) bool { return im.folded[op] != nil })
	im.folded = map[*ir.Op]*ir.Tensor{}
	// RemoveOps also dropped the constants only the folded ops used: forget their values (their
	// data stays in im.consts and is materialised again if a later node reads it)
	live := map[*ir.Value]bool{}
	for _, c := range im.g.Consts {
		live[c] = true
	}
	for name, v := range im.vals {
		if v.Data != nil && !live[v] {
			delete(im.vals, name)
		}
	}
}

// tryFold evaluates v's producer (and, recursively, producers of its operands) when everything
// it depends on is constant.
func (im *importer) tryFold(v *ir.Value) (t *ir.Tensor, ok bool) {
	if v.Data != nil {
		return v.Data, true
	}
	op := v.Def
	if op == nil || im.unfoldable[v] {
		return nil, false
	}
	// A value that cannot be folded now never can (its operands do not change): remembering it
	// keeps import linear in the graph size instead of re-walking every chain back to its inputs.
	defer func() {
		if !ok {
			im.unfoldable[v] = true
		}
	}()
	s, ok := v.Type.StaticShape()
	if !ok || ir.NumElements(s) > maxFoldElems {
		return nil, false
	}
	if len(op.Operands) == 0 && ir.NumElements(s) > maxGeneratorFoldElems {
		return nil, false // a fill is cheaper to run than to embed
	}
	g := ir.NewGraph("fold")
	var operands []*ir.Value
	for _, o := range op.Operands {
		t, ok := im.tryFold(o)
		if !ok {
			return nil, false
		}
		operands = append(operands, g.AddConst(o.Name, t))
	}
	cp, err := ir.MakeOp(nil, op.Kind, op.Name, operands, op.Attrs)
	if err != nil {
		return nil, false
	}
	g.Append(cp, "r")
	g.Outputs = []*ir.Value{cp.Result}
	out, err := eval.Run(g, nil)
	if err != nil {
		return nil, false
	}
	im.folded[op] = out[0]
	return out[0], true
}
