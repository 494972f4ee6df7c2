// This file lowers bounded dims (ir.BoundedDim): symbolic dims whose value the graph computes.
// They are not arguments of the entry. Until its value is computed a bounded dim stands for its
// bound, so the workspace and its layout are sized at the bound; once the kernel of the op that
// computes it has run, the entry loads the value from that op's output (the dim's
// out-parameter), checks it against the bound (status 1), checks the requirements that mention
// it and passes it to every later kernel.

package lower

import (
	"fmt"
	"slices"
	"strings"

	"github.com/llir/llvm/ir/enum"
	"github.com/llir/llvm/ir/types"
	"github.com/llir/llvm/ir/value"

	"github.com/graphc/graphc/ir"
	"github.com/graphc/graphc/volume"
)

// callerParams returns the symbolic dims among params that the caller passes (not bounded).
func callerParams(g *ir.Graph, params []string) []string {
	var out []string
	for _, p := range params {
		if _, ok := g.BoundedParam(p); !ok {
			out = append(out, p)
		}
	}
	return out
}

// bindBounds gives every bounded dim its bound as its value in fb (sizes, layouts).
func (ec *entryCtx) bindBounds(fb *funcBuilder) {
	for _, b := range ec.g.Bounded {
		fb.params[b.Param] = i64(b.Bound)
	}
}

// checkBoundedExtents rejects extents that shrink as a bounded dim grows: their buffers, sized
// at the bound, would be too small for smaller values.
func checkBoundedExtents(g *ir.Graph) error {
	if len(g.Bounded) == 0 {
		return nil
	}
	bounds := map[string]int64{}
	for _, b := range g.Bounded {
		bounds[b.Param] = b.Bound
	}
	outputs := map[*ir.Value]bool{}
	for _, o := range g.Outputs {
		outputs[o] = true
	}
	check := func(v *ir.Value) error {
		for _, d := range v.Type.Shape {
			// an intermediate is sized by its extents' upper bounds (sizingType); the
			// caller allocates an output by the header's extents at the bounds
			if _, ok := upperExtent(g, d); ok && !outputs[v] {
				continue
			}
			if g.UsesBounded(d) && !nonDecreasing(d) {
				return fmt.Errorf("%%%s of type %s: the extent %s decreases as a bounded dim grows (buffers are sized at the bound)", v.Name, v.Type, d.String())
			}
			// the header prints the extents at the bounds (boundedMacros): they must not overflow
			if err := fixBounded(d, bounds).Err(); err != nil {
				return fmt.Errorf("%%%s of type %s: the extent %s at the bounds of its bounded dims: %w", v.Name, v.Type, d.String(), err)
			}
		}
		return nil
	}
	for _, op := range g.Ops {
		if err := check(op.Result); err != nil {
			return err
		}
	}
	return nil
}

// upperExtent returns an extent that is at least a for every value of the bounded dims within
// their bounds and equals it at the bounds where a grows with them: a without its terms that
// decrease as a bounded dim grows (a coefficient below 0: the dim's least value, 0, gives the
// most). ok is false when a bounded dim appears in a floor division.
func upperExtent(g *ir.Graph, a volume.Aff) (volume.Aff, bool) {
	for _, f := range a.Floors {
		if g.UsesBounded(f.Num) {
			return a, false
		}
	}
	out := a
	out.Params = nil
	for _, p := range a.Params {
		if _, ok := g.BoundedParam(p.Name); ok && p.Coef < 0 {
			continue
		}
		out.Params = append(out.Params, p)
	}
	return out, true
}

// sizingType returns t with every extent replaced by upperExtent: at the bounds its element
// count is at least t's for every value of the bounded dims (buffers are sized at the bounds),
// and t itself when its extents grow with them.
func sizingType(g *ir.Graph, t ir.TensorType) ir.TensorType {
	if len(g.Bounded) == 0 {
		return t
	}
	out := t
	out.Shape = nil
	for _, d := range t.Shape {
		u, _ := upperExtent(g, d)
		out.Shape = append(out.Shape, u)
	}
	return out
}

// nonDecreasing reports whether a cannot decrease when a parameter grows.
func nonDecreasing(a volume.Aff) bool {
	for _, p := range a.Params {
		if p.Coef < 0 {
			return false
		}
	}
	for _, f := range a.Floors {
		if f.Coef < 0 && len(f.Num.ParamNames()) > 0 || f.Coef > 0 && !nonDecreasing(f.Num) {
			return false
		}
	}
	return true
}

