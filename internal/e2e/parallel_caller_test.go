package e2e_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	llvm "github.com/llir/llvm/ir"
	"github.com/llir/llvm/ir/value"
	"github.com/stretchr/testify/require"

	"github.com/graphc/graphc/internal/e2e"
	"github.com/graphc/graphc/ir"
	"github.com/graphc/graphc/lower"
)

// callerGraph has a convolution, pooling, a matmul, a softmax over rows and elementwise ops:
// kernels large enough to be split by the cost estimate.
const callerGraph = `graph @m(%x: f32[1, 16, 48, 48], %w: f32[32, 16, 3, 3], %a: f32[256, 200], %b: f32[200, 512]) {
  %y = conv(%x, %w) {pads = [1, 1, 1, 1]} : f32[1, 32, 48, 48]
  %r = relu(%y) : f32[1, 32, 48, 48]
  %p = max_pool(%r) {kernel = [3, 3], pads = [1, 1, 1, 1], strides = [1, 1]} : f32[1, 32, 48, 48]
  %c = matmul(%a, %b) : f32[256, 512]
  %m = reduce_max(%c) {axes = [1], keepdims = 1} : f32[256, 1]
  %s = sub(%c, %m) : f32[256, 512]
  %e = exp(%s) : f32[256, 512]
  %z = reduce_sum(%e) {axes = [1], keepdims = 1} : f32[256, 1]
  %q = div(%e, %z) : f32[256, 512]
  return %p, %q
}`

// callerDriver calls ENTRY_parallel with a pool of its own that counts its calls, checks the
// ranges it is handed and runs the chunks of each region last to first; then with no threads
// (NULL), then ENTRY on the default pool (GRAPHC_NUM_THREADS=3). It prints the calls, the
// threads of the process after each run and whether the outputs of the three runs have the
// same bits.
const callerDriver = `#define _GNU_SOURCE
#include <dirent.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "model.h"

static int calls, depth, bad;
static void count_pf(void *pool, graphc_task_fn fn, void *ctx, int64_t n, int64_t grain) {
  if (pool != (void *)&calls || grain < 1 || n < 1 || depth) bad = 1;
  calls++;
  depth++;
  int64_t last = (n - 1) / grain * grain;
  for (int64_t b = last; b >= 0; b -= grain) fn(ctx, b, b + grain < n ? b + grain : n);
  depth--;
}

static int threads(void) {
  int k = 0; DIR *d = opendir("/proc/self/task"); struct dirent *e;
  while ((e = readdir(d))) if (e->d_name[0] != '.') k++;
  closedir(d); return k;
}

static float *rnd(long n, unsigned s) {
  float *p = aligned_alloc(128, (n * 4 + 127) / 128 * 128);
  for (long i = 0; i < n; i++) { s = s * 1103515245u + 12345u; p[i] = (float)((s >> 8) & 0xffff) / 32768.0f - 1.0f; }
  return p;
}

/* concurrent callers of ENTRY share the default pool: a caller that finds it busy runs its
 * regions serially */
static float *X, *W, *A, *B, *P0, *Q0;
static void *concurrent(void *arg) {
  float *p = rnd(M_OUT0_ELEMENTS, 7), *q = rnd(M_OUT1_ELEMENTS, 7);
  void *ws = aligned_alloc(128, (m_workspace_size() + 127) / 128 * 128 + 128);
  long ok = 1;
  for (int r = 0; r < 4; r++) {
    ok &= m(X, W, A, B, p, q, ws) == 0;
    ok &= !memcmp(p, P0, M_OUT0_ELEMENTS * 4) && !memcmp(q, Q0, M_OUT1_ELEMENTS * 4);
  }
  return (void *)ok;
}

int main(void) {
  float *x = rnd(M_IN0_ELEMENTS, 1), *w = rnd(M_IN1_ELEMENTS, 2), *a = rnd(M_IN2_ELEMENTS, 3), *b = rnd(M_IN3_ELEMENTS, 4);
  float *p[3], *q[3];
  for (int k = 0; k < 3; k++) { p[k] = rnd(M_OUT0_ELEMENTS, 9); q[k] = rnd(M_OUT1_ELEMENTS, 9); }
  void *ws = aligned_alloc(128, (m_workspace_size() + 127) / 128 * 128 + 128);
  graphc_threading mine = { count_pf, &calls };
  int rc0 = m_parallel(x, w, a, b, p[0], q[0], ws, &mine);
  int t0 = threads();
  int c0 = calls;
  int rc1 = m_parallel(x, w, a, b, p[1], q[1], ws, NULL);
  int t1 = threads();
  setenv("GRAPHC_NUM_THREADS", "3", 1);
  int rc2 = m(x, w, a, b, p[2], q[2], ws);
  int t2 = threads();
  /* the pool, region after region */
  for (int r = 0; r < 50 && rc2 == 0; r++) {
    rc2 = m(x, w, a, b, p[2], q[2], ws);
    if (memcmp(p[0], p[2], M_OUT0_ELEMENTS * 4) || memcmp(q[0], q[2], M_OUT1_ELEMENTS * 4)) bad = 2;
  }
  int same = 1;
  for (int k = 1; k < 3; k++)
    same &= !memcmp(p[0], p[k], M_OUT0_ELEMENTS * 4) && !memcmp(q[0], q[k], M_OUT1_ELEMENTS * 4);
  X = x; W = w; A = a; B = b; P0 = p[0]; Q0 = q[0];
  pthread_t th[3];
  for (int k = 0; k < 3; k++) pthread_create(&th[k], 0, concurrent, 0);
  for (int k = 0; k < 3; k++) { void *ok; pthread_join(th[k], &ok); same &= ok != 0; }
  printf("%d %d %d %d %d %d %d %d %d %d\n", rc0, rc1, rc2, c0, calls - c0, bad, same, t0, t1, t2);
  return 0;
}
`

