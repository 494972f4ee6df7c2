// This file holds the cost estimates behind fuse's and channels-last's decisions (issue 32:
// the default pipeline must never make a model slower than no optimisation). They count
// operations per iteration of the loop nests lowering will emit, with the rules lowering
// applies (explicit vectors along the dim the result's last axis is, when every read is
// unit-stride or invariant along it; reads strided along it loaded lane by lane in
// bodies of 8 nodes or more; a transposing copy in register blocks). docs/passes.md states
// the model; a refused rewrite leaves a remark (State.Remarks) in the pass's IR dump.

package passes

import (
	"fmt"

	"github.com/graphc/graphc/ir"
	"github.com/graphc/graphc/volume"
)

// Constants of the estimates. Their units are "operations": one scalar instruction, or one
// instruction on a vector of lanes.
const (
	// costVectorBytes is the vector width the estimates assume: 256-bit AVX2, the narrowest
	// vectors graphc's x86-64 kernels use (AVX-512 and HVX only widen every vector kernel's
	// lead over a scalar one, so a decision taken at 32 bytes stays right there).
	costVectorBytes = 32
	// costTransposeCopy is the operations per element of a transposing copy, which lowering
	// emits as register block transposes (vl×vl blocks, log2(vl) shuffle rounds: the
	// NCHW-to-NHWC copy of a 112²×96 input ran 1.2 M elements in 0.39 ms, about one cycle an
	// element).
	costTransposeCopy = 1.0
	// costSymbolicExtent is the extent assumed for a symbolic dim when counting iterations.
	costSymbolicExtent = 64
	// minStridedBody is lowering's smallest body (distinct nodes) that loads strided reads lane
	// by lane to stay on vectors (lower/strategy.go); smaller ones become scalar nests.
	minStridedBody = 8
)

// vectorDim returns the iteration dim lowering vectorises op along: the dim the last index of
// its result is (coefficient 1, in no other index), or, for a reduction without one, its last
// dim when that is a reduction dim; -1 when there is none. nhwc lists the values stored
// channels-last (their index is read in that layout).
func vectorDim(op *ir.Op, nhwc map[*ir.Value]bool) int {
	if len(op.Out.Pieces) == 1 && len(op.Out.Pieces[0].Index) > 0 {
		idx := layoutIndex(op.Result, op.Out.Pieces[0].Index, nhwc)
		last := idx[len(idx)-1]
		if d := last.ShiftedDim(); d >= 0 && coefOf(last, d) == 1 && len(last.Floors) == 0 {
			other := false
			for _, a := range idx[:len(idx)-1] {
				other = other || coefOf(a, d) != 0 || floorsUse(a, d)
			}
			if !other {
				return d
			}
		}
	}
	if n := op.NDim(); op.Reduce != ir.ReduceNone && n > 0 && op.Iters[n-1] == ir.Reduction {
		return n - 1
	}
	return -1
}

// layoutIndex returns an index of v in the layout it will have: channels-last when nhwc holds v.
func layoutIndex(v *ir.Value, idx []volume.Aff, nhwc map[*ir.Value]bool) []volume.Aff {
	if nhwc[v] && len(idx) == v.Type.Rank() && len(idx) >= minSpatialRank {
		return permuteAffs(idx, channelsLast(len(idx)))
	}
	return idx
}

// anyFloors reports whether some index has a floor division (a reshape's; lowering block-
// transposes permutations only).
func anyFloors(idx []volume.Aff) bool {
	for _, a := range idx {
		if len(a.Floors) > 0 {
			return true
		}
	}
	return false
}

// floorsUse reports whether a floor division of a involves dim d.
func floorsUse(a volume.Aff, d int) bool {
	for _, f := range a.Floors {
		if coefOf(f.Num, d) != 0 || floorsUse(f.Num, d) {
			return true
		}
	}
	return false
}

// strided reports whether an index reads along dim d other than at unit stride in its last
// axis or not at all (lowering's strideOther).
func strided(idx []volume.Aff, d int) bool {
	for i, a := range idx {
		c := coefOf(a, d)
		if c == 0 && !floorsUse(a, d) {
			continue
		}
		if i != len(idx)-1 || c != 1 || floorsUse(a, d) {
			return true
		}
	}
	return false
}

// nestEstimate is the estimated cost of one iteration of an op's loop nest.
type nestEstimate struct {
	perPoint float64 // operations per iteration
	lanes    int     // vector lanes (1: a scalar nest)
	why      string  // why the nest is scalar
}

