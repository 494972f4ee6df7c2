// This file measures the compiler's peak memory (issue 25): graphc is built once and run as a
// subprocess on each model of the real-model set and on a generated 100,000-op chain, and its
// peak resident set (rusage Maxrss) is set beside the model's weight bytes and the target
// (peak ≤ 2.5 × weights + 64 MB; the chain under 300 MB).

package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/graphc/graphc/frontend/onnx"
	"github.com/graphc/graphc/internal/onnxgen"
	"github.com/graphc/graphc/internal/realmodel"
	"github.com/graphc/graphc/ir"
)

// memRow is one model's peak memory.
type memRow struct {
	name    string
	weights int64 // bytes of the initializers in their own element types
	peak    int64 // bytes of the compiler's peak resident set
	wall    time.Duration
	target  int64
	failed  string
}

// chainOps is the length of the generated chain (issue 25's 100,000-node chain).
const chainOps = 100000

// chainTarget is the chain's peak-memory target.
const chainTarget = 300 << 20

// runMem builds graphc into cache and reports its peak RSS compiling each wanted model of root
// and the generated chain (want["chain"], or every model when want is empty), with extra flags
// passed to each graphc run. It fails when a model misses its target.
func runMem(ctx context.Context, root, cache string, want map[string]bool, extra []string) error {
	bin := filepath.Join(cache, "graphc-mem")
	build := exec.CommandContext(ctx, "go", "build", "-o", bin, "./cmd/graphc")
	if out, err := build.CombinedOutput(); err != nil {
		return fmt.Errorf("building graphc: %w\n%s", err, out)
	}
	type model struct{ name, path string }
	var ms []model
	if names, err := realmodel.List(root); err == nil {
		for _, n := range names {
			if len(want) == 0 || want[n] {
				ms = append(ms, model{n, filepath.Join(root, n, "model.onnx")})
			}
		}
	} else if len(want) == 0 {
		fmt.Fprintf(os.Stderr, "no real models (%v): the chain only\n", err)
	}
	if len(want) == 0 || want["chain"] {
		p := filepath.Join(cache, "chain.onnx")
		if err := chainModel(chainOps).Write(p); err != nil {
			return err
		}
		ms = append(ms, model{"chain", p})
	}
	fmt.Printf("graphc peak resident set (rusage Maxrss), `graphc MODEL -o out.ll %s`; target 2.5 × weights + 64 MB, the chain %d MB\n", strings.Join(extra, " "), chainTarget>>20)
	fmt.Printf("%-22s %10s %10s %8s %10s %8s %s\n", "model", "weights MB", "peak MB", "peak/w", "target MB", "time s", "")
	failed := 0
	for _, m := range ms {
		r := measureMem(ctx, bin, m.name, m.path, filepath.Join(cache, "mem.ll"), extra)
		verdict := "ok"
		switch {
		case r.failed != "":
			verdict = "error: " + r.failed
			failed++
		case r.peak > r.target:
			verdict = "OVER"
			failed++
		}
		ratio := "-"
		if r.weights > 0 {
			ratio = fmt.Sprintf("%.2f", float64(r.peak)/float64(r.weights))
		}
		fmt.Printf("%-22s %10.1f %10.1f %8s %10.1f %8.2f %s\n", r.name, mb(r.weights), mb(r.peak), ratio, mb(r.target), r.wall.Seconds(), verdict)
	}
	_ = os.Remove(filepath.Join(cache, "mem.ll"))
	if failed > 0 {
		return fmt.Errorf("%d of %d models over their memory target or failing", failed, len(ms))
	}
	return nil
}

func mb(b int64) float64 { return float64(b) / (1 << 20) }

// measureMem runs graphc on one model and reads its peak RSS.
func measureMem(ctx context.Context, bin, name, path, out string, extra []string) memRow {
	r := memRow{name: name}
	w, err := weightBytes(path)
	if err != nil {
		r.failed = err.Error()
		return r
	}
	r.weights = w
	r.target = w*5/2 + 64<<20
	if name == "chain" {
		r.target = chainTarget
	}
	args := append([]string{path, "-o", out}, extra...)
	cmd := exec.CommandContext(ctx, bin, args...)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	start := time.Now()
	err = cmd.Run()
	r.wall = time.Since(start)
	if err != nil {
		r.failed = fmt.Sprintf("%v: %s", err, firstLine(stderr.String()))
		return r
	}
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		r.peak = ru.Maxrss << 10 // kilobytes on Linux
	}
	return r
}

// weightBytes sums the bytes of a model's initializers in their element types.
func weightBytes(path string) (int64, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return 0, err
	}
	m, err := onnx.Unmarshal(data)
	if err != nil {
		return 0, err
	}
	var n int64
	for _, t := range m.Graph.Initializer {
		e, err := onnx.DType(t.GetDataType())
		if err != nil {
			continue
		}
		k := int64(1)
		for _, d := range t.Dims {
			k *= d
		}
		n += k * int64(max(e.Size(), 1))
	}
	return n, nil
}

// chainModel is a chain of n Relu ops on f32[2] (the deep graph of hardening_test.go).
func chainModel(n int) *onnxgen.Model {
	m := onnxgen.New("chain", 17)
	m.Input("X", ir.F32, 2)
	prev := "X"
	for i := 0; i < n; i++ {
		next := fmt.Sprintf("v%d", i)
		m.Node("Relu", next, []string{prev}, []string{next})
		prev = next
	}
	m.Output(prev, ir.F32, 2)
	return m
}
