// This file prints the per-op profile of a real model (-profile N): the model built with
// graphc.WithProfile counts the cycles of every kernel, and the N slowest ops are listed with
// their time per call, ONNX node, kind and kernel strategy; with several -threads counts, the
// ops that lose the most time against a perfect split at each count.

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

// profileRuns is how many single calls the profile takes each op's smallest time of (5 for
// calls longer than a second).
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
// With -profile-vs-none it also profiles the build without optimisation (--pipeline=) and
// prints, per ONNX node, the time of both builds: where the default pipeline loses.
func profileModel(ctx context.Context, path, work, name string, inputs func(*ir.Graph) ([]*ir.Tensor, map[string]int64, error), minTime time.Duration, top int) error {
	prs, err := profileThreads(ctx, path, filepath.Join(work, "prof"), realPipeline, inputs, minTime, benchThreads)
	if err != nil {
		return err
	}
	pr := prs[0]
	pr.print(name, top)
	if len(prs) > 1 {
		compareThreads(prs, benchThreads, top)
	}
	if !profileVsNone {
		return nil
	}
	none, err := profileBuild(ctx, path, filepath.Join(work, "prof-none"), "", inputs, minTime)
	if err != nil {
		return fmt.Errorf("--pipeline=: %w", err)
	}
	compareProfiles(pr, none, top)
	return nil
}

// profileVsNone is -profile-vs-none; profileOnly is -profile-only.
var profileVsNone, profileOnly bool

// profileAndORT is -real with -profile-only: the model is compiled once, with --profile, and
// that build's time per call (the counters cost a cycle-counter read per kernel) is set
// against onnxruntime's, then its profile is printed.
func profileAndORT(ctx context.Context, root, work, name string, ort *ortRunner, minTime time.Duration, samples, top int) error {
	m, err := realmodel.Load(root, name)
	if err != nil {
		return err
	}
	t0 := time.Now()
	prs, err := profileThreads(ctx, m.Path, filepath.Join(work, "prof"), realPipeline, func(g *ir.Graph) ([]*ir.Tensor, map[string]int64, error) {
		params, err := realmodel.Params(g, m.Sets[realSet].Inputs)
		return m.Sets[realSet].Inputs, params, err
	}, minTime, benchThreads[:1])
	if err != nil {
		return err
	}
	pr := prs[0]
	ortMs := 0.0
	if ort != nil {
		sess, err := ort.open(m, m.Sets[realSet], filepath.Join(work, "ort"))
		if err != nil {
			return fmt.Errorf("onnxruntime: %w", err)
		}
		defer sess.close()
		var ms []float64
		for range max(samples, 1) {
			t, _, err := sess.sample(1)
			if err != nil {
				return fmt.Errorf("onnxruntime: %w", err)
			}
			ms = append(ms, t)
		}
		sort.Float64s(ms)
		ortMs = ms[len(ms)/2]
	}
	fmt.Printf("%-22s profiled build %.1f ms per call (sum of op minima %.1f), onnxruntime %.1f ms (median of %d), ratio %.2f; build and profile took %s\n",
		name, pr.callMs, pr.total, ortMs, max(samples, 1), pr.callMs/max(ortMs, 1e-9), time.Since(t0).Round(time.Second))
	pr.print(name, top)
	return nil
}

// opProfile is one build's profile: its ops, their time per call (ms) and kernel strategies.
type opProfile struct {
	ops    []*ir.Op
	ms     []float64
	strat  []string
	total  float64 // ms per call (the sum of the ops')
	inKern float64 // fraction of the call's time inside the ops' kernels
	callMs float64 // ms per call of the profiled build, timed over several calls (CPU time with -cputime)
}

// profileBuild builds the model at path with the pipeline and --profile in dir and measures
// the time of each op (at the first thread count of -threads).
func profileBuild(ctx context.Context, path, dir, pipeline string, inputs func(*ir.Graph) ([]*ir.Tensor, map[string]int64, error), minTime time.Duration) (*opProfile, error) {
	prs, err := profileThreads(ctx, path, dir, pipeline, inputs, minTime, benchThreads[:1])
	if err != nil {
		return nil, err
	}
	return prs[0], nil
}

