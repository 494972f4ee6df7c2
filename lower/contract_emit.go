// This file emits the register-tile kernels planned in contract.go: the loop over reduction
// chunks, the scans of each tile class's full and partial tiles, and the micro-kernel whose
// accumulators live in registers (allocas that LLVM's SROA promotes) across the reduction.

package lower

import (
	"fmt"
	"slices"

	llvm "github.com/llir/llvm/ir"
	"github.com/llir/llvm/ir/constant"
	"github.com/llir/llvm/ir/enum"
	"github.com/llir/llvm/ir/types"
	"github.com/llir/llvm/ir/value"

	"github.com/graphc/graphc/ir"
	"github.com/graphc/graphc/volume"
)

// emitTiles emits the nest of a register-tile kernel; the result box is initialised. A plan
// with variants for few rows (contraction.small) runs the first whose row count holds the
// rows the symbolic dims leave.
func (kb *kernelBuilder) emitTiles(c *contraction) error {
	return kb.emitTilesVariants(c, c.small)
}

// emitTilesVariants emits the first of vs whose row bound holds the run-time row count, else
// c.
func (kb *kernelBuilder) emitTilesVariants(c *contraction, vs []*contraction) error {
	if len(vs) == 0 {
		return kb.emitTilesPlan(c)
	}
	fb := kb.fb
	s := *vs[0]
	s.fromInit = c.fromInit
	few := fb.cur.NewICmp(enum.IPredSLE, fb.aff(c.rowsExt, nil), i64(s.smallRows))
	var err error
	fb.ifElse(few, "rows", func() value.Value {
		err = kb.emitTilesPlan(&s)
		return i64(0)
	}, func() value.Value {
		if e := kb.emitTilesVariants(c, vs[1:]); e != nil && err == nil {
			err = e
		}
		return i64(0)
	})
	return err
}

// emitTilesPlan emits the nest of one plan of a register-tile kernel.
func (kb *kernelBuilder) emitTilesPlan(c *contraction) error {
	fb := kb.fb
	if c.vl*kb.op.Result.Type.Elem.Size() >= 64 {
		fb.wideVectors()
	}
	pp := kb.newPanels(c)
	if kb.par != nil {
		// the tiles' first coordinate is split over threads (parallel.go)
		var roots []volume.Node
		for _, g := range c.groups {
			roots = append(roots, g.scan)
		}
		for _, tc := range c.classes {
			if !tc.grouped {
				roots = append(roots, tc.full, tc.part)
			}
		}
		var narrow func(int) bool
		if c.repacksWhenSplit() {
			narrow = func(l int) bool { return !c.repackLevel(l) }
		}
		kb.clamp = kb.dispatchNarrow(roots, 1, -1, -1, func(int) bool { return true }, narrow, parColumnTrips, true, c.levelDim)
	}
	body := func() error {
		if pp != nil {
			// a new chunk: no panel holds its elements yet
			fb.cur.NewStore(i64(-1), pp.key[0])
		}
		for _, g := range c.groups {
			if err := kb.emitGroupScan(c, pp, g); err != nil {
				return err
			}
		}
		for _, tc := range c.classes {
			if tc.grouped {
				continue
			}
			if err := kb.emitTileScan(c, pp, tc, tc.full, false); err != nil {
				return err
			}
			if err := kb.emitTileScan(c, pp, tc, tc.part, true); err != nil {
				return err
			}
		}
		return nil
	}
	if c.kc == 0 {
		if err := body(); err != nil {
			return err
		}
		kb.endRegion()
		return nil
	}
	if err := fb.loop(fb.aff(c.rlo, nil), fb.aff(c.rhi, nil), c.kc, "kc", func(kc value.Value) error {
		fb.params[tileParamKC] = kc
		defer delete(fb.params, tileParamKC)
		return body()
	}); err != nil {
		return err
	}
	kb.endRegion()
	return nil
}

// repacksWhenSplit reports whether splitting the kernel's rows over threads would copy its
// packed panels again often enough to cost more than splitting its column tiles: every call
// of a task copies each panel of its columns (a chunk of rows reads every column), which is
// about 6/M of the kernel's work for panels read by M rows (GPT-2's and BERT's 128-row
// products, split into 8 calls of row tiles on two threads, did 20-37% more work than in one
// call). Below parPackRows rows per panel the column tiles are split instead when there are
// at least parColumnTrips of them (dispatchNarrow).
func (c *contraction) repacksWhenSplit() bool {
	return len(c.packs) > 0 && c.panelRowTiles >= 0 && c.panelRowTiles*int64(c.mr) < parPackRows
}

