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
//     same points scanned in the same order), the constructor's domain when the op may get
//     register tiles (the tiles' bounding box must lie in it), the access and out maps
//     (guards and quasi-affine indices), the body as a DAG (shared subexpressions are
//     emitted once, so the sharing is part of the key), the reduction, its init value and
//     arg dim;
//   - per buffer (result, then operands): element type, shape, the region the kernel's view
//     is built from (the box bounds, folded as the emitted code folds them) and whether the
//     buffer is 128-byte aligned (vector accesses claim that alignment).
//
// Module-wide settings (target, CPU, features, vector and tile widths) are the same for every
// kernel of a module, which is what the cache belongs to. Choosing the kernel (the table of
// kernel families in kernel_choice.go: the register-tile plan, the loop order and vectors,
// whether the result is written whole) depends on the key alone and is done once per key: this
// file only memoises it; whether a tiled result may skip its initialisation depends on the
// op's consumers, so a key has up to two kernels, one per answer.

package lower

import (
	"fmt"

	llvm "github.com/llir/llvm/ir"

	"github.com/graphc/graphc/ir"
	"github.com/graphc/graphc/volume"
)

// kernelForm is what the ops of one key share: the plan, made once, and the kernels emitted
// from it.
type kernelForm struct {
	domain volume.Set   // the domain of the op the form was planned for
	tiles  *contraction // nil: the per-point nest
	dot    *intDot      // an integer dot-product kernel (intdot.go), or nil
	nbits  *nbitsGEMV   // a block-quantized weights kernel (nbits.go), or nil
	algo   bool         // an algorithm op's kernel (algo.go)
	strat  *strategy    // the nest's strategy (tiles == nil)
	name   string       // the strategy, as Entry.Strategies reports it
	whole  bool         // the op writes every element of its result (no initialisation)
	// parts, when not nil, are the op split along its reads' guards (guard_split.go), each
	// emitted as a nest with its own strategy in partStrats
	parts      []*ir.Op
	partStrats []*strategy
	// choice names the kernel family that won (kernel_choice.go) and why each family before
	// it did not apply, as --emit=plan prints it
	choice  string
	kernels [2]*kernelSig
}

// wide reports whether the form's kernel uses vectors of the module's width: tiles, a vector
// or block-transpose nest, or such a part.
func (kf *kernelForm) wide() bool {
	if kf.tiles != nil {
		return true
	}
	for _, s := range append([]*strategy{kf.strat}, kf.partStrats...) {
		if s != nil && (s.vl > 0 || s.transpose != nil) {
			return true
		}
	}
	return false
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

// keyBuf builds a kernel key: ir.StructKey's encoding plus lowering's symbolic bounds.
type keyBuf struct{ ir.StructKey }

// sym encodes a symbolic bound.
func (k *keyBuf) sym(s *sym) {
	k.Int(int64(s.kind))
	switch s.kind {
	case symAff:
		k.Aff(s.aff)
		return
	case symScale:
		k.Int(s.coef)
	case symFloor:
		k.Int(s.den)
	}
	k.Int(int64(len(s.args)))
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
				k.Int(-1)
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
			k.Int(-3)
			k.sym(lo)
			k.sym(hi)
		}
	}
}

func (k *keyBuf) constBox(lo, ext int64) {
	k.Int(-2)
	k.Int(lo)
	k.Int(ext)
}

// kernelKey returns the key of op's kernel but for its domain (see the file comment and
// formOf). The buffer is reused: the result is valid until the next call.
func (ec *entryCtx) kernelKey(op *ir.Op) []byte {
	k := &ec.key
	k.Reset()
	k.Strs(ec.params)
	k.Strs(ec.g.Params)
	k.Str(op.Kind)
	k.Int(int64(op.NDim()))
	if ec.mc.tileBytes > 0 && op.Reduce == ir.ReduceSum {
		k.Str(op.Full.String())
	}
	k.Int(int64(op.Reduce))
	k.Float(op.Init)
	k.Int(int64(op.ArgDim))
	k.B = append(k.B, ec.bufferKey(op.Result)...)
	k.Int(int64(len(op.Operands)))
	for _, o := range op.Operands {
		k.B = append(k.B, ec.bufferKey(o)...)
		// a constant's panels may be packed at compile time (contract_prepack.go): the
		// kernel then reads them, not the operand's layout
		k.Bool(o.Data != nil)
	}
	for _, a := range op.Access {
		k.Access(a)
	}
	k.Access(op.Out)
	k.Body(op.Body)
	k.Str(algoKeyAttrs(op))
	if _, ok := matchIntProduct(op); ok {
		// integer dot-product kernels bake their packed weights in: one kernel per weights
		for _, o := range op.Operands {
			if o.Data != nil {
				k.Str(fmt.Sprintf("%p", o.Data))
			}
		}
	}
	// the operands written in place: it skips their parts
	k.Int(int64(len(ec.aliasCopies[op])))
	for _, a := range ec.aliasCopies[op] {
		k.Int(int64(a.k))
	}
	return k.B
}

// bufferKey returns the key of v's buffer as kernels see it: element type, shape, region box
// and alignment (computed once per value: a value is the result of one op and an operand of
// others).
func (ec *entryCtx) bufferKey(v *ir.Value) string {
	if s, ok := ec.bufKeys[v]; ok {
		return s
	}
	var k keyBuf
	k.TensorType(v.Type)
	k.region(ec.regionOf(v), v.Type)
	k.Bool(ec.alignedBuffer(v))
	if f, i, ok := splatConst(v); ok {
		// kernels read splat constants as immediates
		k.Float(f)
		k.Int(i)
	}
	if a := ec.alias[v]; a != nil {
		// written in place: the target's box gives the strides, the shift the origin
		k.TensorType(a.target.Type)
		k.region(ec.regionOf(a.target), a.target.Type)
		for _, s := range a.shift {
			k.Int(s)
		}
	}
	s := string(k.B)
	ec.bufKeys[v] = s
	return s
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
	ec.key.B = append(ec.key.B, ec.domainText(op)...)
	if kf := mc.kernels[string(ec.key.B)]; kf != nil {
		return kf
	}
	full := string(ec.key.B)
	formKey := full[:n]
	cands := mc.forms[formKey]
	for i := len(cands) - 1; i >= 0 && i >= len(cands)-maxEqualDomains; i-- {
		if cands[i].domain.NPieces() != op.Domain.NPieces() {
			continue // a cheap filter: only representations with as many pieces are compared
		}
		// unknown: volume gave up comparing, the conservative answer is a form of its own
		if cands[i].domain.IsEqual(op.Domain).Or(false) {
			mc.kernels[full] = cands[i]
			return cands[i]
		}
	}
	kf := ec.chooseKernel(op)
	mc.kernels[full] = kf
	mc.forms[formKey] = append(cands, kf)
	return kf
}
