// This file holds the library API: Compile and its functional options.

package graphc

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strings"
	"time"

	"github.com/graphc/graphc/frontend/onnx"
	"github.com/graphc/graphc/frontend/tf"
	"github.com/graphc/graphc/ir"
	"github.com/graphc/graphc/lower"
	"github.com/graphc/graphc/passes"
	"github.com/graphc/graphc/volume"
)

// Option configures Compile.
type Option func(*config) error

type config struct {
	target     string
	entry      string
	cpu, attrs string
	pipeline   string
	requires   []string
	dims       map[string]int64
	initInputs bool
	// constInputs binds ONNX graph inputs to data (WithConstInput)
	constInputs map[string]*ir.Tensor
	limits      ir.Limits
	source      string // the model file, named in lowering errors
	outputs     []string
	popts       passes.Options
	// printLowering names the lowering stages after which the plan is dumped (lower.Stages)
	printLowering []string
	noLower       bool
	profile       bool
	signature     bool
	llvmOut       io.Writer
	noText        bool
	weights       string
	threads       lower.ThreadMode
}

// WithTarget selects the target (x86-64, aarch64, hexagon).
func WithTarget(name string) Option { return func(c *config) error { c.target = name; return nil } }

// WithProfile makes the entry count the cycles spent in each op's kernel; the module then
// exports ENTRY_profile (see lower.Config.Profile). For finding slow ops, not for production:
// the entry is no longer re-entrant.
func WithProfile() Option { return func(c *config) error { c.profile = true; return nil } }

// WithThreads chooses the module's threading (issue 33): "pool" (the default) emits
// ENTRY_parallel, which takes the caller's parallel-for, and runs ENTRY on a thread pool
// emitted into the module (serially on freestanding targets such as Hexagon); "caller" emits
// ENTRY_parallel and a serial ENTRY, without the pool; "none" a single-threaded module without
// ENTRY_parallel. See lower.ThreadMode.
func WithThreads(mode string) Option {
	return func(c *config) error {
		m, err := lower.ParseThreadMode(mode)
		c.threads = m
		return err
	}
}

// WithSignature makes the module export `const char *ENTRY_signature(void)`, the entry's ABI
// as JSON (inputs, outputs, element types, shapes over the symbolic dims, weights file): what
// modelrt.Load reads to call a shared library built from the module. Off by default, so that
// modules stay as they were; graphc --emit=lib and graphc run turn it on.
func WithSignature() Option { return func(c *config) error { c.signature = true; return nil } }

// WithEntry names the entry function (default main_graph).
func WithEntry(name string) Option { return func(c *config) error { c.entry = name; return nil } }

// WithCPU selects the target CPU as llc's -mcpu: that CPU's own default features and vector
// width (lower/targets); an unknown CPU is an error listing the valid ones.
func WithCPU(cpu string) Option { return func(c *config) error { c.cpu = cpu; return nil } }

// WithAttrs edits the CPU's default features as llc's -mattr does ("+a" adds, "-b" removes).
func WithAttrs(a string) Option { return func(c *config) error { c.attrs = a; return nil } }

// WithPipeline sets the pass pipeline ("" runs no pass).
func WithPipeline(p string) Option { return func(c *config) error { c.pipeline = p; return nil } }

// WithRequire narrows the required region of an output ("OUT[i, j] : constraints").
func WithRequire(spec string) Option {
	return func(c *config) error { c.requires = append(c.requires, spec); return nil }
}

// WithOutputs selects the outputs of a TensorFlow graph ("name" or "name:port").
func WithOutputs(names ...string) Option {
	return func(c *config) error { c.outputs = append(c.outputs, names...); return nil }
}

// WithDim binds a symbolic dimension to a value at compile time.
func WithDim(name string, v int64) Option {
	return func(c *config) error {
		if v < 0 {
			return usageErr(fmt.Errorf("--dim %s=%d: a dimension cannot be negative", name, v))
		}
		c.dims[name] = v
		return nil
	}
}

// WithConstInput binds the ONNX graph input name to data at import (onnx.WithConstInput): the
// compiled entry is specialised for that value and no longer takes it as an argument. This is
// what an op whose output shape depends on its input values (Col2Im's image_shape, NonZero's
// input, a dynamic Reshape's shape) needs when that value is a graph input: the import then
// fails with an onnx.NeedConstError naming it. ONNX models only.
func WithConstInput(name string, data *ir.Tensor) Option {
	return func(c *config) error {
		if c.constInputs == nil {
			c.constInputs = map[string]*ir.Tensor{}
		}
		c.constInputs[name] = data
		return nil
	}
}

