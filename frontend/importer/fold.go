// This file folds ops whose operands are all known at import into constants, so that shape
// computations (Shape → Gather → Concat → Reshape …) and rearrangements of weights become the
// constant inputs later nodes read.

package importer

import (
	"github.com/graphc/graphc/ir"
	"github.com/graphc/graphc/ir/eval"
)

// The fold limits, the same for every format. An op whose operands are all constants is
// evaluated at import when its result has at most MaxFoldElements elements (4 MiB of f32: a
// rearranged weight folds, a larger computation is left to the compiled code). An op without
// operands (fill, values, range) is a generator: it folds only up to MaxFoldGeneratedElements
// (1024), enough for every shape, axis or index list a later node may need as data, while a
// larger fill is cheaper to run as a loop than to embed as a constant.
const (
	MaxFoldElements          = 1 << 20
	MaxFoldGeneratedElements = 1 << 10
)

// WithinFoldLimit reports whether op's result has a static shape within the fold limits.
func WithinFoldLimit(op *ir.Op) bool {
	limit := int64(MaxFoldElements)
	if len(op.Operands) == 0 {
		limit = MaxFoldGeneratedElements
	}
	s, ok := op.Result.Type.StaticShape()
	return ok && ir.NumElements(s) <= limit
}

// Fold evaluates op when all its operands are constants and its result is within the fold
// limits; ok=false leaves the op to be emitted.
func Fold(op *ir.Op) (*ir.Tensor, bool) {
	data := make([]*ir.Tensor, len(op.Operands))
	for i, o := range op.Operands {
		if o.Data == nil {
			return nil, false
		}
		data[i] = o.Data
	}
	if !WithinFoldLimit(op) {
		return nil, false
	}
	return Evaluate(op, data)
}

// Evaluate runs op on the given operand data with the reference evaluator (ok=false when it
// cannot: the caller keeps the op).
func Evaluate(op *ir.Op, operands []*ir.Tensor) (*ir.Tensor, bool) {
	g := ir.NewGraph("fold")
	vals := make([]*ir.Value, len(operands))
	for i, t := range operands {
		vals[i] = g.AddConst("c", t)
	}
	cp, err := ir.MakeOp(nil, op.Kind, op.Name, vals, op.Attrs)
	if err != nil {
		return nil, false
	}
	g.Append(cp, "r")
	g.Outputs = []*ir.Value{cp.Result}
	out, err := eval.Run(g, nil)
	if err != nil {
		return nil, false
	}
	return out[0], true
}
