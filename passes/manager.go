// This file holds the pass table, the ordering constraints, the per-pass options record and the
// manager that runs a pipeline with dumps, verification, timing and crash reports.

package passes

import (
	"context"
	"errors"
	"fmt"
	"io"
	"runtime/debug"
	"slices"
	"strings"
	"time"

	"github.com/graphc/graphc/ir"
	"github.com/graphc/graphc/volume"
)

// Pass is one named transformation of a graph.
type Pass struct {
	// Name is the kebab-case CLI word, dump-file name and test directory.
	Name    string
	Summary string
	// Doc states preconditions and postconditions.
	Doc string
	Run func(ctx context.Context, g *ir.Graph, st *State) error
}

// registry is the single ordered table of passes; DefaultPipeline lists the default run.
var registry = []*Pass{
	removeEmptyPass, // first: later passes never see work on empty tensors
	foldPass,        // before the analyses and layouts: weights computed by constant subgraphs become constants
	knownValuesPass, // before die: the identity iterations it drops make their operands unused
	diePass,
	fusePass, // after die: fusion must not hide from DIE which elements each op reads
	channelsLastPass,
	dcePass, // last: removes what DIE and fuse left without users
}

// DefaultPipeline is the pipeline run when the user does not give one. fuse runs in it (after
// die, before dce, as the order table requires): exported models materialise every transpose,
// reshape and elementwise step (softmax, GELU, the norms), and fusing them cut a T=1024 GPT-2's
// time by 13% (issue 21); results keep their bits. channels-last is in it because
// convolutional networks ran 4-55 times slower than onnxruntime without it (their
// convolutions cannot vectorise along output channels in NCHW); it changes nothing in graphs
// without windowed ops, and it only permutes layouts and domains, so DIE's restrictions hold.
// fold-constants runs first (issue 32): weights that constant subgraphs compute (the ONNX zoo's
// ConstantOfShape weights, transposed or dequantized weights) were rebuilt on every call.
const DefaultPipeline = "remove-empty,fold-constants,known-values,die,fuse,dce,channels-last"

// order lists pairs (Before, After) that a pipeline must respect when it contains both.
var order = []struct{ Before, After, Why string }{
	{"remove-empty", "die", "die relies on empty ops being fills so that it never propagates through work that does not exist"},
	{"known-values", "die", "die finds the producers of the operand elements that known-values' skipped iterations read unused"},
	{"remove-empty", "known-values", "known-values would analyse ops over empty tensors that remove-empty turns into fills"},
	{"fold-constants", "known-values", "known-values describes constants exactly (masks, zero weights); a folded fill is such a constant"},
	{"fold-constants", "die", "die would restrict a weight's producer to the elements read, which folding then materialises as a partial constant"},
	{"fold-constants", "channels-last", "channels-last transposes constant weights at compile time; computed weights must be constants by then"},
	{"die", "dce", "dce removes the ops whose required volume die found empty"},
	{"remove-empty", "dce", "remove-empty turns empty ops into fills that no longer use their operands, which dce then removes"},
	{"die", "fuse", "die restricts each op from its own element maps; a fused consumer's domain still covers what the producer computed for it"},
	{"fuse", "dce", "fuse leaves views and inlined producers without users, which dce removes"},
	{"die", "channels-last", "die reports dead iterations of the ops as the model wrote them; channels-last turns them into generic ops whose domains it only permutes, and restricts the padding copies it adds to what their readers need"},
}

// Lookup returns the pass named name, or nil.
func Lookup(name string) *Pass {
	for _, p := range registry {
		if p.Name == name {
			return p
		}
	}
	return nil
}

// Names returns the names of every registered pass, in table order.
func Names() []string {
	var n []string
	for _, p := range registry {
		n = append(n, p.Name)
	}
	return n
}

// Registry returns the registered passes in table order.
func Registry() []*Pass { return slices.Clone(registry) }

// ErrUnknownPass is wrapped by errors for pass names that are not registered.
var ErrUnknownPass = errors.New("unknown pass")

// ParsePipeline parses a comma-separated list of pass names ("" is the empty pipeline).
func ParsePipeline(s string) ([]*Pass, error) {
	var out []*Pass
	if strings.TrimSpace(s) == "" {
		return nil, nil
	}
	for _, n := range strings.Split(s, ",") {
		n = strings.TrimSpace(n)
		p := Lookup(n)
		if p == nil {
			msg := fmt.Sprintf("%q", n)
			if sug := Suggest(n, Names()); sug != "" {
				msg += fmt.Sprintf(" (did you mean %q?)", sug)
			}
			return nil, fmt.Errorf("%w %s; passes are: %s", ErrUnknownPass, msg, strings.Join(Names(), ", "))
		}
		out = append(out, p)
	}
	if err := checkOrder(out); err != nil {
		return nil, err
	}
	return out, nil
}

