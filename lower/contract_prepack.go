// This file packs the constant operands of register-tile kernels at compile time. A packed read
// (contraction.packs: a convolution's or a matmul's weights) is otherwise copied into a stack
// panel by every call, once per reduction chunk and column of tiles; the copy runs between the
// tiles' arithmetic and reads the weights with a row stride (one panel's 24 columns of a
// 512-wide weight matrix). A constant operand's panels are instead laid out at compile time,
// one after another in the order the tiles visit them (chunk, then column of tiles), in a
// private global that the entry passes to the kernel in the operand's place: the tiles read
// their panel where it lies, and the next one streams in behind it.

package lower

import (
	"fmt"

	llvm "github.com/llir/llvm/ir"
	"github.com/llir/llvm/ir/constant"
	"github.com/llir/llvm/ir/enum"
	"github.com/llir/llvm/ir/types"
	"github.com/llir/llvm/ir/value"

	"github.com/graphc/graphc/ir"
)

// prepackMaxBytes bounds the packed copy of one operand (the panels of a chunk past the
// reduction's end and of a partial column of tiles hold zeros).
const prepackMaxBytes = 256 << 20

// prepackGeom is the layout of an operand's packed panels: chunks × colTiles panels of
// panelElems elements each.
type prepackGeom struct {
	chunks, colTiles, panelElems int64
}

// prepacked returns the layout of the compile-time panels of packed read p (operand
// c.packs[p]) of op, or ok false when the read is packed at run time: it must be a constant
// of f32 or f64 in the module (not Config.ExternalWeights) that the kernel reads nowhere else
// (no border nest, no variant for few rows: see dropSmallIfPrepacked), in one unguarded piece
// that does not depend on the tile rows or the other result dims, over a reduction and a tile
// grid of static bounds. The row count may be symbolic (a conv1d over T time steps): the
// panels hold the operand's columns and reduction points only, laid out alike for any number
// of rows. The kernel key tells constants from buffers (kernelKey), so that every op of a
// kernel answers alike.
func (ec *entryCtx) prepacked(c *contraction, op *ir.Op, p int) (g prepackGeom, ok bool) {
	if ec.weights != nil || c == nil || p >= len(c.packs) || len(c.small) > 0 || c.smallRows > 0 || c.border != nil {
		return g, false
	}
	k := c.packs[p]
	x := op.Operands[k]
	if x.Data == nil || x.Type.Elem != op.Result.Type.Elem || (x.Type.Elem != ir.F32 && x.Type.Elem != ir.F64) {
		return g, false
	}
	acc := tilesOp(c, op).Access[k]
	if len(acc.Pieces) != 1 || len(acc.Pieces[0].Guard) > 0 {
		return g, false
	}
	idx := acc.Pieces[0].Index
	if accessStride(idx, c.i) != strideInvariant {
		return g, false
	}
	for _, d := range c.oDims {
		if accessStride(idx, d) != strideInvariant {
			return g, false
		}
	}
	jlo, ok1 := c.jlo.IsConst()
	rlo, ok2 := c.rlo.IsConst()
	rhi, ok3 := c.rhi.IsConst()
	cols, ok4 := op.Result.Type.Shape[c.j].IsConst()
	if !ok1 || !ok2 || !ok3 || !ok4 || len(c.rlos) != c.nR || rhi < rlo || cols <= jlo {
		return g, false
	}
	for _, a := range c.rlos {
		if _, ok := a.IsConst(); !ok {
			return g, false
		}
	}
	nr := int64(c.nv * c.vl)
	g.chunks = 1
	if c.kc > 0 {
		g.chunks = (rhi - rlo + c.kc) / c.kc
	}
	g.colTiles = (cols - jlo + nr - 1) / nr
	g.panelElems = c.packElems * nr
	if g.chunks*g.colTiles*g.panelElems*int64(x.Type.Elem.Size()) > prepackMaxBytes {
		return g, false
	}
	return g, true
}

