// This file holds channels-last: the layout pass of convolutional networks. It stores the
// activations around convolutions and pools of any spatial rank channels-last (NWC, NHWC, NDHWC
// instead of NCW, NCHW, NCDHW), orders each
// rewritten op's iteration dims as its result's axes, moves the output-channel axis of constant
// weights last, and gives convolutions whose padding reads nothing an explicitly zero-padded
// input. All of it only renames where elements live: the element maps compose exactly.

package passes

import (
	"context"
	"fmt"
	"maps"
	"slices"

	"github.com/graphc/graphc/ir"
	"github.com/graphc/graphc/volume"
)

var channelsLastPass = &Pass{
	Name:    "channels-last",
	Summary: "store the activations of convolutional networks channels-last (NWC, NHWC, NDHWC), weights output-channel last, and pad convolution inputs explicitly",
	Doc: `Convolutions vectorise along output channels: a register tile holds a few output pixels by
many output channels, broadcasts one input element per pixel and loads the weights as vectors.
That needs the channels innermost in the result and the weights (oneDNN's and MLAS's blocked
layouts serve the same purpose).
The pass finds the windowed ops (a result of rank r >= 3 read from an operand of rank r
through windows that combine result and reduction dims on every spatial axis 2..r-1: 1D, 2D
and 3D convolutions, depthwise convolutions, pools), and the values of the same rank connected
to them through ops that keep the channel axis (elementwise ops, broadcasts, batch
normalisation, concatenations along channels, global pools). Those values, when they are
neither graph inputs nor graph outputs and every op touching them has static accesses, are
stored with axis 1 moved last (NCW to NWC, NCHW to NHWC, NCDHW to NDHWC): the producer's out
map and every consumer's access maps are composed with the permutation. Operands of another
rank (a bias [C, 1, 1]) keep their layout. Graph inputs and outputs keep their layout, so
reorders happen only where the graph begins and ends, and where a windowed op's result is also
read by an op of no static form (RoiAlign over an FPN level): the windowed op writes a
channels-last value, a copy reorders it for those readers, and the others read it
channels-last. A 2D convolution with few channels over
wide rows keeps NCHW (it vectorises along its rows) unless its input is a channels-last
activation (computed by a convolution or pool that does not keep NCHW), which NCHW would
transpose.
A channel shuffle that fuse has folded into a rank-5 view [N, G, C/G, H, W] (ShuffleNet's
reshape-transpose-reshape, read at [0, c mod G, floor(c/G), h, w]) is stored as the rank-4
channels-last value [N, H, W, C] with channel (g, c') at c'·G + g when every consumer then reads
a plain channel index: its writer stores the shuffled order and its consumers, convolutions
among them, read channels at unit stride.
Each rewritten op's parallel iteration dims are reordered as its result's axes (reduction dims
keep their order, so every sum is combined in the same order). In every sum whose last result
dim j indexes an axis of a constant other than its last one (conv weights [M, C, kernel…], Gemm
weights with transB), that axis of the constant is moved last.
A sum reading an operand through an access guarded exactly by the operand's bounds (padding),
as select(avail, x·w, 0) with w a finite constant, reads instead a zero-padded copy of the
operand made by a new op over the elements the sum reads (channels-last, reordering a
channels-first graph input): x·w is then ±0 where the original added +0, and an accumulator
that starts at +0 is never -0, so every sum keeps its bits. With symbolic dims (the samples of
a dynamic-axes export) the copy's extents are expressions of them, and a side of the copy
reads the operand through a guard unless its bounds hold for every value of them.
Cost check (passes/cost.go): each connected group of values the layout would store
channels-last is weighed first. Its windowed ops gain (NCHW nest estimate - 1/lanes) operations
per iteration (a nest reading its rows at unit stride runs on vectors, a strided one is
scalar; channels-last register tiles take vectors along the output channels); every element
that crosses the group's border (a graph input or output, a value read across it) costs a
transposing copy of one operation. A group whose reorders cost more than it gains keeps
NCHW, with a remark in the dump after channels-last ("remark: channels-last: op %y: kept
channels-first: channels-last would gain about N operations ... and add reorders of about
M"). Groups with symbolic sizes are taken.
Postconditions: every required output element keeps its bits; domains keep their points
(permuted), so DIE's restrictions hold.`,
	Run: runChannelsLast,
}

