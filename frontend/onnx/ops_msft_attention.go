// This file imports onnxruntime's attention ops of com.microsoft, GroupQueryAttention and
// MultiHeadAttention, as the same decomposition into catalogue ops as ONNX Attention
// (ops_attention.go): heads split from [B, S, heads·D], the cache concatenated to the past
// (present = concat(past, new) along the sequence), key/value heads repeated for grouped
// queries, Q scaled, Q·Kᵀ, soft-capped, biased, the causal triangle as trilu(fill(-inf)) aligned
// to the end of the past (known-values and DIE see exactly which iterations it masks), a
// softmax and the product with V.
//
// GroupQueryAttention's seqlens_k and total_sequence_length are data. graphc's shapes follow
// from the past's length P instead: present holds P + S positions. With a past, seqlens_k
// gives each batch row its own past length (a ragged batch, ops_msft_ragged.go): the rotary
// angles, the keys a row's queries see and the layout of its present follow onnxruntime's;
// the attention keeps the dense layout and static causal triangle, so that DIE still sees the
// masked half. Without a past, queries sit at positions s (onnxruntime's first prompt). The
// outputs of a right-padded first prompt's padding queries (s > seqlens_k[b]) are not
// reproduced: onnxruntime's softmax for them runs over score columns it never computed (its
// real tokens, keys and present match). A past/present buffer shared at the maximum length is
// not reproduced.

package onnx

import (
	"fmt"
	"math"

	"github.com/graphc/graphc/ir"
	"github.com/graphc/graphc/volume"
)

func init() {
	registerDomainOp(MsftDomain, "GroupQueryAttention", importGQA,
		"query/key/value [B, S, heads·D] (or packed QKV), num_heads a multiple of kv_num_heads, past_key/past_value [B, kv_num_heads, P, D] → "+
			"present [B, kv_num_heads, P + S, D]: each row's past_b = seqlens_k[b] + 1 - S keys, its S new ones, then zeros (a ragged batch; "+
			"concat(past, new) when dense); causal with a trilu mask aligned to the past, the keys beyond a row's past masked per row; "+
			"do_rotary with cos/sin caches at positions past_b + s, rotary_interleaved; scale, softcap, local_window_size, attention_bias. "+
			"A past/present buffer shared at the maximum length, smooth_softmax, head_sink, quantized caches and output_qk are not supported")
	registerDomainOp(MsftDomain, "MultiHeadAttention", importMHA,
		"query [B, S, N·D], key/value [B, L, N·D] or already split [B, N, L, D] (cross attention), bias of Q, K and V, "+
			"past_key/past_value → present = concat(past, new), key_padding_mask [B, T] (0 masks: adds mask_filter_value), attention_bias, "+
			"unidirectional as a trilu mask aligned to the past, scale; packed QKV, past_sequence_length and cache_indirection are not supported")
}

