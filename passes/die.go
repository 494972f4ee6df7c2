// This file holds die, dead iteration elimination: Algorithm 1 of Bastoul et al. on the op DAG.

package passes

import (
	"cmp"
	"context"
	"fmt"
	"slices"

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

// DeadSpace is what DIE (and known-values before it) removed from one op. There is one for
// every op of the graph DIE saw, so its sets are held by pointer, nil when empty (a
// 100,000-op chain's report held 23 MB of empty sets).
type DeadSpace struct {
	Op, Kind string
	// dead holds the iterations whose results nothing required (DIE).
	dead *volume.Set
	// knownZero holds the reduction iterations known-values removed: they contribute the
	// reduction's identity (a known-zero factor, a max over -inf).
	knownZero      *volume.Set
	Total          int64 // iterations of the domain before known-values and DIE (static shapes only)
	DeadCount      int64
	KnownZeroCount int64
	Counted        bool
	Approximate    bool // DIE kept the op whole because a volume computation failed
}

// Dead returns the iterations whose results nothing required (DIE); the zero Set when there
// are none.
func (d DeadSpace) Dead() volume.Set {
	if d.dead == nil {
		return volume.Set{}
	}
	return *d.dead
}

// KnownZero returns the reduction iterations known-values removed (they contribute the
// reduction's identity: a known-zero factor, a max over -inf); the zero Set when there are none.
func (d DeadSpace) KnownZero() volume.Set {
	if d.knownZero == nil {
		return volume.Set{}
	}
	return *d.knownZero
}

// HasKnownZero reports whether known-values removed iterations of the op.
func (d DeadSpace) HasKnownZero() bool {
	return d.knownZero != nil && d.knownZero.NPieces() > 0 && !d.knownZero.PlainIsEmpty()
}

// addKnownZero records the iterations known-values removed from the op (for the valid
// symbolic dims).
func (d *DeadSpace) addKnownZero(kz volume.Set, valid *ir.ParamContext) {
	if kz.NPieces() == 0 {
		return
	}
	known := valid.Restrict(kz).Coalesce()
	if known.Err() != nil {
		// volume gave up: the report records no known-zero iterations (it under-counts
		// what was removed; the graph is the same)
		return
	}
	d.knownZero = &known
	if d.Counted {
		if n, err := known.Card(nil); err == nil {
			d.KnownZeroCount = n
			d.Total += n
		} else {
			d.Counted = false
		}
	}
}

func runDIE(ctx context.Context, g *ir.Graph, st *State) error {
	params := g.Params
	// req holds the required volume of each value; its text, when known, keys the memo below
	// (printing a set costs about as much as a small volume operation)
	req := map[*ir.Value]*reqVolume{}
	unions := map[[2]string]reqVolume{}
	add := func(v *ir.Value, s volume.Set, text string) {
		old, ok := req[v]
		if !ok {
			req[v] = &reqVolume{s, text}
			return
		}
		if old.text == "" || text == "" {
			*old = reqVolume{set: old.set.Union(s).Coalesce()}
			return
		}
		k := [2]string{old.text, text}
		u, ok := unions[k]
		if !ok {
			u.set = old.set.Union(s).Coalesce()
			u.text = u.set.String()
			unions[k] = u
		}
		*old = u
	}
	// the symbolic dims for which the graph is defined (the ops' requirements, which the
	// entry checks): nothing outside it is required
	valid := validParams(g)
	for _, o := range g.Outputs {
		box := valid.Restrict(boxOf(params, o.Type))
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
			// dims the region leaves free mean every index; a region that holds no element of
			// the output at all is a mistake worth a word
			if r = r.Intersect(box); r.IsEmpty() == volume.Yes {
				st.Diags = append(st.Diags, Diagnostic{Op: o.Name, Msg: fmt.Sprintf(
					"the required region holds no element of the output's index domain %s: nothing is required, every op it depends on is dead", box)})
			}
		} else {
			r = box
		}
		add(o, r, "")
	}
	stats := st.Stats["die"]
	// ops of repeated layers have the same structure and required volume: their analysis is
	// done once (results with diagnostics or failures are not reused: they name the op)
	memo := map[string]*dieResult{}
	var kb ir.StructKey
	// one entry an op: grown once, not doubled (a 100,000-op chain's report is 24 MB)
	st.Dead = slices.Grow(st.Dead, len(g.Ops))
	for i := len(g.Ops) - 1; i >= 0; i-- {
		if err := ctx.Err(); err != nil {
			return err
		}
		op := g.Ops[i]
		r, ok := req[op.Result]
		if !ok {
			r = &reqVolume{set: volume.EmptySet(params, "", nil)}
		}
		if r.text == "" {
			r.text = r.set.String() // an error value's text too: its analysis is approximate, never memoised
		}
		key := dieKey(&kb, params, r.text, op)
		res := memo[key]
		if res == nil || key == "" {
			var diags []Diagnostic
			res, diags = analyzeDIE(op, params, r.set, valid)
			st.Diags = append(st.Diags, diags...)
			if key != "" && len(diags) == 0 && !res.approximate {
				res.reqText = make([]string, len(res.opReq))
				for k, s := range res.opReq {
					res.reqText[k] = s.String()
				}
				memo[key] = res
			}
		}
		for k, o := range op.Operands {
			text := ""
			if res.reqText != nil {
				text = res.reqText[k]
			}
			add(o, res.opReq[k], text)
		}
		ds := DeadSpace{Op: op.Result.Name, Kind: op.Kind, Approximate: res.approximate,
			Total: res.total, DeadCount: res.deadCount, Counted: res.counted}
		ds.addKnownZero(st.KnownZero[op.Result.Name], valid)
		if !res.dead.PlainIsEmpty() {
			ds.dead = &res.dead
			if stats != nil {
				stats.DomainsReduced++
			}
		}
		st.Dead = append(st.Dead, ds)
		op.Domain = res.contrib
		// the readers of op's result come after it and were visited: its required volume is
		// final, and req keeps only the frontier (a 100,000-op chain's req held 16 MB)
		if r, ok := req[op.Result]; ok {
			st.Required[op.Result] = r.set
			delete(req, op.Result)
		}
	}
	for v, r := range req {
		st.Required[v] = r.set
	}
	// report in graph order
	for i, j := 0, len(st.Dead)-1; i < j; i, j = i+1, j-1 {
		st.Dead[i], st.Dead[j] = st.Dead[j], st.Dead[i]
	}
	return nil
}