// minSpatialRank is the smallest rank of a value stored channels-last: batch, channels and at
// least one spatial axis (NCW of a 1D convolution; NCHW and NCDHW of 2D and 3D ones).
const minSpatialRank = 3

// channelsLast returns the axis order of a channels-last value of rank r (NCW → NWC, NCHW →
// NHWC, NCDHW → NDHWC): new axis p holds old axis channelsLast(r)[p].
func channelsLast(r int) []int {
	perm := make([]int, 0, r)
	perm = append(perm, 0)
	for a := 2; a < r; a++ {
		perm = append(perm, a)
	}
	return append(perm, 1)
}

// runChannelsLast runs the channels-last pass (channelsLastPass.Doc) over g.
func runChannelsLast(ctx context.Context, g *ir.Graph, st *State) error {
	stats := st.Stats["channels-last"]
	outputs := map[*ir.Value]bool{}
	for _, o := range g.Outputs {
		outputs[o] = true
	}
	var seeds []*ir.Op
	for _, op := range g.Ops {
		if isWindowOp(op) {
			seeds = append(seeds, op)
		}
	}
	if len(seeds) == 0 {
		return nil
	}
	// the cost check: groups whose reorders cost more than their windowed ops gain keep NCHW
	refused := layoutRefusals(g, plannedChannelsLast(ctx, g))
	for _, op := range seeds {
		if why := refused[op]; why != "" {
			st.remark("channels-last", op.Result.Name, why)
		}
	}
	// a windowed op that writes a graph output writes a channels-last value instead, which a
	// copy reorders into the output: the reorder happens at the graph's end
	for _, op := range seeds {
		if outputs[op.Result] && op.Result.Type.Rank() >= minSpatialRank && staticForm(op) && !keepsNCHW(op) && refused[op] == "" {
			if err := reorderOutput(g, op); err != nil {
				return err
			}
		}
	}
	// a windowed op whose result a data-dependent op also reads (RoiAlign over an FPN level)
	// writes a channels-last value the same way: the copy reorders it for the data-dependent
	// readers, and the others read it channels-last
	if err := reorderForDynamicReaders(g, seeds, outputs, refused); err != nil {
		return err
	}
	users := g.Users()
	eligible := func(v *ir.Value) bool {
		if v == nil || v.Def == nil || outputs[v] || v.Type.Rank() < minSpatialRank || !staticForm(v.Def) {
			return false
		}
		for _, u := range users[v] {
			if !staticForm(u) {
				return false
			}
		}
		return true
	}
	// channel shuffles folded into rank-5 views are stored channels-last first
	merged, err := mergeShuffles(g, users, outputs)
	if err != nil {
		return err
	}
	if len(merged) > 0 {
		users = g.Users()
		// their consumers are windowed ops too: over axes 1 and 2
		for _, op := range g.Ops {
			if !slices.Contains(seeds, op) && !outputs[op.Result] && windowsOver(op, merged) {
				seeds = append(seeds, op)
			}
		}
	}
	keep := map[*ir.Value]bool{}
	for v := range merged {
		keep[v] = true // already channels-last
	}
	for _, op := range seeds {
		if keepsNCHW(op) || refused[op] != "" {
			keep[op.Result], keep[op.Operands[0]] = true, true
		}
	}
	set, err := channelsLastValues(ctx, g, seeds, keep, eligible)
	if err != nil {
		return err
	}
	nhwcNow := maps.Clone(set) // the values stored channels-last once the pass is done
	maps.Copy(nhwcNow, merged)
	// new types first: the rewritten ops are rebuilt from their operands' and result's types
	for v := range set {
		v.Type.Shape = permuteAffs(v.Type.Shape, channelsLast(len(v.Type.Shape)))
	}
	ops := slices.Clone(g.Ops)
	for _, op := range ops {
		if err := ctx.Err(); err != nil {
			return err
		}
		touched := set[op.Result]
		for _, o := range op.Operands {
			touched = touched || set[o]
		}
		if !touched && op.Reduce != ir.ReduceSum {
			continue
		}
		if !staticForm(op) {
			continue
		}
		form := *op
		form.Operands = slices.Clone(op.Operands)
		form.Access = slices.Clone(op.Access)
		for k, o := range op.Operands {
			if set[o] {
				form.Access[k] = permuteAccess(op.Access[k], channelsLast(o.Type.Rank()))
			}
		}
		if set[op.Result] {
			form.Out = permuteAccess(op.Out, channelsLast(op.Result.Type.Rank()))
		}
		changed := touched
		if reorderDims(&form) {
			changed = true
		}
		if relayoutWeights(g, &form) {
			changed = true
		}
		var padded *ir.Op
		var regions []*ir.Op
		if set[op.Result] {
			var err error
			if regions, err = splitTaps(g, &form); err != nil {
				return err
			}
			if regions == nil {
				if padded, err = padInput(g, &form, nhwcNow); err != nil {
					return err
				}
			}
		}
		if padded != nil || regions != nil {
			changed = true
		}
		if !changed {
			continue
		}
		for _, r := range regions {
			// the region sums go right before the copy that assembles them
			insertBefore(g, op, r, op.Result.Name+"_taps")
		}
		if padded != nil {
			// the padding op goes right before its consumer
			insertBefore(g, op, padded, op.Result.Name+"_pad")
		}
		done, err := replaceOp(g, op, &form)
		if err != nil {
			return err
		}
		if !done {
			return fmt.Errorf("channels-last: %s (%s) cannot be rebuilt as a generic op", op.Result.Name, op.Kind)
		}
		if stats != nil {
			stats.OpsRewritten++
		}
	}
	g.RemoveOps(func(*ir.Op) bool { return false }) // the weights copied in another layout
	return nil
}

