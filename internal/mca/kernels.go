// This file holds the kernels whose AArch64 hot loops the benchmark table and the regression
// test predict: a 512³ f32 matmul, a 3×3 f32 convolution at 56×56 with 64 channels in and out
// (channels-last, as the default pipeline stores an intermediate image), and a 512³ int8
// matmul and a 3×3 int8 convolution at 56×56 (u8 activations, constant i8 weights), compiled
// through the default pipeline.

package mca

import (
	"context"
	"fmt"
	"math/rand/v2"
	"regexp"

	"github.com/graphc/graphc/ir"
	"github.com/graphc/graphc/lower"
	"github.com/graphc/graphc/passes"
)

// Kernel is a graph whose hot loop is predicted, with the arithmetic that bounds it.
type Kernel struct {
	Name  string
	Build func() (*ir.Graph, error)
	// Instr matches the arithmetic instructions (fmla; sdot, usdot or udot)
	Instr *regexp.Regexp
}

var (
	fmlaRe = regexp.MustCompile(`\bfmla\s+v\d+\.4s`)
	dotRe  = regexp.MustCompile(`\b(sdot|udot|usdot|sudot|smmla|ummla|usmmla)\s+v\d+\.4s`)
)

// Kernels returns the standard kernels: matmul-512, conv3x3-56x64, int8-matmul-512 and
// int8-conv3x3-56x64.
func Kernels() []Kernel {
	return []Kernel{
		{"matmul-512", func() (*ir.Graph, error) {
			return ir.Parse(`graph @mm(%A: f32[512, 512], %B: f32[512, 512]) {
  %C = matmul(%A, %B) : f32[512, 512]
  return %C
}`)
		}, fmlaRe},
		{"conv3x3-56x64", conv3x3, fmlaRe},
		{"int8-matmul-512", int8MatMul, dotRe},
		{"int8-conv3x3-56x64", int8Conv3x3, dotRe},
	}
}

// conv3x3 is a padded 3×3 convolution of 64 channels at 56×56 with constant random weights,
// between two relus (the channels-last pass stores its input and result NHWC).
func conv3x3() (*ir.Graph, error) {
	g, err := ir.Parse(`graph @conv(%x: f32[1, 64, 56, 56]) {
  %r = relu(%x) : f32[1, 64, 56, 56]
  return %r
}`)
	if err != nil {
		return nil, err
	}
	r := rand.New(rand.NewPCG(3, 4))
	w := ir.NewTensor(ir.F32, []int64{64, 64, 3, 3})
	for i := range w.F {
		w.F[i] = r.Float64()*2 - 1
	}
	conv, err := g.NewOp("conv", "y", []*ir.Value{g.Outputs[0], g.AddConst("w", w)}, ir.Attrs{"pads": ir.IntsAttr(1, 1, 1, 1)})
	if err != nil {
		return nil, err
	}
	relu, err := g.NewOp("relu", "o", []*ir.Value{conv.Result}, nil)
	if err != nil {
		return nil, err
	}
	g.Outputs = []*ir.Value{relu.Result}
	return g, ir.Verify(g)
}

// int8Conv3x3 is conv3x3 quantized: u8 activations (after an elementwise op, so that the
// channels-last pass stores them NHWC), constant random i8 weights.
func int8Conv3x3() (*ir.Graph, error) {
	g, err := ir.Parse(`graph @qconv(%x: u8[1, 64, 56, 56]) {
  %r = max(%x, %x) : u8[1, 64, 56, 56]
  return %r
}`)
	if err != nil {
		return nil, err
	}
	r := rand.New(rand.NewPCG(5, 6))
	w := ir.NewTensor(ir.I8, []int64{64, 64, 3, 3})
	for i := range w.I {
		w.I[i] = r.Int64N(256) - 128
	}
	xz := ir.NewTensor(ir.U8, nil)
	xz.I[0] = 7
	wz := ir.NewTensor(ir.I8, nil)
	op, err := g.NewOp("conv_integer", "acc", []*ir.Value{g.Outputs[0], g.AddConst("w", w), g.AddConst("xz", xz), g.AddConst("wz", wz)},
		ir.Attrs{"pads": ir.IntsAttr(1, 1, 1, 1)})
	if err != nil {
		return nil, err
	}
	g.Outputs = []*ir.Value{op.Result}
	return g, ir.Verify(g)
}

// int8MatMul is a 512³ matmul_integer of u8 activations by constant random i8 weights.
func int8MatMul() (*ir.Graph, error) {
	g, err := ir.Parse(`graph @qmm(%x: u8[512, 512]) {
  return %x
}`)
	if err != nil {
		return nil, err
	}
	r := rand.New(rand.NewPCG(1, 2))
	w := ir.NewTensor(ir.I8, []int64{512, 512})
	for i := range w.I {
		w.I[i] = r.Int64N(256) - 128
	}
	xz := ir.NewTensor(ir.U8, nil)
	xz.I[0] = 3
	wz := ir.NewTensor(ir.I8, nil)
	op, err := g.NewOp("matmul_integer", "acc", []*ir.Value{g.Inputs[0], g.AddConst("w", w), g.AddConst("xz", xz), g.AddConst("wz", wz)}, nil)
	if err != nil {
		return nil, err
	}
	g.Outputs = []*ir.Value{op.Result}
	return g, ir.Verify(g)
}

// Measure compiles k for the AArch64 CPU cpu through the default pipeline and predicts its hot
// loop on that CPU's scheduling model.
func Measure(ctx context.Context, k Kernel, cpu string) (Report, error) {
	g, err := k.Build()
	if err != nil {
		return Report{}, fmt.Errorf("%s: %w", k.Name, err)
	}
	ps, err := passes.ParsePipeline(passes.DefaultPipeline)
	if err != nil {
		return Report{}, err
	}
	if _, err := passes.Run(ctx, g, ps, &passes.Options{VerifyEach: true}); err != nil {
		return Report{}, fmt.Errorf("%s: %w", k.Name, err)
	}
	t, err := lower.LoadTarget("aarch64")
	if err != nil {
		return Report{}, err
	}
	mod, err := lower.Lower(ctx, g, lower.Config{Target: t, CPU: cpu})
	if err != nil {
		return Report{}, fmt.Errorf("%s: %w", k.Name, err)
	}
	asm, err := lower.Build(ctx, mod, "asm")
	if err != nil {
		return Report{}, fmt.Errorf("%s: %w", k.Name, err)
	}
	lp, ok := HotLoop(string(asm), k.Instr)
	if !ok {
		return Report{}, fmt.Errorf("%s: no loop of %s instructions in the assembly for %s", k.Name, k.Instr, cpu)
	}
	rep, err := Analyze(ctx, lp, t.Triple, cpu, k.Instr)
	if err != nil {
		return Report{}, fmt.Errorf("%s: %w", k.Name, err)
	}
	return rep, nil
}
