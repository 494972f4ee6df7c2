// This file emits the signature of an entry (Config.Signature): a JSON description of its ABI
// (inputs, outputs, element types, shapes as functions of the symbolic dims, the symbolic dims
// in argument order, the weights file it takes, the requirements it checks), returned by
// `const char *ENTRY_signature(void)`, so that a loader (package modelrt) can call a module it
// knows nothing else about. Package abi defines the document.

package lower

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/llir/llvm/ir/constant"
	"github.com/llir/llvm/ir/enum"
	"github.com/llir/llvm/ir/types"

	"github.com/graphc/graphc/abi"
	"github.com/graphc/graphc/ir"
	"github.com/graphc/graphc/volume"
)

// signatureOf builds the signature of entry over g.
func signatureOf(g *ir.Graph, entry, triple string, params []string, w *Weights, profile bool) (*abi.Signature, error) {
	s := &abi.Signature{ABI: abi.Version, Entry: entry, Triple: triple, Params: append([]string{}, params...),
		Requires: requirements(g), Profile: profile}
	if s.Params == nil {
		s.Params = []string{}
	}
	arg := func(v *ir.Value) (abi.Arg, error) {
		a := abi.Arg{Name: v.Name, DType: v.Type.Elem.String(), Shape: []abi.Extent{}}
		for d, e := range v.Type.Shape {
			x, err := signatureExtent(e)
			if err != nil {
				return a, fmt.Errorf("%%%s dim %d: %w", v.Name, d, err)
			}
			a.Shape = append(a.Shape, x)
		}
		return a, nil
	}
	for _, in := range g.Inputs {
		a, err := arg(in)
		if err != nil {
			return nil, err
		}
		s.Inputs = append(s.Inputs, a)
	}
	for _, o := range g.Outputs {
		a, err := arg(o)
		if err != nil {
			return nil, err
		}
		s.Outputs = append(s.Outputs, a)
	}
	for _, b := range g.Bounded {
		s.Bounded = append(s.Bounded, abi.Bounded{Param: b.Param, Bound: b.Bound, Output: b.Output})
	}
	if w != nil {
		s.Weights = &abi.Weights{Bytes: w.Size, Fingerprint: fmt.Sprintf("0x%016x", w.Fingerprint)}
	}
	return s, nil
}

// signatureExtent converts an extent; extents do not depend on iteration dims.
func signatureExtent(a volume.Aff) (abi.Extent, error) {
	for _, c := range a.Dims {
		if c != 0 {
			return abi.Extent{}, fmt.Errorf("extent %v depends on an iteration dim", a)
		}
	}
	x := abi.Extent{C: a.Const}
	for _, p := range a.Params {
		if x.P == nil {
			x.P = map[string]int64{}
		}
		x.P[p.Name] += p.Coef
	}
	for _, f := range a.Floors {
		n, err := signatureExtent(f.Num)
		if err != nil {
			return x, err
		}
		x.F = append(x.F, abi.FloorTerm{K: f.Coef, N: n, D: f.Den})
	}
	return x, nil
}

// emitSignature emits const char *ENTRY_signature(void), returning the entry's signature as a
// NUL-terminated JSON string in a private constant.
func (ec *entryCtx) emitSignature() error {
	s, err := signatureOf(ec.g, ec.entry, ec.mc.tgt.Triple, callerParams(ec.g, ec.params), ec.weights, ec.mc.cfg.Profile)
	if err != nil {
		return err
	}
	text, err := json.Marshal(s)
	if err != nil {
		return err
	}
	data := append(text, 0)
	arr := newByteArray(data)
	gl := ec.mc.m.NewGlobalDef(ec.entry+".signature", arr)
	gl.Immutable = true
	gl.Linkage = enum.LinkagePrivate
	i8p := types.NewPointer(types.I8)
	f := ec.mc.m.NewFunc(ec.entry+"_signature", i8p)
	ec.mc.defineAttrs(f)
	entry := f.NewBlock("entry")
	zero := constant.NewInt(types.I64, 0)
	entry.NewRet(constant.NewGetElementPtr(arr.Type(), gl, zero, zero))
	return nil
}

// signatureHeader adds the declaration of ENTRY_signature to an entry's header.
func signatureHeader(h, entry string) string {
	decl := fmt.Sprintf("/* The ABI of %s as JSON (inputs, outputs, dtypes, shapes over the symbolic dims, weights):\n"+
		" * what package modelrt reads to load the module. */\nconst char *%s_signature(void);\n\n", entry, entry)
	at := strings.LastIndex(h, "#ifdef __cplusplus")
	if at < 0 {
		return h + decl
	}
	return h[:at] + decl + h[at:]
}

// SignatureJSON returns the signature of an entry of a module for target t, as
// ENTRY_signature would return it (for runners that do not load the module, such as a
// program run under an emulator).
func SignatureJSON(e *Entry, t *Target, profile bool) ([]byte, error) {
	s, err := signatureOf(e.Graph, e.Name, t.Triple, e.Params, e.Weights, profile)
	if err != nil {
		return nil, err
	}
	return json.Marshal(s)
}
