// This file emits matmul_nbits over many rows (a prefill's tokens) as a blocked GEMM: for
// each chunk of kc reduction values and each panel of nr columns, the block-quantized weights
// are dequantized once into a float panel in workspace scratch (kc rows of nr floats, the
// layout a register tile reads), and every row of A runs over the panel in register tiles of
// mr rows by nr columns (the target's tile shape, as contract.go's micro-kernel: mr·nv
// accumulators, nv panel vectors and a broadcast of A per reduction step). The packed bytes
// are read straight into i32 lanes, one column per lane (nbits_lanes.go's nibble lanes
// transposed): field p of lane c is weight k + p of column c, so one shift and mask per field
// yields one row of the panel, and (q - zp)·scale is computed exactly as the evaluator does.
// Each weight is thus dequantized once per panel and used by every row, where the GEMV form
// (nbits.go) unpacks it again for every group of four rows; for a few rows the GEMV form,
// which reads half a byte per weight and writes nothing, is faster, so a kernel whose row
// count is symbolic counts its rows and takes the GEMV form below nbitsGEMMMinRows.

package lower

import (
	"fmt"
	"strings"

	llvm "github.com/llir/llvm/ir"
	"github.com/llir/llvm/ir/constant"
	"github.com/llir/llvm/ir/enum"
	"github.com/llir/llvm/ir/types"
	"github.com/llir/llvm/ir/value"

	"github.com/graphc/graphc/volume"
)

// nbitsGEMM is the blocked-GEMM form of a matmul_nbits kernel.
type nbitsGEMM struct {
	mr, nv, vl int   // the register tile: mr rows by nv vectors of vl floats
	kc         int64 // the reduction chunk (a multiple of 8; a panel is kc × nv·vl floats)
	rolled     bool  // the tile takes every vector register: its reduction loop stays rolled
	// minRows > 0: the rows are counted at run time, and fewer than minRows take the GEMV form
	minRows int64
}

const (
	// nbitsGEMMMinRows is the fewest rows for which the GEMM form runs: below it the GEMV
	// form, which reads the packed weights in place, is faster (m×4096·4096×4096, 4-bit
	// blocks of 32, AVX2 on Zen 3, process CPU time: GEMV/GEMM 3.3/6.7 ms at m = 4, 7.9/8.2
	// at 8, 12.4/8.8 at 12, 13.9/12.7 at 16, 63/31 at 64)
	nbitsGEMMMinRows = 10
	// nbitsGEMMKC is the reduction chunk when K is longer than nbitsGEMMKCOne: a 256×16 f32
	// panel (16 KiB with AVX2's 6×16 tiles, 48 KiB with AVX-512's 8×48) stays in L1/L2 beside
	// the rows' 256 values of A; shorter K is one chunk (the result is stored once).
	nbitsGEMMKC    = 256
	nbitsGEMMKCOne = 512
)

func (g *nbitsGEMM) String() string {
	s := fmt.Sprintf("nbits-gemm %dx%d kc=%d", g.mr, g.nv*g.vl, g.kc)
	if g.minRows > 0 {
		s += fmt.Sprintf(" (gemv below %d rows)", g.minRows)
	}
	return s
}

// planNBitsGEMM returns the GEMM form of p for the module, or nil and why not (set p.gemv
// first: without the GEMV form, the GEMM form takes any number of rows).
func planNBitsGEMM(mc *moduleCtx, p *nbitsGEMV) (*nbitsGEMM, string) {
	if mc.tileBytes < 16 || !mc.vecFloat || strings.HasPrefix(mc.tgt.Triple, "hexagon") {
		return nil, "no float register tiles on the target"
	}
	n, known := p.rowCount()
	if known && n < nbitsGEMMMinRows && p.gemv {
		return nil, fmt.Sprintf("%d row(s), fewer than %d: the GEMV form reads the packed weights once", n, nbitsGEMMMinRows)
	}
	g := &nbitsGEMM{mr: mc.tileShape.Rows, nv: mc.tileShape.Vectors, vl: mc.tileBytes / 4, kc: nbitsGEMMKC, rolled: mc.tileShape.Rolled}
	if kpad := (p.K + 7) &^ 7; kpad <= nbitsGEMMKCOne {
		g.kc = kpad
	}
	if !known && p.gemv {
		g.minRows = nbitsGEMMMinRows
	}
	return g, ""
}

// panelFloats is the size of the dequantized panel, in floats.
func (g *nbitsGEMM) panelFloats() int64 { return g.kc * int64(g.nv*g.vl) }

