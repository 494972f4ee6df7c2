// This file plans the register-tile strategy of contractions: ops that sum a vectorizable body
// over trailing reduction dims (matmul, batched matmul, einsum contractions, unpadded
// convolutions), whose result's last dim j is unit-stride. The result is cut into tiles of mr
// rows (an output dim i) by nr columns of j; each tile's mr×nr accumulators live in vector
// registers for the whole reduction, as in BLIS and the classic 6×16·k micro-kernels, and the
// reduction is cut into chunks of kc so that the operands' panels stay in the L1 cache. The
// operand read as vectors along j (B in A·B) is copied into a contiguous panel per chunk and
// column of tiles when its rows, read in place, would evict each other from L1.
//
// DIE-restricted domains keep the strategy. The tiles are classified exactly with volume
// operations over the tile grid: a full tile (every point live) runs the micro-kernel and stores
// its registers; a partial tile runs the same micro-kernel (its dead points read operand
// elements inside the operands' buffers: the tile lies in the box of the live volume, which
// the constructor's domain contains) and stores only its live points, scanned from the live
// volume with the tile origin as parameters; tiles without a live point are never visited.
// The triangle j >= i of MatMul+Trilu thus runs full tiles above the diagonal, partial tiles on
// it and nothing below.

package lower

import (
	"fmt"
	"math"
	"slices"

	"github.com/llir/llvm/ir/value"

	"github.com/graphc/graphc/ir"
	"github.com/graphc/graphc/volume"
)

// Register tile shapes are mr rows by nv vectors, the target's data (register-tile-shapes,
// Target.TileShapeFor): 6×2 keeps 12 accumulators, two vector operands and a broadcast in the
// 16 registers of SSE and AVX2; 8×3 keeps 24 accumulators, 3 vector operands and broadcasts in
// the 32 of AVX-512 (measured on 512³: 8×3 161 GFLOP/s, 14×2 160, 12×2 156, 4×4 143, 6×2 131)
// and of NEON.
const (
	// tileKC is the reduction chunk: a kc×nr panel of f32 (48 KiB with 16-lane vectors)
	// stays in the L1 or L2 cache beside the mr×kc panel of the other operand.
	tileKC = 256
	// tileKCLong is the chunk when its kc×nr panel fits tilePanelL1 (6×16 f32 tiles of AVX2,
	// SSE tiles): fewer passes over the result (512³ on AVX2: 2.93 ms against 3.03 with 256).
	tileKCLong  = 512
	tilePanelL1 = 32 << 10
	// tilePackBytes bounds a packed panel (kc×nr elements for each reduction point of a
	// chunk; see contraction.packs): larger panels are read in place.
	tilePackBytes = 64 << 10
	// tilePackMinReuse is the smallest number of row tiles that read one packed panel: the
	// copy costs about as much as one tile's reads of the operand.
	tilePackMinReuse = 4
	// tileKCStream is the chunk of contractions with fewer than tilePackMinReuse rows of
	// tiles whose other operand (all its reduction rows by the result's columns) is larger
	// than tileStreamBytes: it streams from memory (see plan).
	tileKCStream     = 16
	tileKCStreamTall = 64
	// tileStreamPrefetchRows is the smallest tile height whose streamed kernels prefetch
	tileStreamPrefetchRows = 4
	// tileStreamBytes: half the 1 MiB L2 of Zen 4 (and more than the 256-512 KiB of older
	// cores), so that an operand that competes with everything else for L2 streams: an LSTM
	// step's 256×1024 recurrent weight (exactly 1 MiB) read a tile's width at a time took
	// 19 µs per step, streamed 8 µs (lstm_lm_last 3.25 -> 1.89 ms; issue 32)
	tileStreamBytes = 1 << 19
	// tileMinLive is the smallest fraction of live points in the visited tiles for which
	// register tiles are used: sparser volumes (diagonals) keep the per-point nest.
	tileMinLive = 0.5
)

// Parameter names bound at run time inside register-tile kernels.
const (
	tileParamKC = "graphc_kc"
	tileParamI0 = "graphc_ti0"
	tileParamJ0 = "graphc_tj0"
)

func tileParamO(k int) string { return fmt.Sprintf("graphc_to%d", k) }

// tileGroup is a run of columns of a tile held in one register: lanes columns from offset off
// (lanes 1: a scalar), kept at column slot of the panels filled at run time. The slots of a
// tile's groups follow each other; they are the offsets but where the last vector overlaps
// the one before it (overlapColumns): a panel slot apart, its store never overlaps part of
// the load of another group, which would defeat store-to-load forwarding (ShuffleNet's
// stride-2 convolutions ran at half speed).
type tileGroup struct{ off, lanes, slot int }

// tileClass is a tile shape with the scans of its full and partial tiles.
type tileClass struct {
	rows   int
	cols   int
	groups []tileGroup
	// full and part scan the tiles of this shape over (o..., tj, ti); live scans the live
	// points (di, dj) of a partial tile whose origin is bound to the tile parameters.
	full, part, live volume.Node
	// grouped: the tiles are scanned by a colGroup, not by full
	grouped bool
}

// colGroup scans the tiles of classes of one width but different heights (the whole rows of
// tiles and the remainder) together, column by column, so that a column's packed panel is
// copied once for all of them: scanned class by class, the remainder's tiles copied every
// panel again (1 + 197/8 rows of tiles re-read a ViT MLP's 9 MB of weights once more). A
// tile at row index ti is of the first class whose rows constraints (on dim 0, ti) hold.
type colGroup struct {
	scan    volume.Node
	classes []*tileClass
	rows    [][]volume.Constraint
}

// contraction is the plan of a register-tile kernel.
type contraction struct {
	// gaveUp: a volume test of plan could not decide (the plan then does not apply)
	gaveUp   error
	nOut, nR int
	oDims    []int // result dims other than i and j, in order
	i, j     int
	vl       int // lanes of a full vector
	mr, nv   int // tile rows and vectors per row
	// rolled: the tile takes all the vector registers, so that the loops of a reduction
	// nest carry llvm.loop.unroll.disable (loopmd.go)
	rolled bool
	// alternatives are the tile shapes a rolled tile may take instead over a known number
	// of rows (TileShape.Alternatives)
	alternatives [][2]int
	fma          bool
	// ilo and jlo are the first row and column of the tile grid, rlo and rhi the range of
	// the first reduction dim: expressions of the symbolic dims (constants without them)
	ilo, jlo volume.Aff
	classes  []*tileClass
	// op is the op the tiles run: the original or its interior (reads guarded by pads
	// defined everywhere); border, when not nil, is the rest, run by the per-point nest
	op, border *ir.Op
	// orderedBorder: the border combines every element's terms in the evaluator's order
	// (a symbolic number of columns leaves whole elements to it, as the tiles do)
	orderedBorder bool
	// the reduction, in parts scanned in order (one chunk of kc values of the first reduction
	// dim, from parameter graphc_kc, when kc > 0)
	kc       int64
	rlo, rhi volume.Aff
	rparts   []reductionPart
	// fromInit: the result box is not initialised; accumulators start at the init value
	// (in the first reduction chunk) instead of loading the result
	fromInit bool
	// packs are the reads copied into contiguous panels: those loaded as vectors along j
	// that vary with the reduction but not with i (B in A·B). Read in place, the rows of such
	// a panel lie an operand row apart, which maps a 512-wide f32 operand's kc rows to two
	// sets of the L1 cache, so the panel is reloaded from L2 by every tile of a column
	// (512³: 3.4 ms in place, 2.9 ms packed). A tile copies the panel of its (kc chunk,
	// o..., tj, column count) when it differs from the last one copied; the scan's ti
	// innermost order makes that once per column of tiles. The panel holds nr columns at
	// every point of the chunk's reduction box, at slot Σ (r[d]-base[d])·pstride[d] (base:
	// the chunk start for the first reduction dim, rlo for the others).
	packs     []int
	pstride   []int64
	rlos      []volume.Aff
	packElems int64 // reduction slots of a panel
	// chunkPanelBytes bounds a chunk's panel over every reduction dim
	// (TileShape.ChunkPanelBytes; 0: no bound)
	chunkPanelBytes int64
	// panelRowTiles is the number of row tiles that read each packed panel (-1: symbolic,
	// taken as many): the micro-kernels prefetch the next column's panel only when the
	// target bounds it no lower (TileShape.PanelPrefetchMaxRowTiles)
	panelRowTiles int64
	// strided are the reads strided along j: always packed (gathered lane by lane)
	strided []int
	// stream: the reduction runs in short chunks over an operand read in place from memory
	stream bool
	// blocks: a read is uniform along aligned blocks of j (grouped convolutions): the tile
	// keeps the shape chosen for its block width
	blocks bool
	// rowDependent: the tiles' reduction set depends on their first row (no epilogue: a
	// tile's reduction may end before the last chunk)
	rowDependent bool
	// colOuter: the tiles are visited column by column, (tj, o..., ti), rather than
	// (o..., tj, ti), so that a column's panel of the vector operand (a convolution's weights)
	// is reused by every output row before the next column's is read (see planOrder)
	colOuter bool
	// packO are the o dims the packed reads depend on (the panel key's)
	packO []bool
	// groups are the colGroups of dense domains
	groups []*colGroup
	// rowsSym: the number of rows, rowsExt, is an expression of the symbolic dims;
	// streamable: the other operand is larger than tileStreamBytes, so that a few rows of
	// tiles would stream it; smallRows > 0: plan for at most that many rows. small are such
	// plans, in increasing smallRows, the first of which that holds rowsExt runs (else c).
	rowsSym, streamable bool
	smallRows           int64
	rowsExt             volume.Aff
	small               []*contraction
}

