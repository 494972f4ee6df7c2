package mca

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/graphc/graphc/lower"
)

// mcaBound is the target: the hot loops within 1.3× of the model's peak.
const mcaBound = 1.3

// TestKernelsNearPeak: on cortex-a76 (dotprod: sdot) and cortex-x2 (i8mm: sudot), llvm-mca
// predicts each standard kernel's hot loop within mcaBound of the peak throughput of its
// arithmetic; the regression check of the AArch64 kernels' speed.
func TestKernelsNearPeak(t *testing.T) {
	if _, err := lower.FindTool("GRAPHC_CLANG", "clang"); err != nil {
		t.Skip(err)
	}
	for _, cpu := range []string{"cortex-a76", "cortex-x2"} {
		for _, k := range Kernels() {
			rep, err := Measure(context.Background(), k, cpu)
			if errors.Is(err, ErrNoMCA) {
				t.Skip(err)
			}
			require.NoError(t, err)
			t.Logf("%s %s", k.Name, rep)
			require.LessOrEqual(t, rep.Ratio(), mcaBound, "%s on %s: %s", k.Name, cpu, rep)
		}
	}
}

// TestParse reads llvm-mca's summary and instruction table.
func TestParse(t *testing.T) {
	out := `Iterations:        100
Instructions:      3000
Total Cycles:      1250
Total uOps:        3000

Instruction Info:
[1]    [2]    [3]    [4]    [5]    [6]    Instructions:
 1      4     0.50                        fmla	v1.4s, v10.4s, v11.4s
 1      4     0.50                        fmla	v2.4s, v9.4s, v11.s[0]
 1      1     0.50    *                   ld1r	{ v11.4s }, [x23], #4
`
	r, err := parse(out, "cortex-a76", fmlaRe)
	require.NoError(t, err)
	require.Equal(t, 12.5, r.Cycles)
	require.Equal(t, 1.0, r.Peak)
	require.Equal(t, 2, r.Count)
	require.Equal(t, 30, r.Instructions)
	_, err = parse("garbage", "x", fmlaRe)
	require.Error(t, err)
}

// TestHotLoop picks the innermost loop with the most accumulators: the full tile, not a
// border tile unrolled to as many instructions, nor an outer loop.
func TestHotLoop(t *testing.T) {
	asm := `.LBB0_1:                                // =>This Loop Header: Depth=1
	fmla	v0.4s, v1.4s, v2.s[0]
.LBB0_2:                                // =>  This Inner Loop Header: Depth=2
	fmla	v0.4s, v16.4s, v17.s[0]
	fmla	v0.4s, v16.4s, v17.s[1]
	fmla	v1.4s, v16.4s, v17.s[2]
	subs	x21, x21, #1
	b.ne	.LBB0_2
// %bb.3:
	b.ne	.LBB0_1
.LBB0_4:                                // %d2.body.28
                                        //   Parent Loop BB0_1 Depth=1
                                        //     Parent Loop BB0_9 Depth=2
                                        //       Parent Loop BB0_10 Depth=3
                                        //         Parent Loop BB0_11 Depth=4
                                        // =>        This Inner Loop Header: Depth=5
	fmla	v3.4s, v16.4s, v17.s[0]
	fmla	v4.4s, v16.4s, v17.s[0]
	fmla	v5.4s, v16.4s, v17.s[0]
	b.ne	.LBB0_4
`
	lp, ok := HotLoop(asm, fmlaRe)
	require.True(t, ok)
	require.Equal(t, ".LBB0_4", lp.Label)
	require.Equal(t, 3, lp.Count)
	require.Equal(t, 3, lp.Accs)
	_, ok = HotLoop("\tadd x0, x0, #1\n", fmlaRe)
	require.False(t, ok)
}
