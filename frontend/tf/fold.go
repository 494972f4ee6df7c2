// This file folds ops whose operands are all known at import into constants, so that
// computations on weights (the layout transposes of NHWC convolutions, reshaped biases) and on
// shapes become data that later nodes can read as constant inputs.

package tf

import (
	"github.com/graphc/graphc/ir"
	"github.com/graphc/graphc/ir/eval"
)

// maxFoldElems bounds the size of a tensor folded at import.
const maxFoldElems = 1 << 20

// maxFoldGenerated bounds the size of a folded op without operands (a fill): a loop is
// cheaper than the constant it would become, unless later nodes read it as data (a shape).
const maxFoldGenerated = 64

// fold evaluates op when all its operands are constants and its result is small; ok=false
// leaves the op to be emitted.
func fold(op *ir.Op) (*ir.Tensor, bool) {
	for _, o := range op.Operands {
		if o.Data == nil {
			return nil, false
		}
	}
	limit := int64(maxFoldElems)
	if len(op.Operands) == 0 {
		limit = maxFoldGenerated
	}
	if s, ok := op.Result.Type.StaticShape(); !ok || ir.NumElements(s) > limit {
		return nil, false
	}
	g := ir.NewGraph("fold")
	var operands []*ir.Value
	for _, o := range op.Operands {
		operands = append(operands, g.AddConst("c", o.Data))
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
	return out[0], true
}

// dropUnusedConsts removes the constants no op reads and no output is (those only folded ops
// read).
func (im *importer) dropUnusedConsts() {
	im.g.RemoveOps(func(*ir.Op) bool { return false })
}