// estimateNest estimates one iteration of op's nest as lowering emits it: (nodes + 1) / lanes
// operations on vectors (the body and the store), plus one per lane of each read strided
// along the vector dim (loaded lane by lane), or nodes + 1 as a scalar nest.
func estimateNest(op *ir.Op, nhwc map[*ir.Value]bool) nestEstimate {
	nodes := float64(nodeCount(op.Body))
	scalar := func(why string) nestEstimate { return nestEstimate{perPoint: nodes + 1, lanes: 1, why: why} }
	d := vectorDim(op, nhwc)
	if d < 0 {
		return scalar("no vector dim")
	}
	widest := op.Result.Type.Elem.Size()
	stridedReads := 0
	for k, acc := range op.Access {
		if !op.Body.Reads(k) || len(acc.Pieces) == 0 && !acc.Approx {
			continue
		}
		if acc.Approx || readsDynamically(op.Body, k) {
			return scalar(fmt.Sprintf("operand #%d is read through a data-dependent access", k))
		}
		widest = max(widest, op.Operands[k].Type.Elem.Size())
		// guarded reads and reads in pieces are judged by their strides: lowering settles
		// guards the domain decides and splits the others into unguarded vector parts
		// (guard_split.go), which the estimate does not predict
		for _, pc := range acc.Pieces {
			if strided(layoutIndex(op.Operands[k], pc.Index, nhwc), d) {
				stridedReads++
				break
			}
		}
	}
	if widest <= 0 || widest > costVectorBytes {
		return scalar("no vector of its element type")
	}
	lanes := costVectorBytes / widest
	if stridedReads > 0 {
		if op.Reduce != ir.ReduceNone || nodes < minStridedBody {
			return scalar(fmt.Sprintf("%d read(s) strided along the vector dim in a body of %.0f nodes", stridedReads, nodes))
		}
		return nestEstimate{perPoint: (nodes+1)/float64(lanes) + float64(stridedReads), lanes: lanes}
	}
	return nestEstimate{perPoint: (nodes + 1) / float64(lanes), lanes: lanes}
}

// points returns the number of iterations of op's domain, symbolic dims taken as
// costSymbolicExtent.
func points(g *ir.Graph, op *ir.Op) float64 {
	params := map[string]int64{}
	for _, p := range g.Params {
		params[p] = costSymbolicExtent
	}
	// volume giving up (an error) counts the result's elements instead
	n, err := op.Domain.Card(params)
	if err != nil || n < 0 {
		// the result's elements
		n = 1
		for _, a := range op.Result.Type.Shape {
			if c, ok := a.IsConst(); ok {
				n *= c
			} else {
				n *= costSymbolicExtent
			}
		}
	}
	return float64(n)
}

// materialCost is the estimated cost of computing p by its own kernel: a view that transposes
// is a block-transposing copy, other ops their nest.
func materialCost(g *ir.Graph, p *ir.Op, nhwc map[*ir.Value]bool) float64 {
	e := estimateNest(p, nhwc)
	if e.lanes == 1 && isView(g, p) && len(p.Access[0].Pieces[0].Index) > 0 && !anyFloors(p.Access[0].Pieces[0].Index) {
		return points(g, p) * costTransposeCopy // a permutation: block transposes
	}
	return points(g, p) * e.perPoint
}

// fuseRefusal returns why fuse should not rewrite consumer c as form, which absorbs p (a view
// folded into an access, or a producer inlined, whose result then is neither written nor
// read back: roundTrip), or "" to rewrite it. It refuses only a rewrite that costs c its
// vectors (a read strided along its vector dim in a small body, or in a reduction) and is estimated slower than computing p apart: a scalar nest costs nodes + 1
// operations an iteration, a vector nest (nodes + 1) / lanes, p apart its own nest (a
// transposing copy costTransposeCopy an element) and, inlined, a vector store and load of
// each of its elements.
func fuseRefusal(g *ir.Graph, c, form, p *ir.Op, roundTrip bool, nhwc map[*ir.Value]bool) string {
	if c.Reduce == ir.ReduceSum && isSumOfProducts(c) {
		return "" // a contraction packs its strided operands into register tiles
	}
	before := estimateNest(c, nhwc)
	after := estimateNest(form, nhwc)
	if after.lanes >= before.lanes {
		return ""
	}
	nc := points(g, c)
	apart := nc*before.perPoint + materialCost(g, p, nhwc)
	if roundTrip {
		np := points(g, p)
		apart += 2 * np / float64(costVectorBytes/max(1, p.Result.Type.Elem.Size()))
	}
	fused := nc * after.perPoint
	if fused <= apart {
		return ""
	}
	how := "folded"
	if roundTrip {
		how = "inlined"
	}
	return fmt.Sprintf("%%%s (%s) not %s: the fused nest would lose its %d-lane vectors (%s): about %.3g operations against %.3g with %%%s apart",
		p.Result.Name, p.Kind, how, before.lanes, after.why, fused, apart, p.Result.Name)
}

// isSumOfProducts reports whether op is a sum whose body multiplies reads (a matmul or a
// convolution, planned on register tiles that pack their operands).
func isSumOfProducts(op *ir.Op) bool {
	return op.Body.Op == ir.SMul
}

