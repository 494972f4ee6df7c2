// This file holds Run, which evaluates a graph op by op.

package eval

import (
	"context"
	"errors"
	"fmt"
	"math"

	"github.com/graphc/graphc/ir"
	"github.com/graphc/graphc/volume"
)

// Option configures Run.
type Option func(*config)

type config struct {
	params   map[string]int64
	maxElems int64
	ctx      context.Context
}

// WithParams binds symbolic dimensions explicitly (otherwise they are inferred from the input
// shapes).
func WithParams(p map[string]int64) Option {
	return func(c *config) {
		for k, v := range p {
			c.params[k] = v
		}
	}
}

// WithMaxElements bounds the elements of any tensor the evaluation allocates (default 1<<28).
func WithMaxElements(n int64) Option { return func(c *config) { c.maxElems = n } }

// WithContext makes Run stop when ctx is cancelled.
func WithContext(ctx context.Context) Option { return func(c *config) { c.ctx = ctx } }

// evalError carries a failure out of the body closures.
type evalError struct{ err error }

// Run evaluates g on inputs (by input name) and returns the outputs in graph order.
func Run(g *ir.Graph, inputs map[string]*ir.Tensor, opts ...Option) ([]*ir.Tensor, error) {
	vals, err := RunAll(g, inputs, opts...)
	if err != nil {
		return nil, err
	}
	out := make([]*ir.Tensor, len(g.Outputs))
	for i, o := range g.Outputs {
		out[i] = vals[o].Decoded() // an output that is a raw constant is returned decoded
	}
	return out, nil
}

// RunAll evaluates g and returns the tensor of every value.
func RunAll(g *ir.Graph, inputs map[string]*ir.Tensor, opts ...Option) (map[*ir.Value]*ir.Tensor, error) {
	cfg := &config{params: map[string]int64{}, maxElems: 1 << 28, ctx: context.Background()}
	for _, o := range opts {
		o(cfg)
	}
	vals := map[*ir.Value]*ir.Tensor{}
	for _, in := range g.Inputs {
		t, ok := inputs[in.Name]
		if !ok {
			return nil, fmt.Errorf("missing input %%%s", in.Name)
		}
		if t.Elem != in.Type.Elem {
			return nil, fmt.Errorf("input %%%s: got %s data, the graph wants %s", in.Name, t.Elem, in.Type)
		}
		if err := bindShape(in.Type, t.Shape, cfg.params); err != nil {
			return nil, fmt.Errorf("input %%%s: %w", in.Name, err)
		}
		vals[in] = t
	}
	for _, in := range g.Inputs {
		want, err := in.Type.EvalShape(cfg.params)
		if err != nil {
			return nil, fmt.Errorf("input %%%s: %w", in.Name, err)
		}
		if !equalShape(want, vals[in].Shape) {
			return nil, fmt.Errorf("input %%%s: shape %v does not match %s", in.Name, vals[in].Shape, in.Type)
		}
	}
	for _, c := range g.Consts {
		vals[c] = c.Data // a raw weight is read in place (compile.go)
	}
	// requirements on the caller's dims are checked first; those that mention a bounded dim
	// once its value is computed (bounded.go)
	for _, op := range g.Ops {
		if usesBounded(g, op) {
			continue
		}
		if err := op.CheckRequires(cfg.params); err != nil {
			return nil, fmt.Errorf("op %%%s: %w", op.Result.Name, err)
		}
	}
	if err := defineBounded(g, vals, cfg.params); err != nil {
		return nil, err
	}
	for _, op := range g.Ops {
		if err := cfg.ctx.Err(); err != nil {
			return nil, err
		}
		if usesBounded(g, op) {
			if err := op.CheckRequires(cfg.params); err != nil {
				return nil, fmt.Errorf("op %%%s: %w", op.Result.Name, err)
			}
		}
		t, err := runOp(op, g.Params, vals, cfg)
		if err != nil {
			return nil, fmt.Errorf("op %%%s (%s): %w", op.Result.Name, op.Kind, err)
		}
		vals[op.Result] = t
		if err := defineBounded(g, vals, cfg.params); err != nil {
			return nil, err
		}
	}
	return vals, nil
}