// WithInitializerInputs makes the initializers an ONNX model also lists as graph inputs runtime
// inputs of the compiled function; by default they are constants embedded in the code.
func WithInitializerInputs() Option { return func(c *config) error { c.initInputs = true; return nil } }

// WithLimits bounds what a model may declare: file size, node count, constant and tensor
// sizes, string lengths. Zero fields keep their defaults (ir.Limits documents them); a model
// beyond a limit is rejected before anything is allocated for it, with an error wrapping
// ir.ErrLimit.
func WithLimits(l ir.Limits) Option { return func(c *config) error { c.limits = l; return nil } }

// WithPrintIRBefore and WithPrintIRAfter dump the graph before/after the named passes ("*" for
// all) to the dump writer.
func WithPrintIRBefore(pass string) Option {
	return func(c *config) error { c.popts.PrintBefore[pass] = true; return nil }
}

// WithPrintIRAfter dumps the graph after the named pass ("*" for all).
func WithPrintIRAfter(pass string) Option {
	return func(c *config) error { c.popts.PrintAfter[pass] = true; return nil }
}

// WithPrintLoweringAfter dumps the lowering plan known after the named stage (lower.Stages:
// regions, buffers, kernels, entry; "all" for every one) to the dump writer, as
// lower.Config.PrintAfter describes. An unknown stage is a usage error listing the valid ones.
func WithPrintLoweringAfter(stage string) Option {
	return func(c *config) error { c.printLowering = append(c.printLowering, stage); return nil }
}

// WithDumpWriter sets where IR dumps and lowering dumps go (default os.Stderr).
func WithDumpWriter(w io.Writer) Option {
	return func(c *config) error { c.popts.Dump = w; return nil }
}

// WithPrintConstants prints every constant's data in IR dumps (by default constants of more
// than ir.DumpElideElements elements are elided).
func WithPrintConstants() Option {
	return func(c *config) error { c.popts.PrintConstants = true; return nil }
}

// WithVerifyEach runs the IR verifier after every pass.
func WithVerifyEach(on bool) Option {
	return func(c *config) error { c.popts.VerifyEach = on; return nil }
}

// WithZeroSkipping sets whether known-values may assume that unknown floating-point values
// are finite and divisors non-zero, so that a product with a known zero contributes nothing
// (the default, as -ffinite-math-only does). Off, only exact rules apply: results stay IEEE for
// inf and NaN inputs, and less work is removed.
func WithZeroSkipping(on bool) Option {
	return func(c *config) error { c.popts.NoZeroSkip = !on; return nil }
}

// WithLLVMWriter makes Compile write the module's LLVM IR text to w as it prints it, instead of
// keeping it in Result.LLVM (left empty): the text of a large model is never held in memory
// (its weights are most of it, escaped as about 2.3 bytes per byte). A write error fails
// Compile.
func WithLLVMWriter(w io.Writer) Option { return func(c *config) error { c.llvmOut = w; return nil } }

// WithWeightsFile keeps the model's constants out of the module: they are written to the file
// at path, which the caller maps (128-byte aligned) and passes to the entry as one more
// argument after the workspace, `const void *weights` (lower.Config.ExternalWeights and
// lower.Weights describe the file; the header declares it). The module then holds code only,
// so the model's size is bounded by the machine rather than by the module.
func WithWeightsFile(path string) Option {
	return func(c *config) error {
		if path == "" {
			return usageErr(errors.New("--weights: empty file name"))
		}
		c.weights = path
		return nil
	}
}

// WithFoldProgress calls f with the bytes fold-constants has materialised so far (the sum
// over the constants it created of their elements in their own types, at most
// passes.MaxFoldBytes), each time it creates one: the compile holds that much beyond the
// model's own weights (the CLI raises its soft memory limit by it).
func WithFoldProgress(f func(total int64)) Option {
	return func(c *config) error { c.popts.OnFold = f; return nil }
}

// WithoutLLVMText leaves the module unprinted (Result.LLVM empty), for a caller that writes
// Result.Module itself (Module.WriteFile, lower.Build): the text of a large model's weights
// (1.18 GB for VGG-11) is then not held beside the module while the caller prints it again.
func WithoutLLVMText() Option { return func(c *config) error { c.noText = true; return nil } }

// WithoutLowering stops after the passes (Result.Graph only).
func WithoutLowering() Option { return func(c *config) error { c.noLower = true; return nil } }