// layoutRefusals returns the windowed ops whose channels-last layout channels-last should
// not take, with why, and the values of plan in their groups (kept channels-first): per
// connected group of values it would store channels-last (plan, from plannedChannelsLast), the
// estimated gain of its windowed ops (windowGain: 1/lanes operations an iteration
// channels-last, narrower for a grouped convolution whose group width is not a multiple of
// the lanes, against the NCHW estimate) against the reorders the layout adds. Each element of
// a value that crosses the group's border (a graph input or output, a value read by an op
// outside the group, or by it from outside) is reordered once, a transposing copy of
// costTransposeCopy operations, except when the op outside is a channel shuffle mergeShuffles
// would store channels-last: that costs its store's scalar nest (shuffleStoreLoss). A group
// with symbolic sizes is taken: the gain and the reorders grow with the same dims, but the
// estimate has no sizes to weigh them with.
func layoutRefusals(g *ir.Graph, plan map[*ir.Value]bool) (map[*ir.Op]string, map[*ir.Value]bool) {
	if len(plan) == 0 {
		return nil, nil
	}
	// groups: union-find over the values of plan, joined as channelsLastValues joins them
	parent := map[*ir.Value]*ir.Value{}
	var find func(v *ir.Value) *ir.Value
	find = func(v *ir.Value) *ir.Value {
		if p, ok := parent[v]; ok && p != v {
			r := find(p)
			parent[v] = r
			return r
		}
		parent[v] = v
		return v
	}
	join := func(a, b *ir.Value) {
		if plan[a] && plan[b] {
			parent[find(a)] = find(b)
		}
	}
	for v := range plan {
		find(v)
	}
	for _, op := range g.Ops {
		for k, o := range op.Operands {
			if isWindowOp(op) && o.Type.Rank() == op.Result.Type.Rank() || keepsChannels(op, k) {
				join(op.Result, o)
			}
		}
	}
	inputs := map[*ir.Value]bool{}
	for _, in := range g.Inputs {
		inputs[in] = true
	}
	outputs := map[*ir.Value]bool{}
	for _, o := range g.Outputs {
		outputs[o] = true
	}
	users := g.Users()
	elements := func(v *ir.Value) float64 {
		n := 1.0
		for _, a := range v.Type.Shape {
			if c, ok := a.IsConst(); ok {
				n *= float64(c)
			} else {
				n *= costSymbolicExtent
			}
		}
		return n
	}
	type group struct {
		gain, reorder float64
		seeds         []*ir.Op
		symbolic      bool // some size is symbolic: the estimate has no sizes to weigh
	}
	groups := map[*ir.Value]*group{}
	get := func(v *ir.Value) *group {
		r := find(v)
		if groups[r] == nil {
			groups[r] = &group{}
		}
		return groups[r]
	}
	crossed := map[[2]*ir.Value]bool{} // (value, group root) pairs already counted
	cross := func(v *ir.Value, gr *ir.Value) {
		if !crossed[[2]*ir.Value{v, gr}] {
			crossed[[2]*ir.Value{v, gr}] = true
			get(gr).reorder += elements(v) * costTransposeCopy
			if _, ok := v.Type.StaticShape(); !ok {
				get(gr).symbolic = true
			}
		}
	}
	for _, op := range g.Ops {
		if plan[op.Result] && isWindowOp(op) {
			gr := get(op.Result)
			gr.seeds = append(gr.seeds, op)
			gr.gain += windowGain(g, op)
			if _, ok := op.Result.Type.StaticShape(); !ok {
				gr.symbolic = true
			}
		}
		if plan[op.Result] && outputs[op.Result] {
			cross(op.Result, find(op.Result))
		}
		for _, o := range op.Operands {
			switch {
			case plan[o] && !plan[op.Result]:
				if loss := shuffleStoreLoss(g, op, users, outputs); loss > 0 {
					// a channel shuffle mergeShuffles stores channels-last: no reorder, but a
					// scalar nest
					if !crossed[[2]*ir.Value{op.Result, find(o)}] {
						crossed[[2]*ir.Value{op.Result, find(o)}] = true
						get(o).reorder += loss
					}
					continue
				}
				cross(o, find(o)) // read from outside the group
			case !plan[o] && plan[op.Result] && o.Type.Rank() == op.Result.Type.Rank() && (inputs[o] || o.Def != nil):
				cross(o, find(op.Result)) // a channels-first value read inside
			}
		}
	}
	refused := map[*ir.Op]string{}
	for _, gr := range groups {
		if len(gr.seeds) == 0 || gr.symbolic || gr.reorder <= gr.gain {
			continue
		}
		why := fmt.Sprintf("kept channels-first: channels-last would gain about %.3g operations on %d windowed op(s) and add reorders and scalar shuffle stores of about %.3g", gr.gain, len(gr.seeds), gr.reorder)
		for _, op := range gr.seeds {
			refused[op] = why
		}
	}
	kept := map[*ir.Value]bool{}
	for v := range plan {
		if gr := groups[find(v)]; gr != nil && len(gr.seeds) > 0 && refused[gr.seeds[0]] != "" {
			kept[v] = true
		}
	}
	return refused, kept
}
