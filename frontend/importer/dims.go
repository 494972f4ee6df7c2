// This file holds Dims: how a symbolic dim of the model's inputs is bound with --dim
// (WithDim) or kept symbolic, and the error for a bound name the model does not have.

package importer

import (
	"github.com/graphc/graphc/ir"
	"github.com/graphc/graphc/volume"
)

// Dims binds the symbolic dims of a model's inputs. Binding happens where a dim enters the
// graph (an input's type), so that shape computations over it fold at import as for a static
// dim; ir.BindParams binds the dims of a graph already built (graphc IR text).
type Dims struct {
	bound map[string]int64
	seen  map[string]bool
	order []string
}

// NewDims returns the binder of the given values (nil: none bound).
func NewDims(bound map[string]int64) *Dims { return &Dims{bound: bound, seen: map[string]bool{}} }

// Extent returns the extent of the input dim called name: its bound value, or the symbolic dim
// param. name is what --dim calls it, param the name it takes in the graph (usually the same;
// ONNX sanitises dim_param names that are not identifiers).
func (d *Dims) Extent(name, param string) volume.Aff {
	if !d.seen[name] {
		d.seen[name] = true
		d.order = append(d.order, name)
	}
	if v, ok := d.bound[name]; ok {
		return volume.AffConst(v)
	}
	return volume.AffParam(param)
}

// Check reports the bound names no input dim had, listing the model's dims (ir.ErrUnknownDim:
// a usage error in the CLI).
func (d *Dims) Check() error { return ir.UnknownDimError(d.bound, d.seen, d.order) }
