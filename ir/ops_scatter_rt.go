// This file declares scatter_elements_rt and scatter_nd_rt, the run-time forms of
// scatter_elements and scatter_nd (ops_scatter.go) for indices known only at run time, and the
// choice between the forms (ScatterElementsOp, ScatterNDOp). scatter_elements_rt is an
// algorithm op (ops_algo.go) that copies data to the result and then walks the updates once,
// combining each into the element its index names. Its cost is result + updates, where the search form costs result × the
// updates along the axis (quadratic when a scatter puts every row of a tensor back in
// place, as Faster R-CNN's box_roi_pool does per FPN level). The semantics are the search
// form's exactly: negative indices count from the end, out-of-range indices write nothing,
// and the updates reaching one element combine in their order along the axis. The element
// map is the search form's too (result element x may read data[x] and the updates and indices
// at x's coordinates off the axis, anywhere along it), declared as an over-approximation; the
// form requires the updates to cover data's extents off the axis. scatter_nd_rt is the same
// walk over the index operands' box: result element x may read data[x], every index, and
// every update at x's trailing coordinates.

package ir

import (
	"fmt"
	"math"

	"github.com/graphc/graphc/volume"
)

func init() {
	register(&OpDef{
		Name: "scatter_elements_rt",
		Summary: "scatter_elements computed by one walk of the updates (an algorithm): out = data, then " +
			"out[u with u[axis] replaced by indices[u]] ⊕= updates[u] for every update u in order (negative indices " +
			"count from the end, out-of-range ones write nothing); the updates match data off the axis",
		Example:     `%s = scatter_elements_rt(%data, %idx, %upd) {axis = 0, reduction = "add"} : f32[3, 3]`,
		MinOperands: 3, MaxOperands: 3,
		Attrs: []AttrDef{
			{Name: "axis", Kind: AttrInt, Default: dflt(IntAttr(0)), Doc: "the axis the indices address"},
			{Name: "reduction", Kind: AttrString, Default: dflt(StringAttr("add")), Doc: "add, mul, max or min"},
		},
		Build:     buildScatterElementsRT,
		Algorithm: &Algorithm{Eval: evalScatterElementsRT},
	}, &OpDef{
		Name: "scatter_nd_rt",
		Summary: "scatter_nd computed by one walk of the updates (an algorithm): out = data, then " +
			"out[i_0[u], …, i_{k-1}[u], r..] ⊕= updates[u.., r..] for every update u in order (negative indices count " +
			"from the end; an update with an out-of-range index writes nothing)",
		Example:     `%s = scatter_nd_rt(%data, %upd, %i0) {reduction = "add"} : f32[8]`,
		MinOperands: 3, MaxOperands: -1,
		Attrs: []AttrDef{
			{Name: "reduction", Kind: AttrString, Default: dflt(StringAttr("add")), Doc: "add, mul, max or min"},
		},
		Build:     buildScatterNDRT,
		Algorithm: &Algorithm{Eval: evalScatterNDRT},
	})
}

func buildScatterNDRT(b *Builder) error {
	data, _, _, k, r, p, err := scatterNDOperands(b)
	if err != nil {
		return err
	}
	if _, _, err := scatterReduction(b, data.Elem); err != nil {
		return err
	}
	// element x: data[x], every update at x's trailing coordinates, every index
	keep := make([][]int, b.NumIn())
	keep[0] = make([]int, r)
	for d := range r {
		keep[0][d] = d
	}
	keep[1] = make([]int, p+r-k)
	for a := range keep[1] {
		keep[1][a] = -1
		if a >= p {
			keep[1][a] = k + a - p
		}
	}
	for j := 0; j < k; j++ {
		keep[2+j] = make([]int, p)
		for a := range keep[2+j] {
			keep[2+j][a] = -1
		}
	}
	return setAlgorithmForm(b, data, keep)
}

func evalScatterNDRT(op *Op, ins []*Tensor, shape []int64) (*Tensor, error) {
	data, upd := ins[0], ins[1]
	if err := algoShape(op, shape, data.Shape...); err != nil {
		return nil, err
	}
	kind, err := ScatterReductionKind(op)
	if err != nil {
		return nil, err
	}
	k := len(ins) - 2
	res := data.Clone()
	rest := NumElements(shape[k:])
	nu := NumElements(ins[2].Shape) // k >= 1 (MinOperands)
	for u := range nu {
		pre, ok := int64(0), true
		for j := 0; j < k; j++ {
			i := ins[2+j].Int(int(u))
			if i < 0 {
				i += shape[j]
			}
			if i < 0 || i >= shape[j] {
				ok = false // out of range: matches no element
				break
			}
			pre = pre*shape[j] + i
		}
		if !ok {
			continue
		}
		for q := range rest {
			f, g := int(pre*rest+q), int(u*rest+q)
			if t := res.Elem; t.IsFloat() {
				res.F[f] = RoundFloat(t, scatterCombineF(kind, res.F[f], upd.Float(g)))
			} else {
				res.I[f] = t.WrapInt(scatterCombineI(kind, res.I[f], upd.Int(g), t))
			}
		}
	}
	return res, nil
}

func buildScatterElementsRT(b *Builder) error {
	data, upd, r, axis, err := scatterElementsOperands(b)
	if err != nil {
		return err
	}
	for d := range upd.Shape {
		if d != axis && !upd.Shape[d].Equal(data.Shape[d]) {
			return b.Errorf("updates %s must match data %s off axis %d", upd, data, axis)
		}
	}
	if _, _, err := scatterReduction(b, data.Elem); err != nil {
		return err
	}
	// element x: data[x], and the indices and updates at x's coordinates along the whole axis
	same := make([]int, r)
	along := make([]int, r)
	for d := range same {
		same[d], along[d] = d, d
	}
	along[axis] = -1
	return setAlgorithmForm(b, data, [][]int{same, along, along})
}

