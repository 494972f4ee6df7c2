// This file imports the merged-rows idiom of PyTorch's multi-head attention with several
// symbolic dims: x[T, B, E] is viewed as rows[T·B, E], row-wise ops run on the rows (the
// output projection: MatMul or Gemm, a bias Add) and the result is viewed back as [T, B, E].
// T·B is a product of symbolic dims, which neither the symbolic shape values (quasi-affine)
// nor the IR's extents can hold. The idiom is imported without the merge: a row-wise op on
// the rows is the same op on the unmerged tensor, and the splitting Reshape is an identity.
//
// Two side tables serve it. Products note the shape values that are products of symbolic
// dims (Shape → Gather → Mul → Unsqueeze → Concat), which only a merging Reshape may read;
// merged values are the results of such a Reshape, held in their unmerged shape. Any other
// consumer of either gets the error the merging Reshape would have returned without them.

package onnx

import (
	"fmt"
	"slices"

	"github.com/graphc/graphc/ir"
	"github.com/graphc/graphc/volume"
)

// prodElem is an integer k·f[0]·f[1]·…, a product of quasi-affine factors (no constant one).
type prodElem struct {
	k int64
	f []volume.Aff
}

// prodOf returns a quasi-affine value as a product: a multiple of one symbolic dim (4·batch)
// as the constant and the dim, so that products compare whatever their grouping.
func prodOf(a volume.Aff) prodElem {
	if k, ok := a.IsConst(); ok {
		return prodElem{k: k}
	}
	if len(a.Params) == 1 && len(a.Dims) == 0 && len(a.Floors) == 0 && a.Const == 0 && a.Params[0].Coef > 0 {
		k := a.Params[0].Coef
		return prodElem{k: k, f: []volume.Aff{a.FloorDiv(k)}}
	}
	return prodElem{k: 1, f: []volume.Aff{a}}
}

// aff returns the product as a quasi-affine value (ok=false with two factors or more).
func (p prodElem) aff() (volume.Aff, bool) {
	switch len(p.f) {
	case 0:
		return volume.AffConst(p.k), true
	case 1:
		return p.f[0].Mul(p.k), true
	}
	return volume.Aff{}, false
}

func (p prodElem) mul(q prodElem) prodElem {
	return prodElem{k: p.k * q.k, f: append(append([]volume.Aff(nil), p.f...), q.f...)}
}

// prodVec is a small integer tensor of static shape with an element that is a product of
// symbolic dims. only says that the value has no IR value (the Shape of a merged value):
// reading it as data is an error, err.
type prodVec struct {
	elem  ir.DType
	shape []int64
	vals  []prodElem
	only  bool
	err   error
}

// mergedRows is the result of a Reshape merging the leading dims of v: rows[∏ v.Shape[:lead],
// v.Shape[lead:]...], held as v. err is the error the Reshape returns without this.
type mergedRows struct {
	v    *ir.Value
	lead int
	err  error
}

// rowState holds the products and merged values by ONNX name.
type rowState struct {
	prods  map[string]*prodVec
	merged map[string]*mergedRows
}

// deferredErr returns the error of reading name as a value when it is a merged value or a
// product with no IR value (nil otherwise).
func (im *importer) deferredErr(name string) error {
	if m, ok := im.rows.merged[name]; ok {
		return m.err
	}
	if p, ok := im.rows.prods[name]; ok && p.only {
		return p.err
	}
	return nil
}

// prodInput returns input i as products: a noted product, or a known quasi-affine value.
func (c *nodeCtx) prodInput(i int) (*prodVec, bool) {
	if !c.HasInput(i) {
		return nil, false
	}
	if p, ok := c.im.rows.prods[c.node.Input[i]]; ok {
		return p, true
	}
	s, ok := c.known(i)
	if !ok {
		return nil, false
	}
	p := &prodVec{elem: s.Elem, shape: s.Shape, vals: make([]prodElem, len(s.Vals))}
	for k, a := range s.Vals {
		p.vals[k] = prodOf(a)
	}
	return p, true
}

