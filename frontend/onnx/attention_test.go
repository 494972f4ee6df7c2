package onnx_test

// This file tests the Attention importer against a direct implementation of the ONNX
// reference (loops over heads, queries and keys), with symbolic lengths, grouped-query heads and
// a past, and checks that known-values and DIE see through its causal mask.

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/graphc/graphc/frontend/onnx"
	"github.com/graphc/graphc/internal/onnxgen"
	"github.com/graphc/graphc/ir"
	"github.com/graphc/graphc/ir/eval"
	"github.com/graphc/graphc/passes"
)

// attnRef computes causal (or not) attention the way the ONNX reference does, on 4-D
// row-major tensors: q [B, Hq, S, D], k and v [B, Hkv, P+S, D] (past included), a causal
// frontier aligned to the end (query i sees keys j <= P + i).
func attnRef(q, k, v []float64, b, hq, hkv, s, total, d int, causal bool) []float64 {
	y := make([]float64, b*hq*s*d)
	past := total - s
	sf := math.Sqrt(1 / math.Sqrt(float64(d)))
	for bi := 0; bi < b; bi++ {
		for h := 0; h < hq; h++ {
			kh := h / (hq / hkv)
			for i := 0; i < s; i++ {
				w := make([]float64, total)
				mx := math.Inf(-1)
				for j := range w {
					if causal && j > past+i {
						w[j] = math.Inf(-1)
						continue
					}
					for x := 0; x < d; x++ {
						w[j] += q[((bi*hq+h)*s+i)*d+x] * sf * k[((bi*hkv+kh)*total+j)*d+x] * sf
					}
					mx = math.Max(mx, w[j])
				}
				sum := 0.0
				for j := range w {
					w[j] = math.Exp(w[j] - mx)
					sum += w[j]
				}
				for x := 0; x < d; x++ {
					acc := 0.0
					for j := range w {
						acc += w[j] / sum * v[((bi*hkv+kh)*total+j)*d+x]
					}
					y[((bi*hq+h)*s+i)*d+x] = acc
				}
			}
		}
	}
	return y
}

func randF32(r *rand.Rand, shape ...int64) *ir.Tensor {
	t := ir.NewTensor(ir.F32, shape)
	for i := range t.F {
		t.F[i] = ir.RoundFloat(ir.F32, r.Float64()*2-1)
	}
	return t
}

// causalGQAModel: causal grouped-query attention (4 query heads, 2 key/value heads) with a
// cache: past length P and new length S symbolic.
func causalGQAModel() *onnxgen.Model {
	m := onnxgen.New("attn", 23)
	m.Input("Q", ir.F32, 1, 4, "S", 8)
	m.Input("K", ir.F32, 1, 2, "S", 8)
	m.Input("V", ir.F32, 1, 2, "S", 8)
	m.Input("past_key", ir.F32, 1, 2, "P", 8)
	m.Input("past_value", ir.F32, 1, 2, "P", 8)
	m.Node("Attention", "attn", []string{"Q", "K", "V", "", "past_key", "past_value"}, []string{"Y", "present_key", "present_value"},
		onnxgen.IntAttr("is_causal", 1))
	m.Output("Y", ir.F32, 1, 4, "S", 8)
	m.Output("present_key", ir.F32, 1, 2, "T", 8)
	m.Output("present_value", ir.F32, 1, 2, "T", 8)
	return m
}

// TestAttentionSymbolicCache imports causal GQA attention with symbolic cache lengths once
// and runs it at two (past, new) lengths, prefill and decode, against attnRef, before and after
// the default pipeline: the causal mask of a symbolic past is a concat of zeros and a trilu,
// and known-values still removes the masked iterations of P·V.
func TestAttentionSymbolicCache(t *testing.T) {
	r := rand.New(rand.NewPCG(23, 1))
	g, err := onnx.Import(causalGQAModel().Proto(), "attn.onnx")
	require.NoError(t, err)
	require.ElementsMatch(t, []string{"S", "P"}, g.Params)
	ps, err := passes.ParsePipeline(passes.DefaultPipeline)
	require.NoError(t, err)
	opt, err := onnx.Import(causalGQAModel().Proto(), "attn.onnx")
	require.NoError(t, err)
	res, err := passes.Run(context.Background(), opt, ps, &passes.Options{VerifyEach: true})
	require.NoError(t, err)
	knownIdentity := false
	for _, d := range res.State.Dead {
		if d.Kind == "matmul" && d.HasKnownZero() {
			knownIdentity = true
		}
	}
	require.True(t, knownIdentity, "no matmul lost known-identity iterations:\n%s", opt)
	for _, c := range []struct{ p, s int64 }{{2, 3}, {5, 1}} {
		in := map[string]*ir.Tensor{
			"Q": randF32(r, 1, 4, c.s, 8), "K": randF32(r, 1, 2, c.s, 8), "V": randF32(r, 1, 2, c.s, 8),
			"past_key": randF32(r, 1, 2, c.p, 8), "past_value": randF32(r, 1, 2, c.p, 8),
		}
		for _, gr := range []*ir.Graph{g, opt} {
			out, err := eval.Run(gr, in)
			require.NoError(t, err)
			total := int(c.p + c.s)
			require.Equal(t, []int64{1, 2, int64(total), 8}, out[1].Shape)
			want := attnRef(in["Q"].F, out[1].F, out[2].F, 1, 4, 2, int(c.s), total, 8, true)
			require.InDeltaSlice(t, want, out[0].F, 1e-5, "P = %d, S = %d", c.p, c.s)
			require.Equal(t, in["past_key"].F[:c.p*8], out[1].F[:c.p*8], "present_key starts with the past")
		}
	}
}