// ScatterReductionKind returns the reduction named by a scatter's reduction attribute.
func ScatterReductionKind(op *Op) (ReduceKind, error) {
	switch r := op.Attrs.Str("reduction", "add"); r {
	case "add":
		return ReduceSum, nil
	case "mul":
		return ReduceProd, nil
	case "max":
		return ReduceMax, nil
	case "min":
		return ReduceMin, nil
	default:
		return 0, fmt.Errorf("%s: reduction %q (want add, mul, max or min)", op.Kind, r)
	}
}

func evalScatterElementsRT(op *Op, ins []*Tensor, shape []int64) (*Tensor, error) {
	data, ind, upd := ins[0], ins[1], ins[2]
	if err := algoShape(op, shape, data.Shape...); err != nil {
		return nil, err
	}
	r := len(shape)
	axis, err := normAxis(op.Attrs.Int("axis", 0), r)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", op.Kind, err)
	}
	kind, err := ScatterReductionKind(op)
	if err != nil {
		return nil, err
	}
	res := data.Clone()
	n := shape[axis]
	rs := strides(shape)
	coord := make([]int64, r)
	for u := int64(0); u < NumElements(upd.Shape); u++ {
		rem := u
		for d := r - 1; d >= 0; d-- {
			coord[d] = rem % upd.Shape[d]
			rem /= upd.Shape[d]
		}
		i := ind.Int(int(u))
		if i < 0 {
			i += n
		}
		if i < 0 || i >= n {
			continue // out of range: matches no element
		}
		f := int64(0)
		for d := 0; d < r; d++ {
			c := coord[d]
			if d == axis {
				c = i
			}
			f += c * rs[d]
		}
		if t := res.Elem; t.IsFloat() {
			res.F[f] = RoundFloat(t, scatterCombineF(kind, res.F[f], upd.Float(int(u))))
		} else {
			res.I[f] = t.WrapInt(scatterCombineI(kind, res.I[f], upd.Int(int(u)), t))
		}
	}
	return res, nil
}

// scatterCombineF and scatterCombineI combine as the evaluator's reductions do (a NaN, once
// seen, stays for max and min).
func scatterCombineF(k ReduceKind, acc, v float64) float64 {
	switch k {
	case ReduceSum:
		return acc + v
	case ReduceProd:
		return acc * v
	case ReduceMax:
		if math.IsNaN(v) || v > acc {
			return v
		}
		return acc
	default:
		if math.IsNaN(v) || v < acc {
			return v
		}
		return acc
	}
}

func scatterCombineI(k ReduceKind, acc, v int64, t DType) int64 {
	if t == U64 && (k == ReduceMax || k == ReduceMin) {
		if (uint64(v) > uint64(acc)) == (k == ReduceMax) {
			return v
		}
		return acc
	}
	switch k {
	case ReduceSum:
		return acc + v
	case ReduceProd:
		return acc * v
	case ReduceMax:
		return max(acc, v)
	default:
		return min(acc, v)
	}
}

// scatterWalkGain is how many times cheaper than the search the walk must be for a scatter
// to take it: the search compares in vectors, the walk writes one element at a time.
const scatterWalkGain = 8

// ScatterElementsOp names the form of a scatter_elements with operands of types data, ind and
// upd along axis: scatter_elements_rt when the indices are run-time data (not constant), the
// updates match data off the axis, every extent has an upper bound (bound: a static extent's
// value, a bounded dim's bound), and the search (result × updates along the axis) costs
// scatterWalkGain times more than the walk (result + updates) at those bounds;
// scatter_elements, whose element map is exact, otherwise.
func ScatterElementsOp(data, ind, upd TensorType, axis int64, constIndices bool, bound func(volume.Aff) (int64, bool)) string {
	const search = "scatter_elements"
	r := data.Rank()
	a, err := normAxis(axis, r)
	if constIndices || err != nil || r == 0 || upd.Rank() != r || ind.Rank() != r {
		return search
	}
	res, nu, along := 1.0, 1.0, 0.0
	for d := range r {
		if d != a && !upd.Shape[d].Equal(data.Shape[d]) || !upd.Shape[d].Equal(ind.Shape[d]) {
			return search
		}
		bd, ok1 := bound(data.Shape[d])
		bu, ok2 := bound(upd.Shape[d])
		if !ok1 || !ok2 {
			return search
		}
		res, nu = res*float64(bd), nu*float64(bu)
		if d == a {
			along = float64(bu)
		}
	}
	if res*along <= scatterWalkGain*(res+nu) {
		return search
	}
	return "scatter_elements_rt"
}

// ScatterNDOp names the form of a scatter_nd with data, updates and index operands of type ut:
// scatter_nd_rt when the indices are run-time data, every extent has a bound, and the search
// (result × updates' index box) costs scatterWalkGain times more than the walk (result +
// updates); scatter_nd otherwise.
func ScatterNDOp(data, upd, ut TensorType, constIndices bool, bound func(volume.Aff) (int64, bool)) string {
	const search = "scatter_nd"
	if constIndices {
		return search
	}
	size := func(t TensorType) (float64, bool) {
		n := 1.0
		for _, a := range t.Shape {
			v, ok := bound(a)
			if !ok {
				return 0, false
			}
			n *= float64(v)
		}
		return n, true
	}
	res, ok1 := size(data)
	nu, ok2 := size(upd)
	nut, ok3 := size(ut)
	if !ok1 || !ok2 || !ok3 || res*nut <= scatterWalkGain*(res+nu) {
		return search
	}
	return "scatter_nd_rt"
}
