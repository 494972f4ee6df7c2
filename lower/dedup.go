// This file deduplicates kernels. A model of repeated layers has many ops whose kernels would
// be the same function but for their name (kernels take their buffers as arguments), so ops are
// keyed by a structural description of everything their kernel's code depends on, computed
// before anything is emitted, and ops with equal keys share one function: the entry calls it
// with different buffers. A key holds
//
//   - the graph's symbolic dims (the kernel's trailing i64 arguments and the params of its
//     domain and sizes) and the op kind (which names the kernel);
//   - the op form: number of iteration dims, the domain (after DIE) in isl notation (an op
//     whose domain text is new shares the form of an equal domain, compared exactly: the
//     same points scanned in the same order), the constructor's domain when the op may get register tiles (the tiles' bounding box must lie
//     in it), the access and out maps (guards and quasi-affine indices), the body as a DAG
//     (shared subexpressions are emitted once, so the sharing is part of the key), the
//     reduction, its init value and arg dim;
//   - per buffer (result, then operands): element type, shape, the region the kernel's view
//     is built from (the box bounds, folded as the emitted code folds them) and whether the
//     buffer is 128-byte aligned (vector accesses claim that alignment).
//
// Module-wide settings (target, CPU, features, vector and tile widths) are the same for every
// kernel of a module, which is what the cache belongs to. Planning (the register-tile plan,
// the loop order and vectors, whether the result is written whole) depends on the key alone and
// is done once per key; whether a tiled result may skip its initialisation depends on the
// op's consumers, so a key has up to two kernels, one per answer.

package lower

import (
	"encoding/binary"
	"math"

	llvm "github.com/llir/llvm/ir"

	"github.com/graphc/graphc/ir"
	"github.com/graphc/graphc/volume"
)

// kernelForm is what the ops of one key share: the plan, made once, and the kernels emitted
// from it.
type kernelForm struct {
	domain  volume.Set   // the domain of the op the form was planned for
	tiles   *contraction // nil: the per-point nest
	strat   *strategy    // the nest's strategy (tiles == nil)
	name    string       // the strategy, as Entry.Strategies reports it
	whole   bool         // the op writes every element of its result (no initialisation)
	kernels [2]*kernelSig
}

// kernel returns the form's kernel for the given fromInit (false: the result box is
// initialised or the kernel does not tile).
func (kf *kernelForm) kernel(fromInit bool) *kernelSig {
	if fromInit {
		return kf.kernels[1]
	}
	return kf.kernels[0]
}

func (kf *kernelForm) setKernel(fromInit bool, sig *kernelSig) {
	if fromInit {
		kf.kernels[1] = sig
	} else {
		kf.kernels[0] = sig
	}
}

// forgetKernels drops the kernels whose functions were removed from the module (a failed Add).
func (mc *moduleCtx) forgetKernels(removed map[*llvm.Func]bool) {
	for _, kf := range mc.kernels {
		for i, sig := range kf.kernels {
			if sig != nil && removed[sig.f] {
				kf.kernels[i] = nil
			}
		}
	}
}

// keyBuf builds a kernel key: a compact binary encoding (varints, length-prefixed strings).
type keyBuf struct{ b []byte }

func (k *keyBuf) int(x int64) { k.b = binary.AppendVarint(k.b, x) }

func (k *keyBuf) bool(x bool) {
	if x {
		k.b = append(k.b, 1)
	} else {
		k.b = append(k.b, 0)
	}
}

func (k *keyBuf) str(s string) {
	k.int(int64(len(s)))
	k.b = append(k.b, s...)
}

func (k *keyBuf) strs(ss []string) {
	k.int(int64(len(ss)))
	for _, s := range ss {
		k.str(s)
	}
}

// aff encodes a quasi-affine expression by its non-zero terms, in the order the emitted code
// visits them (funcBuilder.aff skips zero coefficients).
func (k *keyBuf) aff(a volume.Aff) {
	k.int(a.Const)
	for i, c := range a.Dims {
		if c != 0 {
			k.int(int64(i) + 1)
			k.int(c)
		}
	}
	k.int(0)
	for _, p := range a.Params {
		if p.Coef != 0 {
			k.str(p.Name)
			k.int(p.Coef)
		}
	}
	k.str("")
	k.int(int64(len(a.Floors)))
	for _, f := range a.Floors {
		k.aff(f.Num)
		k.int(f.Den)
		k.int(f.Coef)
	}
}

func (k *keyBuf) affs(as []volume.Aff) {
	k.int(int64(len(as)))
	for _, a := range as {
		k.aff(a)
	}
}

func (k *keyBuf) tensorType(t ir.TensorType) {
	k.int(int64(t.Elem))
	k.affs(t.Shape)
}

func (k *keyBuf) access(a ir.Access) {
	k.bool(a.Approx)
	k.int(int64(len(a.Pieces)))
	for _, p := range a.Pieces {
		k.int(int64(len(p.Guard)))
		for _, c := range p.Guard {
			k.bool(c.Eq)
			k.aff(c.Aff)
		}
		k.affs(p.Index)
	}
}

