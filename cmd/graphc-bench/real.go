// This file benchmarks the real-model set (models/export.py, cached outside git): each model
// compiled with the default pipeline and with none, checked against PyTorch's outputs, and
// timed side by side with onnxruntime (one thread) on the same inputs: the samples of graphc and
// of an onnxruntime session kept open alternate, so that both see the same load, and the ratio
// is the median of the ratios of the pairs.

package main

import (
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/graphc/graphc"
	"github.com/graphc/graphc/internal/e2e"
	"github.com/graphc/graphc/internal/realmodel"
	"github.com/graphc/graphc/passes"
)

// realRow is one model's measurements.
type realRow struct {
	name            string
	die, nodie, ort float64 // ms per call
	// pipe is the median over alternating samples of the default pipeline's time over
	// --pipeline='s (each pair measured back to back, under the same load; 0: not measured)
	pipe float64
	// gOrt is the median over alternating samples of graphc's time over onnxruntime's (each
	// pair measured back to back, under the same load)
	gOrt                float64
	errDie, errORT      float64 // largest error relative to the output's scale
	live                float64 // fraction of the iterations the default pipeline keeps (0: unknown)
	compile             time.Duration
	failed              string
	symbolic, transform bool
	// threads is the thread count of graphc's pool and onnxruntime's intra-op threads (-threads)
	threads int
	// dieBest and ortBest are the fastest samples (die and ort are the medians); dieSplit and
	// ortSplit the mean CPU time per call (ms) of each thread, the calling thread first (for
	// onnxruntime, its threads that ran, in 10 ms ticks)
	dieBest, ortBest   float64
	dieSplit, ortSplit []float64
}

func runReal(ctx context.Context, root, cache string, want map[string]bool, ort *ortRunner, minTime time.Duration, samples int, noDIE bool, profile int) error {
	names, err := realmodel.List(root)
	if err != nil {
		return fmt.Errorf("%w (export the models first: python3 models/export.py)", err)
	}
	clock := "wall time"
	if useCPUTime {
		clock = "process CPU time"
	}
	fmt.Printf("real models in %s; CPU: %s; --mcpu=%s; %s\n", root, cpuName(), benchCPU, clock)
	fmt.Printf("%-22s %10s %10s %10s %7s %9s %6s %9s %9s %8s\n", "model", "graphc ms", "no-die ms", "ort ms", "g/ort", "die/nodie", "live", "err", "ort err", "compile")
	var rows []realRow
	for _, name := range names {
		if len(want) > 0 && !want[name] {
			continue
		}
		work := filepath.Join(cache, "real", name)
		if benchCPU != "native" {
			work += "-" + benchCPU // runs for two CPUs may overlap
		}
		if profileOnly {
			if err := profileAndORT(ctx, root, work, name, ort, minTime, samples, profile); err != nil {
				fmt.Printf("%-22s failed: %v\n", name, firstLine(err.Error()))
			}
			continue
		}
		rs := benchReal(ctx, root, work, name, ort, minTime, samples, noDIE)
		for _, r := range rs {
			fmt.Println(r.String())
		}
		rows = append(rows, rs...)
		if r := rs[0]; profile > 0 && r.failed == "" {
			if err := profileReal(ctx, root, work, name, minTime, profile); err != nil {
				fmt.Printf("  profile: %v\n", err)
			}
		}
	}
	// geometric means of graphc/onnxruntime per family and thread count
	for _, threads := range benchThreads {
		if len(benchThreads) > 1 {
			fmt.Printf("%d thread(s):\n", threads)
		}
		familyMeans(rows, threads)
		speedups(rows, threads)
	}
	pipelineCheck(rows)
	return nil
}