// dropSmallIfPrepacked drops the variants for few rows of c (contraction.small: with a
// symbolic row count, plans that stream the other operand in place when the run-time rows are
// few) when one of c's packed reads is a constant whose panels can be laid out at compile time
// (prepacked), and returns the packed reads that then are. The variants read the operand
// itself, whose place the packed global takes in the kernel's arguments; and the compile-time
// panels already are the stream those plans read: one contiguous sweep over the weights in
// the order the tiles visit them, with no copy however few the rows.
func (ec *entryCtx) dropSmallIfPrepacked(c *contraction, op *ir.Op) (pre []int) {
	if c == nil || len(c.packs) == 0 {
		return nil
	}
	small := c.small
	c.small = nil
	for p, k := range c.packs {
		if _, ok := ec.prepacked(c, op, p); ok {
			pre = append(pre, k)
		}
	}
	if len(pre) == 0 {
		c.small = small
	}
	return pre
}

// tilesOp returns the op whose accesses the tiles of c read (c.op: the op c was planned for,
// or its interior; the same accesses as every op of its kernel key), op when c has none.
func tilesOp(c *contraction, op *ir.Op) *ir.Op {
	if c.op != nil && len(c.op.Access) == len(op.Operands) {
		return c.op
	}
	return op
}

// prepackData lays out the panels of packed read p of op (see prepacked): panel (chunk, tj)
// holds at slot s, column off the element that the run-time fill would copy there, the
// operand at reduction point rl (slot s) and column jlo + tj·nr + off; points outside the
// operand (past the reduction's end, the last column tile's missing columns) hold zeros, which
// no tile reads.
func prepackData(c *contraction, op *ir.Op, p int, g prepackGeom) []byte {
	k := c.packs[p]
	x := op.Operands[k]
	src := x.Data.Bytes()
	shape := x.Data.Shape
	sz := int64(x.Type.Elem.Size())
	idx := tilesOp(c, op).Access[k].Pieces[0].Index
	nr := int64(c.nv * c.vl)
	jlo, _ := c.jlo.IsConst()
	rlo, _ := c.rlo.IsConst()
	rhi, _ := c.rhi.IsConst()
	rbase := make([]int64, c.nR)
	for d := range rbase {
		rbase[d], _ = c.rlos[d].IsConst()
	}
	// without floor divisions of j, each index component moves by a constant step per column
	linear := true
	step := make([]int64, len(idx))
	v0 := make([]int64, len(idx))
	for a, e := range idx {
		linear = linear && !floorsUse(e, c.j)
		step[a] = coefOf(e, c.j)
	}
	out := make([]byte, g.chunks*g.colTiles*g.panelElems*sz)
	pt := make([]int64, op.NDim())
	rl := make([]int64, c.nR)
	for ch := int64(0); ch < g.chunks; ch++ {
		start := rlo + ch*c.kc
		if c.kc == 0 {
			start = rbase[0]
		}
		for tj := int64(0); tj < g.colTiles; tj++ {
			panel := (ch*g.colTiles + tj) * g.panelElems
			for s := int64(0); s < c.packElems; s++ {
				rem := s
				inside := true
				for d := 0; d < c.nR; d++ {
					q := rem / c.pstride[d]
					rem %= c.pstride[d]
					if d == 0 {
						rl[d] = start + q
						inside = inside && rl[d] <= rhi
					} else {
						rl[d] = rbase[d] + q
					}
				}
				if !inside {
					continue
				}
				copy(pt[c.nOut:], rl)
				pt[c.j] = jlo + tj*nr
				if linear {
					// each index component at the tile's first column, then a step per column
					for a, e := range idx {
						v0[a] = e.EvalFast(pt, nil)
					}
				}
				for off := int64(0); off < nr; off++ {
					pt[c.j] = jlo + tj*nr + off
					flat, in := int64(0), true
					for a, e := range idx {
						var v int64
						if linear {
							v = v0[a] + off*step[a]
						} else {
							v = e.EvalFast(pt, nil)
						}
						if v < 0 || v >= shape[a] {
							in = false
							break
						}
						flat = flat*shape[a] + v
					}
					if !in {
						continue
					}
					at := (panel + s*nr + off) * sz
					copy(out[at:at+sz], src[flat*sz:(flat+1)*sz])
				}
			}
		}
	}
	return out
}

