// This file tests the default pool's lanes (pool.ll): thread k first runs lane k of a job,
// grains [k·G/t, (k+1)·G/t) of the job's G grains, and every iteration runs once.

package lower_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/graphc/graphc/internal/e2e"
	"github.com/graphc/graphc/lower"
)

// poolLanesDriver calls the pool's parallel-for (made external) for n iterations of grain g
// on GRAPHC_NUM_THREADS=2 threads: the caller's first call waits for the worker's first call,
// so that the worker starts on its own lane; it prints where the worker's first call began
// and whether every iteration ran once.
const poolLanesDriver = `#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <pthread.h>
#include <time.h>
extern void pool_for(void *pool, void (*fn)(void *, int64_t, int64_t), void *ctx, int64_t n, int64_t grain) __asm__("graphc.pool.parallel_for");
static pthread_t caller;
static int64_t first = -1;
static int seen[1000], waited;
static void task(void *ctx, int64_t b, int64_t e) {
  (void)ctx;
  if (pthread_equal(pthread_self(), caller)) {
    for (int i = 0; !waited && i < 10000 && __atomic_load_n(&first, __ATOMIC_ACQUIRE) < 0; i++) {
      struct timespec ts = {0, 1000000};
      nanosleep(&ts, 0);
    }
    waited = 1;
  } else {
    int64_t none = -1;
    __atomic_compare_exchange_n(&first, &none, b, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE);
  }
  for (int64_t i = b; i < e; i++) __atomic_add_fetch(&seen[i], 1, __ATOMIC_RELAXED);
}
int main(int argc, char **argv) {
  int64_t n = atoll(argv[1]), g = atoll(argv[2]);
  caller = pthread_self();
  pool_for(0, task, 0, n, g);
  int once = 1;
  for (int64_t i = 0; i < n; i++) once = once && seen[i] == 1;
  printf("%lld %d\n", (long long)first, once);
  return 0;
}
`

// TestPoolLanes: on two threads, the worker's lane of 22 iterations (grain 1; chunks of 2)
// begins at 11, not at 10 (lanes of whole chunks: 5 and 6, which left ResNet-50's last
// convolutions' 22 column tiles one thread 2 tiles behind the other); of 86 at 43 (not 40);
// of 100 with grain 8 (13 grains) at 48; every iteration runs once.
func TestPoolLanes(t *testing.T) {
	if runtime.GOARCH != "amd64" {
		t.Skip("the pool's spin-wait hint is built for x86-64 here")
	}
	clang, err := e2e.Clang()
	if err != nil {
		t.Skip(err)
	}
	dir := t.TempDir()
	ll := strings.Replace(lower.PoolIR("x86_64-unknown-linux-gnu"), "define internal void @graphc.pool.parallel_for(", "define void @graphc.pool.parallel_for(", 1)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "pool.ll"), []byte(ll), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "main.c"), []byte(poolLanesDriver), 0o644))
	exe := filepath.Join(dir, "lanes")
	out, err := exec.Command(clang, "-O2", "-w", "-pthread", "-o", exe, filepath.Join(dir, "main.c"), filepath.Join(dir, "pool.ll")).CombinedOutput()
	require.NoError(t, err, string(out))
	for _, c := range []struct{ n, grain, want string }{{"22", "1", "11"}, {"86", "1", "43"}, {"100", "8", "48"}} {
		cmd := exec.Command(exe, c.n, c.grain)
		cmd.Env = append(os.Environ(), "GRAPHC_NUM_THREADS=2")
		out, err := cmd.CombinedOutput()
		require.NoError(t, err, string(out))
		require.Equal(t, c.want+" 1", strings.TrimSpace(string(out)), "n=%s grain=%s: the worker's first iteration, every iteration once", c.n, c.grain)
	}
}
