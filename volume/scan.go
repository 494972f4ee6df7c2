// This file scans sets into loop ASTs: every point of the set is visited exactly once.

package volume

import "fmt"

// rowAff converts columns 1.. of a row of b (params, dims, divs; no existentials) into an Aff
// over the dims of b (inputs then outputs).
func (b *basic) rowAff(r []int64, params []string) Aff {
	a := AffConst(r[0])
	for p := 0; p < b.nParam; p++ {
		if r[1+p] != 0 {
			a = a.Add(AffParam(params[p]).Mul(r[1+p]))
		}
	}
	for i := 0; i < b.nDim(); i++ {
		if c := r[1+b.nParam+i]; c != 0 {
			a = a.Add(AffDim(i).Mul(c))
		}
	}
	for k, d := range b.divs {
		if c := r[b.divStart()+k]; c != 0 {
			a = a.Add(b.rowAff(d.num, params).FloorDiv(d.den).Mul(c))
		}
	}
	return a
}

// Scan returns a loop AST that visits every point of s exactly once (s must live in one space).
// Leaf statements are numbered by the disjoint piece they come from.
func (s Set) Scan() (node Node, err error) {
	err = Try(func() { node = s.scan() })
	return node, err
}

func (s Set) scan() Node {
	if len(s.u.spaces) != 1 {
		spaceMismatch("Scan of a set in %d spaces", len(s.u.spaces))
	}
	// disjoint pieces
	var disjoint []*basic
	for i, p := range s.u.pieces {
		cur := union{params: s.u.params, spaces: s.u.spaces, pieces: []*basic{p}}
		prev := union{params: s.u.params, spaces: s.u.spaces, pieces: s.u.pieces[:i]}
		disjoint = append(disjoint, cur.subtract(prev).simplify().pieces...)
	}
	blk := &Block{}
	for k, b := range disjoint {
		blk.Nodes = append(blk.Nodes, scanBasic(b, s.u.params, k))
	}
	if len(blk.Nodes) == 1 {
		return blk.Nodes[0]
	}
	return blk
}

// scanBasic builds the loop nest of one convex piece: bounds at each level come from the real
// shadow (Fourier–Motzkin) of the inner dimensions; an innermost guard re-checks the exact
// constraints when the piece has divs.
func scanBasic(b *basic, params []string, stmt int) Node {
	n := b.nDim()
	ds := b.divStart()
	// system over (1, params, dims, divs) with divs as plain variables
	rows := append([][]int64(nil), cloneRows(b.ineqs)...)
	for _, e := range b.eqs {
		rows = append(rows, cloneRow(e), negRow(e))
	}
	rows = append(rows, b.allDivConstraints()...)
	for k := len(b.divs) - 1; k >= 0; k-- {
		rows = tidyRows(fourierMotzkin(rows, ds+k, 0))
	}
	levels := make([][][]int64, n)
	for d := n - 1; d >= 0; d-- {
		col := 1 + b.nParam + d
		var kept [][]int64
		for _, r := range rows {
			if r[col] != 0 {
				levels[d] = append(levels[d], r)
			} else {
				kept = append(kept, r)
			}
		}
		rows = tidyRows(fourierMotzkin(rows, col, 0))
		_ = kept
	}
	var body Node = &Leaf{Stmt: stmt}
	if len(b.divs) > 0 {
		var conds []Constraint
		for _, e := range b.eqs {
			conds = append(conds, Constraint{Aff: b.rowAff(e, params), Eq: true})
		}
		for _, e := range b.ineqs {
			conds = append(conds, Constraint{Aff: b.rowAff(e, params)})
		}
		body = &If{Conds: conds, Then: body}
	}
	for d := n - 1; d >= 0; d-- {
		col := 1 + b.nParam + d
		f := &For{Dim: d, Stride: 1, Body: body}
		for _, r := range levels[d] {
			a := r[col]
			rest := cloneRow(r)
			rest[col] = 0
			ra := b.rowAff(rest, params)
			if a > 0 { // a*x + rest >= 0  =>  x >= ceil(-rest/a)
				f.Lower = appendUnique(f.Lower, ra.Neg().CeilDiv(a))
			} else { // x <= floor(rest/-a)
				f.Upper = appendUnique(f.Upper, ra.FloorDiv(-a))
			}
		}
		if len(f.Lower) == 0 || len(f.Upper) == 0 {
			panic(fmt.Errorf("%w: dimension %d of %s", ErrUnbounded, d, Set{union{params: params, spaces: []space{{b.in, b.out}}, pieces: []*basic{b}}}))
		}
		body = f
	}
	// parameter-only constraints
	var conds []Constraint
	for _, r := range rows {
		if !isZeroFrom(r, 1) {
			conds = append(conds, Constraint{Aff: b.rowAff(r, params)})
		}
	}
	if len(conds) > 0 {
		body = &If{Conds: conds, Then: body}
	}
	return body
}

func appendUnique(as []Aff, a Aff) []Aff {
	for _, x := range as {
		if x.Equal(a) {
			return as
		}
	}
	return append(as, a)
}

// tidyRows normalises inequalities and drops duplicates, keeping opposite pairs (equalities) as
// two inequalities.
func tidyRows(rows [][]int64) [][]int64 {
	kept, eqs, ok := tidyIneqs(rows)
	if !ok {
		// infeasible: keep an obviously false row so that the loops execute nothing
		r := make([]int64, len(rows[0]))
		r[0] = -1
		return [][]int64{r}
	}
	for _, e := range eqs {
		kept = append(kept, e, negRow(e))
	}
	return kept
}