// Result is what Compile produces.
type Result struct {
	// Graph is the optimized IR: every op's domain restricted to the iterations that contribute
	// to the required outputs (Graph.String prints it in the .graph text format).
	Graph *ir.Graph
	// Module is the lowered module (nil with WithoutLowering); LLVM is its text and Header the C
	// declarations of its ABI.
	Module *lower.Module
	LLVM   string
	Header string
	// Plan prints what the lowering stages decided for each op (regions, workspace buffers,
	// kernels and their strategies, epilogues, shared kernels): graphc --emit=plan.
	Plan string
	// Dead holds, per op, the iterations DIE removed; DeadReport prints them as --report-dead
	// does (empty when die did not run).
	DeadReport string
	Dead       []passes.DeadSpace
	// Diagnostics are the passes' warnings, e.g. accesses outside an operand's index domain.
	Diagnostics []passes.Diagnostic
	// Passes holds the pass manager's state and statistics (per-pass time, ops and iterations
	// removed; TimingReport prints what --pass-timing shows).
	Passes *passes.Result
	// Times are the wall times of the phases (per pass: Passes.State.Stats).
	Times PhaseTimes
}

// PhaseTimes are the wall times of Compile's phases.
type PhaseTimes struct {
	Import time.Duration // reading, importing and verifying the model (Compile only)
	Passes time.Duration // the pipeline
	Lower  time.Duration // building the LLVM module
	Print  time.Duration // printing it as text (Result.LLVM)
}

// ErrInput is wrapped by every error caused by the input model or the options (exit status 1
// in the CLI); other errors are internal.
var ErrInput = errors.New("bad input")

// ErrUsage is wrapped (with ErrInput) by the errors that come from how graphc was asked rather
// than from the model: a binding of a symbolic dim the model does not have, a negative one
// (exit status 2 in the CLI, like other usage errors).
var ErrUsage = errors.New("usage")

type usageError struct{ err error }

func (e *usageError) Error() string   { return e.err.Error() }
func (e *usageError) Unwrap() []error { return []error{ErrUsage, ErrInput, e.err} }

func usageErr(err error) error {
	if err == nil {
		return nil
	}
	return &usageError{err}
}

type inputError struct{ err error }

func (e *inputError) Error() string   { return e.err.Error() }
func (e *inputError) Unwrap() []error { return []error{ErrInput, e.err} }

func inputErr(err error) error {
	if err == nil {
		return nil
	}
	var ie *inputError
	if errors.As(err, &ie) {
		return err
	}
	return &inputError{err}
}

// Load imports a model file by its extension: .onnx, or .graph (graphc IR text).
func Load(ctx context.Context, path string, opts ...Option) (g *ir.Graph, err error) {
	defer recoverInternal(&err)
	c, err := newConfig(opts)
	if err != nil {
		return nil, inputErr(err)
	}
	return c.load(path)
}

func newConfig(opts []Option) (*config, error) {
	c := &config{threads: lower.ThreadsPool, target: "x86-64", pipeline: passes.DefaultPipeline, dims: map[string]int64{},
		popts: passes.Options{PrintBefore: map[string]bool{}, PrintAfter: map[string]bool{}, Dump: os.Stderr}}
	for _, o := range opts {
		if err := o(c); err != nil {
			return nil, err
		}
	}
	// a bad --target or --mcpu is reported before the model is read
	t, err := lower.LoadTarget(c.target)
	if err != nil {
		return nil, usageErr(err)
	}
	if _, err := t.ForCPU(c.cpu); err != nil {
		return nil, usageErr(err)
	}
	for _, s := range c.printLowering {
		if _, err := lower.SelectStages(s); err != nil {
			return nil, usageErr(unknownStage(s))
		}
	}
	return c, nil
}

