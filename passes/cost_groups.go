// This file holds the parts of channels-last's cost check (layoutRefusals) that weigh what the
// layout costs grouped convolutions and channel shuffles (issue 32: ShuffleNet v1's grouped
// 1×1 convolutions of 28 and 34 channels per group ran on 4- and 2-lane tiles channels-last,
// 0.60 ms each against 0.17 ms on full-width tiles along the rows in NCHW, and its shuffles,
// stored channel-strided by mergeShuffles, became scalar nests: 0.54 ms against 0.064 ms).

package passes

import (
	"github.com/graphc/graphc/ir"
	"github.com/graphc/graphc/volume"
)

// windowGain returns the estimated operations channels-last saves (negative: costs) on the
// windowed op op of g. Channels-last register tiles take vectors along the output channels:
// 1/lanes operations an iteration. NCHW costs its nest's estimate (nchwEstimate). A grouped
// convolution whose group width is not a multiple of the lanes is compared tile to tile
// instead: channels-last, lowering narrows its tiles to the largest power of two of lanes
// dividing the width (a tile never straddles two groups: 1/vl operations an iteration), while
// NCHW tiles its output rows at full width (rowTileCost).
func windowGain(g *ir.Graph, op *ir.Op) float64 {
	lanes := costVectorBytes / max(1, op.Result.Type.Elem.Size())
	pts := points(g, op)
	if w := groupWidth(op); w > 0 && w%int64(lanes) != 0 {
		vl := lanes
		for vl > 1 && w%int64(vl) != 0 {
			vl /= 2
		}
		return pts * (rowTileCost(op, lanes) - 1/float64(vl))
	}
	return pts * max(0, nchwEstimate(op)-1/float64(lanes))
}

// nchwEstimate is the estimated operations an iteration of windowed op takes in NCHW: its
// nest's estimate (estimateNest), with two refinements of what lowering does. A convolution
// (a sum that multiplies) runs on register tiles that pack its strided reads (a stride-2
// stem's input, packed=[0] in the plan): it costs a vector nest's (nodes + 1)/lanes however it
// reads. A reduction's body nodes that do not vary along the reduction dims (an average
// pool's divisor, a function of the output pixel) are hoisted out of the reduction loops: only
// the varying ones count.
func nchwEstimate(op *ir.Op) float64 {
	e := estimateNest(op, nil)
	if op.Reduce == ir.ReduceNone {
		return e.perPoint
	}
	nodes := float64(nodeCount(op.Body))
	varying := float64(reductionVaryingNodes(op))
	if e.lanes == 1 && multiplies(op.Body) && op.Reduce == ir.ReduceSum {
		lanes := costVectorBytes / max(1, op.Result.Type.Elem.Size())
		e.perPoint = (nodes + 1) / float64(lanes)
	}
	return e.perPoint * (varying + 1) / (nodes + 1)
}

// multiplies reports whether a body multiplies two operand elements (a convolution's, guarded
// or not; an average pool's divisor multiplies indices).
func multiplies(s *ir.Scalar) bool {
	found := false
	s.Walk(func(n *ir.Scalar) {
		found = found || n.Op == ir.SMul && len(n.Args) == 2 && readsOperand(n.Args[0]) && readsOperand(n.Args[1])
	})
	return found
}

// readsOperand reports whether s reads an operand element.
func readsOperand(s *ir.Scalar) bool {
	found := false
	s.Walk(func(n *ir.Scalar) { found = found || n.Op == ir.SRead || n.Op == ir.SDynRead })
	return found
}

// reductionVaryingNodes counts the distinct nodes of op's body that vary along its reduction
// dims: reads and availability tests, indices of reduction dims, and nodes over them.
func reductionVaryingNodes(op *ir.Op) int {
	varies := map[*ir.Scalar]bool{}
	var visit func(n *ir.Scalar) bool
	visit = func(n *ir.Scalar) bool {
		if v, ok := varies[n]; ok {
			return v
		}
		v := false
		switch n.Op {
		case ir.SRead, ir.SDynRead, ir.SAvail:
			v = true
		case ir.SIndex:
			v = n.Arg < len(op.Iters) && op.Iters[n.Arg] == ir.Reduction
		}
		for _, a := range n.Args {
			v = visit(a) || v
		}
		varies[n] = v
		return v
	}
	visit(op.Body)
	count := 0
	for _, v := range varies {
		if v {
			count++
		}
	}
	return count
}

// rowTileCost returns the vector operations an iteration of register tiles along the last
// result axis (NCHW's rows) take: ceil(n/lanes)/n for rows of n elements, 1/lanes when n is
// symbolic.
func rowTileCost(op *ir.Op, lanes int) float64 {
	shape := op.Result.Type.Shape
	n, ok := shape[len(shape)-1].IsConst()
	if !ok || n <= 0 {
		return 1 / float64(lanes)
	}
	return float64((n+int64(lanes)-1)/int64(lanes)) / float64(n)
}

// groupWidth returns the output channels per group of a grouped convolution (a sum of
// products reading its input, operand 0, through floor(m/width) of its output-channel dim m,
// the dim of its NCHW result's axis 1, which appears nowhere else in that read), or 0.
func groupWidth(op *ir.Op) int64 {
	if op.Reduce != ir.ReduceSum || !multiplies(op.Body) || len(op.Out.Pieces) != 1 || len(op.Access) == 0 || len(op.Access[0].Pieces) != 1 {
		return 0
	}
	out := op.Out.Pieces[0].Index
	if len(out) < minSpatialRank {
		return 0
	}
	m := out[1].ShiftedDim()
	if m < 0 {
		return 0
	}
	return volume.BlockDen(op.Access[0].Pieces[0].Index, m)
}

// shuffleStoreLoss returns the operations channels-last adds to op when op is a channel
// shuffle mergeShuffles would store channels-last (shuffleMergeable): its store, strided along
// the channels, makes its nest scalar (nodes + 1 operations an iteration) where NCHW runs it
// on vectors ((nodes + 1)/lanes); 0 otherwise.
func shuffleStoreLoss(g *ir.Graph, op *ir.Op, users map[*ir.Value][]*ir.Op, outputs map[*ir.Value]bool) float64 {
	if !shuffleMergeable(op.Result, users, outputs) {
		return 0
	}
	lanes := costVectorBytes / max(1, op.Result.Type.Elem.Size())
	nodes := float64(nodeCount(op.Body))
	return points(g, op) * (nodes + 1) * (1 - 1/float64(lanes))
}
