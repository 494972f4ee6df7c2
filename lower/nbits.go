// This file emits matmul_nbits (ir/ops_nbits.go, onnxruntime's MatMulNBits) as a kernel for
// weights read once: for every required row of A it streams the packed weights column by
// column (nr columns at a time, sharing A's loads), unpacks each block's bytes in registers
// (4-bit: the low and high nibbles of a vector of bytes, interleaved by one shuffle), subtracts
// the zero point, converts to float, scales by the block's scale and accumulates the products
// with A in vector lanes; the lanes are folded (a fixed tree) once per column. The weights are
// never copied to a float tensor. A decode step (one row) is bound by the read of the packed
// weights: half a byte per weight at 4 bits. On x86 and Arm vectors, 4-bit weights of one row
// (or several below 512-bit vectors) run in nibble lanes instead (nbits_lanes.go): no
// widening, no per-vector zero point.
//
// The kernel applies to the op matmul_nbits builds (its body, MatMulNBitsBody) with constant
// weights, scales and zero points laid out as the builder reads them, and a domain whose rows
// each run over every column and every k (DIE restricts the rows, e.g. to the last token);
// anything else keeps the per-point nest.

package lower

import (
	llvm "github.com/llir/llvm/ir"
	"github.com/llir/llvm/ir/constant"
	"github.com/llir/llvm/ir/enum"
	"github.com/llir/llvm/ir/types"
	"github.com/llir/llvm/ir/value"

	"github.com/graphc/graphc/ir"
	"github.com/graphc/graphc/volume"
)

// nbitsGEMV is the plan of a matmul_nbits kernel.
type nbitsGEMV struct {
	bits, block, K, N int64
	zp                bool
	lead              int        // dims before n and k (the rows)
	copyA             bool       // A's row is not contiguous in k (a transpose fused into its access): copied first
	chunk             int64      // weights per vector step: min(block, 32)
	rows              volume.Set // the domain at n = k = 0: one point per row
	// gemv: the GEMV form applies (K is a whole number of chunks); nib its nibble lanes (0:
	// the widened form; nbits_lanes.go)
	gemv bool
	nib  int64
	// gemm is the blocked-GEMM form (nbits_gemm.go), or nil and why not in gemmWhy
	gemm    *nbitsGEMM
	gemmWhy string
	// q8: the op is matmul_nbits_q8 (A quantized to int8), computed in the integer form
	// (nbits_q8.go): operands qa, sa, then the weights, scales and zero points
	q8 bool
	// scratch is the workspace scratch of the kernel, in bytes: the copies of A's rows of
	// the GEMV form, or the dequantized panel of the GEMM form (never both at once)
	scratch int64
}

func (p *nbitsGEMV) String() string {
	if p.gemm != nil {
		return p.gemm.String()
	}
	if p.q8 {
		return "nbits-gemv int8"
	}
	return "nbits-gemv"
}

// nbitsPlan returns op's matmul_nbits plan for the module (nil: not this kernel), planned
// once per op: the workspace plan needs its scratch before the kernels are emitted.
func (ec *entryCtx) nbitsPlan(op *ir.Op) *nbitsGEMV {
	if p, ok := ec.nbits[op]; ok {
		return p
	}
	p := nbitsOf(op, ec.g.Params)
	if p != nil && !p.finish(ec.mc) {
		p = nil
	}
	ec.nbits[op] = p
	return p
}

// finish chooses p's forms for the module's vectors and sizes its scratch; false when neither
// form applies.
func (p *nbitsGEMV) finish(mc *moduleCtx) bool {
	if p.q8 {
		p.gemv, p.gemmWhy = true, "int8 A (matmul_nbits_q8): the GEMV form"
		p.scratch = int64(p.copyBufs()) * p.copyFloats() * 4
		return true
	}
	p.gemv = p.K%p.chunk == 0
	if p.gemv {
		p.nib = nbitsNibbleLanes(mc, p)
	}
	p.gemm, p.gemmWhy = planNBitsGEMM(mc, p)
	if !p.gemv && p.gemm == nil {
		return false
	}
	if p.gemm != nil {
		p.scratch = p.gemm.panelFloats() * 4
	}
	if p.gemv && (p.gemm == nil || p.gemm.minRows > 0) {
		p.scratch = max(p.scratch, int64(p.copyBufs())*p.copyFloats()*4)
	}
	return true
}

