// This file builds many graphs into one executable (one module, one clang invocation) and runs
// their cases: on the host for x86-64, under qemu-hexagon for Hexagon, under qemu-aarch64 for
// AArch64. Cases that crash the
// process are isolated: the harness restarts the program after the crashing case.

package e2e

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/graphc/graphc/ir"
	"github.com/graphc/graphc/lower"
)

// Machine says what a batch is compiled for and where it runs.
type Machine struct {
	Target      string // lower target name: x86-64, aarch64 or hexagon
	CPU, Attrs  string // lowering (and clang) overrides
	VectorBytes int    // lower.Config.VectorBytes
	// OrderedReductions is lower.Config.OrderedReductions: float sums in the evaluator's order
	OrderedReductions bool
	// NewtonReciprocal is lower.Config.NewtonReciprocal: HVX's float32 math on vectors
	NewtonReciprocal bool
	CFlags           []string
	// Threads is lower.Config.Threads (the entries run on the default pool with ThreadsPool,
	// sized by GRAPHC_NUM_THREADS in the program's environment); SplitAll is
	// lower.Config.SplitAll
	Threads  lower.ThreadMode
	SplitAll bool
	// CallerPool: the driver calls ENTRY_parallel (Threads must not be ThreadsNone) with a
	// parallel-for of its own that runs each region's chunks one after another, the last
	// first: the split kernels on a freestanding target, without threads
	CallerPool bool
	// native marks Native's machine: under GRAPHC_HOST_CPU it is the cap's code, which the cap
	// changes (capChanges) even though it then names the cap's CPU
	native bool
}

// Host is x86-64 code run natively.
func Host() Machine { return Machine{Target: "x86-64"} }

// Native is x86-64 code for the host's best ISA (its vector width and features, AVX-512 where
// it has it: the code real models run), run natively. Under GRAPHC_HOST_CPU it is that CPU's
// code (x86-64-v3: AVX2), as on a host that is that CPU.
func Native() Machine {
	return Machine{Target: "x86-64", CPU: "native", CFlags: []string{"-march=native"}, native: true}.resolve()
}

// HexagonScalar is hexagonv67 code without HVX, run under qemu-hexagon (qemu 7.2 cannot run
// HVX floating point).
func HexagonScalar() Machine { return Machine{Target: "hexagon", CPU: "hexagonv67", Attrs: "-hvx"} }

// HexagonHVX is hexagonv67 with its default features, +hvxv67,+hvx-length128b, run under
// qemu-hexagon: integer loops are 128-byte HVX code, float loops scalar (HVX has no floating
// point before v68, and qemu 7.2 could not run it).
func HexagonHVX() Machine { return Machine{Target: "hexagon", CPU: "hexagonv67"} }

func (m Machine) hexagon() bool { return strings.HasPrefix(m.Target, "hexagon") }

// String names the machine.
func (m Machine) String() string {
	s := m.Target
	if m.CPU != "" {
		s += "/" + m.CPU
	}
	if m.VectorBytes > 0 {
		s += fmt.Sprintf("/vec%d", m.VectorBytes)
	}
	if m.OrderedReductions {
		s += "/ordered"
	}
	if m.NewtonReciprocal {
		s += "/newton"
	}
	return s
}

// Config returns the lowering configuration of the machine.
func (m Machine) Config() (lower.Config, error) {
	t, err := lower.LoadTarget(m.Target)
	if err != nil {
		return lower.Config{}, err
	}
	return lower.Config{Target: t, CPU: m.CPU, Attrs: m.Attrs, VectorBytes: m.VectorBytes, OrderedReductions: m.OrderedReductions,
		NewtonReciprocal: m.NewtonReciprocal, Threads: m.Threads, SplitAll: m.SplitAll}, nil
}

// Case is one graph run on concrete inputs (graph input order) with its symbolic dims bound.
type Case struct {
	Graph  *ir.Graph
	Inputs []*ir.Tensor
	Params map[string]int64
}

// Result is the outcome of running one case: the outputs when Status is 0.
type Result struct {
	Outputs []*ir.Tensor
	Status  int64 // the entry's return value; -1 invalid dims; -2 arena too small
	Err     error // lowering, build or run failure
}

// BatchProgram is an executable holding the entries of many cases.
type BatchProgram struct {
	Dir     string
	Path    string
	Machine Machine
	Mod     *lower.Module
	cases   []*Case
	entry   []int   // case -> entry index (-1: lowering failed)
	lowErr  []error // per case
	timeout time.Duration
}

