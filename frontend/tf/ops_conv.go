// This file imports the convolutions and pools of 2-D images: Conv2D (grouped when the input
// has a multiple of the filter's input channels), DepthwiseConv2dNative (a conv with one group
// per input channel), MaxPool, MaxPoolV2 and AvgPool. The catalogue's conv and pools work on
// NCHW with OIHW weights, so NHWC inputs are transposed in and out, and HWIO filters are
// transposed (folded at import when they are constants). SAME padding is resolved here into
// explicit pads (the extra one at the end, as TensorFlow does); AvgPool divides by the number of
// input elements in each window, padding excluded.

package tf

import (
	"fmt"

	"github.com/graphc/graphc/ir"
	"github.com/graphc/graphc/volume"
)

func init() {
	registerOp("Conv2D", importConv2D(false))
	registerOp("DepthwiseConv2dNative", importConv2D(true))
	registerOp("MaxPool", importPool("max_pool", false))
	registerOp("MaxPoolV2", importPool("max_pool", true))
	registerOp("AvgPool", importPool("avg_pool", false))
	noteOp("NHWC (through transposes) or NCHW; strides, dilations; SAME, VALID or EXPLICIT padding; grouped when the input has a multiple of the filter's channels; static filter shape", "Conv2D")
	noteOp("a conv with one group per input channel; as Conv2D", "DepthwiseConv2dNative")
	noteOp("NHWC or NCHW; SAME, VALID or EXPLICIT padding", "MaxPool")
	noteOp("constant ksize and strides; as MaxPool", "MaxPoolV2")
	noteOp("NHWC or NCHW; SAME, VALID or EXPLICIT padding; the divisor counts input elements only", "AvgPool")
}

// layout is the data_format of a 4-D image op.
type layout struct {
	nhwc    bool
	spatial [2]int // the H and W dims
	channel int
}

func imageLayout(c *nodeCtx) (layout, error) {
	switch f := c.AttrString("data_format", "NHWC"); f {
	case "NHWC":
		return layout{nhwc: true, spatial: [2]int{1, 2}, channel: 3}, nil
	case "NCHW":
		return layout{spatial: [2]int{2, 3}, channel: 1}, nil
	default:
		return layout{}, fmt.Errorf("%w: data_format %q (want NHWC or NCHW)", ErrInvalid, f)
	}
}

// spatialOf returns the H and W entries of a 4-value attribute given in data_format order
// (strides, dilations, ksize), whose N and C entries must be 1.
func spatialOf(l layout, name string, v []int64) ([]int64, error) {
	if len(v) != 4 {
		return nil, fmt.Errorf("%w: %s %v must have 4 values", ErrInvalid, name, v)
	}
	if v[0] != 1 || v[l.channel] != 1 {
		return nil, fmt.Errorf("%w: %s %v must be 1 in the batch and channel dims", ErrUnsupported, name, v)
	}
	out := []int64{v[l.spatial[0]], v[l.spatial[1]]}
	for _, x := range out {
		if x < 1 {
			return nil, fmt.Errorf("%w: %s %v must be positive", ErrInvalid, name, v)
		}
	}
	return out, nil
}

// windowPads resolves padding (SAME, VALID or EXPLICIT with explicit_paddings) for input
// extents in, kernel k, strides s and dilations d into the catalogue's pads (begins, then ends).
func windowPads(c *nodeCtx, l layout, in []volume.Aff, k, s, d []int64) ([]int64, error) {
	pads := make([]int64, 4)
	switch p := c.AttrString("padding", ""); p {
	case "VALID":
	case "SAME":
		for i := 0; i < 2; i++ {
			total := (k[i]-1)*d[i] + 1 - s[i] // with stride 1 the total is the same for every extent
			if n, ok := in[i].IsConst(); ok {
				out := (n + s[i] - 1) / s[i]
				total = (out-1)*s[i] + (k[i]-1)*d[i] + 1 - n
			} else if s[i] != 1 {
				return nil, fmt.Errorf("%w: SAME padding with stride %d needs a static extent, got %s (bind it with --dim)", ErrUnsupported, s[i], in[i].String())
			}
			total = max(total, 0)
			pads[i], pads[2+i] = total/2, total-total/2
		}
	case "EXPLICIT":
		e := c.AttrInts("explicit_paddings", nil)
		if len(e) != 8 {
			return nil, fmt.Errorf("%w: explicit_paddings %v must have 8 values", ErrInvalid, e)
		}
		if e[0] != 0 || e[1] != 0 || e[2*l.channel] != 0 || e[2*l.channel+1] != 0 {
			return nil, fmt.Errorf("%w: explicit_paddings %v pad the batch or channel dim", ErrUnsupported, e)
		}
		for i, dim := range l.spatial {
			pads[i], pads[2+i] = e[2*dim], e[2*dim+1]
			if pads[i] < 0 || pads[2+i] < 0 {
				return nil, fmt.Errorf("%w: negative explicit_paddings %v", ErrInvalid, e)
			}
		}
	default:
		return nil, fmt.Errorf("%w: padding %q (want SAME, VALID or EXPLICIT)", ErrInvalid, p)
	}
	return pads, nil
}

// listAttr returns v as an attribute, or the empty list (the catalogue's default) when every
// entry is def, so that printed graphs show only what differs from the defaults.
func listAttr(v []int64, def int64) ir.Attr {
	for _, x := range v {
		if x != def {
			return ir.IntsAttr(v...)
		}
	}
	return ir.IntsAttr()
}

