// This file attaches loop metadata (!llvm.loop) to the loops graphc emits whose shape is
// already decided. The register-tile kernels of contractions hold mr×nv accumulators in
// registers through their reduction loops; LLVM at -O3 fully unrolls a short outer reduction
// loop (a 3×3 convolution's kernel rows, whose inner loop over the kernel columns it has
// already unrolled), and the AVX2 tile's 12 accumulators, 2 panel vectors and broadcast no
// longer fit the 16 registers: an accumulator goes through the stack on every FMA (conv 3×3
// 56×56×64 at x86-64-v3: 3.5 ms at -O3 against 1.9 at -O2). Such loops carry
// llvm.loop.unroll.disable, so that the module runs the same at -O2 and -O3.

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