// reductionPart is a part of the reduction set with the body that holds on it.
type reductionPart struct {
	scan volume.Node
	body *ir.Scalar
	fma  bool // body is a product of values of the result type: accumulate with fmuladd
}

func (c *contraction) String() string {
	s := fmt.Sprintf("register-tiles %dx%d i=%d j=%d kc=%d classes=%d parts=%d", c.mr, c.nv*c.vl, c.i, c.j, c.kc, len(c.classes), len(c.rparts))
	if c.border != nil {
		s += " +border"
	}
	if len(c.packs) > 0 {
		s += fmt.Sprintf(" packed=%v", c.packs)
	}
	if c.colOuter {
		s += " col-outer"
	}
	for _, v := range c.small {
		s += fmt.Sprintf(" +rows<=%d(kc=%d)", v.smallRows, v.kc)
	}
	return s
}

// planContraction returns the register-tile plan of op for vectors of vecBytes and tiles of mr
// rows by nv vectors (rolled: TileShape.Rolled), or nil when op is not a contraction the
// strategy handles (the reason is returned for dumps and tests).
func planContraction(op *ir.Op, graphParams []string, vecBytes int, shape TileShape) (c *contraction, why string) {
	mr, nv, rolled := shape.Rows, shape.Vectors, shape.Rolled
	if vecBytes <= 0 {
		return nil, "no register vectors"
	}
	if op.Reduce != ir.ReduceSum {
		return nil, "not a sum"
	}
	elem := op.Result.Type.Elem
	if elem != ir.F32 && elem != ir.F64 {
		return nil, "not a float result"
	}
	if len(op.Out.Pieces) != 1 || len(op.Out.Pieces[0].Guard) > 0 {
		return nil, "guarded result"
	}
	out := op.Out.Pieces[0].Index
	nOut := len(out)
	n := op.NDim()
	if nOut < 2 || nOut >= n {
		return nil, "no row dim or no reduction"
	}
	for d, a := range out {
		if !isDim(a, d) {
			return nil, "result index is not the leading dims"
		}
	}
	j := nOut - 1
	// reads: one piece, unit-stride or invariant along j, or invariant along aligned blocks
	// of j (the input of a grouped convolution, read at floor(m/Mg)): the vectors are then no
	// wider than the blocks; guarded pieces are split off or peeled below. A read strided
	// along j otherwise (Kᵀ in Q·Kᵀ, the transpose folded into the access) is copied into the
	// panels, which hold it unit-stride: it must be unguarded, of the result's type and
	// invariant along i (checked once i is chosen).
	vl := vecBytes / elem.Size()
	var strided []int
	blocks := false
	for k, acc := range op.Access {
		if !op.Body.Reads(k) {
			continue
		}
		if hasDynRead(op.Body, k) || len(acc.Pieces) != 1 {
			return nil, "a read has pieces"
		}
		if accessStride(acc.Pieces[0].Index, j) == strideOther {
			if b := volume.BlockDen(acc.Pieces[0].Index, j); b > 0 {
				for b%int64(vl) != 0 {
					vl /= 2
				}
				blocks = true
				continue
			}
			// a guard along the tile dims (the pads of a strided convolution's input,
			// read at 2j + r - 1) is split off with the border before the panels are
			// planned, which checks that none is left (plan)
			if op.Operands[k].Type.Elem != elem || (len(acc.Pieces[0].Guard) > 0 || readsAvail(op.Body, k)) && !guardUses(acc.Pieces[0].Guard, j) {
				return nil, "a read is neither unit-stride along j nor packable"
			}
			strided = append(strided, k)
		}
	}
	ok := true
	op.Body.Walk(func(s *ir.Scalar) {
		if !(vectorizable(s) || s.Op == ir.SAvail) || (s.Type.IsFloat() && s.Type != elem) {
			ok = false
		}
	})
	if !ok {
		return nil, "body has no vector lowering"
	}
	// i: the result dim that most vector reads are invariant in (they are then loaded once
	// for all rows); on ties one with rows for a whole tile, then one whose rows lie close
	// together in the other reads (rowsCompact: a 3×3 convolution over a batch of 100
	// regions of 14×14, [n, 14, 14, 256], tiles the output column w, whose rows are 1 KiB
	// apart in the input, not the regions, 256 KiB apart: 68 against 21 GFLOP/s on Zen 3),
	// then the longest (a [197, 1, 2304] result has its rows in dim 0, not in the unit
	// batch dim), then the innermost
	i, best := -1, -1
	var bestExt int64
	bestLong, bestCompact := false, false
	for d := 0; d < j; d++ {
		s := 0
		for k, acc := range op.Access {
			if op.Body.Reads(k) && (accessStride(acc.Pieces[0].Index, j) == strideUnit || slices.Contains(strided, k)) && accessStride(acc.Pieces[0].Index, d) == strideInvariant {
				s++
			}
		}
		ext, ok := op.Result.Type.Shape[d].IsConst()
		if !ok {
			ext = math.MaxInt64 // a symbolic extent (T tokens) counts as the longest
		}
		long, compact := ext >= int64(mr), rowsCompact(op, d, mr)
		better := s > best
		if s == best {
			switch {
			case long != bestLong:
				better = long
			case compact != bestCompact:
				better = compact
			default:
				better = ext >= bestExt
			}
		}
		if better {
			i, best, bestExt, bestLong, bestCompact = d, s, ext, long, compact
		}
	}
	for _, k := range strided {
		if accessStride(op.Access[k].Pieces[0].Index, i) != strideInvariant {
			return nil, "a read strided along j varies along i"
		}
	}
	c = &contraction{nOut: nOut, nR: n - nOut, i: i, j: j, vl: vl, mr: mr, nv: nv, strided: strided, blocks: blocks}
	// a tile that takes all the registers (TileShape.Rolled: SSE's and AVX2's 6×2) keeps
	// its reduction nests rolled, or LLVM's unrolling spills accumulators (see loopmd.go)
	c.rolled = rolled
	c.alternatives = shape.Alternatives
	c.chunkPanelBytes = int64(shape.ChunkPanelBytes)
	if c.vl < 2 {
		return nil, "vectors narrower than two lanes"
	}
	for d := 0; d < j; d++ {
		if d != i {
			c.oDims = append(c.oDims, d)
		}
	}
	fresh := *c
	why, err := c.plan(op)
	if verr := c.planErr(); verr != nil {
		return nil, verr.Error()
	}
	if err != nil {
		return nil, err.Error()
	}
	if why != "" {
		return nil, why
	}
	if c.rowsSym && c.streamable {
		// a symbolic number of rows that may be one to three rows of tiles (T = 1 at
		// decoding): plans for at most mr and 3·mr rows stream the other operand (see plan),
		// chosen at run time (1×256·256×16384 with AVX-512: 1.93 ms packed, 0.36 streamed)
		for _, rows := range []int64{int64(c.mr), int64(c.mr) * (tilePackMinReuse - 1)} {
			s := fresh
			s.smallRows = rows
			if why, err := s.plan(op); s.planErr() == nil && err == nil && why == "" && s.stream {
				c.small = append(c.small, &s)
			}
		}
	}
	return c, ""
}

