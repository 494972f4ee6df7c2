// This file chooses each op's kernel: kernelFamilies is the ordered table of kernel families,
// read top to bottom like the pass table. The first family whose applicability test accepts
// the op plans its kernel; every family before it says why it did not apply, and --emit=plan
// prints both ("choice: register-tiles (int-dot: not an i32 sum; nbits: ...)"). The last row, the
// per-point nest, applies to every op, so every op gets a kernel.
//
// The choice depends only on the op's kernel key (dedup.go), which memoises it: ops of the
// same key share the form chosen for the first of them.

package lower

import (
	"fmt"
	"strings"

	"github.com/graphc/graphc/ir"
)

// kernelFamily is one row of the kernel-choice table.
type kernelFamily struct {
	// name is the family's name in the plan.
	name string
	// doc says what kernels of the family are and why the row stands where it does.
	doc string
	// plan tries the family on op: it fills kf and returns "" when the family applies, else
	// it returns why not (kf is then left as it was).
	plan func(ec *entryCtx, op *ir.Op, kf *kernelForm) (whyNot string)
}

// kernelFamilies is the ordered table of kernel families (see the file comment).
var kernelFamilies = []kernelFamily{
	{"algorithm", "an op whose semantics is an algorithm (a sort, a greedy suppression; " +
		"algo.go): first, since no other family can run it (its body is a placeholder)",
		planAlgorithmFamily},
	{"int-dot", "an 8-bit integer matrix product or convolution with constant weights on the " +
		"target's dot-product instructions (VNNI, AVX2 pmaddubsw, HVX vrmpy; intdot.go): first, " +
		"since it is the only family that packs the weights and uses those instructions",
		planIntDotFamily},
	{"nbits-gemm", "a product with block-quantized 4- or 8-bit constant weights (matmul_nbits) " +
		"over whole rows, when there may be many rows (a prefill): each weight dequantized once per " +
		"chunk into a float panel in scratch, every row run over it in register tiles (nbits_gemm.go); " +
		"with a symbolic row count, the GEMV form below nbitsGEMMMinRows rows at run time. Before " +
		"nbits-gemv, which unpacks each weight again for every group of four rows",
		planNBitsGEMMFamily},
	{"nbits-gemv", "a product with block-quantized 4- or 8-bit constant weights (matmul_nbits) " +
		"over whole rows, reading the packed bytes once and unpacking them in registers " +
		"(nbits.go, nbits_lanes.go; matmul_nbits_q8, A quantized to int8, in integer products: nbits_q8.go): " +
		"before the register tiles, which would need a float copy of the weights",
		planNBitsFamily},
	{"register-tiles", "a float sum of products on register tiles of the module's vector width " +
		"(contract.go), the border left to the nest: before the nests, which it beats on every " +
		"contraction it accepts",
		planTilesFamily},
	{"guard-split", "an op without reduction whose guarded reads have disjoint guards (a " +
		"concatenation, a padding copy), split into one unguarded nest per read (guard_split.go)",
		planGuardSplitFamily},
	{"piece-split", "a reduction whose reads have several pieces (the clamped taps of a resize), " +
		"split into the interior, where each read is one piece, and the rest (guard_split.go)",
		planPieceSplitFamily},
	{"nest", "the per-point loop nest with the strategy's loop order and vectors (strategy.go): " +
		"applies to every op",
		planNestFamily},
}

// chooseKernel returns a new kernel form for op, planned by the first family of
// kernelFamilies that applies; kf.choice records the winner and the reasons of the rows above.
func (ec *entryCtx) chooseKernel(op *ir.Op) *kernelForm {
	kf := &kernelForm{domain: op.Domain}
	var passed []string
	for _, fam := range kernelFamilies {
		why := fam.plan(ec, op, kf)
		if why == "" {
			kf.choice = fam.name
			if len(passed) > 0 {
				kf.choice += " (" + strings.Join(passed, "; ") + ")"
			}
			return kf
		}
		passed = append(passed, fam.name+": "+why)
	}
	// not reached: the last row (the nest) applies to every op; TestKernelFamiliesEndWithNest
	planNestFamily(ec, op, kf)
	kf.choice = "nest (" + strings.Join(passed, "; ") + ")"
	return kf
}

