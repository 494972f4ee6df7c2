// This file measures the read-bandwidth floor that memory-bound kernels are compared with: a
// C loop (clang -O3 -march=native) that sums a buffer of the same size as the weights of a
// GEMV with eight independent vector accumulators, timed like the compiled models (the median
// of samples, each the mean of enough calls to last the minimum time).

package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/graphc/graphc/internal/e2e"
)

const readFloorC = `#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

typedef float v8 __attribute__((vector_size(32), aligned(4)));

/* sums n floats with eight independent 8-lane accumulators (256 bytes per iteration): bound
   by the read bandwidth */
__attribute__((noinline)) static float readall(const float *restrict p, long n) {
  v8 a0 = {0}, a1 = {0}, a2 = {0}, a3 = {0}, a4 = {0}, a5 = {0}, a6 = {0}, a7 = {0};
  for (long i = 0; i + 64 <= n; i += 64) {
    const v8 *q = (const v8 *)(p + i);
    a0 += q[0]; a1 += q[1]; a2 += q[2]; a3 += q[3];
    a4 += q[4]; a5 += q[5]; a6 += q[6]; a7 += q[7];
  }
  v8 a = a0 + a1 + a2 + a3 + a4 + a5 + a6 + a7;
  float s = 0;
  for (int k = 0; k < 8; k++) s += a[k];
  return s;
}

int main(int argc, char **argv) {
  long bytes = atol(argv[1]), reps = atol(argv[2]);
  long n = bytes / 4;
  float *p = aligned_alloc(128, (bytes + 127) / 128 * 128);
  for (long i = 0; i < n; i++) p[i] = (float)(i % 7);
  volatile float sink = readall(p, n);
  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  for (long r = 0; r < reps; r++) {
    __asm__ volatile("" : "+r"(p)); /* a new buffer for the optimizer: the read is not hoisted */
    sink += readall(p, n);
  }
  clock_gettime(CLOCK_MONOTONIC, &t1);
  printf("%.1f\n", ((t1.tv_sec - t0.tv_sec) * 1e9 + (t1.tv_nsec - t0.tv_nsec)) / reps);
  return 0;
}
`

// readFloor returns the time in ms of reading bytes once (the median over samples).
func readFloor(ctx context.Context, cache string, bytes int64, minTime time.Duration, samples int) (float64, error) {
	dir := filepath.Join(cache, "read_floor")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return 0, err
	}
	src := filepath.Join(dir, "read.c")
	exe := filepath.Join(dir, "read.exe")
	if err := os.WriteFile(src, []byte(readFloorC), 0o644); err != nil {
		return 0, err
	}
	clang, err := e2e.Clang()
	if err != nil {
		return 0, err
	}
	if out, err := exec.CommandContext(ctx, clang, "-O3", "-march=native", src, "-o", exe).CombinedOutput(); err != nil {
		return 0, fmt.Errorf("building the read loop: %w\n%s", err, out)
	}
	run := func(reps int) (float64, error) {
		out, err := exec.CommandContext(ctx, exe, strconv.FormatInt(bytes, 10), strconv.Itoa(reps)).Output()
		if err != nil {
			return 0, fmt.Errorf("read loop: %w", err)
		}
		return strconv.ParseFloat(strings.TrimSpace(string(out)), 64)
	}
	ns, err := run(3)
	if err != nil {
		return 0, err
	}
	reps := int(float64(minTime.Nanoseconds())/max(ns, 1)) + 2
	var ts []float64
	for i := 0; i < samples; i++ {
		ns, err := run(reps)
		if err != nil {
			return 0, err
		}
		ts = append(ts, ns/1e6)
	}
	return median(ts), nil
}