// rowsCompactBytes is how far apart, at most, the first and the last row of a tile may lie in
// every read that varies along the row dim for the rows to count as close together: below an
// L1 data cache (32 KiB on the x86-64 CPUs of the tile shapes), so that a tile's rows cannot
// all fall in one cache set, as rows a multiple of 4 KiB apart do.
const rowsCompactBytes = 32 << 10

// rowsCompact reports whether mr consecutive values of result dim d lie within
// rowsCompactBytes of each other in every read of op that varies along d (in the row-major
// layout of the operand's shape; a symbolic extent counts as far).
func rowsCompact(op *ir.Op, d, mr int) bool {
	for k, acc := range op.Access {
		if !op.Body.Reads(k) || len(acc.Pieces) != 1 {
			continue
		}
		shape := op.Operands[k].Type.Shape
		index := acc.Pieces[0].Index
		if len(index) != len(shape) {
			return false
		}
		// strides in elements, saturated at far (beyond the bound whatever the element size)
		const far = rowsCompactBytes + 1
		var stride, span int64 = 1, 0
		for a := len(index) - 1; a >= 0; a-- {
			c := abs64(coefOf(index[a], d))
			if floorsUse(index[a], d) {
				c = max(c, 1) // floor(d / den) moves at most one step per row
			}
			span = min(span+min(c, far)*stride, far)
			ext, ok := shape[a].IsConst()
			if !ok {
				ext = far // a symbolic extent: every outer dim is far
			}
			stride = min(stride*min(max(ext, 1), far), far)
		}
		if span*int64(mr-1)*int64(op.Operands[k].Type.Elem.Size()) > rowsCompactBytes {
			return false
		}
	}
	return true
}

func abs64(x int64) int64 {
	if x < 0 {
		return -x
	}
	return x
}

// holds reads the answer of a volume test of plan: an Unknown is recorded in c.gaveUp, which
// rejects the plan whatever the branch taken.
func (c *contraction) holds(t volume.Tri, what string) bool {
	if !t.Known() && c.gaveUp == nil {
		c.gaveUp = fmt.Errorf("%w: whether %s", volume.ErrTooComplex, what)
	}
	return t == volume.Yes
}

// planErr returns why plan's result cannot be used: a test that gave up, or a volume value
// (the tile's affine bounds, the ops' domains) that is an error value.
func (c *contraction) planErr() error {
	if c.gaveUp != nil {
		return c.gaveUp
	}
	for _, o := range []*ir.Op{c.op, c.border} {
		if o != nil {
			if err := o.Domain.Err(); err != nil {
				return err
			}
		}
	}
	return ir.AffsErr(append([]volume.Aff{c.ilo, c.jlo, c.rlo, c.rhi, c.rowsExt}, c.rlos...))
}

// readsAvail reports whether the body asks whether operand k is defined (Avail(k)).
func readsAvail(s *ir.Scalar, k int) bool {
	found := false
	s.Walk(func(n *ir.Scalar) {
		if n.Op == ir.SAvail && n.Arg == k {
			found = true
		}
	})
	return found
}

// blockUniform reports whether index reads one element for lanes consecutive values of dim d
// starting at a multiple of lanes (see volume.BlockDen).
func blockUniform(index []volume.Aff, d, lanes int) bool {
	b := volume.BlockDen(index, d)
	return b > 0 && b%int64(lanes) == 0
}

// isDim reports whether a is exactly iteration dim d.
func isDim(a volume.Aff, d int) bool {
	if a.Const != 0 || len(a.Params) > 0 || len(a.Floors) > 0 {
		return false
	}
	for e, x := range a.Dims {
		if (e == d) != (x == 1) || (e != d && x != 0) {
			return false
		}
	}
	return d < len(a.Dims)
}

// plan classifies the tiles (may panic with volume errors; planContraction recovers them).
func (c *contraction) plan(op *ir.Op) (string, error) {
	// reads guarded along the tile dims (pads) leave the interior to the tiles
	var edge []int
	for k, acc := range op.Access {
		if op.Body.Reads(k) && (guardUses(acc.Pieces[0].Guard, c.i) || guardUses(acc.Pieces[0].Guard, c.j)) {
			edge = append(edge, k)
		}
	}
	c.op = op
	if len(edge) > 0 {
		if c.op, c.border = splitInterior(op, c.nOut, edge); c.op == nil {
			return "no interior without pads", nil
		}
		op = c.op
	}
	for _, k := range c.strided {
		if len(op.Access[k].Pieces[0].Guard) > 0 || readsAvail(op.Body, k) {
			return "a read strided along j keeps a guard", nil
		}
	}
	n := op.NDim()
	dom := op.Domain
	params := dom.Params()
	name := dom.TupleName()
	pset := dom.ProjectOut(c.nOut, c.nR)
	rset := dom.ProjectOut(0, c.nOut)
	if c.holds(pset.IsEmpty(), "the domain is empty") {
		return "empty domain", nil
	}
	// the symbolic dims for which the op has iterations: the boxes below are the domain's
	// bounds only there (i = T - 1 is row -1 when T = 0)
	ctx := pset.ProjectOut(0, c.nOut)
	plo, phi, err := affBounds(pset)
	if err != nil {
		return "", err
	}
	if cols, ok := extentOf(plo[c.j], phi[c.j]); ok && !c.blocks && c.mr*c.nv == 24 && (cols < int64(c.nv*c.vl) || cols == int64(4*c.vl)) {
		// 24-accumulator tiles (AVX-512, NEON) narrower or wider than 3 vectors (attention's P·V with head dims 32
		// and 64): as many vectors as the columns need, and rows for the same 24 accumulators
		// (before anything depends on the tile shape)
		c.nv = int((cols + int64(c.vl) - 1) / int64(c.vl))
		c.mr = min(24/c.nv, 16)
	}
	if cols, ok := extentOf(plo[c.j], phi[c.j]); ok && c.rolled && cols < int64(c.nv*c.vl) {
		// 16-register tiles (AVX2, SSE) over fewer columns than they hold: as many vectors
		// as the columns need and rows for no more accumulators than the tile's. A row of
		// 7 takes a half, a quarter and a scalar register (splitColumns): 6 rows of them
		// were 18 accumulators, which spilled in every reduction step (ShuffleNet v1's 7×7
		// stage read NCHW)
		regs := len(c.columnGroups(int(cols)))
		c.mr = min(c.mr, c.mr*c.nv/regs)
		c.nv = int((cols + int64(c.vl) - 1) / int64(c.vl))
	}
	if rows, ok := extentOf(plo[c.i], phi[c.i]); ok && c.rolled && !c.blocks && rows > int64(c.mr) {
		// 16-register tiles over a known number of rows: the target's alternative shape
		// that the cost model finds cheapest, when it wastes less than mr's rows and their
		// remainder (7 rows: 4×3 against 6 and 1; 14 rows: 5×2 against 6, 6 and 2; see
		// tileCost and chooseTileShape)
		if cols, ok := extentOf(plo[c.j], phi[c.j]); ok {
			c.mr, c.nv = chooseTileShape(rows, cols, c.mr, c.nv, c.vl, c.alternatives)
		}
	}
	if rows, ok := extentOf(plo[c.i], phi[c.i]); ok && !c.blocks && rows < int64(c.mr) {
		if cols, ok := extentOf(plo[c.j], phi[c.j]); ok {
			c.mr, c.nv = fewRowsShape(rows, cols, c.mr, c.nv, c.vl)
		}
	}
	nr := int64(c.nv * c.vl)
	// a symbolic number of columns (Q·Kᵀ's T): the tiles take the whole tile columns, the
	// remainder (fewer than nr columns of every row) is a border on the per-point nest. Each
	// result element is computed whole by one or the other, in the evaluator's order.
	symCols := false
	if _, ok := extentOf(plo[c.j], phi[c.j]); !ok {
		if c.border != nil {
			return "symbolic columns and a border", nil
		}
		// the last column of the whole tiles: jlo + nr·floor((jhi - jlo + 1)/nr) - 1
		jcut := plo[c.j].Add(phi[c.j].Sub(plo[c.j]).AddConst(1).FloorDiv(nr).Mul(nr)).AddConst(-1)
		keep := volume.SetFromConstraints(params, name, dom.DimNames(), []volume.Constraint{volume.GE(jcut, volume.AffDim(c.j))})
		in := dom.Intersect(keep).Coalesce()
		rest := dom.Subtract(keep).Coalesce()
		if c.holds(in.IsEmpty(), "whole tiles have columns") {
			return "fewer symbolic columns than a tile", nil
		}
		c.op = withDomain(op, in)
		if !c.holds(rest.IsEmpty(), "columns are left over") {
			c.border = withDomain(op, rest)
		}
		c.orderedBorder = true
		op, dom = c.op, in
		pset = dom.ProjectOut(c.nOut, c.nR).Intersect(affBoxSet(params, pset.TupleName(), plo, phi)).Coalesce()
		phi[c.j] = jcut
		symCols = true
	}
	// the domain must be the product of the live results and the reduction set
	proj := func(first, cnt int, outName string) volume.Map {
		ex := make([]volume.Aff, cnt)
		for k := range ex {
			ex[k] = volume.AffDim(first + k)
		}
		return volume.MultiAff{Params: params, InName: name, InDims: make([]string, n), OutName: outName, Exprs: ex}.Map()
	}
	prod := pset.Preimage(proj(0, c.nOut, pset.TupleName())).Intersect(rset.Preimage(proj(c.nOut, c.nR, rset.TupleName())))
	var rowSet *volume.Set // the reduction set of a tile, parametric in its first row
	rbox := rset           // the set whose bounds are the reduction's
	if !c.holds(prod.IsSubset(dom), "the reduction is independent of the result index") {
		if len(edge) > 0 || symCols {
			return "the reduction depends on the result index", nil
		}
		inner, border, rs, why := c.splitRowDependent(op, plo[c.i])
		if why != "" {
			return "the reduction depends on the result index: " + why, nil
		}
		c.op, c.border, rowSet = inner, border, &rs
		c.rowDependent = true
		op, dom = inner, inner.Domain
		// the tiles keep the whole box's grid (the inner part's projection may print its
		// bounds through floors, which affBounds does not read)
		pset = dom.ProjectOut(c.nOut, c.nR).Intersect(affBoxSet(params, pset.TupleName(), plo, phi)).Coalesce()
		rset = dom.ProjectOut(0, c.nOut)
		if len(params) == 0 {
			rbox = rset
		} // with symbolic dims, the inner part's are unions; the whole reduction's hold them
	}
	rlo, rhi, err := affBounds(rbox)
	if err != nil {
		return "", err
	}
	// every point of the bounding box must be an iteration of the constructor's domain, so
	// that the dead points of partial tiles read inside the operands
	lo := append(append([]volume.Aff(nil), plo...), rlo...)
	hi := append(append([]volume.Aff(nil), phi...), rhi...)
	box := affBoxSet(params, name, lo, hi).IntersectParams(ctx)
	if !c.holds(box.IsSubset(op.Full.SetTupleName(name)), "the bounding box is inside the constructor's domain") {
		return "the bounding box leaves the constructor's domain", nil
	}
	c.ilo, c.jlo = plo[c.i], plo[c.j]
	if jlo, ok := c.jlo.IsConst(); !ok || jlo%int64(c.vl) != 0 {
		for k, acc := range op.Access {
			if op.Body.Reads(k) && volume.BlockDen(acc.Pieces[0].Index, c.j) > 0 {
				return "block reads with tiles not aligned to the blocks", nil
			}
		}
	}
	c.rlo, c.rhi = rlo[0], rhi[0]
	if why, err := c.planReads(op, lo, hi, box); why != "" || err != nil {
		return why, err
	}
	var win *volume.Set
	kc, rowTiles := c.planChunks(op, plo, phi, rlo, rhi)
	rext, rKnown := extentOf(c.rlo, c.rhi)
	if !rKnown || rext > kc {
		// a symbolic reduction is always chunked: its panels then have a known size
		c.kc = kc
		cons := []volume.Constraint{
			volume.GE(volume.AffDim(0), volume.AffParam(tileParamKC)),
			volume.GE(volume.AffParam(tileParamKC).AddConst(kc-1), volume.AffDim(0)),
		}
		w := volume.SetFromConstraints([]string{tileParamKC}, rset.TupleName(), make([]string, c.nR), cons)
		win = &w
	}
	red := rset
	if rowSet != nil {
		red = *rowSet
	}
	if why, err := c.planReduction(op, red, win); why != "" || err != nil {
		return why, err
	}
	if rowSet == nil {
		// a packed panel holds the reduction points of the first tile of its column, which
		// for a row-dependent reduction are not every tile's
		c.planPacks(op, rlo, rhi, rowTiles)
	}
	c.panelRowTiles = rowTiles
	for _, k := range c.strided {
		if !slices.Contains(c.packs, k) {
			return fmt.Sprintf("read %d is strided along j and cannot be packed", k), nil
		}
	}
	c.planOrder(op)
	return c.planClasses(params, pset, ctx, plo, phi, nr, symCols)
}

