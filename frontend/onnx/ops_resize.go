// This file imports Resize (opsets 10, 11, 13, 18, 19): scales or sizes (known at compile
// time, or sizes computed at run time whose values are bounded: resize_sized), axes and
// keep_aspect_ratio_policy (18+), the coordinate transformation and nearest rounding modes. Opset 10 resizes like Upsample: asymmetric coordinates, and (as
// onnxruntime does) nearest indices truncated when upsampling, rounded up when downsampling.

package onnx

import (
	"fmt"
	"math"

	"github.com/graphc/graphc/ir"
	"github.com/graphc/graphc/volume"
)

func init() {
	registerOp("Resize", 10, importResize)
	noteOp("Resize", "scales or sizes known at compile time; sizes computed at run time from bounded values (box coordinates clipped to "+
		"constants) give bounded dims: resize_sized, nearest or linear")
}

func importResize(c *nodeCtx) error {
	x, err := c.Input(0)
	if err != nil {
		return err
	}
	r := x.Type.Rank()
	mode := c.AttrString("mode", "nearest")
	ctm := c.AttrString("coordinate_transformation_mode", "half_pixel")
	nearest := c.AttrString("nearest_mode", "round_prefer_floor")
	roiIn, scalesIn, sizesIn := 1, 2, 3
	if c.Opset() < 11 {
		ctm, nearest = "asymmetric", "floor"
		roiIn, scalesIn, sizesIn = -1, 1, -1
	}
	axes := make([]int, r)
	for i := range axes {
		axes[i] = i
	}
	if a := c.AttrInts("axes", nil); c.Opset() >= 18 && len(a) > 0 {
		if axes, err = normAxes(a, r); err != nil {
			return err
		}
	}
	in := make([]int64, r)
	for _, a := range axes {
		n, ok := x.Type.Shape[a].IsConst()
		if !ok {
			return fmt.Errorf("%w: resizing dim %d needs a static extent, got %s", ErrUnsupported, a, x.Type.Shape[a].String())
		}
		in[a] = n
	}
	scales := make([]float64, r)
	shape := append([]volume.Aff(nil), x.Type.Shape...)
	for i := range scales {
		scales[i] = 1
	}
	given := func(i int) bool {
		if i < 0 || !c.HasInput(i) {
			return false
		}
		t, ok := c.ConstInput(i)
		return !ok || t.Len() > 0
	}
	switch {
	case given(sizesIn):
		sym, err := c.RequireBoundedInts(sizesIn, "sizes")
		if err != nil {
			return err
		}
		sizes, runtime := splitSym(sym)
		if runtime {
			return importResizeSized(c, x, sym, axes, mode, ctm, nearest)
		}
		if len(sizes) != len(axes) {
			return fmt.Errorf("%w: %d sizes for %d axes", ErrInvalid, len(sizes), len(axes))
		}
		for i, a := range axes {
			scales[a] = float64(sizes[i]) / float64(in[a])
			shape[a] = volume.AffConst(sizes[i])
		}
		if pol := c.AttrString("keep_aspect_ratio_policy", "stretch"); pol != "stretch" {
			s := scales[axes[0]]
			for _, a := range axes {
				switch pol {
				case "not_larger":
					s = math.Min(s, scales[a])
				case "not_smaller":
					s = math.Max(s, scales[a])
				default:
					return fmt.Errorf("%w: keep_aspect_ratio_policy %q", ErrInvalid, pol)
				}
			}
			for _, a := range axes {
				scales[a] = s
				shape[a] = volume.AffConst(int64(s*float64(in[a]) + 0.5))
			}
		}
	case given(scalesIn):
		sc, err := c.RequireFloats(scalesIn, "scales")
		if err != nil {
			return err
		}
		if len(sc) != len(axes) {
			return fmt.Errorf("%w: %d scales for %d axes", ErrInvalid, len(sc), len(axes))
		}
		for i, a := range axes {
			scales[a] = sc[i]
			shape[a] = volume.AffConst(int64(math.Floor(sc[i] * float64(in[a]))))
		}
	default:
		return fmt.Errorf("%w: Resize needs scales or sizes", ErrInvalid)
	}
	if c.Opset() < 11 && mode == "nearest" {
		// onnxruntime's opset-10 rounding: truncate when upsampling, ceil when downsampling
		// (the same on axes of scale 1, whose source coordinates are integers)
		down, up := false, false
		for _, s := range scales {
			down, up = down || s < 1, up || s > 1
		}
		if down && up {
			return fmt.Errorf("%w: opset-10 nearest Resize that upsamples some axes and downsamples others", ErrUnsupported)
		}
		if down {
			nearest = "ceil"
		}
	}
	if err := c.checkResizeShape(x.Type.Elem, shape); err != nil {
		return err
	}
	attrs := ir.Attrs{"shape": ir.StringAttr(ir.ExtentsString(shape)), "scales": ir.FloatsAttr(scales...), "mode": ir.StringAttr(mode),
		"coordinate_transformation_mode": ir.StringAttr(ctm), "nearest_mode": ir.StringAttr(nearest),
		"cubic_coeff_a": ir.FloatAttr(float64(c.AttrFloat("cubic_coeff_a", -0.75))), "exclude_outside": ir.IntAttr(c.AttrInt("exclude_outside", 0)),
		"extrapolation_value": ir.FloatAttr(float64(c.AttrFloat("extrapolation_value", 0))),
		"antialias":           ir.IntAttr(c.AttrInt("antialias", 0))}
	if ctm == "tf_crop_and_resize" {
		roi, err := c.RequireFloats(roiIn, "roi")
		if err != nil {
			return err
		}
		if len(roi) != 2*len(axes) {
			return fmt.Errorf("%w: %d roi values for %d axes", ErrInvalid, len(roi), len(axes))
		}
		full := make([]float64, 2*r)
		for i := 0; i < r; i++ {
			full[r+i] = 1
		}
		for i, a := range axes {
			full[a], full[r+a] = roi[i], roi[len(axes)+i]
		}
		attrs["roi"] = ir.FloatsAttr(full...)
	}
	return emit1(c, "resize", []*ir.Value{x}, attrs)
}

