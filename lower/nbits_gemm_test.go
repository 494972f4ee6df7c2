// This file tests the GEMM form of matmul_nbits (nbits_gemm.go) against the evaluator on
// random weights, scales, zero points and inputs: 4- and 8-bit, with and without zero points,
// K not a multiple of the block (and of the GEMV form's chunk: GEMM only), K over several
// chunks with blocks shorter and longer than a chunk, N not a multiple of the tile width (the
// last panel narrower), rows in whole tiles and a remainder, and a symbolic row count run on
// both sides of the threshold at which the kernel switches to the GEMV form at run time.

package lower_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/graphc/graphc/internal/e2e"
	"github.com/graphc/graphc/ir"
	"github.com/graphc/graphc/lower"
)

// nbitsCase is one random matmul_nbits graph: A's shape (symbolic dims by name), K, N, bits,
// block and zero points, and the bindings of the symbolic dims it runs at.
type nbitsCase struct {
	name        string
	aShape      []string
	params      []string
	K, N        int64
	bits, block int64
	zp          bool
	runs        []map[string]int64
}

// graph writes the case as graph text with random packed weights (every byte, padding
// included), zero points and scales in [0.01, 0.06)·8/2^(bits-1), so that the weights lie in
// (-1, 1) as reassocTolerance assumes of the terms.
func (c nbitsCase) graph(r *rand.Rand) string {
	perByte := 8 / c.bits
	kb := (c.K + c.block - 1) / c.block
	blob := c.block / perByte
	zb := (kb + perByte - 1) / perByte
	ints := func(n int64) string {
		s := make([]string, n)
		for i := range s {
			s[i] = fmt.Sprint(r.IntN(256))
		}
		return strings.Join(s, ", ")
	}
	floats := func(n int64) string {
		s := make([]string, n)
		for i := range s {
			s[i] = fmt.Sprintf("%.6f", (0.01+0.05*r.Float64())*8/float64(int64(1)<<(c.bits-1)))
		}
		return strings.Join(s, ", ")
	}
	var sb strings.Builder
	ps := ""
	if len(c.params) > 0 {
		ps = "[" + strings.Join(c.params, ", ") + "]"
	}
	rows := strings.Join(c.aShape, ", ")
	fmt.Fprintf(&sb, "graph @%s%s(%%a: f32[%s, %d]) {\n", c.name, ps, rows, c.K)
	fmt.Fprintf(&sb, "  %%b = constant dense<[%s]> : u8[%d, %d, %d]\n", ints(c.N*kb*blob), c.N, kb, blob)
	fmt.Fprintf(&sb, "  %%s = constant dense<[%s]> : f32[%d, %d]\n", floats(c.N*kb), c.N, kb)
	args := "%a, %b, %s"
	if c.zp {
		fmt.Fprintf(&sb, "  %%z = constant dense<[%s]> : u8[%d, %d]\n", ints(c.N*zb), c.N, zb)
		args += ", %z"
	}
	fmt.Fprintf(&sb, "  %%y = matmul_nbits(%s) {bits = %d, block_size = %d} : f32[%s, %d]\n", args, c.bits, c.block, rows, c.N)
	sb.WriteString("  return %y\n}\n")
	return sb.String()
}

var nbitsGEMMCases = []nbitsCase{
	// K = 100: four blocks of 32, the last padded; GEMM only (not whole chunks of 32)
	{name: "b4_zp_k100", aShape: []string{"2", "13"}, K: 100, N: 37, bits: 4, block: 32, zp: true, runs: []map[string]int64{nil}},
	// 8-bit, K = 72 in blocks of 16 (the last half padding), no zero points
	{name: "b8_k72", aShape: []string{"20"}, K: 72, N: 19, bits: 8, block: 16, runs: []map[string]int64{nil}},
	// K = 600 > 512: three chunks of 256 (the last 88), blocks of 64 with zero points
	{name: "b4_zp_k600", aShape: []string{"10"}, K: 600, N: 20, bits: 4, block: 64, zp: true, runs: []map[string]int64{nil}},
	// blocks of 512, longer than a chunk: a block's scale spans two chunks
	{name: "b4_k700_block512", aShape: []string{"9"}, K: 700, N: 17, bits: 4, block: 512, runs: []map[string]int64{nil}},
	{name: "b8_zp_k520", aShape: []string{"12"}, K: 520, N: 9, bits: 8, block: 128, zp: true, runs: []map[string]int64{nil}},
	// a symbolic row count: below 10 rows (nbitsGEMMMinRows) the GEMV form runs, from 10 on
	// the GEMM form
	{name: "b4_sym", aShape: []string{"S"}, params: []string{"S"}, K: 64, N: 24, bits: 4, block: 16,
		runs: []map[string]int64{{"S": 3}, {"S": 9}, {"S": 10}, {"S": 11}, {"S": 64}}},
	{name: "b8_zp_sym", aShape: []string{"1", "S"}, params: []string{"S"}, K: 96, N: 16, bits: 8, block: 32, zp: true,
		runs: []map[string]int64{{"S": 2}, {"S": 9}, {"S": 13}}},
	{name: "b4_zp_sym_k128", aShape: []string{"1", "S"}, params: []string{"S"}, K: 128, N: 50, bits: 4, block: 32, zp: true,
		runs: []map[string]int64{{"S": 1}, {"S": 7}, {"S": 10}, {"S": 17}}},
}

func TestNBitsGEMMValues(t *testing.T) {
	r := rand.New(rand.NewPCG(34, 2))
	var names []string
	var cases []*e2e.Case
	var graphs []*ir.Graph
	for _, c := range nbitsGEMMCases {
		g, err := ir.Parse(c.graph(r))
		require.NoError(t, err, c.name)
		graphs = append(graphs, g)
		for _, p := range c.runs {
			names = append(names, fmt.Sprintf("%s%v", c.name, p))
			cases = append(cases, &e2e.Case{Graph: g, Inputs: inputsFor(r, g, p, false), Params: p})
		}
	}
	// every case takes the GEMM form (the symbolic ones with the GEMV form beside it)
	for i, g := range graphs {
		x86, err := lower.LoadTarget("x86-64")
		require.NoError(t, err)
		avx2, err := x86.ForCPU("x86-64-v3")
		require.NoError(t, err)
		mod, err := lower.Lower(context.Background(), g, lower.Config{Target: avx2})
		require.NoError(t, err)
		ll := mod.String()
		require.Contains(t, ll, "nbits.dqk.body", "%s: the panel's dequantization", nbitsGEMMCases[i].name)
		require.Contains(t, ll, "nbits.tk.body", "%s: the register tiles' reduction", nbitsGEMMCases[i].name)
		require.Equal(t, len(nbitsGEMMCases[i].params) > 0 && nbitsGEMMCases[i].K%32 == 0, strings.Contains(ll, "nbits.gemv.then"),
			"%s: the run-time choice of the GEMV form exactly for symbolic rows and whole chunks", nbitsGEMMCases[i].name)
	}
	// AVX2 (6×16 tiles) and the host's best; SSE2 (6×8); AVX-512 (8×48), built everywhere;
	// NEON (6×8 on 16-byte vectors) under qemu-aarch64 where installed
	for _, m := range []e2e.Machine{e2e.Native(), {Target: "x86-64", CPU: "x86-64-v3"}, e2e.Host(), {Target: "x86-64", CPU: "znver4"}, e2e.AArch64("generic")} {
		t.Run(m.String(), func(t *testing.T) { runCasesTol(t, m, names, cases, reassocTolerance) })
	}
}
