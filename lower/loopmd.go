// This file attaches loop metadata (!llvm.loop) to the loops graphc emits whose shape is
// already decided. The register tiles of SSE and AVX2 (6×2 vectors) take 15 of the 16 vector
// registers: 12 accumulators, 2 panel vectors and a broadcast. When LLVM unrolls the loops of
// such a tile's reduction nest (a 3×3 convolution's kernel rows and columns), GVN shares the
// broadcasts of the input pixels between kernel columns (row r at column s+1 reads what row
// r+1 read at column s), which keeps up to 6 more registers live, and an accumulator goes
// through the stack on every FMA. At x86-64-v3: conv 3×3 56²×64 3.5 ms at -O3 against 1.9 at
// -O2 (-O3 also unrolled the kernel rows), conv 3×3 28²×128 3.7 ms at both; with the nest
// rolled 1.9 ms for both at both levels. The loops of a reduction nest (a scan with a loop
// inside a loop, of more than rolledNestMinPoints points) therefore carry
// llvm.loop.unroll.disable; single reduction loops (matmul's)
// are left to LLVM, as are AVX-512's tiles, whose 32 registers leave room (their modules do
// not change).

package lower

import (
	llvm "github.com/llir/llvm/ir"
	"github.com/llir/llvm/ir/metadata"

	"github.com/graphc/graphc/volume"
)

// loopNoUnroll returns a fresh loop ID (distinct, self-referential, as LLVM requires of
// !llvm.loop) that disables unrolling, and adds it to the module.
func (mc *moduleCtx) loopNoUnroll() *metadata.Tuple {
	if mc.noUnrollProp == nil {
		mc.noUnrollProp = &metadata.Tuple{MetadataID: mc.nextMetadataID(), Fields: []metadata.Field{&metadata.String{Value: "llvm.loop.unroll.disable"}}}
		mc.m.MetadataDefs = append(mc.m.MetadataDefs, mc.noUnrollProp)
	}
	id := &metadata.Tuple{MetadataID: mc.nextMetadataID(), Distinct: true}
	id.Fields = []metadata.Field{id, mc.noUnrollProp}
	mc.m.MetadataDefs = append(mc.m.MetadataDefs, id)
	return id
}

// nextMetadataID numbers the module's metadata definitions in order (graphc adds all of them).
func (mc *moduleCtx) nextMetadataID() metadata.MetadataID {
	return metadata.MetadataID(len(mc.m.MetadataDefs))
}

// markNoUnroll attaches a no-unroll loop ID to br, the back edge of a loop.
func (fb *funcBuilder) markNoUnroll(br *llvm.TermBr) {
	br.Metadata = append(br.Metadata, &metadata.Attachment{Name: "llvm.loop", Node: fb.mc.loopNoUnroll()})
}

// holdsLoop reports whether n contains a For node.
func holdsLoop(n volume.Node) bool {
	switch n := n.(type) {
	case *volume.For:
		return true
	case *volume.Block:
		for _, c := range n.Nodes {
			if holdsLoop(c) {
				return true
			}
		}
	case *volume.If:
		return holdsLoop(n.Then)
	case *volume.Assign:
		return holdsLoop(n.Body)
	}
	return false
}

// nestedLoops reports whether n holds a loop inside a loop.
func nestedLoops(n volume.Node) bool {
	switch n := n.(type) {
	case *volume.For:
		return holdsLoop(n.Body)
	case *volume.Block:
		for _, c := range n.Nodes {
			if nestedLoops(c) {
				return true
			}
		}
	case *volume.If:
		return nestedLoops(n.Then)
	case *volume.Assign:
		return nestedLoops(n.Body)
	}
	return false
}

// rolledNestMinPoints is the fewest points of a reduction nest kept rolled: smaller nests
// (a depthwise 3×3 or 5×5 convolution's taps, with no input channels to sum) LLVM unrolls
// whole into straight code, which is faster (dw 3×3 112²×32 at x86-64-v3: 0.16 ms unrolled,
// 0.18 rolled).
const rolledNestMinPoints = 32

// keepRolled reports whether the reduction scan n of a Rolled tile keeps its loops rolled: it
// has a loop inside a loop and more than rolledNestMinPoints points (or a bound that is not
// a constant).
func keepRolled(n volume.Node) bool {
	if !nestedLoops(n) {
		return false
	}
	p, ok := nestPoints(n)
	return !ok || p > rolledNestMinPoints
}

// nestPoints returns the number of points n scans when its loop bounds are constants.
func nestPoints(n volume.Node) (int64, bool) {
	switch n := n.(type) {
	case nil:
		return 0, true
	case *volume.Leaf:
		return 1, true
	case *volume.Block:
		var sum int64
		for _, c := range n.Nodes {
			p, ok := nestPoints(c)
			if !ok {
				return 0, false
			}
			sum += p
		}
		return sum, true
	case *volume.If:
		return nestPoints(n.Then)
	case *volume.Assign:
		return nestPoints(n.Body)
	case *volume.For:
		if len(n.Lower) != 1 || len(n.Upper) != 1 {
			return 0, false
		}
		lo, ok1 := n.Lower[0].IsConst()
		hi, ok2 := n.Upper[0].IsConst()
		body, ok3 := nestPoints(n.Body)
		if !ok1 || !ok2 || !ok3 {
			return 0, false
		}
		trips := max(hi-lo+1, 0) / max(n.Stride, 1)
		return trips * body, true
	}
	return 0, false
}

// constTrips returns the trip count of a loop whose bounds are constants.
func constTrips(n *volume.For) (int64, bool) {
	if len(n.Lower) != 1 || len(n.Upper) != 1 {
		return 0, false
	}
	lo, ok1 := n.Lower[0].IsConst()
	hi, ok2 := n.Upper[0].IsConst()
	if !ok1 || !ok2 {
		return 0, false
	}
	return max(hi-lo+1, 0) / max(n.Stride, 1), true
}
