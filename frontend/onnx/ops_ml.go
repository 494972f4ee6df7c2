// This file imports the ai.onnx.ml ops that are plain tensor computations: Binarizer (a
// comparison with a threshold), ArrayFeatureExtractor (a gather along the last axis) and
// TreeEnsemble (selects between the branches' values).

package onnx

import (
	"fmt"
	"math"

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
	x := e.In(0)
	if e.err != nil {
		return e.err
	}
	t := x.Type.Elem
	above := e.Op("greater", "", nil, x, e.Scalar(t, float64(c.AttrFloat("threshold", 0))))
	e.Out(0, e.Op("where", c.Output(0), nil, above, e.Scalar(t, 1), e.Scalar(t, 0)))
	return e.Done()
}

func importArrayFeatureExtractor(c *nodeCtx) error {
	e := c.emitter()
	x, idx := e.In(0), e.In(1)
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
	e.Out(0, e.Op("gather", c.Output(0), ir.Attrs{"axis": ir.IntAttr(-1)}, x, idx))
	return e.Done()
}

func init() {
	registerOp("TreeEnsemble", 1, importTreeEnsemble)
	previewOps["ai.onnx.ml"]["TreeEnsemble"] = true
	noteOp("TreeEnsemble", "domain ai.onnx.ml (opset 5): every tree as selects between its branches' values; SUM and AVERAGE, no post transform")
}

