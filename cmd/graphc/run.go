// This file parses the command line and runs the compiler.

package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"runtime/metrics"
	"strconv"
	"strings"
	"time"

	"github.com/graphc/graphc"
	"github.com/graphc/graphc/internal/calc"
	"github.com/graphc/graphc/internal/viz"
	"github.com/graphc/graphc/ir"
	"github.com/graphc/graphc/lower"
	"github.com/graphc/graphc/passes"
	"github.com/graphc/graphc/volume"
)

const usageText = `usage: graphc [flags] MODEL
       graphc calc 'EXPR'      the volume calculator (graphc calc --help lists its operators)
       graphc ops [--ir]       supported ONNX and TensorFlow ops with their opset ranges (--ir: the IR's)
       graphc passes           the passes of the default pipeline, in the order they run, with what each does
       graphc run MODEL        compile, build and run a model on given inputs (graphc run --help)
       graphc version
       graphc help

MODEL is an ONNX model (.onnx), a TensorFlow GraphDef (.pb, .pbtxt) or graphc IR text (.graph).

Environment: GRAPHC_CLANG and GRAPHC_LLC name the clang and llc that --emit=asm, obj and lib run
(default: clang-19 and llc-19 on PATH); GRAPHC_TRACEBACK=1 prints an internal error's stack
instead of saving it to a file.

Examples:
  graphc model.onnx -o model.ll                   compile with the default pipeline
  graphc model.onnx --print-ir-after=die -o -     show the restricted domains, print the module
  graphc model.onnx --print-lowering-after=all    what lowering decided, stage by stage
  graphc model.onnx --require='Y[i, j] : i = 127' --report-dead
  graphc model.onnx --pipeline= -o plain.ll       compile without optimization

Flags:
`

type multiFlag []string

func (m *multiFlag) String() string     { return strings.Join(*m, ",") }
func (m *multiFlag) Set(s string) error { *m = append(*m, s); return nil }

type cliError struct {
	code int
	err  error
}

func (e *cliError) Error() string { return e.err.Error() }

func run(args []string, stdin io.Reader, stdout, stderr io.Writer) (code int) {
	defer func() {
		if r := recover(); r != nil {
			reportCrash(stderr, fmt.Sprintf("internal error: %v", r), string(debug.Stack()))
			code = exitInternal
		}
	}()
	if len(args) > 0 {
		switch args[0] {
		case "version", "--version", "-version":
			fmt.Fprintln(stdout, versionString())
			return exitOK
		case "help":
			args = []string{"--help"}
		case "ops":
			switch {
			case len(args) == 2 && (args[1] == "--ir" || args[1] == "-ir"):
				return runIROps(stdout)
			case len(args) > 1:
				fmt.Fprintf(stderr, "graphc: graphc ops takes no arguments but --ir (got %q)\n", args[1:])
				return exitUsage
			}
			return runOps(stdout)
		case "passes":
			if len(args) > 1 {
				fmt.Fprintf(stderr, "graphc: graphc passes takes no arguments (got %q)\n", args[1:])
				return exitUsage
			}
			return runPasses(stdout)
		case "calc":
			return runCalc(args[1:], stdin, stdout, stderr)
		}
	}
	var err error
	if len(args) > 0 && args[0] == "run" {
		err = runModel(args[1:], stdout, stderr) // runmodel.go
	} else {
		err = compileMain(args, stdout, stderr)
	}
	if err == nil {
		return exitOK
	}
	var ce *cliError
	if errors.As(err, &ce) {
		fmt.Fprintf(stderr, "graphc: %v\n", ce.err)
		return ce.code
	}
	var ie *passes.InternalError
	if errors.As(err, &ie) {
		reportCrash(stderr, err.Error(), ie.Stack)
		return exitInternal
	}
	var ge *graphc.InternalError
	if errors.As(err, &ge) {
		reportCrash(stderr, err.Error(), ge.Stack)
		return exitInternal
	}
	fmt.Fprintf(stderr, "graphc: %v\n", err)
	if errors.Is(err, graphc.ErrUsage) {
		return exitUsage
	}
	if errors.Is(err, graphc.ErrInput) || errors.Is(err, os.ErrNotExist) || errors.Is(err, os.ErrPermission) {
		return exitInput
	}
	fmt.Fprintln(stderr, "This is a bug in graphc; please report it with the model and the command line.")
	return exitInternal
}

