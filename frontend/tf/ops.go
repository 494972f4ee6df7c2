// This file holds the op table (every TensorFlow op the importer supports; families register
// their entries from their own files with registerOp) and the basic ops: Placeholder, Const,
// Identity and the other pass-throughs, NoOp.

package tf

import (
	"fmt"

	kit "github.com/graphc/graphc/frontend/importer"

	"github.com/graphc/graphc/ir"
	"github.com/graphc/graphc/volume"
)

var opTable = map[string]func(c *nodeCtx) error{}

func registerOp(name string, fn func(c *nodeCtx) error) {
	if _, dup := opTable[name]; dup {
		panic("tf: op " + name + " registered twice")
	}
	opTable[name] = fn
}

func init() {
	registerOp("Placeholder", importPlaceholder)
	registerOp("Const", importConst)
	// PlaceholderWithDefault feeds its default in a frozen graph (a training flag, a batch
	// size): the default is what the graph computes.
	for _, name := range []string{"Identity", "StopGradient", "Snapshot", "PreventGradient", "PlaceholderWithDefault"} {
		registerOp(name, passThrough)
	}
	registerOp("NoOp", func(*nodeCtx) error { return nil })
	noteOp("a graph input; unknown dims are symbolic", "Placeholder")
	noteOp("its default (what a frozen graph computes)", "PlaceholderWithDefault")
	noteOp("tensor_content or typed values; fewer values than elements repeat the last", "Const")
}

// simple maps a node with n inputs to one catalogue op.
func simple(kind string, n int) func(c *nodeCtx) error {
	return func(c *nodeCtx) error {
		if c.NumInputs() != n {
			return fmt.Errorf("%w: expected %d inputs, got %d", ErrInvalid, n, c.NumInputs())
		}
		e := c.emitter()
		var ins []*ir.Value
		for i := 0; i < n; i++ {
			ins = append(ins, e.In(i))
		}
		e.Out(0, e.Op(kind, e.Base, nil, ins...))
		return e.Done()
	}
}

func passThrough(c *nodeCtx) error {
	if c.NumInputs() < 1 {
		return fmt.Errorf("%w: expected an input", ErrInvalid)
	}
	if t, ok := c.ConstInput(0); ok {
		c.SetConst(0, t)
		return nil
	}
	v, err := c.Input(0)
	if err != nil {
		return err
	}
	c.SetOutput(0, v)
	return nil
}

func importPlaceholder(c *nodeCtx) error {
	dt := c.Attr("dtype")
	if dt == nil {
		return fmt.Errorf("%w: placeholder without a dtype attribute", ErrInvalid)
	}
	elem, err := DType(dt.GetType())
	if err != nil {
		return err
	}
	sh := c.Attr("shape")
	if sh == nil || sh.GetShape() == nil || sh.GetShape().GetUnknownRank() {
		return fmt.Errorf("%w: placeholder of unknown rank (give it a shape attribute)", ErrUnsupported)
	}
	t := ir.TensorType{Elem: elem}
	for i, d := range sh.GetShape().GetDim() {
		if d.Size >= 0 {
			t.Shape = append(t.Shape, volume.AffConst(d.Size))
			continue
		}
		name := fmt.Sprintf("%s_d%d", kit.Ident(c.Name()), i)
		if d.Name != "" {
			name = kit.Ident(d.Name)
		}
		t.Shape = append(t.Shape, c.im.dims.Extent(name, name))
	}
	if err := ir.CheckTypeLimits(t, c.im.cfg.Limits); err != nil {
		return fmt.Errorf("%w: %w", ErrInvalid, err)
	}
	c.SetOutput(0, c.im.g.AddInput(c.Name(), t))
	return nil
}

func importConst(c *nodeCtx) error {
	a := c.Attr("value")
	if a == nil || a.GetTensor() == nil {
		return fmt.Errorf("%w: Const without a value tensor", ErrInvalid)
	}
	t, err := tensorFromProto(a.GetTensor(), c.im.cfg.Limits)
	if err != nil {
		return err
	}
	c.SetConst(0, t)
	return nil
}