// setProd binds output 0 to p: a symbolic value when no element is a product of symbols, a
// noted product otherwise. With keep, the node's regular result stays its IR value.
func (c *nodeCtx) setProd(p *prodVec, keep bool) {
	out := c.Output(0)
	if out == "" {
		return
	}
	affs := make([]volume.Aff, len(p.vals))
	for i, v := range p.vals {
		a, ok := v.aff()
		if !ok {
			p.only = !keep
			c.im.rows.prods[out] = p
			return
		}
		affs[i] = a
	}
	if !keep {
		c.SetSym(0, p.elem, p.shape, affs)
	}
}

// noteProducts runs after a node was imported the regular way: when it multiplies symbolic
// dims (or passes such a product on), its output is noted as a product too.
func (im *importer) noteProducts(c *nodeCtx) {
	if p, ok := evalProducts(c); ok {
		c.setProd(p, true)
	}
}

// evalProducts evaluates the shape ops products pass through: Mul, and the ops that move
// elements (Identity, Cast, Unsqueeze, Squeeze, Reshape, Concat, Gather). ok=false when the
// node is not one of them or no input is a product of symbols or a Mul of symbols.
func evalProducts(c *nodeCtx) (*prodVec, bool) {
	op := c.node.GetOpType()
	ins := 1
	switch op {
	case "Mul", "Gather":
		ins = 2
	case "Concat":
		ins = c.NumInputs()
	case "Identity", "Cast", "Unsqueeze", "Squeeze", "Reshape":
	default:
		return nil, false
	}
	if c.NumInputs() < ins {
		return nil, false
	}
	anyProd := false
	for i := range ins {
		if _, noted := c.im.rows.prods[c.node.Input[i]]; noted {
			anyProd = true
		}
	}
	if !anyProd && (op != "Mul" || c.im.Syms[c.node.Input[0]] == nil || c.im.Syms[c.node.Input[1]] == nil) {
		return nil, false // only symbols multiply into products
	}
	in := make([]*prodVec, ins)
	for i := range in {
		p, ok := c.prodInput(i)
		if !ok {
			return nil, false
		}
		in[i] = p
	}
	switch op {
	case "Mul":
		a, b := in[0], in[1]
		if len(a.vals) != 1 || len(b.vals) != 1 || a.elem.IsFloat() {
			return nil, false
		}
		shape := a.shape
		if len(b.shape) > len(a.shape) {
			shape = b.shape
		}
		r := a.vals[0].mul(b.vals[0])
		if len(r.f) < 2 {
			return nil, false // quasi-affine: the symbolic evaluation handles it
		}
		return &prodVec{elem: a.elem, shape: shape, vals: []prodElem{r}, err: inheritedErr(in)}, true
	case "Cast":
		to, err := DType(int32(c.AttrInt("to", 0)))
		if err != nil || to.IsFloat() || to == ir.Bool {
			return nil, false
		}
		return &prodVec{elem: to, shape: in[0].shape, vals: in[0].vals, err: in[0].err}, true
	case "Identity":
		return in[0], true
	case "Unsqueeze", "Squeeze", "Reshape":
		// a scalar or a vector keeps its elements in order; as for symReshapeLike, only the
		// element count matters to the consumers (Concat, Gather on axis 0, Reshape)
		if len(in[0].shape) > 1 {
			return nil, false
		}
		return &prodVec{elem: in[0].elem, shape: []int64{int64(len(in[0].vals))}, vals: in[0].vals, err: in[0].err}, true
	case "Concat":
		var vals []prodElem
		for _, p := range in {
			if len(p.shape) != 1 {
				return nil, false
			}
			vals = append(vals, p.vals...)
		}
		return &prodVec{elem: in[0].elem, shape: []int64{int64(len(vals))}, vals: vals, err: inheritedErr(in)}, true
	case "Gather":
		data, idx := in[0], in[1]
		if len(data.shape) != 1 || c.AttrInt("axis", 0) != 0 {
			return nil, false
		}
		n := int64(len(data.vals))
		out := make([]prodElem, len(idx.vals))
		for i, v := range idx.vals {
			k, ok := v.aff()
			if !ok {
				return nil, false
			}
			j, ok := k.IsConst()
			if !ok {
				return nil, false
			}
			if j < 0 {
				j += n
			}
			if j < 0 || j >= n {
				return nil, false
			}
			out[i] = data.vals[j]
		}
		return &prodVec{elem: data.elem, shape: idx.shape, vals: out, err: data.err}, true
	}
	return nil, false
}