// commit is the git commit graphc was built from, set by make build
// (-ldflags "-X main.commit=..."); go build records it itself unless -buildvcs=false.
var commit string

// versionString is the module version (devel for a source build), the commit it was built
// from, the Go version, the LLVM IR generator, and the clang that --emit=asm/obj/lib runs.
func versionString() string {
	v := "devel"
	goVersion, llir := "", ""
	var rev, dirty string
	if bi, ok := debug.ReadBuildInfo(); ok {
		goVersion = " " + bi.GoVersion
		if bi.Main.Version != "" && bi.Main.Version != "(devel)" {
			v = bi.Main.Version // a release, or a pseudo-version that already names the commit
		}
		for _, s := range bi.Settings {
			switch {
			case s.Key == "vcs.revision" && len(s.Value) >= 12:
				rev = s.Value[:12]
			case s.Key == "vcs.modified" && s.Value == "true":
				dirty = "+modified"
			}
		}
		for _, d := range bi.Deps {
			if d.Path == "github.com/llir/llvm" {
				llir = d.Version
			}
		}
	}
	if rev == "" {
		rev = commit
	}
	if rev != "" && v == "devel" {
		v += " (" + rev + dirty + ")"
	}
	out := "graphc " + v + goVersion
	if llir != "" {
		out += "\nemits LLVM IR with typed pointers (llir/llvm " + llir + "), accepted by LLVM 14 to 19"
	}
	if clang, err := lower.FindTool("GRAPHC_CLANG", "clang"); err == nil {
		first := ""
		if b, err := exec.Command(clang, "--version").Output(); err == nil {
			first, _, _ = strings.Cut(string(b), "\n")
		}
		out += "\n--emit=asm, obj and lib run " + clang + " (" + strings.TrimSpace(first) + "; GRAPHC_CLANG and GRAPHC_LLC choose others)"
	} else {
		out += "\n--emit=asm, obj and lib need clang-19 or llc-19 (or GRAPHC_CLANG / GRAPHC_LLC): none found"
	}
	return out
}

func usageErr(format string, args ...any) error {
	return &cliError{exitUsage, fmt.Errorf(format, args...)}
}

var emitExt = map[string]string{"llvm": ".ll", "ir": ".graph", "header": ".h", "asm": ".s", "obj": ".o", "lib": ".so", "dot": ".dot", "svg": ".svg", "plan": ".plan"}