func checkOrder(ps []*Pass) error {
	pos := map[string]int{}
	for i, p := range ps {
		if _, ok := pos[p.Name]; !ok {
			pos[p.Name] = i
		}
	}
	for _, o := range order {
		a, okA := pos[o.Before]
		b, okB := pos[o.After]
		if okA && okB && a > b {
			return fmt.Errorf("pipeline runs %s before %s, but %s must come first: %s", o.After, o.Before, o.Before, o.Why)
		}
	}
	return nil
}

// Suggest returns the candidate closest to s by edit distance, or "" if none is close.
func Suggest(s string, candidates []string) string {
	best, bestD := "", 1<<30
	for _, c := range candidates {
		d := editDistance(s, c)
		if d < bestD {
			best, bestD = c, d
		}
	}
	// a suggestion must share something with s: "O3" is two edits from "h", and from anything
	if bestD <= max(2, len(s)/3) && bestD < len(s) {
		return best
	}
	return ""
}

func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// Options is the per-run options record every debugging flag parses into (one record, so that
// adding a pass never means adding a flag).
type Options struct {
	PrintBefore    map[string]bool // pass names, or "*" for all
	PrintAfter     map[string]bool
	VerifyEach     bool
	Timing         bool
	Require        []Requirement
	DumpDir        string    // when set, dumps go to numbered files <dir>/<seq>_<when>_<pass>.graph
	Dump           io.Writer // where dumps go when DumpDir is empty (stderr in the CLI)
	ReportOOBAsErr bool
	// PrintConstants prints every constant's data in dumps (by default those larger than
	// ir.DumpElideElements are elided).
	PrintConstants bool
	// NoZeroSkip keeps known-values to its exact rules: without it, unknown floating-point
	// values are assumed finite (0·x = 0 skips the iteration), as -ffinite-math-only does.
	NoZeroSkip bool
	// FoldBytes bounds the bytes fold-constants materialises (0: MaxFoldBytes; negative: none).
	FoldBytes int64
	// OnFold, when set, is called with State.FoldedBytes each time fold-constants creates a
	// constant (the CLI raises its soft memory limit by them).
	OnFold func(total int64)
}

// State is what passes share during one run: the requirements and what the passes found.
type State struct {
	Opts  *Options
	Stats map[string]*Stats
	// Dead holds DIE's report per op result name.
	Dead []DeadSpace
	// Diags are warnings found by the passes (out-of-bounds accesses, approximations).
	Diags []Diagnostic
	// Required is DIE's required volume per value (for buffer planning).
	Required map[*ir.Value]RequiredVolume
	// KnownZero holds, per op result name, the reduction iterations known-values removed
	// because they contribute the reduction's identity (a known-zero factor, a max over -inf).
	KnownZero map[string]volume.Set
	// Known holds the regions where known-values found each value to be a known constant.
	Known map[*ir.Value][]KnownRegion
	// FoldedBytes counts the bytes of the constants fold-constants created (their elements in
	// their own types), within Options.FoldBytes.
	FoldedBytes int64
	// Remarks are the decisions the cost checks of fuse and channels-last took against a
	// rewrite, with their estimates (cost.go); the IR dump after a pass lists its own.
	Remarks []Remark
	// pipeline and current locate the running pass in its pipeline (runsLater)
	pipeline []*Pass
	current  int
}

// forgetRemoved drops the required volumes of the values whose producers a pass removed (fuse,
// dce): through its result, the map would keep every removed op alive until the compile ends (a
// 100,000-op chain fused into 800 ops kept 60 MB of them).
func (st *State) forgetRemoved(g *ir.Graph) {
	if len(st.Required) == 0 {
		return
	}
	live := make(map[*ir.Op]bool, len(g.Ops))
	for _, op := range g.Ops {
		live[op] = true
	}
	for v := range st.Required {
		if v.Def != nil && !live[v.Def] {
			delete(st.Required, v)
		}
	}
}

// runsLater reports whether the pass named name runs after the current one in the pipeline.
func (st *State) runsLater(name string) bool {
	for _, p := range st.pipeline[min(st.current+1, len(st.pipeline)):] {
		if p.Name == name {
			return true
		}
	}
	return false
}

// Remark says why a pass left a rewrite undone: the estimates of the cost check that refused it.
type Remark struct {
	Pass string
	Op   string // result name of the op the decision is about
	Msg  string
}

func (r Remark) String() string { return fmt.Sprintf("remark: %s: op %%%s: %s", r.Pass, r.Op, r.Msg) }

