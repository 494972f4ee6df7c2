package onnx_test

// This file tests the RotaryEmbedding importer against a direct implementation of the ONNX
// reference, and that DIE restricts it to the positions a consumer needs when the position ids
// are constants.

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/graphc/graphc/frontend/onnx"
	"github.com/graphc/graphc/internal/onnxgen"
	"github.com/graphc/graphc/ir"
	"github.com/graphc/graphc/ir/eval"
	"github.com/graphc/graphc/passes"
)

// rotaryRef rotates x [B, H, S, D] with the angles cos/sin [B, S, rd/2] of each position.
func rotaryRef(x, cos, sin []float64, b, h, s, d, rd int, interleaved bool) []float64 {
	y := append([]float64(nil), x...)
	half := rd / 2
	for bi := 0; bi < b; bi++ {
		for hi := 0; hi < h; hi++ {
			for si := 0; si < s; si++ {
				row := ((bi*h+hi)*s + si) * d
				for p := 0; p < half; p++ {
					i1, i2 := row+p, row+half+p
					if interleaved {
						i1, i2 = row+2*p, row+2*p+1
					}
					c, sn := cos[(bi*s+si)*half+p], sin[(bi*s+si)*half+p]
					y[i1] = c*x[i1] - sn*x[i2]
					y[i2] = sn*x[i1] + c*x[i2]
				}
			}
		}
	}
	return y
}

// TestRotaryEmbedding runs 4-D rotary embeddings (halves and interleaved, whole and partial
// rotary dims) with position ids against rotaryRef.
func TestRotaryEmbedding(t *testing.T) {
	r := rand.New(rand.NewPCG(23, 3))
	const b, h, s, d, maxPos = 2, 3, 4, 8, 10
	for _, interleaved := range []int64{0, 1} {
		for _, rd := range []int{8, 4} {
			t.Run(fmt.Sprintf("interleaved=%d,rd=%d", interleaved, rd), func(t *testing.T) {
				m := onnxgen.New("rope", 23)
				m.Input("X", ir.F32, b, h, s, d)
				m.Input("cos", ir.F32, maxPos, rd/2)
				m.Input("sin", ir.F32, maxPos, rd/2)
				m.Input("pos", ir.I64, b, s)
				m.Node("RotaryEmbedding", "rope", []string{"X", "cos", "sin", "pos"}, []string{"Y"},
					onnxgen.IntAttr("interleaved", interleaved), onnxgen.IntAttr("rotary_embedding_dim", int64(rd)))
				m.Output("Y", ir.F32, b, h, s, d)
				x, cos, sin := randF32(r, b, h, s, d), randF32(r, maxPos, int64(rd/2)), randF32(r, maxPos, int64(rd/2))
				pos := ir.NewTensor(ir.I64, []int64{b, s})
				cg, sg := make([]float64, 0, b*s*rd/2), make([]float64, 0, b*s*rd/2)
				for i := range pos.I {
					pos.I[i] = int64(r.IntN(maxPos))
					p := int(pos.I[i])
					cg = append(cg, cos.F[p*rd/2:(p+1)*rd/2]...)
					sg = append(sg, sin.F[p*rd/2:(p+1)*rd/2]...)
				}
				out := runModel(t, m.Proto(), map[string]*ir.Tensor{"X": x, "cos": cos, "sin": sin, "pos": pos})
				require.InDeltaSlice(t, rotaryRef(x.F, cg, sg, b, h, s, d, rd, interleaved != 0), out[0].F, 1e-6)
			})
		}
	}
}

// TestRotaryEmbeddingDIE: a 3-D rotary embedding with constant position ids (0..S-1) whose
// consumer keeps the last position only: DIE restricts the products of the rotation to that
// position, through the exact gather of the caches.
func TestRotaryEmbeddingDIE(t *testing.T) {
	const s = 6
	m := onnxgen.New("rope", 23)
	m.Input("X", ir.F32, 1, s, 16)
	m.Input("cos", ir.F32, 32, 4)
	m.Input("sin", ir.F32, 32, 4)
	pos := ir.NewTensor(ir.I64, []int64{1, s})
	for i := range pos.I {
		pos.I[i] = int64(i)
	}
	m.Init("pos", pos)
	m.Init("starts", i64(s-1))
	m.Init("ends", i64(s))
	m.Init("axes", i64(1))
	m.Node("RotaryEmbedding", "rope", []string{"X", "cos", "sin", "pos"}, []string{"R"}, onnxgen.IntAttr("num_heads", 2))
	m.Node("Slice", "last", []string{"R", "starts", "ends", "axes"}, []string{"Y"})
	m.Output("Y", ir.F32, 1, 1, 16)
	g, err := onnx.Import(m.Proto(), "rope.onnx")
	require.NoError(t, err)
	ref, err := onnx.Import(m.Proto(), "rope.onnx")
	require.NoError(t, err)
	ps, err := passes.ParsePipeline(passes.DefaultPipeline)
	require.NoError(t, err)
	res, err := passes.Run(context.Background(), g, ps, &passes.Options{VerifyEach: true})
	require.NoError(t, err)
	muls := 0
	for _, d := range res.State.Dead {
		if d.Kind == "mul" || d.Kind == "gather" {
			muls++
			require.True(t, d.Counted)
			require.Equal(t, d.Total*(s-1)/s, d.DeadCount, "%s (%s): only the last of %d positions is live", d.Op, d.Kind, s)
		}
	}
	require.Equal(t, 6, muls, "four products and two gathers:\n%s", g)
	r := rand.New(rand.NewPCG(23, 4))
	in := map[string]*ir.Tensor{"X": randF32(r, 1, s, 16), "cos": randF32(r, 32, 4), "sin": randF32(r, 32, 4)}
	got, err := eval.Run(g, in)
	require.NoError(t, err)
	want, err := eval.Run(ref, in)
	require.NoError(t, err)
	require.Equal(t, want[0].F, got[0].F)
}
