// This file tests the integer form of the nbits-gemv kernel (nbits_q8.go, matmul_nbits_q8:
// MatMulNBits at accuracy_level 4) against the evaluator on models imported from ONNX: one
// row, a group of four rows and a remainder, blocks of 16, 32 and 128, with and without zero
// points, a zero-padded tail block, and column counts that leave a remainder after the steps
// of four and two columns; as x86-64 code for the host, for x86-64-v3 (vpmaddubsw) and for
// baseline x86-64, AArch64 and hexagonv67 (the portable sums), each executed where the host
// (or qemu) can run it and otherwise compiled and verified; and split over threads, the same
// bits at 1-4 threads.

package lower_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/graphc/graphc"
	"github.com/graphc/graphc/internal/e2e"
	"github.com/graphc/graphc/internal/onnxgen"
	"github.com/graphc/graphc/lower"
)

func TestNBitsQ8KernelValues(t *testing.T) {
	names, cases := nbitsQ8Cases(t)
	machines := []e2e.Machine{e2e.Native(), {Target: "x86-64", CPU: "x86-64-v3"}, e2e.Host(), e2e.AArch64("cortex-a76"), e2e.HexagonHVX()}
	for _, m := range machines {
		// block sums scaled then accumulated in lanes: reassociated against the evaluator
		t.Run(m.String(), func(t *testing.T) { runCasesTol(t, m, names, cases, reassocTolerance) })
	}
}

// TestNBitsQ8Split: split over threads (its columns, the copy of A's rows done once before
// the region), the integer form gives the evaluator's values and the same bits at 1-4
// threads.
func TestNBitsQ8Split(t *testing.T) {
	if _, err := e2e.Clang(); err != nil {
		t.Skip(err)
	}
	names, cases := nbitsQ8Cases(t)
	m := e2e.Machine{Target: "x86-64", CPU: "x86-64-v3", Threads: lower.ThreadsPool, SplitAll: true}
	if e2e.SkipUncapped(t, m) {
		return
	}
	split := make([]bool, len(cases))
	for i := range split {
		split[i] = true
	}
	requireQuantizedSplit(t, m, names, cases, split)
	requireThreadBits(t, m, names, cases)
}

// nbitsQ8Cases are the accuracy_level 4 models of the tests, imported, with random inputs.
func nbitsQ8Cases(t *testing.T) (names []string, cases []*e2e.Case) {
	ctx := context.Background()
	r := rand.New(rand.NewPCG(34, 8))
	for _, c := range []onnxgen.NBits{
		{M: 1, K: 512, N: 22, Block: 32, ZeroPoints: true},
		{M: 1, K: 256, N: 9, Block: 32},
		{M: 5, K: 256, N: 13, Block: 128, ZeroPoints: true},
		{M: 6, K: 128, N: 7, Block: 16},
		{M: 2, K: 200, N: 10, Block: 32, ZeroPoints: true}, // 7 blocks, the last of 8 values
	} {
		c.AccuracyLevel = 4
		path := filepath.Join(t.TempDir(), "m.onnx")
		require.NoError(t, c.Model().Write(path))
		g, err := graphc.Load(ctx, path)
		require.NoError(t, err)
		names = append(names, fmt.Sprintf("%dx%dx%d_b%d_zp%v", c.M, c.K, c.N, c.Block, c.ZeroPoints))
		cases = append(cases, &e2e.Case{Graph: g, Inputs: inputsFor(r, g, nil, false)})
		// the kernel's integer form is chosen (and, for AVX2, vpmaddubsw emitted)
		tgt, err := lower.LoadTarget("x86-64")
		require.NoError(t, err)
		mod, err := lower.Lower(ctx, g, lower.Config{Target: tgt, CPU: "x86-64-v3"})
		require.NoError(t, err)
		require.True(t, strings.Contains(mod.String(), "@llvm.x86.avx2.pmadd.ub.sw"), "%s: vpmaddubsw for x86-64-v3", names[len(names)-1])
	}
	return names, cases
}

// TestNBitsAccuracyLevel0Unchanged: accuracy_levels 0 to 3 still import as the float product
// matmul_nbits, whose kernel has no int8 products.
func TestNBitsAccuracyLevel0Unchanged(t *testing.T) {
	ctx := context.Background()
	for _, level := range []int{0, 1, 2, 3} {
		path := filepath.Join(t.TempDir(), "m.onnx")
		require.NoError(t, onnxgen.NBits{M: 1, K: 256, N: 16, Block: 32, ZeroPoints: true, AccuracyLevel: level}.Model().Write(path))
		g, err := graphc.Load(ctx, path)
		require.NoError(t, err)
		kinds := map[string]bool{}
		for _, op := range g.Ops {
			kinds[op.Kind] = true
		}
		require.True(t, kinds["matmul_nbits"] && !kinds["matmul_nbits_q8"], "level %d: %v", level, kinds)
		tgt, err := lower.LoadTarget("x86-64")
		require.NoError(t, err)
		mod, err := lower.Lower(ctx, g, lower.Config{Target: tgt, CPU: "x86-64-v3"})
		require.NoError(t, err)
		require.False(t, strings.Contains(mod.String(), "pmadd.ub.sw"), "level %d: no int8 products", level)
	}
}