// inheritedErr returns the first deferred error of the inputs.
func inheritedErr(in []*prodVec) error {
	for _, p := range in {
		if p.err != nil {
			return p.err
		}
	}
	return nil
}

// rowwiseUnary and rowwiseBinary are the elementwise ops that may run on merged rows.
var (
	rowwiseUnary  = map[string]bool{"Identity": true, "Relu": true, "Gelu": true, "Erf": true, "Tanh": true, "Sigmoid": true, "Neg": true, "Sqrt": true, "Exp": true}
	rowwiseBinary = map[string]bool{"Add": true, "Sub": true, "Mul": true, "Div": true}
)

// tryRows imports a node that reads a merged value or a product with no IR value. done=false
// when it reads neither (the regular import follows); otherwise err is nil when the node was
// imported on the unmerged tensor, and the merging Reshape's own error when it cannot be.
func (im *importer) tryRows(c *nodeCtx) (done bool, err error) {
	var first error
	var m *mergedRows
	for _, name := range c.node.Input {
		if name == "" {
			continue
		}
		if e := im.deferredErr(name); e != nil {
			if first == nil {
				first = e
			}
			if mr, ok := im.rows.merged[name]; ok && m == nil {
				m = mr
			}
		}
	}
	if first == nil {
		return false, nil
	}
	op := c.node.GetOpType()
	switch {
	case m == nil:
		if p, ok := evalProducts(c); ok {
			c.setProd(p, false)
			return true, nil
		}
	case op == "Shape":
		if ok := rowsShape(c, m); ok {
			return true, nil
		}
	case op == "Reshape":
		if ok, err := rowsSplit(c, m); ok || err != nil {
			return true, err
		}
	case op == "MatMul" || op == "Gemm" || rowwiseUnary[op] || rowwiseBinary[op]:
		if ok, err := rowsOp(c, m); ok || err != nil {
			return true, err
		}
	}
	return true, first
}

// rowsShape imports the Shape of merged rows: [∏ lead dims, trailing dims...], a product.
func rowsShape(c *nodeCtx, m *mergedRows) bool {
	if c.Attr("start") != nil || c.Attr("end") != nil {
		return false
	}
	lead := prodElem{k: 1}
	for _, d := range m.v.Type.Shape[:m.lead] {
		lead = lead.mul(prodOf(d))
	}
	vals := []prodElem{lead}
	for _, d := range m.v.Type.Shape[m.lead:] {
		vals = append(vals, prodOf(d))
	}
	c.setProd(&prodVec{elem: ir.I64, shape: []int64{int64(len(vals))}, vals: vals, err: m.err}, false)
	return true
}

// mergingReshape imports a Reshape whose target shape's first element is a product of
// symbolic dims and whose other elements are quasi-affine as merged rows (mergeRows). ok=false
// when the Reshape is not one.
func mergingReshape(c *nodeCtx, reshapeErr error) bool {
	if !c.HasInput(0) || !c.HasInput(1) {
		return false // a Reshape without its data or target: the reshape's own error stands
	}
	p, ok := c.im.rows.prods[c.node.Input[1]]
	if !ok || c.im.deferredErr(c.node.Input[0]) != nil {
		return false
	}
	x, ok := c.im.Vals[c.node.Input[0]]
	if !ok || len(p.shape) != 1 || len(p.vals) < 2 || len(p.vals[0].f) < 2 {
		return false
	}
	var trailing []volume.Aff
	for _, t := range p.vals[1:] {
		a, ok := t.aff()
		if !ok {
			return false
		}
		trailing = append(trailing, a)
	}
	return mergeRows(c, x, p.vals[0], trailing, reshapeErr)
}

