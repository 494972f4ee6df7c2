// This file turns the QDQ form that quantization tools write (DequantizeLinear on the
// activation and the weight → Conv, MatMul or Gemm in float [→ Relu] → QuantizeLinear) into an
// integer kernel, as onnxruntime's QDQ transformers do: conv_integer or matmul_integer summing
// int32 products, the bias quantized to int32 with scale x_scale·w_scale, then requantize by
// x_scale·w_scale/y_scale; a Relu before the QuantizeLinear becomes max(y, y_zero_point), which
// is exact (quantization is monotonic and maps 0 to the zero point). Groups are found before the
// nodes are imported; their Conv/MatMul/Gemm and Relu are skipped and the QuantizeLinear emits
// the kernel. When a group's scales, zero points or bias are not constants, or its attributes
// are not the plain ones, the skipped nodes are imported as written instead.

package onnx

import (
	"math"

	"google.golang.org/protobuf/proto"

	kit "github.com/graphc/graphc/frontend/importer"
	"github.com/graphc/graphc/ir"
	"github.com/graphc/graphc/proto/onnxpb"
)

// qdqGroup is DequantizeLinear(x), DequantizeLinear(w) [→ Transpose] → core [→ Add(bias)]
// [→ relu] → q (PyTorch writes a 3-D Linear as a transposed weight, MatMul and Add).
type qdqGroup struct {
	core, relu, q *onnxpb.NodeProto
	dqX, dqW      *onnxpb.NodeProto
	transW        *onnxpb.NodeProto // a Transpose of the weight between dqW and a MatMul, or nil
	add           *onnxpb.NodeProto // an Add of the bias after a MatMul, or nil
	bias          string            // the bias input ("" = none)
	dqB           *onnxpb.NodeProto // the bias' DequantizeLinear, or nil (float or no bias)
}

// qdqPlan is the fusion plan of a graph: groups by their QuantizeLinear, and the nodes skipped.
type qdqPlan struct {
	groups map[*onnxpb.NodeProto]*qdqGroup
	skip   map[*onnxpb.NodeProto]bool
}

// planQDQ finds the fusable groups of gp: the core's and relu's results have exactly one
// consumer and are not graph outputs.
func planQDQ(gp *onnxpb.GraphProto) *qdqPlan {
	p := &qdqPlan{groups: map[*onnxpb.NodeProto]*qdqGroup{}, skip: map[*onnxpb.NodeProto]bool{}}
	producer := map[string]*onnxpb.NodeProto{}
	uses := map[string]int{}
	for _, n := range gp.Node {
		for _, o := range n.Output {
			producer[o] = n
		}
		for _, i := range n.Input {
			uses[i]++
		}
	}
	for _, o := range gp.Output {
		uses[o.GetName()] += 2 // a graph output is never fused away
	}
	dq := func(name string) *onnxpb.NodeProto {
		n := producer[name]
		if n != nil && n.GetOpType() == "DequantizeLinear" && n.GetDomain() == "" && len(n.Input) >= 2 {
			return n
		}
		return nil
	}
	single := func(n *onnxpb.NodeProto) bool { return len(n.Output) >= 1 && uses[n.Output[0]] == 1 }
	for _, q := range gp.Node {
		if q.GetOpType() != "QuantizeLinear" || q.GetDomain() != "" || len(q.Input) < 2 || len(q.Output) != 1 {
			continue
		}
		core := producer[q.Input[0]]
		var relu *onnxpb.NodeProto
		if core != nil && core.GetOpType() == "Relu" && single(core) && len(core.Input) == 1 {
			relu, core = core, producer[core.Input[0]]
		}
		var add *onnxpb.NodeProto
		bias := ""
		if core != nil && core.GetOpType() == "Add" && single(core) && len(core.Input) == 2 {
			for k := 0; k < 2; k++ {
				if mm := producer[core.Input[k]]; mm != nil && mm.GetOpType() == "MatMul" {
					add, bias, core = core, core.Input[1-k], mm
					break
				}
			}
		}
		if core == nil || !single(core) || core.GetDomain() != "" || len(core.Input) < 1 {
			continue
		}
		switch core.GetOpType() {
		case "Conv", "MatMul", "Gemm":
			if len(core.Input) < 2 {
				continue
			}
		case "MaxPool":
			// order-preserving: DequantizeLinear → MaxPool → QuantizeLinear with the same
			// scale and zero point is MaxPool on the quantized values
			if relu != nil || add != nil || len(core.Output) != 1 || dq(core.Input[0]) == nil {
				continue
			}
			p.groups[q] = &qdqGroup{core: core, q: q, dqX: dq(core.Input[0])}
			p.skip[core] = true
			continue
		default:
			continue
		}
		if add != nil && core.GetOpType() != "MatMul" {
			continue
		}
		g := &qdqGroup{core: core, relu: relu, q: q, add: add, bias: bias, dqX: dq(core.Input[0]), dqW: dq(core.Input[1])}
		if t := producer[core.Input[1]]; g.dqW == nil && core.GetOpType() == "MatMul" && t != nil && t.GetOpType() == "Transpose" && single(t) && len(t.Input) == 1 {
			g.transW, g.dqW = t, dq(t.Input[0])
		}
		if g.dqX == nil || g.dqW == nil {
			continue
		}
		if len(core.Input) > 2 && core.Input[2] != "" {
			g.bias = core.Input[2]
		}
		if g.bias != "" {
			g.dqB = dq(g.bias)
		}
		p.groups[q] = g
		for _, n := range []*onnxpb.NodeProto{core, relu, add, g.transW} {
			if n != nil {
				p.skip[n] = true
			}
		}
	}
	return p
}

