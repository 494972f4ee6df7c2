// This file imports Attention (opsets 23 and 24) as a decomposition into catalogue ops that
// follows the ONNX function body: heads split from 3-D inputs, the key/value cache
// concatenated, grouped-query heads repeated, Q·Kᵀ scaled, soft-capped, biased by the mask,
// the causal triangle and the padding of nonpad_kv_seqlen, a softmax whose fully masked rows
// are zero, and the product with V. The causal triangle is trilu(fill(-inf)) rather than a
// comparison of index ranges, so known-values sees where the scores are -inf and DIE removes
// the masked half of Q·Kᵀ and of P·V.

package onnx

import (
	"fmt"
	"math"

	"github.com/graphc/graphc/ir"
	"github.com/graphc/graphc/volume"
)

func init() {
	registerOp("Attention", 23, importAttention)
	noteOp("Attention", "3-D and 4-D inputs, grouped-query heads, past/present key and value, bool or float attn_mask "+
		"of any broadcast rank (padded with -inf to the total length), is_causal as a trilu mask (aligned to the end "+
		"with a past), scale, softcap, qk_matmul_output_mode 0-3, softmax_precision, nonpad_kv_seqlen; "+
		"float16 products and sums accumulate in float32 as numpy's do")
}

// attnShape is the layout of one Attention node once its inputs are 4-D.
type attnShape struct {
	batch, sq, skv volume.Aff // batch size, query length, total key/value length (past included)
	hq, hkv        int64      // query and key/value heads
	dqk, dv        volume.Aff // head sizes of Q/K and of V
	past           volume.Aff // past length (0 without a past)
	hasPast        bool
}

// heads4D turns a 3-D input [B, S, H·D] into [B, H, S, D] (reshape then transpose); a 4-D
// input is returned as it is.
func (e *emitter) heads4D(x *ir.Value, heads int64, what string) *ir.Value {
	if e.err != nil || x.Type.Rank() == 4 {
		return x
	}
	hidden, ok := x.Type.Dim(2)
	if !ok || heads <= 0 || hidden%heads != 0 {
		e.err = fmt.Errorf("%w: %s hidden size %s is not a static multiple of %d heads", ErrInvalid, what, x.Type.Shape[2].String(), heads)
		return nil
	}
	sh := []volume.Aff{x.Type.Shape[0], x.Type.Shape[1], volume.AffConst(heads), volume.AffConst(hidden / heads)}
	r := e.Op("reshape", "", ir.Attrs{"shape": ir.StringAttr(ir.ExtentsString(sh))}, x)
	return e.Op("transpose", "", ir.Attrs{"perm": ir.IntsAttr(0, 2, 1, 3)}, r)
}

// matmulAcc is matmul, except that float16 operands are multiplied and summed in float32 and
// the result rounded once, as numpy (the ONNX reference) and onnxruntime do.
func (e *emitter) matmulAcc(name string, a, b *ir.Value) *ir.Value {
	if a == nil || b == nil || a.Type.Elem != ir.F16 {
		return e.Op("matmul", name, nil, a, b)
	}
	p := e.Op("matmul", "", nil, e.Cast(a, ir.F32, ""), e.Cast(b, ir.F32, ""))
	return e.Op("cast", name, ir.Attrs{"to": ir.StringAttr(ir.F16.String())}, p)
}

// softmaxLast is the softmax over the last axis: exp(x - max) / sum(exp(x - max)), the sum of
// float16 elements accumulated in float32 as numpy's is.
func (e *emitter) softmaxLast(x *ir.Value) *ir.Value {
	if x == nil {
		return nil
	}
	keep := ir.Attrs{"axes": ints([]int{x.Type.Rank() - 1}), "keepdims": ir.IntAttr(1)}
	m := e.Op("reduce_max", "", keep, x)
	ex := e.Op("exp", "", nil, e.Op("sub", "", nil, x, m))
	return e.Op("div", "", nil, ex, e.sumAcc(ex, keep))
}

