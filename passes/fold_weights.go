// This file holds the weight-layout step of fold-constants: a contraction that reads a
// constant weight with its reduction index innermost and the result's innermost index outer
// (Gemm with transB, as torch.onnx exports every classifier head: x·Wᵀ) gets the weight
// transposed once at compile time, so that kernels read the result's columns contiguously.
// Read as written, such a weight is strided along the vectorised columns and lowering gathers
// it into packed panels on every call: a batch-1 classifier head copied its whole weight
// (ResNet-50's 8 MB, VGG's 400 MB) per call instead of streaming it once.

package passes

import (
	"slices"
	"strings"

	"github.com/graphc/graphc/ir"
)

// transposeWeights rewrites the einsums of g whose constant operand is read with the reduction
// innermost (see the file comment), within what remains of budget; it returns the bytes it
// materialised and the number of einsums it rewrote. A weight that folding made (in made) and only this einsum reads is replaced
// by its transpose, which then adds nothing to what the compile holds.
func transposeWeights(g *ir.Graph, budget int64, made map[*ir.Value]bool) (used int64, rewritten int) {
	users := g.Users()
	for _, op := range g.Ops {
		if op.Kind != "einsum" {
			continue
		}
		eq := op.Attrs["equation"].Str
		ins, out, ok := strings.Cut(strings.ReplaceAll(eq, " ", ""), "->")
		if !ok || strings.Contains(eq, ".") || out == "" {
			continue
		}
		terms := strings.Split(ins, ",")
		if len(terms) != len(op.Operands) {
			continue
		}
		last := out[len(out)-1:]
		for k, w := range op.Operands {
			t := terms[k]
			if w.Data == nil || len(t) < 2 || len(t) != len(w.Data.Shape) || !w.Type.Elem.HasRawLayout() {
				continue
			}
			inner := t[len(t)-1:]
			if strings.Contains(out, inner) || !strings.Contains(t, last) || strings.Count(t, last) != 1 {
				continue // the innermost index is not summed, or the columns are not read
			}
			n := int64(w.Data.Len()) * int64(w.Type.Elem.Size())
			if made[w] && len(users[w]) == 1 {
				n = 0
			}
			if used+n > budget {
				continue
			}
			nt := strings.Replace(t, last, "", 1) + last
			perm := make([]int, len(t))
			for i := range nt {
				perm[i] = strings.Index(t, nt[i:i+1])
			}
			terms2 := slices.Clone(terms)
			terms2[k] = nt
			operands := slices.Clone(op.Operands)
			operands[k] = &ir.Value{Name: w.Name + "_t", Data: permuteTensor(w.Data, perm)}
			operands[k].Type = ir.StaticType(w.Type.Elem, operands[k].Data.Shape...)
			attrs := ir.Attrs{}
			for a, v := range op.Attrs {
				attrs[a] = v
			}
			attrs["equation"] = ir.StringAttr(strings.Join(terms2, ",") + "->" + out)
			nop, err := ir.MakeOp(g.Params, "einsum", op.Name, operands, attrs)
			if err != nil || !nop.Result.Type.Equal(op.Result.Type) {
				continue
			}
			g.Consts = append(g.Consts, operands[k])
			g.RenameValue(operands[k], operands[k].Name)
			res := op.Result
			*op = *nop
			op.Result, res.Def = res, op
			used += n
			rewritten++
			break
		}
	}
	return used, rewritten
}