// rowCount returns the number of rows of p when it is the same for every value of the
// symbolic dims (each lead dim spans a constant number of values), else false. A dim's single
// piece of bounds holds under a guard on the outer dims that, with a constant extent of at
// least one, is exactly the projection of the rows onto them: the count is the product.
func (p *nbitsGEMV) rowCount() (int64, bool) {
	n := int64(1)
	for d := 0; d < p.lead; d++ {
		bounds, err := p.rows.DimBounds(d)
		if err != nil || len(bounds) != 1 || len(bounds[0].Other) > 0 {
			return 0, false
		}
		ext := int64(-1)
		for _, lo := range bounds[0].Lower {
			for _, up := range bounds[0].Upper {
				if c, ok := up.Sub(lo).IsConst(); ok && (ext < 0 || c+1 < ext) {
					ext = c + 1
				}
			}
		}
		if ext < 1 {
			return 0, false
		}
		n *= ext
	}
	return n, true
}

// emitNBitsGEMM emits the GEMM form over the rows scanned by ast: per chunk of kc values of
// k, per panel of nr columns (then the last, narrower one), the panel is dequantized into the
// scratch and the rows run over it in tiles of mr consecutive rows of the innermost lead dim
// (the remainder as one tile whose missing rows repeat the last and are not stored; rows
// alone, as tiles of one row).
func (kb *kernelBuilder) emitNBitsGEMM(p *nbitsGEMV, ast volume.Node) error {
	fb, op, g := kb.fb, kb.op, p.gemm
	nr := int64(g.nv * g.vl)
	vt := types.NewVector(uint64(g.vl), types.Float)
	panel := &view{v: op.Operands[0], ptr: kb.nbitsPanel(g.panelFloats()),
		lo: []value.Value{i64(0)}, ext: []value.Value{i64(g.panelFloats())}, strides: []value.Value{i64(1)}}
	accs := make([][]value.Value, g.mr)
	for r := range accs {
		for v := 0; v < g.nv; v++ {
			accs[r] = append(accs[r], kb.entryAlloca(vt))
		}
	}
	nch := (p.K + g.kc - 1) / g.kc
	main := p.N - p.N%nr
	// a split kernel: the task's panels [lo, hi] (parallel_tiles.go)
	lo, hi := kb.nbitsColumnRegion(p.N, nr, nil)
	defer kb.endTileRegion()
	return fb.loop(i64(0), i64(nch-1), 1, "nbits.kc", func(ch value.Value) error {
		k0 := fb.mul(ch, i64(g.kc))
		kEnd := fb.smin(fb.add(k0, i64(g.kc)), i64(p.K))
		var first value.Value = constant.True
		if nch > 1 {
			first = fb.cur.NewICmp(enum.IPredEQ, ch, i64(0))
		}
		t := &nbitsTile{p: p, panel: panel, k0: k0, kEnd: kEnd, first: first, accs: accs}
		panelTile := func(j0 value.Value, nv int, valid int64) error {
			t.j0, t.nv, t.valid = j0, nv, valid
			if err := kb.nbitsDequant(t); err != nil {
				return err
			}
			e := &astEmitter{fb: fb, lev: make([]value.Value, p.lead)}
			e.leaf = func(lev []value.Value) error { return kb.nbitsTileRows(t, lev, 1, nil) }
			if p.lead > 0 {
				e.vl = g.mr
				e.vecLeaf = func(lev []value.Value) error { return kb.nbitsTileRows(t, lev, g.mr, nil) }
				e.remLeaf = func(lev []value.Value, count value.Value) error { return kb.nbitsTileRows(t, lev, g.mr, count) }
			}
			return e.emit(ast)
		}
		if main > 0 {
			err := fb.loop(lo, fb.smin(hi, i64(main-1)), nr, "nbits.panel", func(j0 value.Value) error {
				return panelTile(j0, g.nv, nr)
			})
			if err != nil {
				return err
			}
		}
		if main < p.N {
			tail := p.N - main
			return kb.ifInRange(main, lo, hi, "nbits.tail", func() error {
				return panelTile(i64(main), int((tail+int64(g.vl)-1)/int64(g.vl)), tail)
			})
		}
		return nil
	})
}

// nbitsTile is the state of one panel of the GEMM form: its chunk [k0, kEnd), its columns
// j0 .. j0+valid-1 in nv vectors, whether the chunk is the first (the tile starts from zero
// rather than the result), and the accumulators.
type nbitsTile struct {
	p            *nbitsGEMV
	panel        *view
	k0, kEnd     value.Value
	first        value.Value
	accs         [][]value.Value
	j0           value.Value
	nv           int
	valid        int64
	panelStrideR int64
}

