// This file declares the data-dependent selections gather and gather_elements. The index
// tensor is read through an exact affine access; the data is read at indices computed from
// those elements (DynRead), so its access is marked Approx and carries an over-approximation:
// every element along the gathered axis.

package ir

import (
	"fmt"
	"strings"

	"github.com/graphc/graphc/volume"
)

func init() {
	register(
		&OpDef{
			Name:        "gather",
			Summary:     "out[a.., i.., b..] = data[a.., indices[i..], b..] along axis (negative indices count from the end)",
			Example:     "%g = gather(%data, %idx) {axis = 0} : f32[2, 4]",
			MinOperands: 2, MaxOperands: 2,
			Attrs: []AttrDef{{Name: "axis", Kind: AttrInt, Default: dflt(IntAttr(0)), Doc: "the gathered axis of data"}},
			Build: buildGather,
		},
		&OpDef{
			Name:        "gather_elements",
			Summary:     "out[x] = data[x with x[axis] replaced by indices[x]] (negative indices count from the end)",
			Example:     "%g = gather_elements(%data, %idx) {axis = 1} : f32[2, 2]",
			MinOperands: 2, MaxOperands: 2,
			Attrs: []AttrDef{{Name: "axis", Kind: AttrInt, Default: dflt(IntAttr(0)), Doc: "the gathered axis"}},
			Build: buildGatherElements,
		},
	)
}

// approxAlongAxis returns { [x] -> [e_0, …, t, …] : 0 <= t < extent }: the elements an access
// reading idx, with its entry at axis replaced by any index, may touch.
func approxAlongAxis(params, dims []string, idx []volume.Aff, axis int, extent volume.Aff) (volume.Map, error) {
	ps := append([]string(nil), params...)
	for _, p := range extent.ParamNames() {
		if !contains(ps, p) {
			ps = append(ps, p)
		}
	}
	for _, a := range idx {
		for _, p := range a.ParamNames() {
			if !contains(ps, p) {
				ps = append(ps, p)
			}
		}
	}
	free := "t_"
	outs := make([]string, len(idx))
	for i, a := range idx {
		if i == axis {
			outs[i] = free
		} else {
			outs[i] = a.String(dims...)
		}
	}
	text := fmt.Sprintf("[%s] -> { [%s] -> [%s] : 0 <= %s < %s }", strings.Join(ps, ", "), strings.Join(dims, ", "),
		strings.Join(outs, ", "), free, extent.String())
	m, err := volume.ParseMap(text)
	if err != nil {
		return volume.Map{}, fmt.Errorf("internal error building the over-approximated map %s: %w", text, err)
	}
	return m, nil
}

func contains(s []string, x string) bool {
	for _, y := range s {
		if y == x {
			return true
		}
	}
	return false
}

// wrapIndex converts an index element to i64 and adds extent when it is negative.
func wrapIndex(v *Scalar, extent volume.Aff) *Scalar {
	i := Cast(v, I64)
	return Select(Bin(SLt, i, ConstI(I64, 0)), Bin(SAdd, i, AffScalar(extent)), i)
}

func checkIndexType(b *Builder, k int) error {
	if e := b.In(k).Elem; e != I64 && e != I32 {
		return b.Errorf("indices must be i64 or i32, got %s", e)
	}
	return nil
}

func buildGather(b *Builder) error {
	data, ind := b.In(0), b.In(1)
	if data.Rank() == 0 {
		return b.Errorf("data must have rank >= 1")
	}
	if err := checkIndexType(b, 1); err != nil {
		return err
	}
	axis, err := normAxis(b.Op.Attrs.Int("axis", 0), data.Rank())
	if err != nil {
		return b.Errorf("%v", err)
	}
	q := ind.Rank()
	shape := append(append(append([]volume.Aff(nil), data.Shape[:axis]...), ind.Shape...), data.Shape[axis+1:]...)
	dims := dimNames(len(shape))
	b.SetBox(dims, shape, nil)
	// data index: dims before axis, the gathered element, dims after the index dims
	idx := make([]volume.Aff, data.Rank())
	args := make([]*Scalar, data.Rank())
	for d := 0; d < data.Rank(); d++ {
		switch {
		case d < axis:
			idx[d], args[d] = volume.AffDim(d), Index(d)
		case d > axis:
			idx[d], args[d] = volume.AffDim(d+q-1), Index(d+q-1)
		default:
			idx[d] = volume.AffConst(0)
			args[d] = wrapIndex(Read(1, ind.Elem), data.Shape[axis])
		}
	}
	am, err := approxAlongAxis(b.Params, dims, idx, axis, data.Shape[axis])
	if err != nil {
		return b.Errorf("%v", err)
	}
	b.Op.Access = []Access{{Approx: true, ApproxMap: am}, AffAccess(identity(axis, q)...)}
	b.Op.Out = AffAccess(identity(0, len(shape))...)
	b.Op.Body = DynRead(0, data.Elem, args...)
	b.Result = TensorType{Elem: data.Elem, Shape: shape}
	return nil
}

func buildGatherElements(b *Builder) error {
	data, ind := b.In(0), b.In(1)
	if data.Rank() == 0 || ind.Rank() != data.Rank() {
		return b.Errorf("data and indices must have the same rank >= 1, got %s and %s", data, ind)
	}
	if err := checkIndexType(b, 1); err != nil {
		return err
	}
	axis, err := normAxis(b.Op.Attrs.Int("axis", 0), data.Rank())
	if err != nil {
		return b.Errorf("%v", err)
	}
	shape := ind.Shape
	dims := dimNames(len(shape))
	b.SetBox(dims, shape, nil)
	idx := identity(0, data.Rank())
	args := make([]*Scalar, data.Rank())
	for d := range args {
		args[d] = Index(d)
	}
	args[axis] = wrapIndex(Read(1, ind.Elem), data.Shape[axis])
	am, err := approxAlongAxis(b.Params, dims, idx, axis, data.Shape[axis])
	if err != nil {
		return b.Errorf("%v", err)
	}
	b.Op.Access = []Access{{Approx: true, ApproxMap: am}, AffAccess(identity(0, ind.Rank())...)}
	b.Op.Out = AffAccess(identity(0, len(shape))...)
	b.Op.Body = DynRead(0, data.Elem, args...)
	b.Result = TensorType{Elem: data.Elem, Shape: shape}
	return nil
}
