// This file holds known-values: the regions where each tensor is a known constant, propagated
// forward from constants (masks, -inf fills) through every op's generic form, and the removal
// of reduction iterations that contribute the reduction's identity (a product with a known
// zero, a max over a known -inf). DIE, which runs next, then finds the producers of those
// elements unused: the masked half of causal attention disappears.

package passes

import (
	"cmp"
	"context"
	"fmt"

	"github.com/graphc/graphc/ir"
	"github.com/graphc/graphc/ir/eval"
	"github.com/graphc/graphc/volume"
)

var knownValuesPass = &Pass{
	Name:    "known-values",
	Summary: "propagate regions of known constant values and drop reduction iterations that contribute the identity (known-zero factors)",
	Doc: `Constants with at most three distinct values get exact descriptions of where each value
occurs (verified element by element; larger constants than 64 Mi elements are skipped with a
diagnostic); integer constants that are affine functions of their index (position ids), range
ops (arange(T)) and index expressions are known affine values. These regions flow forward
through every op: the body is partially evaluated where some operand elements are known
(ir/eval.Fold), giving the result's known regions; a comparison of affine values (a causal
mask built from positions) gives its true and false regions.
Iterations of a sum, product, max or min whose contribution is the reduction's identity (0·x,
a max over -inf) are removed from its domain; those whose guarded reads are undefined (a
convolution's padding) stay, as lowering already runs them apart. The result elements are
unchanged, so die then finds the producers of the skipped operand elements unused.
Zero-skipping assumes that unknown floating-point values are finite and that tensor elements
dividing a known zero are non-zero (0·x = 0, x + -inf = -inf, 0/d = 0), as -ffinite-math-only
does; --no-zero-skip keeps only the exact rules (known selects, identities, arithmetic on known
values), which restores IEEE results for non-finite operands.
Postconditions: every reduction's domain is a subset of its previous domain; every value is
unchanged; State.KnownZero holds each op's removed iterations, State.Known every value's
known regions.`,
	Run: runKnownValues,
}

// maxFactsPerValue bounds the known regions kept per value (distinct values).
const maxFactsPerValue = 4

// maxAtoms bounds the (operand, known region) pairs an op's analysis combines.
const maxAtoms = 10

func runKnownValues(ctx context.Context, g *ir.Graph, st *State) error {
	kv := &knownValues{g: g, st: st, facts: map[*ir.Value][]KnownRegion{},
		opt: eval.FoldOptions{AssumeFinite: !st.Opts.NoZeroSkip}, valid: validParams(g)}
	for _, c := range g.Consts {
		fs, reason := constFacts(c.Data, g.Params)
		if factsErr(fs) != nil {
			continue // volume gave up: nothing known about the constant
		}
		if fs == nil && reason == "" && !c.Data.Elem.IsFloat() {
			// an integer constant that is an affine function of its index (position ids)
			if ps, ok := ir.AffineValue(c); ok && len(ps) == 1 && len(ps[0].Guard) == 0 {
				fs = []KnownRegion{{Region: boxOf(g.Params, c.Type), Value: eval.Affine(ps[0].Value)}}
			}
		}
		if reason != "" {
			st.Diags = append(st.Diags, Diagnostic{Op: c.Name, Msg: "constant not analysed for known values: " + reason})
		}
		kv.facts[c] = fs
	}
	for _, op := range g.Ops {
		if err := ctx.Err(); err != nil {
			return err
		}
		res, skip, done := kv.analyze(op)
		var reduced volume.Set
		if done {
			// where the requirements hold (the entry runs no kernel elsewhere): skip is known
			// there only, and the iterations outside would otherwise stay as a piece of their
			// own (P·V of causal attention keeps k > i for seq beyond the positions a rotary
			// table holds), a union the register tiles cannot run. The gist may drop bounds
			// that the requirements imply (a bounded dim's start >= 0 bounding i <= 29 - start):
			// intersecting with the full domain keeps the result inside it, one piece still
			reduced = op.Domain.Intersect(kv.valid.Gist(kv.valid.Restrict(op.Domain.Subtract(skip)).Coalesce())).Coalesce()
		}
		// the analysis decides with exact sets: one that volume gave up on drops it all
		if err := cmp.Or(factsErr(res), skip.Err(), reduced.Err()); err != nil {
			st.Diags = append(st.Diags, Diagnostic{Op: op.Result.Name, Msg: fmt.Sprintf("known-value analysis gave up (%v)", err)})
			continue
		}
		if done {
			op.Domain = reduced
			if st.KnownZero == nil {
				st.KnownZero = map[string]volume.Set{}
			}
			st.KnownZero[op.Result.Name] = skip
			if s := st.Stats["known-values"]; s != nil {
				s.DomainsReduced++
			}
		}
		if len(res) > 0 {
			kv.facts[op.Result] = res
		}
	}
	st.Known = kv.facts
	return nil
}

