package onnx_test

// This file tests the unrolled recurrent layers against direct implementations of the ONNX
// equations: a bidirectional RNN (the reverse direction walks the sequence backwards and
// writes each step at its own time) and a GRU with linear_before_reset.

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/graphc/graphc/internal/onnxgen"
	"github.com/graphc/graphc/ir"
)

// matvec returns m·v for m [rows, cols] row-major, starting at row r0.
func matvec(m []float64, cols, r0, rows int, v []float64) []float64 {
	out := make([]float64, rows)
	for i := range out {
		for j := 0; j < cols; j++ {
			out[i] += m[(r0+i)*cols+j] * v[j]
		}
	}
	return out
}

func sigmoid(x float64) float64 { return 1 / (1 + math.Exp(-x)) }

func TestRNNBidirectional(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 7))
	const seq, batch, in, hid = 3, 2, 2, 3
	m := onnxgen.New("rnn", 14)
	m.Input("X", ir.F32, seq, batch, in)
	m.Input("W", ir.F32, 2, hid, in)
	m.Input("R", ir.F32, 2, hid, hid)
	m.Node("RNN", "rnn", []string{"X", "W", "R"}, []string{"Y", "Y_h"}, onnxgen.IntAttr("hidden_size", hid),
		onnxgen.StringAttr("direction", "bidirectional"))
	m.Output("Y", ir.F32, seq, 2, batch, hid)
	m.Output("Y_h", ir.F32, 2, batch, hid)
	x, w, rr := randF32(r, seq, batch, in), randF32(r, 2, hid, in), randF32(r, 2, hid, hid)
	out := runModel(t, m.Proto(), map[string]*ir.Tensor{"X": x, "W": w, "R": rr})
	for d := 0; d < 2; d++ {
		for b := 0; b < batch; b++ {
			h := make([]float64, hid)
			for s := 0; s < seq; s++ {
				ti := s
				if d == 1 {
					ti = seq - 1 - s
				}
				xt := x.F[(ti*batch+b)*in : (ti*batch+b+1)*in]
				a, c := matvec(w.F[d*hid*in:], in, 0, hid, xt), matvec(rr.F[d*hid*hid:], hid, 0, hid, h)
				for k := range h {
					h[k] = math.Tanh(a[k] + c[k])
				}
				require.InDeltaSlice(t, h, out[0].F[((ti*2+d)*batch+b)*hid:((ti*2+d)*batch+b+1)*hid], 1e-5, "Y[%d, %d, %d]", ti, d, b)
			}
			require.InDeltaSlice(t, h, out[1].F[(d*batch+b)*hid:(d*batch+b+1)*hid], 1e-5)
		}
	}
}

func TestGRULinearBeforeReset(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	const seq, batch, in, hid = 2, 1, 3, 2
	m := onnxgen.New("gru", 14)
	m.Input("X", ir.F32, seq, batch, in)
	m.Input("W", ir.F32, 1, 3*hid, in)
	m.Input("R", ir.F32, 1, 3*hid, hid)
	m.Input("B", ir.F32, 1, 6*hid)
	m.Node("GRU", "gru", []string{"X", "W", "R", "B"}, []string{"", "Y_h"}, onnxgen.IntAttr("hidden_size", hid),
		onnxgen.IntAttr("linear_before_reset", 1))
	m.Output("Y_h", ir.F32, 1, batch, hid)
	x, w, rr, bias := randF32(r, seq, batch, in), randF32(r, 1, 3*hid, in), randF32(r, 1, 3*hid, hid), randF32(r, 1, 6*hid)
	out := runModel(t, m.Proto(), map[string]*ir.Tensor{"X": x, "W": w, "R": rr, "B": bias})
	h := make([]float64, hid)
	wb, rb := bias.F[:3*hid], bias.F[3*hid:]
	for s := 0; s < seq; s++ {
		xt := x.F[s*in : (s+1)*in]
		gate := func(k int) ([]float64, []float64) { // x·W_k + Wb_k, h·R_k + Rb_k
			a, c := matvec(w.F, in, k*hid, hid, xt), matvec(rr.F, hid, k*hid, hid, h)
			for i := range a {
				a[i] += wb[k*hid+i]
				c[i] += rb[k*hid+i]
			}
			return a, c
		}
		za, zc := gate(0)
		ra, rc := gate(1)
		ha, hc := gate(2)
		next := make([]float64, hid)
		for i := range h {
			z, rg := sigmoid(za[i]+zc[i]), sigmoid(ra[i]+rc[i])
			cand := math.Tanh(ha[i] + rg*hc[i])
			next[i] = (1-z)*cand + z*h[i]
		}
		h = next
	}
	require.InDeltaSlice(t, h, out[0].F, 1e-5)
}