// pointPanelBytes returns the bytes of a panel of nr columns for one value of the first
// reduction dim: every point of the other reduction dims (known: their extents are constants).
func (c *contraction) pointPanelBytes(op *ir.Op, rlo, rhi []volume.Aff) (panel int64, known bool) {
	panel, known = int64(c.nv*c.vl*op.Result.Type.Elem.Size()), true
	for d := 1; d < len(rlo); d++ {
		e, ok := extentOf(rlo[d], rhi[d])
		panel *= e
		known = known && ok
	}
	return panel, known
}

// planChunks chooses the reduction's chunk length kc (the panels of one chunk stay in cache)
// and whether the tiles stream the other operand from memory instead of packing it: few row
// tiles do not pay for a packed copy. rowTiles is the number of row tiles that share a panel
// (-1: symbolic, taken as many), for planPacks.
func (c *contraction) planChunks(op *ir.Op, plo, phi, rlo, rhi []volume.Aff) (kc, rowTiles int64) {
	kc = int64(tileKC)
	if tileKCLong*c.nv*c.vl*op.Result.Type.Elem.Size() <= tilePanelL1 {
		kc = tileKCLong
	}
	if c.chunkPanelBytes > 0 {
		// the panel of one chunk holds nr columns at every point of the other reduction
		// dims too (a 3×3 convolution's 9 taps per input channel): chunks short enough for
		// it to be packed, and stay in cache for every row tile, rather than the whole
		// reduction's weights read from L2 by each tile (see TileShape.ChunkPanelBytes)
		panel, known := c.pointPanelBytes(op, rlo, rhi)
		for known && kc > tileKCStream && kc*panel > c.chunkPanelBytes {
			kc /= 2
		}
	}
	rows, rowsKnown := extentOf(plo[c.i], phi[c.i])
	c.rowsExt, c.rowsSym = phi[c.i].Sub(plo[c.i]).AddConst(1), !rowsKnown
	if c.smallRows > 0 {
		rows, rowsKnown = c.smallRows, true
	}
	// rowTiles < 0: unknown (symbolic), taken as many
	rowTiles = int64(-1)
	if rowsKnown {
		rowTiles = c.rowTiles(op, rows, plo, phi)
	}
	if iTiles := (rows + int64(c.mr) - 1) / int64(c.mr); rowsKnown && rowTiles >= tilePackMinReuse && iTiles < tilePackMinReuse {
		// few row tiles along i, but the panel is shared by the rows of the other result
		// dims (a convolution at 7×7): packed panels, in chunks short enough to fit
		// tilePackBytes (3×3 taps: kc=32), reused by every row
		panel, known := c.pointPanelBytes(op, rlo, rhi)
		for known && kc > tileKCStream && kc*panel > tilePackBytes {
			kc /= 2
		}
		if !known || kc*panel > tilePackBytes {
			rowTiles = iTiles // stream
		}
	}
	if rowTiles >= 0 && rowTiles < tilePackMinReuse || c.rowsSym {
		// up to three rows of tiles, too few to pay for a packed copy (a GEMV, a skinny
		// GEMM): the other operand is read in place, from memory. With short chunks the tiles
		// sweep kc rows of it side by side, kc sequential streams that the prefetchers follow;
		// long chunks read each row a tile's width at a time, a new page per row
		// (1×1024·1024×8000 from L3: kc=256 2.7 ms, kc=16 0.8 ms, a plain read of the 33 MB
		// 0.6-1.1 ms; 16×1024·1024×4096: 2.26 -> 1.88 ms).
		ext, known := extentOf(plo[c.j], phi[c.j])
		ext *= int64(op.Result.Type.Elem.Size())
		for d := range rlo {
			e, ok := extentOf(rlo[d], rhi[d])
			ext *= e
			known = known && ok
		}
		c.streamable = known && ext > tileStreamBytes
		if c.streamable && (!c.rowsSym || c.smallRows > 0) {
			kc, c.stream = tileKCStream, true
			if rows > int64(c.mr) {
				// with two or three rows of tiles reading each chunk, longer chunks reload
				// the accumulators less often (16×1024·1024×4096: kc=16 1.8 ms, kc=64 1.4
				// ms; one row of 8: kc=16 0.8 ms, kc=64 1.0 ms)
				kc = tileKCStreamTall
			}
		}
	}
	if len(c.strided) > 0 && !c.stream {
		// a read strided along j is always gathered into panels: chunks short enough for
		// its panel to fit tilePackBytes (a strided conv1d's 128 channels × 3 taps by 48
		// columns: kc=64)
		panel := int64(c.nv * c.vl * op.Result.Type.Elem.Size())
		for d := 1; d < len(rlo); d++ {
			if e, ok := extentOf(rlo[d], rhi[d]); ok {
				panel *= e
			}
		}
		for kc > 1 && kc*panel > tilePackBytes {
			kc /= 2
		}
	}
	return kc, rowTiles
}

