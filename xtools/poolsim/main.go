// Command poolsim measures how well a model's parallel regions split over threads, on one
// core, so that a loaded machine does not blur it (issue 33):
//
//	go run ./xtools/poolsim [-mcpu native] [-threads 2] [-region-ns 3000] [-io DIR] [-real] model.onnx
//
// It compiles the model, builds it with a driver (sim.c) whose parallel-for simulates the
// default pool's schedule on -threads virtual threads: every chunk the pool would hand out
// runs for real, timed in thread CPU time, and each virtual thread's clock advances by its
// chunks. It prints the model's time as one serial call per region, the work of all chunks
// (what splitting adds: panels copied again, calls), the simulated time at -threads (each
// region's largest clock plus -region-ns) and the bound on the speed-up that follows, then the
// regions that lose the most against a perfect split. Inputs come from DIR/in0.bin... (as
// graphc-bench writes them into its cache), zeros when absent; models with symbolic dims are
// not supported.
//
// With -real, every run also runs the chunks on -threads real threads (the pool's lanes, the
// workers spinning between regions), each chunk timed in its thread's CPU time: the sum against
// the simulation's is what running at once costs (data written by the other core, shared
// caches and memory), which the one-core simulation cannot see. Each region's line then shows
// real= (that sum) and rwall= (its wall time, the best of the runs: meaningful on a quiet
// machine only).
package main

import (
	"bufio"
	"context"
	"debug/elf"
	_ "embed"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/graphc/graphc"
)

//go:embed sim_c.txt
var simC string

func main() {
	mcpu := flag.String("mcpu", "native", "the CPU the model is compiled for")
	threads := flag.Int("threads", 2, "virtual threads")
	regionNs := flag.Float64("region-ns", 3000, "the cost of a region that goes parallel (ns)")
	runs := flag.Int("runs", 8, "runs (each region's smallest times are kept)")
	io := flag.String("io", "", "directory of the inputs in0.bin, in1.bin... (default: zeros)")
	top := flag.Int("top", 15, "regions listed")
	real := flag.Bool("real", false, "also run the chunks on real threads (their CPU time against the simulation's)")
	flag.Parse()
	if flag.NArg() != 1 {
		fmt.Fprintln(os.Stderr, "usage: poolsim [flags] model.onnx")
		os.Exit(2)
	}
	if err := run(flag.Arg(0), *mcpu, *threads, *regionNs, *runs, *io, *top, *real); err != nil {
		fmt.Fprintln(os.Stderr, "poolsim:", err)
		os.Exit(1)
	}
}

func run(model, mcpu string, threads int, regionNs float64, runs int, io string, top int, real bool) error {
	res, err := graphc.Compile(context.Background(), model, graphc.WithCPU(mcpu))
	if err != nil {
		return err
	}
	dir, err := os.MkdirTemp("", "poolsim")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	call, err := callCode(res.Header)
	if err != nil {
		return err
	}
	for name, text := range map[string]string{"model.ll": res.LLVM, "model.h": res.Header, "sim.c": simC, "call.h": call} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			return err
		}
	}
	exe := filepath.Join(dir, "sim")
	cc := exec.Command("clang-19", "-O2", "-w", "-no-pie", "-o", exe, filepath.Join(dir, "sim.c"), filepath.Join(dir, "model.ll"), "-lm", "-lpthread")
	if out, err := cc.CombinedOutput(); err != nil {
		return fmt.Errorf("clang-19: %v\n%s", err, out)
	}
	syms, err := symbols(exe)
	if err != nil {
		return err
	}
	if io == "" {
		io = filepath.Join(dir, "no-inputs")
	}
	cmd := exec.Command(exe, strconv.Itoa(runs), strconv.Itoa(threads), io)
	cmd.Env = append(os.Environ(), fmt.Sprintf("REGION_NS=%g", regionNs))
	if real {
		cmd.Env = append(cmd.Env, "REAL=1")
	}
	out, err := cmd.Output()
	if err != nil {
		return fmt.Errorf("the simulation: %v", err)
	}
	return report(string(out), syms, top)
}