// speedups prints graphc's and onnxruntime's speed-up from one thread to threads per model.
func speedups(rows []realRow, threads int) {
	if threads == benchThreads[0] {
		return
	}
	one := map[string]realRow{}
	for _, r := range rows {
		if r.threads == benchThreads[0] && r.failed == "" {
			one[r.name] = r
		}
	}
	for _, r := range rows {
		b, ok := one[r.name]
		if r.threads != threads || r.failed != "" || !ok || r.die <= 0 {
			continue
		}
		o := "-"
		if r.ort > 0 {
			o = fmt.Sprintf("%.2fx (best %.2fx)", b.ort/r.ort, b.ortBest/r.ortBest)
		}
		g := fmt.Sprintf("%.2fx", b.die/r.die)
		if r.dieBest > 0 && b.dieBest > 0 {
			g += fmt.Sprintf(" (best %.2fx)", b.dieBest/r.dieBest)
		}
		fmt.Printf("  %-22s %d -> %d threads: graphc %s, onnxruntime %s\n", r.name, benchThreads[0], threads, g, o)
		fmt.Printf("  %-22s CPU ms per call by thread at %d: graphc %s (at %d: %s); onnxruntime %s (at %d: %s)\n", "", threads,
			fmtSplit(r.dieSplit), benchThreads[0], fmtSplit(b.dieSplit), fmtSplit(r.ortSplit), benchThreads[0], fmtSplit(b.ortSplit))
	}
}

// familyMeans prints the geometric means of graphc/onnxruntime of the CNNs and transformers
// measured at threads.
func familyMeans(rows []realRow, threads int) {
	for _, fam := range []struct {
		name string
		in   func(r realRow) bool
	}{{"CNNs", func(r realRow) bool { return !r.transform }}, {"transformers", func(r realRow) bool { return r.transform }},
		{"all", func(realRow) bool { return true }}} {
		sum, n, worst, worstName := 0.0, 0, 0.0, ""
		for _, r := range rows {
			if r.failed != "" || r.gOrt <= 0 || !fam.in(r) || r.threads != threads {
				continue
			}
			q := r.gOrt
			sum += math.Log(q)
			n++
			if q > worst {
				worst, worstName = q, r.name
			}
		}
		if n > 0 {
			fmt.Printf("%s: graphc/onnxruntime geometric mean %.2f over %d models, worst %.2f (%s)\n", fam.name, math.Exp(sum/float64(n)), n, worst, worstName)
		}
	}
}

func (r realRow) String() string {
	if r.failed != "" {
		return fmt.Sprintf("%-22s error: %s", r.name, r.failed)
	}
	live := "-"
	if r.live > 0 {
		live = fmt.Sprintf("%.2f", r.live)
	}
	name := r.name
	if len(benchThreads) > 1 {
		name = fmt.Sprintf("%s @%dt", r.name, r.threads)
	}
	return fmt.Sprintf("%-22s %10.3f %10s %10s %7s %9s %6s %9.1e %9s %7.1fs", name, r.die, fmtMS(r.nodie), fmtMS(r.ort),
		fmtGOrt(r.gOrt), fmtGOrt(r.pipe), live, r.errDie, fmtErr(r.errORT, r.ort), r.compile.Seconds())
}

// fmtGOrt prints the graphc/onnxruntime ratio ("-" without onnxruntime).
func fmtGOrt(q float64) string {
	if q == 0 {
		return "-"
	}
	return fmt.Sprintf("%.2f", q)
}

func fmtErr(e, ms float64) string {
	if ms == 0 {
		return "-"
	}
	return fmt.Sprintf("%.1e", e)
}

// realPipeline is the pipeline of the "graphc" column of -real (-pipeline).
var realPipeline = passes.DefaultPipeline

// realSet is the data set -real times (-set): 0 by default; a decoder exported with a prefill
// and a decode set (models/export_msft.py --llama) times its decode step with -set 1.
var realSet = 0

// realRequire is -require: the required region of the graphc column (e.g. the last token's
// logits), compared with onnxruntime computing everything.
var realRequire string