// copyBufs is the number of copies of A's rows the GEMV form keeps: one per row of a group
// (one for a single row: a decode step); 0 when A is read in place.
func (p *nbitsGEMV) copyBufs() int {
	if !p.q8 && !p.copyA && p.bits != 4 && p.nib == 0 {
		return 0
	}
	if p.singleRow() {
		return 1
	}
	return nbitsRows
}

// copyFloats is the size of one copy of a row of A, in floats, rounded up to 64 bytes.
func (p *nbitsGEMV) copyFloats() int64 {
	n := p.K
	if p.q8 {
		n = p.q8CopyFloats()
	}
	if p.nib > 0 {
		n = nbitsCopyFloats(p)
	}
	return (n + 15) &^ 15
}

// nbitsOf returns the plan of op's kernel, or nil when op is not a matmul_nbits this kernel
// computes exactly.
func nbitsOf(op *ir.Op, params []string) *nbitsGEMV {
	if len(op.Operands) > 0 && op.Operands[0].Type.Elem == ir.I8 {
		return nbitsQ8Of(op, params)
	}
	n := op.NDim()
	if op.Reduce != ir.ReduceSum || n < 2 || len(op.Operands) < 3 || len(op.Operands) > 4 || op.Result.Type.Elem != ir.F32 ||
		op.Init != 0 || len(op.Out.Pieces) != 1 {
		return nil
	}
	elems := []ir.DType{ir.F32, ir.U8, ir.F32, ir.U8}
	for k, o := range op.Operands {
		if o.Type.Elem != elems[k] {
			return nil
		}
		if k == 1 && o.Data == nil {
			return nil // the packed weights are a constant: a full region, addressed linearly
		}
	}
	for _, a := range append([]ir.Access{op.Out}, op.Access...) {
		if a.Approx || len(a.Pieces) != 1 || len(a.Pieces[0].Guard) != 0 {
			return nil
		}
	}
	nd, kd := n-2, n-1
	zp := len(op.Operands) == 4
	// K: the extent of the k dim (domainOK checks that every row runs over all of it)
	K := int64(0)
	bounds, err := op.Domain.DimBounds(kd)
	if err != nil {
		return nil
	}
	for _, b := range bounds {
		for _, u := range b.Upper {
			if c, ok := u.IsConst(); ok {
				K = max(K, c+1)
			}
		}
	}
	if K <= 0 {
		return nil
	}
	bShape, ok := op.Operands[1].Type.StaticShape()
	if !ok || len(bShape) == 0 {
		return nil
	}
	N := bShape[0]
	body := op.Body.String()
	for _, bits := range []int64{4, 8} {
		for block := int64(16); block <= 1<<16; block *= 2 {
			if body != ir.MatMulNBitsBody(bits, block, kd, zp).String() {
				continue
			}
			p := &nbitsGEMV{bits: bits, block: block, K: K, N: N, zp: zp, lead: nd, chunk: min(block, 32)}
			if p.layoutOK(op) && p.domainOK(op, params) {
				return p
			}
		}
	}
	return nil
}

// uses reports whether a depends on dim d.
func uses(a volume.Aff, d int) bool {
	if d < len(a.Dims) && a.Dims[d] != 0 {
		return true
	}
	for _, f := range a.Floors {
		if uses(f.Num, d) {
			return true
		}
	}
	return false
}

// linear returns the row-major element offset of an access into a tensor of static shape.
func linear(idx []volume.Aff, shape []int64) volume.Aff {
	var off volume.Aff
	stride := int64(1)
	for d := len(shape) - 1; d >= 0; d-- {
		off = off.Add(idx[d].Mul(stride))
		stride *= shape[d]
	}
	return off
}