// importTreeEnsemble evaluates every tree as nested selects: a node's value ([N, n_targets])
// is its true or false child's by the comparison of one input column with the node's split,
// a leaf's is its weight at its target. The trees' values are summed (or averaged).
func importTreeEnsemble(c *nodeCtx) error {
	e := c.emitter()
	x := e.In(0)
	if e.err != nil {
		return e.err
	}
	if x.Type.Rank() != 2 || !x.Type.Elem.IsFloat() {
		return fmt.Errorf("%w: X must be a 2-D float tensor, got %s", ErrInvalid, x.Type)
	}
	t := x.Type.Elem
	ints := func(name string) []int64 { return c.AttrInts(name, nil) }
	floats := func(name string) ([]float64, error) {
		v, ok, err := c.AttrTensor(name)
		if err != nil || !ok {
			return nil, err
		}
		out := make([]float64, v.Len())
		for i := range out {
			out[i] = v.Float(i)
		}
		return out, nil
	}
	feat, modes, tn, fn, tl, fl := ints("nodes_featureids"), ints("nodes_modes"), ints("nodes_truenodeids"), ints("nodes_falsenodeids"),
		ints("nodes_trueleafs"), ints("nodes_falseleafs")
	if len(modes) == 0 { // opset 5 gives the modes as a uint8 tensor
		m, err := floats("nodes_modes")
		if err != nil {
			return err
		}
		for _, v := range m {
			modes = append(modes, int64(v))
		}
	}
	splits, err := floats("nodes_splits")
	if err != nil {
		return err
	}
	members, err := floats("membership_values")
	if err != nil {
		return err
	}
	weights, err := floats("leaf_weights")
	if err != nil {
		return err
	}
	targets, roots := ints("leaf_targetids"), ints("tree_roots")
	nt := c.AttrInt("n_targets", 1)
	nn := len(feat)
	if len(modes) != nn || len(tn) != nn || len(fn) != nn || len(tl) != nn || len(fl) != nn || len(splits) != nn || len(targets) != len(weights) || nt <= 0 {
		return fmt.Errorf("%w: node or leaf attributes of different lengths", ErrInvalid)
	}
	if agg := c.AttrInt("aggregate_function", 1); agg != 0 && agg != 1 {
		return fmt.Errorf("%w: aggregate_function %d (SUM and AVERAGE are supported)", ErrUnsupported, agg)
	}
	if pt := c.AttrInt("post_transform", 0); pt != 0 {
		return fmt.Errorf("%w: post_transform %d", ErrUnsupported, pt)
	}
	if len(c.AttrInts("nodes_missing_value_tracks_true", nil)) > 0 {
		for _, v := range c.AttrInts("nodes_missing_value_tracks_true", nil) {
			if v != 0 {
				return fmt.Errorf("%w: nodes_missing_value_tracks_true", ErrUnsupported)
			}
		}
	}
	// the membership set of each MEMBER node, in node order, separated by NaN
	sets := map[int][]float64{}
	pos := 0
	for i, m := range modes {
		if m != 6 {
			continue
		}
		for pos < len(members) && !math.IsNaN(members[pos]) {
			sets[i] = append(sets[i], members[pos])
			pos++
		}
		pos++
	}
	batch := x.Type.Shape[0]
	leafVal := func(l int64) (*ir.Value, error) {
		if l < 0 || l >= int64(len(targets)) || targets[l] < 0 || targets[l] >= nt {
			return nil, fmt.Errorf("%w: leaf %d", ErrInvalid, l)
		}
		v := ir.NewTensor(t, []int64{1, nt})
		v.F[targets[l]] = ir.RoundFloat(t, weights[l])
		return c.im.g.AddConst(e.Base+"_leaf", v), nil
	}
	col := func(f int64) *ir.Value {
		return e.Op("slice", "", ir.Attrs{"starts": ir.IntsAttr(f), "ends": ir.IntsAttr(f + 1), "axes": ir.IntsAttr(1)}, x)
	}
	depth := 0
	var node func(i int64) (*ir.Value, error)
	node = func(i int64) (*ir.Value, error) {
		if i < 0 || i >= int64(nn) || depth > nn {
			return nil, fmt.Errorf("%w: node %d (or a cycle)", ErrInvalid, i)
		}
		depth++
		defer func() { depth-- }()
		xc := col(feat[i])
		s := e.Scalar(t, splits[i])
		var cond *ir.Value
		switch modes[i] {
		case 0:
			cond = e.Op("less_equal", "", nil, xc, s)
		case 1:
			cond = e.Op("less", "", nil, xc, s)
		case 2:
			cond = e.Op("greater_equal", "", nil, xc, s)
		case 3:
			cond = e.Op("greater", "", nil, xc, s)
		case 4:
			cond = e.Op("equal", "", nil, xc, s)
		case 5:
			cond = e.Op("not_equal", "", nil, xc, s)
		case 6:
			for _, m := range sets[int(i)] {
				eq := e.Op("equal", "", nil, xc, e.Scalar(t, m))
				if cond == nil {
					cond = eq
				} else {
					cond = e.Op("or", "", nil, cond, eq)
				}
			}
			if cond == nil {
				ty := ir.TensorType{Elem: ir.Bool, Shape: []volume.Aff{batch, volume.AffConst(1)}}
				cond = e.Op("fill", "", ir.Attrs{"type": ir.StringAttr(ty.String()), "value": ir.FloatAttr(0)})
			}
		default:
			return nil, fmt.Errorf("%w: node mode %d", ErrInvalid, modes[i])
		}
		child := func(id, leaf int64) (*ir.Value, error) {
			if leaf != 0 {
				return leafVal(id)
			}
			return node(id)
		}
		a, err := child(tn[i], tl[i])
		if err != nil {
			return nil, err
		}
		b, err := child(fn[i], fl[i])
		if err != nil {
			return nil, err
		}
		return e.Op("where", "", nil, cond, a, b), nil
	}
	var sum *ir.Value
	for _, r := range roots {
		v, err := node(r)
		if err != nil {
			return err
		}
		if sum == nil {
			sum = v
		} else {
			sum = e.Op("add", "", nil, sum, v)
		}
	}
	if sum == nil {
		return fmt.Errorf("%w: no trees", ErrInvalid)
	}
	if c.AttrInt("aggregate_function", 1) == 0 {
		sum = e.Op("div", "", nil, sum, e.Scalar(t, float64(len(roots))))
	}
	shape := ir.ExtentsString([]volume.Aff{batch, volume.AffConst(nt)})
	e.Out(0, e.Op("expand", c.Output(0), ir.Attrs{"shape": ir.StringAttr(shape)}, sum))
	return e.Done()
}
