// This file holds the op table: every TensorFlow op the importer supports. Families register
// their entries from their own files with registerOp.

package tf

import (
	"fmt"

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
	registerOp("Identity", passThrough)
	registerOp("StopGradient", passThrough)
	registerOp("NoOp", func(*nodeCtx) error { return nil })
	for tfName, kind := range map[string]string{"Add": "add", "AddV2": "add", "Sub": "sub", "Mul": "mul",
		"RealDiv": "div", "Maximum": "max", "Minimum": "min"} {
		registerOp(tfName, simple(kind, 2))
	}
	for tfName, kind := range map[string]string{"Relu": "relu", "Sigmoid": "sigmoid", "Tanh": "tanh", "Neg": "neg", "Abs": "abs", "Exp": "exp", "Log": "log", "Sqrt": "sqrt"} {
		registerOp(tfName, simple(kind, 1))
	}
	registerOp("BiasAdd", importBiasAdd)
	registerOp("MatMul", importMatMul)
	registerOp("BatchMatMul", importMatMul)
	registerOp("BatchMatMulV2", importMatMul)
	registerOp("BatchMatMulV3", importMatMul)
	registerOp("MatrixBandPart", importBandPart)
	registerOp("MatrixDiagPart", simple("diag_part", 1))
}

// simple maps a node with n inputs to one catalogue op.
func simple(kind string, n int) func(c *nodeCtx) error {
	return func(c *nodeCtx) error {
		if c.NumInputs() != n {
			return fmt.Errorf("%w: expected %d inputs, got %d", ErrInvalid, n, c.NumInputs())
		}
		var ins []*ir.Value
		for i := 0; i < n; i++ {
			v, err := c.Input(i)
			if err != nil {
				return err
			}
			ins = append(ins, v)
		}
		v, err := c.Emit(kind, ins, nil)
		if err != nil {
			return err
		}
		c.SetOutput(0, v)
		return nil
	}
}

func passThrough(c *nodeCtx) error {
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
		name := fmt.Sprintf("%s_d%d", sanitize(c.Name()), i)
		if d.Name != "" {
			name = sanitize(d.Name)
		}
		if v, ok := c.im.cfg.dims[name]; ok {
			t.Shape = append(t.Shape, volume.AffConst(v))
		} else {
			t.Shape = append(t.Shape, volume.AffParam(name))
		}
	}
	c.SetOutput(0, c.im.g.AddInput(c.Name(), t))
	return nil
}

func sanitize(s string) string {
	b := []byte(s)
	for i, ch := range b {
		if !(ch == '_' || ch >= 'a' && ch <= 'z' || ch >= 'A' && ch <= 'Z' || i > 0 && ch >= '0' && ch <= '9') {
			b[i] = '_'
		}
	}
	return string(b)
}

func importConst(c *nodeCtx) error {
	a := c.Attr("value")
	if a == nil || a.GetTensor() == nil {
		return fmt.Errorf("%w: Const without a value tensor", ErrInvalid)
	}
	t, err := TensorFromProto(a.GetTensor())
	if err != nil {
		return err
	}
	c.SetConst(0, t)
	return nil
}

// importBiasAdd adds a bias along the channel dim (last for NHWC, dim 1 for NCHW).
func importBiasAdd(c *nodeCtx) error {
	x, err := c.Input(0)
	if err != nil {
		return err
	}
	b, err := c.Input(1)
	if err != nil {
		return err
	}
	if b.Type.Rank() != 1 {
		return fmt.Errorf("%w: bias must be 1-D, got %s", ErrInvalid, b.Type)
	}
	if f := c.AttrString("data_format", "NHWC"); f != "NHWC" {
		return fmt.Errorf("%w: BiasAdd with data_format %s", ErrUnsupported, f)
	}
	v, err := c.Emit("add", []*ir.Value{x, b}, nil)
	if err != nil {
		return err
	}
	c.SetOutput(0, v)
	return nil
}

func importMatMul(c *nodeCtx) error {
	for _, a := range []string{"transpose_a", "transpose_b", "adj_x", "adj_y"} {
		if c.AttrBool(a, false) {
			return fmt.Errorf("%w: %s is not supported yet", ErrUnsupported, a)
		}
	}
	return simple("matmul", 2)(c)
}

func importBandPart(c *nodeCtx) error {
	x, err := c.Input(0)
	if err != nil {
		return err
	}
	lo, ok1 := c.ConstInts(1)
	up, ok2 := c.ConstInts(2)
	if !ok1 || !ok2 || len(lo) != 1 || len(up) != 1 {
		return fmt.Errorf("%w: num_lower and num_upper must be scalar constants", ErrUnsupported)
	}
	v, err := c.Emit("band_part", []*ir.Value{x}, ir.Attrs{"lower": ir.IntAttr(lo[0]), "upper": ir.IntAttr(up[0])})
	if err != nil {
		return err
	}
	c.SetOutput(0, v)
	return nil
}
