// This file emits the entry function and the workspace-size function: argument checking,
// buffer addresses in the workspace, and one loop nest per op.

package lower

import (
	"fmt"

	llvm "github.com/llir/llvm/ir"
	"github.com/llir/llvm/ir/enum"
	"github.com/llir/llvm/ir/types"
	"github.com/llir/llvm/ir/value"

	"github.com/graphc/graphc/ir"
)

// wsAlign is the alignment of every buffer in the workspace (the ABI promises 128 bytes).
const wsAlign = 128

// intermediates returns the op results that need a workspace buffer (not graph outputs).
func (mc *moduleCtx) intermediates() []*ir.Value {
	outs := map[*ir.Value]bool{}
	for _, o := range mc.g.Outputs {
		outs[o] = true
	}
	var vs []*ir.Value
	for _, op := range mc.g.Ops {
		if !outs[op.Result] {
			vs = append(vs, op.Result)
		}
	}
	return vs
}

// layout emits, in fb, the byte offset of every intermediate buffer and the total size.
func (fb *funcBuilder) layout(vs []*ir.Value) (map[*ir.Value]value.Value, value.Value, error) {
	offs := map[*ir.Value]value.Value{}
	var cur value.Value = i64(0)
	for _, v := range vs {
		offs[v] = cur
		n, err := fb.numElements(v.Type)
		if err != nil {
			return nil, nil, err
		}
		ty, err := llType(v.Type.Elem)
		if err != nil {
			return nil, nil, err
		}
		size := fb.mul(n, i64(int64(sizeOf(ty))))
		end := fb.add(cur, size)
		// round up to wsAlign
		cur = fb.mul(fb.floorDiv(fb.add(end, i64(wsAlign-1)), wsAlign), i64(wsAlign))
	}
	return offs, cur, nil
}

func sizeOf(t types.Type) int {
	switch t {
	case types.Double, types.I64:
		return 8
	case types.Float, types.I32:
		return 4
	case types.I16, types.Half:
		return 2
	}
	return 1
}

func (mc *moduleCtx) emitWorkspaceSize(params []string) error {
	var ps []*llvm.Param
	for _, p := range params {
		ps = append(ps, llvm.NewParam(p, types.I64))
	}
	f := mc.m.NewFunc(mc.cfg.Entry+"_workspace_size", types.I64, ps...)
	fb := newFuncBuilder(mc, f)
	for i, p := range params {
		fb.params[p] = ps[i]
	}
	_, total, err := fb.layout(mc.intermediates())
	if err != nil {
		return err
	}
	fb.cur.NewRet(total)
	return nil
}

func (mc *moduleCtx) emitEntry(params []string) error {
	g := mc.g
	var ps []*llvm.Param
	for i, in := range g.Inputs {
		ty, err := llType(in.Type.Elem)
		if err != nil {
			return fmt.Errorf("input %%%s: %w", in.Name, err)
		}
		p := llvm.NewParam(fmt.Sprintf("in%d", i), types.NewPointer(ty))
		p.Attrs = append(p.Attrs, enum.ParamAttrNoAlias, enum.ParamAttrNoCapture, enum.ParamAttrReadOnly)
		ps = append(ps, p)
	}
	for i, o := range g.Outputs {
		ty, err := llType(o.Type.Elem)
		if err != nil {
			return fmt.Errorf("output %%%s: %w", o.Name, err)
		}
		p := llvm.NewParam(fmt.Sprintf("out%d", i), types.NewPointer(ty))
		p.Attrs = append(p.Attrs, enum.ParamAttrNoAlias, enum.ParamAttrNoCapture)
		ps = append(ps, p)
	}
	for _, p := range params {
		ps = append(ps, llvm.NewParam(p, types.I64))
	}
	ws := llvm.NewParam("workspace", types.I8Ptr)
	ws.Attrs = append(ws.Attrs, enum.ParamAttrNoAlias, enum.ParamAttrNoCapture)
	ps = append(ps, ws)
	f := mc.m.NewFunc(mc.cfg.Entry, types.I32, ps...)
	fb := newFuncBuilder(mc, f)
	for i, p := range params {
		fb.params[p] = ps[len(g.Inputs)+len(g.Outputs)+i]
	}
	// symbolic dims must give non-negative extents
	fail := f.NewBlock("bad_dims")
	fail.NewRet(constI32(1))
	checked := map[string]bool{}
	check := func(t ir.TensorType) {
		for _, d := range t.Shape {
			if _, ok := d.IsConst(); ok || checked[d.String()] {
				continue
			}
			checked[d.String()] = true
			v := fb.aff(d, nil)
			ok := fb.cur.NewICmp(enum.IPredSGE, v, i64(0))
			next := fb.newBlock("dims_ok")
			fb.cur.NewCondBr(ok, next, fail)
			fb.cur = next
		}
	}
	for _, in := range g.Inputs {
		check(in.Type)
	}
	for _, op := range g.Ops {
		check(op.Result.Type)
	}
	// buffers
	for i, in := range g.Inputs {
		fb.bufs[in] = ps[i]
	}
	for i, o := range g.Outputs {
		if _, taken := fb.bufs[o]; !taken && o.Def != nil {
			fb.bufs[o] = ps[len(g.Inputs)+i]
		}
	}
	for _, c := range g.Consts {
		gl := mc.constGlobal(c)
		ty, err := llType(c.Type.Elem)
		if err != nil {
			return fmt.Errorf("constant %%%s: %w", c.Name, err)
		}
		fb.bufs[c] = fb.cur.NewBitCast(gl, types.NewPointer(ty))
	}
	offs, _, err := fb.layout(mc.intermediates())
	if err != nil {
		return err
	}
	for v, off := range offs {
		ty, _ := llType(v.Type.Elem)
		p := fb.cur.NewGetElementPtr(types.I8, ws, off)
		fb.bufs[v] = fb.cur.NewBitCast(p, types.NewPointer(ty))
	}
	for _, op := range g.Ops {
		if err := fb.emitOp(op); err != nil {
			return fmt.Errorf("op %%%s (%s): %w", op.Result.Name, op.Kind, err)
		}
	}
	// outputs that are inputs, constants or repeated need a copy
	for i, o := range g.Outputs {
		dst := ps[len(g.Inputs)+i]
		if fb.bufs[o] == value.Value(dst) {
			continue
		}
		if err := fb.emitCopy(o, dst); err != nil {
			return err
		}
	}
	fb.cur.NewRet(constI32(0))
	return nil
}
