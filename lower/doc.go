// Package lower turns an optimized ir.Graph into an LLVM IR module (github.com/llir/llvm, typed
// pointers, accepted by LLVM 14 and 19) with graphc's C ABI:
//
//	int64_t ENTRY_workspace_size(int64_t s0, ...);   /* -1: invalid symbolic dims */
//	int32_t ENTRY(const T *in0, ..., T *out0, ..., int64_t s0, ..., void *workspace);
//
// ENTRY returns 0 on success, 1 when a symbolic dim or an extent computed from them is
// negative, 2 when a data-dependent index is out of bounds, 3 on an integer division by zero
// (the evaluator fails in the last two cases too).
//
// # Lowering is generic
//
// Every op is lowered from its generic form (ir/doc.go), so every op of the catalogue lowers:
// the (DIE-restricted) domain is scanned into a loop nest (volume.Set.Scan: For, If, Assign,
// Leaf, Block), and at each point the body (ir.Scalar) is evaluated and stored into, or
// combined with, the result element Out(x). Each op becomes an internal kernel function whose
// buffers are noalias pointers; ENTRY calls them in order and propagates a non-zero status.
// Ops whose kernels would be the same code share one function (dedup.go): they are keyed,
// before anything is emitted, by what the code depends on (domain, access and out maps, body,
// element types and shapes, the buffers' regions and alignment, the symbolic dims, whether a
// tiled result skips its initialisation), so the 1,000 ops of 333 identical MLP layers emit 5
// kernels, not 1,000; Entry.Strategies still lists one strategy per op.
//
// Body operations lower from their row of the scalar table (ir/scalar_ops.go, body.go's
// emitDef): a float32 vector polynomial or an LLVM intrinsic where the row names one and it
// applies, else the row's recipe for the operands' class of element type, looked up in the
// recipe vocabulary (recipes.go: LLVM instructions, graphc's emitters, the math runtime, special
// forms for select and casts, expansions into other rows). Whether an operation runs on vector
// lanes is the row's lane rule. The body emitter names no operation.
//
//   - Reductions: every result element starts at the op's init value; sum and prod combine with
//     the element type's rounding, max/min keep a NaN once seen, and the arg reductions keep
//     the best value so far (as float64, per result element) and a flag in workspace scratch.
//   - Guarded accesses are read under a branch: an address whose guard is false is never
//     dereferenced (the value is 0 where no piece applies; bodies read such operands only
//     under avail(k) or an unselected select arm). Selects whose arms may fail (data-dependent
//     reads, integer divisions) evaluate only the chosen arm, as the evaluator does.
//   - Data-dependent reads (SDynRead) are bounds-checked, not clamped: an index outside the
//     operand's buffer makes ENTRY return 2.
//   - Element types: f32, f64, i64, i32, i8, u8 as themselves; f16 is stored as binary16 and
//     computed in float, rounded to half precision after every operation (the evaluator's
//     rounding, with graphc's own conversions: Hexagon has none without a runtime library);
//     bool is i8 (0/1) in memory and i1 in registers, and its arithmetic is the evaluator's
//     "compute as integers, then != 0". Integer arithmetic wraps; float to integer casts
//     truncate to int64 (INT64_MIN for NaN, ±Inf and out-of-range values) and wrap.
//
// # Kernel strategies
//
// strategy.go chooses how each op's nest is emitted: the generic scalar nest; the same nest
// with the result's unit-stride dimension moved innermost when more accesses become unit-stride
// or invariant (matmul runs i-k-j; moving a dimension that the result's last index equals keeps
// the order in which every element is combined, so results are bit-identical); and explicit
// vectors of the target's width on that innermost loop when every access is unit-stride or
// invariant in it (reads guarded independently of it, as the padding of a channels-last
// tensor, load all lanes or none) and every body operation has a vector lowering; on x86-64 a
// read strided along it (a transpose) is loaded lane by lane when the body has at least 8
// nodes, so that the body still runs on vectors (a requantization fused into the NHWC -> NCHW
// transpose of a quantized convolution's output: 1.5 -> 0.85 ms for a 3x3 64-channel 56x56
// QLinearConv). Float round, floor and ceil are llvm.roundeven/floor/ceil on vectors where
// libm may be called (x86-64), the runtime lane by lane on Hexagon. Ops without
// reduction whose reads have disjoint guards (concatenations, padding copies, trilu) are split
// into one unguarded nest per read plus the rest (guard_split.go, "guard-split [...]"), and so
// are reductions whose guards constrain only their result's dims (a global pool over a
// concatenation). A windowed reduction (window.go, "window-acc": max and average pools, sums
// over a middle axis, matrix-product nests; every parallel dim indexes the result, at most 256
// window points, a domain that is the product of the result's unit-stride dim and the window)
// scans that dim in vectors with the window's loops inside: each vector of results is
// accumulated in a register, in the evaluator's order, and stored once (the interchanged nest
// stored it at every tap); a padded tap is one branch on its lane-uniform guard. A reduction whose innermost
// dim is a reduction dim the result does not depend on (softmax's and the norms' row sums and
// maxima) runs its body on vectors along that dim. Integer reductions, float maxima and minima
// and float sums accumulate in vector lanes folded in a fixed tree after the loop
// ("+vector-acc"): exact for the first two (but for the sign of a zero extremum), and a
// deterministic reassociated sum, within (n-1)·ε·Σ|xᵢ| of the evaluator's, for float sums.
// Float products, and float sums with Config.OrderedReductions, combine the lanes into the
// result element in order ("+vector-reduce"): every element is combined in the evaluator's
// order, so results keep their bits. Explicit vectors are the target's width: HVX's 128 bytes, and on
// x86-64 as wide as --mcpu/--mattr allow (the spec's vector-bytes-edits, as for the register tiles), with
// "prefer-vector-width"="512" on AVX-512 kernels. Reads of splat constants (every element
// equal) are immediates; pow(x, 2) of float32 is x·x (Go's Pow gives the same bits).
//
// Contractions get register tiles (contract.go plans, contract_emit.go emits) on targets whose
// JSON sets "register-tiles" (x86-64): a ReduceSum of f32 or f64 whose result index is the
// leading iterators, with every read unit-stride or invariant along the last result dim j, or
// invariant along aligned blocks of j (the input of a grouped convolution, read at floor(m/Mg):
// the vectors then narrow to the blocks). Convolutions reach this form through the
// channels-last pass (NHWC activations, weights output-channel last): j is the output channel,
// i an output column, and the input is a broadcast whatever the stride or dilation. The row
// dim i is the result dim most vector reads are invariant in (a symbolic extent, T tokens,
// counts as the longest). Extents may be symbolic (dynamic-axes exports: the language-model
// head over T rows, Q·Kᵀ over T keys, P·V over T keys): the domain's bounds are then
// expressions of the symbolic dims (the last row of DIE is i = T - 1, one row), the tile grid
// is scanned over them, and a symbolic number of rows gets one tile class per possible
// remainder (mr·t + r = rows, r < mr), whose scans are empty unless the dims leave that
// remainder; a symbolic number of columns leaves its last, partial tile column to a border on
// the per-point nest with ordered reductions, so that every element keeps the evaluator's
// order; a symbolic reduction always runs in kc chunks. A symbolic number of rows over an
// operand that one row of tiles would stream (below) also gets plans for at most mr and 3·mr
// rows, chosen at run time ("+rows<=8(kc=16) +rows<=24(kc=64)": 1×256·256×16384 1.82 ms
// packed, 0.33 ms streamed). gpt2 with dynamic axes: 101 ms per call on the per-point nest,
// 16.7 ms on tiles (onnxruntime 16.6 ms). Tiles of one width and different heights (the rows
// of tiles and the remainder) are scanned together, column by column, so that the remainder
// reads the column's packed panel too instead of copying every panel again. A tile
// is mr rows × nv vectors of accumulators (6×2 with 16- and 32-byte vectors, 8×3 with 64-byte
// AVX-512 vectors: 161 GFLOP/s on a 512³ matmul against 131 for 6×2), held in entry-block
// allocas that SROA turns into registers; the reduction runs in chunks along its first dim
// (kc=512 when a 512×nr panel fits 32 KiB, AVX2 and SSE tiles; 256 otherwise). The read that is
// a vector along j and varies with the reduction but not with i (B in A·B) is copied, per chunk,
// column of tiles and o..., into a contiguous stack panel that the column's micro-kernels read,
// when the panel read in place would overflow an L1 set and the copy is no larger (rows of a
// 512-wide f32 B, 2 KiB apart, fall in 2 of L1's 64 sets): 512³ with AVX2 ran in 3.4 ms in place
// and 2.9 ms packed. Convolution inputs, whose rows shifted by the kernel offsets overlap, stay
// in place. The row tiles that share a column's panel include, when columns go outermost, the
// rows of the other result dims the panel does not depend on (a 1×1 convolution at 7×7 reads
// its weights for 7 output rows: packed in kc=256 chunks, not streamed in kc=16; 3×3 weights
// in chunks short enough for the panel bound). A read strided along j (Kᵀ in attention's Q·Kᵀ once fuse has folded the
// transpose into the access) is always packed, gathered column by column, so that the
// micro-kernels read it unit-stride. Copying a panel prefetches the same rows of the next
// column's panel; on 16-register tiles (SSE, AVX2) the micro-kernels do so only when at most 8
// row tiles share the panel (the tile shape's panel-prefetch-max-row-tiles: every row tile
// issued the same prefetches; a 128×256·256×16384 lm head on Zen 3 took 35 ms with them, 20
// without); above that and up to panel-spread-max-row-tiles (24) the tiles of a column, visited
// columns outermost, share the prefetch of the next compile-time panel, each sweeping its part
// along its own reduction (a convolution at 7×7 reads each panel for 14 row tiles; 10-13%
// faster with weights colder than L3), and a chunk's panel over every reduction dim, a 3×3 convolution's 9 taps per input
// channel included, fits chunk-panel-bytes (64 KiB: kc=64 channels of 128-256, packed). Packing only moves loads: results keep their bits. The width is the CPU spec's
// vector-bytes (AVX-512 CPUs 64 bytes, AVX CPUs 32, otherwise 16) edited by --mattr
// (the spec's vector-bytes-edits); --mcpu=native reads the host's CPU flags as clang's -march=native does. AVX-512 tiles whose
// columns are fewer than 48 or exactly 64 (attention's P·V with head dims 32 and 64) take as
// many vectors as the columns need and rows for the same 24 accumulators (12×32, 6×64). A
// contraction with up to three rows of tiles (too few to pay for packing) over more than 1 MiB
// of the other operand (a GEMV, a skinny GEMM) reduces in chunks of 16 (kc=16): the tiles then
// sweep 16 rows of it side by side, sequential streams the prefetchers follow, instead of one
// page per row (1×1024 · 1024×8000: 2.7 ms with kc=256, 0.8 ms, a plain read of the 33 MB
// 0.6-1.1 ms); with two or three rows of tiles the chunks are 64 long (fewer reloads of the
// accumulators), and tiles of 4 rows or more prefetch the same point two tiles ahead.
//
// Products accumulate with llvm.fmuladd, which fuses only where the CPU has FMA: for the
// baseline x86-64 CPU the result is a rounded multiply then add, bit-identical to the
// evaluator; with FMA (AVX2 CPUs, native) results differ from the evaluator by the rounding of
// one product per term, which the native tests bound (rtol 1e-5).
//
// DIE-restricted domains are classified exactly with volume operations: a tile whose every point
// is live is full (accumulators stored directly), a tile that holds live and dead points is
// partial (the whole tile is computed, which only reads inside the op's full domain's bounding
// box, and only the live points are copied out, scanned with the tile origin as parameters), and
// a tile with no live point is never visited. This requires the domain to be a product of a
// result set and a reduction set; sparse volumes (fewer than half of the visited tiles' points
// live, e.g. a diagonal) keep the per-point nest. Convolutions with padding split into an
// interior op on tiles, where the pad guards are dropped, and a border op on the per-point nest
// ("+border"); a bias read guarded on the reduction dims alone peels the first reduction point
// so that the rest of the reduction is a plain multiply-add. A tiled result whose consumers
// read only tile-written elements skips its initialisation (accumulators start at the init
// value), and so does a graph output the tiles write whole and the result of an op without
// reduction whose consumers read only what it writes (softmax on the causal triangle). The
// chosen strategies are recorded in Entry.Strategies, e.g.
// "register-tiles 8x48 i=0 j=1 kc=256 classes=4 parts=1 +border".
//
// Before planning, access guards are decided on the op's (restricted) domain (guards.go): a
// guard that holds on the whole domain is dropped, a piece whose guard holds nowhere goes, and
// Avail of an access left with no piece or one unguarded piece is a constant. After DIE and
// known-values, causal softmax's fused mask always picks the scores on the triangle it runs
// on, so its kernels read unguarded operands and vectorize.
//
// # Integer kernels
//
// Quantized contractions — sums of (i32(x) - xz)·(i32(w) - wz) over 8-bit activations x and
// constant 8-bit weights w, plus an optional i32 bias (matmul_integer, conv_integer, QDQ groups
// after import) — run on the CPU's 4-way byte dot product into i32 register tiles (intdot.go):
// AVX-512 VNNI vpdpbusd (zmm, or ymm when the tiles are 256-bit), HVX vrmpy (Vu.ub × Vv.b),
// AVX2 without VNNI and SSE2 as i16 pmaddwd pair sums (exact: vpmaddubsw's i16 pair sums
// saturate for full-range u8 × s8), NEON usmmla for matrix products and usdot/sudot for
// convolutions (i8mm; intdot_mmla.go), sdot on activations shifted to s8 (dotprod;
// intdot_neon.go, 16 bytes of each row per load, taken by element), and portable vector IR
// elsewhere. Signed activations and unsigned
// weights are shifted by 128 and the zero points folded algebraically (Σ w per channel at
// compile time, Σ x by the same instruction against ones when a weight zero point is not 0).
// Matrix products pack the weights per column tile at compile time and broadcast four
// activation bytes per row; convolutions copy each image once into a zero-point-padded,
// 4-channel-interleaved layout and run lanes over output columns, or over output channels
// for narrow images; depthwise convolutions multiply widened bytes by broadcast weights. Dense
// box domains only (DIE that keeps a box, e.g. the last row, keeps the kernel); strategies read
// e.g. "int-dot vnni512 conv-channels 6x64". Requantization runs on vectors too: in f32 where the
// vector unit has floating point, and in 32-bit integer lanes on HVX before v68, emulating the
// f32 multiply and both roundings exactly (requant.go).
//
// Epilogues (epilogue.go): a chain of elementwise consumers of a tiled contraction (bias,
// residual Add, Relu, Clip, a scale...), each the only reader of the previous value (in one or
// more operands: SiLU's x·sigmoid(x), GELU's x·Φ(x)), reading it at the same index,
// unrestricted (but for the graph's requirements on the symbolic dims) and with
// vectorisable bodies, runs on the accumulators once
// the reduction is complete (in the last kc chunk) and only the chain's last result is stored;
// the consumers' kernels are not called ("+epilogue(n)"). Their bodies see the values they
// would have read, so results keep their bits. Config.NoEpilogues turns this off.
//
// Transposing copies (transpose.go): an elementwise op over one f32 operand whose unit-stride
// dim is not the result's (the reorders between a graph's NCHW tensors and channels-last
// activations) runs on vl×vl blocks loaded as vectors along the operand's unit-stride dim,
// transposed in registers and stored as vectors along the result's ("transpose 16x16" on
// AVX-512; 4 and 8 lanes on SSE and AVX2): the NCHW input of a 112²×96 depthwise convolution
// was copied channels-last in 1.22 ms by the per-point nest, 0.39 ms in blocks.
//
// # Stages and the plan
//
// Builder.Add lowers a graph in named stages, one ordered table in stages.go (Stages lists
// them), each a function over the graph's entry context that reads what the stages before it
// filled:
//
//   - regions (computeRegions, region.go) decides the box of every workspace tensor: what its
//     producer writes and its readers read, after DIE the bounding box of the required volume;
//   - buffers (planBuffers, plan.go; planEpilogues, epilogue.go; planAliases, alias.go) decides
//     where every value lives: workspace slots shared by buffers whose lifetimes do not
//     overlap, the epilogue chains whose consumers are computed by a contraction's kernel, the
//     values written in place into their padded copies, and the constants' globals;
//   - kernels (emitKernel, kernel.go) chooses each op's kernel by the ordered table of kernel
//     families (kernel_choice.go: algorithm, int-dot, nbits-gemm, nbits-gemv, register-tiles, guard-split, piece-split, nest;
//     the first that applies wins) and emits it, or shares the kernel of an earlier op with
//     the same structural key (dedup.go, which only memoises the choice);
//   - entry (emitEntry, entry.go) emits the entry, which calls the kernels in op order, and
//     ENTRY_workspace_size.
//
// Entry.Plan collects what they decided from the state they fill anyway (plan_print.go), and
// Plan.String prints it (graphc --emit=plan):
//
//	plan main_graph: x86-64 cpu=skylake-avx512 vector-bytes=64 tile-bytes=64
//	buffers: workspace 3072 bytes
//	  slot 0 @0 1024 bytes: %h1 ops 0..1, %h2 ops 2..3, %h3 ops 4..5
//	op 4 %h3 = matmul f32[4, 64]
//	  region: whole
//	  buffer: slot 0
//	  kernel: main_graph.k2.matmul (shared with op 2)
//	  strategy: register-tiles 6x64 i=0 j=1 kc=0 classes=1 parts=1 +epilogue(1)
//	  choice: register-tiles (int-dot: not an i32 sum; nbits-gemm: not a block-quantized weight product over whole rows; nbits-gemv: not a block-quantized weight product over whole rows)
//	  epilogue: %r3 (relu)
//
// Regions print as "whole" or per dim lo..hi, inclusive ([7..7, 0..31]: the last row after
// DIE; symbolic bounds in parentheses); a buffer is a workspace slot, "output k", or "in place
// in %p at [shift]"; epilogue ops print "kernel: none (epilogue of %c)". The choice line names
// the kernel family that won and, in parentheses, why each family above it did not apply.
//
// Config.PrintAfter (graphc --print-lowering-after=STAGE, repeatable, or "all"; to stderr)
// prints the plan known after a stage, under a header line like the passes' IR dumps:
//
//	// -----// Lowering Dump After regions //----- //
//	plan main_graph (after regions): x86-64 cpu=haswell vector-bytes=32 tile-bytes=32
//	op 0 %all = matmul f32[16, 100]
//	  region: [15..15, 0..99]
//
// A partial plan names its stage on its first line and has only the lines of the stages up to
// it, in the plan's order: after regions, each op and its region; after buffers, also the
// workspace and its slots and each op's buffer, scratch and epilogue lines; after kernels, also
// the kernels, strategies and choices, which is the whole plan; after entry, the plan exactly as
// --emit=plan prints it. Printing emits nothing: the module is the same with and without it.
//
// Tests of lowering decisions are CHECK tests (testdata/lowering/*.graph, filecheck_test.go):
// "// RUN: graphc --target=hexagon --mcpu=hexagonv68 [--emit=plan] [--check-prefix=HVX] %s"
// lines lower the file's graphs (as written, or after --pipeline=; several graphs separated by
// "// -----" share the file's RUN lines), and the CHECK lines of the RUN line's prefix are
// matched against the module, the plan, the header or the dump of --print-lowering-after
// (internal/filecheck). One whole-module golden per target (testdata/lower-golden,
// golden_test.go) remains as a smoke test.
//
// # Profiling
//
// Config.Profile (graphc --profile) wraps every kernel call of the entry with
// llvm.readcyclecounter and adds the cycles to a per-op counter, plus one for whole calls;
// ENTRY_profile copies and resets them (profile.go). graphc-bench -real -profile N prints the
// slowest ops with their ONNX node names and strategies.
// Kernel symbols end with their op's source node name (ENTRY.k3.conv.layer1_0_conv1_Conv), so
// perf and disassemblies point back to the model too.
//
// # Buffers
//
// Graph inputs, outputs and constants (private globals, 128-byte aligned) keep their full
// shapes. Every other op result lives in the caller's workspace, in a buffer sized by the
// bounding box of the elements that are written or read (after DIE, the required volume: the
// last row of a 128×32000 product keeps a 1×32000 buffer; accesses are rebased to the box
// origin). Buffers whose lifetimes do not overlap share a 128-byte aligned slot (plan.go);
// ENTRY_workspace_size computes the same layout. Inputs are never written; nothing but the
// outputs and the workspace is, so calls are deterministic and re-entrant with distinct
// workspaces. A value whose only reader copies it into the interior of a larger tensor (the
// explicitly padded input of a convolution) has no buffer of its own: its producer writes it
// in place, through a view with the larger buffer's strides, and the copy writes only the
// border (alias.go), so every activation is written once.
//
// # Targets
//
// Targets are JSON files in targets/ with inheritance (TinyGo's scheme): triple, data layout,
// CPU, features, explicit vector width and the operations without an inline lowering. A file
// named after its "cpu" is a CPU spec (hexagonv66…v75, x86-64, x86-64-v2…v4, haswell,
// znver4…): --mcpu selects it, so the CPU's own default features and vector width apply, and
// --mattr edits them as llc's -mattr does (Target.ForCPU, MergeFeatures); an unknown CPU is an
// error listing the valid ones. x86-64 uses LLVM's vectorizer; hexagon (default hexagonv68,
// +hvxv68,+hvx-length128b) gets explicit 128-byte HVX vectors (<32 x float>, <128 x i8>...) on
// innermost unit-stride loops and 128-byte aligned buffers; HVX before v68 has no floating
// point (vector-int-only: float loops stay scalar, integer loops use HVX); with HVX off
// (hexagon-v67, or --mattr=-hvx) the code is scalar.
// Hexagon modules reference no external symbol and carry "no-builtins" so that LLVM does not
// introduce memset/memcpy calls. aarch64 (default generic: NEON; cortex-a55…x2, neoverse-n1/v1,
// apple-m1, whose names imply dotprod, i8mm, fullfp16, bf16 as LLVM 19 sees them) has 16-byte
// vectors and 32 registers: register-tile-shapes gives its float tiles 8×3 vectors, as
// AVX-512's (Target.TileShapeFor; x86-64's 6×2 below 64 bytes, "rolled": its reduction
// nests stay rolled, see loopmd.go).
//
// # Math runtime
//
// Functions without an inline lowering are emitted into the module as internal functions
// (mathrt.go, math_*.go): exp, log, tanh, sigmoid, erf, sin, cos, atan, pow (ports of Go's
// pure-Go math: fdlibm and Cephes algorithms, same constants and evaluation order), floor, ceil,
// round-half-even, fmod (exact), correctly rounded f64 division and square root (soft, on
// Hexagon), int64 division and remainder (soft, on Hexagon), integer power and the binary16
// conversions. f32 and f16 operations compute in float64 and round once, except exp, log, tanh,
// sigmoid and erf of float32 (and f16, computed in float): those are float32 polynomials
// emitted inline on scalars and vectors alike (math_vec.go), so that they vectorize. Accuracy
// (TestMathAccuracy, 2·10^6 arguments per function, against Go's math package on amd64, whose
// Exp and Log are assembly): f64 exp ≤ 2 ulp (≤ 1 ulp from the correctly rounded value), log 0,
// tanh ≤ 2, sigmoid ≤ 4, erf ≤ 1, sin and cos 0 (Payne–Hanek reduction above 2^29), atan 0, pow ≤ 6
// (Go's own pow is not correctly rounded either), sqrt, floor, ceil, round, fmod and division
// 0; float32 exp ≤ 1 ulp (subnormal results included), log ≤ 1, tanh ≤ 1, sigmoid ≤ 2, erf ≤ 2
// (10^6 arguments over the ranges where they are not constant; on HVX vectors, which have no
// division, their quotients use a Newton reciprocal: tanh ≤ 2, sigmoid ≤ 3); every other f32
// result 0 ulp on the sweep, with the float32 polynomials' multiply-adds fused (llvm.fma, on CPUs
// with a hardware fused multiply-add for float vectors: x86-64 with FMA3, AArch64;
// TestMathAccuracyFused) or not (baseline x86-64, Hexagon, whose HVX has no vector FMA). Targets
// of the same FMA capability give the same bits: Hexagon scalar code as baseline x86-64,
// AArch64 as x86-64-v3 (TestMathBitsEqualAcrossTargets).
package lower
