// This file holds fold-constants: every op whose operands are all constants is evaluated at
// compile time by the reference evaluator and replaced by its result, so that weights computed
// by constant subgraphs (ConstantOfShape fills, Expand/Tile of constants, transposed or
// reshaped weights, weight normalisation, DequantizeLinear of constant weights) reach the
// layout pass and the kernels as constants, as onnxruntime folds them when it opens a session.

package passes

import (
	"bytes"
	"context"
	"fmt"

	"github.com/graphc/graphc/ir"
	"github.com/graphc/graphc/ir/eval"
)

// MaxFoldBytes bounds the bytes fold-constants materialises in one compile: the sum, over the
// constants it creates, of their elements in their own element types (what the module embeds,
// or the --weights file holds). Evaluating one op takes at most 8 bytes per element more for
// the time of that op (the evaluator computes in float64 or int64 before the result is stored
// compactly), so a compile holds at most 3 × MaxFoldBytes beyond its model. 1 GiB covers the
// weights of a VGG-19 (548 MB) produced by fills; an op that does not fit in what remains is
// left to run.
const MaxFoldBytes = 1 << 30

// maxFoldIterations bounds the evaluator's work for one folded op (its iteration count): a
// matmul of two large constants is left to the compiled code, which runs it at full speed.
const maxFoldIterations = 1 << 28

var foldPass = &Pass{
	Name:    "fold-constants",
	Summary: "evaluate ops whose operands are all constants at compile time (weights computed by constant subgraphs), within a byte bound",
	Doc: `An op whose operands are all constants (or that has none: a fill, a range) and whose
result has a static shape, is not a graph output and takes at most 2^28 iterations is
evaluated by the reference evaluator (ir/eval) and replaced by a constant of its result, in
graph order, so that chains fold (a fill, transposed, reshaped, dequantized). An op that
materialises more elements than its operands hold (a fill, an Expand or Tile of a constant)
folds only where a constant helps: when one of its readers folds too, is a contraction (it
is then the contraction's weight, whose panels need no fill at run time) or reads it
broadcast (a per-channel scale); a fill the size of the activation it is added to stays a
loop, cheaper than a constant to load. The constants created total at most MaxFoldBytes
(1 GiB, in their element types; State.FoldedBytes reports them, Options.FoldBytes narrows
the bound, a negative value disables the pass); ops beyond it stay.
Then, in every op's body, a part that computes only from constants read at one index (and
literals) is evaluated once per element of those constants, within the same bound: an
inference BatchNorm that no convolution absorbs reads sqrt(var + eps) as a per-channel
constant instead of taking a square root per element (fold_subexpr.go).
Then a contraction (einsum) that reads a constant with its reduction index innermost and
the result's innermost index outer (Gemm with transB: x·Wᵀ, every exported classifier head)
reads it transposed once here, within the same bound: kernels then stream the weight's rows
instead of gathering it into packed panels on every call.
Postconditions: every value is unchanged (bit for bit: the evaluator is the semantics);
folded ops are gone and their readers read constants of the same name.`,
	Run: runFold,
}

func runFold(ctx context.Context, g *ir.Graph, st *State) error {
	budget := int64(MaxFoldBytes)
	if st.Opts != nil && st.Opts.FoldBytes != 0 {
		budget = st.Opts.FoldBytes
	}
	if budget < 0 {
		return nil
	}
	made, err := foldOps(ctx, g, st, budget)
	if err != nil {
		return err
	}
	n, err := hoistConstSubexprs(ctx, g, budget-st.FoldedBytes)
	if err != nil {
		return err
	}
	if n > 0 {
		st.FoldedBytes += n
		if st.Opts != nil && st.Opts.OnFold != nil {
			st.Opts.OnFold(st.FoldedBytes)
		}
		g.RemoveOps(func(*ir.Op) bool { return false }) // the constants only hoisted parts read
	}
	if n, rewritten := transposeWeights(g, budget-st.FoldedBytes, made); rewritten > 0 {
		st.FoldedBytes += n
		if st.Opts != nil && st.Opts.OnFold != nil && n > 0 {
			st.Opts.OnFold(st.FoldedBytes)
		}
		g.RemoveOps(func(*ir.Op) bool { return false }) // the weights as they were read
	}
	return nil
}

// foldOps replaces the ops foldCandidates selects by constants of their results, in graph
// order, within budget; it returns the constants it made.
func foldOps(ctx context.Context, g *ir.Graph, st *State, budget int64) (map[*ir.Value]bool, error) {
	want := foldCandidates(g)
	if len(want) == 0 {
		return nil, nil
	}
	folded := map[*ir.Op]*ir.Tensor{}
	repl := map[*ir.Value]*ir.Value{} // folded results → their constants
	names := map[string]bool{}
	for _, op := range g.Ops {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		for i, o := range op.Operands {
			if r := repl[o]; r != nil {
				op.Operands[i] = r
			}
		}
		if !want[op] || !allConst(op) {
			continue
		}
		n := resultBytes(op)
		if st.FoldedBytes+n > budget {
			continue
		}
		t, ok := evalOp(ctx, g, op)
		if !ok {
			continue
		}
		st.FoldedBytes += n
		if st.Opts != nil && st.Opts.OnFold != nil {
			st.Opts.OnFold(st.FoldedBytes)
		}
		folded[op] = t
		c := &ir.Value{Name: op.Result.Name, Type: op.Result.Type, Data: t.Compact()}
		repl[op.Result] = c
		names[op.Result.Name] = true
	}
	if len(folded) == 0 {
		return nil, nil
	}
	// the constants take the folded results' names (freed by RemoveOps) and their place
	for _, op := range g.Ops {
		if folded[op] != nil {
			g.Consts = append(g.Consts, repl[op.Result])
		}
	}
	n := g.RemoveOps(func(op *ir.Op) bool { return folded[op] != nil })
	for _, c := range g.Consts {
		if names[c.Name] {
			g.RenameValue(c, c.Name) // registers the name as taken
		}
	}
	if s := st.Stats["fold-constants"]; s != nil {
		s.OpsRemoved += n
	}
	made := map[*ir.Value]bool{}
	for _, c := range repl {
		made[c] = true
	}
	return made, nil
}