func (c *config) load(path string) (*ir.Graph, error) {
	var g *ir.Graph
	var err error
	switch strings.ToLower(filepath.Ext(path)) {
	case ".onnx":
		var oo []onnx.Option
		for k, v := range c.dims {
			oo = append(oo, onnx.WithDim(k, v))
		}
		if c.initInputs {
			oo = append(oo, onnx.WithInitializerInputs())
		}
		for name, t := range c.constInputs {
			oo = append(oo, onnx.WithConstInput(name, t))
		}
		oo = append(oo, onnx.WithLimits(c.limits))
		g, err = onnx.Load(path, oo...)
	case ".pb", ".pbtxt", ".txt":
		if len(c.constInputs) > 0 {
			return nil, usageErr(fmt.Errorf("%s: binding inputs to data (WithConstInput) is for ONNX models", path))
		}
		var to []tf.Option
		for k, v := range c.dims {
			to = append(to, tf.WithDim(k, v))
		}
		if len(c.outputs) > 0 {
			to = append(to, tf.WithOutputs(c.outputs...))
		}
		to = append(to, tf.WithLimits(c.limits))
		g, err = tf.Load(path, to...)
	case ".graph", ".mlir":
		if len(c.constInputs) > 0 {
			return nil, usageErr(fmt.Errorf("%s: binding inputs to data (WithConstInput) is for ONNX models", path))
		}
		var data []byte
		data, err = readLimited(path, c.limits.WithDefaults().MaxFileBytes)
		if err == nil {
			g, err = parseGraph(string(data), c.dims)
			if err != nil {
				err = fmt.Errorf("%s: %w", path, err)
			}
		}
	default:
		return nil, inputErr(fmt.Errorf("%s: unknown model format %q (want .onnx, .pb, .pbtxt or .graph)", path, filepath.Ext(path)))
	}
	if errors.Is(err, ir.ErrUnknownDim) {
		return nil, usageErr(err)
	}
	if err != nil {
		return nil, inputErr(err)
	}
	if err := ir.Verify(g); err != nil {
		return nil, inputErr(fmt.Errorf("%s: %w", path, err))
	}
	if err := ir.CheckLimits(g, c.limits); err != nil {
		return nil, inputErr(fmt.Errorf("%s: %w", path, err))
	}
	return g, nil
}

// parseGraph parses graphc IR text and binds the symbolic dims given by --dim.
func parseGraph(text string, dims map[string]int64) (*ir.Graph, error) {
	g, err := ir.Parse(text)
	if err != nil {
		return nil, err
	}
	return ir.BindParams(g, dims)
}

// InternalError reports a panic inside graphc: a bug. Compile and CompileGraph never panic;
// they return this error with the stack.
type InternalError struct {
	Value any
	Stack string
}

func (e *InternalError) Error() string { return fmt.Sprintf("internal error: %v", e.Value) }

// recoverInternal turns a panic into an InternalError.
func recoverInternal(err *error) {
	if r := recover(); r != nil {
		*err = &InternalError{Value: r, Stack: string(debug.Stack())}
	}
}

// Compile imports the model at path, runs the pipeline and lowers it.
func Compile(ctx context.Context, path string, opts ...Option) (res *Result, err error) {
	defer recoverInternal(&err)
	c, err := newConfig(opts)
	if err != nil {
		return nil, inputErr(err)
	}
	start := time.Now()
	g, err := c.load(path)
	if err != nil {
		return nil, err
	}
	c.source = path
	imported := time.Since(start)
	res, err = c.compileGraph(ctx, g)
	if res != nil {
		res.Times.Import = imported
	}
	return res, err
}

// CompileGraph runs the pipeline on g (modified in place) and lowers it. WithDim binds
// symbolic dims of g as it does those of a model file: the pipeline then runs on a copy of g
// with the dims bound (ir.BindParams), and g is left as it was.
func CompileGraph(ctx context.Context, g *ir.Graph, opts ...Option) (res *Result, err error) {
	defer recoverInternal(&err)
	c, err := newConfig(opts)
	if err != nil {
		return nil, inputErr(err)
	}
	g, err = bindDims(g, c.dims)
	if err != nil {
		return nil, err
	}
	return c.compileGraph(ctx, g)
}

// bindDims binds the dims given by --dim in a graph already built (ir.BindParams); a name
// the graph does not have is a usage error.
func bindDims(g *ir.Graph, dims map[string]int64) (*ir.Graph, error) {
	b, err := ir.BindParams(g, dims)
	switch {
	case errors.Is(err, ir.ErrUnknownDim):
		return nil, usageErr(err)
	case err != nil:
		return nil, inputErr(err)
	}
	return b, nil
}