// BuildBatch lowers every case's graph into one module (entry t<i>), writes it with a driver to
// dir and compiles it. Cases that share a graph share its entry (a graph with symbolic dims is
// compiled once and run with each case's dims). Cases whose graph fails to lower report the
// error when run.
func BuildBatch(ctx context.Context, dir string, m Machine, cases []*Case) (*BatchProgram, error) {
	m = m.resolve()
	cfg, err := m.Config()
	if err != nil {
		return nil, err
	}
	b, err := lower.NewBuilder(cfg)
	if err != nil {
		return nil, err
	}
	p := &BatchProgram{Dir: dir, Machine: m, cases: cases, entry: make([]int, len(cases)), lowErr: make([]error, len(cases)), timeout: 10 * time.Minute}
	n := 0
	arena := int64(1 << 20)
	type lowered struct {
		entry int
		err   error
	}
	seen := map[*ir.Graph]lowered{}
	for i, c := range cases {
		p.entry[i] = -1
		if need := arenaBound(c); need > arena {
			arena = need
		}
		if l, ok := seen[c.Graph]; ok {
			p.entry[i], p.lowErr[i] = l.entry, l.err
			continue
		}
		e, err := b.Add(ctx, c.Graph, fmt.Sprintf("t%d", i))
		if err != nil {
			seen[c.Graph] = lowered{-1, fmt.Errorf("lower: %w", err)}
			p.lowErr[i] = fmt.Errorf("lower: %w", err)
			continue
		}
		if e.WorkspaceBytes > 0 {
			// the workspace the module asks for (scratch of integer convolutions included)
			if need := arenaBound(c) + e.WorkspaceBytes; need > arena {
				arena = need
			}
		}
		seen[c.Graph] = lowered{n, nil}
		p.entry[i] = n
		n++
	}
	p.Mod = b.Module()
	if err := p.compile(ctx, arena); err != nil {
		return nil, err
	}
	return p, nil
}

// arenaBound bounds the memory a case needs: its inputs and outputs, and a workspace no larger
// than every op result plus arg-reduction scratch, with alignment slack.
func arenaBound(c *Case) int64 {
	total := int64(0)
	for _, t := range c.Inputs {
		total += ir.NumElements(t.Shape)*int64(t.Elem.Size()) + 128
	}
	params := AtBounds(c.Graph, c.Params)
	size := func(t ir.TensorType) int64 {
		s, err := t.EvalShape(params)
		if err != nil {
			return 0
		}
		return ir.NumElements(s)*int64(t.Elem.Size()) + 128
	}
	for _, o := range c.Graph.Outputs {
		total += size(o.Type)
	}
	for _, op := range c.Graph.Ops {
		total += size(op.Result.Type)
		if op.Reduce.IsArg() {
			total += 9 * size(op.Result.Type)
		}
	}
	return total + 4096
}

func (p *BatchProgram) compile(ctx context.Context, arena int64) error {
	clang, err := Clang()
	if err != nil {
		return err
	}
	if err := os.MkdirAll(p.Dir, 0o755); err != nil {
		return err
	}
	ll := filepath.Join(p.Dir, "model.ll")
	if err := p.Mod.WriteFile(ll); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(p.Dir, "model.h"), []byte(p.Mod.Header), 0o644); err != nil {
		return err
	}
	// every module the harness builds is verified (opt-19, and opt-14 where installed)
	if err := Verify(ctx, ll); err != nil && !errors.Is(err, ErrNoToolchain) {
		return err
	}
	drv := filepath.Join(p.Dir, "driver.c")
	if err := os.WriteFile(drv, []byte(batchDriver(p.Mod, arena, p.Machine.CallerPool)), 0o644); err != nil {
		return err
	}
	p.Path = filepath.Join(p.Dir, "batch.exe")
	args := []string{"-O2", "-w", "-o", p.Path, drv, ll}
	if p.Machine.hexagon() {
		cpu := p.Mod.CPU
		args = append([]string{"--target=" + p.Mod.Target.Triple, "-mcpu=" + cpu, "-ffreestanding", "-fno-builtin",
			"-nostdlib", "-static", "-fuse-ld=lld"}, args...)
	} else {
		if p.Machine.aarch64() {
			args = append(aarch64CFlags(p.Mod.CPU), args...)
		}
		args = append(args, "-lm")
	}
	args = append(args, p.Machine.CFlags...)
	out, err := exec.CommandContext(ctx, clang, args...).CombinedOutput()
	if err != nil {
		return fmt.Errorf("clang %s: %v\n%s", strings.Join(args, " "), err, truncate(out, 4000))
	}
	return nil
}

func truncate(b []byte, n int) string {
	if len(b) > n {
		return string(b[:n]) + "…"
	}
	return string(b)
}

// command returns the command that runs the program.
func (p *BatchProgram) command(ctx context.Context) (*exec.Cmd, error) {
	if p.Machine.hexagon() {
		q, err := exec.LookPath("qemu-hexagon")
		if err != nil {
			return nil, fmt.Errorf("%w: qemu-hexagon", ErrNoToolchain)
		}
		return exec.CommandContext(ctx, q, "-cpu", "v67", p.Path), nil
	}
	if p.Machine.aarch64() {
		q, args, err := aarch64Command(p.Path)
		if err != nil {
			return nil, err
		}
		return exec.CommandContext(ctx, q, args...), nil
	}
	return exec.CommandContext(ctx, p.Path), nil
}