// channelsLastValues returns the values channels-last stores around the windowed ops seeds:
// their results and operands of the same rank, and the values keepsChannels connects to
// those, among the eligible values not in keep.
func channelsLastValues(ctx context.Context, g *ir.Graph, seeds []*ir.Op, keep map[*ir.Value]bool, eligible func(*ir.Value) bool) (map[*ir.Value]bool, error) {
	set := map[*ir.Value]bool{}
	add := func(v *ir.Value) bool {
		if set[v] || keep[v] || !eligible(v) {
			return false
		}
		set[v] = true
		return true
	}
	for _, op := range seeds {
		add(op.Result)
		for _, o := range op.Operands {
			// the windowed operands: a bias or a scale of another rank keeps its layout
			if o.Type.Rank() == op.Result.Type.Rank() {
				add(o)
			}
		}
	}
	for changed := true; changed; {
		changed = false
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		for _, op := range g.Ops {
			for k, o := range op.Operands {
				if !keepsChannels(op, k) {
					continue
				}
				if set[op.Result] && add(o) || set[o] && add(op.Result) {
					changed = true
				}
			}
		}
	}
	return set, nil
}

// plannedChannelsLast returns the values channels-last would store channels-last in g as it
// is (fuse judges strides in the layout values will have): the values around the windowed ops
// that keep no NCHW, graph outputs such ops write included (they write a reordered copy).
func plannedChannelsLast(ctx context.Context, g *ir.Graph) map[*ir.Value]bool {
	var seeds []*ir.Op
	keep := map[*ir.Value]bool{}
	for _, op := range g.Ops {
		if isWindowOp(op) {
			seeds = append(seeds, op)
			if keepsNCHW(op) {
				keep[op.Result], keep[op.Operands[0]] = true, true
			}
		}
	}
	if len(seeds) == 0 {
		return nil
	}
	outputs := map[*ir.Value]bool{}
	for _, o := range g.Outputs {
		outputs[o] = true
	}
	users := g.Users()
	eligible := func(v *ir.Value) bool {
		if v == nil || v.Def == nil || v.Type.Rank() < minSpatialRank || !staticForm(v.Def) {
			return false
		}
		if outputs[v] && !isWindowOp(v.Def) {
			return false
		}
		for _, u := range users[v] {
			if !staticForm(u) {
				return false
			}
		}
		return true
	}
	set, err := channelsLastValues(ctx, g, seeds, keep, eligible)
	if err != nil {
		return nil
	}
	return set
}