func (c *config) compileGraph(ctx context.Context, g *ir.Graph) (*Result, error) {
	ps, err := passes.ParsePipeline(c.pipeline)
	if err != nil {
		return nil, usageErr(err)
	}
	inPipeline := map[string]bool{}
	for _, p := range ps {
		inPipeline[p.Name] = true
	}
	for flag, names := range map[string]map[string]bool{"--print-ir-after": c.popts.PrintAfter, "--print-ir-before": c.popts.PrintBefore} {
		for name := range names {
			switch {
			case name == "*":
			case passes.Lookup(name) == nil:
				return nil, usageErr(unknownPass(flag, name))
			case !inPipeline[name]:
				return nil, usageErr(fmt.Errorf("%s=%s: %s is not in the pipeline %q (add it with --pipeline=)", flag, name, name, c.pipeline))
			}
		}
	}
	if len(c.requires) > 0 && !inPipeline["die"] {
		return nil, usageErr(fmt.Errorf("--require %q: the pipeline %q has no die pass, so nothing would use the required region", c.requires[0], c.pipeline))
	}
	for _, r := range c.requires {
		rq, err := passes.ParseRequirement(g, r)
		if err != nil {
			return nil, usageErr(err)
		}
		c.popts.Require = append(c.popts.Require, rq)
	}
	start := time.Now()
	pr, err := passes.Run(ctx, g, ps, &c.popts)
	passTime := time.Since(start)
	if err != nil {
		var ie *passes.InternalError
		if errors.As(err, &ie) || errors.Is(err, ir.ErrInvalid) || errors.Is(err, context.Canceled) {
			return nil, err
		}
		return nil, inputErr(err)
	}
	res := &Result{Graph: g, Passes: pr, Diagnostics: pr.State.Diags, Dead: pr.State.Dead, Times: PhaseTimes{Passes: passTime}}
	if len(pr.State.Dead) > 0 {
		res.DeadReport = pr.State.DeadReport()
	}
	if c.noLower {
		if len(c.printLowering) > 0 {
			return nil, usageErr(fmt.Errorf("--print-lowering-after=%s: nothing is lowered (--emit=ir, dot and svg stop after the passes)", c.printLowering[0]))
		}
		return res, nil
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	t, err := lower.LoadTarget(c.target)
	if err != nil {
		return nil, usageErr(err)
	}
	req := map[*ir.Value]volume.Set{}
	for v, s := range pr.State.Required {
		req[v] = s
	}
	start = time.Now()
	mod, err := lower.Lower(ctx, g, lower.Config{Target: t, Entry: c.entry, CPU: c.cpu, Attrs: c.attrs, Required: req, Profile: c.profile, Signature: c.signature, ExternalWeights: c.weights != "",
		Threads: c.threads, PrintAfter: strings.Join(c.printLowering, ","), Dump: c.popts.Dump})
	res.Times.Lower = time.Since(start)
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return nil, err // the caller's, as between passes: not bad input
	}
	if err != nil {
		if c.source != "" {
			err = fmt.Errorf("%s: %w", c.source, err)
		}
		return nil, inputErr(err)
	}
	res.Module = mod
	res.Plan = mod.Plan()
	start = time.Now()
	if c.llvmOut != nil {
		if _, err := mod.WriteTo(c.llvmOut); err != nil {
			return nil, fmt.Errorf("writing the module: %w", err)
		}
	} else if !c.noText {
		res.LLVM = mod.String()
	}
	res.Times.Print = time.Since(start)
	res.Header = mod.Header
	if c.weights != "" {
		if err := writeWeights(c.weights, mod.Entries[0].Weights); err != nil {
			return nil, inputErr(fmt.Errorf("writing the weights: %w", err))
		}
	}
	return res, nil
}

// writeWeights writes a weights file through a temporary file beside it, renamed into place once
// complete.
func writeWeights(path string, w *lower.Weights) (err error) {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(f.Name())
		}
	}()
	if _, err := w.WriteTo(f); err != nil {
		return err
	}
	if err := f.Chmod(0o644); err != nil {
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	return os.Rename(f.Name(), path)
}

func unknownPass(flag, name string) error {
	msg := fmt.Sprintf("%s=%s: unknown pass %q", flag, name, name)
	if s := passes.Suggest(name, passes.Names()); s != "" {
		msg += fmt.Sprintf(" (did you mean %q?)", s)
	}
	return fmt.Errorf("%s; passes are: %s", msg, strings.Join(passes.Names(), ", "))
}

// unknownStage reports the first name in a --print-lowering-after value that is not a lowering
// stage, as unknownPass does for passes.
func unknownStage(value string) error {
	name := value
	for _, n := range strings.Split(value, ",") {
		if n = strings.TrimSpace(n); n != "all" && !slices.Contains(lower.Stages(), n) {
			name = n
			break
		}
	}
	msg := fmt.Sprintf("%q", name)
	if s := passes.Suggest(name, lower.Stages()); s != "" {
		msg += fmt.Sprintf(" (did you mean %q?)", s)
	}
	return fmt.Errorf("--print-lowering-after=%s: %w %s; stages are: %s (or all)", value, lower.ErrUnknownStage, msg, strings.Join(lower.Stages(), ", "))
}

// readLimited reads the file at path, refusing one of more than max bytes.
func readLimited(path string, max int64) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, max+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > max {
		return nil, fmt.Errorf("%w: file exceeds the limit of %d bytes", ir.ErrLimit, max)
	}
	return data, nil
}