// layoutOK checks the accesses: A's row at k, the result's row at n, and the packed weights,
// scales and zero points where the builder puts them (whatever their shapes after reshapes
// were folded into the accesses).
func (p *nbitsGEMV) layoutOK(op *ir.Op) bool {
	nd, kd := p.lead, p.lead+1
	n, k := volume.AffDim(nd), volume.AffDim(kd)
	row := func(idx []volume.Aff, last volume.Aff) bool {
		if len(idx) == 0 || !idx[len(idx)-1].Equal(last) {
			return false
		}
		for _, x := range idx[:len(idx)-1] {
			if uses(x, nd) || uses(x, kd) {
				return false
			}
		}
		return true
	}
	if !row(op.Out.Pieces[0].Index, n) {
		return false
	}
	for _, x := range op.Access[0].Pieces[0].Index {
		if uses(x, nd) {
			return false
		}
	}
	// a row of A that is not contiguous in k (the heads of an attention output, transposed and
	// merged by a fused reshape) is gathered into a contiguous copy per row
	p.copyA = !row(op.Access[0].Pieces[0].Index, k)
	kb := (p.K + p.block - 1) / p.block
	perByte := 8 / p.bits
	want := []volume.Aff{
		n.Mul(kb * p.block / perByte).Add(k.FloorDiv(perByte)),
		n.Mul(kb).Add(k.FloorDiv(p.block)),
	}
	if p.zp {
		want = append(want, n.Mul((kb+perByte-1)/perByte).Add(k.FloorDiv(p.block*perByte)))
	}
	w0 := 1 // the packed weights' operand
	if p.q8 {
		w0 = 2
	}
	for i, w := range want {
		o := op.Operands[w0+i]
		shape, _ := o.Type.StaticShape()
		if !linear(op.Access[w0+i].Pieces[0].Index, shape).Equal(w) {
			return false
		}
	}
	return true
}

// domainOK checks that the domain is its rows times every column and k, and keeps the rows.
func (p *nbitsGEMV) domainOK(op *ir.Op, params []string) bool {
	nd, kd := p.lead, p.lead+1
	dims := op.Domain.DimNames()
	fix := volume.SetFromConstraints(params, op.Domain.TupleName(), dims, []volume.Constraint{
		volume.EQ(volume.AffDim(nd), volume.AffConst(0)), volume.EQ(volume.AffDim(kd), volume.AffConst(0))})
	rows := op.Domain.Intersect(fix)
	exprs := make([]volume.Aff, len(dims))
	for d := range exprs {
		exprs[d] = volume.AffDim(d)
	}
	exprs[nd], exprs[kd] = volume.AffConst(0), volume.AffConst(0)
	toRow := volume.MultiAff{Params: params, InName: op.Domain.TupleName(), InDims: dims, OutName: op.Domain.TupleName(), Exprs: exprs}.Map()
	box := volume.SetFromConstraints(params, op.Domain.TupleName(), dims, []volume.Constraint{
		volume.GE(volume.AffDim(nd), volume.AffConst(0)), volume.LT(volume.AffDim(nd), volume.AffConst(p.N)),
		volume.GE(volume.AffDim(kd), volume.AffConst(0)), volume.LT(volume.AffDim(kd), volume.AffConst(p.K))})
	ok := rows.Preimage(toRow).Intersect(box).IsEqual(op.Domain).Or(false) // unknown: not this kernel (another family plans the op)
	if ok {
		p.rows = rows
	}
	return ok
}

// nbitsColumns is the number of columns a step computes (sharing A's loads).
const nbitsColumns = 4

// emitNBits emits the kernel over the rows of p.rows: the GEMM form (nbits_gemm.go) or the
// GEMV form, or both with a count of the rows choosing one at run time.
func (kb *kernelBuilder) emitNBits(p *nbitsGEMV) error {
	fb := kb.fb
	if fb.mc.vecBytes >= 64 && fb.mc.spec.VectorFromCPU {
		fb.wideVectors()
	}
	// the rows: the domain's lead dims (n and k projected out)
	ast, err := p.rows.ProjectOut(p.lead, 2).Scan() // volume giving up comes back from Scan
	if err != nil {
		return err
	}
	switch {
	case p.q8:
		return kb.emitNBitsQ8(p, ast)
	case p.gemm == nil:
		return kb.emitNBitsGEMV(p, ast)
	case p.gemm.minRows == 0:
		return kb.emitNBitsGEMM(p, ast)
	}
	count := kb.entryAlloca(types.I64)
	fb.cur.NewStore(i64(0), count)
	e := &astEmitter{fb: fb, lev: make([]value.Value, p.lead)}
	e.leaf = func([]value.Value) error {
		fb.cur.NewStore(fb.add(fb.cur.NewLoad(types.I64, count), i64(1)), count)
		return nil
	}
	if err := e.emit(ast); err != nil {
		return err
	}
	many := fb.cur.NewICmp(enum.IPredSGE, fb.cur.NewLoad(types.I64, count), i64(p.gemm.minRows))
	if err := fb.ifThen(many, "nbits.gemm", func() error { return kb.emitNBitsGEMM(p, ast) }); err != nil {
		return err
	}
	few := fb.cur.NewICmp(enum.IPredSLT, fb.cur.NewLoad(types.I64, count), i64(p.gemm.minRows))
	return fb.ifThen(few, "nbits.gemv", func() error { return kb.emitNBitsGEMV(p, ast) })
}