// toNCHW and fromNCHW transpose an NHWC image to the catalogue's layout and back.
var toNCHW, fromNCHW = []int64{0, 3, 1, 2}, []int64{0, 2, 3, 1}

func importConv2D(depthwise bool) func(c *nodeCtx) error {
	return func(c *nodeCtx) error {
		if c.NumInputs() != 2 {
			return fmt.Errorf("%w: expected 2 inputs (input, filter), got %d", ErrInvalid, c.NumInputs())
		}
		l, err := imageLayout(c)
		if err != nil {
			return err
		}
		e := c.emitter()
		x, f := e.In(0), e.In(1)
		if e.err != nil {
			return e.err
		}
		if x.Type.Rank() != 4 || f.Type.Rank() != 4 {
			return fmt.Errorf("%w: input and filter must be 4-D, got %s and %s", ErrInvalid, x.Type, f.Type)
		}
		fs, ok := f.Type.StaticShape()
		if !ok {
			return fmt.Errorf("%w: the filter %s must have a static shape", ErrUnsupported, f.Type)
		}
		ch, ok := x.Type.Dim(l.channel)
		if !ok {
			return fmt.Errorf("%w: the channel extent of %s must be static", ErrUnsupported, x.Type)
		}
		s, err := spatialOf(l, "strides", c.AttrInts("strides", []int64{1, 1, 1, 1}))
		if err != nil {
			return err
		}
		d, err := spatialOf(l, "dilations", c.AttrInts("dilations", []int64{1, 1, 1, 1}))
		if err != nil {
			return err
		}
		in := []volume.Aff{x.Type.Shape[l.spatial[0]], x.Type.Shape[l.spatial[1]]}
		pads, err := windowPads(c, l, in, fs[:2], s, d)
		if err != nil {
			return err
		}
		var w *ir.Value
		group := int64(1)
		if depthwise {
			// [kh, kw, C, M] → [C, M, kh, kw] → [C·M, 1, kh, kw]: output channel c·M + m
			if fs[2] != ch {
				return fmt.Errorf("%w: the filter %s does not match the %d input channels", ErrInvalid, f.Type, ch)
			}
			group = ch
			w = e.Transpose(f, []int64{2, 3, 0, 1}, "")
			w = e.Reshape(w, []volume.Aff{volume.AffConst(fs[2] * fs[3]), volume.AffConst(1), volume.AffConst(fs[0]), volume.AffConst(fs[1])}, "")
		} else {
			// [kh, kw, C/group, M] → [M, C/group, kh, kw]
			if fs[2] <= 0 || ch < fs[2] || ch%fs[2] != 0 || fs[3]%(ch/fs[2]) != 0 {
				return fmt.Errorf("%w: the filter %s does not divide the %d input channels into groups", ErrInvalid, f.Type, ch)
			}
			group = ch / fs[2]
			w = e.Transpose(f, []int64{3, 2, 0, 1}, "")
		}
		if l.nhwc {
			x = e.Transpose(x, toNCHW, "")
		}
		attrs := ir.Attrs{"strides": listAttr(s, 1), "dilations": listAttr(d, 1), "pads": listAttr(pads, 0), "group": ir.IntAttr(group)}
		y := e.Op("conv", e.NameIf(!l.nhwc), attrs, x, w)
		if l.nhwc {
			y = e.Transpose(y, fromNCHW, e.Base)
		}
		e.Out(0, y)
		return e.Done()
	}
}

// importPool: ksize and strides are attributes, or (MaxPoolV2) constant inputs.
func importPool(kind string, v2 bool) func(c *nodeCtx) error {
	return func(c *nodeCtx) error {
		want := 1
		if v2 {
			want = 3
		}
		if c.NumInputs() != want {
			return fmt.Errorf("%w: expected %d inputs, got %d", ErrInvalid, want, c.NumInputs())
		}
		l, err := imageLayout(c)
		if err != nil {
			return err
		}
		ksize, strides := c.AttrInts("ksize", nil), c.AttrInts("strides", nil)
		if v2 {
			if ksize, err = c.RequireInts(1, "ksize"); err != nil {
				return err
			}
			if strides, err = c.RequireInts(2, "strides"); err != nil {
				return err
			}
		}
		k, err := spatialOf(l, "ksize", ksize)
		if err != nil {
			return err
		}
		s, err := spatialOf(l, "strides", strides)
		if err != nil {
			return err
		}
		e := c.emitter()
		x := e.In(0)
		if x == nil {
			return e.Done()
		}
		if x.Type.Rank() != 4 {
			return fmt.Errorf("%w: input must be 4-D, got %s", ErrInvalid, x.Type)
		}
		in := []volume.Aff{x.Type.Shape[l.spatial[0]], x.Type.Shape[l.spatial[1]]}
		pads, err := windowPads(c, l, in, k, s, []int64{1, 1})
		if err != nil {
			return err
		}
		if l.nhwc {
			x = e.Transpose(x, toNCHW, "")
		}
		attrs := ir.Attrs{"kernel": ir.IntsAttr(k...), "strides": listAttr(s, 1), "pads": listAttr(pads, 0)}
		if kind == "avg_pool" {
			attrs["count_include_pad"] = ir.IntAttr(0)
		}
		y := e.Op(kind, e.NameIf(!l.nhwc), attrs, x)
		if l.nhwc {
			y = e.Transpose(y, fromNCHW, e.Base)
		}
		e.Out(0, y)
		return e.Done()
	}
}
