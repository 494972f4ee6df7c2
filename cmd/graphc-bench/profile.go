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
)

func profileReal(ctx context.Context, root, work, name string, minTime time.Duration, top int) error {
	m, err := realmodel.Load(root, name)
	if err != nil {
		return err
	}
	res, err := graphc.Compile(ctx, m.Path, graphc.WithCPU("native"), graphc.WithProfile())
	if err != nil {
		return err
	}
	dir := filepath.Join(work, "prof")
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
	if _, ns, err = prog.Run(ctx, set.Inputs, params, reps); err != nil {
		return err
	}
	ops := res.Graph.Ops
	c := prog.Profile
	if len(c) != len(ops)+1 || c[len(ops)] <= 0 {
		return fmt.Errorf("%d profile counters for %d ops", len(c), len(ops))
	}
	strat := res.Module.Entries[0].Strategies
	msPerTick := ns / 1e6 / float64(c[len(ops)])
	idx := make([]int, len(ops))
	var inKernels int64
	for i := range idx {
		idx[i] = i
		inKernels += c[i]
	}
	sort.SliceStable(idx, func(a, b int) bool { return c[idx[a]] > c[idx[b]] })
	fmt.Printf("  profile of %s: %.3f ms per call, %.1f%% in kernels\n", name, ns/1e6, 100*float64(inKernels)/float64(c[len(ops)]))
	fmt.Printf("  %4s %9s %6s  %-28s %-22s %s\n", "op", "ms", "%", "node", "result : type", "strategy")
	for _, i := range idx[:min(top, len(idx))] {
		op := ops[i]
		s := ""
		if i < len(strat) {
			s = strat[i]
		}
		fmt.Printf("  %4d %9.4f %5.1f%%  %-28s %-22s %s\n", i, float64(c[i])*msPerTick, 100*float64(c[i])/float64(c[len(ops)]),
			op.Name, "%"+op.Result.Name+" : "+op.Result.Type.String(), s)
	}
	// time per ONNX op type (the last part of the node name: /layer1/layer1.0/Conv -> Conv)
	byType := map[string]int64{}
	for i, op := range ops {
		t := op.Name[strings.LastIndex(op.Name, "/")+1:]
		if k := strings.IndexAny(t, "_."); k > 0 {
			t = t[:k]
		}
		if op.Result.Name == op.Name+"_pad" || strings.HasSuffix(op.Result.Name, "_pad") {
			t += " (padding copy)"
		}
		byType[t] += c[i]
	}
	types := make([]string, 0, len(byType))
	for t := range byType {
		types = append(types, t)
	}
	sort.Slice(types, func(a, b int) bool { return byType[types[a]] > byType[types[b]] })
	fmt.Printf("  by op type:")
	for _, t := range types {
		fmt.Printf(" %s %.3f ms (%.1f%%);", t, float64(byType[t])*msPerTick, 100*float64(byType[t])/float64(c[len(ops)]))
	}
	fmt.Println()
	return nil
}