// emitNBitsGEMV emits the GEMV form: for each row, A's row is copied into the scratch (4-bit:
// each chunk's even elements, then its odd ones, the order of the weights' low and high
// nibbles, or nibble lanes; or when it is not contiguous), then the columns run in steps of
// nbitsColumns (then one by one), each a loop over the blocks. Consecutive rows of the
// innermost lead dim run in groups of nbitsRows sharing each unpacked block of weights.
func (kb *kernelBuilder) emitNBitsGEMV(p *nbitsGEMV, ast volume.Node) error {
	fb := kb.fb
	op := kb.op
	lanes := p.chunk
	if p.bits == 4 {
		lanes = p.chunk / 2 // a chunk's low nibbles and its high nibbles, each a vector
	}
	nib := p.nib
	if nib > 0 {
		lanes = nib
	}
	vt := types.NewVector(uint64(lanes), types.Float)
	// per column: the sum of the blocks' scaled sums, and the block's sum, lo and hi halves
	accs := make([][2]value.Value, max(nbitsColumns, nbitsNibbleColumns))
	for c := range accs {
		for h := range accs[c] {
			accs[c][h] = kb.entryAlloca(vt)
		}
	}
	blocks := make([][2]value.Value, nbitsColumns)
	for c := range blocks {
		for h := range blocks[c] {
			blocks[c][h] = kb.entryAlloca(vt)
		}
	}
	// A's row copies: in the workspace scratch (a row of K = 11008 floats is 43 KiB)
	var bufs []*view
	if n := p.copyBufs(); n > 0 {
		base := fb.cur.NewBitCast(kb.scratch, types.NewPointer(types.Float))
		for r := 0; r < n; r++ {
			ptr := fb.cur.NewGetElementPtr(types.Float, base, i64(int64(r)*p.copyFloats()))
			bufs = append(bufs, &view{v: op.Operands[0], ptr: ptr, lo: []value.Value{i64(0)}, ext: []value.Value{i64(p.copyFloats())}, strides: []value.Value{i64(1)}})
		}
	}
	copyA := len(bufs) > 0
	// a split kernel's regions are begun per group (parallel_tiles.go)
	counter := kb.nbitsCounter()
	group := func(lev []value.Value, nrows int) error {
		pos := kb.nextGroup(counter)
		var rows []nbitsRow
		for r := 0; r < nrows; r++ {
			dims := make([]value.Value, op.NDim())
			copy(dims, lev)
			if r > 0 {
				dims[p.lead-1] = fb.add(lev[p.lead-1], i64(int64(r)))
			}
			nd, kd := p.lead, p.lead+1
			dims[nd], dims[kd] = i64(0), i64(0)
			row := nbitsRow{dims: dims, yRow: fb.offset(kb.res, fb.indexAt(op.Out.Pieces[0].Index, dims)), wA: kb.ops[0]}
			if nib > 0 {
				if err := kb.wholeOnly("nbits.copy", func() error { return kb.nbitsCopyNibbles(p, nib, row.wA, bufs[r], dims) }); err != nil {
					return err
				}
				row.wA, row.aRow = bufs[r], i64(0)
			} else if copyA {
				if err := kb.wholeOnly("nbits.copy", func() error { return kb.nbitsCopyRow(p, row.wA, bufs[r], dims) }); err != nil {
					return err
				}
				row.wA, row.aRow = bufs[r], i64(0)
			} else {
				row.aRow = fb.offset(row.wA, fb.indexAt(op.Access[0].Pieces[0].Index, dims))
			}
			rows = append(rows, row)
		}
		nr := nbitsColumns / nrows
		if nib > 0 {
			nr = nbitsNibbleStep(fb.mc, nrows)
		}
		step := func(nr int) func(n value.Value) error {
			if nib > 0 {
				flat := make([]value.Value, len(accs))
				for i := range accs {
					flat[i] = accs[i][0]
				}
				return func(n value.Value) error { return kb.nbitsNibbleColumns(p, nib, rows, nr, n, flat) }
			}
			return func(n value.Value) error { return kb.nbitsColumns(p, rows, nr, n, accs, blocks) }
		}
		return kb.nbitsColumnLoops(p.N, int64(nr), pos, step)
	}
	e := &astEmitter{fb: fb, lev: make([]value.Value, p.lead)}
	e.leaf = func(lev []value.Value) error { return group(lev, 1) }
	if p.lead > 0 {
		e.vl = nbitsRows
		e.vecLeaf = func(lev []value.Value) error { return group(lev, nbitsRows) }
	}
	return e.emit(ast)
}