// importQDQ imports group g at its QuantizeLinear: the integer kernel, or, when the group does
// not qualify, its skipped nodes and the QuantizeLinear as written.
func (im *importer) importQDQ(g *qdqGroup) error {
	c := &nodeCtx{im: im, node: g.q, attrs: attrMap(g.q)}
	ok, err := im.fuseQDQ(c, g)
	if err != nil {
		return &NodeError{File: im.file, Node: g.q.GetName(), Op: "QuantizeLinear (fused with " + g.core.GetOpType() + ")", Opset: im.opset, Err: err}
	}
	if ok {
		im.lastOutputs = g.q.Output
		im.foldOutputs(len(g.q.Output))
		return nil
	}
	for _, n := range []*onnxpb.NodeProto{g.transW, g.core, g.add, g.relu, g.q} {
		if n == nil {
			continue
		}
		if err := im.importNode(n); err != nil {
			return err
		}
	}
	return nil
}

// qdqParams are the constant scale and zero point of a DequantizeLinear or QuantizeLinear.
type qdqParams struct {
	data       string // the quantized (or float) tensor
	scale, zp  *ir.Tensor
	scaleName  string
	zpName     string
	axis, size int64 // axis and block size attributes
}

// constParams reads a (De)QuantizeLinear node's constant scale and zero point (ok=false when
// they are not constants or the quantization is blocked).
func (im *importer) constParams(n *onnxpb.NodeProto, zpType ir.DType) (qdqParams, bool) {
	p := qdqParams{data: n.Input[0], scaleName: n.Input[1], axis: 1}
	for _, a := range n.Attribute {
		switch a.GetName() {
		case "axis":
			p.axis = a.GetI()
		case "block_size":
			p.size = a.GetI()
		}
	}
	s, ok := im.constOf(n.Input[1])
	if !ok || p.size != 0 || s.Elem != ir.F32 {
		return p, false
	}
	p.scale = s
	if len(n.Input) > 2 && n.Input[2] != "" {
		z, ok := im.constOf(n.Input[2])
		if !ok || !z.Elem.IsInt() || z.Elem == ir.Bool || z.Len() != s.Len() && z.Len() != 1 {
			return p, false
		}
		p.zp, p.zpName = z, n.Input[2]
	} else {
		p.zp = ir.NewTensor(zpType, s.Shape)
	}
	return p, true
}

