// This file holds dce: removal of the ops no required value depends on.

package passes

import (
	"context"

	"github.com/graphc/graphc/ir"
)

var dcePass = &Pass{
	Name:    "dce",
	Summary: "remove ops whose results no required output depends on, and unused constants",
	Doc: `An op is live when its result is a graph output or an operand of a live op whose domain is
not empty. Live ops whose domain is empty do no work: they become fills of their init value and
stop using their operands. Every other op is removed, and constants no op uses go with it.
Postconditions: every remaining op is live; running dce twice changes nothing.`,
	Run: runDCE,
}

func runDCE(ctx context.Context, g *ir.Graph, st *State) error {
	needed := map[*ir.Value]bool{}
	for _, o := range g.Outputs {
		needed[o] = true
	}
	live := map[*ir.Op]bool{}
	stats := st.Stats["dce"]
	for i := len(g.Ops) - 1; i >= 0; i-- {
		op := g.Ops[i]
		if !needed[op.Result] {
			continue
		}
		live[op] = true
		empty := op.Domain.IsEmpty().Or(false) // unknown: the op stays
		if empty && op.Kind != "fill" {
			if err := replaceWithFill(g, op); err != nil {
				return err
			}
			if stats != nil {
				stats.OpsRewritten++
			}
			continue
		}
		for _, o := range op.Operands {
			needed[o] = true
		}
	}
	keepRequires(g, func(op *ir.Op) bool { return !live[op] })
	n := g.RemoveOps(func(op *ir.Op) bool { return !live[op] })
	if stats != nil {
		stats.OpsRemoved += n
	}
	return nil
}

// replaceWithFill turns op into a fill of its init value, keeping its result value (and so its
// users) in place.
func replaceWithFill(g *ir.Graph, op *ir.Op) error {
	f, err := ir.NewFill(g.Params, op.Result.Type, op.Init, op.Name)
	if err != nil {
		return err
	}
	res, reqs := op.Result, op.Requires
	*op = *f
	op.Result, op.Requires = res, reqs
	res.Def = op
	return nil
}
