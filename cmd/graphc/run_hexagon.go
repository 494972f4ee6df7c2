// This file is graphc run --target=hexagon and --target=aarch64: the model is built into a
// freestanding Hexagon program (a static AArch64 one) with the driver of the test harness
// (internal/e2e) and run under qemu-hexagon (qemu-aarch64), for correctness only: an
// emulator's timings mean nothing.

package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"

	"github.com/graphc/graphc"
	"github.com/graphc/graphc/internal/e2e"
	"github.com/graphc/graphc/ir"
	"github.com/graphc/graphc/modelrt"
)

// qemuHexagonCPU is the CPU qemu-hexagon runs (qemu 7.2 knows v67, and cannot execute HVX
// floating point, which starts at v68).
const qemuHexagonCPU = "hexagonv67"

// runHexagon runs the compiled graph on inputs as a Hexagon program under qemu-hexagon, or as
// an AArch64 program under qemu-aarch64.
func runHexagon(ctx context.Context, res *graphc.Result, model string, sig *modelrt.Signature, inputs []*modelrt.Tensor, ds *dataSet, rf *runFlags, stdout io.Writer) error {
	target := res.Module.Target.Name
	qemu := "qemu-" + target
	if target == "aarch64" {
		if why := e2e.AArch64Missing(); why != "" {
			return inputErr(fmt.Errorf("run --target=aarch64 needs qemu-aarch64 and the arm64 cross C library (Debian's qemu-user, libc6-dev-arm64-cross, libgcc-12-dev-arm64-cross): %s", why))
		}
	} else if _, err := exec.LookPath("qemu-hexagon"); err != nil {
		return inputErr(fmt.Errorf("run --target=hexagon needs qemu-hexagon (Debian's qemu-user) to run the program: %w", err))
	}
	e := res.Module.Entries[0]
	if e.Weights != nil {
		return usageErr("run: --weights is not supported with --target=%s (the emulated program holds its weights)", target)
	}
	// check the inputs as modelrt would, and bind the dims
	dims, err := sig.InferDims(shapesOf(inputs))
	if err != nil {
		return inputErr(err)
	}
	var irIn []*ir.Tensor
	for i, t := range inputs {
		want, err := sig.Inputs[i].ShapeFor(dims)
		if err != nil || fmt.Sprint(want) != fmt.Sprint(t.Shape) {
			return inputErr(fmt.Errorf("input %q has shape %v, the model takes %s", sig.Inputs[i].Name, t.Shape, modelrt.ShapeString(sig.Inputs[i].Shape)))
		}
		it, err := t.IR()
		if err != nil {
			return inputErr(fmt.Errorf("input %q: %w", sig.Inputs[i].Name, err))
		}
		irIn = append(irIn, it)
	}
	cpu := res.Module.CPU
	m := e2e.Machine{Target: target, CPU: cpu, Attrs: res.Module.Attrs}
	how := "qemu-aarch64"
	if target == "hexagon" {
		if cpu == "" || cpu == "hexagonv68" && res.Module.Attrs == "+hvxv68,+hvx-length128b" {
			// the default CPU: build for what qemu runs
			cpu = qemuHexagonCPU
		}
		m = e2e.Machine{Target: "hexagon", CPU: cpu}
		if cpu == res.Module.CPU {
			m.Attrs = res.Module.Attrs
		}
		how = "qemu-hexagon -cpu v67"
	}
	fmt.Fprintf(stdout, "%s: %s, cpu=%s, run under %s: correctness only, not timed (an emulator)\n", model, target, cpu, how)
	dir, err := os.MkdirTemp("", "graphc-run-"+target+"-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	prog, err := e2e.BuildBatch(ctx, dir, m, []*e2e.Case{{Graph: res.Graph, Inputs: irIn, Params: dims}})
	if err != nil {
		return inputErr(err)
	}
	r := prog.Run(ctx)[0]
	if r.Err != nil {
		return inputErr(fmt.Errorf("%s: %w", qemu, r.Err))
	}
	if r.Status != 0 {
		return &cliError{exitInput, &modelrt.StatusError{Entry: e.Name, Status: int32(r.Status)}}
	}
	outs := make([]*modelrt.Tensor, len(r.Outputs))
	for i, o := range r.Outputs {
		outs[i] = modelrt.FromIR(o)
	}
	return finish(ctx, sig, inputs, outs, ds, rf, stdout, func(int) (benchTimes, error) {
		if target == "aarch64" {
			return benchTimes{}, fmt.Errorf("--bench: aarch64 code runs under qemu-aarch64, an emulator: its timings mean nothing (correctness only; graphc-bench -mca predicts the kernels' speed)")
		}
		return benchTimes{}, fmt.Errorf("--bench: hexagon code runs under qemu-hexagon, an emulator: its timings mean nothing (correctness only)")
	})
}