// sdpa is scaled dot-product attention on 4-D [B, H, S, D] heads: q by k and v with hkv
// heads (repeated for grouped queries), scale applied to Q, softcap (0: none), an additive
// bias (nil: none), the causal triangle aligned to the end of the past, and a local window
// (window < 0: none; query i sees keys j with past + i - window < j). maskedRows says that
// some row may be all -inf (its weights are then zero, not NaN). The result is [B, hq, S, Dv].
func (e *emitter) sdpa(q, k, v *ir.Value, sh attnShape, scale, softcap float64, bias *ir.Value, causal bool, window int64, maskedRows bool) *ir.Value {
	if e.err != nil {
		return nil
	}
	t := q.Type.Elem
	qs := e.Op("mul", "", nil, q, e.Scalar(t, scale))
	kt := e.Op("transpose", "", ir.Attrs{"perm": ir.IntsAttr(0, 1, 3, 2)}, e.repeatHeads(k, sh))
	scores := e.matmulAcc("", qs, kt)
	if softcap > 0 {
		sc := e.Scalar(t, softcap)
		scores = e.Op("mul", "", nil, e.Op("tanh", "", nil, e.Op("div", "", nil, scores, sc)), sc)
	}
	add := func(x *ir.Value) {
		if bias == nil {
			bias = x
		} else {
			bias = e.Op("add", "", nil, bias, x)
		}
	}
	if causal {
		add(e.causalMask(sh, t))
	}
	if window >= 0 {
		add(e.windowMask(sh, t, window))
	}
	if bias != nil {
		scores = e.Op("add", "", nil, scores, bias)
	}
	p := e.softmaxLast(scores)
	if maskedRows && bias != nil {
		last := ints([]int{bias.Type.Rank() - 1})
		rowMax := e.Op("reduce_max", "", ir.Attrs{"axes": last, "keepdims": ir.IntAttr(1)}, bias)
		empty := e.Op("equal", "", nil, rowMax, e.Scalar(t, math.Inf(-1)))
		p = e.Op("where", "", nil, empty, e.Scalar(t, 0), p)
	}
	return e.matmulAcc("", p, e.repeatHeads(v, sh))
}

// windowMask is -inf where key j lies at or before past + i - window (outside query i's local
// window), 0 elsewhere, [Sq, Skv]: a comparison of index ranges.
func (e *emitter) windowMask(sh attnShape, t ir.DType, window int64) *ir.Value {
	rows := e.Op("range", "", ir.Attrs{"elem": ir.StringAttr("i64"), "limit": ir.StringAttr(sh.sq.String())})
	cols := e.Op("range", "", ir.Attrs{"elem": ir.StringAttr("i64"), "limit": ir.StringAttr(sh.skv.String())})
	if e.err != nil {
		return nil
	}
	// frontier[i] = past + i - window: the past length as the difference of the two extents
	off := e.Op("sub", "", nil, e.Count(cols, []int{0}, ir.I64), e.Count(rows, []int{0}, ir.I64))
	front := e.Op("add", "", nil, rows, e.Op("sub", "", nil, off, e.Scalar(ir.I64, float64(window))))
	out := e.Op("less_equal", "", nil, e.reshape(cols, volume.AffConst(1), sh.skv), e.reshape(front, sh.sq, volume.AffConst(1)))
	return e.Op("where", "", nil, out, e.Scalar(t, math.Inf(-1)), e.Scalar(t, 0))
}

// mergeHeads turns [B, H, S, D] into [B, S, H·D] named name.
func (e *emitter) mergeHeads(y *ir.Value, name string) *ir.Value {
	y = e.Op("transpose", "", ir.Attrs{"perm": ir.IntsAttr(0, 2, 1, 3)}, y)
	if y == nil {
		return nil
	}
	s := y.Type.Shape
	return e.Op("reshape", name, ir.Attrs{"shape": ir.StringAttr(ir.ExtentsString([]volume.Aff{s[0], s[1], s[3].Mul(mustConst(s[2]))}))}, y)
}

func mustConst(a volume.Aff) int64 {
	v, _ := a.IsConst()
	return v
}

// defaultScale returns scale, or 1/sqrt(head size) computed in float32 when it is 0.
func defaultScale(scale float32, d volume.Aff) (float64, error) {
	if scale != 0 {
		return float64(scale), nil
	}
	v, ok := d.IsConst()
	if !ok || v <= 0 {
		return 0, fmt.Errorf("%w: the default scale needs a static head size, got %s", ErrUnsupported, d.String())
	}
	return float64(float32(1) / float32(math.Sqrt(float64(v)))), nil
}

