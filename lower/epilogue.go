// This file fuses elementwise consumers into register-tile contractions as epilogues: the
// result of a convolution or matmul that only an elementwise op reads (bias, residual Add,
// Relu, Clip, a squeeze-excitation scale...) is not stored and reread; the tile applies the
// consumer's body to its accumulators when the reduction is complete and stores the consumer's
// result. Chains of such consumers fuse one after the other. The consumer's body sees the same
// values it would read from memory, so every result keeps its bits; the consumers' kernels are
// not called.

package lower

import (
	"fmt"
	"slices"

	llvm "github.com/llir/llvm/ir"
	"github.com/llir/llvm/ir/types"
	"github.com/llir/llvm/ir/value"

	"github.com/graphc/graphc/ir"
)

// epiChain is the elementwise ops fused into a contraction: ops[0] reads the contraction's
// result as its operand ks[0], ops[i] reads ops[i-1]'s result as operand ks[i]; the last one's
// result is what the fused kernel stores.
type epiChain struct {
	ops []*ir.Op
	ks  []int
}

// planEpilogues finds the epilogue chains of the graph's tiled contractions (ec.epi) and the
// ops they absorb (ec.fusedInto).
func (ec *entryCtx) planEpilogues() {
	ec.epi = map[*ir.Op]*epiChain{}
	ec.fusedInto = map[*ir.Op]*ir.Op{}
	if ec.mc.tileBytes == 0 || ec.mc.cfg.NoEpilogues {
		return
	}
	g := ec.g
	pos := make(map[*ir.Op]int, len(g.Ops))
	for i, op := range g.Ops {
		pos[op] = i
	}
	outs := map[*ir.Value]bool{}
	for _, o := range g.Outputs {
		outs[o] = true
	}
	for i, p := range g.Ops {
		if p.Reduce != ir.ReduceSum || len(p.Out.Pieces) != 1 {
			continue
		}
		kf := ec.formOf(p)
		if kf.tiles == nil || kf.tiles.border != nil || kf.tiles.rowDependent {
			continue
		}
		// the epilogue runs where the tiles write: that must be every element (DIE may
		// leave elements at their init value, which the consumer still reads)
		// unknown: no epilogue (elements left at their init value would skip it)
		if !ec.writesWhole(p) {
			continue
		}
		var chain epiChain
		v := p.Result
		for !outs[v] && soleReader(ec.users[v]) {
			u := ec.users[v][0]
			if ec.fusedInto[u.op] != nil || !ec.epilogueOK(u.op, v, i, pos) {
				break
			}
			chain.ops = append(chain.ops, u.op)
			chain.ks = append(chain.ks, u.k)
			v = u.op.Result
		}
		if len(chain.ops) == 0 {
			continue
		}
		ec.epi[p] = &chain
		for _, e := range chain.ops {
			ec.fusedInto[e] = p
		}
	}
}

// soleReader reports whether the uses of a value are all by one op (in one or more operands:
// SiLU's x·sigmoid(x) once fuse has folded the sigmoid reads x twice).
func soleReader(us []use) bool {
	if len(us) == 0 {
		return false
	}
	for _, u := range us[1:] {
		if u.op != us[0].op {
			return false
		}
	}
	return true
}

// epilogueOK reports whether op e can run as an epilogue of the contraction at position at
// whose (chain's) value v it reads (in one or more operands): e writes each element of a
// result shaped like v once (identity out map, unrestricted domain), reads v through the
// identity, its other operands are computed before the contraction, and its body vectorises
// along the last dim (the tiles' vectors).
func (ec *entryCtx) epilogueOK(e *ir.Op, v *ir.Value, at int, pos map[*ir.Op]int) bool {
	if e.Reduce != ir.ReduceNone || len(e.Out.Pieces) != 1 || len(e.Out.Pieces[0].Guard) > 0 ||
		!e.Result.Type.Equal(v.Type) || e.NDim() != v.Type.Rank() || e.NDim() == 0 {
		return false
	}
	for d, a := range e.Out.Pieces[0].Index {
		if !isDim(a, d) {
			return false
		}
	}
	for k, o := range e.Operands {
		if o != v {
			continue
		}
		acc := e.Access[k]
		if acc.Approx || len(acc.Pieces) != 1 || len(acc.Pieces[0].Guard) > 0 {
			return false
		}
		for d, a := range acc.Pieces[0].Index {
			if !isDim(a, d) {
				return false
			}
		}
	}
	d := e.NDim() - 1
	for j, o := range e.Operands {
		if o == v {
			continue
		}
		if o.Def != nil && pos[o.Def] >= at {
			return false
		}
		if e.Body.Reads(j) && (hasDynRead(e.Body, j) || !uniformPiece(e.Access[j], d) || accessStrideIn(o.Type, e.Access[j].Pieces[0].Index, d) == strideOther) {
			return false
		}
	}
	ok := true
	e.Body.Walk(func(s *ir.Scalar) {
		switch {
		case s.Op == ir.SAvail && e.Operands[s.Arg] == v:
			ok = false
		case s.Op == ir.SAvail && uniformPiece(e.Access[s.Arg], d):
		case s.Op == ir.SDiv && s.Type.IsFloat():
		case !vectorizable(s):
			ok = false
		}
	})
	if !ok {
		return false
	}
	// unknown: not an epilogue (its own kernel writes what it must)
	return !ec.restricted(e) && ec.writesWhole(e)
}

