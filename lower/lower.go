// This file holds Config, Lower and the module-level state (moduleCtx): the entry function, the
// workspace-size function, constant globals and the math functions the module calls.

package lower

import (
	"fmt"
	"strings"

	llvm "github.com/llir/llvm/ir"
	"github.com/llir/llvm/ir/constant"
	"github.com/llir/llvm/ir/enum"
	"github.com/llir/llvm/ir/types"
	"github.com/llir/llvm/ir/value"

	"github.com/graphc/graphc/ir"
	"github.com/graphc/graphc/volume"
)

// Config is what lowering needs besides the graph.
type Config struct {
	Target *Target
	Entry  string // entry function name (default main_graph)
	CPU    string // overrides Target.CPU
	Attrs  string // overrides Target.Features (llc -mattr syntax)
	// Required gives, per value, the elements some output needs (DIE's result). Intermediate
	// buffers are sized by its bounding box when known.
	Required map[*ir.Value]volume.Set
}

// Module is the result of lowering.
type Module struct {
	LLVM   *llvm.Module
	Header string
	Entry  string
	// Params are the symbolic dims that remain arguments, in ABI order.
	Params []string
}

// String returns the textual LLVM IR.
func (m *Module) String() string { return m.LLVM.String() }

type moduleCtx struct {
	cfg   Config
	g     *ir.Graph
	m     *llvm.Module
	funcs map[string]*llvm.Func
	seq   int
}

// Lower emits the module for g.
func Lower(g *ir.Graph, cfg Config) (mod *Module, err error) {
	if cfg.Target == nil {
		t, err := LoadTarget("x86-64")
		if err != nil {
			return nil, err
		}
		cfg.Target = t
	}
	if cfg.Entry == "" {
		cfg.Entry = "main_graph"
	}
	if !validSymbol(cfg.Entry) {
		return nil, fmt.Errorf("invalid entry name %q (want a C identifier)", cfg.Entry)
	}
	mc := &moduleCtx{cfg: cfg, g: g, m: llvm.NewModule(), funcs: map[string]*llvm.Func{}}
	mc.m.TargetTriple = cfg.Target.Triple
	mc.m.DataLayout = cfg.Target.DataLayout
	params := abiParams(g)
	var emitErr error
	if err := volume.Try(func() { emitErr = mc.emitEntry(params) }); err != nil {
		return nil, err
	}
	if emitErr != nil {
		return nil, emitErr
	}
	if err := mc.emitWorkspaceSize(params); err != nil {
		return nil, err
	}
	return &Module{LLVM: mc.m, Header: Header(g, cfg.Entry, params), Entry: cfg.Entry, Params: params}, nil
}

func validSymbol(s string) bool {
	if s == "" {
		return false
	}
	for i, c := range s {
		if !(c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || i > 0 && c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}

// abiParams returns the symbolic dims in order of first appearance in the inputs' shapes, then
// any other graph param.
func abiParams(g *ir.Graph) []string {
	var out []string
	seen := map[string]bool{}
	for _, in := range g.Inputs {
		for _, p := range in.Type.Params() {
			if !seen[p] {
				seen[p] = true
				out = append(out, p)
			}
		}
	}
	for _, p := range g.Params {
		if !seen[p] {
			seen[p] = true
			out = append(out, p)
		}
	}
	return out
}

// llType is the in-memory LLVM type of an element type.
func llType(t ir.DType) (types.Type, error) {
	switch t {
	case ir.F32:
		return types.Float, nil
	case ir.F64:
		return types.Double, nil
	case ir.I64:
		return types.I64, nil
	case ir.I32:
		return types.I32, nil
	case ir.I8, ir.U8, ir.Bool:
		return types.I8, nil
	}
	return nil, fmt.Errorf("lowering of element type %s is not supported", t)
}

// regType is the LLVM type of a value of element type t in registers (bool is i1).
func regType(t ir.DType) types.Type {
	if t == ir.Bool {
		return types.I1
	}
	ty, _ := llType(t)
	return ty
}

func i64(v int64) *constant.Int { return constant.NewInt(types.I64, v) }

// constGlobal emits a constant tensor as a private global byte array.
func (mc *moduleCtx) constGlobal(v *ir.Value) *llvm.Global {
	mc.seq++
	name := fmt.Sprintf("const.%d.%s", mc.seq, sanitizeSym(v.Name))
	data := v.Data.Bytes()
	if len(data) == 0 {
		data = []byte{0}
	}
	gl := mc.m.NewGlobalDef(name, constant.NewCharArray(data))
	gl.Immutable = true
	gl.Linkage = enum.LinkagePrivate
	gl.Align = 64
	return gl
}

func sanitizeSym(s string) string {
	var sb strings.Builder
	for _, c := range s {
		if c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' {
			sb.WriteRune(c)
		} else {
			sb.WriteRune('_')
		}
	}
	return sb.String()
}

var _ value.Value
