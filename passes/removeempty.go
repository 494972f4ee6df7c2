// This file holds remove-empty: ops over empty iteration domains do no work.

package passes

import (
	"context"

	"github.com/graphc/graphc/ir"
)

var removeEmptyPass = &Pass{
	Name:    "remove-empty",
	Summary: "ops whose iteration domain is empty (a zero extent) become fills of their init value",
	Doc: `A tensor with a zero extent needs no computation (nvFuser's RemoveEmptyPass). In the generic
form, an op iterating over a zero extent has an empty domain: its result is its init value
everywhere. That covers reductions over empty axes (sum 0, prod 1, max -inf, min +inf: the
op's init), matmuls with an empty contraction (zeros) and ops producing empty tensors. Such ops
become fills, which read nothing, so their producers can be removed by dce. Variadic ops
(concat, sum, ...) drop their empty operands when the catalogue rebuilds them with the same
result type. An empty axes input is not an empty tensor: the importers resolve each op's
noop_with_empty_axes semantics before this pass runs.
Postconditions: no op other than fill has a statically empty domain.`,
	Run: runRemoveEmpty,
}

func runRemoveEmpty(ctx context.Context, g *ir.Graph, st *State) error {
	stats := st.Stats["remove-empty"]
	for _, op := range g.Ops {
		if op.Kind == "fill" {
			continue
		}
		if dropEmptyOperands(g, op) && stats != nil {
			stats.OpsRewritten++
		}
		empty := op.Domain.PlainIsEmpty()
		if !empty {
			empty = op.Domain.IsEmpty().Or(false) // unknown: keep the op
		}
		if !empty {
			continue
		}
		if err := replaceWithFill(g, op); err != nil {
			return err
		}
		if stats != nil {
			stats.OpsRewritten++
		}
	}
	return nil
}

// isEmptyValue reports whether v has a zero extent for every value of the symbolic dims.
func isEmptyValue(v *ir.Value) bool {
	for _, d := range v.Type.Shape {
		if c, ok := d.IsConst(); ok && c == 0 {
			return true
		}
	}
	return false
}

// dropEmptyOperands rebuilds a variadic op (concat, sum, …) without its empty operands when the
// catalogue accepts the shorter operand list with the same attributes and the same result type:
// an empty operand contributes no element, so the op means the same without it.
func dropEmptyOperands(g *ir.Graph, op *ir.Op) bool {
	def := ir.LookupOp(op.Kind)
	if def == nil || def.MaxOperands >= 0 {
		return false
	}
	var keep []*ir.Value
	for _, o := range op.Operands {
		if !isEmptyValue(o) {
			keep = append(keep, o)
		}
	}
	if len(keep) == len(op.Operands) || len(keep) == 0 {
		return false
	}
	nop, err := ir.MakeOp(g.Params, op.Kind, op.Name, keep, op.Attrs)
	if err != nil || !nop.Result.Type.Equal(op.Result.Type) {
		return false
	}
	res := op.Result
	*op = *nop
	op.Result = res
	res.Def = op
	return true
}