// nbitsDequant dequantizes the panel of t: row k - k0 (k in the chunk, rounded up to whole
// i32 words of packed weights), vector v holds columns j0 + v·vl + l as (q - zp)·scale.
// Columns beyond N (the last panel) repeat column N - 1; their products are never stored.
func (kb *kernelBuilder) nbitsDequant(t *nbitsTile) error {
	fb, op, p := kb.fb, kb.op, t.p
	vl := p.gemm.vl
	t.panelStrideR = int64(t.nv * vl)
	perByte := 8 / p.bits
	G := 32 / p.bits // weights per i32 word
	kb0 := (p.K + p.block - 1) / p.block
	rowBytes := kb0 * p.block / perByte
	wB, wS := kb.ops[1], kb.ops[2]
	it := types.NewVector(uint64(vl), types.I32)
	vt := types.NewVector(uint64(vl), types.Float)
	mask := int64(1)<<p.bits - 1
	cols := make([][]value.Value, t.nv)
	for v := range cols {
		for l := 0; l < vl; l++ {
			c := fb.add(t.j0, i64(int64(v*vl+l)))
			if int64(v*vl+l) >= t.valid {
				c = i64(p.N - 1)
			}
			cols[v] = append(cols[v], c)
		}
	}
	kPadEnd := fb.cur.NewAnd(fb.add(t.kEnd, i64(G-1)), i64(^(G - 1)))
	bLo := fb.sdivConst(t.k0, p.block)
	bHi := fb.sdivConst(fb.sub(kPadEnd, i64(1)), p.block)
	dims := make([]value.Value, op.NDim())
	for d := range dims {
		dims[d] = i64(0)
	}
	return fb.loop(bLo, bHi, 1, "nbits.dq", func(b value.Value) error {
		kb0v := fb.mul(b, i64(p.block))
		scales := make([]value.Value, t.nv)
		zps := make([]value.Value, t.nv)
		for v := range scales {
			var s value.Value = constant.NewUndef(vt)
			var z value.Value = splat(constant.NewInt(types.I32, 1<<(p.bits-1)), vl)
			if p.zp {
				z = constant.NewUndef(it)
			}
			for l, col := range cols[v] {
				dims[p.lead], dims[p.lead+1] = col, kb0v
				sc := fb.loadElem(wS, fb.offset(wS, fb.indexAt(op.Access[2].Pieces[0].Index, dims)))
				s = fb.cur.NewInsertElement(s, sc, i32c(int64(l)))
				if p.zp {
					zb := fb.cur.NewZExt(fb.loadElem(kb.ops[3], fb.offset(kb.ops[3], fb.indexAt(op.Access[3].Pieces[0].Index, dims))), types.I32)
					zv := value.Value(zb)
					if p.bits == 4 {
						sh := fb.cur.NewTrunc(fb.mul(fb.cur.NewAnd(b, i64(1)), i64(4)), types.I32)
						zv = fb.cur.NewAnd(fb.cur.NewLShr(zb, sh), constant.NewInt(types.I32, 15))
					}
					z = fb.cur.NewInsertElement(z, zv, i32c(int64(l)))
				}
			}
			scales[v], zps[v] = s, z
		}
		kLo := fb.smax(t.k0, kb0v)
		kHi := fb.sub(fb.smin(kPadEnd, fb.add(kb0v, i64(p.block))), i64(G))
		return fb.loop(kLo, kHi, G, "nbits.dqk", func(k value.Value) error {
			row := fb.mul(fb.sub(k, t.k0), i64(t.panelStrideR))
			kByte := fb.sdivConst(k, perByte)
			for v := range cols {
				var x value.Value = constant.NewUndef(it)
				for l, col := range cols[v] {
					ptr := fb.cur.NewBitCast(fb.elemPtr(wB, fb.add(fb.mul(col, i64(rowBytes)), kByte)), types.NewPointer(types.I32))
					ld := fb.cur.NewLoad(types.I32, ptr)
					ld.Align = 1
					x = fb.cur.NewInsertElement(x, ld, i32c(int64(l)))
				}
				for q := int64(0); q < G; q++ {
					var w value.Value = x
					if q > 0 {
						w = fb.cur.NewLShr(w, splat(constant.NewInt(types.I32, q*p.bits), vl))
					}
					if q < G-1 {
						w = fb.cur.NewAnd(w, splat(constant.NewInt(types.I32, mask), vl))
					}
					f := fb.cur.NewFMul(fb.cur.NewSIToFP(fb.cur.NewSub(w, zps[v]), vt), scales[v])
					off := fb.add(row, i64(q*t.panelStrideR+int64(v*vl)))
					ptr := fb.cur.NewBitCast(fb.elemPtr(t.panel, off), types.NewPointer(vt))
					st := fb.cur.NewStore(f, ptr)
					st.Align = 4
				}
			}
			return nil
		})
	})
}