// foldCandidates returns the ops fold-constants may evaluate: static, not outputs, their
// operands constants or candidates themselves, and (for ops that expand their operands) read
// where a constant helps. It decides the expanding ops from the last to the first, so that
// an op's readers are decided before it.
func foldCandidates(g *ir.Graph) map[*ir.Op]bool {
	outputs := map[*ir.Value]bool{}
	for _, o := range g.Outputs {
		outputs[o] = true
	}
	can := map[*ir.Op]bool{}
	for _, op := range g.Ops {
		if outputs[op.Result] {
			continue
		}
		ok := true
		for _, o := range op.Operands {
			if o.Data == nil && (o.Def == nil || !can[o.Def]) {
				ok = false
				break
			}
		}
		can[op] = ok && foldable(op) // after the operands: counting a domain costs more
	}
	users := g.Users()
	want := map[*ir.Op]bool{}
	for i := len(g.Ops) - 1; i >= 0; i-- {
		op := g.Ops[i]
		if !can[op] {
			continue
		}
		if !expands(op) {
			want[op] = true
			continue
		}
		n := resultElements(op)
		for _, u := range users[op.Result] {
			if want[u] || hasReduction(u) || resultElements(u) > n {
				want[op] = true
				break
			}
		}
	}
	return want
}

// foldable reports whether op's result is static and its work within maxFoldIterations.
func foldable(op *ir.Op) bool {
	if _, ok := op.Result.Type.StaticShape(); !ok {
		return false
	}
	card, err := op.Domain.Card(nil)
	if err != nil {
		return false // volume gave up: not folded
	}
	return card <= maxFoldIterations
}

// expands reports whether op's result has more elements than its operands together.
func expands(op *ir.Op) bool {
	var in int64
	for _, o := range op.Operands {
		if s, ok := o.Type.StaticShape(); ok {
			in += ir.NumElements(s)
		}
	}
	return resultElements(op) > in
}

func hasReduction(op *ir.Op) bool {
	for _, k := range op.Iters {
		if k == ir.Reduction {
			return true
		}
	}
	return false
}

func resultElements(op *ir.Op) int64 {
	s, ok := op.Result.Type.StaticShape()
	if !ok {
		return 1 << 62 // symbolic: larger than any static tensor
	}
	return ir.NumElements(s)
}

func resultBytes(op *ir.Op) int64 {
	return resultElements(op) * int64(max(op.Result.Type.Elem.Size(), 1))
}

func allConst(op *ir.Op) bool {
	for _, o := range op.Operands {
		if o.Data == nil {
			return false
		}
	}
	return true
}

// evalOp evaluates op on its constant operands (ok=false when the evaluator cannot: the op
// stays). A fill of a constant over its whole result is written directly in its element
// type, without the evaluator's 8 bytes per element.
func evalOp(ctx context.Context, g *ir.Graph, op *ir.Op) (*ir.Tensor, bool) {
	if t, ok := fillTensor(op); ok {
		return t, true
	}
	one := ir.NewGraph("fold")
	one.Params = g.Params
	seen := map[*ir.Value]bool{}
	for _, o := range op.Operands {
		if !seen[o] {
			seen[o] = true
			one.Consts = append(one.Consts, o)
		}
	}
	one.Ops = []*ir.Op{op}
	one.Outputs = []*ir.Value{op.Result}
	out, err := eval.Run(one, nil, eval.WithContext(ctx))
	if err != nil {
		return nil, false
	}
	return out[0], true
}

// fillTensor returns the result of an operand-less op whose body is a constant and whose
// domain covers its result, built from the constant's bytes.
func fillTensor(op *ir.Op) (*ir.Tensor, bool) {
	if op.Kind != "fill" || len(op.Operands) > 0 || op.Body == nil || op.Body.Op != ir.SConst || hasReduction(op) {
		return nil, false
	}
	shape, _ := op.Result.Type.StaticShape()
	elem := op.Result.Type.Elem
	n := ir.NumElements(shape)
	if !elem.HasRawLayout() || n < ir.RawThreshold || op.Body.Type != elem {
		return nil, false
	}
	if c, err := op.Domain.Card(nil); err != nil || c != n {
		return nil, false // not full, or volume gave up
	}
	one := ir.NewTensor(elem, []int64{1})
	if elem.IsFloat() {
		one.F[0] = op.Body.F
	} else {
		one.I[0] = op.Body.I
	}
	t, err := ir.TensorFromRaw(elem, shape, bytes.Repeat(one.Bytes(), int(n)))
	if err != nil {
		panic(fmt.Sprintf("fold-constants: %v", err)) // the size is the shape's
	}
	return t, true
}