// keepsNCHW reports whether a windowed op keeps NCHW: a sum whose weights are not constants
// (they can be neither relaid out nor checked finite for explicit padding), or one that
// vectorises better along its rows (prefersNCHW).
func keepsNCHW(op *ir.Op) bool {
	return keepsNCHWWithin(op, new(int))
}

// keepsNCHWWithin is keepsNCHW within channelsLastAncestor's budget (*visited ops seen so far).
func keepsNCHWWithin(op *ir.Op, visited *int) bool {
	if op.Reduce != ir.ReduceSum {
		return false
	}
	for k := 1; k < len(op.Operands); k++ {
		if !op.Operands[k].IsConst() {
			return true
		}
	}
	return prefersNCHW(op, visited)
}

// Few output channels over wide rows: NCHW vectorises better (prefersNCHW).
const (
	nchwMaxChannels = 16 // one AVX-512 vector of f32
	nchwMinWidth    = 64
)

// prefersNCHW reports whether a convolution vectorises better along its output rows than along
// its output channels (2D convolutions only): at most nchwMaxChannels of them from as few input channels, rows of
// at least nchwMinWidth read at unit stride (a 3-to-16-channel 3×3 convolution of a 224×224
// image ran 30% slower channels-last, with its reorders), over an input that no channels-last
// windowed op computed (the image, copies of it, the result of a convolution that keeps NCHW).
// With more input channels, or an input computed by an earlier channels-last convolution or
// pool, the input is a channels-last activation, which NCHW would
// transpose (MobileNetV2's and EfficientNet's first 32-to-16-channel projections at 112×112
// read their input through a scalar transposing copy: 0.35 ms, 5% of the network;
// MobileNetV3's 16-channel first block after its stride-2 stem read it through a transposing
// HardSwish and wrote its residual sum through a second one: 0.3 ms, 4%, on Zen 3).
func prefersNCHW(op *ir.Op, visited *int) bool {
	shape, ok := op.Result.Type.StaticShape()
	if !ok || len(shape) != 4 || shape[1] > nchwMaxChannels || shape[3] < nchwMinWidth || len(op.Out.Pieces) != 1 {
		return false
	}
	if in, ok := op.Operands[0].Type.StaticShape(); !ok || len(in) != 4 || in[1] > nchwMaxChannels {
		return false
	}
	ow := op.Out.Pieces[0].Index[3].ShiftedDim()
	if ow < 0 {
		return false
	}
	x := op.Access[0]
	return len(x.Pieces) == 1 && coefOf(x.Pieces[0].Index[3], ow) == 1 && !channelsLastAncestor(op.Operands[0], visited)
}

// ancestorBudget bounds the ops channelsLastAncestor visits (its recursions included): past
// it, the value is deep inside a network and taken as a channels-last activation.
const ancestorBudget = 256

// channelsLastAncestor reports whether v is computed, through ops that are not windowed, from
// a windowed op (isWindowOp) that does not keep NCHW (keepsNCHW); *visited counts the ops seen.
func channelsLastAncestor(v *ir.Value, visited *int) bool {
	seen := map[*ir.Op]bool{}
	stack := []*ir.Value{v}
	for len(stack) > 0 {
		w := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if w.Def == nil || seen[w.Def] {
			continue
		}
		seen[w.Def] = true
		if *visited++; *visited > ancestorBudget {
			return true
		}
		if isWindowOp(w.Def) {
			if !keepsNCHWWithin(w.Def, visited) {
				return true
			}
			continue // an NCHW result: the path ends here
		}
		stack = append(stack, w.Def.Operands...)
	}
	return false
}

