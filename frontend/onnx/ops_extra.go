// This file imports shape-family ops beyond the list that reduce to the catalogue's:
// CenterCropPad (one pad with negative pads for the crop), LpPool (lp_pool then the p-th
// root), EyeLike (eye) and the deprecated Upsample (Resize-10 semantics).

package onnx

import (
	"fmt"

	"github.com/graphc/graphc/ir"
	"github.com/graphc/graphc/volume"
)

func init() {
	registerOp("CenterCropPad", 18, importCenterCropPad)
	registerOp("LpPool", 2, importLpPool)
	registerOp("GlobalLpPool", 2, importGlobalLpPool)
	noteOp("GlobalLpPool", "LpPool with the whole spatial extent (static) as its kernel")
	registerOp("EyeLike", 9, importEyeLike)
	registerOp("Upsample", 7, importUpsample)
}

func importCenterCropPad(c *nodeCtx) error {
	x, err := c.Input(0)
	if err != nil {
		return err
	}
	target, err := c.RequireInts(1, "shape")
	if err != nil {
		return err
	}
	r := x.Type.Rank()
	axes := make([]int, r)
	for i := range axes {
		axes[i] = i
	}
	if a := c.AttrInts("axes", nil); len(a) > 0 {
		if axes, err = normAxes(a, r); err != nil {
			return err
		}
	}
	if len(target) != len(axes) {
		return fmt.Errorf("%w: %d target extents for %d axes", ErrInvalid, len(target), len(axes))
	}
	pads := make([]int64, 2*r)
	for i, a := range axes {
		n, ok := x.Type.Shape[a].IsConst()
		if !ok {
			return fmt.Errorf("%w: center crop of the symbolic extent %s", ErrUnsupported, x.Type.Shape[a].String())
		}
		t := target[i]
		if t < 0 {
			return fmt.Errorf("%w: negative target extent %d", ErrInvalid, t)
		}
		if n >= t { // crop: the window starts at floor((n - t)/2)
			start := (n - t) / 2
			pads[a], pads[r+a] = -start, -(n - t - start)
		} else { // pad: floor((t - n)/2) before
			before := (t - n) / 2
			pads[a], pads[r+a] = before, t-n-before
		}
	}
	return emit1(c, "pad", []*ir.Value{x}, ir.Attrs{"pads": ir.IntsAttr(pads...)})
}

func importLpPool(c *nodeCtx) error {
	x, err := c.Input(0)
	if err != nil {
		return err
	}
	if x.Type.Rank() < 3 || !x.Type.Elem.IsFloat() {
		return fmt.Errorf("%w: X must be a floating-point tensor of rank >= 3, got %s", ErrInvalid, x.Type)
	}
	ns := x.Type.Rank() - 2
	k := c.AttrInts("kernel_shape", nil)
	if len(k) != ns {
		return fmt.Errorf("%w: kernel_shape %v for %d spatial dims", ErrInvalid, k, ns)
	}
	s, d := intsOr(c, "strides", ns, 1), intsOr(c, "dilations", ns, 1)
	pads, err := autoPads(c, x.Type.Shape[2:], k, s, d)
	if err != nil {
		return err
	}
	p := c.AttrInt("p", 2)
	sum, err := c.Emit("lp_pool", []*ir.Value{x}, ir.Attrs{"kernel": ir.IntsAttr(k...), "strides": listAttr(s, 1), "dilations": listAttr(d, 1),
		"pads": listAttr(pads, 0), "ceil_mode": ir.IntAttr(c.AttrInt("ceil_mode", 0)), "p": ir.IntAttr(p)}, "")
	if err != nil {
		return err
	}
	if p == 1 {
		c.SetOutput(0, sum)
		return nil
	}
	root := ir.NewTensor(x.Type.Elem, []int64{})
	root.F[0] = ir.RoundFloat(x.Type.Elem, 1/float64(p))
	return emit1(c, "pow", []*ir.Value{sum, c.im.g.AddConst(c.Output(0)+"_root", root)}, nil)
}

