package realmodel_test

// This file checks what DIE removes from the committed onnxruntime-genai-style decoder
// (testdata/realmodels/llama_nbits_tiny: GroupQueryAttention with rotary, 4-bit MatMulNBits)
// when only the last token's logits are required, at two bindings of its symbolic sequence
// and past lengths: a prefill (S = 64, no past) and a second chunk (S = 5 after 7).

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/graphc/graphc"
	"github.com/graphc/graphc/internal/realmodel"
	"github.com/graphc/graphc/ir"
)

func TestNBitsDecoderLastTokenDIE(t *testing.T) {
	const (
		hidden, heads, kvHeads, hd, vocab = 128, 4, 2, 32, 256
	)
	md, err := realmodel.Load(tinyDir, "llama_nbits_tiny")
	require.NoError(t, err)
	res, err := graphc.Compile(context.Background(), md.Path, graphc.WithoutLowering(), graphc.WithRequire("logits[b, s, v] : s = S - 1"))
	require.NoError(t, err)
	g := res.Graph
	require.ElementsMatch(t, []string{"S", "P"}, g.Params)
	byResult := func(name string) *ir.Op {
		for _, op := range g.Ops {
			if op.Result.Name == name {
				return op
			}
		}
		t.Fatalf("no op %s", name)
		return nil
	}
	for _, p := range []map[string]int64{{"S": 64, "P": 0}, {"S": 5, "P": 7}} {
		S, P := p["S"], p["P"]
		card := func(op *ir.Op) int64 {
			n, err := op.Domain.Card(p)
			require.NoError(t, err)
			return n
		}
		for l, name := range []string{"l0", "l1"} {
			last := l == 1
			// query i sees keys j <= P + i: the masked triangle of Q·Kᵀ is dead
			rows := S*P + S*(S+1)/2
			if last {
				rows = P + S // the last query alone, over every key
			}
			require.Equal(t, heads*rows*hd, card(byResult(name+".attn_matmul")), "Q·Kᵀ of %s, %v", name, p)
			require.Equal(t, heads*rows*hd, card(byResult(name+".attn_matmul_1")), "P·V of %s, %v", name, p)
			kz := deadOf(res.Dead, name+".attn_matmul_1").KnownZero()
			n, err := kz.Card(p)
			require.NoError(t, err)
			require.Equal(t, heads*(S*(S-1)/2)*hd, n, "P·V of %s: the masked weights are known zeros, %v", name, p)
			// the keys and values of every token are kept (present.*), the queries of the last
			// layer for the last token only
			require.Equal(t, S*kvHeads*hd*hidden, card(byResult(name+".k_matmul_nbits")), "%s keys, %v", name, p)
			qRows := S
			if last {
				qRows = 1
			}
			require.Equal(t, qRows*heads*hd*hidden, card(byResult(name+".q_matmul_nbits")), "%s queries, %v", name, p)
			require.Equal(t, qRows*hidden*heads*hd, card(byResult(name+".o_matmul_nbits")), "%s output projection, %v", name, p)
		}
		require.Equal(t, int64(vocab*hidden), card(byResult("logits")), "the LM head computes one row, %v", p)
	}
	// the required row still matches onnxruntime's, at both data sets (prefill and decode)
	for _, set := range md.Sets {
		params, err := realmodel.Params(g, set.Inputs)
		require.NoError(t, err)
		outs, _, err := evalRunner{g}.Run(context.Background(), set.Inputs, params, 1)
		require.NoError(t, err)
		got, want := outs[0].Decoded(), set.Outputs[0].Decoded()
		S := int(params["S"])
		for v := 0; v < vocab; v++ {
			w := want.F[(S-1)*vocab+v]
			require.InDelta(t, w, got.F[(S-1)*vocab+v], 1e-4+1e-3*abs(w), "%s: logits[0, %d, %d]", set.Name, S-1, v)
		}
	}
}

func abs(x float64) float64 {
	if x < 0 {
		return -x
	}
	return x
}