// callCode returns call.h for the header: CALL(io, ws, th) calls ENTRY_parallel with the
// inputs loaded from io (zeros when absent) and outputs allocated once, and WSS the
// workspace size.
func callCode(header string) (string, error) {
	m := regexp.MustCompile(`int32_t (\w+)_parallel\(([^)]*)\)`).FindStringSubmatch(header)
	if m == nil {
		return "", fmt.Errorf("the header declares no ENTRY_parallel (a module without threads?)")
	}
	entry := m[1]
	if !regexp.MustCompile(entry + `_workspace_size\(void\)`).MatchString(header) {
		return "", fmt.Errorf("%s has symbolic dims: not supported", entry)
	}
	up := strings.ToUpper(entry)
	var sb strings.Builder
	fmt.Fprintf(&sb, "#define WSS %s_workspace_size()\n", entry)
	sb.WriteString("static int CALL(const char *io, void *ws, graphc_threading *th) {\n  static char p[4096];\n")
	var args []string
	in, out := 0, 0
	for _, a := range strings.Split(m[2], ",") {
		a = strings.TrimSpace(a)
		switch {
		case strings.HasSuffix(a, "workspace"):
			args = append(args, "ws")
			continue
		case strings.HasSuffix(a, "threads"):
			args = append(args, "th")
			continue
		}
		i := strings.LastIndex(a, "*")
		typ := strings.TrimSpace(strings.TrimPrefix(a[:i], "const "))
		name := a[i+1:]
		if strings.HasPrefix(a, "const ") {
			fmt.Fprintf(&sb, "  static %s *%s; if (!%s) { snprintf(p, sizeof p, \"%%s/in%d.bin\", io); %s = load(p, sizeof(%s) * %s_IN%d_ELEMENTS); }\n",
				typ, name, name, in, name, typ, up, in)
			in++
		} else {
			fmt.Fprintf(&sb, "  static %s *%s; if (!%s) %s = load(\"\", sizeof(%s) * %s_OUT%d_ELEMENTS);\n", typ, name, name, name, typ, up, out)
			out++
		}
		args = append(args, name)
	}
	fmt.Fprintf(&sb, "  return %s_parallel(%s);\n}\n", entry, strings.Join(args, ", "))
	return sb.String(), nil
}

// symbols maps the addresses of the executable's functions to their names.
func symbols(exe string) (map[uint64]string, error) {
	f, err := elf.Open(exe)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	ss, err := f.Symbols()
	if err != nil {
		return nil, err
	}
	m := map[uint64]string{}
	for _, s := range ss {
		if elf.ST_TYPE(s.Info) == elf.STT_FUNC {
			m[s.Value] = s.Name
		}
	}
	return m, nil
}

// report prints the driver's summary and its regions that lose the most against a perfect
// split, with their kernels' names.
func report(out string, syms map[uint64]string, top int) error {
	type region struct {
		loss float64
		line string
	}
	var rs []region
	sc := bufio.NewScanner(strings.NewReader(out))
	for sc.Scan() {
		l := sc.Text()
		if !strings.HasPrefix(l, "R ") {
			fmt.Println(l)
			continue
		}
		f := strings.Fields(l)
		if len(f) < 3 {
			continue
		}
		name := f[2]
		if a, err := strconv.ParseUint(strings.TrimPrefix(f[2], "0x"), 16, 64); err == nil && syms[a] != "" {
			name = strings.TrimSuffix(syms[a], ".par.task")
		}
		var loss float64
		for _, kv := range f[3:] {
			if v, ok := strings.CutPrefix(kv, "loss="); ok {
				loss, _ = strconv.ParseFloat(v, 64)
			}
		}
		rs = append(rs, region{loss, fmt.Sprintf("%s %s", name, strings.Join(f[3:], " "))})
	}
	sort.SliceStable(rs, func(i, j int) bool { return rs[i].loss > rs[j].loss })
	total := 0.0
	for _, r := range rs {
		total += r.loss
	}
	fmt.Printf("regions' loss against a perfect split: %.0f us (times in us; one: one serial call, total: every chunk, span: the simulated region)\n", total)
	for i, r := range rs {
		if i == top {
			break
		}
		fmt.Println(" ", r.line)
	}
	return sc.Err()
}