// benchReal compiles, checks and times one model, a row per thread count of -threads (one
// row when it fails).
func benchReal(ctx context.Context, root, work, name string, ort *ortRunner, minTime time.Duration, samples int, noDIE bool) []realRow {
	r := realRow{name: name, threads: benchThreads[0]}
	fail := func(err error) []realRow {
		r.failed = firstLine(err.Error())
		return []realRow{r}
	}
	m, err := realmodel.Load(root, name)
	if err != nil {
		return fail(err)
	}
	r.transform = isTransformer(m)
	if realSet >= len(m.Sets) {
		return fail(fmt.Errorf("-set %d: the model has %d data sets", realSet, len(m.Sets)))
	}
	set := m.Sets[realSet]
	configs := []struct{ name, pipeline string }{{"die", realPipeline}}
	if !noDIE {
		configs = append(configs, struct{ name, pipeline string }{"nodie", ""})
	}
	var (
		dieProg, nodieProg     *e2e.Program
		dieParams, nodieParams map[string]int64
	)
	for _, cfg := range configs {
		t0 := time.Now()
		opts := []graphc.Option{graphc.WithPipeline(cfg.pipeline), graphc.WithCPU(benchCPU), graphc.WithoutLLVMText()}
		if realRequire != "" && cfg.name == "die" {
			opts = append(opts, graphc.WithRequire(realRequire))
		}
		res, err := graphc.Compile(ctx, m.Path, opts...)
		if err != nil {
			return fail(fmt.Errorf("%s: %w", cfg.name, err))
		}
		if cfg.name == "die" {
			r.compile = time.Since(t0)
			r.live = liveFraction(res.Dead)
		}
		dir := filepath.Join(work, cfg.name)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return fail(err)
		}
		prog, err := e2e.Build(ctx, dir, res.Graph, res.Module, "-O3", "-march="+benchCPU)
		if err != nil {
			return fail(fmt.Errorf("%s: %w", cfg.name, err))
		}
		var worst float64
		if realRequire == "" || cfg.name != "die" { // a required region leaves the rest unwritten
			if worst, err = realmodel.CheckSets(ctx, m, res.Graph, prog, m.Tolerance()); err != nil {
				return fail(fmt.Errorf("%s: wrong result: %w", cfg.name, err))
			}
		}
		params, err := realmodel.Params(res.Graph, set.Inputs)
		if err != nil {
			return fail(err)
		}
		r.symbolic = r.symbolic || len(params) > 0
		if cfg.name == "die" {
			dieProg, dieParams, r.errDie = prog, params, worst
			continue // timed below, alternating with onnxruntime
		}
		nodieProg, nodieParams = prog, params
	}
	if nodieProg != nil {
		// the two builds alternate, sample by sample, as graphc and onnxruntime do: on a
		// loaded machine, timing one after the other compared two different loads
		setThreads(benchThreads[0])
		if _, r.nodie, r.pipe, err = timePrograms(ctx, dieProg, dieParams, nodieProg, nodieParams, set, minTime, samples); err != nil {
			return fail(err)
		}
	}
	var rows []realRow
	for _, t := range benchThreads {
		setThreads(t)
		tr := r
		tr.threads = t
		tr = timeReal(ctx, tr, m, set, work, dieProg, dieParams, ort, minTime, samples)
		rows = append(rows, tr)
		if tr.failed != "" {
			break
		}
	}
	return rows
}

// setThreads sets the thread count of graphc's default pool (GRAPHC_NUM_THREADS, which the
// programs inherit) and of the onnxruntime sessions opened next (intra-op threads).
func setThreads(t int) {
	os.Setenv("GRAPHC_NUM_THREADS", strconv.Itoa(t))
	os.Setenv("GRAPHC_BENCH_ORT_THREADS", strconv.Itoa(t))
}

// timeReal times the compiled model (and onnxruntime at the same thread count) into r.
func timeReal(ctx context.Context, r realRow, m *realmodel.Model, set realmodel.DataSet, work string, dieProg *e2e.Program, dieParams map[string]int64, ort *ortRunner, minTime time.Duration, samples int) realRow {
	fail := func(err error) realRow {
		r.failed = firstLine(err.Error())
		return r
	}
	var err error
	if ort == nil {
		a, err := timeSamples(ctx, dieProg, set, dieParams, minTime, samples)
		if err != nil {
			return fail(err)
		}
		r.die, r.dieBest, r.dieSplit = a.g, a.gBest, a.gSplit
		return r
	}
	sess, err := ort.open(m, set, filepath.Join(work, "ort"))
	if err != nil {
		return fail(fmt.Errorf("onnxruntime: %w", err))
	}
	defer sess.close()
	outs, err := sess.outputs()
	if err != nil {
		return fail(fmt.Errorf("onnxruntime: %w", err))
	}
	for k, o := range outs {
		e, err := realmodel.Compare(o, set.Outputs[k], m.Tolerance())
		if err != nil {
			return fail(fmt.Errorf("onnxruntime output %d differs from PyTorch's: %w", k, err))
		}
		r.errORT = max(r.errORT, e)
	}
	tm, err := timeAlternating(ctx, dieProg, set, dieParams, sess, minTime, samples)
	if err != nil {
		return fail(err)
	}
	r.die, r.ort, r.gOrt, r.dieBest, r.ortBest, r.dieSplit, r.ortSplit = tm.g, tm.o, tm.ratio, tm.gBest, tm.oBest, tm.gSplit, tm.oSplit
	return r
}