// profileThreads builds the model at path with the pipeline and --profile in dir and measures
// the time of each op at each thread count (GRAPHC_NUM_THREADS), the counts alternating run
// by run so that they share the machine's load.
func profileThreads(ctx context.Context, path, dir, pipeline string, inputs func(*ir.Graph) ([]*ir.Tensor, map[string]int64, error), minTime time.Duration, threads []int) ([]*opProfile, error) {
	defer setThreads(benchThreads[0])
	res, err := graphc.Compile(ctx, path, graphc.WithCPU(benchCPU), graphc.WithProfile(), graphc.WithPipeline(pipeline), graphc.WithoutLLVMText())
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	prog, err := e2e.Build(ctx, dir, res.Graph, res.Module, "-O3", "-march="+benchCPU)
	if err != nil {
		return nil, err
	}
	ins, params, err := inputs(res.Graph)
	if err != nil {
		return nil, err
	}
	setThreads(threads[0])
	_, ns, err := prog.Run(ctx, ins, params, 3)
	if err != nil {
		return nil, err
	}
	// the counters are cycles of wall time, which on a loaded machine include the time the
	// process was descheduled: a long run converts cycles to nanoseconds, then each op keeps
	// its smallest time over profileRuns single calls (a preemption inflates one call of
	// one op, not the minimum), and the whole call is the sum of those
	reps := int(float64(minTime.Nanoseconds())/max(ns, 1)) + 2
	ops := res.Graph.Ops
	if _, ns, err = prog.Run(ctx, ins, params, reps); err != nil {
		return nil, err
	}
	callNs := measured(prog, ns) // -cputime: the process CPU time of a call
	if pc := prog.Profile; len(pc) != len(ops)+1 || pc[len(ops)] <= 0 {
		return nil, fmt.Errorf("%d profile counters for %d ops", len(pc), len(ops))
	}
	nsPerTick := ns * float64(reps-1) / float64(prog.Profile[len(ops)])
	cs := make([][]int64, len(threads))
	runs := profileRuns
	if ns > 1e9 {
		runs = 5 // calls of seconds (Mask R-CNN): 25 runs of 2 calls took 17 minutes on a loaded host
	}
	for run := 0; run < runs; run++ {
		for k, t := range threads {
			setThreads(t)
			if _, _, err = prog.Run(ctx, ins, params, 2); err != nil {
				return nil, err
			}
			pc := prog.Profile
			if len(pc) != len(ops)+1 {
				return nil, fmt.Errorf("%d profile counters for %d ops", len(pc), len(ops))
			}
			if cs[k] == nil {
				cs[k] = append([]int64(nil), pc...)
				continue
			}
			for i := range cs[k] {
				cs[k][i] = min(cs[k][i], pc[i])
			}
		}
	}
	var prs []*opProfile
	for _, c := range cs {
		call := c[len(ops)]
		var inKernels int64
		for i := range ops {
			inKernels += c[i]
		}
		pr := &opProfile{ops: ops, strat: res.Module.Entries[0].Strategies, total: nsPerTick * float64(inKernels) / 1e6,
			inKern: float64(inKernels) / float64(max(call, 1)), callMs: callNs / 1e6}
		for i := range ops {
			pr.ms = append(pr.ms, nsPerTick*float64(c[i])/1e6)
		}
		prs = append(prs, pr)
	}
	return prs, nil
}

// compareThreads prints the ops that lose the most time at the thread counts after the first
// against a perfect split of the first's time (the time at t threads less 1/t of the time at
// the first count, which is usually 1): serial kernels, poor splits, data that the other
// core's cache holds.
func compareThreads(prs []*opProfile, threads []int, top int) {
	base := prs[0]
	for k := 1; k < len(prs); k++ {
		pr := prs[k]
		scale := float64(threads[0]) / float64(threads[k])
		lost := make([]float64, len(pr.ms))
		idx := make([]int, len(pr.ms))
		for i := range idx {
			idx[i] = i
			lost[i] = pr.ms[i] - base.ms[i]*scale
		}
		sort.SliceStable(idx, func(a, b int) bool { return lost[idx[a]] > lost[idx[b]] })
		var sum float64
		for _, l := range lost {
			sum += l
		}
		fmt.Printf("  %d -> %d threads: %.3f -> %.3f ms in kernels (%.2fx); lost against a perfect split %.3f ms; the ops that lose most:\n",
			threads[0], threads[k], base.total, pr.total, base.total/pr.total, sum)
		fmt.Printf("  %4s %9s %9s %6s %9s  %-28s %-22s %s\n", "op", "ms", "ms", "x", "lost", "node", "result : type", "strategy")
		for _, i := range idx[:min(top, len(idx))] {
			op := pr.ops[i]
			fmt.Printf("  %4d %9.4f %9.4f %6.2f %9.4f  %-28s %-22s %s\n", i, base.ms[i], pr.ms[i], base.ms[i]/max(pr.ms[i], 1e-9), lost[i],
				op.Name, "%"+op.Result.Name+" : "+op.Result.Type.String(), pr.strategy(i))
		}
	}
}