// validParams returns the symbolic-dim values that satisfy every op's requirements, as a
// context that restricts each set by the requirements on its own dims.
func validParams(g *ir.Graph) *ir.ParamContext { return ir.RequirementsContext(g) }

// reqVolume is the required volume of a value and, when known, its text.
type reqVolume struct {
	set  volume.Set
	text string
}

// dieResult is DIE's analysis of one op.
type dieResult struct {
	contrib          volume.Set   // the contributing iterations: the new domain
	opReq            []volume.Set // the required volume of each operand
	reqText          []string     // their texts (results in the memo)
	dead             volume.Set
	total, deadCount int64
	counted          bool
	approximate      bool // a volume computation failed: the op stays whole
}

// dieKey returns the key of DIE's analysis of op whose result's required volume has the text
// rtext: everything the analysis reads (the symbolic dims, the required volume, the domain
// and dims, the out and access maps and the tensor types). Sets are keyed by their isl text.
func dieKey(k *ir.StructKey, params []string, rtext string, op *ir.Op) string {
	k.Reset()
	k.Strs(params)
	k.Str(rtext)
	k.Str(op.Domain.String())
	k.Strs(op.Dims)
	k.Access(op.Out)
	k.TensorType(op.Result.Type)
	k.Int(int64(len(op.Operands)))
	for i, o := range op.Operands {
		k.Access(op.Access[i])
		k.TensorType(o.Type)
	}
	return string(k.B)
}