// sumAcc is reduce_sum with the given attributes, float16 elements accumulated in float32 and
// the sum rounded once, as numpy's sum does.
func (e *emitter) sumAcc(x *ir.Value, attrs ir.Attrs) *ir.Value {
	if x == nil || x.Type.Elem != ir.F16 {
		return e.Op("reduce_sum", "", attrs, x)
	}
	return e.Cast(e.Op("reduce_sum", "", attrs, e.Cast(x, ir.F32, "")), ir.F16, "")
}

// attnScale returns sqrt(scale), scale defaulting to 1/sqrt(head size), computed in float32
// step by step as the function body does (both Q and Kᵀ are multiplied by it).
func attnScale(c *nodeCtx, dqk volume.Aff) (float64, error) {
	var s float32
	if c.Attr("scale") != nil {
		s = c.AttrFloat("scale", 1)
	} else {
		d, ok := dqk.IsConst()
		if !ok {
			return 0, fmt.Errorf("%w: the default scale needs a static head size, got %s", ErrUnsupported, dqk.String())
		}
		s = float32(1 / float64(float32(math.Sqrt(float64(float32(d))))))
	}
	return float64(float32(math.Sqrt(float64(s)))), nil
}

func importAttention(c *nodeCtx) error {
	e := c.emitter()
	q, k, v := e.In(0), e.In(1), e.In(2)
	if e.err != nil {
		return e.err
	}
	rank := q.Type.Rank()
	if rank != 3 && rank != 4 || k.Type.Rank() != rank || v.Type.Rank() != rank {
		return fmt.Errorf("%w: Q, K and V must all be 3-D or all 4-D, got %s, %s and %s", ErrInvalid, q.Type, k.Type, v.Type)
	}
	t := q.Type.Elem
	if !t.IsFloat() || k.Type.Elem != t || v.Type.Elem != t {
		return fmt.Errorf("%w: Q, K and V must have one float type, got %s, %s and %s", ErrInvalid, q.Type.Elem, k.Type.Elem, v.Type.Elem)
	}
	if rank == 3 {
		qh, kvh := c.AttrInt("q_num_heads", 0), c.AttrInt("kv_num_heads", 0)
		if qh <= 0 || kvh <= 0 {
			return fmt.Errorf("%w: 3-D inputs need q_num_heads and kv_num_heads, got %d and %d", ErrInvalid, qh, kvh)
		}
		q, k, v = e.heads4D(q, qh, "Q"), e.heads4D(k, kvh, "K"), e.heads4D(v, kvh, "V")
		if e.err != nil {
			return e.err
		}
	}
	var sh attnShape
	sh.batch, sh.sq, sh.dqk, sh.dv = q.Type.Shape[0], q.Type.Shape[2], q.Type.Shape[3], v.Type.Shape[3]
	var ok1, ok2 bool
	sh.hq, ok1 = q.Type.Dim(1)
	sh.hkv, ok2 = k.Type.Dim(1)
	if !ok1 || !ok2 {
		return fmt.Errorf("%w: symbolic head counts (%s, %s)", ErrUnsupported, q.Type, k.Type)
	}
	if rank == 4 {
		if a := c.AttrInt("q_num_heads", 0); a != 0 && a != sh.hq {
			return fmt.Errorf("%w: q_num_heads = %d but Q has %d heads", ErrInvalid, a, sh.hq)
		}
		if a := c.AttrInt("kv_num_heads", 0); a != 0 && a != sh.hkv {
			return fmt.Errorf("%w: kv_num_heads = %d but K has %d heads", ErrInvalid, a, sh.hkv)
		}
	}
	if !k.Type.Shape[3].Equal(sh.dqk) {
		return fmt.Errorf("%w: Q head size %s and K head size %s differ", ErrInvalid, sh.dqk.String(), k.Type.Shape[3].String())
	}
	if !v.Type.Shape[1].Equal(k.Type.Shape[1]) || !v.Type.Shape[2].Equal(k.Type.Shape[2]) {
		return fmt.Errorf("%w: K %s and V %s differ in heads or sequence length", ErrInvalid, k.Type, v.Type)
	}
	if sh.hq%sh.hkv != 0 {
		return fmt.Errorf("%w: %d query heads are not a multiple of %d key/value heads", ErrInvalid, sh.hq, sh.hkv)
	}

	// the key/value cache: present = concat(past, new) along the sequence
	sh.past = volume.AffConst(0)
	if c.HasInput(4) != c.HasInput(5) {
		return fmt.Errorf("%w: past_key and past_value must be given together", ErrInvalid)
	}
	if c.HasInput(4) {
		pk, pv := e.In(4), e.In(5)
		if e.err != nil {
			return e.err
		}
		if pk.Type.Rank() != 4 || pv.Type.Rank() != 4 || !pk.Type.Shape[2].Equal(pv.Type.Shape[2]) {
			return fmt.Errorf("%w: past_key %s and past_value %s must be 4-D with one past length", ErrInvalid, pk.Type, pv.Type)
		}
		sh.past, sh.hasPast = pk.Type.Shape[2], true
		k = e.Op("concat", c.Output(1), ir.Attrs{"axis": ir.IntAttr(2)}, e.Cast(pk, t, ""), k)
		v = e.Op("concat", c.Output(2), ir.Attrs{"axis": ir.IntAttr(2)}, e.Cast(pv, t, ""), v)
	} else {
		if c.Output(1) != "" {
			k = e.Op("identity", c.Output(1), nil, k)
		}
		if c.Output(2) != "" {
			v = e.Op("identity", c.Output(2), nil, v)
		}
	}
	if e.err != nil {
		return e.err
	}
	e.Out(1, k)
	e.Out(2, v)
	sh.skv = k.Type.Shape[2]

	sf, err := attnScale(c, sh.dqk)
	if err != nil {
		return err
	}
	scale := e.Scalar(t, sf)
	qs := e.Op("mul", "", nil, q, scale)
	ks := e.Op("mul", "", nil, e.repeatHeads(k, sh), scale)
	scores := e.matmulAcc("", qs, e.Op("transpose", "", ir.Attrs{"perm": ir.IntsAttr(0, 1, 3, 2)}, ks))
	qk0 := scores
	if softcap := c.AttrFloat("softcap", 0); softcap > 0 {
		sc := e.Scalar(t, float64(softcap))
		scores = e.Op("mul", "", nil, e.Op("tanh", "", nil, e.Op("div", "", nil, scores, sc)), sc)
	}
	qk1 := scores
	bias, maybeEmptyRows, err := attnBias(c, e, sh, t)
	if err != nil {
		return err
	}
	if bias != nil {
		scores = e.Op("add", "", nil, scores, bias)
	}
	qk2 := scores

	// the softmax, in softmax_precision when given
	st := t
	if c.Attr("softmax_precision") != nil {
		if st, err = DType(int32(c.AttrInt("softmax_precision", 1))); err != nil {
			return fmt.Errorf("softmax_precision: %w", err)
		}
		if !st.IsFloat() {
			return fmt.Errorf("%w: softmax_precision must be a float type, got %s", ErrInvalid, st)
		}
	}
	p := e.Cast(e.softmaxLast(e.Cast(scores, st, "")), t, "")
	if maybeEmptyRows {
		// a row whose every score is masked has no softmax (0/0): its weights are zero
		last := ints([]int{bias.Type.Rank() - 1})
		rowMax := e.Op("reduce_max", "", ir.Attrs{"axes": last, "keepdims": ir.IntAttr(1)}, bias)
		empty := e.Op("equal", "", nil, rowMax, e.Scalar(t, math.Inf(-1)))
		p = e.Op("where", "", nil, empty, e.Scalar(t, 0), p)
	}
	y := e.matmulAcc("", p, e.repeatHeads(v, sh))
	if rank == 3 {
		y = e.Op("transpose", "", ir.Attrs{"perm": ir.IntsAttr(0, 2, 1, 3)}, y)
		if y != nil {
			out := []volume.Aff{y.Type.Shape[0], y.Type.Shape[1], sh.dv.Mul(sh.hq)}
			y = e.Op("reshape", c.Output(0), ir.Attrs{"shape": ir.StringAttr(ir.ExtentsString(out))}, y)
		}
	} else {
		y = e.Op("identity", c.Output(0), nil, y)
	}
	e.Out(0, y)
	if c.Output(3) != "" {
		var qk *ir.Value
		switch mode := c.AttrInt("qk_matmul_output_mode", 0); mode {
		case 0:
			qk = qk0
		case 1:
			qk = qk1
		case 2:
			qk = qk2
		case 3:
			qk = p
		default:
			return fmt.Errorf("%w: qk_matmul_output_mode = %d (want 0 to 3)", ErrInvalid, mode)
		}
		e.Out(3, e.Op("identity", c.Output(3), nil, qk))
	}
	return e.Done()
}

