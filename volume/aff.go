// This file holds Aff, a quasi-affine expression (integer combination of dimensions, parameters
// and floor divisions of such expressions), and MultiAff, a tuple of them: the explicit form of
// access functions and symbolic tensor extents.

package volume

import (
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// Aff is a quasi-affine expression Const + Σ Dims[i]·x_i + Σ c·param + Σ c·floor(num/den).
// The zero Aff is the constant 0. Affs are immutable and kept in a canonical form (no zero
// terms, parameters sorted, floors of constants folded), so == on their String is equality of form.
type Aff struct {
	Const  int64
	Dims   []int64     // coefficient of dimension i; trailing zeros trimmed
	Params []ParamTerm // sorted by name
	Floors []FloorTerm
	err    error // an error value: the arithmetic that built it overflowed (see Err)
}

// ParamTerm is Coef·Name.
type ParamTerm struct {
	Name string
	Coef int64
}

// FloorTerm is Coef·floor(Num/Den), Den > 1.
type FloorTerm struct {
	Coef int64
	Num  Aff
	Den  int64
}

// AffConst returns the constant c.
func AffConst(c int64) Aff { return Aff{Const: c} }

// AffDim returns dimension i.
func AffDim(i int) Aff {
	d := make([]int64, i+1)
	d[i] = 1
	return Aff{Dims: d}
}

// AffParam returns the parameter name.
func AffParam(name string) Aff { return Aff{Params: []ParamTerm{{name, 1}}} }

// IsConst reports whether a is a constant, and its value.
func (a Aff) IsConst() (int64, bool) {
	if a.err == nil && len(a.Dims) == 0 && len(a.Params) == 0 && len(a.Floors) == 0 {
		return a.Const, true
	}
	return 0, false
}

// Err returns the error of an error value (arithmetic that left the int64 range: ErrOverflow;
// a division by a non-positive number: ErrSpaceMismatch), or nil. Arithmetic on an error value
// gives an error value with its error, and sets built from one are error values.
func (a Aff) Err() error { return a.err }

// affOp runs f, Aff arithmetic of the package's own (which panics on overflow), on operands:
// the error value of the first operand that is one, or of f's panic.
func affOp(f func() Aff, operands ...Aff) Aff {
	for _, o := range operands {
		if o.err != nil {
			return Aff{err: o.err}
		}
	}
	var r Aff
	if err := try(func() { r = f() }); err != nil {
		return Aff{err: err}
	}
	return r
}

// Add returns a + b.
func (a Aff) Add(b Aff) Aff { return affOp(func() Aff { return a.add(b) }, a, b) }

// Sub returns a − b.
func (a Aff) Sub(b Aff) Aff { return affOp(func() Aff { return a.sub(b) }, a, b) }

// AddConst returns a + c.
func (a Aff) AddConst(c int64) Aff { return affOp(func() Aff { return a.addConst(c) }, a) }

// Mul returns c·a.
func (a Aff) Mul(c int64) Aff { return affOp(func() Aff { return a.mul(c) }, a) }

// Neg returns −a.
func (a Aff) Neg() Aff { return affOp(func() Aff { return a.neg() }, a) }

// FloorDiv returns floor(a/d) for d > 0 (an error value for d <= 0). Divisions that are exact on
// every term are folded: floor((2i + 4)/2) = i + 2.
func (a Aff) FloorDiv(d int64) Aff { return affOp(func() Aff { return a.floorDiv(d) }, a) }

// CeilDiv returns ceil(a/d) = −floor(−a/d).
func (a Aff) CeilDiv(d int64) Aff { return affOp(func() Aff { return a.ceilDiv(d) }, a) }

// Mod returns a mod d = a − d·floor(a/d), for d > 0.
func (a Aff) Mod(d int64) Aff { return affOp(func() Aff { return a.mod(d) }, a) }

// SubstDims returns a with dimension i replaced by sub[i].
func (a Aff) SubstDims(sub []Aff) Aff {
	return affOp(func() Aff { return a.substDims(sub) }, append([]Aff{a}, sub...)...)
}

// add, sub, addConst, mul, neg, floorDiv, ceilDiv, mod and substDims are the arithmetic of
// the package's algorithms: they panic on overflow (guard and affOp turn it into a value).
func (a Aff) add(b Aff) Aff { return a.combine(1, b, 1) }

func (a Aff) sub(b Aff) Aff { return a.combine(1, b, -1) }

func (a Aff) addConst(c int64) Aff { return a.add(AffConst(c)) }

func (a Aff) mul(c int64) Aff { return a.combine(c, Aff{}, 0) }

func (a Aff) neg() Aff { return a.mul(-1) }

func (a Aff) combine(ca int64, b Aff, cb int64) Aff {
	r := Aff{Const: addc(mulc(ca, a.Const), mulc(cb, b.Const))}
	n := max(len(a.Dims), len(b.Dims))
	r.Dims = make([]int64, n)
	for i := range r.Dims {
		var x, y int64
		if i < len(a.Dims) {
			x = a.Dims[i]
		}
		if i < len(b.Dims) {
			y = b.Dims[i]
		}
		r.Dims[i] = addc(mulc(ca, x), mulc(cb, y))
	}
	pm := map[string]int64{}
	for _, p := range a.Params {
		pm[p.Name] = addc(pm[p.Name], mulc(ca, p.Coef))
	}
	for _, p := range b.Params {
		pm[p.Name] = addc(pm[p.Name], mulc(cb, p.Coef))
	}
	for n, c := range pm {
		r.Params = append(r.Params, ParamTerm{n, c})
	}
	for _, f := range a.Floors {
		r.Floors = addFloor(r.Floors, FloorTerm{mulc(ca, f.Coef), f.Num, f.Den})
	}
	for _, f := range b.Floors {
		r.Floors = addFloor(r.Floors, FloorTerm{mulc(cb, f.Coef), f.Num, f.Den})
	}
	return r.canon()
}

func addFloor(fs []FloorTerm, f FloorTerm) []FloorTerm {
	for i, g := range fs {
		if g.Den == f.Den && g.Num.Equal(f.Num) {
			out := slices.Clone(fs)
			out[i].Coef = addc(out[i].Coef, f.Coef)
			return out
		}
	}
	return append(slices.Clone(fs), f)
}

func (a Aff) canon() Aff {
	for len(a.Dims) > 0 && a.Dims[len(a.Dims)-1] == 0 {
		a.Dims = a.Dims[:len(a.Dims)-1]
	}
	if len(a.Dims) == 0 {
		a.Dims = nil
	}
	ps := a.Params[:0:0]
	for _, p := range a.Params {
		if p.Coef != 0 {
			ps = append(ps, p)
		}
	}
	sort.Slice(ps, func(i, j int) bool { return ps[i].Name < ps[j].Name })
	a.Params = ps
	if len(a.Params) == 0 {
		a.Params = nil
	}
	fs := a.Floors[:0:0]
	for _, f := range a.Floors {
		if f.Coef == 0 {
			continue
		}
		if c, ok := f.Num.IsConst(); ok {
			a.Const = addc(a.Const, mulc(f.Coef, floorDiv(c, f.Den)))
			continue
		}
		fs = append(fs, f)
	}
	a.Floors = fs
	if len(a.Floors) == 0 {
		a.Floors = nil
	}
	return a
}

func (a Aff) floorDiv(d int64) Aff {
	if d <= 0 {
		panic(fmt.Errorf("%w: FloorDiv by %d", ErrSpaceMismatch, d))
	}
	if d == 1 {
		return a
	}
	if c, ok := a.IsConst(); ok {
		return AffConst(floorDiv(c, d))
	}
	exact := true
	for _, x := range a.Dims {
		exact = exact && x%d == 0
	}
	for _, p := range a.Params {
		exact = exact && p.Coef%d == 0
	}
	for _, f := range a.Floors {
		exact = exact && f.Coef%d == 0
	}
	if exact {
		// floor((d·q + c)/d) = q + floor(c/d)
		r := a
		r.Const = floorDiv(a.Const, d)
		r.Dims = slices.Clone(a.Dims)
		for i := range r.Dims {
			r.Dims[i] /= d
		}
		r.Params = slices.Clone(a.Params)
		for i := range r.Params {
			r.Params[i].Coef /= d
		}
		r.Floors = slices.Clone(a.Floors)
		for i := range r.Floors {
			r.Floors[i].Coef /= d
		}
		return r.canon()
	}
	return Aff{Floors: []FloorTerm{{1, a, d}}}
}

func (a Aff) ceilDiv(d int64) Aff { return a.neg().floorDiv(d).neg() }

func (a Aff) mod(d int64) Aff { return a.sub(a.floorDiv(d).mul(d)) }

// Equal reports whether a and b have the same canonical form (an error value equals nothing).
func (a Aff) Equal(b Aff) bool {
	if a.err != nil || b.err != nil || a.Const != b.Const || !slices.Equal(a.Dims, b.Dims) || !slices.Equal(a.Params, b.Params) || len(a.Floors) != len(b.Floors) {
		return false
	}
	for i := range a.Floors {
		if a.Floors[i].Coef != b.Floors[i].Coef || a.Floors[i].Den != b.Floors[i].Den || !a.Floors[i].Num.Equal(b.Floors[i].Num) {
			return false
		}
	}
	return true
}

// ShiftedDim returns d when a is dim d plus a constant (coefficient 1, no other dim, no
// symbolic dim and no floor), else -1: an index that walks one dim with unit stride.
func (a Aff) ShiftedDim() int {
	if len(a.Params) > 0 || len(a.Floors) > 0 {
		return -1
	}
	d := -1
	for e, c := range a.Dims {
		switch {
		case c == 0:
		case c == 1 && d < 0:
			d = e
		default:
			return -1
		}
	}
	return d
}

// NDimUsed returns one more than the highest dimension a refers to.
func (a Aff) NDimUsed() int {
	n := len(a.Dims)
	for _, f := range a.Floors {
		n = max(n, f.Num.NDimUsed())
	}
	return n
}

// ParamNames returns the parameters a refers to.
func (a Aff) ParamNames() []string {
	var out []string
	for _, p := range a.Params {
		out = append(out, p.Name)
	}
	for _, f := range a.Floors {
		for _, n := range f.Num.ParamNames() {
			if !slices.Contains(out, n) {
				out = append(out, n)
			}
		}
	}
	return out
}

// Eval evaluates a at the dimension values x with parameter values from param (which reports
// ok=false for an unbound parameter).
func (a Aff) Eval(x []int64, param func(string) (int64, bool)) (int64, error) {
	if a.err != nil {
		return 0, a.err
	}
	v := a.Const
	ok := true
	for i, c := range a.Dims {
		if c != 0 {
			if i >= len(x) {
				return 0, fmt.Errorf("%w: expression uses dimension %d of a %d-dimensional point", ErrSpaceMismatch, i, len(x))
			}
			if v, ok = addMulSafe(v, c, x[i]); !ok {
				return 0, fmt.Errorf("%w: evaluating %s", ErrOverflow, a.String())
			}
		}
	}
	for _, p := range a.Params {
		pv, found := param(p.Name)
		if !found {
			return 0, fmt.Errorf("%w: parameter %s is not bound", ErrSpaceMismatch, p.Name)
		}
		if v, ok = addMulSafe(v, p.Coef, pv); !ok {
			return 0, fmt.Errorf("%w: evaluating %s", ErrOverflow, a.String())
		}
	}
	for _, f := range a.Floors {
		n, err := f.Num.Eval(x, param)
		if err != nil {
			return 0, err
		}
		if v, ok = addMulSafe(v, f.Coef, floorDiv(n, f.Den)); !ok {
			return 0, fmt.Errorf("%w: evaluating %s", ErrOverflow, a.String())
		}
	}
	return v, nil
}

// EvalFast evaluates a at x with parameters by position in names/vals; it does not check
// overflow and is meant for hot loops over validated expressions.
func (a Aff) EvalFast(x []int64, pvals map[string]int64) int64 {
	v := a.Const
	for i, c := range a.Dims {
		v += c * x[i]
	}
	for _, p := range a.Params {
		v += p.Coef * pvals[p.Name]
	}
	for _, f := range a.Floors {
		v += f.Coef * floorDiv(f.Num.EvalFast(x, pvals), f.Den)
	}
	return v
}

func (a Aff) substDims(sub []Aff) Aff {
	r := AffConst(a.Const)
	for i, c := range a.Dims {
		if c != 0 {
			r = r.add(sub[i].mul(c))
		}
	}
	for _, p := range a.Params {
		r = r.add(AffParam(p.Name).mul(p.Coef))
	}
	for _, f := range a.Floors {
		r = r.add(f.Num.substDims(sub).floorDiv(f.Den).mul(f.Coef))
	}
	return r
}

// String prints a in isl notation with the given dimension names (d0, d1, … when nil).
func (a Aff) String(dimNames ...string) string {
	if a.err != nil {
		return "(error: " + a.err.Error() + ")"
	}
	var sb strings.Builder
	first := true
	term := func(c int64, atom string, star bool) {
		if c == 0 {
			return
		}
		switch {
		case first && c < 0:
			sb.WriteString("-")
		case !first && c < 0:
			sb.WriteString(" - ")
		case !first:
			sb.WriteString(" + ")
		}
		if abs64(c) != 1 {
			sb.WriteString(strconv.FormatInt(abs64(c), 10))
			if star {
				sb.WriteString("*")
			}
		}
		sb.WriteString(atom)
		first = false
	}
	for i, c := range a.Dims {
		name := "d" + strconv.Itoa(i)
		if i < len(dimNames) && dimNames[i] != "" {
			name = dimNames[i]
		}
		term(c, name, false)
	}
	for _, p := range a.Params {
		term(p.Coef, p.Name, false)
	}
	for _, f := range a.Floors {
		term(f.Coef, "floor(("+f.Num.String(dimNames...)+")/"+strconv.FormatInt(f.Den, 10)+")", true)
	}
	switch {
	case first:
		sb.WriteString(strconv.FormatInt(a.Const, 10))
	case a.Const < 0:
		sb.WriteString(" - " + strconv.FormatInt(-a.Const, 10))
	case a.Const > 0:
		sb.WriteString(" + " + strconv.FormatInt(a.Const, 10))
	}
	return sb.String()
}

// row linearises a into a constraint row of b (params by name from params), adding the divs
// it needs to b. Dimension i of a is column dimCol+i.
func (b *basic) affRow(a Aff, params []string, dimCol int) []int64 {
	if a.err != nil {
		panic(a.err) // an error value (guard turns it back into one)
	}
	r := b.newRow()
	r[0] = a.Const
	for i, c := range a.Dims {
		r[dimCol+i] = addc(r[dimCol+i], c)
	}
	for _, p := range a.Params {
		k := slices.Index(params, p.Name)
		if k < 0 {
			spaceMismatch("expression uses undeclared parameter %s", p.Name)
		}
		r[1+k] = addc(r[1+k], p.Coef)
	}
	for _, f := range a.Floors {
		num := b.affRow(f.Num, params, dimCol)
		col := b.addDiv(num, f.Den)
		// addDiv may have inserted a column before the existentials; r has no existentials.
		if len(r) < b.width() {
			r = append(r, make([]int64, b.width()-len(r))...)
		}
		r[col] = addc(r[col], f.Coef)
	}
	return r
}

// MultiAff is a function from a tuple of dimensions to a tuple of quasi-affine expressions:
// { In[dims] -> Out[Exprs] }. Params orders the parameters of its Map, which has those Exprs
// mention.
type MultiAff struct {
	Params  []string
	InName  string
	InDims  []string
	OutName string
	Exprs   []Aff
}

// Map returns the graph of f as a Map, restricted to the points of guard when guard has pieces
// (pass the zero Set for no restriction).
func (f MultiAff) Map() Map {
	return Map{guard(func(*budget, union, union) union { return f.graph().u }, union{})}
}

func (f MultiAff) graph() Map {
	in := tuple{f.InName, slices.Clone(f.InDims)}
	out := tuple{f.OutName, make([]string, len(f.Exprs))}
	params := paramsUsed(f.Params, affParams(f.Exprs...)) // params_used.go
	b := newBasic(len(params), in, out)
	for j, e := range f.Exprs {
		r := b.affRow(e, params, b.inStart())
		if len(r) < b.width() {
			r = append(r, make([]int64, b.width()-len(r))...)
		}
		r[b.outStart()+j] = subc(r[b.outStart()+j], 1)
		b.eqs = append(b.eqs, r)
		// rows added earlier must be widened if divs were added
		for i := range b.eqs {
			if len(b.eqs[i]) < b.width() {
				b.eqs[i] = append(b.eqs[i], make([]int64, b.width()-len(b.eqs[i]))...)
			}
		}
	}
	u := union{params: params}
	u.addSpace(space{in, out})
	u.pieces = []*basic{b}
	return Map{u}
}

// String prints f in isl notation.
func (f MultiAff) String() string { return f.Map().String() }

// AffPiece is one piece of a piecewise quasi-affine function: where Guard (a conjunction over
// the input dimensions) holds, the outputs are Exprs.
type AffPiece struct {
	Guard []Constraint
	Exprs []Aff
}

// AffPieces returns m as explicit functions of its input dimensions, one AffPiece per basic map.
// It fails when some output dimension is not determined by an equality in some piece (the map
// is not a function in the form isl would print with explicit output expressions).
func (m Map) AffPieces() (out []AffPiece, err error) {
	if m.u.err != nil {
		return nil, m.u.err
	}
	err = try(func() {
		for _, p := range m.u.pieces {
			b := p.clone()
			exprs := make([]Aff, b.nOut())
			for j := 0; j < b.nOut(); j++ {
				col := b.outStart() + j
				found := -1
				for k, e := range b.eqs {
					if e[col] == 1 || e[col] == -1 {
						found = k
						break
					}
				}
				if found < 0 {
					err = fmt.Errorf("%w: output dimension %d of %s is not an affine function of the inputs", ErrSpaceMismatch, j, m)
					return
				}
				piv := b.eqs[found]
				b.eqs = append(b.eqs[:found:found], b.eqs[found+1:]...)
				for _, e := range b.eqs {
					substitute(e, piv, col)
				}
				for _, e := range b.ineqs {
					substitute(e, piv, col)
				}
				for k := range b.divs {
					substitute(b.divs[k].num, piv, col)
				}
				for _, prev := range exprs[:j] {
					_ = prev
				}
				// out_j = -(piv without col)/piv[col]
				r := cloneRow(piv)
				if r[col] == 1 {
					r = negRow(r)
				}
				r[col] = 0
				exprs[j] = b.rowAff(r, m.u.params)
			}
			// earlier expressions may mention later output dims: substitute them away
			for j := range exprs {
				exprs[j] = substituteOuts(exprs[j], b.nIn(), exprs)
			}
			var guard []Constraint
			for _, e := range b.eqs {
				guard = append(guard, Constraint{Aff: b.rowAff(e, m.u.params), Eq: true})
			}
			for _, e := range b.ineqs {
				guard = append(guard, Constraint{Aff: b.rowAff(e, m.u.params)})
			}
			out = append(out, AffPiece{Guard: guard, Exprs: exprs})
		}
	})
	return out, err
}

// substituteOuts replaces dims nIn+j of a (output dims) by exprs[j], repeatedly.
func substituteOuts(a Aff, nIn int, exprs []Aff) Aff {
	for iter := 0; iter <= len(exprs) && a.NDimUsed() > nIn; iter++ {
		sub := make([]Aff, a.NDimUsed())
		for i := range sub {
			if i < nIn {
				sub[i] = AffDim(i)
			} else {
				sub[i] = exprs[i-nIn]
			}
		}
		a = a.substDims(sub)
	}
	return a
}

// ParseAff parses a quasi-affine expression in isl notation over the given dimension names;
// every other identifier is a parameter. Example: ParseAff("floor((N - 3)/2) + 1", nil).
func ParseAff(expr string, dims []string) (Aff, error) {
	toks, err := tokenize(expr)
	if err != nil {
		return Aff{}, err
	}
	var params []string
	for _, t := range toks {
		if t.kind == tIdent && !reserved[t.text] && !slices.Contains(dims, t.text) && !slices.Contains(params, t.text) {
			params = append(params, t.text)
		}
	}
	names := make([]string, len(dims))
	for i, d := range dims {
		names[i] = d
		if d == "" {
			names[i] = fmt.Sprintf("d%d", i)
		}
	}
	src := "{ [" + strings.Join(names, ", ") + "] -> [" + expr + "] }"
	if len(params) > 0 {
		src = "[" + strings.Join(params, ", ") + "] -> " + src
	}
	m, err := ParseMap(src)
	if err != nil {
		return Aff{}, err
	}
	ps, err := m.AffPieces()
	if err != nil {
		return Aff{}, err
	}
	if len(ps) != 1 || len(ps[0].Guard) != 0 || len(ps[0].Exprs) != 1 {
		return Aff{}, fmt.Errorf("%w: %q is not a single quasi-affine expression", ErrSyntax, expr)
	}
	return ps[0].Exprs[0], nil
}