// coefOf returns the coefficient of iteration dim d in a.
func coefOf(a volume.Aff, d int) int64 {
	if d < len(a.Dims) {
		return a.Dims[d]
	}
	return 0
}

// reorderOutput makes op write a new value and adds, right after op, a copy of it into op's
// old result (a graph output) over the elements op writes.
func reorderOutput(g *ir.Graph, op *ir.Op) error {
	out := op.Result
	r := out.Type.Rank()
	names := make([]string, r)
	for a := range names {
		names[a] = "d" + string(rune('0'+a))
	}
	dom := op.Domain.Apply(op.OutMap(g.Params)).SetTupleName("").SetDimNames(names).Coalesce()
	if dom.Err() != nil {
		return nil // volume gave up: leave the op alone
	}
	inner := &ir.Value{Type: out.Type, Def: op}
	c := &ir.Op{
		Kind:     "copy",
		Name:     op.Name,
		Operands: []*ir.Value{inner},
		Dims:     names,
		Iters:    make([]ir.IterKind, r),
		Full:     volume.Box(g.Params, "", names, out.Type.Shape),
		Domain:   dom,
		Access:   []ir.Access{ir.AffAccess(identityAffs(r)...)},
		Out:      ir.AffAccess(identityAffs(r)...),
		Body:     ir.Read(0, out.Type.Elem),
		Result:   out,
	}
	gen, err := ir.ToGeneric(g.Params, c)
	if err != nil {
		return nil
	}
	gen.Domain = dom.SetDimNames(gen.Dims)
	gen.Result = out
	out.Def = gen
	op.Result = inner
	g.Append(&ir.Op{Result: inner}, out.Name+"_nhwc") // names inner
	g.Ops = g.Ops[:len(g.Ops)-1]
	at := slices.Index(g.Ops, op)
	g.Ops = slices.Insert(g.Ops, at+1, gen)
	return nil
}

// reorderForDynamicReaders gives each windowed op in seeds whose result is read by an op of
// no static form (an algorithm op such as roi_align, which would keep the whole value NCHW:
// Mask R-CNN's FPN output convolutions, 3×3 over 256 channels, then ran with their rows along
// the output channels at a third of the channels-last tiles' speed) a channels-last result as
// reorderOutput does for graph outputs: the reordering copy keeps the old value for the
// readers of no static form, and the static readers read the new value, channels-last once
// the pass has run.
func reorderForDynamicReaders(g *ir.Graph, seeds []*ir.Op, outputs map[*ir.Value]bool, refused map[*ir.Op]string) error {
	users := g.Users()
	for _, op := range seeds {
		old := op.Result
		if outputs[old] || old.Type.Rank() < minSpatialRank || !staticForm(op) || keepsNCHW(op) || refused[op] != "" {
			continue
		}
		us := users[old]
		if !slices.ContainsFunc(us, func(u *ir.Op) bool { return !staticForm(u) }) {
			continue
		}
		if err := reorderOutput(g, op); err != nil {
			return err
		}
		if op.Result == old {
			continue // volume gave up: the op keeps its result
		}
		for _, u := range us {
			if !staticForm(u) {
				continue
			}
			for k, o := range u.Operands {
				if o == old {
					u.Operands[k] = op.Result
				}
			}
		}
	}
	return nil
}

// staticForm reports whether every access of op is static (no data-dependent reads), so that
// the op can be rebuilt as a generic op.
func staticForm(op *ir.Op) bool {
	if op.Out.Approx {
		return false
	}
	for k, a := range op.Access {
		if a.Approx || readsDynamically(op.Body, k) {
			return false
		}
	}
	return true
}

// isWindowOp reports whether op reads an operand of its result's rank r >= 3 through windows:
// the operand's spatial axes 2..r-1 are each one parallel dim and one reduction dim, without
// floor division (convolutions and pools, 1D, 2D or 3D).
func isWindowOp(op *ir.Op) bool {
	return windowsOver(op, nil)
}

