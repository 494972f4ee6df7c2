package importer_test

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/require"

	kit "github.com/graphc/graphc/frontend/importer"
	"github.com/graphc/graphc/ir"
	"github.com/graphc/graphc/volume"
)

// fakeNode is a node with the given inputs whose ops are appended to g unfolded.
type fakeNode struct {
	g       *ir.Graph
	inputs  []*ir.Value
	outputs map[int]*ir.Value
}

func (n *fakeNode) Input(i int) (*ir.Value, error) {
	if i >= len(n.inputs) {
		return nil, errors.New("missing input")
	}
	return n.inputs[i], nil
}

func (n *fakeNode) Emit(kind string, operands []*ir.Value, attrs ir.Attrs, name string) (*ir.Value, error) {
	op, err := n.g.NewOp(kind, "node", operands, attrs)
	if err != nil {
		return nil, err
	}
	n.g.RenameValue(op.Result, name)
	return op.Result, nil
}

func (n *fakeNode) SetOutput(i int, v *ir.Value) { n.outputs[i] = v }

func (n *fakeNode) AddConst(name string, t *ir.Tensor) *ir.Value { return n.g.AddConst(name, t) }

// TestEmitter: intermediate results are named after Base and the op kind, a named one keeps
// its name, Cast is v itself when nothing changes, Count is a constant for static extents and
// a reduction for symbolic ones, and after the first error nothing is emitted.
func TestEmitter(t *testing.T) {
	g := ir.NewGraph("g")
	x := g.AddInput("x", ir.TensorType{Elem: ir.F32, Shape: []volume.Aff{volume.AffParam("N"), volume.AffConst(3)}})
	n := &fakeNode{g: g, inputs: []*ir.Value{x}, outputs: map[int]*ir.Value{}}
	var err error
	e := kit.Emitter{Node: n, Base: "y", Err: &err}

	in := e.In(0)
	neg := e.Op("neg", "", nil, in)
	require.Equal(t, "y_neg", neg.Name)
	require.Same(t, in, e.Cast(in, ir.F32, ""))
	id := e.Cast(in, ir.F32, "y")
	require.Equal(t, "identity", id.Def.Kind)
	require.Equal(t, "y", id.Name)
	require.Equal(t, "i64", e.Cast(in, ir.I64, "").Type.Elem.String())

	c := e.Count(in, []int{1}, ir.F32)
	require.NotNil(t, c.Data, "a static count is a constant")
	require.Equal(t, 3.0, c.Data.Float(0))
	sym := e.Count(in, []int{0, 1}, ir.F32)
	require.Equal(t, "reduce_sum", sym.Def.Kind)

	r := e.Reshape(in, []volume.Aff{volume.AffParam("N").Mul(3)}, "")
	require.Equal(t, "[3N]", ir.ExtentsString(r.Type.Shape))
	require.Equal(t, 4, len(e.UnitDims(r, 3).Type.Shape))

	e.Out(0, neg)
	require.Same(t, neg, n.outputs[0])

	require.Nil(t, e.In(5))
	require.Error(t, e.Done())
	before := len(g.Ops)
	require.Nil(t, e.Op("neg", "", nil, x))
	e.Out(1, x)
	require.Len(t, g.Ops, before, "nothing is emitted after an error")
	require.NotContains(t, n.outputs, 1)
	e.Fail(errors.New("second"))
	require.ErrorContains(t, e.Done(), "missing input", "the first error is kept")
}
