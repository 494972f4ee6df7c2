// Package realmodel reads graphc's real-model set: PyTorch exports written by models/export.py
// in the ONNX backend-test layout (model.onnx and test_data_set_<n>/{input,output}_<k>.pb with
// PyTorch's outputs), and runs them as compiled code. The benchmark (cmd/graphc-bench -real)
// and the tests on the committed tiny exports (testdata/realmodels) share it.
package realmodel

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"google.golang.org/protobuf/proto"

	"github.com/graphc/graphc/frontend/onnx"
	"github.com/graphc/graphc/internal/e2e"
	"github.com/graphc/graphc/ir"
	"github.com/graphc/graphc/proto/onnxpb"
)

// DataSet is one reference run: the inputs (graph order) and PyTorch's outputs.
type DataSet struct {
	Name    string
	Inputs  []*ir.Tensor
	Outputs []*ir.Tensor
}

// Model is one exported model.
type Model struct {
	Name string
	Dir  string
	Path string // model.onnx
	Sets []DataSet
	// InputNames are the names of the graph inputs that are not initializers.
	InputNames []string
	// Reference names who computed the outputs ("" = PyTorch; the quantized models of
	// models/export_quant.py: onnxruntime-node).
	Reference string
	// QuantStep is the scale of the output's last quantization (meta.json quant_step): the
	// comparison allows one step, as quantized kernels may round a tie the other way.
	QuantStep float64
	// ReferenceU8S8 says how onnxruntime summed u8×s8 products where it recorded the outputs
	// (meta.json reference_u8s8): "exact" (VNNI, or not x86), "saturating" (x86 without VNNI:
	// vpmaddubsw saturates pairs of products at 2^15), "" when the export did not say.
	ReferenceU8S8 string
	// QDQ says the graph quantizes activations (it holds a QuantizeLinear node): without the
	// passes such a model runs dequantize -> float op -> quantize.
	QDQ bool
}

// Tolerance returns the comparison tolerance of m's outputs: DefaultTolerance, plus one
// quantization step for quantized outputs.
func (m *Model) Tolerance() Tolerance {
	t := DefaultTolerance
	t.Abs = m.QuantStep
	return t
}

// DefaultDir returns the cache directory models/export.py writes the benchmark set to:
// $GRAPHC_MODELS, or ~/.cache/graphc-models.
func DefaultDir() string {
	if d := os.Getenv("GRAPHC_MODELS"); d != "" {
		return d
	}
	if d, err := os.UserCacheDir(); err == nil {
		return filepath.Join(d, "graphc-models")
	}
	return filepath.Join(os.TempDir(), "graphc-models")
}

// List returns the names of the models under root (directories holding a model.onnx), sorted.
func List(root string) ([]string, error) {
	ents, err := os.ReadDir(root)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, e := range ents {
		if _, err := os.Stat(filepath.Join(root, e.Name(), "model.onnx")); err == nil {
			out = append(out, e.Name())
		}
	}
	sort.Strings(out)
	return out, nil
}

// Load reads the model root/name and its data sets.
func Load(root, name string) (*Model, error) {
	dir := filepath.Join(root, name)
	m := &Model{Name: name, Dir: dir, Path: filepath.Join(dir, "model.onnx")}
	names, qdq, err := inputNames(m.Path)
	if err != nil {
		return nil, err
	}
	m.InputNames, m.QDQ = names, qdq
	if data, err := os.ReadFile(filepath.Join(dir, "meta.json")); err == nil {
		var meta struct {
			Reference     string  `json:"reference"`
			QuantStep     float64 `json:"quant_step"`
			ReferenceU8S8 string  `json:"reference_u8s8"`
		}
		if err := json.Unmarshal(data, &meta); err != nil {
			return nil, fmt.Errorf("%s: meta.json: %w", dir, err)
		}
		m.Reference, m.QuantStep, m.ReferenceU8S8 = meta.Reference, meta.QuantStep, meta.ReferenceU8S8
	}
	for n := 0; ; n++ {
		sd := filepath.Join(dir, fmt.Sprintf("test_data_set_%d", n))
		if _, err := os.Stat(sd); err != nil {
			break
		}
		ins, err := readTensors(sd, "input")
		if err != nil {
			return nil, err
		}
		outs, err := readTensors(sd, "output")
		if err != nil {
			return nil, err
		}
		m.Sets = append(m.Sets, DataSet{Name: filepath.Base(sd), Inputs: ins, Outputs: outs})
	}
	if len(m.Sets) == 0 {
		return nil, fmt.Errorf("%s: no test_data_set_0", dir)
	}
	return m, nil
}

