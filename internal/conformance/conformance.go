// Package conformance runs the ONNX backend node tests (model.onnx plus input_N.pb and
// output_N.pb TensorProtos per test) through graphc and reports, per op, how many pass, fail and
// are skipped (with the reason).
package conformance

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"google.golang.org/protobuf/proto"

	"github.com/graphc/graphc/frontend/onnx"
	"github.com/graphc/graphc/ir"
	"github.com/graphc/graphc/ir/eval"
	"github.com/graphc/graphc/proto/onnxpb"
)

// Status is the outcome of one test.
type Status int

// Outcomes.
const (
	Pass Status = iota
	Fail
	Skip
)

func (s Status) String() string { return [...]string{"pass", "fail", "skip"}[s] }

// Result is the outcome of one test.
type Result struct {
	Test   string
	Op     string
	Status Status
	Reason string
}

// Executor runs an imported graph on inputs (graph order) and returns its outputs: the
// reference evaluator, or compiled code.
type Executor func(ctx context.Context, g *ir.Graph, inputs []*ir.Tensor, dir string) ([]*ir.Tensor, error)

// EvalExecutor runs the graph with the reference evaluator after the default pipeline.
func EvalExecutor(ctx context.Context, g *ir.Graph, inputs []*ir.Tensor, _ string) ([]*ir.Tensor, error) {
	in := map[string]*ir.Tensor{}
	for i, v := range g.Inputs {
		in[v.Name] = inputs[i]
	}
	return eval.Run(g, in, eval.WithContext(ctx))
}

// Prepare transforms the imported graph before execution (e.g. runs the pass pipeline).
type Prepare func(ctx context.Context, g *ir.Graph) error

// errSkip marks a reason to skip.
type errSkip struct{ reason string }

func (e errSkip) Error() string { return e.reason }

func skipf(format string, args ...any) error { return errSkip{fmt.Sprintf(format, args...)} }

// RunTest runs one test directory.
func RunTest(ctx context.Context, dir string, prep Prepare, exec Executor) Result {
	res := Result{Test: filepath.Base(dir)}
	err := runTest(ctx, dir, prep, exec, &res)
	var sk errSkip
	switch {
	case err == nil:
		res.Status = Pass
	case errors.As(err, &sk):
		res.Status, res.Reason = Skip, sk.reason
	default:
		res.Status, res.Reason = Fail, err.Error()
	}
	return res
}

func runTest(ctx context.Context, dir string, prep Prepare, exec Executor, res *Result) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("panic: %v", r)
		}
	}()
	data, err := os.ReadFile(filepath.Join(dir, "model.onnx"))
	if err != nil {
		return err
	}
	m, err := onnx.Unmarshal(data)
	if err != nil {
		return err
	}
	res.Op = opName(m)
	for _, n := range m.Graph.Node {
		if !onnx.SupportsOp(n.GetDomain(), n.GetOpType()) {
			return skipf("op %s is not supported", n.GetOpType())
		}
	}
	for _, vi := range append(append([]*onnxpb.ValueInfoProto{}, m.Graph.Input...), m.Graph.Output...) {
		tt := vi.GetType().GetTensorType()
		if tt == nil {
			return skipf("non-tensor value %s (sequence, map or optional)", vi.GetName())
		}
		if _, err := onnx.DType(tt.GetElemType()); err != nil {
			return skipf("value %s: %v", vi.GetName(), err)
		}
	}
	tol, err := readTolerance(dir)
	if err != nil {
		return err
	}
	sets, _ := filepath.Glob(filepath.Join(dir, "test_data_set_*"))
	if len(sets) == 0 {
		return skipf("no test data")
	}
	for _, set := range sets {
		inputs, err := readTensors(set, "input")
		if err != nil {
			return err
		}
		want, err := readTensors(set, "output")
		if err != nil {
			return err
		}
		bf16AsU16(m, inputs, want) // onnx 1.12's bfloat16 test data (quirks.go)
		g, ins, err := importBinding(m, filepath.Join(dir, "model.onnx"), inputs)
		if err != nil {
			return fmt.Errorf("import: %w", err)
		}
		if prep != nil {
			if err := prep(ctx, g); err != nil {
				return fmt.Errorf("passes: %w", err)
			}
		}
		got, err := exec(ctx, g, ins, set)
		if err != nil {
			return err
		}
		if len(g.Bounded) > 0 && len(got) == len(want)+len(g.Bounded) {
			got = got[:len(want)] // the bounded dims' values follow the model's outputs
		}
		if len(got) != len(want) {
			return fmt.Errorf("%d outputs, want %d", len(got), len(want))
		}
		for i := range want {
			if err := compareTol(got[i], want[i], tol); err != nil {
				return fmt.Errorf("output %d (%s): %w", i, g.Outputs[i].Name, err)
			}
		}
	}
	return nil
}

