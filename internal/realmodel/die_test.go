package realmodel_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/graphc/graphc"
	"github.com/graphc/graphc/internal/realmodel"
	"github.com/graphc/graphc/ir"
	"github.com/graphc/graphc/passes"
)

// TestTinyModelsDIE checks what DIE removes from the committed PyTorch exports, as a user
// reads it in --report-dead: in every layer the masked halves of QK^T and of P·V (the latter
// skipped by known-values: its weights are known zeros), and in the last-token variants the LM
// head down to the last position and the last layer's queries too. The dynamic-axes exports
// are checked at two bindings of their symbolic batch and sequence length (the domains stay
// parametric). The tiny GPT has 2 heads of 16, the tiny LLaMA 4 of 8; both 2 layers, d = 32,
// vocabulary 96, T = 8 in the static exports.
func TestTinyModelsDIE(t *testing.T) {
	type model struct {
		name        string
		heads, hd   int64
		qk, pv, lmh string // node names
		lastQ       string // the last layer's query projection
		last        bool
	}
	models := []model{
		{"gpt2_tiny", 2, 16, "/h.%d/attn/MatMul", "/h.%d/attn/MatMul_1", "/lm_head/MatMul", "", false},
		{"gpt2_tiny_last", 2, 16, "/h.%d/attn/MatMul", "/h.%d/attn/MatMul_1", "/lm_head/MatMul", "", true},
		{"llama_tiny", 4, 8, "/layers.%d/attention/MatMul", "/layers.%d/attention/MatMul_1", "/output/MatMul", "/layers.1/attention/wq/MatMul", false},
		{"llama_tiny_last", 4, 8, "/layers.%d/attention/MatMul", "/layers.%d/attention/MatMul_1", "/output/MatMul", "/layers.1/attention/wq/MatMul", true},
	}
	for _, m := range models {
		for _, dyn := range []bool{false, true} {
			name := m.name
			if dyn {
				name += "_dyn"
			}
			t.Run(name, func(t *testing.T) {
				md, err := realmodel.Load(tinyDir, name)
				require.NoError(t, err)
				res, err := graphc.Compile(context.Background(), md.Path, graphc.WithoutLowering())
				require.NoError(t, err)
				g := res.Graph
				bindings := []map[string]int64{nil}
				if dyn {
					require.Equal(t, []string{"batch", "seq"}, g.Params)
					bindings = []map[string]int64{{"batch": 1, "seq": 8}, {"batch": 2, "seq": 5}}
				}
				for _, p := range bindings {
					B, T := int64(1), int64(8)
					if p != nil {
						B, T = p["batch"], p["seq"]
					}
					card := func(op *ir.Op) int64 {
						n, err := op.Domain.Card(p)
						require.NoError(t, err)
						return n
					}
					tri := T * (T + 1) / 2
					for l := 0; l < 2; l++ {
						lastLayer := m.last && l == 1
						qk := opNamed(t, g, sprintf(m.qk, l))
						pv := opNamed(t, g, sprintf(m.pv, l))
						rows := tri // query rows × key positions live
						if lastLayer {
							rows = T // the last query row sees every position
						}
						require.Equal(t, B*m.heads*rows*m.hd, card(qk), "QK^T of layer %d, %v", l, p)
						require.Equal(t, B*m.heads*rows*m.hd, card(pv), "P·V of layer %d, %v", l, p)
						kz := deadOf(res.Dead, pv.Result.Name).KnownZero()
						require.False(t, kz.PlainIsEmpty(), "P·V of layer %d: skipped iterations", l)
						n, err := kz.Card(p)
						require.NoError(t, err)
						// known-values runs first: it skips the masked weights of every row, DIE
						// then drops the other rows of the last layer as unused
						skipped := B * m.heads * (T * (T - 1) / 2) * m.hd
						require.Equal(t, skipped, n, "P·V of layer %d: known-identity iterations, %v", l, p)
					}
					lm := opNamed(t, g, m.lmh)
					const vocab, d = 96, 32
					positions := T
					if m.last {
						positions = 1
					}
					require.Equal(t, B*positions*vocab*d, card(lm), "LM head, %v", p)
					if m.lastQ != "" && m.last {
						require.Equal(t, B*1*d*d, card(opNamed(t, g, m.lastQ)), "last layer's queries, %v", p)
					}
				}
			})
		}
	}
}

func opNamed(t *testing.T, g *ir.Graph, name string) *ir.Op {
	t.Helper()
	for _, op := range g.Ops {
		if op.Name == name {
			return op
		}
	}
	t.Fatalf("no op from node %s", name)
	return nil
}

func deadOf(ds []passes.DeadSpace, result string) *passes.DeadSpace {
	for i := range ds {
		if ds[i].Op == result {
			return &ds[i]
		}
	}
	return &passes.DeadSpace{}
}

func sprintf(format string, l int) string { return fmt.Sprintf(format, l) }
