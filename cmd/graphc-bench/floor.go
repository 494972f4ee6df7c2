// This file measures the read-bandwidth floor that memory-bound kernels (a GEMV, a 4-bit
// MatMulNBits decode step) are compared with, in the same process as the kernel and interleaved
// with it call by call: the model is compiled with its weights in a file (--weights), and the
// driver maps that file once and passes it to the entry. The floor is a streaming read of the
// very bytes the kernel reads, at the same addresses of the same mapping (so the same pages,
// TLB and cache state): the packed weights alone (the floor: half a byte per weight at
// 4 bits) and every constant (the weights with their scales and zero points). The read sums
// 32-byte vectors with eight independent integer accumulators (no float assists on the raw
// bytes) and keeps the sum, so it cannot be elided; with T threads, each reads one T-th. Each
// call is timed on its own (wall and process CPU time), the three alternating in a rotated
// order, warm (the bytes stay in whatever cache they fit) and cold (a 96 MB read between calls
// evicts the last-level cache first, as a decode step's weights are: a model's layers do not
// fit in it). The row reports the minimum and the median of each, and the median over the
// calls of the kernel's time over the read that ran beside it.

package main

import (
	"context"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/graphc/graphc"
	"github.com/graphc/graphc/internal/e2e"
	"github.com/graphc/graphc/passes"
)

// floorCalls is the number of timed calls of each of the kernel and the two reads (-floor-calls).
var floorCalls = 60

// floorDriverC is the driver: argv: weights file, threads, calls, evict (0/1), the packed
// weights' offset and size in the file. It prints one line per call: the kernel's, the packed
// read's and the whole read's wall and process CPU ns.
const floorDriverC = `#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>
#include <time.h>
#include <fcntl.h>
#include <pthread.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include "model.h"

typedef long long v4i __attribute__((vector_size(32), aligned(32)));

/* the sum of the 32-byte vectors of [p, p+n) (n a multiple of 32, p 32-aligned), eight
   independent accumulators: bound by the read bandwidth */
__attribute__((noinline)) static v4i readsum(const char *p, long n) {
  v4i a0 = {0}, a1 = {0}, a2 = {0}, a3 = {0}, a4 = {0}, a5 = {0}, a6 = {0}, a7 = {0};
  long i = 0;
  for (; i + 256 <= n; i += 256) {
    const v4i *q = (const v4i *)(p + i);
    a0 += q[0]; a1 += q[1]; a2 += q[2]; a3 += q[3];
    a4 += q[4]; a5 += q[5]; a6 += q[6]; a7 += q[7];
  }
  for (; i + 32 <= n; i += 32) a0 += *(const v4i *)(p + i);
  return a0 + a1 + a2 + a3 + a4 + a5 + a6 + a7;
}

static int nthreads;
static const char *rbase;
static long rsize;
static pthread_barrier_t start, done;
static volatile long long sink[64];

/* thread t's share of the read: 32-byte aligned pieces */
static void part(int t) {
  long per = (rsize / 32 + nthreads - 1) / nthreads * 32;
  long lo = per * t, hi = lo + per < rsize ? lo + per : rsize;
  if (lo < hi) { v4i s = readsum(rbase + lo, hi - lo); sink[t] += s[0] + s[1] + s[2] + s[3]; }
}

static void *helper(void *arg) {
  int t = (int)(long)arg;
  for (;;) { pthread_barrier_wait(&start); part(t); pthread_barrier_wait(&done); }
  return NULL;
}

static void readall(const char *p, long n) {
  rbase = p; rsize = n;
  if (nthreads > 1) pthread_barrier_wait(&start);
  part(0);
  if (nthreads > 1) pthread_barrier_wait(&done);
}

static double now(clockid_t c) { struct timespec t; clock_gettime(c, &t); return t.tv_sec * 1e9 + t.tv_nsec; }

int main(int argc, char **argv) {
  if (argc != 7) { fprintf(stderr, "usage: %s WEIGHTS THREADS CALLS EVICT OFFSET BYTES\n", argv[0]); return 2; }
  nthreads = atoi(argv[2]); long calls = atol(argv[3]); int evict = atoi(argv[4]);
  long off = atol(argv[5]), bytes = atol(argv[6]);
  int fd = open(argv[1], O_RDONLY); struct stat st;
  if (fd < 0 || fstat(fd, &st) != 0) { perror(argv[1]); return 2; }
  const char *w = mmap(NULL, st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
  if (w == MAP_FAILED) { perror(argv[1]); return 2; }
  long all = (st.st_size - 128) / 32 * 32;
  if (nthreads < 1 || nthreads > 64 || off % 32 || bytes % 32 || off + bytes > st.st_size) { fprintf(stderr, "bad arguments\n"); return 2; }
  if (nthreads > 1) {
    pthread_barrier_init(&start, NULL, nthreads); pthread_barrier_init(&done, NULL, nthreads);
    for (int t = 1; t < nthreads; t++) { pthread_t th; pthread_create(&th, NULL, helper, (void *)(long)t); }
  }
  long evictBytes = 96L << 20;
  char *ev = aligned_alloc(64, evictBytes);
  for (long i = 0; i < evictBytes; i++) ev[i] = (char)i;
  float *in = aligned_alloc(128, (MAIN_GRAPH_IN0_ELEMENTS * 4 + 127) / 128 * 128);
  float *out = aligned_alloc(128, (MAIN_GRAPH_OUT0_ELEMENTS * 4 + 127) / 128 * 128);
  uint32_t x = 12345;
  for (long i = 0; i < MAIN_GRAPH_IN0_ELEMENTS; i++) { x = x * 1664525u + 1013904223u; in[i] = (float)(x >> 8) / 8388608.0f - 1.0f; }
  void *ws = aligned_alloc(128, (main_graph_workspace_size() + 128) / 128 * 128);
  int rc = main_graph(in, out, ws, w); /* warm-up */
  if (rc != 0) { fprintf(stderr, "entry returned %d\n", rc); return 10 + rc; }
  readall(w + off, bytes); readall(w + 128, all);
  for (long c = 0; c < calls; c++) {
    double t[3][2];
    for (int j = 0; j < 3; j++) {
      int which = (int)((j + c) % 3); /* rotated: no item always follows another */
      if (evict) { v4i s = readsum(ev, evictBytes); sink[63] += s[0]; }
      double w0 = now(CLOCK_MONOTONIC), c0 = now(CLOCK_PROCESS_CPUTIME_ID);
      if (which == 0) rc |= main_graph(in, out, ws, w);
      else if (which == 1) readall(w + off, bytes);
      else readall(w + 128, all);
      t[which][0] = now(CLOCK_MONOTONIC) - w0; t[which][1] = now(CLOCK_PROCESS_CPUTIME_ID) - c0;
    }
    printf("%.0f %.0f %.0f %.0f %.0f %.0f\n", t[0][0], t[0][1], t[1][0], t[1][1], t[2][0], t[2][1]);
  }
  if (rc != 0) { fprintf(stderr, "entry returned %d\n", rc); return 10 + rc; }
  return 0;
}
`

