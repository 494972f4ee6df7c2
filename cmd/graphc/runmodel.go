// This file is graphc run: compile a model, build it as a shared library with clang-19, load it
// with package modelrt and run it on inputs from files, at random or from an ONNX test data
// set; then summarise the outputs, write them as .npy, compare them with expected outputs and
// time the calls.

package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/graphc/graphc"
	"github.com/graphc/graphc/frontend/onnx"
	"github.com/graphc/graphc/lower"
	"github.com/graphc/graphc/modelrt"
)

const runUsageText = `usage: graphc run [flags] MODEL [TEST_DATA_SET_DIR]

Compiles MODEL (the compile flags below are graphc's), builds it with clang-19 into a shared
library, loads it and calls it once; prints a summary of every output (shape, dtype, first
values, min/max/mean, NaN count).

Inputs: --input NAME=FILE (.npy, or an ONNX TensorProto .pb), --input NAME=random (seeded,
uniform in --range), --input random (every input not given otherwise), or a test data set
directory (input_<i>.pb, output_<i>.pb). NAME is the model's input name or in<i>.

Examples:
  graphc run model.onnx --input x=in.npy --output-dir out
  graphc run model.onnx test_data_set_0 --expect            compare with its output_<i>.pb
  graphc run model.onnx --input random --bench 20           time 20 calls after warm-up
  graphc run model.onnx --target=hexagon --input random     under qemu-hexagon (correctness only)

Flags:
`

// runFlags are the flags of graphc run beside the compile flags.
type runFlags struct {
	inputs    multiFlag
	outputDir string
	expect    expectFlag
	rtol      float64
	atol      float64
	bench     int
	seed      uint64
	rng       string
	show      int
}

// expectFlag is --expect (compare with the test data set's outputs) or --expect=DIR|FILE.
type expectFlag struct {
	set  bool
	path string
}

func (e *expectFlag) String() string { return e.path }
func (e *expectFlag) Set(s string) error {
	e.set = true
	if s != "true" {
		e.path = s
	}
	return nil
}
func (e *expectFlag) IsBoolFlag() bool { return true }

