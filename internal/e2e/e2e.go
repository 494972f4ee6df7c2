// Package e2e builds emitted modules into executables with a generated C driver and runs them on
// concrete tensors: the harness of graphc's end-to-end tests, the demo and the benchmarks.
package e2e

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/graphc/graphc/ir"
	"github.com/graphc/graphc/lower"
)

// ErrNoToolchain is returned when clang (or opt) is not installed: lowering's
// lower.ErrToolMissing, so that one errors.Is test covers both.
var ErrNoToolchain = lower.ErrToolMissing

// Tool returns the path of an LLVM tool: $envVar if set, else name-19, else name (the one
// tool finder, lower.FindTool).
func Tool(envVar, name string) (string, error) { return lower.FindTool(envVar, name) }

// Clang returns the clang to use (GRAPHC_CLANG, clang-19, clang).
func Clang() (string, error) { return Tool("GRAPHC_CLANG", "clang") }

// Verify runs `opt -passes=verify` on an LLVM IR file.
func Verify(ctx context.Context, llPath string) error {
	opt, err := Tool("GRAPHC_OPT", "opt")
	if err != nil {
		return err
	}
	out, err := exec.CommandContext(ctx, opt, "-passes=verify", "-disable-output", llPath).CombinedOutput()
	if err != nil {
		return fmt.Errorf("opt -passes=verify %s: %v\n%s", llPath, err, out)
	}
	// LLVM 14 too, where installed (typed pointers: the modules must stay valid for it)
	if opt14, err := exec.LookPath("opt-14"); err == nil {
		out, err := exec.CommandContext(ctx, opt14, "-verify", "-disable-output", llPath).CombinedOutput()
		if err != nil {
			return fmt.Errorf("opt-14 -verify %s: %v\n%s", llPath, err, out)
		}
	}
	return nil
}

// Program is an executable built from a module and a driver.
type Program struct {
	Path  string
	Dir   string
	Graph *ir.Graph
	Mod   *lower.Module
	// CPU is the process CPU time per call (ns) of the last Run, beside the wall time Run
	// returns: on a loaded machine it is the steadier measure.
	CPU float64
	// ThreadCPU is the CPU time per call (ns) of each thread of the process over the timed
	// calls of the last Run: the calling thread first, then the others (the default pool's
	// workers) by thread id; empty where the driver cannot read them.
	ThreadCPU []float64
	// Profile holds, after a Run of a profiling build, the cycles of each op's kernel over the
	// timed calls (graph op order), then of the whole calls.
	Profile []int64
	// cflags are the clang flags the driver was built with (-march=…)
	cflags []string
}