// kvCache concatenates the past (inputs pi, pi+1 when given) before k and v along the sequence
// and binds the present outputs (1 and 2). It returns the full keys and values and the past
// length.
func (e *emitter) kvCache(c *nodeCtx, pi int, k, v *ir.Value) (*ir.Value, *ir.Value, volume.Aff, bool, error) {
	past, has := volume.AffConst(0), false
	if c.HasInput(pi) != c.HasInput(pi+1) {
		return nil, nil, past, false, fmt.Errorf("%w: past_key and past_value must be given together", ErrInvalid)
	}
	if c.HasInput(pi) {
		pk, pv := e.In(pi), e.In(pi+1)
		if e.err != nil {
			return nil, nil, past, false, e.err
		}
		if pk.Type.Rank() != 4 || pv.Type.Rank() != 4 || !pk.Type.Shape[2].Equal(pv.Type.Shape[2]) ||
			!pk.Type.Shape[1].Equal(k.Type.Shape[1]) || !pk.Type.Shape[3].Equal(k.Type.Shape[3]) ||
			!pv.Type.Shape[1].Equal(v.Type.Shape[1]) || !pv.Type.Shape[3].Equal(v.Type.Shape[3]) {
			return nil, nil, past, false, fmt.Errorf("%w: past_key %s and past_value %s must be [B, heads, P, D] matching the new keys %s and values %s",
				ErrInvalid, pk.Type, pv.Type, k.Type, v.Type)
		}
		if pk.Type.Elem != k.Type.Elem || pv.Type.Elem != v.Type.Elem {
			return nil, nil, past, false, fmt.Errorf("%w: a past cache of type %s (quantized caches)", ErrUnsupported, pk.Type.Elem)
		}
		past, has = pk.Type.Shape[2], true
		k = e.Op("concat", c.Output(1), ir.Attrs{"axis": ir.IntAttr(2)}, pk, k)
		v = e.Op("concat", c.Output(2), ir.Attrs{"axis": ir.IntAttr(2)}, pv, v)
	} else {
		if c.Output(1) != "" {
			k = e.Op("identity", c.Output(1), nil, k)
		}
		if c.Output(2) != "" {
			v = e.Op("identity", c.Output(2), nil, v)
		}
	}
	e.Out(1, k)
	e.Out(2, v)
	return k, v, past, has, e.err
}