// remark records a refused rewrite once.
func (st *State) remark(pass, op, msg string) {
	r := Remark{Pass: pass, Op: op, Msg: msg}
	if !slices.Contains(st.Remarks, r) {
		st.Remarks = append(st.Remarks, r)
	}
}

// Stats counts what one pass did.
type Stats struct {
	OpsRemoved     int
	OpsRewritten   int
	DomainsReduced int
	Time           time.Duration
}

// Diagnostic is a warning about the graph.
type Diagnostic struct {
	Op  string // result name of the op
	Msg string
	// Note marks what the user can do nothing about and every such model has (an embedding's
	// Gather reads its table through a data-dependent access): the CLI prints notes with
	// --report-dead only, not as warnings on every compile.
	Note bool
}

func (d Diagnostic) String() string {
	if d.Note {
		return fmt.Sprintf("note: op %%%s: %s", d.Op, d.Msg)
	}
	return fmt.Sprintf("warning: op %%%s: %s", d.Op, d.Msg)
}

// Result is what a pipeline run reports.
type Result struct {
	State  *State
	Passes []string
}

// InternalError reports a panic inside a pass: a bug in graphc.
type InternalError struct {
	Pass  string
	Graph string
	Value any
	Stack string
}

func (e *InternalError) Error() string {
	return fmt.Sprintf("internal error: panic during pass %s while compiling @%s: %v", e.Pass, e.Graph, e.Value)
}

// Run runs the passes on g in order.
func Run(ctx context.Context, g *ir.Graph, ps []*Pass, opts *Options) (*Result, error) {
	if opts == nil {
		opts = &Options{}
	}
	st := &State{Opts: opts, Stats: map[string]*Stats{}, Required: map[*ir.Value]RequiredVolume{}}
	res := &Result{State: st}
	seq := 0
	dump := func(when string, p *Pass) error {
		seq++
		header := fmt.Sprintf("// -----// IR Dump %s %s //----- //\n", when, p.Name)
		if when == "After" {
			for _, r := range st.Remarks {
				if r.Pass == p.Name {
					header += "// " + r.String() + "\n"
				}
			}
		}
		text := g.DumpString()
		if opts.PrintConstants {
			text = g.String()
		}
		if opts.DumpDir != "" {
			return writeDumpFile(opts.DumpDir, seq, when, p.Name, header+text)
		}
		if opts.Dump != nil {
			_, err := io.WriteString(opts.Dump, header+text)
			return err
		}
		return nil
	}
	st.pipeline = ps
	for i, p := range ps {
		st.current = i
		if err := ctx.Err(); err != nil {
			return res, err
		}
		if opts.PrintBefore["*"] || opts.PrintBefore[p.Name] {
			if err := dump("Before", p); err != nil {
				return res, err
			}
		}
		stats := &Stats{}
		st.Stats[p.Name] = stats
		start := time.Now()
		if err := runOne(ctx, p, g, st); err != nil {
			return res, err
		}
		ir.SettleBounded(g) // ops before a bounded dim's value cannot depend on it
		st.forgetRemoved(g)
		stats.Time += time.Since(start)
		res.Passes = append(res.Passes, p.Name)
		if opts.VerifyEach {
			if err := ir.Verify(g); err != nil {
				return res, fmt.Errorf("after pass %s: %w", p.Name, err)
			}
		}
		if opts.PrintAfter["*"] || opts.PrintAfter[p.Name] {
			if err := dump("After", p); err != nil {
				return res, err
			}
		}
	}
	return res, nil
}

func runOne(ctx context.Context, p *Pass, g *ir.Graph, st *State) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = &InternalError{Pass: p.Name, Graph: g.Name, Value: r, Stack: string(debug.Stack())}
		}
	}()
	return p.Run(ctx, g, st)
}

// TimingReport formats per-pass wall times like MLIR's -mlir-timing.
func (r *Result) TimingReport() string {
	var sb strings.Builder
	var total time.Duration
	for _, n := range r.Passes {
		total += r.State.Stats[n].Time
	}
	sb.WriteString("===-------------------------------------------------------------------------===\n")
	sb.WriteString("                         ... Pass execution timing report ...\n")
	sb.WriteString("===-------------------------------------------------------------------------===\n")
	fmt.Fprintf(&sb, "  Total Execution Time: %.6f seconds\n\n", total.Seconds())
	sb.WriteString("  ----Wall Time----  ----Name----\n")
	for _, n := range r.Passes {
		t := r.State.Stats[n].Time
		pct := 0.0
		if total > 0 {
			pct = 100 * float64(t) / float64(total)
		}
		fmt.Fprintf(&sb, "  %.6f (%5.1f%%)  %s\n", t.Seconds(), pct, n)
	}
	fmt.Fprintf(&sb, "  %.6f (100.0%%)  Total\n", total.Seconds())
	return sb.String()
}