// floorStats are the figures of one floor run (ms).
type floorStats struct {
	kernel, packed, all    stat
	ratioPacked, ratioAll  float64 // the median over the calls of kernel / read (wall)
	cpuRatioP, cpuRatioAll float64 // the same of process CPU time
	minRatioP, minRatioAll float64 // the kernel's minimum over the read's minimum (wall)
}

// stat is the minimum and median of a series, wall and process CPU.
type stat struct{ min, med, cpuMed float64 }

// floorRun compiles the model at path with its weights in a file and times the kernel beside
// the reads of its packed weights (the largest constant) and of all its constants, warm and
// cold, at threads threads.
func floorRun(ctx context.Context, path, dir string, threads int) (string, error) {
	dir = filepath.Join(dir, "floor")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	wpath := filepath.Join(dir, "weights.bin")
	res, err := graphc.Compile(ctx, path, graphc.WithPipeline(passes.DefaultPipeline), graphc.WithCPU(benchCPU), graphc.WithWeightsFile(wpath))
	if err != nil {
		return "", err
	}
	w := res.Module.Entries[0].Weights
	if w == nil || len(w.Consts) == 0 || len(res.Graph.Inputs) != 1 || len(res.Graph.Outputs) != 1 || len(res.Module.Params) != 0 {
		return "", fmt.Errorf("floor: the model is not one input, one output and constant weights")
	}
	big := 0
	for i, c := range w.Consts {
		if c.Data.Len()*c.Data.Elem.Size() > w.Consts[big].Data.Len()*w.Consts[big].Data.Elem.Size() {
			big = i
		}
	}
	packed := int64(w.Consts[big].Data.Len()*w.Consts[big].Data.Elem.Size()) / 32 * 32
	files := map[string]string{"model.ll": res.LLVM, "model.h": res.Header, "driver.c": floorDriverC}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			return "", err
		}
	}
	clang, err := e2e.Clang()
	if err != nil {
		return "", err
	}
	exe := filepath.Join(dir, "floor.exe")
	args := []string{"-O3", "-w", "-march=" + benchCPU, "-o", exe, filepath.Join(dir, "driver.c"), filepath.Join(dir, "model.ll"), "-lpthread", "-lm"}
	if out, err := exec.CommandContext(ctx, clang, args...).CombinedOutput(); err != nil {
		return "", fmt.Errorf("building the floor driver: %w\n%s", err, out)
	}
	var sb strings.Builder
	fmt.Fprintf(&sb, "   floor, %d thread(s), load %s; read of the packed weights %.1f MB, of all %d constants %.1f MB\n",
		threads, loadAvg(), float64(packed)/1e6, len(w.Consts), float64(w.Size-128)/1e6)
	for _, evict := range []int{0, 1} {
		cmd := exec.CommandContext(ctx, exe, wpath, strconv.Itoa(threads), strconv.Itoa(floorCalls), strconv.Itoa(evict),
			strconv.FormatInt(w.Offsets[big], 10), strconv.FormatInt(packed, 10))
		cmd.Env = append(os.Environ(), "GRAPHC_NUM_THREADS="+strconv.Itoa(threads))
		out, err := cmd.Output()
		if err != nil {
			return "", fmt.Errorf("floor driver: %w", err)
		}
		s, err := parseFloor(string(out))
		if err != nil {
			return "", err
		}
		mode := "warm"
		if evict == 1 {
			mode = "cold"
		}
		fmt.Fprintf(&sb, "   %s: graphc min %.3f med %.3f (cpu %.3f) ms | packed read min %.3f med %.3f (cpu %.3f) | all read min %.3f med %.3f (cpu %.3f)\n",
			mode, s.kernel.min, s.kernel.med, s.kernel.cpuMed, s.packed.min, s.packed.med, s.packed.cpuMed, s.all.min, s.all.med, s.all.cpuMed)
		fmt.Fprintf(&sb, "   %s: graphc/packed %.2f (cpu %.2f, min/min %.2f), graphc/all %.2f (cpu %.2f, min/min %.2f); load %s\n",
			mode, s.ratioPacked, s.cpuRatioP, s.minRatioP, s.ratioAll, s.cpuRatioAll, s.minRatioAll, loadAvg())
	}
	return strings.TrimRight(sb.String(), "\n"), nil
}