// planClasses plans the tiles of the result box: per run of rows and run of columns a tile
// class with the scans of its full and partial tiles (or, when every tile point is live, one
// scan per column group), and rejects a domain too sparse for tiles (tileMinLive).
func (c *contraction) planClasses(params []string, pset, ctx volume.Set, plo, phi []volume.Aff, nr int64, symCols bool) (string, error) {
	var err error
	pbox := affBoxSet(params, pset.TupleName(), plo, phi).IntersectParams(ctx)
	dense := c.holds(pbox.IsSubset(pset), "every tile point is live")
	rowSpans := tileSpans(phi[c.i].Sub(plo[c.i]).AddConst(1), int64(c.mr), false)
	colSpans := tileSpans(phi[c.j].Sub(plo[c.j]).AddConst(1), nr, symCols)
	nO := len(c.oDims)
	tdims := make([]string, nO+2)     // (o..., tj, ti)
	xdims := make([]string, nO+4)     // (o..., tj, ti, di, dj)
	toP := make([]volume.Aff, c.nOut) // tile point -> result index
	for k, d := range c.oDims {
		toP[d] = volume.AffDim(k)
	}
	toP[c.j] = volume.AffDim(nO).Mul(nr).Add(volume.AffDim(nO + 3)).Add(c.jlo)
	toP[c.i] = volume.AffDim(nO + 1).Mul(int64(c.mr)).Add(volume.AffDim(nO + 2)).Add(c.ilo)
	tmap := volume.MultiAff{Params: params, InDims: xdims, OutName: pset.TupleName(), Exprs: toP}.Map()
	var live, dead volume.Set
	if !dense {
		live = pset.Preimage(tmap)
		dead = pbox.Subtract(pset).Preimage(tmap)
	}
	// the live points of a tile whose origin is a parameter
	lparams := append([]string{tileParamI0, tileParamJ0}, params...)
	toL := make([]volume.Aff, c.nOut)
	for k, d := range c.oDims {
		lparams = append(lparams, tileParamO(k))
		toL[d] = volume.AffParam(tileParamO(k))
	}
	toL[c.i] = volume.AffParam(tileParamI0).Add(volume.AffDim(0))
	toL[c.j] = volume.AffParam(tileParamJ0).Add(volume.AffDim(1))
	lmap := volume.MultiAff{Params: lparams, InDims: make([]string, 2), OutName: pset.TupleName(), Exprs: toL}.Map()
	var liveLocal volume.Set
	if !dense {
		liveLocal = pset.Preimage(lmap)
	}
	var visited, liveCount int64
	// the density is counted with the symbolic dims bound to a typical value
	sample := map[string]int64{}
	for _, p := range params {
		sample[p] = tileSampleDim
	}
	countOK := true
	groupSets := make([]volume.Set, len(colSpans))
	groups := make([]*colGroup, len(colSpans))
	for _, rs := range rowSpans {
		for ci, cs := range colSpans {
			tc := &tileClass{rows: int(rs.size), cols: int(cs.size), groups: c.columnGroups(int(cs.size))}
			var cons []volume.Constraint
			for k, d := range c.oDims {
				cons = append(cons, volume.GE(volume.AffDim(k), plo[d]), volume.GE(phi[d], volume.AffDim(k)))
			}
			cons = append(cons, cs.cons(volume.AffDim(nO))...)
			cons = append(cons, rs.cons(volume.AffDim(nO+1))...)
			tiles := volume.SetFromConstraints(params, "", tdims, cons).IntersectParams(ctx)
			area := rs.size * cs.size
			if dense {
				if groups[ci] == nil {
					groups[ci], groupSets[ci] = &colGroup{}, tiles
				} else {
					groupSets[ci] = groupSets[ci].Union(tiles)
				}
				g := groups[ci]
				g.classes = append(g.classes, tc)
				g.rows = append(g.rows, rs.cons(volume.AffDim(0)))
				c.classes = append(c.classes, tc)
				continue
			}
			inTile := append(append([]volume.Constraint(nil), cons...),
				volume.GE(volume.AffDim(nO+2), volume.AffConst(0)), volume.GE(volume.AffConst(rs.size-1), volume.AffDim(nO+2)),
				volume.GE(volume.AffDim(nO+3), volume.AffConst(0)), volume.GE(volume.AffConst(cs.size-1), volume.AffDim(nO+3)))
			box := volume.SetFromConstraints(params, "", xdims, inTile)
			touched := live.Intersect(box).ProjectOut(nO+2, 2)
			bad := dead.Intersect(box).ProjectOut(nO+2, 2)
			full := touched.Subtract(bad).Coalesce()
			part := touched.Intersect(bad).Coalesce()
			if tc.full, err = c.scanTiles(full); err != nil {
				return "", err
			}
			if tc.part, err = c.scanTiles(part); err != nil {
				return "", err
			}
			if !c.holds(part.IsEmpty(), "the class has partial tiles") {
				lbox := volume.SetFromConstraints(lparams, "", make([]string, 2), []volume.Constraint{
					volume.GE(volume.AffDim(0), volume.AffConst(0)), volume.GE(volume.AffConst(rs.size-1), volume.AffDim(0)),
					volume.GE(volume.AffDim(1), volume.AffConst(0)), volume.GE(volume.AffConst(cs.size-1), volume.AffDim(1))})
				if tc.live, err = liveLocal.Intersect(lbox).Scan(); err != nil {
					return "", err
				}
			}
			if nt, err := touched.Card(sample); err == nil {
				visited += nt * area
			} else if len(params) == 0 {
				return "", err
			} else {
				countOK = false
			}
			c.classes = append(c.classes, tc)
		}
	}
	for ci, g := range groups {
		if g == nil {
			continue
		}
		if len(g.classes) == 1 {
			if g.classes[0].full, err = c.scanTiles(groupSets[ci]); err != nil {
				return "", err
			}
			continue
		}
		if g.scan, err = c.scanTiles(groupSets[ci].Coalesce()); err != nil {
			return "", err
		}
		for _, tc := range g.classes {
			tc.grouped = true
		}
		c.groups = append(c.groups, g)
	}
	if !dense && countOK {
		var err error
		if liveCount, err = pset.Card(sample); err != nil {
			if len(params) == 0 {
				return "", err
			}
		} else if float64(liveCount) < tileMinLive*float64(visited) {
			return fmt.Sprintf("too sparse for tiles (%d live points in %d tile points)", liveCount, visited), nil
		}
	}
	return "", nil
}

// tileSampleDim is the value of every symbolic dim at which the density of the live points
// in the visited tiles is measured (tileMinLive).
const tileSampleDim = 128

// tileSpan is a run of tiles along one tile dim, all of size rows (or columns): the
// constraints on the tile index t.
type tileSpan struct {
	size int64
	cons func(t volume.Aff) []volume.Constraint
}