// importResizeSized imports a Resize whose sizes are computed at run time (bounded dims, see
// boundedints.go) as resize_sized: the scale of each resized axis is a run-time value.
func importResizeSized(c *nodeCtx, x *ir.Value, sizes []volume.Aff, axes []int, mode, ctm, nearest string) error {
	if len(sizes) != len(axes) {
		return fmt.Errorf("%w: %d sizes for %d axes", ErrInvalid, len(sizes), len(axes))
	}
	why := ""
	switch {
	case mode == "cubic":
		why = "cubic interpolation"
	case c.AttrString("keep_aspect_ratio_policy", "stretch") != "stretch":
		why = "keep_aspect_ratio_policy " + c.AttrString("keep_aspect_ratio_policy", "")
	case c.AttrInt("antialias", 0) != 0:
		why = "antialias"
	case ctm != "half_pixel" && ctm != "pytorch_half_pixel" && ctm != "asymmetric" && ctm != "align_corners":
		why = "coordinate_transformation_mode " + ctm
	}
	if why != "" {
		return fmt.Errorf("%w: %s with sizes computed at run time (nearest or linear, half_pixel, pytorch_half_pixel, asymmetric or align_corners are)", ErrUnsupported, why)
	}
	shape := append([]volume.Aff(nil), x.Type.Shape...)
	for i, a := range axes {
		shape[a] = sizes[i]
		if k, ok := sizes[i].IsConst(); ok && k < 0 {
			return fmt.Errorf("%w: output extent %d of dim %d is negative", ErrInvalid, k, a)
		}
	}
	e := c.emitter()
	for d, ext := range shape {
		if _, ok := ext.IsConst(); ok {
			continue
		}
		if _, err := e.boundOf(ext); err != nil {
			return fmt.Errorf("%w: output extent %s of dim %d: %v", ErrUnsupported, ext.String(), d, err)
		}
	}
	if err := c.checkResizeShape(x.Type.Elem, shape); err != nil {
		return err
	}
	e.Out(0, e.Op("resize_sized", c.Output(0), ir.Attrs{"shape": ir.StringAttr(ir.ExtentsString(shape)), "mode": ir.StringAttr(mode),
		"coordinate_transformation_mode": ir.StringAttr(ctm), "nearest_mode": ir.StringAttr(nearest)}, x))
	return e.Done()
}

// checkResizeShape checks the output extents of a Resize before the op is built: the builder
// allocates an index table per output extent, so each extent must be non-negative and within the
// limits even when another one is 0 (the type of an empty tensor passes any element limit).
func (c *nodeCtx) checkResizeShape(elem ir.DType, shape []volume.Aff) error {
	maxExt := c.im.cfg.Limits.MaxTensorElements
	for d, e := range shape {
		v, ok := e.IsConst()
		if !ok {
			continue
		}
		if v < 0 {
			return fmt.Errorf("%w: output extent %d of dim %d is negative", ErrInvalid, v, d)
		}
		if v > maxExt {
			return fmt.Errorf("%w: %w: output extent %d of dim %d exceeds %d", ErrInvalid, ir.ErrLimit, v, d, maxExt)
		}
	}
	if err := ir.CheckTypeLimits(ir.TensorType{Elem: elem, Shape: shape}, c.im.cfg.Limits); err != nil {
		return fmt.Errorf("%w: output: %w", ErrInvalid, err)
	}
	return nil
}

func init() {
	registerOp("GridSample", 16, importGridSample)
	noteOp("GridSample", "nearest, linear (bilinear) and cubic (bicubic); zeros, border and reflection padding; any spatial rank; static input extents")
}