// parseFloor reads the driver's lines into stats.
func parseFloor(out string) (floorStats, error) {
	var cols [6][]float64
	var rp, ra, cp, ca []float64
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		f := strings.Fields(line)
		if len(f) != 6 {
			return floorStats{}, fmt.Errorf("floor driver: bad line %q", line)
		}
		var v [6]float64
		for i := range f {
			x, err := strconv.ParseFloat(f[i], 64)
			if err != nil {
				return floorStats{}, fmt.Errorf("floor driver: %w", err)
			}
			v[i] = x / 1e6
			cols[i] = append(cols[i], v[i])
		}
		rp, ra = append(rp, v[0]/v[2]), append(ra, v[0]/v[4])
		cp, ca = append(cp, v[1]/v[3]), append(ca, v[1]/v[5])
	}
	st := func(w, c []float64) stat {
		return stat{min: minOf(w), med: median(w), cpuMed: median(c)}
	}
	s := floorStats{kernel: st(cols[0], cols[1]), packed: st(cols[2], cols[3]), all: st(cols[4], cols[5]),
		ratioPacked: median(rp), ratioAll: median(ra), cpuRatioP: median(cp), cpuRatioAll: median(ca)}
	s.minRatioP, s.minRatioAll = s.kernel.min/s.packed.min, s.kernel.min/s.all.min
	return s, nil
}

func minOf(ts []float64) float64 {
	m := math.Inf(1)
	for _, t := range ts {
		m = min(m, t)
	}
	return m
}

// loadAvg is the host's one-minute load average (/proc/loadavg), or "?".
func loadAvg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	f := strings.Fields(string(b))
	if len(f) == 0 {
		return "?"
	}
	return f[0]
}