// repackLevel reports whether splitting level l of the tile scans over threads makes every
// task copy each packed panel it reads: the levels other than the column tiles' and the o
// dims that the panels depend on (a task then walks every column).
func (c *contraction) repackLevel(l int) bool {
	d := c.levelDim(l)
	if d == c.j {
		return false
	}
	for o, od := range c.oDims {
		if od == d {
			return !c.packO[o]
		}
	}
	return true
}

// panels are the stack buffers of a kernel's packed reads (contraction.packs), one per read,
// and the key of the panel they hold: column count (-1: none), tj, o....
type panels struct {
	bufs []value.Value
	typ  types.Type // [packElems·nr x elem]
	key  []value.Value
	// pre marks the reads packed at compile time (contract_prepack.go): bufs holds the
	// current tile's panel inside the operand at base, whose layout is geom
	pre  []bool
	base []value.Value
	geom []prepackGeom
}

// newPanels allocates the panels of c's packed reads (nil when there are none).
func (kb *kernelBuilder) newPanels(c *contraction) *panels {
	if len(c.packs) == 0 {
		return nil
	}
	et := regType(kb.op.Result.Type.Elem)
	pp := &panels{typ: types.NewArray(uint64(c.packElems*int64(c.nv*c.vl)), et)}
	for p, k := range c.packs {
		g, pre := kb.ec.prepacked(c, kb.op, p)
		pp.pre = append(pp.pre, pre)
		pp.geom = append(pp.geom, g)
		if pre {
			pp.base = append(pp.base, kb.ops[k].ptr)
			pp.bufs = append(pp.bufs, nil) // set by each tile (fill)
			continue
		}
		pp.base = append(pp.base, nil)
		pp.bufs = append(pp.bufs, kb.entryAlloca(pp.typ))
	}
	for k := 0; k < 2+len(c.oDims); k++ {
		pp.key = append(pp.key, kb.entryAlloca(types.I64))
	}
	return pp
}

// slot returns the index of the first element of reduction point rl in a panel.
func (pp *panels) slot(fb *funcBuilder, c *contraction, rl []value.Value) value.Value {
	var s value.Value = i64(0)
	for d, x := range rl {
		base := fb.aff(c.rlos[d], nil)
		if d == 0 && c.kc > 0 {
			base = fb.params[tileParamKC]
		}
		s = fb.add(s, fb.mul(fb.sub(x, base), i64(c.pstride[d])))
	}
	return fb.mul(s, i64(int64(c.nv*c.vl)))
}

// ptr returns the address of group g of the panel of packed read p at slot s, typed for a load
// or store of the group: at its column slot in a panel filled at run time, at its columns in
// one packed at compile time (contract_prepack.go).
func (pp *panels) ptr(fb *funcBuilder, p int, s value.Value, g tileGroup) value.Value {
	at := fb.cur.NewGetElementPtr(pp.typ, pp.bufs[p], i64(0), fb.add(s, i64(int64(pp.column(p, g)))))
	if g.lanes == 1 {
		return at
	}
	return fb.cur.NewBitCast(at, types.NewPointer(types.NewVector(uint64(g.lanes), pp.elem())))
}

