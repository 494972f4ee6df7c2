// This file imports Col2Im: the sum of the column blocks back into an image, a generic
// reduction whose accesses are affine (block b and kernel offset k of channel c read column
// c·K + flat(k), row flat(b), and write pixel b·stride - pad + k·dilation, where that lies
// inside the image).

package onnx

import (
	"fmt"
	"strings"

	"github.com/graphc/graphc/ir"
	"github.com/graphc/graphc/volume"
)

func init() {
	registerOp("Col2Im", 18, importCol2Im)
	noteOp("Col2Im", "image_shape and block_shape known at import; a generic reduction with affine accesses")
}

func importCol2Im(c *nodeCtx) error {
	e := c.emitter()
	x := e.In(0)
	if e.err != nil {
		return e.err
	}
	img, err := c.RequireInts(1, "image_shape")
	if err != nil {
		return err
	}
	blk, err := c.RequireInts(2, "block_shape")
	if err != nil {
		return err
	}
	r := len(img)
	if r == 0 || len(blk) != r || x.Type.Rank() != 3 {
		return fmt.Errorf("%w: input %s, image_shape %v and block_shape %v do not fit", ErrInvalid, x.Type, img, blk)
	}
	attr := func(name string, def int64, n int) []int64 {
		v := c.AttrInts(name, nil)
		if len(v) == 0 {
			v = make([]int64, n)
			for i := range v {
				v[i] = def
			}
		}
		return v
	}
	dil, str, pads := attr("dilations", 1, r), attr("strides", 1, r), attr("pads", 0, 2*r)
	if len(dil) != r || len(str) != r || len(pads) != 2*r {
		return fmt.Errorf("%w: dilations, strides and pads must have %d, %d and %d entries", ErrInvalid, r, r, 2*r)
	}
	kprod, cols := int64(1), int64(1)
	counts := make([]int64, r)
	for d := 0; d < r; d++ {
		if blk[d] <= 0 || img[d] <= 0 || str[d] <= 0 || dil[d] <= 0 {
			return fmt.Errorf("%w: non-positive extents, strides or dilations", ErrInvalid)
		}
		kprod *= blk[d]
		counts[d] = (img[d]+pads[d]+pads[r+d]-(dil[d]*(blk[d]-1)+1))/str[d] + 1
		if counts[d] <= 0 {
			return fmt.Errorf("%w: no block fits dim %d", ErrInvalid, d)
		}
		cols *= counts[d]
	}
	ck, ok1 := x.Type.Dim(1)
	l, ok2 := x.Type.Dim(2)
	if !ok1 || !ok2 || ck%kprod != 0 || l != cols {
		return fmt.Errorf("%w: input %s must be [N, C·%d, %d]", ErrInvalid, x.Type, kprod, cols)
	}
	ch := ck / kprod
	n := x.Type.Shape[0]
	var ks, bs, cons, col, row, out []string
	kstride, bstride := kprod, cols
	out = []string{"n", "c"}
	for d := 0; d < r; d++ {
		k, b := fmt.Sprintf("k%d", d), fmt.Sprintf("b%d", d)
		ks, bs = append(ks, k), append(bs, b)
		kstride /= blk[d]
		bstride /= counts[d]
		col = append(col, fmt.Sprintf("%d%s", kstride, k))
		row = append(row, fmt.Sprintf("%d%s", bstride, b))
		y := fmt.Sprintf("%d%s - %d + %d%s", str[d], b, pads[d], dil[d], k)
		out = append(out, y)
		cons = append(cons, fmt.Sprintf("0 <= %s < %d", k, blk[d]), fmt.Sprintf("0 <= %s < %d", b, counts[d]),
			fmt.Sprintf("0 <= %s < %d", y, img[d]))
	}
	dims := append(append([]string{"n", "c"}, ks...), bs...)
	params := ""
	if ps := n.ParamNames(); len(ps) > 0 {
		params = "[" + strings.Join(ps, ", ") + "] -> "
	}
	shape := []volume.Aff{n, volume.AffConst(ch)}
	for _, v := range img {
		shape = append(shape, volume.AffConst(v))
	}
	iters := make([]string, len(dims))
	for i := range iters {
		iters[i] = "parallel"
		if i >= 2 {
			iters[i] = "reduction"
		}
	}
	rt := ir.TensorType{Elem: x.Type.Elem, Shape: shape}
	d := strings.Join(dims, ", ")
	e.Out(0, e.Op("generic", c.Output(0), ir.Attrs{
		"type": ir.StringAttr(rt.String()),
		"domain": ir.StringAttr(fmt.Sprintf("%s{ [%s] : 0 <= n < %s and 0 <= c < %d and %s }", params, d, n.String(), ch,
			strings.Join(cons, " and "))),
		"access":    ir.StringsAttr(fmt.Sprintf("{ [%s] -> [n, %d c + %s, %s] }", d, kprod, strings.Join(col, " + "), strings.Join(row, " + "))),
		"out":       ir.StringAttr(fmt.Sprintf("{ [%s] -> [%s] }", d, strings.Join(out, ", "))),
		"body":      ir.StringAttr("in0"),
		"iterators": ir.StringsAttr(iters...),
		"reduce":    ir.StringAttr("sum"),
	}, x))
	return e.Done()
}