// fuseQDQ emits the integer kernel of g; ok=false when g does not qualify.
func (im *importer) fuseQDQ(c *nodeCtx, g *qdqGroup) (bool, error) {
	if g.core.GetOpType() == "MaxPool" {
		return im.fusePool(g)
	}
	xv, errX := im.value(g.dqX.Input[0])
	wv, errW := im.value(g.dqW.Input[0])
	if errX != nil || errW != nil {
		return false, nil
	}
	isQ := func(t ir.DType) bool { return t == ir.U8 || t == ir.I8 }
	if !isQ(xv.Type.Elem) || !isQ(wv.Type.Elem) {
		return false, nil
	}
	x, okX := im.constParams(g.dqX, xv.Type.Elem)
	w, okW := im.constParams(g.dqW, wv.Type.Elem)
	qt := ir.U8
	if len(g.q.Input) > 2 && g.q.Input[2] != "" {
		if z, ok := im.constOf(g.q.Input[2]); ok {
			qt = z.Elem
		}
	}
	y, okY := im.constParams(g.q, qt)
	if !okX || !okW || !okY || x.scale.Len() != 1 || y.scale.Len() != 1 || !isQ(y.zp.Elem) || x.zp.Len() != 1 || y.zp.Len() != 1 {
		return false, nil
	}
	core := &nodeCtx{im: im, node: g.core, attrs: attrMap(g.core)}
	// the weight's per-channel axis: output channels (Conv: W[M, C, k…] axis 0; MatMul:
	// B[K, N] axis 1 (the last); Gemm: B[K, N], or B[N, K] with transB)
	wAxis := w.axis
	if wAxis < 0 {
		wAxis += int64(wv.Type.Rank())
	}
	transB := false
	switch g.core.GetOpType() {
	case "Conv":
		if w.scale.Len() > 1 && wAxis != 0 {
			return false, nil
		}
	case "MatMul":
		want := int64(1)
		if g.transW != nil {
			// the weight is stored [N, K] and transposed: per output channel is axis 0
			perm := (&nodeCtx{node: g.transW, attrs: attrMap(g.transW)}).AttrInts("perm", nil)
			if wv.Type.Rank() != 2 || len(perm) != 0 && (len(perm) != 2 || perm[0] != 1 || perm[1] != 0) {
				return false, nil
			}
			want, transB = 0, true
		}
		if w.scale.Len() > 1 && (wv.Type.Rank() != 2 || wAxis != want) {
			return false, nil
		}
	case "Gemm":
		transB = core.AttrInt("transB", 0) != 0
		if core.AttrInt("transA", 0) != 0 || core.AttrFloat("alpha", 1) != 1 || core.AttrFloat("beta", 1) != 1 || wv.Type.Rank() != 2 {
			return false, nil
		}
		want := int64(1)
		if transB {
			want = 0
		}
		if w.scale.Len() > 1 && wAxis != want {
			return false, nil
		}
	}
	if w.zp.Len() != 1 && w.zp.Len() != w.scale.Len() {
		return false, nil
	}
	// bias: int32 with scale x_scale·w_scale, as the quantization tools write it
	var bias *ir.Tensor
	if g.bias != "" {
		var ok bool
		if bias, ok = im.qdqBias(g, x.scale.F[0], w.scale); !ok {
			return false, nil
		}
	}
	e := c.emitter()
	xz := e.c.im.g.AddConst(c.Output(0)+"_xz", x.zp)
	wzT := w.zp
	if wzT.Len() == 1 {
		wzT = scalarOf(wzT)
	}
	wz := im.g.AddConst(c.Output(0)+"_wz", wzT)
	// multiplier x_scale·w_scale/y_scale in f32, per output channel or per tensor
	m := ir.NewTensor(ir.F32, []int64{int64(w.scale.Len())})
	for i := range m.F {
		m.F[i] = float64(float32(float32(x.scale.F[0])*float32(w.scale.F[i])) / float32(y.scale.F[0]))
	}
	if m.Len() == 1 {
		m = scalarOf(m)
	}
	mv := im.g.AddConst(c.Output(0)+"_m", m)
	yz := im.g.AddConst(c.Output(0)+"_yz", scalarOf(y.zp))
	var acc *ir.Value
	var axis int64
	switch g.core.GetOpType() {
	case "Conv":
		attrs, err := convIntAttrs(core, xv, wv)
		if err != nil {
			return false, err
		}
		ins := []*ir.Value{xv, wv, xz, wz}
		if bias != nil {
			ins = append(ins, im.g.AddConst(c.Output(0)+"_bias", bias))
		}
		acc = e.Op("conv_integer", "", attrs, ins...)
		axis = 1
	default:
		b := wv
		switch {
		case transB && wv.Data != nil:
			// constant weights are transposed here: the integer kernels read constant weights
			b = im.g.AddConst(c.Output(0)+"_wT", transposed(wv.Data.Decoded()))
		case transB:
			b = e.Op("transpose", "", nil, wv)
		}
		acc = e.Op("matmul_integer", "", nil, xv, b, xz, wz)
		if bias != nil && acc != nil {
			acc = e.Op("add", "", nil, acc, im.g.AddConst(c.Output(0)+"_bias", bias))
		}
		if acc != nil {
			axis = int64(acc.Type.Rank() - 1)
		}
	}
	if e.err != nil {
		return false, e.err
	}
	name := c.Output(0)
	if g.relu != nil {
		name = ""
	}
	if lo, _, _ := ir.QuantRange(y.zp.Elem); g.relu != nil && float64(y.zp.I[0]) == lo {
		name = c.Output(0) // saturation already clamps at the zero point
	}
	out := e.Op("requantize", name, ir.Attrs{"axis": ir.IntAttr(axis)}, acc, mv, yz)
	if name == "" {
		out = e.Op("max", c.Output(0), nil, out, yz)
	}
	e.Out(0, out)
	return e.err == nil, e.err
}