// TestAttentionErrors: malformed Attention nodes fail with a message naming the node and the
// reason.
func TestAttentionErrors(t *testing.T) {
	for _, tc := range []struct {
		name  string
		q, kv []any
		attrs []onnxgen.Attr
		want  string
	}{
		{"rank", []any{1, 2, 3, 8}, []any{1, 6, 16}, nil, "must all be 3-D or all 4-D"},
		{"heads3d", []any{1, 3, 16}, []any{1, 6, 16}, nil, "3-D inputs need q_num_heads and kv_num_heads"},
		{"hidden", []any{1, 3, 16}, []any{1, 6, 16}, []onnxgen.Attr{onnxgen.IntAttr("q_num_heads", 3), onnxgen.IntAttr("kv_num_heads", 2)},
			"hidden size 16 is not a static multiple of 3 heads"},
		{"gqa", []any{1, 3, 4, 8}, []any{1, 2, 6, 8}, nil, "3 query heads are not a multiple of 2 key/value heads"},
		{"headsize", []any{1, 2, 4, 8}, []any{1, 2, 6, 4}, nil, "Q head size 8 and K head size 4 differ"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := onnxgen.New("attn", 23)
			m.Input("Q", ir.F32, tc.q...)
			m.Input("K", ir.F32, tc.kv...)
			m.Input("V", ir.F32, tc.kv...)
			m.Node("Attention", "attn", []string{"Q", "K", "V"}, []string{"Y"}, tc.attrs...)
			m.Output("Y", ir.F32)
			_, err := onnx.Import(m.Proto(), "attn.onnx")
			require.ErrorContains(t, err, `node "attn" (Attention, opset 23)`)
			require.ErrorContains(t, err, tc.want)
		})
	}
}

// TestAttentionPartlyConstantChain: with nonpad_kv_seqlen the causal frontier adds an index
// range (constant, folded at import) to the per-batch lengths (data). The folded range must
// become a constant its reader uses, not disappear from under it (the importer's fold once
// removed it and left the graph invalid).
func TestAttentionPartlyConstantChain(t *testing.T) {
	m := onnxgen.New("attn", 24)
	m.Input("Q", ir.F32, 2, 2, 3, 4)
	m.Input("K", ir.F32, 2, 2, 5, 4)
	m.Input("V", ir.F32, 2, 2, 5, 4)
	m.Input("n", ir.I64, 2)
	m.Node("Attention", "attn", []string{"Q", "K", "V", "", "", "", "n"}, []string{"Y"}, onnxgen.IntAttr("is_causal", 1))
	m.Output("Y", ir.F32, 2, 2, 3, 4)
	g, err := onnx.Import(m.Proto(), "attn.onnx")
	require.NoError(t, err)
	require.NoError(t, ir.Verify(g))
	r := rand.New(rand.NewPCG(24, 2))
	n := ir.NewTensor(ir.I64, []int64{2})
	n.I[0], n.I[1] = 5, 4 // batch 1: the last key is padding, query i sees keys j <= i + 1
	q, k, v := randF32(r, 2, 2, 3, 4), randF32(r, 2, 2, 5, 4), randF32(r, 2, 2, 5, 4)
	out, err := eval.Run(g, map[string]*ir.Tensor{"Q": q, "K": k, "V": v, "n": n})
	require.NoError(t, err)
	// batch 0 is causal attention aligned to the end (past 2); batch 1 the same over 4 keys
	want0 := attnRef(q.F[:24], k.F[:40], v.F[:40], 1, 2, 2, 3, 5, 4, true)
	require.InDeltaSlice(t, want0, out[0].F[:24], 1e-5)
	k1, v1 := make([]float64, 0, 32), make([]float64, 0, 32)
	for h := 0; h < 2; h++ {
		k1 = append(k1, k.F[40+h*20:40+h*20+16]...)
		v1 = append(v1, v.F[40+h*20:40+h*20+16]...)
	}
	want1 := attnRef(q.F[24:], k1, v1, 1, 2, 2, 3, 4, 4, true)
	require.InDeltaSlice(t, want1, out[0].F[24:], 1e-5)
}