// fill copies the panels of the tile at lev (dims: its iteration point with i and the reduction
// dims unset) unless they hold them already: the reduction parts are scanned as in the
// micro-kernel and each packed read's groups are loaded at (i0, j0+off) and stored at their
// slots.
func (pp *panels) fill(kb *kernelBuilder, c *contraction, tc *tileClass, lev []value.Value, dims []value.Value) error {
	fb := kb.fb
	nO := len(c.oDims)
	runTime := false
	for p, pre := range pp.pre {
		if pre {
			pp.bufs[p] = pp.panelBase(fb, c, p, pp.base[p], lev[nO])
		} else {
			runTime = true
		}
	}
	if !runTime {
		return nil
	}
	want := []value.Value{i64(int64(tc.cols)), lev[nO]}
	for o := 0; o < nO; o++ {
		if c.packO[o] {
			want = append(want, lev[o])
		} else {
			want = append(want, i64(0)) // the panel does not depend on this o dim
		}
	}
	var hit value.Value
	for k, w := range want {
		eq := fb.cur.NewICmp(enum.IPredEQ, fb.cur.NewLoad(types.I64, pp.key[k]), w)
		if hit == nil {
			hit = eq
		} else {
			hit = fb.cur.NewAnd(hit, eq)
		}
	}
	miss := fb.cur.NewXor(hit, constant.True)
	return fb.ifThen(miss, "pack", func() error {
		for k, w := range want {
			fb.cur.NewStore(w, pp.key[k])
		}
		for _, rp := range c.rparts {
			re := &astEmitter{fb: fb, lev: make([]value.Value, c.nR)}
			re.leaf = func(rl []value.Value) error {
				d := append([]value.Value(nil), dims...)
				copy(d[c.nOut:], rl)
				s := pp.slot(fb, c, rl)
				for p, k := range c.packs {
					if pp.pre[p] {
						continue
					}
					w := kb.ops[k]
					idx := kb.op.Access[k].Pieces[0].Index
					for _, g := range tc.groups {
						gd := append([]value.Value(nil), d...)
						gd[c.j] = fb.add(d[c.j], i64(int64(g.off)))
						var v value.Value
						switch {
						case g.lanes == 1:
							v = fb.loadElem(w, fb.offset(w, fb.indexAt(idx, gd)))
						case slices.Contains(c.strided, k):
							// strided along j: gathered column by column
							v = constant.NewUndef(types.NewVector(uint64(g.lanes), pp.elem()))
							for l := 0; l < g.lanes; l++ {
								ld := append([]value.Value(nil), gd...)
								ld[c.j] = fb.add(gd[c.j], i64(int64(l)))
								x := fb.loadElem(w, fb.offset(w, fb.indexAt(idx, ld)))
								v = fb.cur.NewInsertElement(v, x, i32c(int64(l)))
							}
						default:
							v = fb.vectorLoad(w, fb.offset(w, fb.indexAt(idx, gd)), g.lanes)
						}
						st := fb.cur.NewStore(v, pp.ptr(fb, p, s, g))
						st.Align = llvm.Align(alignAt(pp.column(p, g), g.lanes, byteSize(pp.elem())))

					}
				}
				return nil
			}
			if err := re.emit(rp.scan); err != nil {
				return err
			}
		}
		return nil
	})
}

// prefetch hints that the line at p will be read soon (llvm.prefetch: no fault, whatever the
// address).
func (fb *funcBuilder) prefetch(p value.Value) {
	f := fb.mc.intrinsic("llvm.prefetch.p0i8", types.Void, types.I8Ptr, types.I32, types.I32, types.I32)
	fb.cur.NewCall(f, fb.cur.NewBitCast(p, types.I8Ptr), i32c(0), i32c(3), i32c(1))
}

// column returns where group g lies in a panel of packed read p (see ptr).
func (pp *panels) column(p int, g tileGroup) int {
	if pp.pre[p] {
		return g.off
	}
	return g.slot
}

// elem is the element type of the panels.
func (pp *panels) elem() types.Type { return pp.typ.(*types.ArrayType).ElemType }

// load returns group g of packed read p at slot s.
func (pp *panels) load(fb *funcBuilder, p int, s value.Value, g tileGroup) value.Value {
	et := pp.elem()
	var t types.Type = et
	if g.lanes > 1 {
		t = types.NewVector(uint64(g.lanes), et)
	}
	ld := fb.cur.NewLoad(t, pp.ptr(fb, p, s, g))
	ld.Align = llvm.Align(alignAt(pp.column(p, g), g.lanes, byteSize(et)))
	return ld
}

// emitTileScan emits the tiles of one class that ast scans (over (o..., tj, ti)).
func (kb *kernelBuilder) emitTileScan(c *contraction, pp *panels, tc *tileClass, ast volume.Node, partial bool) error {
	if ast == nil {
		return nil
	}
	nO := len(c.oDims)
	e := &astEmitter{fb: kb.fb, lev: make([]value.Value, nO+2), clamp: kb.clamp}
	e.leaf = func(lev []value.Value) error { return kb.emitTile(c, pp, tc, c.tileLevels(lev), partial) }
	return e.emit(ast)
}