// print prints the top slowest ops and the time per ONNX op type.
func (pr *opProfile) print(name string, top int) {
	ops := pr.ops
	idx := make([]int, len(ops))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return pr.ms[idx[a]] > pr.ms[idx[b]] })
	fmt.Printf("  profile of %s: %.3f ms per call, %.1f%% in kernels\n", name, pr.total, 100*min(pr.inKern, 1))
	fmt.Printf("  %4s %9s %6s %7s  %-28s %-22s %s\n", "op", "ms", "%", "GFLOP/s", "node", "result : type", "strategy")
	for _, i := range idx[:min(top, len(idx))] {
		op := ops[i]
		ms := pr.ms[i]
		fmt.Printf("  %4d %9.4f %5.1f%% %7s  %-28s %-22s %s\n", i, ms, 100*ms/pr.total, gflops(op, ms),
			op.Name, "%"+op.Result.Name+" : "+op.Result.Type.String(), pr.strategy(i))
	}
	byType := pr.byType()
	types := make([]string, 0, len(byType))
	for t := range byType {
		types = append(types, t)
	}
	sort.Slice(types, func(a, b int) bool { return byType[types[a]] > byType[types[b]] })
	fmt.Printf("  by op type:")
	for _, t := range types {
		fmt.Printf(" %s %.3f ms (%.1f%%);", t, byType[t], 100*byType[t]/pr.total)
	}
	fmt.Println()
}

func (pr *opProfile) strategy(i int) string {
	if i < len(pr.strat) {
		return pr.strat[i]
	}
	return ""
}

// gflops is the rate of a sum's multiply-adds ("-" for other ops).
func gflops(op *ir.Op, ms float64) string {
	if op.Reduce == ir.ReduceSum && ms > 0 {
		// a multiply-add per iteration
		if n, err := op.Domain.Card(nil); err == nil {
			return fmt.Sprintf("%.1f", 2*float64(n)/ms/1e6)
		}
	}
	return "-"
}

// byType returns the time per ONNX op type (the last part of the node name:
// /layer1/layer1.0/Conv -> Conv).
func (pr *opProfile) byType() map[string]float64 {
	byType := map[string]float64{}
	for i, op := range pr.ops {
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
		byType[t] += pr.ms[i]
	}
	return byType
}

// compareProfiles prints, per ONNX node, the time of the default pipeline's build (pr) and of
// the unoptimised one (none), the top nodes by what the default pipeline adds first, with the
// kernels' strategies: an inlined producer's time moves to its consumer's node, a layout's
// reorders appear as nodes of their own (_pad, _nhwc, _t).
func compareProfiles(pr, none *opProfile, top int) {
	type node struct {
		name        string
		def, nodef  float64
		stDef, stNo []string
	}
	nodes := map[string]*node{}
	get := func(n string) *node {
		if nodes[n] == nil {
			nodes[n] = &node{name: n}
		}
		return nodes[n]
	}
	for i, op := range pr.ops {
		n := get(op.Name)
		n.def += pr.ms[i]
		n.stDef = append(n.stDef, "%"+op.Result.Name+" "+pr.strategy(i))
	}
	for i, op := range none.ops {
		n := get(op.Name)
		n.nodef += none.ms[i]
		n.stNo = append(n.stNo, "%"+op.Result.Name+" "+none.strategy(i))
	}
	list := make([]*node, 0, len(nodes))
	for _, n := range nodes {
		list = append(list, n)
	}
	sort.Slice(list, func(a, b int) bool {
		da, db := list[a].def-list[a].nodef, list[b].def-list[b].nodef
		if da != db {
			return da > db
		}
		return list[a].name < list[b].name
	})
	fmt.Printf("  default pipeline against --pipeline=: %.3f ms against %.3f ms per call (%.2fx); the nodes where it loses most:\n", pr.total, none.total, pr.total/none.total)
	fmt.Printf("  %9s %9s %9s  %s\n", "default", "none", "diff", "node: kernels (default | none)")
	for _, n := range list[:min(top, len(list))] {
		if n.def-n.nodef <= 0 {
			break
		}
		fmt.Printf("  %9.4f %9.4f %+9.4f  %s: %s | %s\n", n.def, n.nodef, n.def-n.nodef, n.name, strings.Join(n.stDef, "; "), strings.Join(n.stNo, "; "))
	}
	def, no := pr.byType(), none.byType()
	fmt.Printf("  by op type (default / none ms):")
	types := make([]string, 0, len(def)+len(no))
	for t := range def {
		types = append(types, t)
	}
	for t := range no {
		if _, ok := def[t]; !ok {
			types = append(types, t)
		}
	}
	sort.Slice(types, func(a, b int) bool { return def[types[a]]-no[types[a]] > def[types[b]]-no[types[b]] })
	for _, t := range types {
		fmt.Printf(" %s %.3f/%.3f;", t, def[t], no[t])
	}
	fmt.Println()
}
