// This file holds the op table: every ONNX op the importer supports, with its opset range.

package onnx

import (
	"fmt"

	"github.com/graphc/graphc/ir"
)

type opDef struct {
	Since  int // first opset whose semantics the importer implements
	Import func(c *nodeCtx) error
}

// opTable maps ONNX op types to their importers. Each family of ops registers its entries
// from its own file (ops_<family>.go) with registerOp.
var opTable = map[string]opDef{}

func registerOp(name string, since int, fn func(c *nodeCtx) error) {
	if _, dup := opTable[name]; dup {
		panic("onnx: op " + name + " registered twice")
	}
	opTable[name] = opDef{Since: since, Import: fn}
}

func init() {
	registerOp("Trilu", 14, importTrilu)
}

// elementwise maps a node to one catalogue op over all its inputs.
func elementwise(kind string) func(c *nodeCtx) error {
	return func(c *nodeCtx) error {
		var ins []*ir.Value
		for i := 0; i < c.NumInputs(); i++ {
			v, err := c.Input(i)
			if err != nil {
				return err
			}
			ins = append(ins, v)
		}
		v, err := c.Emit(kind, ins, nil, c.Output(0))
		if err != nil {
			return err
		}
		c.SetOutput(0, v)
		return nil
	}
}

func importTrilu(c *nodeCtx) error {
	x, err := c.Input(0)
	if err != nil {
		return err
	}
	k := int64(0)
	if c.HasInput(1) {
		t, ok := c.ConstInput(1)
		if !ok {
			return fmt.Errorf("%w: the k input must be a constant", ErrUnsupported)
		}
		if t.Len() != 1 || t.Elem.IsFloat() {
			return fmt.Errorf("%w: k must be an integer scalar, got %s%v", ErrInvalid, t.Elem, t.Shape)
		}
		k = t.I[0]
	}
	upper := c.AttrInt("upper", 1)
	v, err := c.Emit("trilu", []*ir.Value{x}, ir.Attrs{"upper": ir.BoolAttr(upper != 0), "k": ir.IntAttr(k)}, c.Output(0))
	if err != nil {
		return err
	}
	c.SetOutput(0, v)
	return nil
}