// mergeRows binds the Reshape's output to merged rows: x reshaped to [leading..., trailing...]
// (a quasi-affine reshape, none when x has that shape), where the leading dims multiply to
// rows. Both reshapes are row-major, so the rows are those of the ONNX Reshape to
// [rows, trailing...] whatever the leading dims, provided the element counts agree. They are
// taken from x's dims in order (a symbolic dim, then what a constant multiple of it gives),
// so that the splitting Reshape finds them in its order. ok=false when they cannot be found,
// the counts differ or a trailing extent is 0 or -1 (a copy or an inference: not the idiom).
func mergeRows(c *nodeCtx, x *ir.Value, rows prodElem, trailing []volume.Aff, reshapeErr error) bool {
	for _, a := range trailing {
		if k, ok := a.IsConst(); ok && k <= 0 {
			return false
		}
	}
	total, want := prodElem{k: 1}, rows
	for _, d := range x.Type.Shape {
		total = total.mul(prodOf(d))
	}
	for _, d := range trailing {
		want = want.mul(prodOf(d))
	}
	if rows.k <= 0 || !sameProduct(total, want) {
		return false
	}
	var leading []volume.Aff
	left := prodElem{k: rows.k, f: append([]volume.Aff(nil), rows.f...)}
	for _, d := range x.Type.Shape {
		if left.k == 1 && len(left.f) == 0 {
			break
		}
		pd := prodOf(d)
		for _, g := range pd.f {
			if i := slices.IndexFunc(left.f, g.Equal); i >= 0 {
				left.f = slices.Delete(left.f, i, i+1)
				leading = append(leading, g)
			}
		}
		if pd.k > 1 && left.k%pd.k == 0 {
			left.k /= pd.k
			leading = append(leading, volume.AffConst(pd.k))
		}
	}
	if left.k != 1 || len(left.f) != 0 || len(leading) < 2 {
		return false
	}
	unmerged := append(leading, trailing...)
	v := x
	if !sameShape(x.Type.Shape, unmerged) {
		e := c.emitter()
		v = e.Op("reshape", "", ir.Attrs{"shape": ir.StringAttr(ir.ExtentsString(unmerged))}, x)
		if e.Done() != nil {
			return false
		}
	}
	c.im.rows.merged[c.Output(0)] = &mergedRows{v: v, lead: len(leading), err: reshapeErr}
	return true
}

// sameProduct reports whether a and b have the same constant and the same factors.
func sameProduct(a, b prodElem) bool {
	if a.k != b.k || len(a.f) != len(b.f) {
		return false
	}
	used := make([]bool, len(b.f))
	for _, f := range a.f {
		found := false
		for j, g := range b.f {
			if !used[j] && f.Equal(g) {
				used[j], found = true, true
				break
			}
		}
		if !found {
			return false
		}
	}
	return true
}

// rowsSplit imports a Reshape of merged rows back to the unmerged shape: an identity.
func rowsSplit(c *nodeCtx, m *mergedRows) (bool, error) {
	if !c.HasInput(0) || c.im.rows.merged[c.node.Input[0]] != m {
		return false, nil
	}
	target, ok := c.SymInts(1)
	want := m.v.Type.Shape
	if !ok || len(target) != len(want) {
		return false, nil
	}
	allowZero := c.Opset() >= 14 && c.AttrInt("allowzero", 0) != 0
	inferred := 0
	for i, t := range target {
		k, isConst := t.IsConst()
		switch {
		case isConst && k == -1:
			// one unknown extent with the others equal is the remaining one
			if inferred++; inferred > 1 {
				return false, nil
			}
		case isConst && k == 0 && !allowZero:
			// a copy of the rows' dim i: the product (never equal) or a trailing dim
			if i == 0 || i-1+m.lead >= len(want) || !want[i-1+m.lead].Equal(want[i]) {
				return false, nil
			}
		case !t.Equal(want[i]):
			return false, nil
		}
	}
	c.SetOutput(0, m.v)
	return true, nil
}