// windowsOver is isWindowOp, for operands in nhwc over axes 1..r-2 (they are stored
// channels-last already) and for the others over axes 2..r-1.
func windowsOver(op *ir.Op, nhwc map[*ir.Value]bool) bool {
	r := op.Result.Type.Rank()
	if r < minSpatialRank || len(op.Out.Pieces) != 1 || !staticForm(op) {
		return false
	}
	for k, o := range op.Operands {
		if o.Type.Rank() != r || len(op.Access[k].Pieces) != 1 {
			continue
		}
		idx := op.Access[k].Pieces[0].Index[2:]
		if nhwc[o] {
			idx = op.Access[k].Pieces[0].Index[1 : r-1]
		} else if nhwc != nil {
			continue
		}
		win := true
		for _, a := range idx {
			// a window axis is stride·o + dilation·t (+ a constant): one parallel dim (the
			// output position) and one reduction dim (the tap), no floor division; attention
			// products reading heads through folded reshapes (32h + k - 128⌊(32h + k)/128⌋)
			// are not windows
			par, red := 0, 0
			for d, c := range a.Dims {
				if c == 0 {
					continue
				}
				if op.Iters[d] == ir.Reduction {
					red++
				} else {
					par++
				}
			}
			win = win && par == 1 && red == 1 && len(a.Floors) == 0
		}
		if win {
			return true
		}
	}
	return false
}

// keepsChannels reports whether op reads the channel axis of operand k where it writes its
// result's, both of the same rank r >= 3: both axis-1 indices are the same iteration dim, up
// to a constant offset (elementwise ops, broadcasts, concatenations along channels, pools).
func keepsChannels(op *ir.Op, k int) bool {
	r := op.Result.Type.Rank()
	if r < minSpatialRank || op.Operands[k].Type.Rank() != r || len(op.Out.Pieces) != 1 || op.Access[k].Approx {
		return false
	}
	c := op.Out.Pieces[0].Index[1].ShiftedDim()
	if c < 0 {
		return false
	}
	for _, p := range op.Access[k].Pieces {
		if p.Index[1].ShiftedDim() != c {
			return false
		}
	}
	return true
}

// permuteAffs returns xs reordered: element p of the result is xs[perm[p]].
func permuteAffs(xs []volume.Aff, perm []int) []volume.Aff {
	out := make([]volume.Aff, len(perm))
	for p, q := range perm {
		out[p] = xs[q]
	}
	return out
}

// permuteAccess composes an access with an axis permutation of its tensor.
func permuteAccess(a ir.Access, perm []int) ir.Access {
	out := ir.Access{Approx: a.Approx, ApproxMap: a.ApproxMap}
	for _, p := range a.Pieces {
		out.Pieces = append(out.Pieces, ir.AccessPiece{Guard: p.Guard, Index: permuteAffs(p.Index, perm)})
	}
	return out
}