func importGQA(c *nodeCtx) error {
	e := c.emitter()
	q := e.In(0)
	if e.err != nil {
		return e.err
	}
	hq, hkv := c.AttrInt("num_heads", 0), c.AttrInt("kv_num_heads", 0)
	if hq <= 0 || hkv <= 0 || hq%hkv != 0 {
		return fmt.Errorf("%w: num_heads = %d must be a positive multiple of kv_num_heads = %d", ErrInvalid, hq, hkv)
	}
	for _, u := range []struct {
		name string
		on   bool
	}{{"smooth_softmax", c.AttrInt("smooth_softmax", 0) != 0}, {"head_sink", c.HasInput(11)}, {"qk_output", c.AttrInt("qk_output", 0) != 0 || c.Output(3) != ""},
		{"a quantized cache (k_scale, v_scale)", c.HasInput(12) || c.HasInput(13)}, {"q_norm_weight/k_norm_weight", c.HasInput(14) || c.HasInput(15)},
		{"sliding_window_cache", c.AttrInt("sliding_window_cache", 0) != 0}} {
		if u.on {
			return fmt.Errorf("%w: %s", ErrUnsupported, u.name)
		}
	}
	t := q.Type.Elem
	if q.Type.Rank() != 3 || !t.IsFloat() {
		return fmt.Errorf("%w: query must be a 3-D float tensor, got %s", ErrInvalid, q.Type)
	}
	qhidden, ok := q.Type.Dim(2)
	if !ok {
		return fmt.Errorf("%w: symbolic hidden size in %s", ErrUnsupported, q.Type)
	}
	var k, v *ir.Value
	var d int64
	if !c.HasInput(1) {
		// packed QKV: [B, S, (hq + 2 hkv)·D]
		if qhidden%(hq+2*hkv) != 0 {
			return fmt.Errorf("%w: packed QKV hidden size %d is not a multiple of %d heads", ErrInvalid, qhidden, hq+2*hkv)
		}
		d = qhidden / (hq + 2*hkv)
		part := func(from, to int64) *ir.Value { return e.sliceLast(q, from*d, to*d, 1) }
		q, k, v = part(0, hq), part(hq, hq+hkv), part(hq+hkv, hq+2*hkv)
	} else {
		k, v = e.In(1), e.In(2)
		if e.err != nil {
			return e.err
		}
		if qhidden%hq != 0 || k.Type.Rank() != 3 || !k.Type.Equal(v.Type) || k.Type.Elem != t {
			return fmt.Errorf("%w: query %s, key %s and value %s must be [B, S, heads·D] of one type", ErrInvalid, q.Type, k.Type, v.Type)
		}
		d = qhidden / hq
	}
	if e.err != nil {
		return e.err
	}
	if kh, ok := k.Type.Dim(2); !ok || kh != hkv*d {
		return fmt.Errorf("%w: key hidden size %s, want kv_num_heads · head size = %d", ErrInvalid, k.Type.Shape[2].String(), hkv*d)
	}
	q4, k4, v4 := e.heads4D(q, hq, "query"), e.heads4D(k, hkv, "key"), e.heads4D(v, hkv, "value")
	if e.err != nil {
		return e.err
	}
	sh := attnShape{batch: q4.Type.Shape[0], sq: q4.Type.Shape[2], hq: hq, hkv: hkv, dqk: volume.AffConst(d), dv: volume.AffConst(d)}
	if !k4.Type.Shape[2].Equal(sh.sq) {
		return fmt.Errorf("%w: key length %s differs from the query's %s (GroupQueryAttention is self-attention)", ErrInvalid, k4.Type.Shape[2].String(), sh.sq.String())
	}
	// the past length, known before the cache is concatenated (rotary positions need it)
	if c.HasInput(3) {
		pk, err := c.Input(3)
		if err != nil {
			return err
		}
		if pk.Type.Rank() != 4 {
			return fmt.Errorf("%w: past_key must be 4-D [B, kv_num_heads, P, D], got %s", ErrInvalid, pk.Type)
		}
		sh.past, sh.hasPast = pk.Type.Shape[2], true
	} else {
		sh.past = volume.AffConst(0)
	}
	// with a past, seqlens_k tells each batch row's past length (a ragged batch)
	var rg *gqaRagged
	if sh.hasPast {
		var err error
		if rg, err = e.gqaRaggedPast(c, q4, sh); err != nil {
			return err
		}
	}
	if c.AttrInt("do_rotary", 0) != 0 {
		cosC, sinC := e.In(7), e.In(8)
		if e.err != nil {
			return e.err
		}
		if cosC.Type.Rank() != 2 || sinC.Type.Rank() != 2 || cosC.Type.Elem != t || sinC.Type.Elem != t {
			return fmt.Errorf("%w: cos_cache and sin_cache must be 2-D of the query's type, got %s and %s", ErrInvalid, cosC.Type, sinC.Type)
		}
		w, ok := cosC.Type.Dim(1)
		if !ok {
			return fmt.Errorf("%w: symbolic cache width %s", ErrUnsupported, cosC.Type)
		}
		var pos *ir.Value
		if c.HasInput(9) {
			ids, err := c.Input(9)
			if err != nil {
				return err
			}
			if pos, err = e.positions(ids, sh.batch, sh.sq); err != nil {
				return err
			}
		} else if rg != nil {
			// query s of batch row b sits at past_b + s
			s := e.Op("range", "", ir.Attrs{"elem": ir.StringAttr("i64"), "limit": ir.StringAttr(sh.sq.String())})
			pos = e.Op("add", "", nil, e.reshape(rg.pastB, sh.batch, volume.AffConst(1)), e.reshape(s, volume.AffConst(1), sh.sq))
		} else {
			// query s sits at P + s: range(P, P + S), an affine index (an exact gather)
			pos = e.reshape(e.Op("range", "", ir.Attrs{"elem": ir.StringAttr("i64"), "start": ir.StringAttr(sh.past.String()),
				"limit": ir.StringAttr(sh.past.Add(sh.sq).String())}), volume.AffConst(1), sh.sq)
		}
		cosB := e.Op("gather", "", ir.Attrs{"axis": ir.IntAttr(0)}, cosC, pos)
		sinB := e.Op("gather", "", ir.Attrs{"axis": ir.IntAttr(0)}, sinC, pos)
		inter := c.AttrInt("rotary_interleaved", 0) != 0
		var err error
		if q4, err = e.rotary(q4, cosB, sinB, 0, 2*w, inter, ""); err != nil {
			return err
		}
		if k4, err = e.rotary(k4, cosB, sinB, 0, 2*w, inter, ""); err != nil {
			return err
		}
	}
	var err error
	if rg != nil {
		k4, v4, err = e.gqaRaggedCache(c, k4, v4, rg)
	} else {
		k4, v4, _, _, err = e.kvCache(c, 3, k4, v4)
	}
	if err != nil {
		return err
	}
	sh.skv = k4.Type.Shape[2]
	scale, err := defaultScale(c.AttrFloat("scale", 0), sh.dqk)
	if err != nil {
		return err
	}
	var bias *ir.Value
	if c.HasInput(10) {
		bias = e.In(10)
		if e.err != nil {
			return e.err
		}
		if bias.Type.Rank() != 4 || bias.Type.Elem != t {
			return fmt.Errorf("%w: attention_bias must be 4-D of the query's type, got %s", ErrInvalid, bias.Type)
		}
	}
	causal := c.AttrInt("causal", 1) != 0
	window := c.AttrInt("local_window_size", -1)
	if window >= 0 && !causal {
		return fmt.Errorf("%w: local_window_size needs causal attention", ErrInvalid)
	}
	if rg != nil {
		// the past keys beyond each row's past length, and the row's own window over its past
		gap := e.gqaRaggedMask(rg, sh, t, window)
		if bias == nil {
			bias = gap
		} else {
			bias = e.Op("add", "", nil, bias, gap)
		}
		window = -1 // in the mask, per row
	}
	y := e.sdpa(q4, k4, v4, sh, scale, float64(c.AttrFloat("softcap", 0)), bias, causal, window, false)
	e.Out(0, e.mergeHeads(y, c.Output(0)))
	return e.Done()
}

