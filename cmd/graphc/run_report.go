// This file holds what graphc run prints: the summary of an output, the comparison with an
// expected output, and the timing of --bench.

package main

import (
	"context"
	"fmt"
	"math"
	"os"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/graphc/graphc/modelrt"
)

// summary describes one output: type and shape, the first values, min, max, mean and the NaN
// count.
func summary(name string, t *modelrt.Tensor, show int) string {
	var sb strings.Builder
	fmt.Fprintf(&sb, "output %q: %s%v\n", name, t.DType, t.Shape)
	vals, err := t.Float64s()
	if err != nil {
		fmt.Fprintf(&sb, "  (cannot decode: %v)\n", err)
		return sb.String()
	}
	if len(vals) == 0 {
		sb.WriteString("  no elements\n")
		return sb.String()
	}
	var first []string
	for _, v := range vals[:min(show, len(vals))] {
		first = append(first, fmtVal(v))
	}
	more := ""
	if len(vals) > show {
		more = " ..."
	}
	fmt.Fprintf(&sb, "  values: %s%s\n", strings.Join(first, " "), more)
	lo, hi, sum, nans, n := math.Inf(1), math.Inf(-1), 0.0, 0, 0
	for _, v := range vals {
		if math.IsNaN(v) {
			nans++
			continue
		}
		lo, hi = math.Min(lo, v), math.Max(hi, v)
		sum += v
		n++
	}
	if n == 0 {
		fmt.Fprintf(&sb, "  min NaN, max NaN, mean NaN, NaN %d of %d\n", nans, len(vals))
		return sb.String()
	}
	fmt.Fprintf(&sb, "  min %s, max %s, mean %s, NaN %d\n", fmtVal(lo), fmtVal(hi), fmtVal(sum/float64(n)), nans)
	return sb.String()
}

func fmtVal(v float64) string { return strconv.FormatFloat(v, 'g', 6, 64) }

// compare checks got against want elementwise: |got - want| <= atol + rtol·|want|, NaN equal
// to NaN and infinities to themselves. It returns a line saying how they compare and where
// the worst element is.
func compare(name string, got, want *modelrt.Tensor, rtol, atol float64) (string, bool) {
	if fmt.Sprint(got.Shape) != fmt.Sprint(want.Shape) {
		return fmt.Sprintf("output %q: MISMATCH: shape %v, expected %v", name, got.Shape, want.Shape), false
	}
	g, err1 := got.Float64s()
	w, err2 := want.Float64s()
	if err1 != nil || err2 != nil {
		return fmt.Sprintf("output %q: MISMATCH: cannot decode (%v, %v)", name, err1, err2), false
	}
	bad, worst, worstExcess, maxDiff := 0, -1, 0.0, 0.0
	for i := range g {
		a, b := g[i], w[i]
		if math.IsNaN(a) && math.IsNaN(b) || a == b {
			continue
		}
		d := math.Abs(a - b)
		tol := atol + rtol*math.Abs(b)
		if !math.IsNaN(d) && !math.IsInf(d, 0) {
			maxDiff = math.Max(maxDiff, d)
		}
		excess := d / tol
		if math.IsNaN(d) || math.IsInf(d, 0) {
			excess = math.Inf(1)
		}
		if d > tol || math.IsNaN(d) {
			bad++
			if worst < 0 || excess > worstExcess {
				worst, worstExcess = i, excess
			}
		}
	}
	if bad == 0 {
		return fmt.Sprintf("output %q: matches, max |diff| %s", name, fmtVal(maxDiff)), true
	}
	d := math.Abs(g[worst] - w[worst])
	return fmt.Sprintf("output %q: MISMATCH: %d of %d elements differ; worst at %v: got %s, want %s (|diff| %s > atol + rtol·|want| = %s)",
		name, bad, len(g), unravel(worst, got.Shape), fmtVal(g[worst]), fmtVal(w[worst]), fmtVal(d), fmtVal(atol+rtol*math.Abs(w[worst]))), false
}

// unravel turns a flat row-major index into a multi-index.
func unravel(i int, shape []int64) []int64 {
	idx := make([]int64, len(shape))
	for d := len(shape) - 1; d >= 0; d-- {
		if shape[d] > 0 {
			idx[d] = int64(i) % shape[d]
			i /= int(shape[d])
		}
	}
	return idx
}

// benchTimes is the result of --bench.
type benchTimes struct {
	calls, warmup int
	min, med, max time.Duration
	cpu           time.Duration // process CPU time per call (0: not measured)
	workspace     int64
	note          string
}

func (b benchTimes) String() string {
	ms := func(d time.Duration) string { return fmt.Sprintf("%.3f ms", float64(d.Nanoseconds())/1e6) }
	s := fmt.Sprintf("bench: %d calls after %d warm-up: min %s, median %s, max %s per call", b.calls, b.warmup, ms(b.min), ms(b.med), ms(b.max))
	if b.cpu > 0 {
		s += fmt.Sprintf(" (process CPU %s per call)", ms(b.cpu))
	}
	s += fmt.Sprintf("; workspace %d bytes", b.workspace)
	if b.note != "" {
		s += "; " + b.note
	}
	return s + "\n"
}

// benchLib times n calls of a loaded module after warm-up calls, writing into outputs
// allocated once.
func benchLib(ctx context.Context, m *modelrt.Model, inputs []*modelrt.Tensor, n int, note string) (benchTimes, error) {
	sig := m.Signature()
	dims, err := sig.InferDims(shapesOf(inputs))
	if err != nil {
		return benchTimes{}, err
	}
	outs := make([]*modelrt.Tensor, len(sig.Outputs))
	for i, o := range sig.Outputs {
		shape, err := o.ShapeFor(sig.AtBounds(dims)) // outputs of bounded dims at their bounds
		if err != nil {
			return benchTimes{}, err
		}
		if outs[i], err = modelrt.Zeros(o.DType, shape); err != nil {
			return benchTimes{}, err
		}
	}
	ws, err := m.WorkspaceSize(dims)
	if err != nil {
		return benchTimes{}, err
	}
	warm := 3
	for i := 0; i < warm; i++ {
		if err := m.RunInto(ctx, inputs, outs); err != nil {
			return benchTimes{}, err
		}
	}
	ts := make([]time.Duration, n)
	cpu0 := processCPU()
	for i := range ts {
		t0 := time.Now()
		if err := m.RunInto(ctx, inputs, outs); err != nil {
			return benchTimes{}, err
		}
		ts[i] = time.Since(t0)
	}
	cpu := (processCPU() - cpu0) / time.Duration(n)
	sort.Slice(ts, func(a, b int) bool { return ts[a] < ts[b] })
	return benchTimes{calls: n, warmup: warm, min: ts[0], med: ts[n/2], max: ts[n-1], cpu: cpu, workspace: ws, note: note}, nil
}

// threadNote says on how many threads the calls of a module built with --threads=mode ran:
// ENTRY runs on the module's default pool only with pool (the default).
func threadNote(mode string) string {
	if mode != "pool" && mode != "" {
		return "one thread"
	}
	if n, err := strconv.Atoi(os.Getenv("GRAPHC_NUM_THREADS")); err == nil && n > 0 {
		return fmt.Sprintf("default pool, GRAPHC_NUM_THREADS=%d", n)
	}
	return fmt.Sprintf("default pool, %d threads (online CPUs, at most 16; GRAPHC_NUM_THREADS unset)", min(runtime.NumCPU(), 16))
}

// processCPU returns the CPU time the process has used (user + system).
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