// reorderDims renumbers op's iteration dims so that its result index is the leading dims in
// order, when that index is distinct parallel dims and every other dim is a reduction. Only
// parallel dims move, so every result element is combined in the same order.
func reorderDims(op *ir.Op) bool {
	if len(op.Out.Pieces) != 1 || len(op.Out.Pieces[0].Guard) > 0 {
		return false
	}
	idx := op.Out.Pieces[0].Index
	n := op.NDim()
	order := make([]int, 0, n) // new dim p is old dim order[p]
	seen := make([]bool, n)
	for _, a := range idx {
		d := a.ShiftedDim()
		if d < 0 || a.Const != 0 || seen[d] || op.Iters[d] != ir.Parallel {
			return false
		}
		seen[d] = true
		order = append(order, d)
	}
	for d := 0; d < n; d++ {
		if !seen[d] {
			if op.Iters[d] != ir.Reduction {
				return false
			}
			order = append(order, d)
		}
	}
	identity := true
	for p, d := range order {
		identity = identity && p == d
	}
	if identity {
		return false
	}
	pos := make([]int, n) // old dim d is new dim pos[d]
	for p, d := range order {
		pos[d] = p
	}
	sub := make([]volume.Aff, n)
	for d := range sub {
		sub[d] = volume.AffDim(pos[d])
	}
	for k := range op.Access {
		op.Access[k] = substAccess(op.Access[k], sub)
	}
	op.Out = substAccess(op.Out, sub)
	// the new domain: the points y whose old point x (x[d] = y[pos[d]]) is in the old one
	dims := make([]string, n)
	iters := make([]ir.IterKind, n)
	for p, d := range order {
		dims[p] = op.Dims[d]
		iters[p] = op.Iters[d]
	}
	m := volume.MultiAff{Params: op.Domain.Params(), InName: op.Domain.TupleName(), InDims: dims,
		OutName: op.Domain.TupleName(), Exprs: sub}.Map()
	op.Domain = op.Domain.Preimage(m).SetDimNames(dims)
	op.Full = op.Full.Preimage(m).SetDimNames(dims)
	op.Dims, op.Iters = dims, iters
	op.ArgDim = pos[op.ArgDim]
	op.Body = cloneScalar(op.Body, func(s *ir.Scalar) *ir.Scalar {
		if s.Op == ir.SIndex {
			return ir.Index(pos[s.Arg])
		}
		return nil
	})
	return true
}

// relayoutWeights moves last the axis of a constant operand that a sum's last result dim j
// indexes (W[M, C, kh, kw] of a convolution whose result is channels-last, a Gemm's transposed
// B), so that the operand is read as vectors along j. The constant is replaced by a transposed copy (the original goes when no op uses it).
func relayoutWeights(g *ir.Graph, op *ir.Op) bool {
	if op.Reduce != ir.ReduceSum || len(op.Out.Pieces) != 1 {
		return false
	}
	out := op.Out.Pieces[0].Index
	nOut := len(out)
	if nOut == 0 || nOut >= op.NDim() {
		return false
	}
	for d, a := range out {
		if a.ShiftedDim() != d || a.Const != 0 {
			return false
		}
	}
	j := nOut - 1
	changed := false
	for k, o := range op.Operands {
		if !o.IsConst() || len(op.Access[k].Pieces) != 1 || len(op.Access[k].Pieces[0].Guard) > 0 || o.Type.Rank() < 2 {
			continue
		}
		idx := op.Access[k].Pieces[0].Index
		last := len(idx) - 1
		axis := -1
		for a, x := range idx {
			uses := j < len(x.Dims) && x.Dims[j] != 0 || len(x.Floors) > 0
			if !uses {
				continue
			}
			if axis >= 0 || x.ShiftedDim() != j || x.Const != 0 {
				axis = -2
				break
			}
			axis = a
		}
		if axis < 0 || axis == last {
			continue
		}
		perm := make([]int, 0, len(idx))
		for a := range idx {
			if a != axis {
				perm = append(perm, a)
			}
		}
		perm = append(perm, axis)
		data := transposeTensor(o.Data, perm)
		nv := g.AddConst(o.Name+"_t", data)
		op.Operands[k] = nv
		op.Access[k] = permuteAccess(op.Access[k], perm)
		changed = true
	}
	return changed
}

// transposeTensor returns t with its axes reordered: axis p of the result is axis perm[p] of t.
func transposeTensor(t *ir.Tensor, perm []int) *ir.Tensor {
	r := len(t.Shape)
	shape := make([]int64, r)
	for p, q := range perm {
		shape[p] = t.Shape[q]
	}
	raw := t.IsRaw() // a weight kept as bytes stays bytes
	var in, outRaw []byte
	sz := int64(t.Elem.Size())
	out := &ir.Tensor{}
	if raw {
		in, outRaw = t.Bytes(), make([]byte, len(t.Bytes()))
	} else {
		out = ir.NewTensor(t.Elem, shape)
	}
	stride := make([]int64, r) // element stride of each axis of t
	s := int64(1)
	for a := r - 1; a >= 0; a-- {
		stride[a] = s
		s *= t.Shape[a]
	}
	pos := make([]int64, r)
	n := ir.NumElements(shape)
	for i := int64(0); i < n; i++ {
		var src int64
		for p := range perm {
			src += pos[p] * stride[perm[p]]
		}
		switch {
		case raw:
			copy(outRaw[i*sz:(i+1)*sz], in[src*sz:])
		case t.Elem.IsFloat():
			out.F[i] = t.F[src]
		default:
			out.I[i] = t.I[src]
		}
		for p := r - 1; p >= 0; p-- {
			pos[p]++
			if pos[p] < shape[p] {
				break
			}
			pos[p] = 0
		}
	}
	if raw {
		t, err := ir.TensorFromRaw(t.Elem, shape, outRaw)
		if err != nil {
			panic(err) // the same number of bytes
		}
		return t
	}
	return out
}