// prepackArgs replaces, in the arguments of op's kernel call (result, then operands), the
// constants whose panels the kernel reads packed (prepacked) by their packed globals.
func (ec *entryCtx) prepackArgs(fb *funcBuilder, op *ir.Op, args []value.Value) {
	kf := ec.formOf(op)
	if kf == nil || kf.tiles == nil {
		return
	}
	c := kf.tiles
	for p, k := range c.packs {
		g, ok := ec.prepacked(c, op, p)
		if !ok {
			continue
		}
		// the panels are laid out when the module is printed (newLazyByteArray)
		n := g.chunks * g.colTiles * g.panelElems * int64(op.Operands[k].Type.Elem.Size())
		p := p
		ec.mc.globals++
		gl := ec.mc.m.NewGlobalDef(fmtGlobal(ec.entry, ec.mc.globals, op.Operands[k].Name), newLazyByteArray(n, func() []byte { return prepackData(c, op, p, g) }))
		gl.Immutable = true
		gl.Linkage = enum.LinkagePrivate
		gl.Align = wsAlign
		args[1+k] = fb.cur.NewBitCast(gl, types.NewPointer(mustMemType(op.Operands[k].Type.Elem)))
		if ec.prepackedConsts == nil {
			ec.prepackedConsts = map[*ir.Value]bool{}
		}
		ec.prepackedConsts[op.Operands[k]] = true
	}
}

// dropUnreadConsts removes from the module the globals of the constants that were passed packed
// (prepackArgs) and that nothing else reads, so that a model's weights are held once.
func (ec *entryCtx) dropUnreadConsts() {
	if len(ec.prepackedConsts) == 0 {
		return
	}
	cand := map[*llvm.Global]*ir.Value{}
	for v := range ec.prepackedConsts {
		if gl := ec.consts[v]; gl != nil {
			cand[gl] = v
		}
	}
	read := map[*llvm.Global]bool{}
	note := func(x value.Value) {
		if bc, ok := x.(*constant.ExprBitCast); ok {
			x = bc.From
		}
		if gl, ok := x.(*llvm.Global); ok && cand[gl] != nil {
			read[gl] = true
		}
	}
	for _, f := range ec.mc.m.Funcs {
		for _, b := range f.Blocks {
			for _, inst := range b.Insts {
				if u, ok := inst.(value.User); ok {
					for _, o := range u.Operands() {
						note(*o)
					}
				}
			}
			if u, ok := b.Term.(value.User); ok {
				for _, o := range u.Operands() {
					note(*o)
				}
			}
		}
	}
	kept := ec.mc.m.Globals[:0]
	for _, gl := range ec.mc.m.Globals {
		if v := cand[gl]; v != nil && !read[gl] {
			delete(ec.consts, v)
			continue
		}
		kept = append(kept, gl)
	}
	ec.mc.m.Globals = kept
}

func fmtGlobal(entry string, n int, name string) string {
	return fmt.Sprintf("%s.packed%d.%s", entry, n, sanitizeSym(name))
}

// panelBase returns the panel that the tile at column index tj reads from the compile-time
// panels of packed read p (base: the operand's pointer), typed as the stack panels are.
func (pp *panels) panelBase(fb *funcBuilder, c *contraction, p int, base value.Value, tj value.Value) value.Value {
	g := pp.geom[p]
	var ch value.Value = i64(0)
	if c.kc > 0 {
		ch = fb.cur.NewSDiv(fb.sub(fb.params[tileParamKC], fb.aff(c.rlo, nil)), i64(c.kc))
	}
	idx := fb.mul(fb.add(fb.mul(ch, i64(g.colTiles)), tj), i64(g.panelElems))
	at := fb.cur.NewGetElementPtr(pp.elem(), base, idx)
	return fb.cur.NewBitCast(at, types.NewPointer(pp.typ))
}