// tileSpans cuts an extent into tiles of size: the whole tiles, then the remainder. A symbolic
// extent (an expression of the symbolic dims) has one span per possible remainder r
// (size·t + r = ext), each a tile class of its own whose scan is empty unless the symbolic
// dims leave that remainder; with exact, the extent is known to be a multiple of size.
func tileSpans(ext volume.Aff, size int64, exact bool) []tileSpan {
	var out []tileSpan
	if e, ok := ext.IsConst(); ok {
		if n := e / size; n > 0 {
			out = append(out, tileSpan{size, func(t volume.Aff) []volume.Constraint {
				return []volume.Constraint{volume.GE(t, volume.AffConst(0)), volume.GE(volume.AffConst(n-1), t)}
			}})
		}
		if r := e % size; r > 0 {
			out = append(out, tileSpan{r, func(t volume.Aff) []volume.Constraint {
				return []volume.Constraint{volume.EQ(t, volume.AffConst(e/size))}
			}})
		}
		return out
	}
	out = append(out, tileSpan{size, func(t volume.Aff) []volume.Constraint {
		return []volume.Constraint{volume.GE(t, volume.AffConst(0)), volume.GE(ext, t.Mul(size).AddConst(size))}
	}})
	if exact {
		return out
	}
	for r := int64(1); r < size; r++ {
		out = append(out, tileSpan{r, func(t volume.Aff) []volume.Constraint {
			return []volume.Constraint{volume.GE(t, volume.AffConst(0)), volume.EQ(t.Mul(size).AddConst(r), ext)}
		}})
	}
	return out
}

// extentOf returns hi - lo + 1 when it is a constant.
func extentOf(lo, hi volume.Aff) (int64, bool) {
	return hi.Sub(lo).AddConst(1).IsConst()
}

// affBounds returns the smallest and largest value of every dim of a bounded set as
// expressions of its parameters: constants without parameters (constBounds); with them, each
// dim's projection must be one interval between two expressions (volume.Set.ParamBounds).
func affBounds(s volume.Set) (lo, hi []volume.Aff, err error) {
	if len(s.Params()) == 0 {
		l, h, err := constBounds(s)
		if err != nil {
			return nil, nil, err
		}
		for d := range l {
			lo, hi = append(lo, volume.AffConst(l[d])), append(hi, volume.AffConst(h[d]))
		}
		return lo, hi, nil
	}
	return s.ParamBounds()
}

// affBoxSet returns { name[x] : lo <= x <= hi } for bounds that are expressions of params.
func affBoxSet(params []string, name string, lo, hi []volume.Aff) volume.Set {
	var cons []volume.Constraint
	for d := range lo {
		cons = append(cons, volume.GE(volume.AffDim(d), lo[d]), volume.GE(hi[d], volume.AffDim(d)))
	}
	return volume.SetFromConstraints(params, name, make([]string, len(lo)), cons)
}

// splitRowDependent handles a reduction over one dim k whose range depends on the tile row i:
// an interval [lo, hi(i)] with lo independent of the result index and hi nondecreasing in i
// and independent of the other result dims (P·V of causal attention after known-values:
// k <= i). A tile of rows i0..i0+mr-1 then shares the prefix k <= hi(i0): inner is op on
// those points (the tiles run them, with a reduction set parametric in the tile's first row,
// returned as rows), border the rest of each row (the ragged triangle near the diagonal),
// which comes later in k and so keeps every result's order of accumulation when the per-point
// nest runs it after the tiles.
func (c *contraction) splitRowDependent(op *ir.Op, ilo volume.Aff) (inner, border *ir.Op, rows volume.Set, why string) {
	if c.nR != 1 {
		return nil, nil, rows, "several reduction dims"
	}
	dom := op.Domain
	n := op.NDim()
	k := n - 1
	bs, err := dom.DimBounds(k)
	if err != nil || len(bs) != 1 || len(bs[0].Other) > 0 || len(bs[0].Lower) == 0 || len(bs[0].Upper) == 0 {
		return nil, nil, rows, "the range of the reduction dim is not one interval"
	}
	b := bs[0]
	for _, a := range b.Lower {
		for d := 0; d < n-1; d++ {
			if coefOf(a, d) != 0 || floorsUse(a, d) {
				return nil, nil, rows, "its lower bound depends on the result index"
			}
		}
	}
	for _, a := range b.Upper {
		for d := 0; d < n-1; d++ {
			if d != c.i && (coefOf(a, d) != 0 || floorsUse(a, d)) || d == c.i && (coefOf(a, d) < 0 || floorsUse(a, d)) {
				return nil, nil, rows, "its upper bound is not nondecreasing in the row dim alone"
			}
		}
	}
	// i0 = ilo + mr·floor((i - ilo)/mr): the first row of i's tile
	mr := int64(c.mr)
	i0 := volume.AffDim(c.i).Sub(ilo).FloorDiv(mr).Mul(mr).Add(ilo)
	at := make([]volume.Aff, n)
	for d := range at {
		at[d] = volume.AffDim(d)
	}
	at[c.i] = i0
	var cons []volume.Constraint
	for _, a := range b.Upper {
		cons = append(cons, volume.GE(a.SubstDims(at), volume.AffDim(k)))
	}
	prefix := volume.SetFromConstraints(dom.Params(), dom.TupleName(), dom.DimNames(), cons)
	in := dom.Intersect(prefix).Coalesce()
	rest := dom.Subtract(prefix).Coalesce()
	if c.holds(in.IsEmpty(), "a tile shares a reduction prefix") {
		return nil, nil, rows, "no tile shares a reduction prefix"
	}
	// the reduction set of the tile whose first row is graphc_ti0
	at[c.i] = volume.AffParam(tileParamI0)
	rcons := []volume.Constraint{}
	for _, a := range b.Lower {
		rcons = append(rcons, volume.GE(volume.AffDim(0), shiftToReduction(a, n)))
	}
	for _, a := range b.Upper {
		rcons = append(rcons, volume.GE(shiftToReduction(a.SubstDims(at), n), volume.AffDim(0)))
	}
	for _, g := range b.Guard {
		for d := 0; d < n-1; d++ {
			if coefOf(g.Aff, d) != 0 || floorsUse(g.Aff, d) {
				goto guardsDone // guards on the result dims hold for every live tile point
			}
		}
		rcons = append(rcons, volume.Constraint{Aff: shiftToReduction(g.Aff, n), Eq: g.Eq})
	guardsDone:
	}
	rows = volume.SetFromConstraints(append(dom.Params(), tileParamI0), "", make([]string, 1), rcons)
	inner = withDomain(op, in)
	if !c.holds(rest.IsEmpty(), "rows are left over") {
		border = withDomain(op, rest)
	}
	return inner, border, rows, ""
}

// shiftToReduction rewrites an expression of the iteration point that involves no result dim
// as one of the reduction point (dim n-1 becomes dim 0).
func shiftToReduction(a volume.Aff, n int) volume.Aff {
	sub := make([]volume.Aff, n)
	for d := range sub {
		sub[d] = volume.AffConst(0)
	}
	sub[n-1] = volume.AffDim(0)
	return a.SubstDims(sub)
}

// withDomain returns a copy of op restricted to dom.
func withDomain(op *ir.Op, dom volume.Set) *ir.Op {
	c := *op
	c.Domain = dom
	return &c
}

// planOrder chooses the order in which the tiles are visited. Within a reduction chunk, the
// tiles of one column (tj) read the same panel of the vector operands (the weights of a
// convolution) and the tiles of one row band (o...) the same broadcast elements (its input).
// Visiting (o..., tj, ti) streams every column's panel once per row band: ResNet-50's last
// 3×3 convolutions read their 4.7 MB of weights per chunk 7 times. Columns go outermost when
// the vector operands are larger than the broadcast ones, or packed. It also records which o dims the
// packed reads depend on, the only ones that make a column's panel differ.
func (c *contraction) planOrder(op *ir.Op) {
	// a packed panel, one buffer, is copied again whenever the column changes: visited rows
	// outermost, every row band would copy every column's panel (ResNet-50's 1×1
	// convolutions at 28×28 ran 10% faster columns outermost)
	c.colOuter = len(c.oDims) > 0 && (c.vectorHeavy(op) || len(c.packs) > 0)
	c.packO = make([]bool, len(c.oDims))
	for _, k := range c.packs {
		for o, d := range c.oDims {
			c.packO[o] = c.packO[o] || accessStride(op.Access[k].Pieces[0].Index, d) != strideInvariant
		}
	}
}

// scanTiles scans a set of tiles over (o..., tj, ti) in the order planOrder chose; the leaves
// of a column-outer scan are mapped back by tileLevels.
func (c *contraction) scanTiles(s volume.Set) (volume.Node, error) {
	if !c.colOuter {
		return s.Scan()
	}
	nO := len(c.oDims)
	// new dim 0 is tj, 1..nO the o dims, nO+1 ti: old dim d is new dim pos[d]
	ex := make([]volume.Aff, nO+2)
	for d := 0; d < nO; d++ {
		ex[d] = volume.AffDim(d + 1)
	}
	ex[nO] = volume.AffDim(0)
	ex[nO+1] = volume.AffDim(nO + 1)
	m := volume.MultiAff{Params: s.Params(), InName: s.TupleName(), InDims: make([]string, nO+2), OutName: s.TupleName(), Exprs: ex}.Map()
	return s.Preimage(m).Scan()
}