// Built returns, without running anything, a result per case: the lowering error or none.
func (p *BatchProgram) Built() []Result {
	res := make([]Result, len(p.cases))
	for i := range p.cases {
		res[i].Err = p.lowErr[i]
	}
	return res
}

// Run runs every case and returns their results in order. Code the host cannot execute
// (Machine.CanExecute) is not run: every case reports ErrCannotExecute with the reason.
func (p *BatchProgram) Run(ctx context.Context) []Result {
	res := make([]Result, len(p.cases))
	if ok, why := p.Machine.CanExecute(); !ok {
		for i := range res {
			res[i].Err = fmt.Errorf("%w (%s): %s", ErrCannotExecute, p.Machine, why)
		}
		return res
	}
	var todo []int
	for i := range p.cases {
		if p.entry[i] < 0 {
			res[i].Err = p.lowErr[i]
			continue
		}
		todo = append(todo, i)
	}
	for len(todo) > 0 {
		done, err := p.runSome(ctx, todo, res)
		if done == len(todo) {
			break
		}
		// the case at todo[done] killed the program: report it and continue after it
		res[todo[done]].Err = err
		todo = todo[done+1:]
		if ctx.Err() != nil {
			for _, i := range todo {
				res[i].Err = ctx.Err()
			}
			break
		}
	}
	return res
}

// runSome runs the cases idx in one process and fills res; it returns how many completed and,
// when the process died, why.
func (p *BatchProgram) runSome(ctx context.Context, idx []int, res []Result) (int, error) {
	var in bytes.Buffer
	w := func(v int64) { _ = binary.Write(&in, binary.LittleEndian, v) }
	shapes := make([][][]int64, len(idx))
	for n, i := range idx {
		c := p.cases[i]
		e := p.Mod.Entries[p.entry[i]]
		w(int64(p.entry[i]))
		w(int64(len(e.Params)))
		for _, name := range e.Params {
			w(c.Params[name])
		}
		w(int64(len(c.Inputs)))
		for _, t := range c.Inputs {
			b := t.Bytes()
			w(int64(len(b)))
			in.Write(b)
		}
		w(int64(len(c.Graph.Outputs)))
		for _, o := range c.Graph.Outputs {
			s, err := o.Type.EvalShape(AtBounds(c.Graph, c.Params))
			if err != nil {
				s = nil
			}
			shapes[n] = append(shapes[n], s)
			w(ir.NumElements(s) * int64(o.Type.Elem.Size()))
		}
	}
	w(-1)
	// kept for reruns by hand: batch.exe < stdin.bin (qemu-hexagon -cpu v67 batch.exe for Hexagon)
	_ = os.WriteFile(filepath.Join(p.Dir, "stdin.bin"), in.Bytes(), 0o644)
	tctx, cancel := context.WithTimeout(ctx, p.timeout)
	defer cancel()
	cmd, err := p.command(tctx)
	if err != nil {
		for _, i := range idx {
			res[i].Err = err
		}
		return len(idx), nil
	}
	cmd.Stdin = &in
	var out, stderr bytes.Buffer
	cmd.Stdout = &out
	cmd.Stderr = &stderr
	runErr := cmd.Run()
	data := out.Bytes()
	rd := func() (int64, bool) {
		if len(data) < 8 {
			return 0, false
		}
		v := int64(binary.LittleEndian.Uint64(data))
		data = data[8:]
		return v, true
	}
	for n, i := range idx {
		st, ok := rd()
		if !ok {
			return n, fmt.Errorf("%s died: %v %s", filepath.Base(p.Path), runErr, truncate(stderr.Bytes(), 500))
		}
		res[i].Status = st
		if st != 0 {
			continue
		}
		c := p.cases[i]
		for k, o := range c.Graph.Outputs {
			sz := ir.NumElements(shapes[n][k]) * int64(o.Type.Elem.Size())
			if int64(len(data)) < sz {
				return n, fmt.Errorf("%s died while writing outputs: %v", filepath.Base(p.Path), runErr)
			}
			t, err := ir.TensorFromBytes(o.Type.Elem, shapes[n][k], data[:sz])
			data = data[sz:]
			if err != nil {
				res[i].Err = err
				break
			}
			res[i].Outputs = append(res[i].Outputs, t)
		}
		if res[i].Err == nil && len(c.Graph.Bounded) > 0 {
			res[i].Outputs, res[i].Err = TrimBounded(c.Graph, c.Params, res[i].Outputs)
		}
	}
	return len(idx), nil
}