// importBinding imports m with the test's input shapes. An input the graph needs at compile
// time (a Reshape's shape, a Slice's starts …) that the test passes as a graph input is bound
// to the test's data, as a compiler with static shape operands does; the remaining inputs are
// returned in graph order.
func importBinding(m *onnxpb.ModelProto, path string, inputs []*ir.Tensor) (*ir.Graph, []*ir.Tensor, error) {
	inits := map[string]bool{}
	for _, t := range m.Graph.Initializer {
		inits[t.GetName()] = true
	}
	var names []string
	for _, vi := range m.Graph.Input {
		if !inits[vi.GetName()] {
			names = append(names, vi.GetName())
		}
	}
	opts := dimsFrom(m, inputs)
	bound := map[string]bool{}
	for {
		g, err := onnx.Import(m, path, opts...)
		var nc *onnx.NeedConstError
		if errors.As(err, &nc) {
			// bind the graph inputs the value is (or is computed from)
			progress := false
			for _, in := range nc.Inputs() {
				k := slices.Index(names, in)
				if !bound[in] && k >= 0 && k < len(inputs) {
					bound[in] = true
					opts = append(opts, onnx.WithConstInput(in, inputs[k]))
					progress = true
				}
			}
			if progress {
				continue
			}
		}
		if err != nil {
			return nil, nil, err
		}
		var ins []*ir.Tensor
		for k, n := range names {
			if !bound[n] && k < len(inputs) {
				ins = append(ins, inputs[k])
			}
		}
		return g, ins, nil
	}
}

// dimsFrom binds symbolic dims of the inputs to the test data's shapes (the backend tests run
// with concrete shapes).
func dimsFrom(m *onnxpb.ModelProto, inputs []*ir.Tensor) []onnx.Option {
	var opts []onnx.Option
	inits := map[string]bool{}
	for _, t := range m.Graph.Initializer {
		inits[t.GetName()] = true
	}
	k := 0
	for _, vi := range m.Graph.Input {
		if inits[vi.GetName()] {
			continue
		}
		if k >= len(inputs) {
			break
		}
		for d, dim := range vi.GetType().GetTensorType().GetShape().GetDim() {
			if p := dim.GetDimParam(); p != "" && d < len(inputs[k].Shape) {
				opts = append(opts, onnx.WithDim(p, inputs[k].Shape[d]))
			}
		}
		k++
	}
	return opts
}

func opName(m *onnxpb.ModelProto) string {
	if len(m.Graph.Node) == 1 {
		return m.Graph.Node[0].GetOpType()
	}
	seen := map[string]bool{}
	var ops []string
	for _, n := range m.Graph.Node {
		if !seen[n.GetOpType()] {
			seen[n.GetOpType()] = true
			ops = append(ops, n.GetOpType())
		}
	}
	if len(ops) == 1 {
		return ops[0]
	}
	return "graph(" + strings.Join(ops, "+") + ")"
}

func readTensors(dir, prefix string) ([]*ir.Tensor, error) {
	var out []*ir.Tensor
	for i := 0; ; i++ {
		p := filepath.Join(dir, fmt.Sprintf("%s_%d.pb", prefix, i))
		data, err := os.ReadFile(p)
		if errors.Is(err, os.ErrNotExist) {
			return out, nil
		}
		if err != nil {
			return nil, err
		}
		tp := &onnxpb.TensorProto{}
		if err := proto.Unmarshal(data, tp); err != nil {
			return nil, skipf("%s is not a TensorProto (sequence or optional data)", filepath.Base(p))
		}
		t, err := onnx.TensorFromProto(tp)
		if err != nil {
			if errors.Is(err, onnx.ErrUnsupported) {
				return nil, skipf("%s: %v", filepath.Base(p), err)
			}
			return nil, err
		}
		out = append(out, t)
	}
}

// tolerance is the float comparison bound |got - want| <= atol + rtol·|want|.
type tolerance struct {
	RTol float64 `json:"rtol"`
	ATol float64 `json:"atol"`
}

// backendTolerance is the ONNX backend's: rtol 1e-3, atol 1e-7.
var backendTolerance = tolerance{RTol: 1e-3, ATol: 1e-7}