// importGlobalLpPool: (Σ |x|^p)^(1/p) over all spatial positions, an LpPool whose kernel is
// the (static) spatial extent.
func importGlobalLpPool(c *nodeCtx) error {
	x, err := c.Input(0)
	if err != nil {
		return err
	}
	if x.Type.Rank() < 3 || !x.Type.Elem.IsFloat() {
		return fmt.Errorf("%w: X must be a floating-point tensor of rank >= 3, got %s", ErrInvalid, x.Type)
	}
	ns := x.Type.Rank() - 2
	k := make([]int64, ns)
	for i := range k {
		n, ok := x.Type.Dim(2 + i)
		if !ok {
			return fmt.Errorf("%w: a symbolic spatial extent in %s", ErrUnsupported, x.Type)
		}
		k[i] = n
	}
	p := c.AttrInt("p", 2)
	sum, err := c.Emit("lp_pool", []*ir.Value{x}, ir.Attrs{"kernel": ir.IntsAttr(k...), "strides": ir.IntsAttr(), "dilations": ir.IntsAttr(),
		"pads": ir.IntsAttr(), "ceil_mode": ir.IntAttr(0), "p": ir.IntAttr(p)}, "")
	if err != nil {
		return err
	}
	if p == 1 {
		c.SetOutput(0, sum)
		return nil
	}
	root := ir.NewTensor(x.Type.Elem, []int64{})
	root.F[0] = ir.RoundFloat(x.Type.Elem, 1/float64(p))
	return emit1(c, "pow", []*ir.Value{sum, c.im.g.AddConst(c.Output(0)+"_root", root)}, nil)
}

func importEyeLike(c *nodeCtx) error {
	shape, err := inputShape(c, 0)
	if err != nil {
		return err
	}
	if len(shape) != 2 {
		return fmt.Errorf("%w: EyeLike needs a rank-2 input, got rank %d", ErrInvalid, len(shape))
	}
	elem := ir.F32
	if c.Attr("dtype") != nil {
		if elem, err = DType(int32(c.AttrInt("dtype", 1))); err != nil {
			return err
		}
	} else if v, ok := c.ConstInput(0); ok {
		elem = v.Elem
	} else if v, err := c.Input(0); err == nil {
		elem = v.Type.Elem
	}
	t := ir.TensorType{Elem: elem, Shape: shape}
	return emit1(c, "eye", nil, ir.Attrs{"type": ir.StringAttr(t.String()), "k": ir.IntAttr(c.AttrInt("k", 0))})
}

// importUpsample resizes with asymmetric coordinates, truncating nearest indices (Upsample only
// upsamples).
func importUpsample(c *nodeCtx) error {
	x, err := c.Input(0)
	if err != nil {
		return err
	}
	var scales []float64
	if c.Opset() < 9 {
		for _, f := range c.AttrFloats("scales", nil) {
			scales = append(scales, float64(f))
		}
	} else if scales, err = c.RequireFloats(1, "scales"); err != nil {
		return err
	}
	r := x.Type.Rank()
	if len(scales) != r {
		return fmt.Errorf("%w: %d scales for rank %d", ErrInvalid, len(scales), r)
	}
	shape := make([]volume.Aff, r)
	for i, s := range scales {
		if s < 1 {
			return fmt.Errorf("%w: Upsample scale %v below 1", ErrInvalid, s)
		}
		if s == 1 {
			shape[i] = x.Type.Shape[i]
			continue
		}
		n, ok := x.Type.Shape[i].IsConst()
		if !ok {
			return fmt.Errorf("%w: upsampling the symbolic extent %s", ErrUnsupported, x.Type.Shape[i].String())
		}
		shape[i] = volume.AffConst(int64(s * float64(n)))
	}
	return emit1(c, "resize", []*ir.Value{x}, ir.Attrs{"shape": ir.StringAttr(ir.ExtentsString(shape)), "scales": ir.FloatsAttr(scales...),
		"mode": ir.StringAttr(c.AttrString("mode", "nearest")), "coordinate_transformation_mode": ir.StringAttr("asymmetric"),
		"nearest_mode": ir.StringAttr("floor")})
}