// nbitsTileRows runs R consecutive rows from lev (count, when not nil, of them real: the
// others repeat the last real row and are not stored) over the panel of t: the accumulators
// start at zero in the first chunk and at the result after it, take one fused multiply-add
// per row, vector and k, and are stored whole (the last panel: its valid columns only).
func (kb *kernelBuilder) nbitsTileRows(t *nbitsTile, lev []value.Value, R int, count value.Value) error {
	fb, op, p := kb.fb, kb.op, t.p
	vl := p.gemm.vl
	vt := types.NewVector(uint64(vl), types.Float)
	zero := constant.NewZeroInitializer(vt)
	fmuladd := fb.mc.intrinsic("llvm.fmuladd."+intrinsicSuffix(vt), vt, vt, vt, vt)
	yRow := make([]value.Value, R)
	aRow := make([]value.Value, R)
	rdims := make([][]value.Value, R)
	for r := 0; r < R; r++ {
		dims := make([]value.Value, op.NDim())
		copy(dims, lev)
		if r > 0 {
			off := value.Value(i64(int64(r)))
			if count != nil {
				off = fb.smin(off, fb.sub(count, i64(1)))
			}
			dims[p.lead-1] = fb.add(lev[p.lead-1], off)
		}
		dims[p.lead], dims[p.lead+1] = i64(0), i64(0)
		rdims[r] = dims
		yRow[r] = fb.offset(kb.res, fb.indexAt(op.Out.Pieces[0].Index, dims))
		if !p.copyA {
			aRow[r] = fb.offset(kb.ops[0], fb.indexAt(op.Access[0].Pieces[0].Index, dims))
		}
	}
	// the result's elements of row r, vector v: whole vectors, or the valid lanes
	lanes := func(v int) int64 { return min(int64(vl), t.valid-int64(v*vl)) }
	cOff := func(r, v int) value.Value { return fb.add(yRow[r], fb.add(t.j0, i64(int64(v*vl)))) }
	for r := 0; r < R; r++ {
		for v := 0; v < t.nv; v++ {
			init := value.Value(zero)
			if k, ok := t.first.(*constant.Int); !ok || k.X.Sign() == 0 {
				var c value.Value
				if n := lanes(v); n == int64(vl) {
					c = fb.vecLoad(kb.res, cOff(r, v), vt, 4)
				} else {
					c = zero
					for l := int64(0); l < n; l++ {
						c = fb.cur.NewInsertElement(c, fb.loadElem(kb.res, fb.add(cOff(r, v), i64(l))), i32c(l))
					}
				}
				init = fb.cur.NewSelect(t.first, zero, c)
			}
			fb.cur.NewStore(init, t.accs[r][v])
		}
	}
	kd := p.lead + 1
	err := fb.loopMD(t.k0, fb.sub(t.kEnd, i64(1)), 1, "nbits.tk", p.gemm.rolled, func(k value.Value) error {
		row := fb.mul(fb.sub(k, t.k0), i64(t.panelStrideR))
		bs := make([]value.Value, t.nv)
		for v := range bs {
			bs[v] = fb.vecLoad(t.panel, fb.add(row, i64(int64(v*vl))), vt, 4)
		}
		for r := 0; r < R; r++ {
			var aOff value.Value
			if p.copyA {
				d := append([]value.Value(nil), rdims[r]...)
				d[kd] = k
				aOff = fb.offset(kb.ops[0], fb.indexAt(op.Access[0].Pieces[0].Index, d))
			} else {
				aOff = fb.add(aRow[r], k)
			}
			a := splatValue(fb, fb.loadElem(kb.ops[0], aOff), vl)
			for v := 0; v < t.nv; v++ {
				acc := fb.cur.NewLoad(vt, t.accs[r][v])
				fb.cur.NewStore(fb.cur.NewCall(fmuladd, a, bs[v], acc), t.accs[r][v])
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	for r := 0; r < R; r++ {
		store := func() error {
			for v := 0; v < t.nv; v++ {
				acc := fb.cur.NewLoad(vt, t.accs[r][v])
				if n := lanes(v); n == int64(vl) {
					ptr := fb.cur.NewBitCast(fb.elemPtr(kb.res, cOff(r, v)), types.NewPointer(vt))
					st := fb.cur.NewStore(acc, ptr)
					st.Align = llvm.Align(4)
				} else {
					for l := int64(0); l < n; l++ {
						st := fb.cur.NewStore(fb.cur.NewExtractElement(acc, i32c(l)), fb.elemPtr(kb.res, fb.add(cOff(r, v), i64(l))))
						st.Align = llvm.Align(4)
					}
				}
			}
			return nil
		}
		if count != nil && r > 0 {
			if err := fb.ifThen(fb.cur.NewICmp(enum.IPredSLT, i64(int64(r)), count), "nbits.row", store); err != nil {
				return err
			}
			continue
		}
		if err := store(); err != nil {
			return err
		}
	}
	return nil
}