// readTolerance reads a test directory's tolerance.json (the tests whose reference is another
// runtime, e.g. testdata/msft with onnxruntime's outputs, whose sums run in another order), or
// returns the backend's tolerance.
func readTolerance(dir string) (tolerance, error) {
	data, err := os.ReadFile(filepath.Join(dir, "tolerance.json"))
	if errors.Is(err, os.ErrNotExist) {
		return backendTolerance, nil
	}
	if err != nil {
		return tolerance{}, err
	}
	var t tolerance
	if err := json.Unmarshal(data, &t); err != nil {
		return tolerance{}, fmt.Errorf("%s: %w", filepath.Join(dir, "tolerance.json"), err)
	}
	return t, nil
}

// compare uses the ONNX backend's tolerances: rtol 1e-3, atol 1e-7 for floats; exact for
// integers and bools.
func compare(got, want *ir.Tensor) error { return compareTol(got, want, backendTolerance) }

// compareTol compares floats within tol; integers and bools exactly.
func compareTol(got, want *ir.Tensor, tol tolerance) error {
	got, want = got.Decoded(), want.Decoded() // tensors of raw_data keep their bytes
	if got.Elem != want.Elem {
		return fmt.Errorf("element type %s, want %s", got.Elem, want.Elem)
	}
	if fmt.Sprint(got.Shape) != fmt.Sprint(want.Shape) {
		return fmt.Errorf("shape %v, want %v", got.Shape, want.Shape)
	}
	rtol, atol := tol.RTol, tol.ATol
	for i := 0; i < want.Len(); i++ {
		if want.Elem.IsFloat() {
			g, w := got.F[i], want.F[i]
			switch {
			case math.IsNaN(w):
				if !math.IsNaN(g) {
					return fmt.Errorf("element %d: %v, want NaN", i, g)
				}
			case math.IsInf(w, 0):
				if g != w {
					return fmt.Errorf("element %d: %v, want %v", i, g, w)
				}
			case math.Abs(g-w) > atol+rtol*math.Abs(w):
				return fmt.Errorf("element %d: %v, want %v", i, g, w)
			}
		} else if got.I[i] != want.I[i] {
			return fmt.Errorf("element %d: %d, want %d", i, got.I[i], want.I[i])
		}
	}
	return nil
}

// RunAll runs every test directory under root whose name matches filter (substring; "" = all).
func RunAll(ctx context.Context, root, filter string, prep Prepare, exec Executor) ([]Result, error) {
	ents, err := os.ReadDir(root)
	if err != nil {
		return nil, err
	}
	var out []Result
	for _, e := range ents {
		if !e.IsDir() || !strings.Contains(e.Name(), filter) {
			continue
		}
		if err := ctx.Err(); err != nil {
			return out, err
		}
		out = append(out, RunTest(ctx, filepath.Join(root, e.Name()), prep, exec))
	}
	return out, nil
}

// Summary returns counts.
func Summary(rs []Result) (pass, fail, skip int) {
	for _, r := range rs {
		switch r.Status {
		case Pass:
			pass++
		case Fail:
			fail++
		default:
			skip++
		}
	}
	return
}

// Table formats a per-op table and the final "N passed, N failed, N skipped" line.
func Table(rs []Result, verbose bool) string {
	type row struct{ pass, fail, skip int }
	per := map[string]*row{}
	for _, r := range rs {
		op := r.Op
		if op == "" {
			op = "(unreadable)"
		}
		if per[op] == nil {
			per[op] = &row{}
		}
		switch r.Status {
		case Pass:
			per[op].pass++
		case Fail:
			per[op].fail++
		default:
			per[op].skip++
		}
	}
	ops := make([]string, 0, len(per))
	for k := range per {
		ops = append(ops, k)
	}
	sort.Strings(ops)
	var sb strings.Builder
	fmt.Fprintf(&sb, "%-40s %6s %6s %6s\n", "op", "pass", "fail", "skip")
	for _, op := range ops {
		r := per[op]
		fmt.Fprintf(&sb, "%-40s %6d %6d %6d\n", op, r.pass, r.fail, r.skip)
	}
	if verbose {
		sb.WriteString("\nfailures:\n")
		for _, r := range rs {
			if r.Status == Fail {
				fmt.Fprintf(&sb, "  %s (%s): %s\n", r.Test, r.Op, firstLine(r.Reason))
			}
		}
	}
	p, f, s := Summary(rs)
	fmt.Fprintf(&sb, "%d passed, %d failed, %d skipped\n", p, f, s)
	return sb.String()
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	if len(s) > 200 {
		return s[:200] + "…"
	}
	return s
}
