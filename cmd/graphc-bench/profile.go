// This file prints the per-kernel profile of a real model (-profile NAME): the model is
// compiled with the default pipeline, run under `perf record -e cpu-clock` (software events:
// they work where hardware counters do not), and each kernel's share of the samples is shown
// with its time per call, the ops that call it and the strategy lowering chose for it.

package main

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/graphc/graphc"
	"github.com/graphc/graphc/internal/e2e"
	"github.com/graphc/graphc/internal/realmodel"
	"github.com/graphc/graphc/passes"
)

// kernelSym matches a kernel's symbol: <entry>.k<N>.<kind>.
var kernelSym = regexp.MustCompile(`^(\w+)\.k(\d+)\.(\S+)$`)

// perfLine matches a line of `perf report --stdio --sort symbol`: "  12.34%  [.] symbol".
var perfLine = regexp.MustCompile(`^\s*([\d.]+)%\s+\[[.k]\]\s+(\S+)`)

func profileReal(ctx context.Context, root, work, name string, minTime time.Duration, top int) error {
	perf, err := exec.LookPath("perf")
	if err != nil {
		return fmt.Errorf("-profile needs perf: %w", err)
	}
	m, err := realmodel.Load(root, name)
	if err != nil {
		return err
	}
	res, err := graphc.Compile(ctx, m.Path, graphc.WithPipeline(passes.DefaultPipeline), graphc.WithCPU("native"))
	if err != nil {
		return err
	}
	dir := filepath.Join(work, "real", name, "profile")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	prog, err := e2e.Build(ctx, dir, res.Graph, res.Module, "-O3", "-march=native")
	if err != nil {
		return err
	}
	set := m.Sets[0]
	params, err := realmodel.Params(res.Graph, set.Inputs)
	if err != nil {
		return err
	}
	_, ns, err := prog.Run(ctx, set.Inputs, params, 3)
	if err != nil {
		return err
	}
	reps := int(float64(minTime.Nanoseconds())/max(ns, 1)) + 2
	args, _, err := prog.Args(set.Inputs, params, reps)
	if err != nil {
		return err
	}
	data := filepath.Join(dir, "perf.data")
	rec := append([]string{"record", "-q", "-e", "cpu-clock", "-o", data, "--", prog.Path}, args...)
	out, err := exec.CommandContext(ctx, perf, rec...).CombinedOutput()
	if err != nil {
		return fmt.Errorf("perf record: %w\n%s", err, out)
	}
	perCall, _ := strconv.ParseFloat(strings.Fields(strings.TrimSpace(string(out)) + " 0")[0], 64)
	rep, err := exec.CommandContext(ctx, perf, "report", "-i", data, "--stdio", "--no-children", "--sort", "symbol", "-q").Output()
	if err != nil {
		return fmt.Errorf("perf report: %w", err)
	}
	// which ops call each kernel (ops with the same kernel share one function)
	e := res.Module.Entries[0]
	ll, err := os.ReadFile(filepath.Join(dir, "model.ll"))
	if err != nil {
		return err
	}
	calls := map[int][]int{}
	for i, c := range kernelCalls(string(ll), e.Name) {
		if sm := kernelSym.FindStringSubmatch(c); sm != nil {
			k, _ := strconv.Atoi(sm[2])
			calls[k] = append(calls[k], i)
		}
	}
	type row struct {
		pct  float64
		name string
	}
	var rows []row
	sc := bufio.NewScanner(strings.NewReader(string(rep)))
	for sc.Scan() {
		if lm := perfLine.FindStringSubmatch(sc.Text()); lm != nil {
			p, _ := strconv.ParseFloat(lm[1], 64)
			rows = append(rows, row{p, lm[2]})
		}
	}
	sort.Slice(rows, func(a, b int) bool { return rows[a].pct > rows[b].pct })
	fmt.Printf("per-kernel profile of %s (%d calls, %.3f ms per call; perf cpu-clock samples)\n", name, reps, perCall/1e6)
	fmt.Printf("%7s %9s  %-28s %4s  %s\n", "share", "ms/call", "kernel", "ops", "first op: strategy")
	for i, r := range rows {
		if i >= top {
			break
		}
		ops, what := "", ""
		if sm := kernelSym.FindStringSubmatch(r.name); sm != nil {
			k, _ := strconv.Atoi(sm[2])
			ops = strconv.Itoa(len(calls[k]))
			if k < len(res.Graph.Ops) && k < len(e.Strategies) {
				op := res.Graph.Ops[k]
				what = fmt.Sprintf("%%%s %s: %s", op.Result.Name, op.Result.Type, e.Strategies[k])
			}
		}
		fmt.Printf("%6.2f%% %9.3f  %-28s %4s  %s\n", r.pct, r.pct/100*perCall/1e6, r.name, ops, what)
	}
	return nil
}

// kernelCalls returns the functions the entry calls, in order.
func kernelCalls(text, entry string) []string {
	start := strings.Index(text, "define i32 @"+entry+"(")
	if start < 0 {
		return nil
	}
	end := strings.Index(text[start:], "\n}\n")
	if end < 0 {
		return nil
	}
	var out []string
	for _, m := range regexp.MustCompile(`call i32 @([\w.]+)\(`).FindAllStringSubmatch(text[start:start+end], -1) {
		out = append(out, m[1])
	}
	return out
}