// qdqBias returns the bias of g as int32 with scale x_scale·w_scale[m]: the DequantizeLinear's
// int32 data when its scale is exactly that and its zero point 0, else the float values
// (constant, or dequantized) divided by that scale and rounded half to even.
func (im *importer) qdqBias(g *qdqGroup, xs float64, ws *ir.Tensor) (*ir.Tensor, bool) {
	scaleOf := func(i int) float64 {
		if ws.Len() == 1 {
			i = 0
		}
		return float64(float32(xs) * float32(ws.F[i]))
	}
	var f []float64
	if g.dqB != nil {
		b, ok := im.constOf(g.dqB.Input[0])
		p, okP := im.constParams(g.dqB, ir.I32)
		if !ok || !okP || b.Elem != ir.I32 || len(b.Shape) != 1 || (p.scale.Len() != 1 && p.scale.Len() != b.Len()) {
			return nil, false
		}
		exact := true
		f = make([]float64, b.Len())
		for i := range f {
			s, z := p.scale.F[min(i, p.scale.Len()-1)], p.zp.I[min(i, p.zp.Len()-1)]
			if z != 0 || s != scaleOf(i) {
				exact = false
			}
			f[i] = float64(float32(float64(b.I[i]-z) * s))
		}
		if exact {
			return b, true
		}
	} else {
		b, ok := im.constOf(g.bias)
		if !ok || !b.Elem.IsFloat() || len(b.Shape) != 1 {
			return nil, false
		}
		f = b.F
	}
	if ws.Len() != 1 && ws.Len() != len(f) {
		return nil, false
	}
	out := ir.NewTensor(ir.I32, []int64{int64(len(f))})
	for i, v := range f {
		q := math.RoundToEven(float64(float32(v) / float32(scaleOf(i))))
		if math.IsNaN(q) || math.Abs(q) > math.MaxInt32 {
			return nil, false
		}
		out.I[i] = int64(q)
	}
	return out, true
}