// emitGroupScan emits the tiles of a colGroup: at each tile, the micro-kernel of the first
// class whose row constraints hold.
func (kb *kernelBuilder) emitGroupScan(c *contraction, pp *panels, g *colGroup) error {
	fb := kb.fb
	nO := len(c.oDims)
	e := &astEmitter{fb: fb, lev: make([]value.Value, nO+2), clamp: kb.clamp}
	e.leaf = func(lev []value.Value) error {
		lev = c.tileLevels(lev)
		var pick func(k int) error
		pick = func(k int) error {
			if k == len(g.classes)-1 {
				return kb.emitTile(c, pp, g.classes[k], lev, false)
			}
			var err error
			fb.ifElse(fb.conds(g.rows[k], []value.Value{lev[nO+1]}), "rows", func() value.Value {
				err = kb.emitTile(c, pp, g.classes[k], lev, false)
				return i64(0)
			}, func() value.Value {
				if e := pick(k + 1); e != nil && err == nil {
					err = e
				}
				return i64(0)
			})
			return err
		}
		return pick(0)
	}
	return e.emit(g.scan)
}

// tileFrame is what the steps of one tile's micro-kernel share: the tile's origin (i0, j0) and
// result index (dims, with the reduction dims 0), and its accumulators with their result
// offsets, one per row and column group.
type tileFrame struct {
	c          *contraction
	tc         *tileClass
	et         types.Type
	nr         int64
	dims       []value.Value
	i0, j0     value.Value
	accs, offs [][]value.Value
	fb         *funcBuilder
}

// at returns the iteration point of row r and column group g of the tile (reduction dims 0).
func (f *tileFrame) at(r int, g tileGroup) []value.Value {
	d := append([]value.Value(nil), f.dims...)
	d[f.c.i] = f.fb.add(f.i0, i64(int64(r)))
	d[f.c.j] = f.fb.add(f.j0, i64(int64(g.off)))
	return d
}

// emitTile emits the micro-kernel of the tile at lev = (o..., tj, ti): its accumulators,
// initialised (emitTile), the reduction into them (emitTileReduction), and their store
// (storeTile).
func (kb *kernelBuilder) emitTile(c *contraction, pp *panels, tc *tileClass, lev []value.Value, partial bool) error {
	fb := kb.fb
	op := kb.op
	elem := op.Result.Type.Elem
	et := regType(elem)
	nO := len(c.oDims)
	nr := int64(c.nv * c.vl)
	dims := make([]value.Value, op.NDim())
	for k, d := range c.oDims {
		dims[d] = lev[k]
	}
	for d := c.nOut; d < op.NDim(); d++ {
		dims[d] = i64(0)
	}
	j0 := fb.add(fb.aff(c.jlo, nil), fb.mul(lev[nO], i64(nr)))
	i0 := fb.add(fb.aff(c.ilo, nil), fb.mul(lev[nO+1], i64(int64(c.mr))))
	if jlo, ok := c.jlo.IsConst(); ok {
		fb.known(j0, gcd(jlo, nr))
	}
	f := &tileFrame{c: c, tc: tc, et: et, nr: nr, dims: dims, i0: i0, j0: j0, fb: fb}
	at := f.at
	// accumulators: one alloca per register, in the entry block so that SROA promotes them
	f.accs = make([][]value.Value, tc.rows)
	accs := f.accs
	for r := range accs {
		for _, g := range tc.groups {
			accs[r] = append(accs[r], kb.entryAlloca(vecType(et, lanesOf(g))))
		}
	}
	f.offs = make([][]value.Value, tc.rows)
	offs := f.offs
	for r := range accs {
		for gi, g := range tc.groups {
			off := fb.offset(kb.res, fb.indexAt(op.Out.Pieces[0].Index, at(r, g)))
			offs[r] = append(offs[r], off)
			fb.cur.NewStore(kb.accInit(c, off, g), accs[r][gi])
		}
	}
	if pp != nil {
		d := at(0, tileGroup{})
		if err := pp.fill(kb, c, tc, lev, d); err != nil {
			return err
		}
	}
	// the tile origin, for the scans of a row-dependent reduction and of a partial tile's live
	// points
	fb.params[tileParamI0] = i0
	fb.params[tileParamJ0] = j0
	for k := range c.oDims {
		fb.params[tileParamO(k)] = lev[k]
	}
	defer func() {
		delete(fb.params, tileParamI0)
		delete(fb.params, tileParamJ0)
		for k := range c.oDims {
			delete(fb.params, tileParamO(k))
		}
	}()
	if err := kb.emitTileReduction(f, pp); err != nil {
		return err
	}
	return kb.storeTile(f, partial)
}