// nbitsRows is the number of consecutive rows that share each unpacked block of weights
// (a prefill's tokens).
const nbitsRows = 4

// nbitsRow is one row of A as nbitsColumns reads it: the view and offset of its (copied)
// elements, the offset of its result row, and its iteration point at n = k = 0.
type nbitsRow struct {
	wA         *view
	aRow, yRow value.Value
	dims       []value.Value
}

// nbitsCopyRow copies A's row at dims into buf: for 4-bit weights each chunk's even elements,
// then its odd ones (the order of the weights' low and high nibbles).
func (kb *kernelBuilder) nbitsCopyRow(p *nbitsGEMV, wA, buf *view, dims []value.Value) error {
	fb := kb.fb
	op := kb.op
	kd := p.lead + 1
	half := p.chunk / 2
	return fb.loop(i64(0), i64(p.K-1), 1, "nbits.copya", func(k value.Value) error {
		at := append([]value.Value(nil), dims...)
		at[kd] = k
		v := fb.loadElem(wA, fb.offset(wA, fb.indexAt(op.Access[0].Pieces[0].Index, at)))
		dst := k
		if p.bits == 4 {
			// k = chunk·c + 2j + odd goes to chunk·c + half·odd + j
			c := fb.mul(fb.sdivConst(k, p.chunk), i64(p.chunk))
			in := fb.sub(k, c)
			odd := fb.cur.NewAnd(in, i64(1))
			dst = fb.add(fb.add(c, fb.mul(odd, i64(half))), fb.sdivConst(in, 2))
		}
		st := fb.cur.NewStore(v, fb.elemPtr(buf, dst))
		st.Align = llvm.Align(4)
		return nil
	})
}