func importMHA(c *nodeCtx) error {
	e := c.emitter()
	q := e.In(0)
	if e.err != nil {
		return e.err
	}
	n := c.AttrInt("num_heads", 0)
	t := q.Type.Elem
	if n <= 0 || q.Type.Rank() != 3 || !t.IsFloat() {
		return fmt.Errorf("%w: query must be a 3-D float tensor [B, S, heads·D] and num_heads positive, got %s and %d", ErrInvalid, q.Type, n)
	}
	if !c.HasInput(1) || !c.HasInput(2) {
		return fmt.Errorf("%w: packed QKV or KV in query or key", ErrUnsupported)
	}
	for i, what := range map[int]string{8: "past_sequence_length", 9: "cache_indirection"} {
		if c.HasInput(i) {
			return fmt.Errorf("%w: %s", ErrUnsupported, what)
		}
	}
	if c.Output(3) != "" {
		return fmt.Errorf("%w: the qk output", ErrUnsupported)
	}
	k, v := e.In(1), e.In(2)
	if e.err != nil {
		return e.err
	}
	if c.HasInput(3) {
		// bias [hidden_q + hidden_k + hidden_v], added before the heads are split
		b := e.In(3)
		qh, _ := q.Type.Dim(2)
		kh, _ := k.Type.Dim(k.Type.Rank() - 1)
		vh, _ := v.Type.Dim(v.Type.Rank() - 1)
		if k.Type.Rank() == 4 {
			return fmt.Errorf("%w: bias with already split keys", ErrUnsupported)
		}
		if e.err != nil {
			return e.err
		}
		if b.Type.Rank() != 1 || staticElems(b) != qh+kh+vh {
			return fmt.Errorf("%w: bias must hold %d elements, got %s", ErrInvalid, qh+kh+vh, b.Type)
		}
		q = e.Op("add", "", nil, q, e.sliceLast(b, 0, qh, 1))
		k = e.Op("add", "", nil, k, e.sliceLast(b, qh, qh+kh, 1))
		v = e.Op("add", "", nil, v, e.sliceLast(b, qh+kh, qh+kh+vh, 1))
	}
	q4 := e.heads4D(q, n, "query")
	k4, v4 := k, v
	if k.Type.Rank() == 3 {
		k4, v4 = e.heads4D(k, n, "key"), e.heads4D(v, n, "value")
	} else if k.Type.Rank() != 4 || v.Type.Rank() != 4 {
		return fmt.Errorf("%w: key %s and value %s must be 3-D or 4-D", ErrInvalid, k.Type, v.Type)
	}
	if e.err != nil {
		return e.err
	}
	sh := attnShape{batch: q4.Type.Shape[0], sq: q4.Type.Shape[2], hq: n, hkv: n, dqk: q4.Type.Shape[3], dv: v4.Type.Shape[3]}
	if !k4.Type.Shape[3].Equal(sh.dqk) || k4.Type.Shape[1].String() != fmt.Sprint(n) {
		return fmt.Errorf("%w: key %s does not have %d heads of the query's size %s", ErrInvalid, k4.Type, n, sh.dqk.String())
	}
	var err error
	if k.Type.Rank() == 4 {
		// already-split keys are the whole cross-attention cache: no past to join
		if c.HasInput(6) {
			return fmt.Errorf("%w: past_key with already split keys", ErrInvalid)
		}
		sh.past = volume.AffConst(0)
		k4, v4, _, _, err = e.kvCache(c, 6, k4, v4)
	} else {
		k4, v4, sh.past, sh.hasPast, err = e.kvCache(c, 6, k4, v4)
	}
	if err != nil {
		return err
	}
	sh.skv = k4.Type.Shape[2]
	scale, err := defaultScale(c.AttrFloat("scale", 0), sh.dqk)
	if err != nil {
		return err
	}
	filter := float64(c.AttrFloat("mask_filter_value", -10000))
	var bias *ir.Value
	addBias := func(x *ir.Value) {
		if bias == nil {
			bias = x
		} else {
			bias = e.Op("add", "", nil, bias, x)
		}
	}
	if c.HasInput(4) {
		m := e.In(4)
		if e.err != nil {
			return e.err
		}
		if m.Type.Rank() != 2 || m.Type.Elem.IsFloat() || !m.Type.Shape[1].Equal(sh.skv) {
			return fmt.Errorf("%w: key_padding_mask must be an integer [B, %s] (other forms are not supported), got %s", ErrUnsupported, sh.skv.String(), m.Type)
		}
		keep := e.Op("greater", "", nil, m, e.Scalar(m.Type.Elem, 0))
		addBias(e.reshape(e.Op("where", "", nil, keep, e.Scalar(t, 0), e.Scalar(t, filter)), sh.batch, volume.AffConst(1), volume.AffConst(1), sh.skv))
	}
	if c.HasInput(5) {
		ab := e.In(5)
		if e.err != nil {
			return e.err
		}
		if ab.Type.Rank() != 4 || ab.Type.Elem != t {
			return fmt.Errorf("%w: attention_bias must be 4-D of the query's type, got %s", ErrInvalid, ab.Type)
		}
		addBias(ab)
	}
	y := e.sdpa(q4, k4, v4, sh, scale, 0, bias, c.AttrInt("unidirectional", 0) != 0, -1, false)
	e.Out(0, e.mergeHeads(y, c.Output(0)))
	return e.Done()
}