// emitTileReduction emits the reduction of the tile of f into its accumulators, part by part
// (c.rparts), reading packed operands from the panels pp and prefetching what the next tiles
// read.
func (kb *kernelBuilder) emitTileReduction(f *tileFrame, pp *panels) error {
	fb, op, c, tc := kb.fb, kb.op, f.c, f.tc
	et, nr, accs, at := f.et, f.nr, f.accs, f.at
	// the reduction, part by part
	for _, rp := range c.rparts {
		// the nodes that read packed operands, whose values come from the panels
		reads := make([][]*ir.Scalar, len(c.packs))
		for p, k := range c.packs {
			rp.body.Walk(func(s *ir.Scalar) {
				if s.Op == ir.SRead && s.Arg == k {
					reads[p] = append(reads[p], s)
				}
			})
		}
		re := &astEmitter{fb: fb, lev: make([]value.Value, c.nR), rolled: c.rolled && keepRolled(rp.scan)}
		re.leaf = func(rl []value.Value) error {
			packed := make([][]value.Value, len(c.packs))
			if pp != nil {
				s := pp.slot(fb, c, rl)
				for p, k := range c.packs {
					for _, g := range tc.groups {
						packed[p] = append(packed[p], pp.load(fb, p, s, g))
						if pp.pre[p] && g.lanes > 1 && c.prefetchesPanels(fb.mc.tileShape.PanelPrefetchMaxRowTiles) {
							// the same point of the next panel, which follows this one
							next := fb.cur.NewGetElementPtr(pp.elem(), fb.cur.NewBitCast(pp.bufs[p], types.NewPointer(pp.elem())), fb.add(s, i64(pp.geom[p].panelElems+int64(g.off))))
							fb.prefetch(next)
						} else if !pp.pre[p] && !slices.Contains(c.strided, k) && g.lanes > 1 && c.prefetchesPanels(fb.mc.tileShape.PanelPrefetchMaxRowTiles) {
							// the same point of the next column's panel: fetched while
							// this one's tiles compute, so that its copy finds it in cache
							d := at(0, g)
							copy(d[c.nOut:], rl)
							d[c.j] = fb.add(d[c.j], i64(nr))
							w := kb.ops[k]
							fb.prefetch(fb.elemPtr(w, fb.offset(w, fb.indexAt(op.Access[k].Pieces[0].Index, d))))
						}
					}
				}
			}
			if c.stream && tc.rows >= tileStreamPrefetchRows {
				// streamed in place (one row of tiles, see plan): the same reduction point two
				// tiles ahead, fetched while this one computes (skinny GEMMs whose tiles have
				// a few rows, 8×1024·1024×4096: 0.95 -> 0.85 ms; a GEMV's single row has no
				// time to hide it)
				for k, acc := range op.Access {
					p := acc.Pieces[0]
					if slices.Contains(c.packs, k) || !op.Body.Reads(k) || len(p.Guard) > 0 ||
						accessStride(p.Index, c.j) != strideUnit || accessStride(p.Index, c.i) != strideInvariant {
						continue
					}
					for _, g := range tc.groups {
						if g.lanes < c.vl {
							continue
						}
						d := at(0, g)
						copy(d[c.nOut:], rl)
						d[c.j] = fb.add(d[c.j], i64(2*nr))
						w := kb.ops[k]
						fb.prefetch(fb.elemPtr(w, fb.offset(w, fb.indexAt(p.Index, d))))
					}
				}
			}
			for r := range accs {
				for gi, g := range tc.groups {
					d := at(r, g)
					copy(d[c.nOut:], rl)
					bc := &bodyCtx{kb: kb, fb: fb, op: op, dims: d, vl: lanesOf(g), inner: c.j, memo: map[*ir.Scalar]value.Value{}, blocks: true}
					for p := range c.packs {
						for _, s := range reads[p] {
							bc.memo[s] = packed[p][gi]
						}
					}
					acc := fb.cur.NewLoad(vecType(et, lanesOf(g)), accs[r][gi])
					v, err := kb.accumulate(bc, rp, acc)
					if err != nil {
						return err
					}
					fb.cur.NewStore(v, accs[r][gi])
				}
			}
			return nil
		}
		if err := re.emit(rp.scan); err != nil {
			return err
		}
	}
	return nil
}