// factsErr returns the error of the first region of fs that is a volume error value.
func factsErr(fs []KnownRegion) error {
	for _, f := range fs {
		if err := f.Region.Err(); err != nil {
			return err
		}
	}
	return nil
}

// knownValues is the state of one run.
type knownValues struct {
	g     *ir.Graph
	st    *State
	facts map[*ir.Value][]KnownRegion
	opt   eval.FoldOptions
	valid *ir.ParamContext
}

// atom is one known KnownRegion about an operand read (or about avail(k)) over an iteration region.
type atom struct {
	k      int
	avail  bool
	val    eval.Partial
	region volume.Set
}

// analyze returns the known regions of op's result and, for reductions, the iterations whose
// contribution is the identity (done reports whether there are any).
func (kv *knownValues) analyze(op *ir.Op) (res []KnownRegion, skip volume.Set, done bool) {
	params := kv.g.Params
	dom := kv.valid.Restrict(op.Domain)
	var atoms []atom
	usesAvail := map[int]bool{}
	op.Body.Walk(func(s *ir.Scalar) {
		if s.Op == ir.SAvail {
			usesAvail[s.Arg] = true
		}
	})
	for k, o := range op.Operands {
		if op.Access[k].Approx {
			continue
		}
		acc := op.AccessMap(params, k)
		for _, f := range kv.facts[o] {
			val := f.Value
			if val.Aff != nil {
				// an affine element value, as a function of the iteration point
				pieces := op.Access[k].Pieces
				if len(pieces) != 1 || len(pieces[0].Guard) != 0 {
					continue
				}
				a := val.Aff.SubstDims(pieces[0].Index)
				if a.Err() != nil {
					continue // volume gave up: nothing known from this fact
				}
				val = eval.Affine(a)
			}
			r := f.Region.Preimage(acc).Intersect(dom).Coalesce()
			if !r.IsEmpty().Or(false) { // unknown: an atom that may be empty
				atoms = append(atoms, atom{k: k, val: val, region: r})
			}
		}
		if usesAvail[k] {
			def := acc.Domain().Intersect(dom).Coalesce()
			undef := dom.Subtract(def).Coalesce()
			if !undef.IsEmpty().Or(false) { // unknown: atoms that may be empty
				atoms = append(atoms, atom{k: k, avail: true, val: eval.KnownI(1), region: def},
					atom{k: k, avail: true, val: eval.KnownI(0), region: undef})
			}
		}
	}
	if len(atoms) > maxAtoms {
		return nil, skip, false
	}
	// combinations of one atom, then of two about different leaves: their regions and the body's
	// value there
	type combo struct {
		region volume.Set
		val    eval.Partial
		pair   bool
		avail  bool // an avail(k) atom takes part
	}
	var combos []combo
	eval1 := func(as ...atom) eval.Partial {
		return eval.Fold(op.Body, func(s *ir.Scalar) (eval.Partial, bool) {
			for _, a := range as {
				if a.k == s.Arg && a.avail == (s.Op == ir.SAvail) && (s.Op == ir.SRead || s.Op == ir.SAvail) {
					return a.val, true
				}
			}
			return eval.Partial{}, false
		}, kv.opt)
	}
	for i, a := range atoms {
		for _, b := range atoms[i+1:] {
			if a.k == b.k && a.avail == b.avail {
				continue
			}
			r := a.region.Intersect(b.region)
			if r.IsEmpty().Or(false) { // unknown: the pair is tried
				continue
			}
			if v := eval1(a, b); v.Known || v.IsPointwise() {
				combos = append(combos, combo{r.Coalesce(), v, true, a.avail || b.avail})
			}
		}
	}
	for _, a := range atoms {
		if v := eval1(a); v.Known || v.IsPointwise() {
			combos = append(combos, combo{a.region, v, false, a.avail})
		}
	}
	// last, what the body is with nothing known (a fill, a constant body, an index expression)
	if v := eval1(); v.Known || v.IsPointwise() {
		combos = append(combos, combo{dom, v, false, false})
	}
	if len(combos) == 0 {
		return nil, skip, false
	}
	// pairs first: where two leaves are known the value is exact; a single known leaf decides
	// the value only where the others are unknown; the body alone only where nothing is known
	covered := volume.EmptySet(params, "", op.Dims)
	var regions []combo
	for _, c := range combos {
		r := c.region
		if !c.pair {
			r = r.Subtract(covered)
		}
		r = r.Coalesce()
		if r.IsEmpty().Or(false) { // unknown: a region that may be empty
			continue
		}
		regions = append(regions, combo{r, c.val, c.pair, c.avail})
		covered = covered.Union(r)
	}
	switch {
	case op.Reduce == ir.ReduceNone:
		if !identityOut(op) {
			return nil, skip, false
		}
		out := op.OutMap(params)
		for _, c := range regions {
			if c.val.Cond != nil {
				// a comparison of affine values: true where it holds, false elsewhere
				holds := c.region.Intersect(volume.SetFromConstraints(params, "", op.Dims, c.val.Cond)).Coalesce()
				t, f := holds, c.region.Subtract(holds).Coalesce()
				if c.val.CondNeg {
					t, f = f, t
				}
				res = addFact(res, KnownRegion{Region: t.Apply(out).Coalesce(), Value: eval.KnownI(1)})
				res = addFact(res, KnownRegion{Region: f.Apply(out).Coalesce(), Value: eval.KnownI(0)})
				continue
			}
			res = addFact(res, KnownRegion{Region: c.region.Apply(out).Coalesce(), Value: c.val})
		}
		return res, skip, false
	case op.Reduce.IsArg():
		return nil, skip, false
	}
	// iterations whose guarded reads are undefined (a convolution's padding) stay: lowering
	// already runs them apart from the interior, which removing them would break into pieces
	skip = volume.EmptySet(params, "", op.Dims)
	for _, c := range regions {
		if !c.avail && eval.IsIdentity(c.val, op.Reduce, op.Result.Type.Elem, op.Init) {
			skip = skip.Union(c.region)
		}
	}
	skip = skip.Coalesce()
	if skip.IsEmpty().Or(false) { // unknown: skip is exact (or an error value, which drops it all)
		return nil, skip, false
	}
	// result elements no remaining iteration writes keep the init value
	left := op.Domain.Subtract(skip)
	box := boxOf(params, op.Result.Type)
	untouched := box.Subtract(left.Apply(op.OutMap(params))).Coalesce()
	if !untouched.IsEmpty().Or(false) { // unknown: a fact that may be empty
		init := eval.KnownF(ir.RoundFloat(op.Result.Type.Elem, op.Init))
		if !op.Result.Type.Elem.IsFloat() {
			init = eval.KnownI(ir.IntInit(op.Result.Type.Elem, op.Init))
		}
		res = addFact(res, KnownRegion{Region: untouched, Value: init})
	}
	return res, skip, true
}

// identityOut reports whether op writes result element x at iteration x (the out map is the
// identity): then each element is written once and its value is the body's at that point.
func identityOut(op *ir.Op) bool {
	if len(op.Out.Pieces) != 1 || len(op.Out.Pieces[0].Guard) != 0 {
		return false
	}
	idx := op.Out.Pieces[0].Index
	if len(idx) != op.NDim() || op.Result.Type.Rank() != op.NDim() {
		return false
	}
	for d, a := range idx {
		if !a.Equal(volume.AffDim(d)) {
			return false
		}
	}
	return true
}

// addFact merges f into fs: regions of the same value are united; at most maxFactsPerValue
// distinct values are kept.
func addFact(fs []KnownRegion, f KnownRegion) []KnownRegion {
	if f.Region.IsEmpty().Or(false) { // unknown: a fact that may be empty
		return fs
	}
	for i, g := range fs {
		if g.Value.SameAs(f.Value) {
			fs[i].Region = g.Region.Union(f.Region).Coalesce()
			return fs
		}
	}
	if len(fs) >= maxFactsPerValue {
		return fs
	}
	return append(fs, f)
}
