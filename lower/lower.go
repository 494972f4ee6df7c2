// This file holds Config, Lower and Builder (several graphs in one module, e.g. to compile many
// tests with one clang invocation), and the module-level state (moduleCtx): function
// attributes, constant globals, intrinsic declarations and the runtime functions the module
// calls.

package lower

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"

	llvm "github.com/llir/llvm/ir"
	"github.com/llir/llvm/ir/constant"
	"github.com/llir/llvm/ir/enum"
	"github.com/llir/llvm/ir/metadata"
	"github.com/llir/llvm/ir/types"
	"github.com/llir/llvm/ir/value"

	"github.com/graphc/graphc/ir"
	"github.com/graphc/graphc/volume"
)

// Config is what lowering needs besides the graph.
type Config struct {
	Target *Target // default: x86-64
	Entry  string  // entry function name (default main_graph)
	// CPU selects a CPU spec of the target (Target.ForCPU; "native": the host, no CPU
	// attribute); Attrs edits that CPU's default features as llc's -mattr does (MergeFeatures).
	CPU   string
	Attrs string
	// Required gives, per value, the elements some output needs (DIE's result). Lowering sizes
	// intermediate buffers by the bounding box of what the (restricted) ops actually write and
	// read, which DIE makes a subset of the required volume. With CheckRequired, Lower checks
	// exactly that Required contains every read (an error otherwise: DIE and lowering disagree);
	// the check costs exact volume operations, so it is for tests.
	Required      map[*ir.Value]volume.Set
	CheckRequired bool
	// VectorBytes overrides the width of explicit vectors: > 0 forces that width (on any
	// target: the same vector IR runs on x86-64), < 0 disables them, 0 keeps the target's.
	VectorBytes int
	// NewtonReciprocal makes float32 tanh, sigmoid and erf on vectors divide through a Newton
	// reciprocal, as they do on targets without vector division (HVX): tests run that IR on
	// x86-64.
	NewtonReciprocal bool
	// OrderedReductions keeps float sums along the innermost dim in the evaluator's order,
	// lane after lane (the same bits, one dependent addition per element). By default they
	// accumulate in vector lanes that are added in a fixed tree at the end: deterministic, and
	// within (n-1)·ε·Σ|xᵢ| of the evaluator's sum of n terms. (Float products always keep the
	// evaluator's order; maxima, minima and integer reductions are exact either way.)
	OrderedReductions bool
	// Profile makes each entry count the cycles spent in every op's kernel (profile.go): the
	// entry is then not re-entrant, and ENTRY_profile reads and resets the counters.
	Profile bool
	// Signature makes each entry export const char *ENTRY_signature(void), its ABI as JSON
	// (signature.go), which package modelrt reads to load and call the module.
	Signature bool
	// NoEpilogues keeps elementwise consumers of contractions as kernels of their own
	// (epilogue.go), for measurements and tests.
	NoEpilogues bool
	// ExternalWeights keeps the constants out of the module: each entry takes one more
	// argument after the workspace, `const void *weights`, the contents of the file that
	// Entry.Weights describes and writes (weights.go), 128-byte aligned.
	ExternalWeights bool
	// PrintAfter names the stages after which lowering prints the plan known so far to Dump
	// (graphc --print-lowering-after): stage names (Stages) separated by commas, or "all". Each
	// dump is a header line "// -----// Lowering Dump After STAGE //----- //" and the plan
	// holding only what the stages up to STAGE decided (Plan.String). Printing changes nothing
	// in the module. A name that is not a stage makes NewBuilder fail with ErrUnknownStage.
	PrintAfter string
	// Dump receives the PrintAfter dumps (nil: os.Stderr).
	Dump io.Writer
	// Threads says whether the module has ENTRY_parallel, which takes the caller's
	// parallel-for, and what ENTRY runs on (parallel.go; zero: one thread, no ENTRY_parallel).
	Threads ThreadMode
	// SplitAll splits every kernel that can be split over threads, whatever its work, into
	// the smallest chunks: for tests of the split kernels on small graphs.
	SplitAll bool
}

// Module is the result of lowering.
type Module struct {
	LLVM    *llvm.Module
	Header  string // C declarations of every entry
	Entry   string // the (first) entry
	Params  []string
	Entries []*Entry
	Target  *Target
	CPU     string
	Attrs   string
	// Profile: the entries count cycles per kernel (Config.Profile)
	Profile bool
}