// defineBounded emits, after the kernel of op, the loads of the bounded dims op computes: the
// value is checked against [0, bound] and the requirements that mention it, then used.
func (ec *entryCtx) defineBounded(fb *funcBuilder, op *ir.Op, bufs map[*ir.Value]value.Value) {
	for _, b := range ec.g.Bounded {
		v := ec.g.BoundedValue(b)
		if op != nil && v != op.Result || op == nil && v.Def != nil {
			continue
		}
		n := fb.cur.NewLoad(types.I64, bufs[v])
		lo := fb.cur.NewICmp(enum.IPredSGE, n, i64(0))
		hi := fb.cur.NewICmp(enum.IPredSLE, n, i64(b.Bound))
		next := fb.newBlock("bounded.ok")
		fb.cur.NewCondBr(fb.cur.NewAnd(lo, hi), next, fb.failBlock(statusBadDims))
		fb.cur = next
		fb.params[b.Param] = n
		if ec.boundedDone == nil {
			ec.boundedDone = map[string]bool{}
		}
		ec.boundedDone[b.Param] = true
		seen := map[string]bool{}
		for _, o := range ec.g.Ops {
			for _, c := range o.Requires {
				key := ir.RequirementString(c)
				if seen[key] || !slices.Contains(c.Aff.ParamNames(), b.Param) || !ec.boundedKnown(c.Aff) {
					continue // checked once every bounded dim it mentions is computed
				}
				seen[key] = true
				x := fb.aff(c.Aff, nil)
				pred := enum.IPredSGE
				if c.Eq {
					pred = enum.IPredEQ
				}
				ok := fb.cur.NewICmp(pred, x, i64(0))
				next := fb.newBlock("requires.ok")
				fb.cur.NewCondBr(ok, next, fb.failBlock(statusBadDims))
				fb.cur = next
			}
		}
		// the extents that mention it are non-negative (checkDims leaves them)
		for _, o := range ec.g.Ops {
			for _, d := range o.Result.Type.Shape {
				key := "extent " + d.String()
				if seen[key] || !slices.Contains(d.ParamNames(), b.Param) || !ec.boundedKnown(d) {
					continue
				}
				seen[key] = true
				ok := fb.cur.NewICmp(enum.IPredSGE, fb.aff(d, nil), i64(0))
				next := fb.newBlock("extent.ok")
				fb.cur.NewCondBr(ok, next, fb.failBlock(statusBadDims))
				fb.cur = next
			}
		}
	}
}

// boundedDims writes the header's paragraph on the bounded dims.
func boundedDims(sb *strings.Builder, g *ir.Graph, entry string) {
	if len(g.Bounded) == 0 {
		return
	}
	var ds []string
	for _, b := range g.Bounded {
		ds = append(ds, fmt.Sprintf("0 <= %s <= %d, in out%d", b.Param, b.Bound, b.Output))
	}
	fmt.Fprintf(sb, "/* Bounded dims (computed by %s from the data, not arguments): %s.\n"+
		" * %s stores each one's value in its scalar output; allocate the outputs that depend on them\n"+
		" * at their bounds (the _MAX_ELEMENTS macros): their first _ELEMENTS(value) elements hold the\n"+
		" * result, dense and row-major for the computed extents. A value outside its bounds (TopK's k\n"+
		" * beyond its axis) is status 1. */\n\n", entry, strings.Join(ds, "; "), entry)
}

// boundedNote is the remark on output i in its header comment: the bounded dim it holds.
func boundedNote(g *ir.Graph, i int) string {
	for _, b := range g.Bounded {
		if b.Output == i {
			return fmt.Sprintf(", the value of bounded dim %s (0 <= %s <= %d)", b.Param, b.Param, b.Bound)
		}
	}
	return ""
}

// boundedMacros writes ENTRY_OUT0_MAX_ELEMENTS for an output whose shape uses bounded dims: its
// element count at their bounds (a function of the caller's dims it still uses).
func boundedMacros(sb *strings.Builder, g *ir.Graph, entry, arg string, t ir.TensorType) {
	uses := false
	for _, d := range t.Shape {
		uses = uses || g.UsesBounded(d)
	}
	if !uses {
		return
	}
	bounds := map[string]int64{}
	for _, b := range g.Bounded {
		bounds[b.Param] = b.Bound
	}
	var ps []string
	elems := []string{}
	for _, d := range t.Shape {
		at := fixBounded(d, bounds)
		for _, p := range at.ParamNames() {
			if !slices.Contains(ps, p) {
				ps = append(ps, p)
			}
		}
		elems = append(elems, "("+cExpr(at)+")")
	}
	call := ""
	if len(ps) > 0 {
		call = "(" + strings.Join(ps, ", ") + ")"
	}
	fmt.Fprintf(sb, "#define %s_%s_MAX_ELEMENTS%s (%s)\n", entry, arg, call, strings.Join(elems, " * "))
}

// fixBounded substitutes the values of bounds for their params in a.
func fixBounded(a volume.Aff, bounds map[string]int64) volume.Aff {
	r := volume.AffConst(a.Const)
	for _, p := range a.Params {
		if v, ok := bounds[p.Name]; ok {
			r = r.Add(volume.AffConst(v).Mul(p.Coef)) // volume's arithmetic records an overflow
		} else {
			r = r.Add(volume.AffParam(p.Name).Mul(p.Coef))
		}
	}
	for _, f := range a.Floors {
		r = r.Add(fixBounded(f.Num, bounds).FloorDiv(f.Den).Mul(f.Coef))
	}
	return r
}

// boundedKnown reports whether every bounded dim a mentions has been computed (defineBounded).
func (ec *entryCtx) boundedKnown(a volume.Aff) bool {
	for _, p := range a.ParamNames() {
		if _, ok := ec.g.BoundedParam(p); ok && !ec.boundedDone[p] {
			return false
		}
	}
	return true
}