// nbitsColumns emits columns n .. n+nr-1 of one row: y[yRow + n + c] = Σ_blocks scale ·
// Σ_k a[k] · (q - zp), the inner sums in the lanes of one (8-bit) or two (4-bit: low and
// high nibbles against A's even and odd elements) vectors per column.
func (kb *kernelBuilder) nbitsColumns(p *nbitsGEMV, rows []nbitsRow, nr int, n value.Value, accs, blocks [][2]value.Value) error {
	dims := append([]value.Value(nil), rows[0].dims...)
	fb := kb.fb
	halves := 1
	lanes := int(p.chunk)
	if p.bits == 4 {
		halves, lanes = 2, int(p.chunk/2)
	}
	vt := types.NewVector(uint64(lanes), types.Float)
	it := types.NewVector(uint64(lanes), types.I32)
	perByte := 8 / p.bits
	kb0 := (p.K + p.block - 1) / p.block
	rowBytes := kb0 * p.block / perByte
	wB, wS := kb.ops[1], kb.ops[2]
	zero := constant.NewZeroInitializer(vt)
	fmuladd := fb.mc.intrinsic("llvm.fmuladd."+intrinsicSuffix(vt), vt, vt, vt, vt)
	nc := len(rows) * nr // accumulators: row r, column c at r·nr + c
	for c := 0; c < nc; c++ {
		for h := 0; h < halves; h++ {
			fb.cur.NewStore(zero, accs[c][h])
		}
	}
	cols := make([]value.Value, nr)
	for c := range cols {
		cols[c] = fb.add(n, i64(int64(c)))
	}
	op := kb.op
	err := fb.loop(i64(0), i64(kb0-1), 1, "nbits.block", func(b value.Value) error {
		// per column: the block's scale and zero point, read through their views at the
		// block's first k
		scales := make([]value.Value, nr)
		zps := make([]value.Value, nr)
		for c, col := range cols {
			dims[p.lead], dims[p.lead+1] = col, fb.mul(b, i64(p.block))
			s := fb.loadElem(wS, fb.offset(wS, fb.indexAt(op.Access[2].Pieces[0].Index, dims)))
			scales[c] = splatValue(fb, s, lanes)
			var z value.Value = constant.NewInt(types.I32, 1<<(p.bits-1))
			if p.zp {
				zbyte := fb.loadElem(kb.ops[3], fb.offset(kb.ops[3], fb.indexAt(op.Access[3].Pieces[0].Index, dims)))
				z32 := fb.cur.NewZExt(zbyte, types.I32)
				if p.bits == 4 {
					sh := fb.cur.NewTrunc(fb.mul(fb.cur.NewAnd(b, i64(1)), i64(4)), types.I32)
					z = fb.cur.NewAnd(fb.cur.NewLShr(z32, sh), constant.NewInt(types.I32, 15))
				} else {
					z = z32
				}
			}
			zps[c] = splatValue(fb, z, lanes)
		}
		for c := 0; c < nc; c++ {
			for h := 0; h < halves; h++ {
				fb.cur.NewStore(zero, blocks[c][h])
			}
		}
		for part := int64(0); part < p.block/p.chunk; part++ {
			k0 := fb.add(fb.mul(b, i64(p.block)), i64(part*p.chunk))
			body := func() error {
				av := make([][]value.Value, len(rows))
				for r, row := range rows {
					av[r] = make([]value.Value, halves)
					for h := range av[r] {
						av[r][h] = fb.vecLoad(row.wA, fb.add(row.aRow, fb.add(k0, i64(int64(h*lanes)))), vt, 4)
					}
				}
				for c, col := range cols {
					off := fb.add(fb.mul(col, i64(rowBytes)), fb.sdivConst(k0, perByte))
					raw := fb.vecLoad(wB, off, types.NewVector(uint64(lanes), types.I8), 1)
					wide := fb.cur.NewZExt(raw, it)
					qs := []value.Value{wide}
					if p.bits == 4 {
						qs = []value.Value{fb.cur.NewAnd(wide, splat(constant.NewInt(types.I32, 15), lanes)), fb.cur.NewLShr(wide, splat(constant.NewInt(types.I32, 4), lanes))}
					}
					for h, q := range qs {
						w := fb.cur.NewSIToFP(fb.cur.NewSub(q, zps[c]), vt)
						for r := range rows {
							slot := blocks[r*nr+c][h]
							acc := fb.cur.NewLoad(vt, slot)
							fb.cur.NewStore(fb.cur.NewCall(fmuladd, w, av[r][h], acc), slot)
						}
					}
				}
				return nil
			}
			if (p.K%p.block) != 0 && part > 0 {
				// the last block is padded: its chunks beyond K are not computed
				if err := fb.ifThen(fb.cur.NewICmp(enum.IPredSLT, k0, i64(p.K)), "nbits.k", body); err != nil {
					return err
				}
				continue
			}
			if err := body(); err != nil {
				return err
			}
		}
		// the block's sums, scaled
		for i := 0; i < nc; i++ {
			for h := 0; h < halves; h++ {
				bs := fb.cur.NewLoad(vt, blocks[i][h])
				acc := fb.cur.NewLoad(vt, accs[i][h])
				fb.cur.NewStore(fb.cur.NewCall(fmuladd, bs, scales[i%nr], acc), accs[i][h])
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	for i := 0; i < nc; i++ {
		row, col := rows[i/nr], cols[i%nr]
		acc := value.Value(fb.cur.NewLoad(vt, accs[i][0]))
		if halves == 2 {
			acc = fb.cur.NewFAdd(acc, fb.cur.NewLoad(vt, accs[i][1]))
		}
		total := hsumFloat(fb, acc)
		st := fb.cur.NewStore(total, fb.elemPtr(kb.res, fb.add(row.yRow, col)))
		st.Align = llvm.Align(4)
	}
	return nil
}

// splatValue returns a vector of vl copies of the scalar x.
func splatValue(fb *funcBuilder, x value.Value, vl int) value.Value {
	vt := types.NewVector(uint64(vl), x.Type())
	ins := fb.cur.NewInsertElement(constant.NewUndef(vt), x, i32c(0))
	return fb.cur.NewShuffleVector(ins, constant.NewUndef(vt), splat(i32c(0), vl).(constant.Constant))
}

// vecLoad loads a vector of type vt at element offset off of w, claiming alignment align.
func (fb *funcBuilder) vecLoad(w *view, off value.Value, vt *types.VectorType, align int) value.Value {
	ptr := fb.cur.NewBitCast(fb.elemPtr(w, off), types.NewPointer(vt))
	ld := fb.cur.NewLoad(vt, ptr)
	ld.Align = llvm.Align(align)
	return ld
}

// sdivConst returns x / d for x >= 0 and a power of two d.
func (fb *funcBuilder) sdivConst(x value.Value, d int64) value.Value {
	if d == 1 {
		return x
	}
	sh := int64(0)
	for 1<<sh < d {
		sh++
	}
	return fb.cur.NewLShr(x, i64(sh))
}