// strategyFor chooses the nest strategy of op for the module's vectors (ordered: keep float
// sums in the evaluator's order even without Config.OrderedReductions).
func (mc *moduleCtx) strategyFor(op *ir.Op, ordered bool) *strategy {
	return chooseStrategy(op, mc.vectorBytesFor(op), mc.intRequant(op), mc.cfg.OrderedReductions || ordered, mc.stridedLanes())
}

func planIntDotFamily(ec *entryCtx, op *ir.Op, kf *kernelForm) string {
	p := ec.intDotPlan(op)
	if p.d == nil {
		return p.why
	}
	kf.dot, kf.name = p.d, p.d.String()
	return ""
}

func planNBitsGEMMFamily(ec *entryCtx, op *ir.Op, kf *kernelForm) string {
	nb := ec.nbitsPlan(op)
	if nb == nil {
		return "not a block-quantized weight product over whole rows"
	}
	if nb.gemm == nil {
		return nb.gemmWhy
	}
	kf.nbits, kf.name = nb, nb.String()
	kf.whole = ec.writesWhole(op) // it stores every element of its rows: no initialisation
	return ""
}

func planNBitsFamily(ec *entryCtx, op *ir.Op, kf *kernelForm) string {
	nb := ec.nbitsPlan(op)
	if nb == nil {
		return "not a block-quantized weight product over whole rows"
	}
	kf.nbits, kf.name = nb, nb.String()
	kf.whole = ec.writesWhole(op) // it stores every element of its rows: no initialisation
	return ""
}

func planTilesFamily(ec *entryCtx, op *ir.Op, kf *kernelForm) string {
	tiles, why := planContraction(op, ec.g.Params, ec.mc.tileBytes, ec.mc.tileShape)
	if tiles == nil {
		return why
	}
	pre := ec.dropSmallIfPrepacked(tiles, op)
	kf.tiles, kf.name = tiles, tiles.String()
	if len(pre) > 0 {
		kf.name += fmt.Sprintf(" prepacked=%v", pre)
	}
	return ""
}

// planNestFamily plans op as one nest: its strategy, and whether it writes its whole result
// (no initialisation).
func planNestFamily(ec *entryCtx, op *ir.Op, kf *kernelForm) string {
	kf.strat = ec.mc.strategyFor(op, false)
	kf.name = kf.strat.String()
	// a windowed reduction stores each element once, combined from the op's init value
	// (window.go): it needs no initialisation either
	kf.whole = (op.Reduce == ir.ReduceNone || kf.strat.window) && ec.writesWhole(op)
	return ""
}

func planGuardSplitFamily(ec *entryCtx, op *ir.Op, kf *kernelForm) string {
	parts, why := splitGuarded(op, ec.g.Params)
	if parts == nil {
		return why
	}
	planParts(ec, op, kf, "guard-split", parts)
	return ""
}

func planPieceSplitFamily(ec *entryCtx, op *ir.Op, kf *kernelForm) string {
	parts, why := splitPieces(op, ec.g.Params)
	if parts == nil {
		return why
	}
	planParts(ec, op, kf, "piece-split", parts)
	return ""
}

// planParts plans a split op: the whole op as a nest (its strategy and whether it writes its
// whole result, which the kernel still reads), then each part with its own strategy.
func planParts(ec *entryCtx, op *ir.Op, kf *kernelForm, name string, parts []*ir.Op) {
	planNestFamily(ec, op, kf)
	// the parts of a reduction combine into the same elements: they need the initialisation
	kf.whole = kf.whole && op.Reduce == ir.ReduceNone
	kf.parts, kf.name = parts, name
	for _, p := range parts {
		s := ec.mc.strategyFor(p, false)
		kf.partStrats = append(kf.partStrats, s)
		kf.name += " [" + s.String() + "]"
	}
}