// repeatHeads repeats each key/value head hq/hkv times, adjacently (head h of Q reads head
// h / (hq/hkv)): [B, Hkv, S, D] is unsqueezed to [B, Hkv, 1, S, D], expanded and reshaped.
func (e *emitter) repeatHeads(x *ir.Value, sh attnShape) *ir.Value {
	if x == nil || sh.hq == sh.hkv {
		return x
	}
	reps := sh.hq / sh.hkv
	s := x.Type.Shape
	u := []volume.Aff{s[0], s[1], volume.AffConst(1), s[2], s[3]}
	ex := []volume.Aff{s[0], s[1], volume.AffConst(reps), s[2], s[3]}
	out := []volume.Aff{s[0], volume.AffConst(sh.hq), s[2], s[3]}
	r := e.Op("reshape", "", ir.Attrs{"shape": ir.StringAttr(ir.ExtentsString(u))}, x)
	r = e.Op("expand", "", ir.Attrs{"shape": ir.StringAttr(ir.ExtentsString(ex))}, r)
	return e.Op("reshape", "", ir.Attrs{"shape": ir.StringAttr(ir.ExtentsString(out))}, r)
}

// attnBias builds the additive bias of the scores (nil when there is none): the mask (bool
// true → 0, false → -inf), padded with -inf to the total length; plus the causal triangle;
// plus -inf beyond each batch's nonpad_kv_seqlen. maybeEmptyRows reports whether some row
// may be all -inf (a mask or padding is involved; the causal triangle alone always keeps
// the first key).
func attnBias(c *nodeCtx, e *emitter, sh attnShape, t ir.DType) (bias *ir.Value, maybeEmptyRows bool, err error) {
	ninf := math.Inf(-1)
	add := func(x *ir.Value) {
		if bias == nil {
			bias = x
		} else {
			bias = e.Op("add", "", nil, bias, x)
		}
	}
	if c.HasInput(3) {
		m := e.In(3)
		if e.err != nil {
			return nil, false, e.err
		}
		if m.Type.Rank() < 1 || m.Type.Rank() > 4 {
			return nil, false, fmt.Errorf("%w: attn_mask must have rank 1 to 4, got %s", ErrInvalid, m.Type)
		}
		if m.Type.Elem == ir.Bool {
			m = e.Op("where", "", nil, m, e.Scalar(t, 0), e.Scalar(t, ninf))
		} else if m.Type.Elem.IsFloat() {
			m = e.Cast(m, t, "")
		} else {
			return nil, false, fmt.Errorf("%w: attn_mask must be bool or float, got %s", ErrInvalid, m.Type.Elem)
		}
		if m == nil {
			return nil, false, e.err
		}
		r := m.Type.Rank()
		if last := m.Type.Shape[r-1]; !last.Equal(sh.skv) {
			lv, ok1 := last.IsConst()
			kv, ok2 := sh.skv.IsConst()
			if !ok1 || !ok2 || lv > kv {
				return nil, false, fmt.Errorf("%w: attn_mask's last dim %s does not fit the total sequence length %s", ErrInvalid, last.String(), sh.skv.String())
			}
			if lv != 1 { // 1 broadcasts
				pads := make([]int64, 2*r)
				pads[2*r-1] = kv - lv
				m = e.Op("pad", "", ir.Attrs{"pads": ir.IntsAttr(pads...), "value": ir.FloatAttr(ninf)}, m)
			}
		}
		add(m)
		maybeEmptyRows = true
	}
	nonpad := c.HasInput(6)
	var np *ir.Value
	if nonpad {
		np = e.In(6)
		if e.err != nil {
			return nil, false, e.err
		}
		if np.Type.Rank() != 1 || np.Type.Elem.IsFloat() || np.Type.Elem == ir.Bool {
			return nil, false, fmt.Errorf("%w: nonpad_kv_seqlen must be a 1-D integer tensor, got %s", ErrInvalid, np.Type)
		}
		np = e.Cast(np, ir.I64, "")
		maybeEmptyRows = true
	}
	if c.AttrInt("is_causal", 0) != 0 {
		if nonpad && !sh.hasPast {
			// the frontier of batch b is nonpad[b] - Sq: data, compared with index ranges
			add(e.causalPerBatch(np, sh, t))
		} else {
			add(e.causalMask(sh, t))
		}
	}
	if nonpad {
		// -inf at keys j >= nonpad[b]: [B, 1, 1, Skv]
		cols := e.Op("range", "", ir.Attrs{"elem": ir.StringAttr("i64"), "limit": ir.StringAttr(sh.skv.String())})
		keep := e.Op("less", "", nil, cols, e.reshape(np, sh.batch, volume.AffConst(1)))
		pm := e.Op("where", "", nil, keep, e.Scalar(t, 0), e.Scalar(t, ninf))
		add(e.reshape(pm, sh.batch, volume.AffConst(1), volume.AffConst(1), sh.skv))
	}
	return bias, maybeEmptyRows, e.err
}