// rowsOp imports a row-wise op of merged rows on the unmerged tensor: MatMul or Gemm with the
// rows as the left operand and a matrix on the right, or an elementwise op whose other
// operands broadcast over the trailing dims only. The result is merged rows again.
func rowsOp(c *nodeCtx, m *mergedRows) (bool, error) {
	op := c.node.GetOpType()
	rowsRank := 1 + m.v.Type.Rank() - m.lead
	var operands []*ir.Value
	for i := range c.NumInputs() {
		if !c.HasInput(i) {
			operands = append(operands, nil)
			continue
		}
		name := c.node.Input[i]
		if mr, ok := c.im.rows.merged[name]; ok {
			if mr.v != m.v && !(mr.lead == m.lead && sameShape(mr.v.Type.Shape, m.v.Type.Shape)) {
				return false, nil
			}
			if (op == "MatMul" || op == "Gemm") && i != 0 {
				return false, nil
			}
			operands = append(operands, mr.v)
			continue
		}
		if c.im.deferredErr(name) != nil {
			return false, nil
		}
		v, err := c.Input(i)
		if err != nil {
			return true, err
		}
		switch {
		case op == "MatMul" || op == "Gemm" && i == 1:
			if i != 1 || v.Type.Rank() != 2 {
				return false, nil
			}
		case v.Type.Rank() >= rowsRank:
			return false, nil // it would broadcast over the rows
		}
		operands = append(operands, v)
	}
	if !c.HasInput(0) || (op == "MatMul" || op == "Gemm") && c.im.rows.merged[c.node.Input[0]] == nil {
		return false, nil
	}
	e := c.emitter()
	var y *ir.Value
	switch op {
	case "MatMul":
		y = e.matmulAcc(c.Output(0), operands[0], operands[1])
	case "Gemm":
		if c.AttrInt("transA", 0) != 0 {
			return false, nil
		}
		b := operands[1]
		if c.AttrInt("transB", 0) != 0 {
			b = e.Op("transpose", "", ir.Attrs{"perm": ir.IntsAttr(1, 0)}, b)
		}
		alpha, beta := float64(c.AttrFloat("alpha", 1)), float64(c.AttrFloat("beta", 1))
		y = e.Op("matmul", "", nil, operands[0], b)
		t := operands[0].Type.Elem
		if alpha != 1 {
			y = e.Op("mul", "", nil, y, e.Scalar(t, alpha))
		}
		if len(operands) > 2 && operands[2] != nil && beta != 0 {
			cv := operands[2]
			if beta != 1 {
				cv = e.Op("mul", "", nil, cv, e.Scalar(t, beta))
			}
			y = e.Op("add", "", nil, y, cv)
		}
	default:
		// the regular importer on the unmerged operands: numpy broadcasting of operands of a
		// lower rank than the rows' keeps them on the trailing dims
		saved := map[string]*ir.Value{}
		for i, name := range c.node.Input {
			if _, ok := c.im.rows.merged[name]; ok && name != "" {
				if old, had := c.im.Vals[name]; had {
					saved[name] = old
				}
				c.im.Vals[name] = operands[i]
			}
		}
		err := opTable[op].Import(c)
		for _, name := range c.node.Input {
			if _, ok := c.im.rows.merged[name]; ok && name != "" {
				if old, had := saved[name]; had {
					c.im.Vals[name] = old
				} else {
					delete(c.im.Vals, name)
				}
			}
		}
		if err != nil {
			return true, err
		}
		var ok bool
		y, ok = c.im.Vals[c.Output(0)]
		if !ok {
			return false, nil
		}
	}
	if err := e.Done(); err != nil {
		return true, err
	}
	if y.Type.Rank() != m.v.Type.Rank() || !sameShape(y.Type.Shape[:m.lead], m.v.Type.Shape[:m.lead]) {
		return true, fmt.Errorf("internal error: the row-wise %s changed the rows' leading dims", op)
	}
	delete(c.im.Vals, c.Output(0))
	c.im.rows.merged[c.Output(0)] = &mergedRows{v: y, lead: m.lead, err: m.err}
	return true, nil
}

func sameShape(a, b []volume.Aff) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !a[i].Equal(b[i]) {
			return false
		}
	}
	return true
}