// Entry describes one lowered graph.
type Entry struct {
	Name   string
	Graph  *ir.Graph
	Params []string // symbolic dims that remain arguments, in ABI order
	Header string
	// WorkspaceBytes is the workspace size when it does not depend on symbolic dims, else -1.
	WorkspaceBytes int64
	// Strategies lists the kernel strategy chosen for each op (for tests and dumps).
	Strategies []string
	// Plan is what the lowering stages decided for each op: regions, buffers, kernels
	// (plan_print.go; graphc --emit=plan prints it).
	Plan *Plan
	// Weights is the layout of the weights file the entry takes (Config.ExternalWeights), or
	// nil when the constants are in the module.
	Weights *Weights
}

type moduleCtx struct {
	cfg Config
	tgt *Target
	// spec is the CPU spec (Target.ForCPU of cfg.CPU); cpu is the name LLVM is given;
	// features are emitted as "target-features" (the spec's defaults edited by cfg.Attrs);
	// allFeatures adds the features the CPU implies, for graphc's own decisions
	spec        *Target
	cpu         string
	features    string
	allFeatures string
	// vecFloat says that explicit vectors may hold floats (HVX before v68 has none)
	vecFloat bool
	vecBytes int
	// newtonRecip: float32 math divides vectors through a Newton reciprocal (math_vec.go)
	newtonRecip bool
	// fusedMath: float32 math polynomials fuse multiply-adds with llvm.fma
	// (Target.FusedMathFeature)
	fusedMath bool
	// tileBytes is the width of the register tiles of contractions (0: none), tileShape
	// their shape (Target.TileShapeAt)
	tileBytes int
	tileShape TileShape
	m         *llvm.Module
	// noUnrollProp is the module's !{!"llvm.loop.unroll.disable"} (loopmd.go)
	noUnrollProp *metadata.Tuple
	rt           map[string]*llvm.Func
	intr         map[string]*llvm.Func
	globals      int
	// kernels maps a kernel key (dedup.go) to the plan and kernels of the ops that have it
	kernels map[string]*kernelForm
	// forms lists the forms of each form key (a kernel key without the domain)
	forms map[string][]*kernelForm
	// domains caches the scan and box of each distinct domain, by its text
	domains map[string]*domainInfo
	// readsOnly caches readsOnlyWritten by the structure it depends on
	readsOnly map[string]bool
	// whole caches writesWhole by the structure it depends on (domain, out map, shape)
	whole map[string]bool
	// fusedKernels holds the kernels of contractions with epilogues, by epiKey
	fusedKernels map[string]*kernelSig
	// pool is the default pool's graphc_threading once added to the module (pool.go)
	pool *llvm.Global
}

// Builder lowers several graphs into one module; their runtime functions are shared.
type Builder struct {
	mc      *moduleCtx
	entries []*Entry
	// printAfter holds the stages after which Add prints the plan (Config.PrintAfter)
	printAfter map[string]bool
}

// NewBuilder returns a builder for cfg (cfg.Entry is ignored: each Add names its entry).
func NewBuilder(cfg Config) (*Builder, error) {
	if cfg.Target == nil {
		t, err := LoadTarget("x86-64")
		if err != nil {
			return nil, err
		}
		cfg.Target = t
	}
	spec, err := cfg.Target.ForCPU(cfg.CPU)
	if err != nil {
		return nil, err
	}
	printAfter := map[string]bool{}
	names, err := SelectStages(cfg.PrintAfter)
	if err != nil {
		return nil, fmt.Errorf("print after: %w", err)
	}
	for _, n := range names {
		printAfter[n] = true
	}
	mc := &moduleCtx{cfg: cfg, tgt: cfg.Target, spec: spec, cpu: spec.LLVMName(), features: MergeFeatures(spec.Features, cfg.Attrs),
		m: llvm.NewModule(), rt: map[string]*llvm.Func{}, intr: map[string]*llvm.Func{},
		kernels: map[string]*kernelForm{}, forms: map[string][]*kernelForm{}, domains: map[string]*domainInfo{}, readsOnly: map[string]bool{}, fusedKernels: map[string]*kernelSig{}, whole: map[string]bool{}}
	if spec.CPU == "native" {
		// no CPU name to imply them: the host's features are emitted, so that the module
		// (which may use VNNI instructions) builds without -march=native
		mc.features = MergeFeatures(spec.ImpliedFeatures, cfg.Attrs)
	}
	mc.allFeatures = MergeFeatures(spec.ImpliedFeatures, mc.features)
	switch {
	case cfg.VectorBytes > 0:
		mc.vecBytes = cfg.VectorBytes
		mc.vecFloat = true
	case cfg.VectorBytes == 0 && spec.VectorFeature != "" && featureOn(mc.features, spec.VectorFeature):
		mc.vecBytes = spec.VectorBytes
		mc.vecFloat = !spec.VectorIntOnly
	case cfg.VectorBytes == 0 && spec.VectorFromCPU:
		// x86-64: as wide as the CPU and --mattr allow
		mc.vecBytes = spec.vectorBytesFor(spec.VectorBytes, cfg.Attrs)
		mc.vecFloat = true
	}
	mc.newtonRecip = cfg.NewtonReciprocal || spec.SlowVectorDiv
	mc.fusedMath = spec.FusedMathFeature != "" && featureOn(mc.allFeatures, spec.FusedMathFeature)
	if cfg.Target.RegisterTiles && cfg.VectorBytes >= 0 {
		mc.tileBytes = spec.vectorBytesFor(spec.VectorBytes, cfg.Attrs)
		mc.tileShape = spec.TileShapeAt(mc.tileBytes)
	}
	mc.m.TargetTriple = cfg.Target.Triple
	mc.m.DataLayout = cfg.Target.DataLayout
	return &Builder{mc: mc, printAfter: printAfter}, nil
}