// reshape reshapes x to the given extents.
func (e *emitter) reshape(x *ir.Value, shape ...volume.Aff) *ir.Value {
	return e.Op("reshape", "", ir.Attrs{"shape": ir.StringAttr(ir.ExtentsString(shape))}, x)
}

// causalMask is -inf where key j lies after query i's position past + i, 0 elsewhere, as a
// [Sq, Skv] tensor: trilu(fill(-inf), k = 1 + past), upper. With a symbolic past length it is
// zeros for the past keys beside trilu(fill(-inf), k = 1) for the new ones.
func (e *emitter) causalMask(sh attnShape, t ir.DType) *ir.Value {
	ninf := math.Inf(-1)
	fill := func(cols volume.Aff, val float64) *ir.Value {
		ty := ir.TensorType{Elem: t, Shape: []volume.Aff{sh.sq, cols}}
		return e.Op("fill", "", ir.Attrs{"type": ir.StringAttr(ty.String()), "value": ir.FloatAttr(val)})
	}
	if p, ok := sh.past.IsConst(); ok {
		return e.Op("trilu", "", ir.Attrs{"k": ir.IntAttr(1 + p), "upper": ir.IntAttr(1)}, fill(sh.skv, ninf))
	}
	tri := e.Op("trilu", "", ir.Attrs{"k": ir.IntAttr(1), "upper": ir.IntAttr(1)}, fill(sh.skv.Sub(sh.past), ninf))
	return e.Op("concat", "", ir.Attrs{"axis": ir.IntAttr(1)}, fill(sh.past, 0), tri)
}

