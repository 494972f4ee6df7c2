// This file folds ops whose operands are all known at import into constants, so that shape
// computations (Shape → Gather → Concat → Reshape …) become the constant inputs later ops need.

package onnx

import (
	kit "github.com/graphc/graphc/frontend/importer"
	"github.com/graphc/graphc/ir"
)

// foldOutputs evaluates the ops just emitted for a node when all their operands are constants,
// replacing their results by constants known to the importer.
func (im *importer) foldOutputs(n int) {
	for _, name := range im.lastOutputs {
		v, ok := im.Vals[name]
		if !ok || v.Def == nil {
			continue
		}
		t, ok := im.tryFold(v)
		if !ok {
			continue
		}
		im.Consts[name] = t
		delete(im.Vals, name)
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
	for name, v := range im.Vals {
		if r := repl[v]; r != nil {
			im.Vals[name] = r
		}
	}
	im.g.RemoveOps(func(op *ir.Op) bool { return im.folded[op] != nil })
	im.folded = map[*ir.Op]*ir.Tensor{}
	// RemoveOps also dropped the constants only the folded ops used: forget their values (their
	// data stays in im.Consts and is materialised again if a later node reads it)
	live := map[*ir.Value]bool{}
	for _, c := range im.g.Consts {
		live[c] = true
	}
	for name, v := range im.Vals {
		if v.Data != nil && !live[v] {
			delete(im.Vals, name)
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
	if !kit.WithinFoldLimit(op) {
		return nil, false // a fill is cheaper to run than to embed
	}
	data := make([]*ir.Tensor, len(op.Operands))
	for i, o := range op.Operands {
		if data[i], ok = im.tryFold(o); !ok {
			return nil, false
		}
	}
	out, ok := kit.Evaluate(op, data)
	if !ok {
		return nil, false
	}
	im.folded[op] = out
	return out, true
}
