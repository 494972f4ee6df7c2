package realmodel_test

// This file checks what DIE removes from the committed onnxruntime-genai-style decoders
// (testdata/realmodels/llama_nbits_tiny*: GroupQueryAttention with rotary, 4-bit MatMulNBits)
// when only the last token's logits are required, at two bindings of their symbolic sequence
// and past lengths: a prefill (S = 64, no past) and a second chunk (S = 5 after 7). The full
// decoder is told so with --require; llama_nbits_tiny_last says it itself, as onnxruntime-genai's
// builder writes a pruned LM head (prune_lm_head: Gather(axis=1, index -1) and Unsqueeze before
// the LM head), and reaches the same iteration counts with no flag.

import (
	"context"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/graphc/graphc"
	"github.com/graphc/graphc/internal/e2e"
	"github.com/graphc/graphc/internal/realmodel"
	"github.com/graphc/graphc/ir"
)

// nbitsTiny are the tiny decoder's sizes (models/export_msft.py LLAMA_SIZES["tiny"]).
const (
	nbHidden, nbHeads, nbKVHeads, nbHD, nbFFN, nbVocab = 128, 4, 2, 32, 256, 256
)

func TestNBitsDecoderLastTokenDIE(t *testing.T) {
	for _, tc := range []struct {
		model string
		opts  []graphc.Option
		// lastRow is the row of logits holding the last token's (S - 1 of the full logits)
		lastRow func(S int) int
	}{
		{"llama_nbits_tiny", []graphc.Option{graphc.WithRequire("logits[b, s, v] : s = S - 1")}, func(S int) int { return S - 1 }},
		{"llama_nbits_tiny_last", nil, func(int) int { return 0 }},
		// every MatMulNBits at accuracy_level 4 (matmul_nbits_q8), as the builder writes for CPU
		{"llama_nbits_tiny_acc4", []graphc.Option{graphc.WithRequire("logits[b, s, v] : s = S - 1")}, func(S int) int { return S - 1 }},
	} {
		t.Run(tc.model, func(t *testing.T) {
			md, err := realmodel.Load(tinyDir, tc.model)
			require.NoError(t, err)
			res, err := graphc.Compile(context.Background(), md.Path, append([]graphc.Option{graphc.WithoutLowering()}, tc.opts...)...)
			require.NoError(t, err)
			g := res.Graph
			require.ElementsMatch(t, []string{"S", "P"}, g.Params)
			full, err := graphc.Compile(context.Background(), md.Path, graphc.WithoutLowering(), graphc.WithPipeline(""))
			require.NoError(t, err)
			for _, p := range []map[string]int64{{"S": 64, "P": 0}, {"S": 5, "P": 7}} {
				checkLastTokenCards(t, res, p)
				// the MAC ratio: every contraction's iterations with DIE against without, and the
				// figure a last-token-only computation needs (counted by hand below)
				got, all := contractionMACs(t, g, p), contractionMACs(t, full.Graph, p)
				want := lastTokenMACs(p["S"], p["P"])
				require.Equal(t, want, got, "MACs with DIE, %v", p)
				t.Logf("%v: %d of %d MACs (%.3f)", p, got, all, float64(got)/float64(all))
			}
			// the required row still matches onnxruntime's, at both data sets (prefill and decode)
			for _, set := range md.Sets {
				params, err := realmodel.Params(g, set.Inputs)
				require.NoError(t, err)
				outs, _, err := evalRunner{g}.Run(context.Background(), set.Inputs, params, 1)
				require.NoError(t, err)
				got, want := outs[0].Decoded(), set.Outputs[0].Decoded()
				row := tc.lastRow(int(params["S"]))
				for v := 0; v < nbVocab; v++ {
					w := want.F[row*nbVocab+v]
					require.InDelta(t, w, got.F[row*nbVocab+v], 1e-4+1e-3*abs(w), "%s: logits[0, %d, %d]", set.Name, row, v)
				}
			}
			// and the graph DIE left computes the graph's outputs on random inputs (the whole
			// of the pruned model's logits and every present; the full model's last row)
			checkRandomDecode(t, g, full.Graph, tc.lastRow)
		})
	}
}

// checkLastTokenCards checks each op's iterations at the binding p of a decoder DIE restricted
// to the last token's logits.
func checkLastTokenCards(t *testing.T, res *graphc.Result, p map[string]int64) {
	g := res.Graph
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
		require.Equal(t, nbHeads*rows*nbHD, card(opResult(t, g, name+".attn_matmul")), "Q·Kᵀ of %s, %v", name, p)
		require.Equal(t, nbHeads*rows*nbHD, card(opResult(t, g, name+".attn_matmul_1")), "P·V of %s, %v", name, p)
		kz := deadOf(res.Dead, name+".attn_matmul_1").KnownZero()
		n, err := kz.Card(p)
		require.NoError(t, err)
		require.Equal(t, nbHeads*(S*(S-1)/2)*nbHD, n, "P·V of %s: the masked weights are known zeros, %v", name, p)
		// the keys and values of every token are kept (present.*), the queries of the last
		// layer for the last token only
		require.Equal(t, S*nbKVHeads*nbHD*nbHidden, card(nbitsOp(t, g, name+".k")), "%s keys, %v", name, p)
		qRows := S
		if last {
			qRows = 1
		}
		require.Equal(t, qRows*nbHeads*nbHD*nbHidden, card(nbitsOp(t, g, name+".q")), "%s queries, %v", name, p)
		require.Equal(t, qRows*nbHidden*nbHeads*nbHD, card(nbitsOp(t, g, name+".o")), "%s output projection, %v", name, p)
	}
	require.Equal(t, int64(nbVocab*nbHidden), card(opResult(t, g, "logits")), "the LM head computes one row, %v", p)
}