// importGridSample splits the grid's last dim into one operand per coordinate for grid_sample.
func importGridSample(c *nodeCtx) error {
	e := c.emitter()
	x, grid := e.In(0), e.In(1)
	if e.err != nil {
		return e.err
	}
	mode := c.AttrString("mode", "linear")
	switch mode {
	case "bilinear":
		mode = "linear"
	case "bicubic":
		mode = "cubic"
	}
	if c.Opset() < 20 && c.Attr("mode") == nil {
		mode = "linear" // bilinear, opset 16's default
	}
	parts, err := e.splitIndexDepth(grid)
	if err != nil {
		return err
	}
	attrs := ir.Attrs{"mode": ir.StringAttr(mode), "padding_mode": ir.StringAttr(c.AttrString("padding_mode", "zeros")),
		"align_corners": ir.IntAttr(c.AttrInt("align_corners", 0))}
	e.Out(0, e.Op("grid_sample", c.Output(0), attrs, append([]*ir.Value{x}, parts...)...))
	return e.Done()
}

func init() {
	registerOp("AffineGrid", 20, importAffineGrid)
	noteOp("AffineGrid", "size known at import; the constant base grid times thetaᵀ")
}

// importAffineGrid: the base grid of normalised coordinates ([x, y(, z), 1] per output point,
// a constant) times thetaᵀ, reshaped to [N, (D,) H, W, 2 or 3].
func importAffineGrid(c *nodeCtx) error {
	e := c.emitter()
	theta := e.In(0)
	if e.err != nil {
		return e.err
	}
	size, err := c.RequireInts(1, "size")
	if err != nil {
		return err
	}
	r := len(size) - 2 // spatial dims: 2 or 3
	if r != 2 && r != 3 || theta.Type.Rank() != 3 {
		return fmt.Errorf("%w: size %v and theta %s must describe a 2-D or 3-D grid", ErrInvalid, size, theta.Type)
	}
	align := c.AttrInt("align_corners", 0) != 0
	coord := func(i, n int64) float64 {
		if align {
			if n == 1 {
				return 0
			}
			return -1 + 2*float64(i)/float64(n-1)
		}
		return (2*float64(i)+1)/float64(n) - 1
	}
	spatial := size[2:] // (D,) H, W
	points := int64(1)
	for _, s := range spatial {
		points *= s
	}
	base := ir.NewTensor(theta.Type.Elem, []int64{points, int64(r + 1)})
	for p := int64(0); p < points; p++ {
		rem := p
		idx := make([]int64, r)
		for d := r - 1; d >= 0; d-- {
			idx[d] = rem % spatial[d]
			rem /= spatial[d]
		}
		// columns x (the innermost dim), y, (z), 1
		for k := 0; k < r; k++ {
			base.F[p*int64(r+1)+int64(k)] = ir.RoundFloat(base.Elem, coord(idx[r-1-k], spatial[r-1-k]))
		}
		base.F[p*int64(r+1)+int64(r)] = 1
	}
	bv := c.im.g.AddConst(e.Base+"_base", base)
	tt := e.Op("transpose", "", ir.Attrs{"perm": ir.IntsAttr(0, 2, 1)}, theta) // [N, r+1, r]
	g := e.matmulAcc("", bv, tt)                                               // [N, points, r]
	shape := []volume.Aff{theta.Type.Shape[0]}
	for _, s := range spatial {
		shape = append(shape, volume.AffConst(s))
	}
	shape = append(shape, volume.AffConst(int64(r)))
	e.Out(0, e.Op("reshape", c.Output(0), ir.Attrs{"shape": ir.StringAttr(ir.ExtentsString(shape))}, g))
	return e.Done()
}

func init() {
	registerOp("RoiAlign", 10, importRoiAlign)
	noteOp("RoiAlign", "avg and max (the largest weighted corner of any sample, as onnxruntime and the ONNX tests), half_pixel and output_half_pixel, "+
		"a fixed or adaptive (sampling_ratio 0) grid, any number of regions (a bounded dim included); the algorithm op roi_align")
}

// importRoiAlign maps RoiAlign onto roi_align: opset 16's default coordinate transformation is
// half_pixel, earlier opsets have none (output_half_pixel's arithmetic).
func importRoiAlign(c *nodeCtx) error {
	e := c.emitter()
	x, rois, bi := e.In(0), e.In(1), e.In(2)
	if e.err != nil {
		return e.err
	}
	if sr := c.AttrInt("sampling_ratio", 0); sr < 0 {
		return fmt.Errorf("%w: sampling_ratio %d (0 or more)", ErrInvalid, sr)
	}
	half := int64(0)
	if c.Opset() >= 16 {
		switch m := c.AttrString("coordinate_transformation_mode", "half_pixel"); m {
		case "half_pixel":
			half = 1
		case "output_half_pixel":
		default:
			return fmt.Errorf("%w: coordinate_transformation_mode %q (half_pixel or output_half_pixel)", ErrInvalid, m)
		}
	}
	attrs := ir.Attrs{"mode": ir.StringAttr(c.AttrString("mode", "avg")), "output_height": ir.IntAttr(c.AttrInt("output_height", 1)),
		"output_width": ir.IntAttr(c.AttrInt("output_width", 1)), "sampling_ratio": ir.IntAttr(c.AttrInt("sampling_ratio", 0)),
		"spatial_scale": ir.FloatAttr(float64(c.AttrFloat("spatial_scale", 1))), "half_pixel": ir.IntAttr(half)}
	e.Out(0, e.Op("roi_align", c.Output(0), attrs, x, rois, bi))
	return e.Done()
}