// mergeShuffles stores channels-last the rank-5 values [N, G, C/G, H, W] through which a
// channel shuffle reaches its consumers once fuse has folded the reshapes and the transpose
// into their accesses (ShuffleNet: consumers read channel c at [0, c mod G, floor(c/G), h, w]):
// such a value becomes the rank-4 value [N, H, W, C] whose channel (g, c') is c'·G + g, when
// every consumer then reads a plain channel index (floor-free) and some consumer has a rank-4
// result. The producer writes the shuffled order (a strided store); the consumers, among
// them convolutions, read channels at unit stride and so vectorise along them. It returns the
// values it changed.
func mergeShuffles(g *ir.Graph, users map[*ir.Value][]*ir.Op, outputs map[*ir.Value]bool) (map[*ir.Value]bool, error) {
	merged := map[*ir.Value]bool{}
	for _, p := range slices.Clone(g.Ops) {
		v := p.Result
		shape, ok := v.Type.StaticShape()
		if outputs[v] || !ok || len(shape) != 5 || !staticForm(p) || len(p.Out.Pieces) == 0 {
			continue
		}
		G := shape[1]
		merge := func(idx []volume.Aff) []volume.Aff {
			return []volume.Aff{idx[0], idx[3], idx[4], idx[2].Mul(G).Add(idx[1])}
		}
		good, rank4 := true, false
		for _, u := range users[v] {
			if !staticForm(u) {
				good = false
				break
			}
			rank4 = rank4 || u.Result.Type.Rank() == 4
			for k, o := range u.Operands {
				if o != v {
					continue
				}
				for _, pc := range u.Access[k].Pieces {
					if len(merge(pc.Index)[3].Floors) > 0 {
						good = false
					}
				}
			}
		}
		if !good || !rank4 {
			continue
		}
		mergeAccess := func(a ir.Access) ir.Access {
			out := ir.Access{Approx: a.Approx, ApproxMap: a.ApproxMap}
			for _, pc := range a.Pieces {
				out.Pieces = append(out.Pieces, ir.AccessPiece{Guard: pc.Guard, Index: merge(pc.Index)})
			}
			return out
		}
		rebuilt := map[*ir.Op]*ir.Op{}
		form := func(op *ir.Op) *ir.Op {
			if f := rebuilt[op]; f != nil {
				return f
			}
			f := *op
			f.Operands = slices.Clone(op.Operands)
			f.Access = slices.Clone(op.Access)
			rebuilt[op] = &f
			return &f
		}
		pf := form(p)
		pf.Out = mergeAccess(p.Out)
		for _, u := range users[v] {
			uf := form(u)
			for k, o := range u.Operands {
				if o == v {
					uf.Access[k] = mergeAccess(u.Access[k])
				}
			}
		}
		v.Type.Shape = []volume.Aff{v.Type.Shape[0], v.Type.Shape[3], v.Type.Shape[4], volume.AffConst(shape[1] * shape[2])}
		for op, f := range rebuilt {
			done, err := replaceOp(g, op, f)
			if err != nil {
				return nil, err
			}
			if !done {
				return nil, fmt.Errorf("channels-last: %s (%s) cannot be rebuilt after merging a channel shuffle", op.Result.Name, op.Kind)
			}
		}
		merged[v] = true
	}
	return merged, nil
}