// body encodes a body DAG: a node seen before is a back reference to its number.
func (k *keyBuf) body(s *ir.Scalar, ids map[*ir.Scalar]int) {
	if id, ok := ids[s]; ok {
		k.int(-int64(id) - 1)
		return
	}
	ids[s] = len(ids)
	k.int(int64(s.Op))
	k.int(int64(s.Type))
	k.int(int64(s.Arg))
	k.str(s.Name)
	k.int(int64(math.Float64bits(s.F)))
	k.int(s.I)
	k.int(int64(len(s.Args)))
	for _, a := range s.Args {
		k.body(a, ids)
	}
}

// sym encodes a symbolic bound.
func (k *keyBuf) sym(s *sym) {
	k.int(int64(s.kind))
	switch s.kind {
	case symAff:
		k.aff(s.aff)
		return
	case symScale:
		k.int(s.coef)
	case symFloor:
		k.int(s.den)
	}
	k.int(int64(len(s.args)))
	for _, a := range s.args {
		k.sym(a)
	}
}

// region encodes the box of a tensor of type t in region r as funcBuilder.box emits it: per
// dim the origin and extent when they fold to constants (so that a whole tensor and a region
// that covers it encode alike), else the region's folded bounds.
func (k *keyBuf) region(r *region, t ir.TensorType) {
	for d, dim := range t.Shape {
		full, static := dim.IsConst()
		switch {
		case r == nil || r.full:
			if static {
				k.constBox(0, full)
			} else {
				k.int(-1)
			}
		case len(r.lo[d]) == 0:
			k.constBox(0, 0) // nothing stored
		default:
			lo, hi := symExtreme(true, r.lo[d]), symExtreme(false, r.hi[d])
			l, lok := lo.constant()
			h, hok := hi.constant()
			if static && lok && hok {
				l = min(max(l, 0), full)
				h = min(h, full-1)
				k.constBox(l, max(h-l+1, 0))
				continue
			}
			k.int(-3)
			k.sym(lo)
			k.sym(hi)
		}
	}
}

func (k *keyBuf) constBox(lo, ext int64) {
	k.int(-2)
	k.int(lo)
	k.int(ext)
}

// kernelKey returns the key of op's kernel but for its domain (see the file comment and
// formOf). The buffer is reused: the result is valid until the next call.
func (ec *entryCtx) kernelKey(op *ir.Op) []byte {
	k := &ec.key
	k.b = k.b[:0]
	k.strs(ec.params)
	k.strs(ec.g.Params)
	k.str(op.Kind)
	k.int(int64(op.NDim()))
	if ec.mc.tileBytes > 0 && op.Reduce == ir.ReduceSum {
		k.str(op.Full.String())
	}
	k.int(int64(op.Reduce))
	k.int(int64(math.Float64bits(op.Init)))
	k.int(int64(op.ArgDim))
	k.tensorType(op.Result.Type)
	k.region(ec.regionOf(op.Result), op.Result.Type)
	k.bool(ec.alignedBuffer(op.Result))
	k.int(int64(len(op.Operands)))
	for _, o := range op.Operands {
		k.tensorType(o.Type)
		k.region(ec.regionOf(o), o.Type)
		k.bool(ec.alignedBuffer(o))
	}
	for _, a := range op.Access {
		k.access(a)
	}
	k.access(op.Out)
	clear(ec.bodyIDs)
	k.body(op.Body, ec.bodyIDs)
	return k.b
}

// maxEqualDomains bounds the forms whose domains an op's domain is compared with when its
// text is new (see formOf).
const maxEqualDomains = 8

// formOf returns the kernel form of op. The key is the op's form key (kernelKey) followed by its
// domain's text; an op whose domain has a new text but equals the domain of a form with the
// same form key (the same set in another representation, e.g. with its constraints in another
// order after DIE) shares that form: its kernel scans the same points in the same order.
func (ec *entryCtx) formOf(op *ir.Op) *kernelForm {
	mc := ec.mc
	n := len(ec.kernelKey(op))
	ec.key.b = append(ec.key.b, ec.domainText(op)...)
	if kf := mc.kernels[string(ec.key.b)]; kf != nil {
		return kf
	}
	full := string(ec.key.b)
	formKey := full[:n]
	cands := mc.forms[formKey]
	for i := len(cands) - 1; i >= 0 && i >= len(cands)-maxEqualDomains; i-- {
		same := false
		_ = volume.Try(func() { same = cands[i].domain.IsEqual(op.Domain) })
		if same {
			mc.kernels[full] = cands[i]
			return cands[i]
		}
	}
	kf := &kernelForm{domain: op.Domain}
	if kf.tiles, _ = planContraction(op, ec.g.Params, mc.tileBytes); kf.tiles != nil {
		kf.name = kf.tiles.String()
	} else {
		kf.strat = chooseStrategy(op, mc.vecBytes)
		kf.name = kf.strat.String()
		kf.whole = op.Reduce == ir.ReduceNone && writesWhole(op, ec.g.Params)
	}
	mc.kernels[full] = kf
	mc.forms[formKey] = append(cands, kf)
	return kf
}