// runModel is graphc run.
func runModel(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("graphc run", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	var mf modelFlags
	mf.register(fs)
	var rf runFlags
	fs.Var(&rf.inputs, "input", "an input: NAME=FILE (.npy or .pb), NAME=random, or random for every input not given; repeatable")
	fs.StringVar(&rf.outputDir, "output-dir", "", "write every output to DIR/NAME.npy")
	fs.Var(&rf.expect, "expect", "compare the outputs with the test data set's (--expect) or with DIR (output_<i>.pb or NAME.npy) or FILE (--expect=PATH); exit status 1 on a mismatch")
	fs.Float64Var(&rf.rtol, "rtol", 1e-3, "relative tolerance of --expect (the ONNX backend tests' default)")
	fs.Float64Var(&rf.atol, "atol", 1e-5, "absolute tolerance of --expect: |got - want| <= atol + rtol·|want|")
	fs.IntVar(&rf.bench, "bench", 0, "time N calls after warm-up: min, median and max per call, and the workspace size")
	fs.Uint64Var(&rf.seed, "seed", 1, "seed of the random inputs")
	fs.StringVar(&rf.rng, "range", "", "the range of the random inputs (default -1,1 for floats, 0,9 for integers)")
	fs.IntVar(&rf.show, "show", 8, "how many leading values of each output the summary shows")
	help := fs.Bool("help", false, "show this help")
	fs.BoolVar(help, "h", false, "show this help")
	var positional []string
	for rest := args; ; {
		if err := fs.Parse(rest); err != nil {
			return usageErr("run: %v%s", err, suggestFlag(err, fs))
		}
		if fs.NArg() == 0 {
			break
		}
		positional = append(positional, fs.Arg(0))
		rest = fs.Args()[1:]
	}
	if *help {
		fmt.Fprint(stdout, runUsageText)
		printFlags(stdout, fs)
		return nil
	}
	if len(positional) < 1 || len(positional) > 2 {
		return usageErr("run: expected MODEL and at most one test data set directory, got %d arguments (see graphc run --help)", len(positional))
	}
	model := positional[0]
	if fi, err := os.Stat(model); err == nil && fi.IsDir() {
		return usageErr("run: %s is a directory; MODEL is a model file (.onnx, .pb, .pbtxt or .graph)", model)
	}
	var ds *dataSet
	if len(positional) == 2 {
		var err error
		if ds, err = readDataSet(positional[1]); err != nil {
			return inputErr(err)
		}
	}
	if rf.expect.set && rf.expect.path == "" && ds == nil {
		return usageErr("run: --expect without a value compares with a test data set's outputs: give the directory after MODEL, or --expect=DIR|FILE")
	}
	if rf.bench < 0 {
		return usageErr("run: --bench=%d: want a number of calls >= 1", rf.bench)
	}
	lo, hi, err := parseRange(rf.rng)
	if err != nil {
		return err
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	warnings, err := checkFlags(mf.checked(model, "lib", "", "", "", set))
	if err != nil {
		return err
	}
	for _, w := range warnings {
		fmt.Fprintf(stderr, "graphc: warning: %s\n", w)
	}
	opts, err := mf.options()
	if err != nil {
		return err
	}
	opts = append(opts, graphc.WithDumpWriter(stderr), graphc.WithSignature(), graphc.WithoutLLVMText())
	ctx := context.Background()
	setMemoryLimit(model)
	start := time.Now()
	res, bound, err := compileBinding(ctx, model, opts, ds, rf.inputs, stdout)
	if err != nil {
		return err
	}
	for _, d := range res.Diagnostics {
		if !d.Note {
			fmt.Fprintf(stderr, "%s: %s\n", model, d)
		}
	}
	// the inputs are read before clang builds the module, so that a bad input file is reported
	// without waiting for the build
	text, err := lower.SignatureJSON(res.Module.Entries[0], res.Module.Target, false)
	if err != nil {
		return err
	}
	sig, err := modelrt.ParseSignature(text)
	if err != nil {
		return err
	}
	inputs, err := gatherInputs(sig, ds, &rf, lo, hi, bound)
	if err != nil {
		return inputErr(err)
	}
	if res.Module.Target.Name == "hexagon" || res.Module.Target.Name == "aarch64" {
		return runHexagon(ctx, res, model, sig, inputs, ds, &rf, stdout)
	}
	dir, err := os.MkdirTemp("", "graphc-run-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	so, err := lower.Build(ctx, res.Module, "lib")
	if err != nil {
		return inputErr(err)
	}
	lib := filepath.Join(dir, "model.so")
	if err := os.WriteFile(lib, so, 0o755); err != nil {
		return err
	}
	built := time.Since(start)
	lopts := []modelrt.LoadOption{modelrt.WithEntry(res.Module.Entry)}
	if mf.weights != "" {
		lopts = append(lopts, modelrt.WithWeights(mf.weights))
	}
	m, err := modelrt.Load(lib, lopts...)
	if err != nil {
		return inputErr(err)
	}
	defer m.Close()
	sig = m.Signature()
	outs, err := m.Run(ctx, inputs...)
	if err != nil {
		return inputErr(err)
	}
	dims, _ := sig.InferDims(shapesOf(inputs))
	ws, _ := m.WorkspaceSize(dims)
	fmt.Fprintf(stdout, "%s: %s, compiled and built in %.2f s; workspace %d bytes\n", model, targetDesc(res), built.Seconds(), ws)
	return finish(ctx, sig, inputs, outs, ds, &rf, stdout, func(n int) (benchTimes, error) { return benchLib(ctx, m, inputs, n, threadNote(mf.threads)) })
}

// finish prints and writes the outputs, compares them and times the calls: what graphc run does
// after the first call on every target.
func finish(ctx context.Context, sig *modelrt.Signature, inputs, outs []*modelrt.Tensor, ds *dataSet, rf *runFlags, stdout io.Writer,
	bench func(n int) (benchTimes, error)) error {
	for i, o := range outs {
		fmt.Fprint(stdout, summary(sig.Outputs[i].Name, o, rf.show))
	}
	if rf.outputDir != "" {
		if err := os.MkdirAll(rf.outputDir, 0o755); err != nil {
			return inputErr(err)
		}
		for i, o := range outs {
			p := filepath.Join(rf.outputDir, sanitizeName(sig.Outputs[i].Name)+".npy")
			if err := writeNpy(p, o); err != nil {
				return inputErr(fmt.Errorf("writing output %q: %w", sig.Outputs[i].Name, err))
			}
		}
		fmt.Fprintf(stdout, "wrote %d outputs to %s\n", len(outs), rf.outputDir)
	}
	var mismatch error
	if rf.expect.set {
		want, err := expectedOutputs(sig, ds, rf.expect.path)
		if err != nil {
			return inputErr(err)
		}
		bad := 0
		for i, o := range outs {
			line, ok := compare(sig.Outputs[i].Name, o, want[i], rf.rtol, rf.atol)
			fmt.Fprintln(stdout, line)
			if !ok {
				bad++
			}
		}
		if bad > 0 {
			mismatch = inputErr(fmt.Errorf("%d of %d outputs differ from the expected outputs (rtol %g, atol %g)", bad, len(outs), rf.rtol, rf.atol))
		} else {
			fmt.Fprintf(stdout, "all %d outputs match (rtol %g, atol %g)\n", len(outs), rf.rtol, rf.atol)
		}
	}
	if rf.bench > 0 {
		bt, err := bench(rf.bench)
		if err != nil {
			return inputErr(err)
		}
		fmt.Fprint(stdout, bt.String())
	}
	return mismatch
}

// parseRange parses --range=LO,HI.
func parseRange(s string) (lo, hi float64, err error) {
	if s == "" {
		return 0, 0, nil
	}
	a, b, ok := strings.Cut(s, ",")
	lo, err1 := strconv.ParseFloat(strings.TrimSpace(a), 64)
	hi, err2 := strconv.ParseFloat(strings.TrimSpace(b), 64)
	if !ok || err1 != nil || err2 != nil || hi < lo {
		return 0, 0, usageErr("run: --range=%s: want LO,HI with LO <= HI", s)
	}
	return lo, hi, nil
}

// fitsBytes reports whether a tensor of shape with elements of size bytes holds at most max
// bytes (without overflowing).
func fitsBytes(shape []int64, size, max int64) bool {
	n := size
	for _, d := range shape {
		if d < 0 || d > 0 && n > max/d {
			return false
		}
		n *= d
	}
	return n <= max
}

// maxRandomBytes bounds a random input (a --dim typo must not exhaust the memory).
const maxRandomBytes = 4 << 30

// gatherInputs returns the inputs in signature order: from the test data set, then --input
// (which overrides it), random ones last (their shapes may take symbolic dims from the others).
func gatherInputs(sig *modelrt.Signature, ds *dataSet, rf *runFlags, lo, hi float64, bound map[string]bool) ([]*modelrt.Tensor, error) {
	inputs := make([]*modelrt.Tensor, len(sig.Inputs))
	from := make([]string, len(sig.Inputs))
	if ds != nil {
		files := ds.inputs
		if len(bound) > 0 {
			// the inputs bound at compile time are no longer arguments
			files = nil
			for _, p := range ds.inputs {
				_, name, err := readNamedTensorProto(p)
				if err != nil {
					return nil, err
				}
				if !bound[name] {
					files = append(files, p)
				}
			}
		}
		if len(files) != len(sig.Inputs) {
			return nil, fmt.Errorf("%s has %d input_<i>.pb files for the model's %d inputs (%s)", ds.dir, len(files), len(sig.Inputs), argNames(sig.Inputs))
		}
		for i, p := range files {
			t, err := readTensorFile(p, sig.Inputs[i].DType)
			if err != nil {
				return nil, fmt.Errorf("input %q: %w", sig.Inputs[i].Name, err)
			}
			inputs[i], from[i] = t, p
		}
	}
	random := make([]bool, len(sig.Inputs))
	allRandom := false
	for _, spec := range rf.inputs {
		if spec == "random" {
			allRandom = true
			continue
		}
		name, val, ok := strings.Cut(spec, "=")
		if !ok || name == "" || val == "" {
			return nil, usageErr("run: --input %q: want NAME=FILE, NAME=random or random", spec)
		}
		if bound[name] {
			continue // bound at compile time
		}
		i := argIndex(sig.Inputs, name, "in")
		if i < 0 {
			return nil, usageErr("run: --input %s: the model has no input %q; its inputs are %s", spec, name, argNames(sig.Inputs))
		}
		if val == "random" {
			random[i], inputs[i] = true, nil
			continue
		}
		t, err := readTensorFile(val, sig.Inputs[i].DType)
		if err != nil {
			return nil, fmt.Errorf("input %q: %w", sig.Inputs[i].Name, err)
		}
		inputs[i], from[i] = t, val
	}
	var missing []string
	for i := range inputs {
		if inputs[i] == nil && !random[i] {
			if !allRandom {
				a := sig.Inputs[i]
				missing = append(missing, fmt.Sprintf("%s (%s%s)", a.Name, a.DType, modelrt.ShapeString(a.Shape)))
				continue
			}
			random[i] = true
		}
	}
	if len(missing) > 0 {
		return nil, usageErr("run: no value for input %s: give --input NAME=FILE, --input NAME=random or --input random", strings.Join(missing, ", "))
	}
	// the dims the given inputs fix, for the shapes of the random ones
	var dims map[string]int64
	shapes := make([][]int64, len(inputs))
	for i, t := range inputs {
		if t != nil {
			shapes[i] = t.Shape
		}
	}
	for i := range inputs {
		if !random[i] {
			continue
		}
		a := sig.Inputs[i]
		if dims == nil {
			d, err := sig.InferDims(shapes)
			if err != nil && len(sig.Params) > 0 {
				return nil, usageErr("run: input %q is random but its shape %s is symbolic and the other inputs do not fix it (%v): bind the dims with --dim NAME=VALUE", a.Name, modelrt.ShapeString(a.Shape), err)
			}
			dims = d
		}
		shape, err := a.ShapeFor(dims)
		if err != nil {
			return nil, usageErr("run: input %q: %v: bind the dims with --dim NAME=VALUE", a.Name, err)
		}
		if !fitsBytes(shape, int64(a.DType.Size()), maxRandomBytes) {
			return nil, usageErr("run: input %q: a random %s%v would take more than the %d bytes graphc run generates", a.Name, a.DType, shape, int64(maxRandomBytes))
		}
		l, h := lo, hi
		if rf.rng == "" {
			l, h = -1, 1
			if !a.DType.IsFloat() {
				l, h = 0, 9
			}
		}
		r := rand.New(rand.NewPCG(rf.seed, uint64(i)))
		inputs[i] = randomTensor(r, a.DType, shape, l, h)
	}
	for i, t := range inputs {
		if t.DType != sig.Inputs[i].DType {
			a := sig.Inputs[i]
			return nil, fmt.Errorf("input %q: %s holds %s, the model takes %s%s", a.Name, from[i], t.DType, a.DType, modelrt.ShapeString(a.Shape))
		}
	}
	return inputs, nil
}

func shapesOf(ts []*modelrt.Tensor) [][]int64 {
	out := make([][]int64, len(ts))
	for i, t := range ts {
		out[i] = t.Shape
	}
	return out
}

// targetDesc names what the module was built for.
func targetDesc(res *graphc.Result) string {
	s := res.Module.Target.Name
	if res.Module.CPU != "" {
		s += ", cpu=" + res.Module.CPU
	}
	return s
}

// expectedOutputs reads the expected outputs: the test data set's (path ""), a directory of
// output_<i>.pb or NAME.npy files, or one file for a model with one output.
func expectedOutputs(sig *modelrt.Signature, ds *dataSet, path string) ([]*modelrt.Tensor, error) {
	want := make([]*modelrt.Tensor, len(sig.Outputs))
	var files []string
	switch fi, err := os.Stat(path); {
	case path == "":
		files = ds.outputs
	case err != nil:
		return nil, fmt.Errorf("--expect: %w", err)
	case fi.IsDir():
		if eds, err := readDataSet(path); err == nil && len(eds.outputs) > 0 {
			files = eds.outputs
			break
		}
		for _, o := range sig.Outputs {
			files = append(files, filepath.Join(path, sanitizeName(o.Name)+".npy"))
		}
	default:
		if len(sig.Outputs) != 1 {
			return nil, usageErr("run: --expect=%s: one file for a model with %d outputs; give a directory of output_<i>.pb or NAME.npy files", path, len(sig.Outputs))
		}
		files = []string{path}
	}
	if len(files) != len(sig.Outputs) {
		return nil, fmt.Errorf("--expect: %d expected outputs, the model has %d (%s)", len(files), len(sig.Outputs), argNames(sig.Outputs))
	}
	for i, p := range files {
		var t *modelrt.Tensor
		var err error
		if strings.HasSuffix(p, ".npy") {
			var a *npyArray
			if a, err = readNpy(p); err == nil {
				// bfloat16 and float8 outputs are compared by value: any float array will do
				if dt, ok := npyDType(a.descr); ok {
					t = modelrt.FromBytes(dt, a.shape, a.data)
				} else {
					err = fmt.Errorf("%s: NumPy dtype %q has no graphc element type", p, a.descr)
				}
			}
		} else {
			t, err = readTensorFile(p, sig.Outputs[i].DType)
		}
		if err != nil {
			return nil, fmt.Errorf("expected output %q: %w", sig.Outputs[i].Name, err)
		}
		want[i] = t
	}
	return want, nil
}

// compileBinding compiles the model; when the import needs the value of a graph input at
// compile time (onnx.NeedConstError: an output shape depends on it) and --input or the test
// data set gives that value, it binds the input to it and compiles again. It returns the names
// of the inputs it bound.
func compileBinding(ctx context.Context, model string, opts []graphc.Option, ds *dataSet, specs []string, stdout io.Writer) (*graphc.Result, map[string]bool, error) {
	bound := map[string]bool{}
	var extra []graphc.Option
	for {
		res, err := graphc.Compile(ctx, model, append(opts, extra...)...)
		var nc *onnx.NeedConstError
		if err == nil || !errors.As(err, &nc) {
			return res, bound, err
		}
		progress := false
		for _, name := range nc.Inputs() {
			if bound[name] {
				continue
			}
			t, from, verr := boundValue(name, ds, specs)
			if verr != nil {
				return nil, nil, inputErr(fmt.Errorf("input %q: %w", name, verr))
			}
			if t == nil {
				continue
			}
			fmt.Fprintf(stdout, "input %q is bound at compile time to %s (the model needs its values to know its shapes)\n", name, from)
			bound[name] = true
			extra = append(extra, graphc.WithConstInput(name, t))
			progress = true
		}
		if !progress {
			return nil, nil, fmt.Errorf("%w (give its value with --input NAME=FILE or a test data set, and graphc run binds it)", err)
		}
	}
}

// inputErr makes err a bad-input error (exit status 1) unless it already carries a status.
func inputErr(err error) error {
	var ce *cliError
	if errors.As(err, &ce) {
		return err
	}
	return &cliError{exitInput, err}
}

// the values of graphc run's flags, for the help text (printFlags)
func init() {
	for name, arg := range map[string]string{"input": "NAME=FILE|random", "output-dir": "DIR", "bench": "N", "range": "LO,HI",
		"seed": "N", "show": "N", "rtol": "R", "atol": "A"} {
		flagArgs[name] = arg
	}
}