// Add lowers g with the given entry name. On error the module is left as it was. It checks ctx
// between kernels and returns ctx.Err() once ctx is done.
func (b *Builder) Add(ctx context.Context, g *ir.Graph, entry string) (e *Entry, err error) {
	if !validSymbol(entry) {
		return nil, fmt.Errorf("invalid entry name %q (want a C identifier)", entry)
	}
	if cReserved[entry] {
		return nil, fmt.Errorf("invalid entry name %q: a C keyword or a name of the C library or runtime", entry)
	}
	for _, old := range b.entries {
		if old.Name == entry {
			return nil, fmt.Errorf("entry %s is defined twice", entry)
		}
	}
	mc := b.mc
	nf, ng := len(mc.m.Funcs), len(mc.m.Globals)
	defer func() {
		if err != nil {
			// forget everything this graph added, runtime functions and kernels included
			removed := map[*llvm.Func]bool{}
			for _, f := range mc.m.Funcs[nf:] {
				removed[f] = true
				for k, rf := range mc.rt {
					if rf == f {
						delete(mc.rt, k)
					}
				}
				for k, rf := range mc.intr {
					if rf == f {
						delete(mc.intr, k)
					}
				}
			}
			mc.forgetKernels(removed)
			if mc.pool != nil && len(mc.m.Globals) > ng && slices.Contains(mc.m.Globals[ng:], mc.pool) {
				mc.pool = nil
			}
			mc.m.Funcs = mc.m.Funcs[:nf]
			mc.m.Globals = mc.m.Globals[:ng]
		}
	}()
	if err := checkTypes(g); err != nil {
		return nil, err
	}
	if err := checkVolumes(g); err != nil { // affcheck.go: what lets lowering read Affs unchecked
		return nil, err
	}
	if err := checkSizes(g, b.mc.cfg.Target.MaxObjectBytes()); err != nil {
		return nil, err
	}
	if err := checkBoundedExtents(g); err != nil {
		return nil, err
	}
	ec := &entryCtx{ctx: ctx, mc: mc, g: g, entry: entry, params: abiParams(g), consts: map[*ir.Value]*llvm.Global{},
		opDomains: map[*ir.Op]*domainInfo{}, dots: map[*ir.Op]dotPlan{}, nbits: map[*ir.Op]*nbitsGEMV{}, users: map[*ir.Value][]use{}, bufKeys: map[*ir.Value]string{}}
	for _, op := range g.Ops {
		for k, o := range op.Operands {
			ec.users[o] = append(ec.users[o], use{op, k})
		}
	}
	if mc.cfg.ExternalWeights {
		ec.weights = layoutWeights(g)
		ec.weightOff = map[*ir.Value]int64{}
		for i, c := range ec.weights.Consts {
			ec.weightOff[c] = ec.weights.Offsets[i]
		}
	}
	// the stages (stages.go): regions, buffers, kernels, entry
	if err := protect(func() error { return ec.runStages(b.printAfter, mc.cfg.Dump) }); err != nil {
		return nil, err
	}
	abi := callerParams(g, ec.params)
	e = &Entry{Name: entry, Graph: g, Params: abi, Header: header(g, entry, abi, ec.weights, mc.threadMode()), Weights: ec.weights}
	if mc.cfg.Profile {
		e.Header = profileHeader(e.Header, entry, len(g.Ops))
	}
	if mc.cfg.Signature {
		if err := ec.emitSignature(); err != nil {
			return nil, err
		}
		e.Header = signatureHeader(e.Header, entry)
	}
	e.Strategies = ec.strategies
	e.Plan = ec.buildPlan(stages[len(stages)-1].name)
	e.WorkspaceBytes = e.Plan.WorkspaceBytes
	b.entries = append(b.entries, e)
	return e, nil
}

