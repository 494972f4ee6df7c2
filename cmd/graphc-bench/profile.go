// This file prints the per-op profile of a real model (-profile N): the model built with
// graphc.WithProfile counts the cycles of every kernel, and the N slowest ops are listed with
// their time per call, ONNX node, kind and kernel strategy.

package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/graphc/graphc"
	"github.com/graphc/graphc/internal/e2e"
	"github.com/graphc/graphc/internal/realmodel"
	"github.com/graphc/graphc/ir"
)

// profileRuns is how many single calls the profile takes each op's smallest time of.
const profileRuns = 25

func profileReal(ctx context.Context, root, work, name string, minTime time.Duration, top int) error {
	m, err := realmodel.Load(root, name)
	if err != nil {
		return err
	}
	return profileModel(ctx, m.Path, work, name, func(g *ir.Graph) ([]*ir.Tensor, map[string]int64, error) {
		params, err := realmodel.Params(g, m.Sets[realSet].Inputs)
		return m.Sets[realSet].Inputs, params, err
	}, minTime, top)
}

// profileModel builds the model at path with --profile (in work/prof) and prints its top
// slowest ops, run on the inputs and symbolic dims that inputs returns for the compiled graph.
func profileModel(ctx context.Context, path, work, name string, inputs func(*ir.Graph) ([]*ir.Tensor, map[string]int64, error), minTime time.Duration, top int) error {
	res, err := graphc.Compile(ctx, path, graphc.WithCPU(benchCPU), graphc.WithProfile())
	if err != nil {
		return err
	}
	dir := filepath.Join(work, "prof")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	prog, err := e2e.Build(ctx, dir, res.Graph, res.Module, "-O3", "-march="+benchCPU)
	if err != nil {
		return err
	}
	ins, params, err := inputs(res.Graph)
	if err != nil {
		return err
	}
	// one profile per thread count of -threads (the default pool's GRAPHC_NUM_THREADS)
	ops := res.Graph.Ops
	counts := make([][]float64, len(benchThreads)) // ms per op, then the whole call
	for k, t := range benchThreads {
		setThreads(t)
		if counts[k], err = profileCounts(ctx, prog, ins, params, len(ops), minTime); err != nil {
			return err
		}
	}
	setThreads(benchThreads[0])
	ms := counts[0]
	strat := res.Module.Entries[0].Strategies
	plan := res.Module.Entries[0].Plan
	idx := make([]int, len(ops))
	var inKernels float64
	for i := range idx {
		idx[i] = i
		inKernels += ms[i]
	}
	sort.SliceStable(idx, func(a, b int) bool { return ms[idx[a]] > ms[idx[b]] })
	fmt.Printf("  profile of %s: %.3f ms per call, %.1f%% in kernels", name, ms[len(ops)], 100*inKernels/ms[len(ops)])
	for k := 1; k < len(benchThreads); k++ {
		fmt.Printf("; %d threads: %.3f ms (%.2fx)", benchThreads[k], counts[k][len(ops)], ms[len(ops)]/counts[k][len(ops)])
	}
	fmt.Println()
	cols := ""
	for _, t := range benchThreads[1:] {
		cols += fmt.Sprintf(" %8s %5s", fmt.Sprintf("ms@%d", t), "x")
	}
	fmt.Printf("  %4s %9s %6s %7s%s %-5s %-28s %-22s %s\n", "op", "ms", "%", "GFLOP/s", cols, "split", "node", "result : type", "strategy")
	for _, i := range idx[:min(top, len(idx))] {
		op := ops[i]
		s := ""
		if i < len(strat) {
			s = strat[i]
		}
		gf := "-"
		if op.Reduce == ir.ReduceSum && ms[i] > 0 {
			// a multiply-add per iteration
			if n, err := op.Domain.Card(nil); err == nil {
				gf = fmt.Sprintf("%.1f", 2*float64(n)/ms[i]/1e6)
			}
		}
		cols := ""
		for k := 1; k < len(benchThreads); k++ {
			cols += fmt.Sprintf(" %8.4f %5.2f", counts[k][i], ms[i]/max(counts[k][i], 1e-9))
		}
		split := ""
		if plan != nil && i < len(plan.Ops) && plan.Ops[i].Split {
			split = "yes"
		}
		fmt.Printf("  %4d %9.4f %5.1f%% %7s%s %-5s %-28s %-22s %s\n", i, ms[i], 100*ms[i]/ms[len(ops)], gf, cols, split,
			op.Name, "%"+op.Result.Name+" : "+op.Result.Type.String(), s)
	}
	// time per ONNX op type (the last part of the node name: /layer1/layer1.0/Conv -> Conv)
	byType := map[string]float64{}
	for i, op := range ops {
		t := op.Name[strings.LastIndex(op.Name, "/")+1:]
		if k := strings.IndexAny(t, "_."); k > 0 {
			t = t[:k]
		}
		if t == "" {
			t = "(unnamed " + op.Kind + ")" // a node without a name: graphc's op kind
		}
		if op.Result.Name == op.Name+"_pad" || strings.HasSuffix(op.Result.Name, "_pad") {
			t += " (padding copy)"
		}
		byType[t] += ms[i]
	}
	types := make([]string, 0, len(byType))
	for t := range byType {
		types = append(types, t)
	}
	sort.Slice(types, func(a, b int) bool { return byType[types[a]] > byType[types[b]] })
	fmt.Printf("  by op type:")
	for _, t := range types {
		fmt.Printf(" %s %.3f ms (%.1f%%);", t, byType[t], 100*byType[t]/ms[len(ops)])
	}
	fmt.Println()
	return nil
}

// profileCounts returns the milliseconds of each of the ops of prog's profile, then the sum
// (the whole call): the counters are cycles of wall time, which on a loaded machine include the
// time the process was descheduled, so a long run converts cycles to nanoseconds, then each op
// keeps its smallest time over profileRuns single calls (a preemption inflates one call of one
// op, not the minimum), and the whole call is the sum of those.
func profileCounts(ctx context.Context, prog *e2e.Program, ins []*ir.Tensor, params map[string]int64, ops int, minTime time.Duration) ([]float64, error) {
	_, ns, err := prog.Run(ctx, ins, params, 3)
	if err != nil {
		return nil, err
	}
	reps := int(float64(minTime.Nanoseconds())/max(ns, 1)) + 2
	if _, ns, err = prog.Run(ctx, ins, params, reps); err != nil {
		return nil, err
	}
	if pc := prog.Profile; len(pc) != ops+1 || pc[ops] <= 0 {
		return nil, fmt.Errorf("%d profile counters for %d ops", len(pc), ops)
	}
	nsPerTick := ns * float64(reps-1) / float64(prog.Profile[ops])
	var c []int64
	for run := 0; run < profileRuns; run++ {
		if _, _, err = prog.Run(ctx, ins, params, 2); err != nil {
			return nil, err
		}
		pc := prog.Profile
		if len(pc) != ops+1 {
			return nil, fmt.Errorf("%d profile counters for %d ops", len(pc), ops)
		}
		if c == nil {
			c = append([]int64(nil), pc...)
			continue
		}
		for i := range c {
			c[i] = min(c[i], pc[i])
		}
	}
	ms := make([]float64, ops+1)
	for i := 0; i < ops; i++ {
		ms[i] = nsPerTick * float64(c[i]) / 1e6
		ms[ops] += ms[i]
	}
	return ms, nil
}