func compileMain(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("graphc", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	out := fs.String("o", "", "output file (default: MODEL's basename + the emit kind's extension; - = stdout)")
	var mf modelFlags
	mf.register(fs)
	emit := fs.String("emit", "llvm", "what to produce (asm, obj and lib run clang-19; plan: what lowering chose per op, its buffer, kernel and strategy)")
	opName := fs.String("op", "", "with --emit=svg: the op whose domain to draw (result or source node name)")
	projDims := fs.String("dims", "", "with --emit=svg: the two iteration dims to project onto, e.g. i,k (default: the two the restriction involves most)")
	var printBefore, printAfter multiFlag
	fs.Var(&printBefore, "print-ir-before", "print the IR before the pass (to stderr); repeatable")
	fs.Var(&printAfter, "print-ir-after", "print the IR after the pass (to stderr); repeatable")
	printBeforeAll := fs.Bool("print-ir-before-all", false, "print the IR before every pass")
	printAfterAll := fs.Bool("print-ir-after-all", false, "print the IR after every pass")
	var printLowering multiFlag
	fs.Var(&printLowering, "print-lowering-after", "print the lowering plan known after the stage: regions, buffers, kernels, entry or all (to stderr); repeatable")
	printLoweringAll := fs.Bool("print-lowering-after-all", false, "print the lowering plan after every stage")
	printConstants := fs.Bool("print-constants", false, "print the data of every constant in IR dumps (large ones are elided by default)")
	reportDead := fs.Bool("report-dead", false, "report the dead iteration space of every op, and notes such as reads whose volume is over-approximated (to stderr)")
	timing := fs.Bool("pass-timing", false, "report the wall time of every pass and of the compile phases: import, passes, lowering, printing (to stderr)")
	verifyEach := fs.Bool("verify-each", false, "run the IR verifier after every pass")
	profile := fs.Bool("profile", false, "count the cycles of every op's kernel; the module exports ENTRY_profile (graphc-bench -profile prints the table)")
	help := fs.Bool("help", false, "show this help")
	fs.BoolVar(help, "h", false, "show this help")

	var positional []string
	rest := args
	for {
		if err := fs.Parse(rest); err != nil {
			return usageErr("%v%s", err, suggestFlag(err, fs))
		}
		if fs.NArg() == 0 {
			break
		}
		positional = append(positional, fs.Arg(0))
		rest = fs.Args()[1:]
	}
	if *help {
		fmt.Fprint(stdout, usageText)
		printFlags(stdout, fs)
		return nil
	}
	if len(positional) != 1 {
		return usageErr("expected exactly one MODEL argument, got %d (see graphc --help)", len(positional))
	}
	model := positional[0]
	if fi, err := os.Stat(model); err == nil && fi.IsDir() {
		return usageErr("%s is a directory; MODEL is a model file (.onnx, .pb, .pbtxt or .graph)", model)
	}
	ext, ok := emitExt[*emit]
	if !ok {
		return usageErr("--emit=%s: unknown kind (llvm, ir, header, asm, obj, lib, dot, svg, plan)", *emit)
	}
	if *emit == "svg" && *opName == "" {
		return usageErr("--emit=svg needs --op=NAME, the op whose iteration domain to draw")
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	warnings, err := checkFlags(mf.checked(model, *emit, *out, *opName, *projDims, set))
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
	opts = append(opts, graphc.WithDumpWriter(stderr), graphc.WithVerifyEach(*verifyEach))
	if *profile {
		opts = append(opts, graphc.WithProfile())
	}
	if *emit == "lib" {
		opts = append(opts, graphc.WithSignature()) // what modelrt.Load reads
	}
	for _, p := range printBefore {
		opts = append(opts, graphc.WithPrintIRBefore(p))
	}
	for _, p := range printAfter {
		opts = append(opts, graphc.WithPrintIRAfter(p))
	}
	if *printBeforeAll {
		opts = append(opts, graphc.WithPrintIRBefore("*"))
	}
	if *printAfterAll {
		opts = append(opts, graphc.WithPrintIRAfter("*"))
	}
	for _, s := range printLowering {
		opts = append(opts, graphc.WithPrintLoweringAfter(s))
	}
	if *printLoweringAll {
		opts = append(opts, graphc.WithPrintLoweringAfter("all"))
	}
	if *printConstants {
		opts = append(opts, graphc.WithPrintConstants())
	}
	if *emit == "ir" || *emit == "dot" || *emit == "svg" {
		opts = append(opts, graphc.WithoutLowering())
	}
	if *emit == "plan" {
		opts = append(opts, graphc.WithLLVMWriter(io.Discard)) // the plan needs no module text
	}
	dst := *out
	if dst == "" {
		dst = strings.TrimSuffix(filepath.Base(model), filepath.Ext(model)) + ext
	}
	// the module's text is streamed to its file as it is printed, never held in memory
	var stream *streamOut
	if *emit == "llvm" {
		var err error
		if stream, err = newStreamOut(dst, stdout); err != nil {
			return outputErr(dst, err)
		}
		defer stream.abort()
		opts = append(opts, graphc.WithLLVMWriter(stream.w))
	}
	if base := setMemoryLimit(model); base > 0 {
		// constants that fold-constants computes are weights the model file does not hold
		opts = append(opts, graphc.WithFoldProgress(func(total int64) { debug.SetMemoryLimit(base + 2*total) }))
	}
	res, err := graphc.Compile(context.Background(), model, opts...)
	if err != nil {
		return err
	}
	for _, d := range res.Diagnostics {
		if !d.Note || *reportDead {
			fmt.Fprintf(stderr, "%s: %s\n", model, d)
		}
	}
	if *reportDead && res.DeadReport != "" {
		fmt.Fprint(stderr, res.DeadReport)
	}
	if *timing && res.Passes != nil {
		fmt.Fprint(stderr, res.Passes.TimingReport())
		t := res.Times
		fmt.Fprintf(stderr, "  compile phases: import %.6f s, passes %.6f s, lowering %.6f s, printing %.6f s, total %.6f s\n",
			t.Import.Seconds(), t.Passes.Seconds(), t.Lower.Seconds(), t.Print.Seconds(), (t.Import + t.Passes + t.Lower + t.Print).Seconds())
		fmt.Fprintf(stderr, "  folded constants: %d bytes\n", res.Passes.State.FoldedBytes)
	}
	var text string
	switch *emit {
	case "asm", "obj", "lib":
		data, err := lower.Build(context.Background(), res.Module, *emit)
		if errors.Is(err, lower.ErrUnknownFeature) {
			return &cliError{exitUsage, err}
		}
		if err != nil {
			return &cliError{exitInput, err}
		}
		text = string(data)
	case "llvm":
		if err := stream.commit(); err != nil {
			return outputErr(dst, err)
		}
		return nil
	case "ir":
		text = res.Graph.String()
	case "header":
		text = res.Header
	case "plan":
		text = res.Plan
	case "dot":
		text = viz.DOT(res.Graph, res.Dead)
	case "svg":
		text, err = drawDomain(res, *opName, *projDims, dimValues(mf.dims))
		var ce *cliError
		if err != nil && !errors.As(err, &ce) {
			return &cliError{exitInput, err}
		}
		if err != nil {
			return err
		}
	default:
		return &cliError{exitInput, fmt.Errorf("--emit=%s is not supported yet", *emit)}
	}
	if dst == "-" {
		_, err := io.WriteString(stdout, text)
		return err
	}
	if err := os.WriteFile(dst, []byte(text), 0o644); err != nil {
		return outputErr(dst, err)
	}
	return nil
}

// flagArgs names the value of each flag that takes one, for the help text.
var flagArgs = map[string]string{
	"o": "FILE", "weights": "FILE", "target": "x86-64|aarch64|hexagon", "mcpu": "CPU|native", "mattr": "+a,-b", "entry": "NAME",
	"emit": "llvm|ir|header|asm|obj|lib|dot|svg|plan", "op": "NAME", "dims": "I,J", "pipeline": "PASS,...",
	"print-ir-before": "PASS", "print-ir-after": "PASS", "print-lowering-after": "STAGE", "require": "'OUT[i, j] : constraints'",
	"dim": "NAME=VALUE", "outputs": "NAME[:PORT],...",
}

// printFlags lists the flags as LLVM tools do: --name=VALUE (or --name for a switch), the
// description, and the default where there is one. Go's flag package accepts -name too.
func printFlags(w io.Writer, fs *flag.FlagSet) {
	fs.VisitAll(func(f *flag.Flag) {
		if f.Name == "h" || f.Name == "help" {
			return
		}
		usage, arg := f.Usage, flagArgs[f.Name]
		spec := "--" + f.Name
		switch {
		case f.Name == "o":
			spec = "-o " + arg
		case strings.Contains(arg, "="):
			spec += " " + arg
		case arg != "":
			spec += "=" + arg
		}
		if len(spec) > 24 {
			fmt.Fprintf(w, "  %s\n  %-24s  %s", spec, "", usage)
		} else {
			fmt.Fprintf(w, "  %-24s  %s", spec, usage)
		}
		if f.DefValue != "" && f.DefValue != "false" && f.DefValue != "[]" {
			fmt.Fprintf(w, " (default %q)", f.DefValue)
		}
		fmt.Fprintln(w)
	})
	fmt.Fprintln(w, "  -h, --help                show this help")
}

// suggestFlag adds "did you mean" for an unknown flag.
func suggestFlag(err error, fs *flag.FlagSet) string {
	msg := err.Error()
	const p = "flag provided but not defined: -"
	if !strings.HasPrefix(msg, p) {
		return ""
	}
	name := strings.TrimLeft(strings.TrimPrefix(msg, p), "-")
	if strings.HasPrefix(name, "O") && len(name) <= 2 {
		return " (graphc has no optimisation levels: the default pipeline always runs; --pipeline= runs none)"
	}
	var names []string
	fs.VisitAll(func(f *flag.Flag) { names = append(names, f.Name) })
	if s := passes.Suggest(name, names); s != "" {
		return fmt.Sprintf(" (did you mean --%s?)", s)
	}
	return ""
}

// runPasses lists the passes of the default pipeline in the order they run, then the other
// registered passes.
func runPasses(stdout io.Writer) int {
	fmt.Fprintf(stdout, "default pipeline: %s\n\n", passes.DefaultPipeline)
	dflt, _ := passes.ParsePipeline(passes.DefaultPipeline)
	for _, p := range dflt {
		fmt.Fprintf(stdout, "%-14s %s\n", p.Name, p.Summary)
	}
	first := true
	for _, p := range passes.Registry() {
		if !strings.Contains(","+passes.DefaultPipeline+",", ","+p.Name+",") {
			if first {
				fmt.Fprintln(stdout, "\nnot in the default pipeline:")
				first = false
			}
			fmt.Fprintf(stdout, "%-14s %s\n", p.Name, p.Summary)
		}
	}
	fmt.Fprintln(stdout, "\ndocs/passes.md describes each pass, its pre- and postconditions and the ordering rules.")
	return exitOK
}

// runIROps lists the op catalogue of the IR (the kinds of the text format) as the catalogue
// documents it: each op's summary, an example line of the text format, and its attributes
// with their defaults and docs.
func runIROps(stdout io.Writer) int {
	fmt.Fprintln(stdout, "IR ops (the kinds of the .graph text format; docs/ir-format.md):")
	for _, d := range ir.Ops() {
		fmt.Fprintf(stdout, "  %-18s %s\n", d.Name, d.Summary)
		if d.Example != "" {
			fmt.Fprintf(stdout, "  %-18s example: %s\n", "", d.Example)
		}
		for _, a := range d.Attrs {
			line := a.Name + " (required)"
			if a.Default != nil {
				line = a.Name + " = " + a.Default.String()
			}
			if a.Doc != "" {
				line += ": " + a.Doc
			}
			fmt.Fprintf(stdout, "  %-18s - %s\n", "", line)
		}
	}
	return exitOK
}

func runOps(stdout io.Writer) int {
	fmt.Fprintln(stdout, "ONNX ops (opset range):")
	for _, op := range onnxOps() {
		fmt.Fprintln(stdout, "  "+op)
	}
	fmt.Fprintln(stdout, "TensorFlow ops:")
	for _, op := range tfOps() {
		fmt.Fprintln(stdout, "  "+op)
	}
	fmt.Fprintln(stdout, "ONNX ops not supported:")
	for _, op := range onnxUnsupported() {
		fmt.Fprintln(stdout, "  "+op)
	}
	return exitOK
}

func runCalc(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	var src string
	switch {
	case len(args) == 1 && (args[0] == "-h" || args[0] == "--help" || args[0] == "-help"):
		fmt.Fprintln(stdout, "usage: graphc calc 'STATEMENTS'   (or the statements on standard input)")
		fmt.Fprintln(stdout, "example: graphc calc 'S := { [i, j] : 0 <= i < 4 and i <= j < 4 }; card S; codegen S'")
		fmt.Fprintln(stdout, "\nStatements are separated by \";\"; X := EXPR binds X, any other expression is printed.")
		fmt.Fprintln(stdout, "Operators (isl notation for sets and maps, iscc's precedence):")
		for _, l := range strings.Split(strings.TrimSpace(calc.Operators), "\n") {
			fmt.Fprintln(stdout, "  "+l)
		}
		return exitOK
	case len(args) == 0 || len(args) == 1 && args[0] == "-":
		b, err := io.ReadAll(stdin)
		if err != nil {
			fmt.Fprintf(stderr, "graphc calc: reading standard input: %v\n", err)
			return exitInput
		}
		src = string(b)
	default:
		src = strings.Join(args, " ")
	}
	if err := calc.Run(src, stdout); err != nil {
		fmt.Fprintf(stderr, "graphc calc: %v\n", err)
		return exitInput
	}
	return exitOK
}

// dimValues parses the --dim flags (already validated) into a map.
func dimValues(dims []string) map[string]int64 {
	out := map[string]int64{}
	for _, d := range dims {
		name, val, _ := strings.Cut(d, "=")
		v, _ := strconv.ParseInt(strings.TrimSpace(val), 10, 64)
		out[strings.TrimSpace(name)] = v
	}
	return out
}

// drawDomain renders the SVG picture of one op's iteration domain.
func drawDomain(res *graphc.Result, name, dims string, params map[string]int64) (string, error) {
	op := res.Graph.OpByName(strings.TrimPrefix(name, "%"))
	if op == nil {
		var names []string
		for _, o := range res.Graph.Ops {
			names = append(names, o.Result.Name)
		}
		msg := fmt.Sprintf("--op=%s: no such op", name)
		if s := passes.Suggest(name, names); s != "" {
			msg += fmt.Sprintf(" (did you mean %q?)", s)
		}
		return "", usageErr("%s; ops are: %s", msg, strings.Join(names, ", "))
	}
	dr, dc, _ := viz.InformativeDims(op)
	if dims != "" {
		a, b, ok := strings.Cut(dims, ",")
		dr, dc = slicesIndex(op.Dims, strings.TrimSpace(a)), slicesIndex(op.Dims, strings.TrimSpace(b))
		if !ok || dr < 0 || dc < 0 {
			return "", usageErr("--dims=%s: op %%%s iterates over [%s]", dims, op.Result.Name, strings.Join(op.Dims, ", "))
		}
	}
	var skipped volume.Set
	for _, d := range res.Dead {
		if d.Op == op.Result.Name {
			skipped = d.KnownZero()
		}
	}
	pic, err := viz.Domain(res.Graph, op, dr, dc, params, skipped)
	if err != nil {
		return "", err
	}
	return pic.SVG, nil
}

func slicesIndex(s []string, v string) int {
	for i, x := range s {
		if x == v {
			return i
		}
	}
	return -1
}

// streamOut is where --emit=llvm writes the module as it is printed: stdout, or a temporary file
// beside the destination that replaces it once the module is complete (a failed compile leaves
// no partial output).
type streamOut struct {
	w    *bufio.Writer
	f    *os.File
	dst  string
	done bool
}

func newStreamOut(dst string, stdout io.Writer) (*streamOut, error) {
	if dst == "-" {
		return &streamOut{w: bufio.NewWriterSize(stdout, 1<<16)}, nil
	}
	f, err := os.CreateTemp(filepath.Dir(dst), "."+filepath.Base(dst)+".*.tmp")
	if err != nil {
		return nil, err
	}
	return &streamOut{w: bufio.NewWriterSize(f, 1<<16), f: f, dst: dst}, nil
}

// commit flushes the text and moves the file into place.
func (s *streamOut) commit() error {
	if err := s.w.Flush(); err != nil {
		return err
	}
	if s.f == nil {
		s.done = true
		return nil
	}
	if err := s.f.Chmod(0o644); err != nil {
		return err
	}
	if err := s.f.Close(); err != nil {
		return err
	}
	if err := os.Rename(s.f.Name(), s.dst); err != nil {
		return err
	}
	s.done = true
	return nil
}

// abort removes the temporary file of an output that was not committed.
func (s *streamOut) abort() {
	if s == nil || s.done || s.f == nil {
		return
	}
	s.f.Close()
	os.Remove(s.f.Name())
}

// setMemoryLimit gives the Go runtime a soft memory limit proportional to the model (2 × the
// bytes of the model file and of the other files beside it, where ONNX keeps external data,
// + 48 MB), unless GOMEMLIMIT sets one: the collector then runs more often instead of letting
// the heap grow to twice what is live, which keeps a compile's peak near 2.5 × its weights
// (make bench-mem). GOMEMLIMIT=off restores Go's default. A graph of many ops and few weights
// (a 100,000-op chain: a 3 MB file, some 150 MB live at its peak) would keep its heap at
// such a limit and spend most of its time collecting, so raiseWhenGCBound lifts the limit while
// the collector takes most of the CPU. It returns the limit (0 when it set none).
func setMemoryLimit(model string) int64 {
	if os.Getenv("GOMEMLIMIT") != "" {
		return 0
	}
	st, err := os.Stat(model)
	if err != nil {
		return 0
	}
	n := st.Size()
	if ents, err := os.ReadDir(filepath.Dir(model)); err == nil {
		for _, e := range ents {
			if info, err := e.Info(); err == nil && info.Mode().IsRegular() && e.Name() != filepath.Base(model) {
				n += info.Size()
			}
		}
	}
	limit := 2*n + 48<<20
	debug.SetMemoryLimit(limit)
	if limit < gcBoundCeiling {
		go raiseWhenGCBound(limit)
	}
	return limit
}

// gcBoundCeiling is the most raiseWhenGCBound lifts the soft memory limit to; gcBoundShare is
// the share of the process's CPU time the collector may take over one gcBoundWindow before it
// does.
const (
	gcBoundCeiling = 256 << 20
	gcBoundShare   = 0.5
	gcBoundWindow  = 200 * time.Millisecond
)

// raiseWhenGCBound watches the collector's share of the CPU and raises the soft memory limit
// by half (up to gcBoundCeiling) after each window in which the collector took more than
// gcBoundShare: the limit bounds what garbage may pile up, not what is live. A model whose live
// heap fits the limit never triggers it (its figures stay those of make bench-mem); the
// 100,000-op chain compiles in 27 s of CPU and 270 MB instead of 57 s.
func raiseWhenGCBound(limit int64) {
	samples := []metrics.Sample{{Name: "/cpu/classes/gc/total:cpu-seconds"}, {Name: "/cpu/classes/total:cpu-seconds"}}
	metrics.Read(samples)
	gc0, all0 := samples[0].Value.Float64(), samples[1].Value.Float64()
	for limit < gcBoundCeiling {
		time.Sleep(gcBoundWindow)
		metrics.Read(samples)
		gc, all := samples[0].Value.Float64(), samples[1].Value.Float64()
		if all > all0 && (gc-gc0)/(all-all0) > gcBoundShare {
			// fold-constants may have raised the limit meanwhile (WithFoldProgress): never lower it
			limit = max(min(limit+limit/2, gcBoundCeiling), debug.SetMemoryLimit(-1))
			debug.SetMemoryLimit(limit)
		}
		gc0, all0 = gc, all
	}
}