// levelDim returns the domain dim of level l of the tile scans (tj: j, ti: i, an o level:
// its result dim), for the split over threads (parallel.go).
func (c *contraction) levelDim(l int) int {
	nO := len(c.oDims)
	if c.colOuter {
		switch {
		case l == 0:
			return c.j
		case l <= nO:
			return c.oDims[l-1]
		}
		return c.i
	}
	switch {
	case l < nO:
		return c.oDims[l]
	case l == nO:
		return c.j
	}
	return c.i
}

// tileLevels returns a tile's (o..., tj, ti) from the levels of its scan.
func (c *contraction) tileLevels(lev []value.Value) []value.Value {
	if !c.colOuter {
		return lev
	}
	nO := len(c.oDims)
	out := make([]value.Value, nO+2)
	copy(out, lev[1:nO+1])
	out[nO] = lev[0]
	out[nO+1] = lev[nO+1]
	return out
}

// rowTiles returns how many row tiles read each column's panel of the vector operand (B in
// A·B, a convolution's weights): the row tiles along i, times the extents of the other
// result dims that the panel does not depend on when the tiles visit columns outermost
// (planOrder), as a 1×1 convolution's weights are read by every output row (a 7×7×512
// image times 512×2048 weights: one tile of 7 columns per row, 7 rows per panel).
func (c *contraction) rowTiles(op *ir.Op, rows int64, plo, phi []volume.Aff) int64 {
	n := (rows + int64(c.mr) - 1) / int64(c.mr)
	if len(c.oDims) == 0 || !c.vectorHeavy(op) {
		return n
	}
	for _, d := range c.oDims {
		shared := true
		for k, acc := range op.Access {
			idx := acc.Pieces[0].Index
			if op.Body.Reads(k) && accessStride(idx, c.j) == strideUnit && accessStride(idx, c.i) == strideInvariant && accessStride(idx, d) != strideInvariant {
				shared = false
			}
		}
		if shared {
			if e, ok := extentOf(plo[d], phi[d]); ok {
				n *= e
			} // a symbolic batch counts as 1 (dynamic-axes exports run one sequence)
		}
	}
	return n
}

// vectorHeavy reports whether the operands read as vectors along j and invariant along i
// (weights) are larger than the others (activations): the tiles then visit columns
// outermost (see planOrder).
func (c *contraction) vectorHeavy(op *ir.Op) bool {
	var vecBytes, bcastBytes int64
	for k, acc := range op.Access {
		if !op.Body.Reads(k) {
			continue
		}
		shape, ok := op.Operands[k].Type.StaticShape()
		if !ok {
			// symbolic dims: sized at tileSampleDim tokens
			sample := map[string]int64{}
			for _, d := range op.Operands[k].Type.Shape {
				for _, p := range d.ParamNames() {
					sample[p] = tileSampleDim
				}
			}
			var err error
			if shape, err = op.Operands[k].Type.EvalShape(sample); err != nil {
				continue
			}
		}
		b := ir.NumElements(shape) * int64(op.Operands[k].Type.Elem.Size())
		if accessStride(acc.Pieces[0].Index, c.j) == strideUnit && accessStride(acc.Pieces[0].Index, c.i) == strideInvariant {
			vecBytes += b
		} else {
			bcastBytes += b
		}
	}
	return vecBytes > bcastBytes
}

// planPacks chooses the reads copied into contiguous panels (see contraction.packs): each is
// one unguarded piece of the result's element type, unit-stride along j and invariant along i
// whose panel, read in place, would not stay in L1 (panelConflicts), when at least
// tilePackMinReuse row tiles read the panel (rows < 0: a symbolic number of rows, taken as
// many) and it fits tilePackBytes. The panel is copied by scanning the same reduction parts as
// the micro-kernel, so it reads exactly the elements that the tiles read.
func (c *contraction) planPacks(op *ir.Op, rlo, rhi []volume.Aff, rowTiles int64) {
	few := rowTiles >= 0 && rowTiles < tilePackMinReuse
	if few && len(c.strided) == 0 {
		return
	}
	elem := op.Result.Type.Elem
	c.pstride = make([]int64, c.nR)
	slots := int64(1)
	for d := c.nR - 1; d >= 0; d-- {
		ext, ok := extentOf(rlo[d], rhi[d])
		switch {
		case d == 0 && c.kc > 0 && ok:
			ext = min(ext, c.kc)
		case d == 0 && c.kc > 0:
			ext = c.kc
		case !ok:
			return // a symbolic panel
		}
		c.pstride[d] = slots
		slots *= ext
	}
	if slots*int64(c.nv*c.vl*elem.Size()) > tilePackBytes {
		return
	}
	for k, acc := range op.Access {
		if !op.Body.Reads(k) || op.Operands[k].Type.Elem != elem {
			continue
		}
		p := acc.Pieces[0]
		if slices.Contains(c.strided, k) {
			c.packs = append(c.packs, k)
			continue
		}
		if few {
			continue
		}
		if len(p.Guard) > 0 || accessStride(p.Index, c.j) != strideUnit || accessStride(p.Index, c.i) != strideInvariant {
			continue
		}
		shape, ok := op.Operands[k].Type.StaticShape()
		if ok && c.panelConflicts(p.Index, shape, elem.Size(), c.pstride, slots) {
			c.packs = append(c.packs, k)
		}
	}
	c.rlos = rlo
	c.packElems = slots
}

// Geometry of the L1 data cache assumed by panelConflicts: 64-byte lines, 64 sets of 8 ways
// (32 KiB, the smallest L1 of the x86-64 CPUs with AVX2 or AVX-512; larger ones add ways).
const (
	l1Line = 64
	l1Sets = 64
	l1Ways = 8
)

// panelConflicts reports whether the kc×nr panel of a read with index idx into a dense
// row-major operand of the given shape is better copied than read in place: in place, it holds
// more lines in some L1 set than the set has ways, so that it cannot stay in L1 across the row
// tiles that read it (the rows of a 512-wide f32 matrix, 2 KiB apart, fall in 2 sets), and the
// copy takes no more lines (a convolution's input rows shifted by the kernel offsets overlap in
// place: 3x3 convolutions ran 1-4% slower, up to 28% with few row tiles, when copied). The
// panel is placed at offset 0; reads with floor divisions are read in place.
func (c *contraction) panelConflicts(idx []volume.Aff, shape []int64, size int, pstride []int64, slots int64) bool {
	coef := make([]int64, c.nR) // element offset per unit of each reduction dim
	stride := int64(1)
	for ax := len(idx) - 1; ax >= 0; ax-- {
		if len(idx[ax].Floors) > 0 {
			return false
		}
		for d := range coef {
			coef[d] += coefOf(idx[ax], c.nOut+d) * stride
		}
		stride *= shape[ax]
	}
	width := int64(c.nv*c.vl) * int64(size)
	lines := map[int64]bool{}
	perSet := make([]int, l1Sets)
	over := false
	for s := int64(0); s < slots; s++ {
		var off int64
		rem := s
		for d := range coef {
			off += coef[d] * (rem / pstride[d])
			rem %= pstride[d]
		}
		off *= int64(size)
		for l := floorDivInt(off, l1Line); l <= floorDivInt(off+width-1, l1Line); l++ {
			if !lines[l] {
				lines[l] = true
				set := ((l % l1Sets) + l1Sets) % l1Sets
				perSet[set]++
				over = over || perSet[set] > l1Ways
			}
		}
	}
	return over && slots*((width+l1Line-1)/l1Line) <= int64(len(lines))
}

// floorDivInt returns floor(a/b) for b > 0.
func floorDivInt(a, b int64) int64 {
	q := a / b
	if a%b != 0 && a < 0 {
		q--
	}
	return q
}

// columnGroups returns the registers of a tile of cols columns: splitColumns, or, when the
// columns are more than a vector but not whole vectors, whole vectors the last of which ends
// at the last column and overlaps the one before it (overlapColumns). That is exact: every
// register of a tile loads its accumulators before any is stored (emitTile) and computes
// each column the same way, so the overlapped columns get the same bits twice, and no buffer
// the kernel writes is one it reads (its result is a noalias argument; an epilogue's result
// lives from the contraction on, so the buffer plan never shares its slot with an operand of
// the chain: plan.go). Reads uniform along aligned blocks
// of j (c.blocks: a channels-last grouped convolution) keep splitColumns: a shifted vector
// would straddle two blocks.
func (c *contraction) columnGroups(cols int) []tileGroup {
	if c.blocks {
		return splitColumns(cols, c.vl)
	}
	return overlapColumns(cols, c.vl)
}