// prefetchesPanels reports whether the micro-kernels prefetch the next column's packed panel
// when the target bounds the row tiles that share a panel by maxRowTiles (0: no bound).
func (c *contraction) prefetchesPanels(maxRowTiles int) bool {
	return maxRowTiles == 0 || c.panelRowTiles >= 0 && c.panelRowTiles <= int64(maxRowTiles)
}

// storeTile stores the accumulators of the tile of f: whole vectors into the result (or through
// the epilogue chain in the last chunk); a partial tile spills them and copies its live points.
func (kb *kernelBuilder) storeTile(f *tileFrame, partial bool) error {
	fb, op, c, tc := kb.fb, kb.op, f.c, f.tc
	et, nr, accs, offs, at := f.et, f.nr, f.accs, f.offs, f.at
	dims, i0, j0 := f.dims, f.i0, f.j0
	if !partial {
		store := func() error {
			for r := range accs {
				for gi, g := range tc.groups {
					kb.storeGroup(offs[r][gi], fb.cur.NewLoad(vecType(et, lanesOf(g)), accs[r][gi]), g)
				}
			}
			return nil
		}
		epiStore := func() error {
			for r := range accs {
				for gi, g := range tc.groups {
					v := fb.cur.NewLoad(vecType(et, lanesOf(g)), accs[r][gi])
					if err := kb.epiStore(at(r, g)[:c.nOut], v, g.lanes); err != nil {
						return err
					}
				}
			}
			return nil
		}
		return kb.lastChunk(c, epiStore, store)
	}
	// partial tile: spill the registers, then copy the live points
	spill := kb.entryAlloca(types.NewArray(uint64(int64(c.mr)*nr), et))
	for r := range accs {
		for gi, g := range tc.groups {
			p := fb.cur.NewGetElementPtr(types.NewArray(uint64(int64(c.mr)*nr), et), spill, i64(0), i64(int64(r)*nr+int64(g.off)))
			v := fb.cur.NewLoad(vecType(et, lanesOf(g)), accs[r][gi])
			var st *llvm.InstStore
			if g.lanes > 1 {
				st = fb.cur.NewStore(v, fb.cur.NewBitCast(p, types.NewPointer(v.Type())))
			} else {
				st = fb.cur.NewStore(v, p)
			}
			if a := g.align(byteSize(et)); a < int64(g.lanes)*byteSize(et) {
				st.Align = llvm.Align(a) // an overlapping last vector (overlapColumns)
			}
		}
	}
	copyLive := func(epi bool) error {
		le := &astEmitter{fb: fb, lev: make([]value.Value, 2)}
		le.leaf = func(l []value.Value) error {
			idx := fb.add(fb.mul(l[0], i64(nr)), l[1])
			v := fb.cur.NewLoad(et, fb.cur.NewGetElementPtr(types.NewArray(uint64(int64(c.mr)*nr), et), spill, i64(0), idx))
			d := append([]value.Value(nil), dims...)
			d[c.i] = fb.add(i0, l[0])
			d[c.j] = fb.add(j0, l[1])
			if epi {
				return kb.epiStore(d[:c.nOut], v, 1)
			}
			off := fb.offset(kb.res, fb.indexAt(op.Out.Pieces[0].Index, d))
			st := fb.cur.NewStore(v, fb.elemPtr(kb.res, off))
			st.Align = llvm.Align(byteSize(et))
			return nil
		}
		return le.emit(tc.live)
	}
	return kb.lastChunk(c, func() error { return copyLive(true) }, func() error { return copyLive(false) })
}

// lastChunk emits epi where the reduction is complete (always without chunks, in the last
// chunk otherwise) when the kernel has an epilogue chain, and plain elsewhere.
func (kb *kernelBuilder) lastChunk(c *contraction, epi, plain func() error) error {
	if kb.epi == nil {
		return plain()
	}
	if c.kc == 0 {
		return epi()
	}
	fb := kb.fb
	// the start of the last chunk, rlo + kc·floor((rhi - rlo)/kc) (a constant without
	// symbolic dims)
	lastStart := fb.aff(c.rlo.Add(c.rhi.Sub(c.rlo).FloorDiv(c.kc).Mul(c.kc)), nil)
	last := fb.cur.NewICmp(enum.IPredEQ, fb.params[tileParamKC], lastStart)
	var err error
	fb.ifElse(last, "epi", func() value.Value {
		err = epi()
		return i64(0)
	}, func() value.Value {
		if e := plain(); e != nil && err == nil {
			err = e
		}
		return i64(0)
	})
	return err
}

