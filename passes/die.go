// This file holds die, dead iteration elimination: Algorithm 1 of Bastoul et al. on the op DAG.

package passes

import (
	"context"
	"fmt"

	"github.com/graphc/graphc/ir"
	"github.com/graphc/graphc/volume"
)

var diePass = &Pass{
	Name:    "die",
	Summary: "dead iteration elimination: restrict every op to the iterations that reach a required output",
	Doc: `Walks the ops in reverse topological order. The required volume of each output is its whole
index box, or the union of its --require regions. For each op: contributing iterations =
preimage of the required volume of its result through the out map, intersected with its
domain; required volume of operand k = image of the contributing iterations through access
map k (union over uses); the domain becomes the contributing set. Data-dependent accesses use
their over-approximated maps. Symbolic dims stay symbolic.
Postconditions: every op's domain is a subset of its previous domain; the required output
elements are unchanged; State.Dead holds each op's dead space and State.Diags the accesses
that leave an operand's index box (out-of-bounds warnings).`,
	Run: runDIE,
}

// DeadSpace is what DIE removed from one op.
type DeadSpace struct {
	Op, Kind    string
	Dead        volume.Set
	Total       int64 // iterations of the domain before DIE (static shapes only)
	DeadCount   int64
	Counted     bool
	Approximate bool // DIE kept the op whole because a volume computation failed
}

func runDIE(ctx context.Context, g *ir.Graph, st *State) error {
	params := g.Params
	req := map[*ir.Value]volume.Set{}
	add := func(v *ir.Value, s volume.Set) {
		if old, ok := req[v]; ok {
			req[v] = old.Union(s).Coalesce()
		} else {
			req[v] = s
		}
	}
	for _, o := range g.Outputs {
		box := boxOf(params, o.Type)
		var r volume.Set
		found := false
		for _, rq := range st.Opts.Require {
			if rq.Output != o.Name {
				continue
			}
			if !found {
				r, found = rq.Set, true
			} else {
				r = r.Union(rq.Set)
			}
		}
		if found {
			r = r.Intersect(box)
		} else {
			r = box
		}
		add(o, r)
	}
	stats := st.Stats["die"]
	for i := len(g.Ops) - 1; i >= 0; i-- {
		if err := ctx.Err(); err != nil {
			return err
		}
		op := g.Ops[i]
		R, ok := req[op.Result]
		if !ok {
			R = volume.EmptySet(params, "", nil)
		}
		before := op.Domain
		var contrib volume.Set
		opReq := make([]volume.Set, len(op.Operands))
		var diags []Diagnostic
		err := volume.Try(func() {
			// iterations writing outside the result are a bug in the graph: report them
			outMap := op.OutMap(params)
			resBox := boxOf(params, op.Result.Type)
			if bad := op.Domain.Subtract(resBox.Preimage(outMap)); !bad.IsEmpty() {
				diags = append(diags, Diagnostic{Op: op.Result.Name, Msg: fmt.Sprintf(
					"iterations %s of %s write result elements %s outside its index domain %s",
					bad.Coalesce(), op.Kind, bad.Apply(outMap).Coalesce(), resBox)})
			}
			contrib = R.Preimage(outMap).Intersect(op.Domain).Coalesce()
			for k, o := range op.Operands {
				acc := op.AccessMap(params, k)
				rk := contrib.Apply(acc)
				box := boxOf(params, o.Type)
				if oob := rk.Subtract(box); !oob.IsEmpty() {
					iters := acc.IntersectDomain(contrib).IntersectRange(oob).Domain().Simplify()
					diags = append(diags, Diagnostic{Op: op.Result.Name, Msg: fmt.Sprintf(
						"iterations %s of %s access operand #%d %%%s outside its index domain %s (elements %s)",
						iters, op.Kind, k, o.Name, box, oob.Simplify())})
					rk = rk.Intersect(box)
				}
				if op.Access[k].Approx {
					diags = append(diags, Diagnostic{Op: op.Result.Name, Msg: fmt.Sprintf(
						"operand #%d %%%s is read through a data-dependent access: its required volume is over-approximated", k, o.Name)})
				}
				opReq[k] = rk.Coalesce()
			}
		})
		if err != nil {
			// Conservative fallback: the op stays whole and needs its operands whole.
			diags = append(diags, Diagnostic{Op: op.Result.Name, Msg: fmt.Sprintf("dead iteration analysis gave up (%v); the op is kept whole", err)})
			contrib = op.Domain
			for k, o := range op.Operands {
				opReq[k] = boxOf(params, o.Type)
			}
		}
		st.Diags = append(st.Diags, diags...)
		for k, o := range op.Operands {
			add(o, opReq[k])
		}
		ds := DeadSpace{Op: op.Result.Name, Kind: op.Kind, Approximate: err != nil}
		_ = volume.Try(func() {
			ds.Dead = before.Subtract(contrib).Coalesce()
			if len(params) == 0 {
				if t, err := before.Card(nil); err == nil {
					if d, err := ds.Dead.Card(nil); err == nil {
						ds.Total, ds.DeadCount, ds.Counted = t, d, true
					}
				}
			}
		})
		if !ds.Dead.PlainIsEmpty() && stats != nil {
			stats.DomainsReduced++
		}
		st.Dead = append(st.Dead, ds)
		op.Domain = contrib
	}
	for v, r := range req {
		st.Required[v] = r
	}
	// report in graph order
	for i, j := 0, len(st.Dead)-1; i < j; i, j = i+1, j-1 {
		st.Dead[i], st.Dead[j] = st.Dead[j], st.Dead[i]
	}
	return nil
}