// overlapColumns cuts cols columns into whole vectors of vl lanes: when cols is more than vl
// but not a multiple of it, the last vector starts at cols - vl (NCHW rows of 14 or 28
// columns: two vectors, not a vector, a half and a quarter, whose 6×3 accumulators spilled
// on AVX2). Fewer columns than a vector keep splitColumns.
func overlapColumns(cols, vl int) []tileGroup {
	if cols <= vl || cols%vl == 0 {
		return splitColumns(cols, vl)
	}
	var gs []tileGroup
	off := 0
	for ; off+vl <= cols; off += vl {
		gs = append(gs, tileGroup{off, vl, off})
	}
	return append(gs, tileGroup{cols - vl, vl, off})
}

// splitColumns cuts a tile's cols columns into full vectors of vl lanes and a remainder in
// power-of-two vectors (the last ones scalars).
func splitColumns(cols, vl int) []tileGroup {
	var gs []tileGroup
	off := 0
	for ; off+vl <= cols; off += vl {
		gs = append(gs, tileGroup{off, vl, off})
	}
	for w := vl / 2; w >= 1; w /= 2 {
		if cols-off >= w {
			gs = append(gs, tileGroup{off, w, off})
			off += w
		}
	}
	return gs
}

// constBounds returns the smallest and largest value of every dim of a bounded set without
// parameters.
func constBounds(s volume.Set) (lo, hi []int64, err error) {
	nd := s.NDim()
	lo, hi = make([]int64, nd), make([]int64, nd)
	for d := 0; d < nd; d++ {
		one := s.ProjectOnto(d)
		bs, err := one.DimBounds(0)
		if err != nil {
			return nil, nil, err
		}
		first := true
		for _, b := range bs {
			l, okl := constExtreme(b.Lower, true)
			h, okh := constExtreme(b.Upper, false)
			if !okl || !okh {
				// bounds through floors (DIE's restriction of a conv whose frames two
				// stride-2 convs read: floor(floor(o/2)/2) <= 23): the projection's exact
				// smallest and largest points
				var ok bool
				if l, h, ok = exactExtremes(one); !ok {
					return nil, nil, fmt.Errorf("dim %d of %s has no constant bounds", d, s)
				}
				lo[d], hi[d], first = l, h, false
				break
			}
			if first || l < lo[d] {
				lo[d] = l
			}
			if first || h > hi[d] {
				hi[d] = h
			}
			first = false
		}
		if first {
			return nil, nil, fmt.Errorf("dim %d of %s is empty", d, s)
		}
	}
	return lo, hi, nil
}

// exactExtremes returns the smallest and largest coordinate of a one-dimensional set without
// parameters, by lexmin and lexmax.
func exactExtremes(one volume.Set) (lo, hi int64, ok bool) {
	if len(one.Params()) > 0 || one.NDim() != 1 {
		return 0, 0, false
	}
	mn, err1 := one.Lexmin()
	mx, err2 := one.Lexmax()
	if err1 != nil || err2 != nil {
		return 0, 0, false
	}
	pl, ok1 := mn.Sample()
	ph, ok2 := mx.Sample()
	if ok1 != volume.Yes || ok2 != volume.Yes || len(pl.Coords) != 1 || len(ph.Coords) != 1 {
		return 0, 0, false
	}
	return pl.Coords[0], ph.Coords[0], true
}

// constExtreme returns the max (lower bounds) or min (upper bounds) of constant bounds.
func constExtreme(bs []volume.Aff, lower bool) (int64, bool) {
	if len(bs) == 0 {
		return 0, false
	}
	var v int64
	for k, b := range bs {
		x, ok := b.IsConst()
		if !ok {
			return 0, false
		}
		if k == 0 || (lower && x > v) || (!lower && x < v) {
			v = x
		}
	}
	return v, true
}

// boxSet returns { name[x] : lo <= x <= hi } (no dims when lo is nil).
func boxSet(params []string, name string, lo, hi []int64) volume.Set {
	var cons []volume.Constraint
	for d := range lo {
		cons = append(cons, volume.GE(volume.AffDim(d), volume.AffConst(lo[d])), volume.GE(volume.AffConst(hi[d]), volume.AffDim(d)))
	}
	return volume.SetFromConstraints(params, name, make([]string, len(lo)), cons)
}

// tileShapeMargin is the fraction of the target's tile shape's cost under which an
// alternative shape must come to replace it: near ties keep the shape the kernels were tuned
// with (56 rows by 64 columns cost 232 in 6×2 tiles against 224 in 4×3, measured 2.46 ms
// against 2.51 for a 3×3 convolution; 128 rows 130 in 6×2 against 129 in 5×2).
const tileShapeMargin = 0.93

// chooseTileShape returns the tile of rows×cols results: mr×nv, or the alternative whose
// tileCost is lowest when it is below tileShapeMargin of mr×nv's. An alternative of more
// vectors than the columns fill is not taken. Measured at --mcpu=native on Zen 3, one
// thread (ms; 6×2, 5×2, 4×3): conv 3×3 14²×256 2.96, 2.73, 2.84; 1×1 14²×1024→256 1.28,
// 1.19, 1.24; 3×3 stride 2 to 14²×256 3.62, 2.84, 2.74; 3×3 56²×64 2.46, 2.52, 2.51; 3×3
// 7²×512 5.90, 4.57, 3.11.
func chooseTileShape(rows, cols int64, mr, nv, vl int, alternatives [][2]int) (int, int) {
	best := tileShapeMargin * tileCost(rows, cols, mr, nv, vl)
	bm, bv := mr, nv
	for _, a := range alternatives {
		if a[0] <= 0 || a[1] <= 0 || cols < int64(a[1]*vl) {
			continue
		}
		if cost := tileCost(rows, cols, a[0], a[1], vl); cost < best {
			best, bm, bv = cost, a[0], a[1]
		}
	}
	return bm, bv
}

// fmaChains is the number of independent accumulators that hide the FMA latency: 4 cycles on
// two pipes (Zen 3/4, Skylake and later, the big Arm cores).
const fmaChains = 8

// fewRowsShape returns the tile of a result of fewer rows than the target's tile has (mr×nv):
// rows rows by as many vectors as give fmaChains accumulators (at most the tile's mr·nv, at
// most the columns' vectors), when tileCost finds it cheaper. A GEMV (a recurrent layer's step,
// a decoder's token) in the 6×2 tile of AVX2 had two accumulators, each a chain of dependent
// FMAs: latency-bound at a quarter of the FMA rate (LSTM step 1×256·256×1024 on Zen 3: 27 µs
// in 1×2 tiles, 1×8 read the same weights at the rate of L3).
func fewRowsShape(rows, cols int64, mr, nv, vl int) (int, int) {
	v := max(nv, (fmaChains+int(rows)-1)/int(rows))
	v = min(v, mr*nv/int(rows), int((cols+int64(vl)-1)/int64(vl)))
	r := int(rows)
	if v <= nv || tileCost(rows, cols, r, v, vl) >= tileShapeMargin*tileCost(rows, cols, mr, nv, vl) {
		return mr, nv
	}
	return r, v
}

// tileCost estimates the cycles of one reduction step over all the tiles of a rows×cols
// result with mr×nv tiles of vl lanes (the last row and column of tiles partial): a tile of r
// rows and v vectors issues r·v FMAs on two pipes, and needs 8 independent accumulators to
// hide the FMA latency of 4 cycles, so it takes max(r·v/2, 4). At x86-64-v3 on a Zen 5 host,
// conv 1×1 7²×2048→512: 6×2 1.37 ms, 4×3 1.0; 3×3 7²×512: 2.7 and 2.4 (4×2 2.4, 7×1 3.5, 14×1
// 3.4, 3×4 4.5).
func tileCost(rows, cols int64, mr, nv, vl int) float64 {
	nr := int64(nv * vl)
	var cost float64
	for c0 := int64(0); c0 < cols; c0 += nr {
		v := (min(nr, cols-c0) + int64(vl) - 1) / int64(vl)
		for r0 := int64(0); r0 < rows; r0 += int64(mr) {
			r := min(int64(mr), rows-r0)
			cost += max(float64(r*v)/2, 4)
		}
	}
	return cost
}