// Module returns the module with every entry added so far.
func (b *Builder) Module() *Module {
	mod := &Module{LLVM: b.mc.m, Entries: b.entries, Target: b.mc.tgt, CPU: b.mc.cpu, Attrs: b.mc.features, Profile: b.mc.cfg.Profile}
	var hs []string
	for _, e := range b.entries {
		hs = append(hs, e.Header)
	}
	mod.Header = strings.Join(hs, "\n")
	if len(b.entries) > 0 {
		mod.Entry = b.entries[0].Name
		mod.Params = b.entries[0].Params
	}
	return mod
}

// Lower emits the module for g. It checks ctx between kernels and returns ctx.Err() once ctx
// is done.
func Lower(ctx context.Context, g *ir.Graph, cfg Config) (*Module, error) {
	b, err := NewBuilder(cfg)
	if err != nil {
		return nil, err
	}
	entry := cfg.Entry
	if entry == "" {
		entry = "main_graph"
	}
	if _, err := b.Add(ctx, g, entry); err != nil {
		return nil, err
	}
	return b.Module(), nil
}

// checkRequired checks that DIE's required volumes contain what the ops read.
func (ec *entryCtx) checkRequired(req map[*ir.Value]volume.Set) error {
	if req == nil {
		return nil
	}
	params := ec.g.Params
	for _, op := range ec.g.Ops {
		for k, o := range op.Operands {
			r, ok := req[o]
			if !ok || op.Access[k].Approx {
				continue
			}
			reads := op.Domain.Apply(op.AccessMap(params, k)).SetTupleName("")
			if reads.IsSubset(r.SetTupleName("")) == volume.No { // unknown: a volume failure only loses the check
				return fmt.Errorf("op %%%s (%s) reads elements of %%%s outside its required volume %s", op.Result.Name, op.Kind, o.Name, r)
			}
		}
	}
	return nil
}

// checkSizes rejects tensors whose static extents make them larger than the target can address
// (on 32-bit Hexagon, 2 GiB): their byte offsets would wrap. Symbolic extents are checked by the
// generated code only for their sign.
func checkSizes(g *ir.Graph, maxBytes int64) error {
	check := func(what string, v *ir.Value) error {
		var static []int64
		for _, d := range v.Type.Shape {
			if c, ok := d.IsConst(); ok {
				static = append(static, c)
			}
		}
		if _, ok := ir.ElementsWithin(static, maxBytes/int64(v.Type.Elem.Size())); !ok {
			return fmt.Errorf("%s %%%s of type %s: more than %d bytes, the most this target can address", what, v.Name, v.Type, maxBytes)
		}
		return nil
	}
	for _, v := range g.Inputs {
		if err := check("input", v); err != nil {
			return err
		}
	}
	for _, op := range g.Ops {
		if err := check("result", op.Result); err != nil {
			return err
		}
	}
	return nil
}

// checkTypes rejects element types without a lowering.
func checkTypes(g *ir.Graph) error {
	check := func(what string, v *ir.Value) error {
		if _, err := memType(v.Type.Elem); err != nil {
			return fmt.Errorf("%s %%%s: %w", what, v.Name, err)
		}
		return nil
	}
	for _, v := range g.Inputs {
		if err := check("input", v); err != nil {
			return err
		}
	}
	for _, v := range g.Consts {
		if err := check("constant", v); err != nil {
			return err
		}
	}
	for _, op := range g.Ops {
		if err := check("result", op.Result); err != nil {
			return err
		}
		if len(op.Out.Pieces) != 1 || len(op.Out.Pieces[0].Guard) > 0 {
			return fmt.Errorf("op %%%s (%s): the out map must be one unguarded piece, it has %d", op.Result.Name, op.Kind, len(op.Out.Pieces))
		}
		var bad error
		op.Body.Walk(func(s *ir.Scalar) {
			if _, err := memType(s.Type); err != nil && bad == nil {
				bad = fmt.Errorf("op %%%s (%s): body node %s: %w", op.Result.Name, op.Kind, s.Op, err)
			}
		})
		if bad != nil {
			return bad
		}
	}
	return nil
}