// Build writes the module and a driver to dir and compiles them with clang for the host.
// cflags are extra clang flags (e.g. -O3, -march=native; under GRAPHC_HOST_CPU,
// -march=native means that CPU).
func Build(ctx context.Context, dir string, g *ir.Graph, mod *lower.Module, cflags ...string) (*Program, error) {
	cflags = Machine{Target: "x86-64", CFlags: cflags}.resolve().CFlags
	clang, err := Clang()
	if err != nil {
		return nil, err
	}
	ll := filepath.Join(dir, "model.ll")
	if err := mod.WriteFile(ll); err != nil {
		return nil, err
	}
	if err := os.WriteFile(filepath.Join(dir, "model.h"), []byte(mod.Header), 0o644); err != nil {
		return nil, err
	}
	if err := writeWeights(dir, mod); err != nil {
		return nil, err
	}
	drv := filepath.Join(dir, "driver.c")
	if err := os.WriteFile(drv, []byte(Driver(g, mod)), 0o644); err != nil {
		return nil, err
	}
	exe := filepath.Join(dir, "model.exe")
	args := append([]string{"-O2", "-w", "-o", exe, drv, ll, "-lm"}, cflags...)
	out, err := exec.CommandContext(ctx, clang, args...).CombinedOutput()
	if err != nil {
		return nil, fmt.Errorf("clang %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return &Program{Path: exe, Dir: dir, Graph: g, Mod: mod, cflags: cflags}, nil
}

// CanExecute reports whether the host (capped by GRAPHC_HOST_CPU) can run the program: its
// module's CPU and features and its driver's -march. Run refuses what it cannot.
func (p *Program) CanExecute() (bool, string) {
	m := Machine{Target: "x86-64", CFlags: p.cflags}
	if p.Mod != nil {
		m.CPU, m.Attrs = p.Mod.CPU, p.Mod.Attrs
		if m.CPU == "native" {
			// the host's features, emitted: under a cap they must be within it
			m.CPU = ""
		}
	}
	return m.CanExecute()
}

// writeWeights writes dir/weights.bin, which the driver maps, for a module whose constants are
// kept out of it (lower.Config.ExternalWeights), unless a file of the right size is already there
// (a test that had graphc write it).
func writeWeights(dir string, mod *lower.Module) error {
	if len(mod.Entries) == 0 || mod.Entries[0].Weights == nil {
		return nil
	}
	w := mod.Entries[0].Weights
	path := filepath.Join(dir, "weights.bin")
	if st, err := os.Stat(path); err == nil && st.Size() == w.Size {
		return nil
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if _, err := w.WriteTo(f); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// Args writes the inputs to the program's io directory and returns the driver's arguments for
// reps calls (the io directory first), with the output shapes.
func (p *Program) Args(inputs []*ir.Tensor, params map[string]int64, reps int) ([]string, [][]int64, error) {
	io := filepath.Join(p.Dir, "io")
	if err := os.MkdirAll(io, 0o755); err != nil {
		return nil, nil, err
	}
	if len(inputs) != len(p.Graph.Inputs) {
		return nil, nil, fmt.Errorf("%d inputs for %d graph inputs", len(inputs), len(p.Graph.Inputs))
	}
	for i, t := range inputs {
		if err := os.WriteFile(filepath.Join(io, fmt.Sprintf("in%d.bin", i)), t.Bytes(), 0o644); err != nil {
			return nil, nil, err
		}
	}
	args := []string{io, strconv.Itoa(max(reps, 1))}
	shapes := make([][]int64, len(p.Graph.Outputs))
	for i, o := range p.Graph.Outputs {
		s, err := o.Type.EvalShape(AtBounds(p.Graph, params))
		if err != nil {
			return nil, nil, fmt.Errorf("output %%%s: %w", o.Name, err)
		}
		shapes[i] = s
		args = append(args, strconv.FormatInt(ir.NumElements(s)*int64(o.Type.Elem.Size()), 10))
	}
	for _, name := range p.Mod.Params {
		v, ok := params[name]
		if !ok {
			return nil, nil, fmt.Errorf("symbolic dim %s is not bound", name)
		}
		args = append(args, strconv.FormatInt(v, 10))
	}
	return args, shapes, nil
}

// Run executes the program on inputs (graph order) with the symbolic dims bound by params and
// returns the outputs. reps > 1 runs the entry that many times and returns the mean time per
// call in nanoseconds.
func (p *Program) Run(ctx context.Context, inputs []*ir.Tensor, params map[string]int64, reps int) ([]*ir.Tensor, float64, error) {
	if ok, why := p.CanExecute(); !ok {
		return nil, 0, fmt.Errorf("%w (%s): %s", ErrCannotExecute, p.Path, why)
	}
	args, shapes, err := p.Args(inputs, params, reps)
	if err != nil {
		return nil, 0, err
	}
	io := args[0]
	cmd := exec.CommandContext(ctx, p.Path, args...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		return nil, 0, fmt.Errorf("%s: %v\n%s", p.Path, err, out)
	}
	var ns float64
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if f := strings.Fields(lines[0]); len(f) > 0 {
		ns, _ = strconv.ParseFloat(f[0], 64)
		p.CPU, p.ThreadCPU = 0, nil
		if len(f) > 1 {
			p.CPU, _ = strconv.ParseFloat(f[1], 64)
		}
		for _, s := range f[min(len(f), 2):] {
			c, _ := strconv.ParseFloat(s, 64)
			p.ThreadCPU = append(p.ThreadCPU, c)
		}
	}
	p.Profile = nil
	if p.Mod.Profile && len(lines) > 1 {
		for _, f := range strings.Fields(lines[1]) {
			c, err := strconv.ParseInt(f, 10, 64)
			if err != nil {
				return nil, 0, fmt.Errorf("%s: profile counter %q: %w", p.Path, f, err)
			}
			p.Profile = append(p.Profile, c)
		}
	}
	res := make([]*ir.Tensor, len(shapes))
	for i, o := range p.Graph.Outputs {
		raw, err := os.ReadFile(filepath.Join(io, fmt.Sprintf("out%d.bin", i)))
		if err != nil {
			return nil, 0, err
		}
		t, err := ir.TensorFromBytes(o.Type.Elem, shapes[i], raw)
		if err != nil {
			return nil, 0, err
		}
		res[i] = t
	}
	if len(p.Graph.Bounded) > 0 {
		if res, err = TrimBounded(p.Graph, params, res); err != nil {
			return nil, 0, err
		}
	}
	return res, ns, nil
}

// Driver returns the C source of a driver for g: it reads in<i>.bin from the directory argv[1],
// calls the entry argv[2] times, writes out<i>.bin and prints the mean nanoseconds per call,
// wall time then process CPU time, then the CPU time of each thread (the calling thread first).
// argv[3..] are the output sizes in bytes, then the symbolic dims.
func Driver(g *ir.Graph, mod *lower.Module) string {
	var sb strings.Builder
	nin, nout, np := len(g.Inputs), len(g.Outputs), len(mod.Params)
	fmt.Fprintf(&sb, `#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>
#include <time.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <dirent.h>
#include "model.h"

/* the CPU time (ns) of each thread of the process, by thread id: Linux's clock of a thread
 * is ((~tid) << 3) | 6 (CPUCLOCK_SCHED of one thread, as pthread_getcpuclockid makes it) */
static int thread_cpu(long *tid, double *ns, int max) {
  DIR *d = opendir("/proc/self/task"); struct dirent *e; int k = 0;
  if (!d) return 0;
  while ((e = readdir(d)) && k < max) {
    if (e->d_name[0] == '.') continue;
    long t = atol(e->d_name); struct timespec ts;
    if (clock_gettime((clockid_t)((~(unsigned)t << 3) | 6), &ts) != 0) continue;
    int j = k++;
    for (; j > 0 && tid[j - 1] > t; j--) { tid[j] = tid[j - 1]; ns[j] = ns[j - 1]; }
    tid[j] = t; ns[j] = ts.tv_sec * 1e9 + ts.tv_nsec;
  }
  closedir(d); return k;
}

static void *load(const char *dir, const char *name, long *size) {
  char path[4096]; snprintf(path, sizeof path, "%%s/%%s", dir, name);
  FILE *f = fopen(path, "rb"); if (!f) { perror(path); exit(2); }
  fseek(f, 0, SEEK_END); *size = ftell(f); fseek(f, 0, SEEK_SET);
  void *p = aligned_alloc(128, (*size + 128) / 128 * 128);
  if (*size && fread(p, 1, *size, f) != (size_t)*size) { perror(path); exit(2); }
  fclose(f); return p;
}

int main(int argc, char **argv) {
  if (argc != %d) { fprintf(stderr, "usage: %%s DIR REPS OUTBYTES... DIMS...\n", argv[0]); return 2; }
  const char *dir = argv[1]; long reps = atol(argv[2]);
`, 3+nout+np)
	for i := 0; i < nin; i++ {
		fmt.Fprintf(&sb, "  long insz%d; void *in%d = load(dir, \"in%d.bin\", &insz%d);\n", i, i, i, i)
	}
	for i := 0; i < nout; i++ {
		fmt.Fprintf(&sb, "  long outsz%d = atol(argv[%d]); void *out%d = aligned_alloc(128, (outsz%d + 128) / 128 * 128); memset(out%d, 0xA5, outsz%d);\n", i, 3+i, i, i, i, i)
	}
	var dimArgs []string
	for i := 0; i < np; i++ {
		fmt.Fprintf(&sb, "  int64_t s%d = atoll(argv[%d]);\n", i, 3+nout+i)
		dimArgs = append(dimArgs, fmt.Sprintf("s%d", i))
	}
	fmt.Fprintf(&sb, "  int64_t wsz = %s_workspace_size(%s);\n", mod.Entry, strings.Join(dimArgs, ", "))
	sb.WriteString("  void *ws = aligned_alloc(128, (wsz + 128) / 128 * 128);\n")
	weights := len(mod.Entries) > 0 && mod.Entries[0].Weights != nil
	if weights {
		// the weights file beside the io directory, mapped (page-aligned, read on demand)
		sb.WriteString(`  char wpath[4096]; snprintf(wpath, sizeof wpath, "%s/../weights.bin", dir);
  int wfd = open(wpath, O_RDONLY); struct stat wst; if (wfd < 0 || fstat(wfd, &wst) != 0) { perror(wpath); return 2; }
  const void *weights = mmap(NULL, wst.st_size, PROT_READ, MAP_PRIVATE, wfd, 0);
  if (weights == MAP_FAILED) { perror(wpath); return 2; }
`)
	}
	var call []string
	for i := 0; i < nin; i++ {
		call = append(call, fmt.Sprintf("in%d", i))
	}
	for i := 0; i < nout; i++ {
		call = append(call, fmt.Sprintf("out%d", i))
	}
	call = append(call, dimArgs...)
	call = append(call, "ws")
	if weights {
		call = append(call, "weights")
	}
	profReset := ""
	if mod.Profile {
		profReset = fmt.Sprintf("  %s_profile(0);\n", mod.Entry)
	}
	fmt.Fprintf(&sb, `  struct timespec t0, t1, c0, c1; int rc = 0;
  long tid0[64], tid1[64]; double tc0[64], tc1[64]; int nt0, nt1;
  rc = %[1]s(%[2]s); /* warm-up */
%[3]s  nt0 = thread_cpu(tid0, tc0, 64);
  clock_gettime(CLOCK_MONOTONIC, &t0); clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &c0);
  for (long r = 1; r < reps && rc == 0; r++) rc = %[1]s(%[2]s);
  clock_gettime(CLOCK_MONOTONIC, &t1); clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &c1);
  nt1 = thread_cpu(tid1, tc1, 64);
  if (rc != 0) { fprintf(stderr, "entry returned %%d\n", rc); return 10 + rc; }
  double ns = reps > 1 ? ((t1.tv_sec - t0.tv_sec) * 1e9 + (t1.tv_nsec - t0.tv_nsec)) / (reps - 1) : 0;
  double cpu = reps > 1 ? ((c1.tv_sec - c0.tv_sec) * 1e9 + (c1.tv_nsec - c0.tv_nsec)) / (reps - 1) : 0;
`, mod.Entry, strings.Join(call, ", "), profReset)
	for i := 0; i < nout; i++ {
		fmt.Fprintf(&sb, `  { char path[4096]; snprintf(path, sizeof path, "%%s/out%d.bin", dir); FILE *f = fopen(path, "wb");
    if (!f || fwrite(out%d, 1, outsz%d, f) != (size_t)outsz%d) { perror(path); return 2; } fclose(f); }
`, i, i, i, i)
	}
	sb.WriteString(`  printf("%.1f %.1f", ns, cpu);
  { long me = (long)getpid(); /* the calling thread first */
    for (int pass = 0; pass < 2; pass++) for (int i = 0; i < nt1; i++) {
      if ((tid1[i] == me) != (pass == 0)) continue;
      double before = 0; for (int j = 0; j < nt0; j++) if (tid0[j] == tid1[i]) before = tc0[j];
      printf(" %.1f", reps > 1 ? (tc1[i] - before) / (reps - 1) : 0); } }
  printf("\n");
`)
	if mod.Profile {
		// the counters of the timed calls, on a second line
		fmt.Fprintf(&sb, "  { static int64_t c[%d]; int64_t n = %s_profile(c);\n"+
			"    for (int64_t i = 0; i <= n; i++) printf(\"%%lld \", (long long)c[i]); printf(\"\\n\"); }\n", len(g.Ops)+1, mod.Entry)
	}
	sb.WriteString("  return 0;\n}\n")
	return sb.String()
}