// scalarOf returns a rank-0 tensor holding t's first element.
func scalarOf(t *ir.Tensor) *ir.Tensor {
	s := ir.NewTensor(t.Elem, nil)
	if t.Elem.IsFloat() {
		s.F[0] = t.F[0]
	} else {
		s.I[0] = t.I[0]
	}
	return s
}

// attrMap returns a node's attributes by name.
func attrMap(n *onnxpb.NodeProto) map[string]*onnxpb.AttributeProto {
	m := map[string]*onnxpb.AttributeProto{}
	for _, a := range n.Attribute {
		m[a.GetName()] = a
	}
	return m
}

// transposed returns the transpose of a matrix.
func transposed(t *ir.Tensor) *ir.Tensor {
	r, c := t.Shape[0], t.Shape[1]
	out := ir.NewTensor(t.Elem, []int64{c, r})
	for i := int64(0); i < r; i++ {
		for j := int64(0); j < c; j++ {
			if t.Elem.IsFloat() {
				out.F[j*r+i] = t.F[i*c+j]
			} else {
				out.I[j*r+i] = t.I[i*c+j]
			}
		}
	}
	return out
}

// fusePool imports DequantizeLinear → MaxPool → QuantizeLinear as MaxPool of the quantized
// values when the two quantizations are the same (constant, equal scale and zero point): max
// commutes with the monotonic dequantization, and quantizing a dequantized value gives it back.
// Padding is the type's lowest value, which never exceeds a window's real maximum.
func (im *importer) fusePool(g *qdqGroup) (bool, error) {
	xv, err := im.value(g.dqX.Input[0])
	if err != nil || xv.Type.Elem != ir.U8 && xv.Type.Elem != ir.I8 {
		return false, nil
	}
	x, okX := im.constParams(g.dqX, xv.Type.Elem)
	y, okY := im.constParams(g.q, xv.Type.Elem)
	if !okX || !okY || x.scale.Len() != 1 || y.scale.Len() != 1 || x.zp.Len() != 1 || y.zp.Len() != 1 ||
		x.scale.F[0] != y.scale.F[0] || x.zp.I[0] != y.zp.I[0] || y.zp.Elem != xv.Type.Elem {
		return false, nil
	}
	n := proto.Clone(g.core).(*onnxpb.NodeProto)
	n.Input[0] = g.dqX.Input[0]
	n.Output = []string{g.q.Output[0]}
	return true, im.importNode(n)
}

// constOf returns the value of an ONNX name known at import: a constant, or a small value
// computed from constants only (PyTorch writes the zero points of per-channel biases as
// ConstantOfShape → Cast, which the importer keeps as a fill when it is larger than what it
// folds eagerly).
func (im *importer) constOf(name string) (*ir.Tensor, bool) {
	if t, ok := im.Consts[name]; ok {
		return t.Decoded(), true
	}
	v, ok := im.Vals[name]
	if !ok {
		return nil, false
	}
	t, ok := evalConst(v, 0)
	if ok {
		t = t.Decoded()
	}
	return t, ok
}

// evalConst evaluates v when it depends on constants only (at most kit.MaxFoldElements elements per
// value, 16 producers deep).
func evalConst(v *ir.Value, depth int) (*ir.Tensor, bool) {
	if v.Data != nil {
		return v.Data, true
	}
	op := v.Def
	if op == nil || depth > 16 {
		return nil, false
	}
	s, ok := v.Type.StaticShape()
	if !ok || ir.NumElements(s) > kit.MaxFoldElements {
		return nil, false
	}
	data := make([]*ir.Tensor, len(op.Operands))
	for i, o := range op.Operands {
		if data[i], ok = evalConst(o, depth+1); !ok {
			return nil, false
		}
	}
	return kit.Evaluate(op, data)
}