func equalShape(a, b []int64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// bindShape binds the parameters that appear alone (coefficient 1) in t's extents.
func bindShape(t ir.TensorType, shape []int64, params map[string]int64) error {
	if len(shape) != t.Rank() {
		return fmt.Errorf("rank %d, the graph wants %s", len(shape), t)
	}
	for i, d := range t.Shape {
		if len(d.Params) == 1 && d.Params[0].Coef == 1 && len(d.Dims) == 0 && len(d.Floors) == 0 {
			name := d.Params[0].Name
			v := shape[i] - d.Const
			if old, ok := params[name]; ok && old != v {
				return fmt.Errorf("dimension %s is %d here and %d elsewhere", name, v, old)
			}
			params[name] = v
		}
	}
	return nil
}

func strides(shape []int64) []int64 {
	s := make([]int64, len(shape))
	acc := int64(1)
	for i := len(shape) - 1; i >= 0; i-- {
		s[i] = acc
		acc *= shape[i]
	}
	return s
}

func runOp(op *ir.Op, params []string, vals map[*ir.Value]*ir.Tensor, cfg *config) (res *ir.Tensor, err error) {
	shape, err := op.Result.Type.EvalShape(cfg.params)
	if err != nil {
		return nil, err
	}
	n := ir.NumElements(shape)
	if n > cfg.maxElems {
		return nil, fmt.Errorf("result of %d elements exceeds the evaluator's limit of %d", n, cfg.maxElems)
	}
	elem := op.Result.Type.Elem
	res = ir.NewTensor(elem, shape)
	init := op.Init
	if elem.IsFloat() {
		v := ir.RoundFloat(elem, init)
		for i := range res.F {
			res.F[i] = v
		}
	} else if init != 0 {
		v := ir.IntInit(elem, init)
		for i := range res.I {
			res.I[i] = v
		}
	}
	if n == 0 {
		return res, nil
	}
	ops := make([]*ir.Tensor, len(op.Operands))
	for k, o := range op.Operands {
		ops[k] = vals[o]
		if ops[k] == nil {
			return nil, fmt.Errorf("operand #%d %%%s has no value", k, o.Name)
		}
	}
	if alg := ir.AlgorithmOf(op); alg != nil {
		// an algorithm computes its whole result: the elements outside a restricted domain
		// are not required
		return alg.Eval(op, ops, shape)
	}
	defer func() {
		if r := recover(); r != nil {
			if e, ok := r.(evalError); ok {
				res, err = nil, e.err
				return
			}
			panic(r)
		}
	}()
	c := &compiler{op: op, params: cfg.params, operands: ops}
	body := c.compile(op.Body)
	outIdx := op.Out.Pieces[0].Index
	rs := strides(shape)
	// arg reductions keep the best value seen per element
	var best []float64
	if op.Reduce.IsArg() {
		best = make([]float64, n)
		init := math.Inf(-1)
		if op.Reduce == ir.ReduceArgMin || op.Reduce == ir.ReduceArgMinLast {
			init = math.Inf(1)
		}
		for i := range best {
			best[i] = init
		}
		// element not yet written: marked by a separate flag
	}
	var seen []bool
	if op.Reduce.IsArg() {
		seen = make([]bool, n)
	}
	ast, err := op.Domain.Scan()
	if err != nil {
		return nil, err
	}
	count := 0
	var cerr error
	werr := volume.Walk(ast, op.NDim(), cfg.params, func(_ int, x []int64) {
		count++
		if count&0xffff == 0 && cfg.ctx.Err() != nil {
			panic(evalError{cfg.ctx.Err()})
		}
		off := int64(0)
		for d, a := range outIdx {
			v := a.EvalFast(x, cfg.params)
			if v < 0 || v >= shape[d] {
				panic(evalError{fmt.Errorf("iteration %v writes result index %d = %d outside [0, %d)", x, d, v, shape[d])})
			}
			off += v * rs[d]
		}
		val := body(x)
		switch op.Reduce {
		case ir.ReduceNone:
			if elem.IsFloat() {
				res.F[off] = val.F
			} else {
				res.I[off] = val.I
			}
		case ir.ReduceSum, ir.ReduceProd, ir.ReduceMax, ir.ReduceMin:
			if elem.IsFloat() {
				res.F[off] = ir.RoundFloat(elem, combineF(op.Reduce, res.F[off], val.F))
			} else {
				res.I[off] = elem.WrapInt(combineI(op.Reduce, res.I[off], val.I, elem))
			}
		default:
			v := val.F
			switch bt := op.Body.Type; {
			case bt == ir.U64:
				v = float64(uint64(val.I))
			case !bt.IsFloat():
				v = float64(val.I)
			}
			better := false
			switch op.Reduce {
			case ir.ReduceArgMax:
				better = v > best[off]
			case ir.ReduceArgMaxLast:
				better = v >= best[off]
			case ir.ReduceArgMin:
				better = v < best[off]
			case ir.ReduceArgMinLast:
				better = v <= best[off]
			}
			if !seen[off] || better {
				seen[off] = true
				best[off] = v
				res.I[off] = x[op.ArgDim]
			}
		}
	})
	if werr != nil {
		return nil, werr
	}
	_ = cerr
	return res, nil
}

func combineF(r ir.ReduceKind, acc, v float64) float64 {
	switch r {
	case ir.ReduceSum:
		return acc + v
	case ir.ReduceProd:
		return acc * v
	case ir.ReduceMax:
		if math.IsNaN(v) || v > acc {
			return v
		}
		return acc
	default:
		if math.IsNaN(v) || v < acc {
			return v
		}
		return acc
	}
}

func combineI(r ir.ReduceKind, acc, v int64, t ir.DType) int64 {
	if t == ir.U64 && (r == ir.ReduceMax || r == ir.ReduceMin) {
		if (uint64(v) > uint64(acc)) == (r == ir.ReduceMax) {
			return v
		}
		return acc
	}
	switch r {
	case ir.ReduceSum:
		return acc + v
	case ir.ReduceProd:
		return acc * v
	case ir.ReduceMax:
		return max(acc, v)
	default:
		return min(acc, v)
	}
}

// ErrOutOfBounds is wrapped by errors of reads outside an operand.
var ErrOutOfBounds = errors.New("read out of bounds")