// causalPerBatch is the causal mask of an external cache (nonpad_kv_seqlen without a past):
// query i of batch b sees keys j <= i + nonpad[b] - Sq; [B, 1, Sq, Skv].
func (e *emitter) causalPerBatch(np *ir.Value, sh attnShape, t ir.DType) *ir.Value {
	if e.err != nil {
		return nil
	}
	sq, ok := sh.sq.IsConst()
	if !ok {
		e.err = fmt.Errorf("%w: is_causal with nonpad_kv_seqlen and a symbolic query length %s", ErrUnsupported, sh.sq.String())
		return nil
	}
	one := volume.AffConst(1)
	rows := e.Op("range", "", ir.Attrs{"elem": ir.StringAttr("i64"), "limit": ir.StringAttr(sh.sq.String())})
	cols := e.Op("range", "", ir.Attrs{"elem": ir.StringAttr("i64"), "limit": ir.StringAttr(sh.skv.String())})
	off := e.reshape(e.Op("sub", "", nil, np, e.Scalar(ir.I64, float64(sq))), sh.batch, one, one, one)
	last := e.Op("add", "", nil, e.reshape(rows, one, one, sh.sq, one), off)
	masked := e.Op("less", "", nil, last, e.reshape(cols, one, one, one, sh.skv))
	return e.Op("where", "", nil, masked, e.Scalar(t, math.Inf(-1)), e.Scalar(t, 0))
}

