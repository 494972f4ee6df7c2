// This file tests ABI promises with a C caller: inputs are never written, calls are deterministic
// (the same output bits every time) and re-entrant (two threads calling at once with distinct
// workspaces), the status of invalid symbolic dims is 1 and ENTRY_workspace_size returns -1.

package lower_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/graphc/graphc/internal/e2e"
	"github.com/graphc/graphc/ir"
	"github.com/graphc/graphc/lower"
)

const abiDriver = `#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "model.h"

enum { N = 57 };
static float x[N * 16], w[16 * 24], x0[N * 16], w0[16 * 24];

typedef struct { float out[N * 24]; void *ws; int rc; } job;

static void *run(void *p) {
  job *j = p;
  for (int r = 0; r < 50 && j->rc == 0; r++) j->rc = main_graph(x, w, j->out, N, j->ws);
  return 0;
}

int main(void) {
  for (int i = 0; i < N * 16; i++) x[i] = (float)((i * 37) % 23) / 7.0f - 1.5f;
  for (int i = 0; i < 16 * 24; i++) w[i] = (float)((i * 11) % 17) / 5.0f - 1.0f;
  memcpy(x0, x, sizeof x); memcpy(w0, w, sizeof w);
  long long ws = main_graph_workspace_size(N);
  if (ws <= 0) { printf("workspace %lld\n", ws); return 1; }
  job a = {0}, b = {0};
  a.ws = aligned_alloc(128, (ws + 127) / 128 * 128);
  b.ws = aligned_alloc(128, (ws + 127) / 128 * 128);
  pthread_t ta, tb;
  pthread_create(&ta, 0, run, &a); pthread_create(&tb, 0, run, &b);
  pthread_join(ta, 0); pthread_join(tb, 0);
  if (a.rc || b.rc) { printf("status %d %d\n", a.rc, b.rc); return 1; }
  if (memcmp(a.out, b.out, sizeof a.out)) { printf("outputs differ\n"); return 1; }
  if (memcmp(x, x0, sizeof x) || memcmp(w, w0, sizeof w)) { printf("an input was written\n"); return 1; }
  if (main_graph(x, w, a.out, -3, a.ws) != 1) { printf("negative dim accepted\n"); return 1; }
  if (main_graph_workspace_size(-3) != -1) { printf("workspace of a negative dim\n"); return 1; }
  printf("ok %lld\n", ws);
  return 0;
}
`

func TestABIReentrantDeterministic(t *testing.T) {
	clang, err := e2e.Clang()
	if err != nil {
		t.Skip(err)
	}
	// x: f32[N, 16] · w: f32[16, 24] → tanh → neg: intermediates live in the workspace
	g := ir.NewGraph("abi")
	x := g.AddInput("x", mustShape(t, "N", "16"))
	w := g.AddInput("w", ir.StaticType(ir.F32, 16, 24))
	v := x
	for _, kind := range []string{"matmul", "tanh", "neg"} {
		ins := []*ir.Value{v}
		if kind == "matmul" {
			ins = append(ins, w)
		}
		op, err := g.NewOp(kind, kind, ins, nil)
		require.NoError(t, err)
		v = op.Result
	}
	g.Outputs = []*ir.Value{v}
	mod, err := lower.Lower(context.Background(), g, lower.Config{})
	require.NoError(t, err)
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "model.ll"), []byte(mod.String()), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "model.h"), []byte(mod.Header), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "main.c"), []byte(abiDriver), 0o644))
	exe := filepath.Join(dir, "abi")
	out, err := exec.Command(clang, "-O2", "-w", "-pthread", "-o", exe, filepath.Join(dir, "main.c"), filepath.Join(dir, "model.ll")).CombinedOutput()
	require.NoError(t, err, string(out))
	out, err = exec.Command(exe).CombinedOutput()
	require.NoError(t, err, string(out))
	require.True(t, strings.HasPrefix(string(out), "ok "), string(out))
}

func mustShape(t *testing.T, dims ...string) ir.TensorType {
	tt, err := ir.ParseType("f32[" + strings.Join(dims, ", ") + "]")
	require.NoError(t, err)
	return tt
}

// TestHeaderMacros compiles a C program against the header of a graph with symbolic dims and
// a requirement (testdata/lowering/header_names.graph, whose CHECK lines state the argument
// names and the requirement): the shape macros give the ranks, extents and element counts the
// ABI uses, as functions of the symbolic dims.
func TestHeaderMacros(t *testing.T) {
	clang, err := e2e.Clang()
	if err != nil {
		t.Skip(err)
	}
	_, gs := fileGraphs(t, "header_names.graph")
	g := gs[0]
	tgt, err := lower.LoadTarget("x86-64")
	require.NoError(t, err)
	m, err := lower.Lower(context.Background(), g, lower.Config{Target: tgt, Entry: "model"})
	require.NoError(t, err)
	h := m.Header
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "model.h"), []byte(h), 0o644))
	src := `#include <stdio.h>
#include "model.h"
int main(void) {
  printf("%d %lld %lld %lld %lld\n", MODEL_IN0_RANK, (long long)MODEL_IN0_DIM0(2), (long long)MODEL_IN0_ELEMENTS(5, 2),
         (long long)MODEL_IN1_DIM1, (long long)MODEL_OUT0_ELEMENTS(5));
  return 0;
}`
	require.NoError(t, os.WriteFile(filepath.Join(dir, "main.c"), []byte(src), 0o644))
	exe := filepath.Join(dir, "main")
	out, err := exec.Command(clang, "-Wall", "-Werror", "-o", exe, filepath.Join(dir, "main.c")).CombinedOutput()
	require.NoError(t, err, "%s", out)
	out, err = exec.Command(exe).CombinedOutput()
	require.NoError(t, err, "%s", out)
	require.Equal(t, "2 2 10 3 15", strings.TrimSpace(string(out)))
	// names a C program cannot take are refused
	_, err = lower.Lower(context.Background(), g, lower.Config{Target: tgt, Entry: "main"})
	require.ErrorContains(t, err, `invalid entry name "main"`)
}