// timeAlternating times graphc's program and onnxruntime's session in alternating samples,
// each lasting about minTime, and returns the medians of both (ms per call) and the median of
// the ratios of the pairs.
// alternating is what timeAlternating measures: the medians of graphc's and onnxruntime's
// samples and of their ratio, the best samples, and the mean CPU time per call (ms) of each
// thread of each.
type alternating struct {
	g, o, ratio, gBest, oBest float64
	gSplit, oSplit            []float64
}

func timeAlternating(ctx context.Context, p *e2e.Program, set realmodel.DataSet, params map[string]int64, s *ortSession, minTime time.Duration, samples int) (alternating, error) {
	var a alternating
	_, ns, err := p.Run(ctx, set.Inputs, params, 3)
	if err != nil {
		return a, err
	}
	gReps := int(float64(minTime.Nanoseconds())/max(ns, 1)) + 2
	first, _, err := s.sample(1)
	if err != nil {
		return a, fmt.Errorf("onnxruntime: %w", err)
	}
	oReps := int(float64(minTime.Milliseconds())/max(first, 0.001)) + 1
	var gs, ots, rs []float64
	for i := 0; i < samples; i++ {
		_, ns, err := p.Run(ctx, set.Inputs, params, gReps)
		if err != nil {
			return a, err
		}
		gms := measured(p, ns) / 1e6
		a.gSplit = addSplit(a.gSplit, p.ThreadCPU, 1e-6/float64(samples))
		oms, split, err := s.sample(oReps)
		if err != nil {
			return a, fmt.Errorf("onnxruntime: %w", err)
		}
		a.oSplit = addSplit(a.oSplit, split, 1/float64(samples))
		gs, ots, rs = append(gs, gms), append(ots, oms), append(rs, gms/oms)
	}
	a.g, a.o, a.ratio = median(gs), median(ots), median(rs)
	a.gBest, a.oBest = gs[0], ots[0] // (median sorted them)
	return a, nil
}

// addSplit adds the per-thread times of one sample, scaled, to the sum of the earlier ones.
func addSplit(sum, sample []float64, scale float64) []float64 {
	for len(sum) < len(sample) {
		sum = append(sum, 0)
	}
	for i, t := range sample {
		sum[i] += t * scale
	}
	return sum
}

// fmtSplit prints per-thread CPU times (ms per call) as "a + b + c".
func fmtSplit(split []float64) string {
	if len(split) == 0 {
		return "-"
	}
	var parts []string
	for _, t := range split {
		parts = append(parts, fmt.Sprintf("%.2f", t))
	}
	return strings.Join(parts, " + ")
}