func init() {
	registerOp("FlexAttention", 1, importFlexAttention)
	previewOps["ai.onnx.preview"] = map[string]bool{"FlexAttention": true}
	noteOp("FlexAttention", "domain ai.onnx.preview: the score_mod and prob_mod graphs inlined around the softmax; grouped query heads; float16 in float32")
}

// importFlexAttention follows its function body: Q·Kᵀ scaled by sqrt(scale) on both sides,
// the score_mod graph applied to the scores (in float32 for float16 inputs), a softmax over the
// keys, the prob_mod graph, and the product with V.
func importFlexAttention(c *nodeCtx) error {
	e := c.emitter()
	q, k, v := e.In(0), e.In(1), e.In(2)
	if e.err != nil {
		return e.err
	}
	if q.Type.Rank() != 4 || k.Type.Rank() != 4 || v.Type.Rank() != 4 || !q.Type.Elem.IsFloat() {
		return fmt.Errorf("%w: Q, K and V must be 4-D float tensors, got %s, %s and %s", ErrInvalid, q.Type, k.Type, v.Type)
	}
	var sh attnShape
	var ok1, ok2 bool
	sh.hq, ok1 = q.Type.Dim(1)
	sh.hkv, ok2 = k.Type.Dim(1)
	if !ok1 || !ok2 || sh.hkv == 0 || sh.hq%sh.hkv != 0 {
		return fmt.Errorf("%w: %s query heads and %s key/value heads", ErrInvalid, q.Type.Shape[1].String(), k.Type.Shape[1].String())
	}
	t := q.Type.Elem
	sf, err := attnScale(c, q.Type.Shape[3])
	if err != nil {
		return err
	}
	scale := e.Scalar(t, sf)
	qs := e.Op("mul", "", nil, q, scale)
	ks := e.Op("mul", "", nil, e.repeatHeads(k, sh), scale)
	scores := e.matmulAcc("", qs, e.Op("transpose", "", ir.Attrs{"perm": ir.IntsAttr(0, 1, 3, 2)}, ks))
	st := t
	if t == ir.F16 || t == ir.BF16 {
		st = ir.F32
	}
	scores = e.Cast(scores, st, "")
	mod := func(name string, x *ir.Value, i int) (*ir.Value, error) {
		a := c.Attr(name)
		if a == nil || a.GetG() == nil || x == nil {
			return x, nil
		}
		outs, err := c.inline(a.GetG(), c.prefix(name, i), []binding{{v: x}})
		if err != nil {
			return nil, err
		}
		if len(outs) != 1 || !outs[0].Type.Equal(x.Type) {
			return nil, fmt.Errorf("%w: %s must map %s to one tensor of that type", ErrInvalid, name, x.Type)
		}
		return outs[0], nil
	}
	if scores, err = mod("score_mod", scores, 0); err != nil {
		return err
	}
	p := e.softmaxLast(scores)
	if p, err = mod("prob_mod", p, 0); err != nil {
		return err
	}
	y := e.matmulAcc("", p, e.Cast(e.repeatHeads(v, sh), st, ""))
	e.Out(0, e.Op("identity", c.Output(0), nil, e.Cast(y, t, "")))
	return e.Done()
}