func inputNames(path string) (names []string, qdq bool, err error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, false, err
	}
	mp := &onnxpb.ModelProto{}
	if err := proto.Unmarshal(data, mp); err != nil {
		return nil, false, fmt.Errorf("%s: %w", path, err)
	}
	for _, n := range mp.GetGraph().GetNode() {
		qdq = qdq || n.GetOpType() == "QuantizeLinear"
	}
	inits := map[string]bool{}
	for _, t := range mp.GetGraph().GetInitializer() {
		inits[t.GetName()] = true
	}
	for _, vi := range mp.GetGraph().GetInput() {
		if !inits[vi.GetName()] {
			names = append(names, vi.GetName())
		}
	}
	return names, qdq, nil
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
			return nil, fmt.Errorf("%s: %w", p, err)
		}
		t, err := onnx.TensorFromProto(tp)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", p, err)
		}
		out = append(out, t)
	}
}

// Params binds the symbolic dims of g's inputs to the shapes of the given input tensors.
func Params(g *ir.Graph, inputs []*ir.Tensor) (map[string]int64, error) {
	if len(inputs) != len(g.Inputs) {
		return nil, fmt.Errorf("%d inputs for %d graph inputs", len(inputs), len(g.Inputs))
	}
	params := e2e.AtBounds(g, map[string]int64{}) // outputs of bounded extent are allocated at the bound
	for k, in := range g.Inputs {
		if in.Type.Rank() != len(inputs[k].Shape) {
			return nil, fmt.Errorf("input %%%s has rank %d, the data %v", in.Name, in.Type.Rank(), inputs[k].Shape)
		}
		for d, a := range in.Type.Shape {
			if c, ok := a.IsConst(); ok {
				if c != inputs[k].Shape[d] {
					return nil, fmt.Errorf("input %%%s: dim %d is %d, the data has %d", in.Name, d, c, inputs[k].Shape[d])
				}
				continue
			}
			ps := a.ParamNames()
			if len(ps) != 1 || a.String(nil...) != ps[0] {
				continue // a dim like 2*N: bound by another input, or by its own plain dim
			}
			if v, ok := params[ps[0]]; ok && v != inputs[k].Shape[d] {
				return nil, fmt.Errorf("symbolic dim %s is %d and %d", ps[0], v, inputs[k].Shape[d])
			}
			params[ps[0]] = inputs[k].Shape[d]
		}
	}
	return params, nil
}

// Tolerance of a comparison with PyTorch's outputs: |got - want| <= Abs + ATol*scale +
// RTol*|want|, where scale is the largest |want| of the output. Different summation orders (register tiles,
// vector reductions, fused multiply-adds) differ from PyTorch's by a few ulps per operation; a
// few layers deep that is ~1e-5 of the values' scale.
type Tolerance struct{ RTol, ATol, Abs float64 }

// DefaultTolerance is the tolerance the tests and the benchmark use.
var DefaultTolerance = Tolerance{RTol: 1e-3, ATol: 1e-4}

// Compare checks got against want and returns the largest error relative to want's scale.
func Compare(got, want *ir.Tensor, tol Tolerance) (float64, error) {
	if fmt.Sprint(got.Shape) != fmt.Sprint(want.Shape) {
		return 0, fmt.Errorf("shape %v, want %v", got.Shape, want.Shape)
	}
	scale := 0.0
	for i := 0; i < want.Len(); i++ {
		if w := math.Abs(want.Float(i)); !math.IsInf(w, 0) && w > scale {
			scale = w
		}
	}
	if scale == 0 {
		scale = 1
	}
	worst := 0.0
	for i := 0; i < want.Len(); i++ {
		g, w := got.Float(i), want.Float(i)
		if math.IsNaN(w) || math.IsInf(w, 0) {
			if !(math.IsNaN(w) && math.IsNaN(g)) && g != w {
				return 0, fmt.Errorf("element %d: %v, want %v", i, g, w)
			}
			continue
		}
		d := math.Abs(g - w)
		if math.IsNaN(d) || d > tol.Abs+tol.ATol*scale+tol.RTol*math.Abs(w) {
			return 0, fmt.Errorf("element %s: %v, want %v (scale %.3g)", index(want.Shape, i), g, w, scale)
		}
		worst = max(worst, d/scale)
	}
	return worst, nil
}