// timePrograms times two programs on the same inputs in alternating samples, each lasting
// about minTime, and returns the medians of both (ms per call) and the median of the ratios
// of the pairs (a over b).
func timePrograms(ctx context.Context, a *e2e.Program, aParams map[string]int64, b *e2e.Program, bParams map[string]int64, set realmodel.DataSet, minTime time.Duration, samples int) (ams, bms, ratio float64, err error) {
	reps := func(p *e2e.Program, params map[string]int64) (int, error) {
		_, ns, err := p.Run(ctx, set.Inputs, params, 3)
		return int(float64(minTime.Nanoseconds())/max(ns, 1)) + 2, err
	}
	aReps, err := reps(a, aParams)
	if err != nil {
		return 0, 0, 0, err
	}
	bReps, err := reps(b, bParams)
	if err != nil {
		return 0, 0, 0, err
	}
	var as, bs, rs []float64
	for i := 0; i < samples; i++ {
		_, ns, err := a.Run(ctx, set.Inputs, aParams, aReps)
		if err != nil {
			return 0, 0, 0, err
		}
		at := measured(a, ns) / 1e6
		if _, ns, err = b.Run(ctx, set.Inputs, bParams, bReps); err != nil {
			return 0, 0, 0, err
		}
		bt := measured(b, ns) / 1e6
		as, bs, rs = append(as, at), append(bs, bt), append(rs, at/bt)
	}
	return median(as), median(bs), median(rs), nil
}

// liveFraction returns the fraction of all iterations that the pipeline kept (the "MAC
// ratio" die/no-die can approach), or 0 when some count is symbolic.
func liveFraction(dead []passes.DeadSpace) float64 {
	var total, gone int64
	for _, d := range dead {
		if !d.Counted {
			return 0
		}
		total += d.Total
		gone += d.DeadCount + d.KnownZeroCount
	}
	if total == 0 {
		return 0
	}
	return float64(total-gone) / float64(total)
}

// isTransformer tells the families apart by the inputs: token ids are integers.
func isTransformer(m *realmodel.Model) bool {
	for _, t := range m.Sets[0].Inputs {
		if !t.Elem.IsFloat() {
			return true
		}
	}
	return strings.HasPrefix(m.Name, "vit")
}

func timeRunner(ctx context.Context, p *e2e.Program, set realmodel.DataSet, params map[string]int64, minTime time.Duration, samples int) (float64, error) {
	a, err := timeSamples(ctx, p, set, params, minTime, samples)
	return a.g, err
}

// timeSamples times p alone: the median and best samples and the CPU time per call of each
// thread (the onnxruntime fields stay zero).
func timeSamples(ctx context.Context, p *e2e.Program, set realmodel.DataSet, params map[string]int64, minTime time.Duration, samples int) (alternating, error) {
	var a alternating
	_, ns, err := p.Run(ctx, set.Inputs, params, 3)
	if err != nil {
		return a, err
	}
	reps := int(float64(minTime.Nanoseconds())/max(ns, 1)) + 2
	var ts []float64
	for i := 0; i < samples; i++ {
		_, ns, err := p.Run(ctx, set.Inputs, params, reps)
		if err != nil {
			return a, err
		}
		ts = append(ts, measured(p, ns)/1e6)
		a.gSplit = addSplit(a.gSplit, p.ThreadCPU, 1e-6/float64(samples))
	}
	a.g = median(ts)
	a.gBest = ts[0]
	return a, nil
}

func cpuName() string {
	data, err := os.ReadFile("/proc/cpuinfo")
	if err != nil {
		return "unknown"
	}
	name := "unknown"
	flags := ""
	for _, l := range strings.Split(string(data), "\n") {
		k, v, ok := strings.Cut(l, ":")
		if !ok {
			continue
		}
		switch strings.TrimSpace(k) {
		case "model name":
			if name == "unknown" {
				name = strings.TrimSpace(v)
			}
		case "flags":
			if flags == "" {
				flags = v
			}
		}
	}
	isa := "SSE"
	for _, f := range []string{"avx2", "avx512f"} {
		if strings.Contains(flags, " "+f) {
			isa = strings.ToUpper(f)
		}
	}
	return name + ", " + isa
}

// pipelineCheck prints the worst ratio of the default pipeline's time to --pipeline='s (issue
// 32: the default pipeline must never be slower than none, at most 1.05×).
func pipelineCheck(rows []realRow) {
	worst, worstName, over := 0.0, "", 0
	for _, r := range rows {
		if r.failed != "" || r.pipe <= 0 {
			continue
		}
		q := r.pipe
		if q > worst {
			worst, worstName = q, r.name
		}
		if q > 1.05 {
			over++
		}
	}
	if worstName != "" {
		fmt.Printf("default pipeline / --pipeline=: worst %.2f (%s); %d models above 1.05\n", worst, worstName, over)
	}
}