// lastTokenMACs is the multiply-adds of the tiny decoder's last-token logits at S new tokens
// after P past ones: every layer's keys and values for all S tokens (they are outputs), the
// queries, attention, output projection and MLP for all tokens in the first layer and for the
// last one in the second, causal attention over the unmasked keys only, the LM head once.
func lastTokenMACs(S, P int64) int64 {
	kv := 2 * S * nbHidden * nbKVHeads * nbHD
	layer := func(rows, keys int64) int64 {
		return rows*nbHidden*nbHeads*nbHD + // queries
			2*nbHeads*keys*nbHD + // Q·Kᵀ and P·V over the keys each query sees
			rows*nbHeads*nbHD*nbHidden + // output projection
			2*rows*nbHidden*nbFFN + rows*nbFFN*nbHidden // gate, up, down
	}
	first := kv + layer(S, S*P+S*(S+1)/2)
	second := kv + layer(1, P+S)
	return first + second + nbHidden*nbVocab
}

// contractionMACs sums the iterations of g's contractions at p: the ops named after the
// model's MatMulNBits nodes and its attention's matmuls (the default pipeline fuses some into
// generic ops, which keep their result names).
func contractionMACs(t *testing.T, g *ir.Graph, p map[string]int64) int64 {
	var n int64
	for _, op := range g.Ops {
		if name := op.Result.Name; name != "logits" && !strings.HasSuffix(name, "_matmul_nbits") && !strings.HasSuffix(name, "_matmul_nbits_q8") &&
			!strings.HasSuffix(name, ".attn_matmul") && !strings.HasSuffix(name, ".attn_matmul_1") {
			continue
		}
		c, err := op.Domain.Card(p)
		require.NoError(t, err, op.Result.Name)
		n += c
	}
	return n
}

// checkRandomDecode runs the graph DIE restricted (g) and the unoptimised one (full) in the
// evaluator on random inputs of a second chunk (S = 3 after P = 5: random token ids, past keys
// and values, seqlens_k = P + S - 1, total P + S) and compares every present output and the
// last token's logits.
func checkRandomDecode(t *testing.T, g, full *ir.Graph, lastRow func(int) int) {
	const S, P = 3, 5
	r := rand.New(rand.NewPCG(34, 1))
	params := map[string]int64{"S": S, "P": P}
	var ins []*ir.Tensor
	for _, in := range g.Inputs {
		shape, err := in.Type.EvalShape(params)
		require.NoError(t, err, in.Name)
		x := e2e.RandomTensor(r, in.Type.Elem, shape)
		switch in.Name {
		case "input_ids":
			for i := range x.I {
				x.I[i] = int64(r.IntN(nbVocab))
			}
		case "seqlens_k":
			x.I[0] = P + S - 1
		case "total_sequence_length":
			x.I[0] = P + S
		}
		ins = append(ins, x)
	}
	got, _, err := evalRunner{g}.Run(context.Background(), ins, params, 1)
	require.NoError(t, err)
	want, _, err := evalRunner{full}.Run(context.Background(), ins, params, 1)
	require.NoError(t, err)
	require.Len(t, got, len(want))
	for k := range want {
		gd, wd := got[k].Decoded(), want[k].Decoded()
		if k == 0 {
			row := lastRow(S)
			for v := 0; v < nbVocab; v++ {
				require.Equal(t, wd.F[row*nbVocab+v], gd.F[row*nbVocab+v], "logits[0, %d, %d]", row, v)
			}
			continue
		}
		require.Equal(t, wd.F, gd.F, "output %d (%s)", k, g.Outputs[k].Name)
	}
}

func opResult(t *testing.T, g *ir.Graph, name string) *ir.Op {
	t.Helper()
	for _, op := range g.Ops {
		if op.Result.Name == name {
			return op
		}
	}
	t.Fatalf("no op %s", name)
	return nil
}

// nbitsOp returns the contraction of the MatMulNBits node named node: matmul_nbits, or
// matmul_nbits_q8 at accuracy_level 4.
func nbitsOp(t *testing.T, g *ir.Graph, node string) *ir.Op {
	t.Helper()
	for _, op := range g.Ops {
		if op.Result.Name == node+"_matmul_nbits" || op.Result.Name == node+"_matmul_nbits_q8" {
			return op
		}
	}
	t.Fatalf("no matmul_nbits op of %s", node)
	return nil
}

func abs(x float64) float64 {
	if x < 0 {
		return -x
	}
	return x
}
