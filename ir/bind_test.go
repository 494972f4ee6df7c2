package ir_test

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/graphc/graphc/ir"
	"github.com/graphc/graphc/ir/eval"
)

// bindText uses the symbolic dims N and T in every place an attribute can hold them: a tensor
// type (fill), a shape (reshape), expressions (values), isl sets and maps (generic), and a
// restricted domain.
const bindText = `graph @bind[N, T](%x: f32[N, 4], %y: f32[T]) {
  %r = reshape(%x) {shape = "[2*N, 2]"} : f32[2*N, 2]
  %f = fill() {type = "f32[2*N, 2]", value = 1.5} : f32[2*N, 2]
  %s = add(%r, %f) : f32[2*N, 2]
  %v = values() {type = "i64[2]", values = ["N", "4*N + T"]} : i64[2]
  %g = generic(%y) {access = ["[T] -> { [i] -> [T - 1 - i] }"], body = "in0", domain = "[T] -> { [i] : 0 <= i < T }", out = "{ [i] -> [i] }", type = "f32[T]"} : f32[T]
  %e = exp(%s) : f32[2*N, 2]
    domain [N] -> { [i, j] : 0 <= i < N and 0 <= j < 2 }
  return %s, %v, %g, %e
}`

// TestBindParams: a bound dim leaves the parameters and the text, and the bound graph computes
// what the symbolic one computes for that value (a restricted domain stays restricted).
func TestBindParams(t *testing.T) {
	g, err := ir.Parse(bindText)
	require.NoError(t, err)
	b, err := ir.BindParams(g, map[string]int64{"N": 3})
	require.NoError(t, err)
	require.NoError(t, ir.Verify(b))
	require.Equal(t, []string{"T"}, b.Params)
	require.Equal(t, "f32[3, 4]", b.Inputs[0].Type.String())
	text := b.String()
	require.NotRegexp(t, `\bN\b`, text)
	again, err := ir.Parse(text)
	require.NoError(t, err, text)
	require.Equal(t, text, again.String(), "the bound graph round-trips")
	last := b.Ops[len(b.Ops)-1]
	require.True(t, last.IsRestricted(), "the restricted domain of %%e stays restricted")

	rng := rand.New(rand.NewPCG(1, 2))
	const tv = 5
	in := map[string]*ir.Tensor{"x": ir.NewTensor(ir.F32, []int64{3, 4}), "y": ir.NewTensor(ir.F32, []int64{tv})}
	for _, d := range in {
		for i := range d.F {
			d.F[i] = float64(float32(rng.NormFloat64()))
		}
	}
	want, err := eval.Run(g, in, eval.WithParams(map[string]int64{"N": 3, "T": tv}))
	require.NoError(t, err)
	got, err := eval.Run(b, in, eval.WithParams(map[string]int64{"T": tv}))
	require.NoError(t, err)
	require.Equal(t, want, got)
	require.Equal(t, []int64{3, 12 + tv}, got[1].I)

	same, err := ir.BindParams(g, nil)
	require.NoError(t, err)
	require.Same(t, g, same)
	require.Equal(t, []string{"N", "T"}, g.Params, "g itself is unchanged")
}

// TestBindParamsUnknown: a name the graph does not have is an ErrUnknownDim listing its dims.
func TestBindParamsUnknown(t *testing.T) {
	g, err := ir.Parse(bindText)
	require.NoError(t, err)
	_, err = ir.BindParams(g, map[string]int64{"N": 2, "Q": 1})
	require.ErrorIs(t, err, ir.ErrUnknownDim)
	require.ErrorContains(t, err, "--dim Q: the model has no such dim (its symbolic dims are N, T)")
}