// restricted reports whether op's domain lacks points of its constructor's domain where the
// graph's requirements hold (entryCtx.requirements: DIE assumes them, so the domains of
// dynamic-axes exports carry seq < 1025 that the constructors do not).
func (ec *entryCtx) restricted(op *ir.Op) bool {
	return !ec.requirements().Restrict(op.Full, op.Domain).IsSubset(op.Domain).Or(false) // unknown: restricted
}

// epiKey returns the kernel key of a contraction with an epilogue chain.
func (ec *entryCtx) epiKey(op *ir.Op, c *epiChain, fromInit bool) string {
	key := string(ec.kernelKey(op)) + ec.domainText(op)
	for i, e := range c.ops {
		key += fmt.Sprintf("|epi%d:", c.ks[i]) + string(ec.kernelKey(e)) + ec.domainText(e)
		// which operands read the previous value (epiStore feeds them all the accumulators)
		for j, o := range e.Operands {
			if j != c.ks[i] && o == e.Operands[c.ks[i]] {
				key += fmt.Sprintf(",same%d", j)
			}
		}
	}
	return fmt.Sprintf("%s|%v", key, fromInit)
}

// epiParams returns the kernel parameters of an epilogue chain: per op, its result then its
// operands.
func epiParams(c *epiChain) []*llvm.Param {
	var ps []*llvm.Param
	for i, e := range c.ops {
		ps = append(ps, llvm.NewParam(fmt.Sprintf("epi%d.res", i), types.NewPointer(mustMemType(e.Result.Type.Elem))))
		for k, o := range e.Operands {
			ps = append(ps, llvm.NewParam(fmt.Sprintf("epi%d.op%d", i, k), types.NewPointer(mustMemType(o.Type.Elem))))
		}
	}
	return ps
}

// epiArgs returns the entry's arguments for epiParams.
func epiArgs(c *epiChain, bufs map[*ir.Value]value.Value) []value.Value {
	var args []value.Value
	for _, e := range c.ops {
		args = append(args, bufs[e.Result])
		for _, o := range e.Operands {
			args = append(args, bufs[o])
		}
	}
	return args
}

// newEpilogue builds the kernel builders of the chain's ops over the parameters ps (epiParams).
func (kb *kernelBuilder) newEpilogue(c *epiChain, ps []*llvm.Param) {
	ec, fb := kb.ec, kb.fb
	n := 0
	for _, e := range c.ops {
		ekb := &kernelBuilder{ec: ec, fb: fb, op: e}
		ekb.res = ec.viewOf(fb, e.Result, ps[n])
		n++
		for _, o := range e.Operands {
			ekb.ops = append(ekb.ops, ec.viewOf(fb, o, ps[n]))
			n++
		}
		kb.epi = append(kb.epi, ekb)
	}
	kb.epiKs = c.ks
}

// epiStore applies the epilogue chain to v, the final value of the contraction's result at
// index idx (lanes consecutive elements along the last dim when lanes > 1), and stores the
// last op's result.
func (kb *kernelBuilder) epiStore(idx []value.Value, v value.Value, lanes int) error {
	fb := kb.fb
	vl := 0
	if lanes > 1 {
		vl = lanes
	}
	for i, ekb := range kb.epi {
		e := ekb.op
		bc := &bodyCtx{kb: ekb, fb: fb, op: e, dims: slices.Clone(idx), vl: vl, inner: e.NDim() - 1, memo: map[*ir.Scalar]value.Value{}}
		in := e.Operands[kb.epiKs[i]]
		e.Body.Walk(func(s *ir.Scalar) {
			if s.Op == ir.SRead && e.Operands[s.Arg] == in {
				bc.memo[s] = v
			}
		})
		var err error
		if v, err = bc.emit(e.Body); err != nil {
			return fmt.Errorf("epilogue %%%s: %w", e.Result.Name, err)
		}
	}
	last := kb.epi[len(kb.epi)-1]
	off := fb.offset(last.res, fb.indexAt(last.op.Out.Pieces[0].Index, idx))
	last.storeGroup(off, v, tileGroup{lanes: max(lanes, 1)})
	return nil
}