// accumulate returns acc plus the part's body at the context's point: a fused multiply-add
// when the body is a product of two values of the result type.
func (kb *kernelBuilder) accumulate(bc *bodyCtx, rp reductionPart, acc value.Value) (value.Value, error) {
	if rp.fma {
		x, err := bc.emit(rp.body.Args[0])
		if err != nil {
			return nil, err
		}
		y, err := bc.emit(rp.body.Args[1])
		if err != nil {
			return nil, err
		}
		t := acc.Type()
		f := kb.fb.mc.intrinsic("llvm.fmuladd."+intrinsicSuffix(t), t, t, t, t)
		return kb.fb.cur.NewCall(f, x, y, acc), nil
	}
	v, err := bc.emit(rp.body)
	if err != nil {
		return nil, err
	}
	return bc.combine(ir.ReduceSum, kb.op.Result.Type.Elem, acc, v)
}

// intrinsicSuffix is the overload suffix of a float scalar or vector type (f32, v16f32...).
func intrinsicSuffix(t types.Type) string {
	s := "f32"
	if vt, ok := t.(*types.VectorType); ok {
		if vt.ElemType.Equal(types.Double) {
			s = "f64"
		}
		return fmt.Sprintf("v%d%s", vt.Len, s)
	}
	if t.Equal(types.Double) {
		return "f64"
	}
	return s
}

// align returns the alignment in bytes of group g in a buffer of elements of elemBytes whose
// rows of columns start 64-byte aligned (a panel slot, a partial tile's spill): its lanes'
// bytes, less when its offset is not a multiple of them (the last vector of overlapColumns).
func (g tileGroup) align(elemBytes int64) int64 {
	return alignAt(g.off, g.lanes, elemBytes)
}

// alignAt returns the alignment in bytes of lanes elements of elemBytes at element offset off
// of a 64-byte aligned row (see tileGroup.align).
func alignAt(off, lanes int, elemBytes int64) int64 {
	a := int64(lanes) * elemBytes
	for a > elemBytes && (int64(off)*elemBytes)%a != 0 {
		a /= 2
	}
	return a
}

// lanesOf returns the vector length of a group for vecType (0: scalar).
func lanesOf(g tileGroup) int {
	if g.lanes == 1 {
		return 0
	}
	return g.lanes
}

// accInit returns the starting value of the accumulators of group g at result offset off:
// the result's elements, or the init value when the result box is not initialised (in the
// first reduction chunk).
func (kb *kernelBuilder) accInit(c *contraction, off value.Value, g tileGroup) value.Value {
	fb := kb.fb
	if !c.fromInit {
		return kb.loadGroup(off, g)
	}
	elem := kb.op.Result.Type.Elem
	var ii int64
	if !elem.IsFloat() {
		ii = ir.IntInit(elem, kb.op.Init) // an integer max/min starts at its type's bound, not 0
	}
	init := splat(scalarConst(elem, kb.op.Init, ii), lanesOf(g))
	if c.kc == 0 {
		return init
	}
	first := fb.cur.NewICmp(enum.IPredEQ, fb.params[tileParamKC], fb.aff(c.rlo, nil))
	return fb.sel(first, init, kb.loadGroup(off, g))
}

// loadGroup loads a group of result elements at offset off.
func (kb *kernelBuilder) loadGroup(off value.Value, g tileGroup) value.Value {
	if g.lanes == 1 {
		return kb.fb.loadElem(kb.res, off)
	}
	return kb.fb.vectorLoad(kb.res, off, g.lanes)
}

// storeGroup stores a group of result elements at offset off.
func (kb *kernelBuilder) storeGroup(off value.Value, v value.Value, g tileGroup) {
	fb := kb.fb
	if g.lanes == 1 {
		st := fb.cur.NewStore(v, fb.elemPtr(kb.res, off))
		st.Align = llvm.Align(byteSize(v.Type()))
		return
	}
	fb.vectorStore(kb.res, off, v)
}

// entryAlloca returns a stack slot of type t allocated at the start of the function.
func (kb *kernelBuilder) entryAlloca(t types.Type) value.Value {
	entry := kb.fb.f.Blocks[0]
	a := llvm.NewAlloca(t)
	a.Align = 64
	entry.Insts = append([]llvm.Instruction{a}, entry.Insts...)
	return a
}