// analyzeDIE restricts op to the iterations that contribute to R and returns the required
// volume of its operands, its dead space (for the symbolic dims in valid, which satisfy every
// op's requirements) and the diagnostics (writes and reads outside the index boxes).
func analyzeDIE(op *ir.Op, params []string, R volume.Set, valid *ir.ParamContext) (*dieResult, []Diagnostic) {
	opReq := make([]volume.Set, len(op.Operands))
	var diags []Diagnostic
	// gaveUp records the first test volume could not decide: the analysis is then approximate
	var gaveUp error
	nonEmpty := func(s volume.Set, what string) bool {
		e := s.IsEmpty()
		if !e.Known() && gaveUp == nil {
			gaveUp = cmp.Or(s.Err(), fmt.Errorf("%w: whether %s", volume.ErrTooComplex, what))
		}
		return e == volume.No
	}
	// iterations writing outside the result are a bug in the graph: report them
	outMap := op.OutMap(params)
	resBox := boxOf(params, op.Result.Type)
	// (where the requirements hold: the required volumes are gisted in their context)
	if bad := valid.Restrict(op.Domain.Subtract(resBox.Preimage(outMap))); nonEmpty(bad, "it writes outside the result") {
		iters, elems := bad.Coalesce(), bad.Apply(outMap).Coalesce()
		gaveUp = cmp.Or(gaveUp, volume.FirstErr(iters, elems))
		diags = append(diags, Diagnostic{Op: op.Result.Name, Msg: fmt.Sprintf(
			"iterations %s of %s write result elements %s outside its index domain %s",
			iters, op.Kind, elems, resBox)})
	}
	contrib := R.Preimage(outMap).Intersect(op.Domain).Coalesce()
	for k, o := range op.Operands {
		acc := op.AccessMap(params, k)
		rk := contrib.Apply(acc)
		box := boxOf(params, o.Type)
		if oob := valid.Restrict(rk.Subtract(box)); nonEmpty(oob, "it reads outside an operand") {
			iters, elems := acc.IntersectDomain(contrib).IntersectRange(oob).Domain().Simplify(), oob.Simplify()
			gaveUp = cmp.Or(gaveUp, volume.FirstErr(iters, elems))
			diags = append(diags, Diagnostic{Op: op.Result.Name, Msg: fmt.Sprintf(
				"iterations %s of %s access operand #%d %%%s outside its index domain %s (elements %s)",
				iters, op.Kind, k, o.Name, box, elems)})
			rk = rk.Intersect(box)
		}
		if op.Access[k].Approx {
			diags = append(diags, Diagnostic{Op: op.Result.Name, Note: true, Msg: fmt.Sprintf(
				"operand #%d %%%s is read through a data-dependent access: its required volume is over-approximated", k, o.Name)})
		}
		// the required volume over the dims it depends on where the graph runs (a
		// concatenation's operands, at offsets summing earlier extents, need their own
		// extent's elements): a detector's per-class chains would otherwise carry every class's
		// run-time size
		opReq[k] = valid.Gist(rk).Coalesce()
		gaveUp = cmp.Or(gaveUp, opReq[k].Err())
	}
	err := cmp.Or(gaveUp, contrib.Err())
	if err != nil {
		// Conservative fallback: the op stays whole and needs its operands whole.
		diags = append(diags, Diagnostic{Op: op.Result.Name, Msg: fmt.Sprintf("dead iteration analysis gave up (%v); the op is kept whole", err)})
		contrib = op.Domain
		for k, o := range op.Operands {
			opReq[k] = boxOf(params, o.Type)
		}
	}
	res := &dieResult{contrib: contrib, opReq: opReq, approximate: err != nil}
	before := valid.Restrict(op.Domain, contrib)
	if dead := before.Subtract(contrib).Coalesce(); dead.Err() == nil {
		res.dead = dead
		if len(params) == 0 {
			if t, err := before.Card(nil); err == nil {
				if d, err := res.dead.Card(nil); err == nil {
					res.total, res.deadCount, res.counted = t, d, true
				}
			}
		}
	}
	// else volume gave up on the dead set: it is reported as not counted (the domain,
	// contrib, is exact either way)
	return res, diags
}
