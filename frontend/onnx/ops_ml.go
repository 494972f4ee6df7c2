// This file imports the ai.onnx.ml ops that are plain tensor computations: Binarizer (a
// comparison with a threshold) and ArrayFeatureExtractor (a gather along the last axis).

package onnx

import (
	"fmt"

	"github.com/graphc/graphc/ir"
	"github.com/graphc/graphc/volume"
)

func init() {
	registerOp("Binarizer", 1, importBinarizer)
	registerOp("ArrayFeatureExtractor", 1, importArrayFeatureExtractor)
	previewOps["ai.onnx.ml"] = map[string]bool{"Binarizer": true, "ArrayFeatureExtractor": true}
	noteOp("Binarizer", "domain ai.onnx.ml: x > threshold ? 1 : 0")
	noteOp("ArrayFeatureExtractor", "domain ai.onnx.ml: a gather along the last axis (1-D inputs give [1, k])")
}

func importBinarizer(c *nodeCtx) error {
	e := c.emitter()
	x := e.in(0)
	if e.err != nil {
		return e.err
	}
	t := x.Type.Elem
	above := e.op("greater", "", nil, x, e.scalar(t, float64(c.AttrFloat("threshold", 0))))
	e.out(0, e.op("where", c.Output(0), nil, above, e.scalar(t, 1), e.scalar(t, 0)))
	return e.done()
}

func importArrayFeatureExtractor(c *nodeCtx) error {
	e := c.emitter()
	x, idx := e.in(0), e.in(1)
	if e.err != nil {
		return e.err
	}
	if x.Type.Rank() == 0 {
		return fmt.Errorf("%w: input must have rank >= 1", ErrInvalid)
	}
	if x.Type.Rank() == 1 {
		x = e.reshape(x, volume.AffConst(1), x.Type.Shape[0])
	}
	if idx.Type.Rank() != 1 {
		n, ok := staticCount(idx.Type)
		k, ok2 := idx.Type.Dim(idx.Type.Rank() - 1)
		if idx.Type.Rank() == 0 || !ok || !ok2 || n != k {
			return fmt.Errorf("%w: indices must be a list, got %s", ErrInvalid, idx.Type)
		}
		idx = e.reshape(idx, volume.AffConst(k))
	}
	e.out(0, e.op("gather", c.Output(0), ir.Attrs{"axis": ir.IntAttr(-1)}, x, idx))
	return e.done()
}