// TestCallerThreading is issue 33's caller test: a C program passes ENTRY_parallel a pool of
// its own, which must see every parallel region of the call (the parallel-for calls of each
// split kernel that ENTRY_parallel calls, counted in the module: a convolution's tiles and its
// border nest are two) and no thread must start; NULL runs serially in the
// calling thread; ENTRY runs on the default pool of GRAPHC_NUM_THREADS threads (51 calls),
// then from
// three threads at once (sharing the pool). The outputs of every run must have the same bits.
func TestCallerThreading(t *testing.T) {
	clang, err := e2e.Clang()
	if err != nil {
		t.Skip(err)
	}
	g, err := ir.Parse(callerGraph)
	require.NoError(t, err)
	tgt, err := lower.LoadTarget("x86-64")
	require.NoError(t, err)
	mod, err := lower.Lower(context.Background(), g, lower.Config{Target: tgt, Entry: "m", Threads: lower.ThreadsPool})
	require.NoError(t, err)
	// the regions: the parallel-for calls (through a function pointer) in the split kernels
	// that m_parallel calls with its threads, once per call
	pfCalls := func(f *llvm.Func) int {
		k := 0
		for _, blk := range f.Blocks {
			for _, inst := range blk.Insts {
				if c, ok := inst.(*llvm.InstCall); ok {
					if _, direct := c.Callee.(*llvm.Func); !direct {
						k++
					}
				}
			}
		}
		return k
	}
	regions, split := 0, 0
	for _, f := range mod.LLVM.Funcs {
		if f.Name() != "m_parallel" {
			continue
		}
		th := f.Params[len(f.Params)-1]
		for _, blk := range f.Blocks {
			for _, inst := range blk.Insts {
				if c, ok := inst.(*llvm.InstCall); ok && slices.Contains(c.Args, value.Value(th)) {
					k, ok := c.Callee.(*llvm.Func)
					require.True(t, ok, "m_parallel calls %s with its threads", c.Callee.Ident())
					require.True(t, strings.HasSuffix(k.Name(), ".par"), "m_parallel calls %s with its threads", k.Name())
					regions += pfCalls(k)
					split++
				}
			}
		}
	}
	require.GreaterOrEqual(t, split, 4, "split kernels (conv, relu, pool, matmul, softmax)")
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "model.ll"), []byte(mod.String()), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "model.h"), []byte(mod.Header), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "caller.c"), []byte(callerDriver), 0o644))
	exe := filepath.Join(dir, "caller")
	// no -lpthread: glibc (2.34 and later) has the threads in libc
	out, err := exec.Command(clang, "-O2", "-w", "-o", exe, filepath.Join(dir, "model.ll"), filepath.Join(dir, "caller.c"), "-lm").CombinedOutput()
	require.NoError(t, err, "%s", out)
	cmd := exec.Command(exe)
	cmd.Env = append(os.Environ(), "GRAPHC_NUM_THREADS=")
	out, err = cmd.CombinedOutput()
	require.NoError(t, err, "%s", out)
	var v []int
	for _, f := range strings.Fields(string(out)) {
		n, err := strconv.Atoi(f)
		require.NoError(t, err, "%s", out)
		v = append(v, n)
	}
	require.Len(t, v, 10, "%s", out)
	require.Equal(t, []int{0, 0, 0}, v[:3], "statuses")
	require.Equal(t, regions, v[3], "the caller's pool sees every region")
	require.Equal(t, 0, v[4], "NULL threads: no region")
	require.Equal(t, 0, v[5], "ranges, grain and nesting as the ABI says")
	require.Equal(t, 1, v[6], "same bits with the caller's pool, serially and on the default pool")
	require.Equal(t, []int{1, 1, 3}, v[7:], "threads of the process: none started until ENTRY, then 3")
}