func validSymbol(s string) bool {
	if s == "" {
		return false
	}
	for i, c := range s {
		if !(c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || i > 0 && c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}

// cReserved are names an entry point cannot take: C keywords, and names a caller's program or
// the C runtime already defines.
var cReserved = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`auto break case char const continue default do double else enum extern float for goto
		if inline int long register restrict return short signed sizeof static struct switch typedef union unsigned void
		volatile while _Bool _Complex _Imaginary bool true false main exit abort malloc free memcpy memmove memset`) {
		m[w] = true
	}
	return m
}()

// abiParams returns the symbolic dims in order of first appearance in the inputs' shapes, then
// any other graph param.
func abiParams(g *ir.Graph) []string {
	var out []string
	seen := map[string]bool{}
	for _, in := range g.Inputs {
		for _, p := range in.Type.Params() {
			if !seen[p] {
				seen[p] = true
				out = append(out, p)
			}
		}
	}
	for _, p := range g.Params {
		if !seen[p] {
			seen[p] = true
			out = append(out, p)
		}
	}
	return out
}

// defineAttrs sets the attributes of a function graphc defines.
func (mc *moduleCtx) defineAttrs(f *llvm.Func) {
	f.FuncAttrs = append(f.FuncAttrs, enum.FuncAttrNoUnwind)
	if mc.cpu != "" && mc.cpu != "native" {
		f.FuncAttrs = append(f.FuncAttrs, llvm.AttrPair{Key: "target-cpu", Value: mc.cpu})
	}
	if mc.features != "" {
		f.FuncAttrs = append(f.FuncAttrs, llvm.AttrPair{Key: "target-features", Value: mc.features})
	}
	if mc.tgt.NoBuiltins {
		f.FuncAttrs = append(f.FuncAttrs, llvm.AttrString("no-builtins"))
	}
}

// wideVectors marks the function as using explicit 512-bit vectors, which must stay 512-bit:
// CPUs tuned to prefer 256-bit vectors would otherwise split them.
func (fb *funcBuilder) wideVectors() {
	for _, a := range fb.f.FuncAttrs {
		if p, ok := a.(llvm.AttrPair); ok && p.Key == "prefer-vector-width" {
			return
		}
	}
	fb.f.FuncAttrs = append(fb.f.FuncAttrs, llvm.AttrPair{Key: "min-legal-vector-width", Value: "512"},
		llvm.AttrPair{Key: "prefer-vector-width", Value: "512"})
}

// vectorAlign returns the alignment to claim for a vector access of w at offset off (in
// elements): the vector width when the buffer is 128-byte aligned (a workspace slot or a
// constant; the caller's buffers carry no alignment promise) and the offset is known to be a
// multiple of the vector's elements, else the element size.
func (fb *funcBuilder) vectorAlign(w *view, off value.Value, elem int64, lanes int) int64 {
	bytes := elem * int64(lanes)
	if w.aligned && bytes <= wsAlign && (fb.multipleOf(off)*elem)%bytes == 0 {
		return bytes
	}
	return elem
}

// constGlobal emits a constant tensor as a private global byte array, 128-byte aligned.
func (ec *entryCtx) constGlobal(v *ir.Value) *llvm.Global {
	if gl, ok := ec.consts[v]; ok {
		return gl
	}
	ec.mc.globals++
	name := fmt.Sprintf("%s.const%d.%s", ec.entry, ec.mc.globals, sanitizeSym(v.Name))
	data := v.Data.Bytes()
	if len(data) == 0 {
		data = []byte{0}
	}
	gl := ec.mc.m.NewGlobalDef(name, newByteArray(data))
	gl.Immutable = true
	gl.Linkage = enum.LinkagePrivate
	gl.Align = wsAlign
	ec.consts[v] = gl
	return gl
}

func sanitizeSym(s string) string {
	var sb strings.Builder
	for _, c := range s {
		if c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' {
			sb.WriteRune(c)
		} else {
			sb.WriteRune('_')
		}
	}
	return sb.String()
}

func i8c(v int64) value.Value { return constant.NewInt(types.I8, v) }

func errorf(format string, args ...any) error { return fmt.Errorf(format, args...) }

// lowerPanic carries an error out of deep emission helpers (e.g. an unbound symbolic dim, an
// affine expression volume gave up on); protect turns it back into an error.
type lowerPanic struct{ err error }

func throw(err error) { panic(lowerPanic{err}) }

// protect runs f, converting lowerPanic into an error.
func protect(f func() error) (err error) {
	defer func() {
		if r := recover(); r != nil {
			if e, ok := r.(lowerPanic); ok {
				err = e.err
				return
			}
			panic(r)
		}
	}()
	return f()
}