func index(shape []int64, i int) string {
	idx := make([]string, len(shape))
	for d := len(shape) - 1; d >= 0; d-- {
		idx[d] = fmt.Sprint(int64(i) % shape[d])
		i /= int(shape[d])
	}
	return "[" + strings.Join(idx, ", ") + "]"
}

// Runner runs a compiled model on inputs and returns its outputs and the mean time per call
// (ns) over reps calls.
type Runner interface {
	Run(ctx context.Context, inputs []*ir.Tensor, params map[string]int64, reps int) ([]*ir.Tensor, float64, error)
}

// CheckSets runs every data set of m through r and compares the outputs with PyTorch's.
// It returns the largest relative error over all outputs.
func CheckSets(ctx context.Context, m *Model, g *ir.Graph, r Runner, tol Tolerance) (float64, error) {
	worst := 0.0
	for _, s := range m.Sets {
		params, err := Params(g, s.Inputs)
		if err != nil {
			return 0, fmt.Errorf("%s %s: %w", m.Name, s.Name, err)
		}
		got, _, err := r.Run(ctx, s.Inputs, params, 1)
		if err != nil {
			return 0, fmt.Errorf("%s %s: %w", m.Name, s.Name, err)
		}
		if len(g.Bounded) > 0 {
			e, err := checkBounded(g, params, got, s.Outputs, tol)
			if err != nil {
				return 0, fmt.Errorf("%s %s: %w", m.Name, s.Name, err)
			}
			worst = max(worst, e)
			continue
		}
		if len(got) != len(s.Outputs) {
			return 0, fmt.Errorf("%s %s: %d outputs, PyTorch has %d", m.Name, s.Name, len(got), len(s.Outputs))
		}
		for k := range got {
			e, err := Compare(got[k], s.Outputs[k], tol)
			if err != nil {
				return 0, fmt.Errorf("%s %s output %d (%s): %w", m.Name, s.Name, k, g.Outputs[k].Name, err)
			}
			worst = max(worst, e)
		}
	}
	return worst, nil
}

// checkBounded compares the outputs of a graph with bounded dims, read at the bounds, with the
// reference's: cut to the extents the entry computed, the bounded dims' own outputs (after
// the model's) left out. A detector's boxes [n, 4], scores [n] and labels [n], ordered by
// descending score, are compared as detections (e2e.CompareDetections: near ties in either
// order).
func checkBounded(g *ir.Graph, params map[string]int64, got, want []*ir.Tensor, tol Tolerance) (float64, error) {
	for _, b := range g.Bounded {
		if b.Output < len(want) {
			return 0, fmt.Errorf("bounded dim %s is output %d, among the model's %d", b.Param, b.Output, len(want))
		}
	}
	got, err := e2e.TrimBounded(g, params, got)
	if err != nil {
		return 0, err
	}
	got = got[:len(want)]
	if len(want) == 3 && len(want[0].Shape) == 2 && want[0].Shape[1] == 4 && len(want[1].Shape) == 1 && len(want[2].Shape) == 1 &&
		want[0].Elem.IsFloat() && want[1].Elem.IsFloat() && !want[2].Elem.IsFloat() {
		if fmt.Sprint(got[0].Shape) != fmt.Sprint(want[0].Shape) {
			return 0, fmt.Errorf("boxes %v, want %v", got[0].Shape, want[0].Shape)
		}
		scale := func(t *ir.Tensor) float64 {
			s := 1.0
			for i := 0; i < t.Len(); i++ {
				s = max(s, math.Abs(t.Float(i)))
			}
			return s
		}
		err := e2e.CompareDetections(e2e.Detections{Boxes: got[0], Scores: got[1], Labels: got[2]},
			e2e.Detections{Boxes: want[0], Scores: want[1], Labels: want[2]},
			[2]float64{tol.RTol, tol.Abs + tol.ATol*scale(want[0])}, [2]float64{tol.RTol, tol.Abs + tol.ATol*scale(want[1])})
		return 0, err
	}
	worst := 0.0
	for k := range want {
		e, err := Compare(got[k], want[k], tol)
		if err != nil {
			return 0, fmt.Errorf("output %d (%s): %w", k, g.Outputs[k].Name, err)
		}
		worst = max(worst, e)
	}
	return worst, nil
}
