// This file holds Values, what an importer knows of each value of the model by the format's
// key (an ONNX value name, a TensorFlow "node:port"): its IR value, its data when known at
// import, or its symbolic shape value.

package importer

import (
	"github.com/graphc/graphc/ir"
	"github.com/graphc/graphc/volume"
)

// Values maps the format's keys to what is known of them. A key is in at most one of the
// maps until it is first read: Lookup adds known data (or a materialised symbolic value) to
// the graph then, so that data only folded ops read never becomes a constant of the graph.
type Values struct {
	Vals   map[string]*ir.Value
	Consts map[string]*ir.Tensor // data known at import
	Syms   map[string]*Sym       // integer values known as expressions of the symbolic dims
}

// NewValues returns an empty table.
func NewValues() *Values {
	return &Values{Vals: map[string]*ir.Value{}, Consts: map[string]*ir.Tensor{}, Syms: map[string]*Sym{}}
}

// Lookup returns the IR value of key, adding its known data to g as a constant named name,
// or materialising its symbolic value, on first use; ok=false when nothing is known of key.
func (vs *Values) Lookup(g *ir.Graph, key, name string) (v *ir.Value, ok bool, err error) {
	if v, ok := vs.Vals[key]; ok {
		return v, true, nil
	}
	if t, ok := vs.Consts[key]; ok {
		v := g.AddConst(name, t)
		vs.Vals[key] = v
		return v, true, nil
	}
	if s, ok := vs.Syms[key]; ok {
		v, err := s.Materialize(g, name)
		if err != nil {
			return nil, true, err
		}
		vs.Vals[key] = v
		return v, true, nil
	}
	return nil, false, nil
}

// Known returns key as quasi-affine elements: an integer constant or a symbolic value.
func (vs *Values) Known(key string) (*Sym, bool) {
	if s, ok := vs.Syms[key]; ok {
		return s, true
	}
	t, ok := vs.Consts[key]
	if !ok {
		return nil, false
	}
	return ConstSym(t)
}

// SetConst binds key to data known at import.
func (vs *Values) SetConst(key string, t *ir.Tensor) {
	vs.Consts[key] = t
	delete(vs.Vals, key)
}

// SetSym binds key to a symbolic tensor, or to its data when no element is symbolic.
func (vs *Values) SetSym(key string, elem ir.DType, shape []int64, vals []volume.Aff) {
	s, t := NewSym(elem, shape, vals)
	if t != nil {
		vs.SetConst(key, t)
		return
	}
	vs.Syms[key] = s
	delete(vs.Vals, key)
}

// KnownInputs returns a node's inputs as quasi-affine elements (nil for an absent input, key
// ""), and whether one of them is symbolic: a node whose inputs are all known and one is
// symbolic can be evaluated symbolically. ok=false when an input is not known at import.
func (vs *Values) KnownInputs(keys []string) (in []*Sym, anySym, ok bool) {
	in = make([]*Sym, len(keys))
	for i, k := range keys {
		if k == "" {
			continue
		}
		if _, sym := vs.Syms[k]; sym {
			anySym = true
		}
		if in[i], ok = vs.Known(k); !ok {
			return nil, false, false
		}
	}
	return in, anySym, true
}
