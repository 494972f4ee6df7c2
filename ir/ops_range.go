// This file declares range: the tensor start, start + delta, … below limit, whose bounds are
// quasi-affine expressions of the symbolic dims. It is ONNX Range when the limit is only known
// at run time (torch.arange(T) with T read off an input's shape), an affine tensor whose
// elements are known expressions of their index: gathers indexed by it have exact element maps.

package ir

import (
	"github.com/graphc/graphc/volume"
)

func init() {
	register(&OpDef{
		Name:        "range",
		Summary:     "start + i·delta for i in [0, ceil((limit - start)/delta)); start, limit and delta are integer expressions of the symbolic dims",
		Example:     `%r = range() {delta = "1", elem = "i64", limit = "T", start = "0"} : i64[T]`,
		MinOperands: 0, MaxOperands: 0,
		Attrs: []AttrDef{
			{Name: "elem", Kind: AttrString, Default: dflt(StringAttr("i64")), Doc: "element type"},
			{Name: "start", Kind: AttrString, Default: dflt(StringAttr("0")), Doc: "first element"},
			{Name: "limit", Kind: AttrString, Doc: "exclusive bound"},
			{Name: "delta", Kind: AttrString, Default: dflt(StringAttr("1")), Doc: "step: a non-zero integer constant"},
		},
		Build: buildRange,
	})
}

func buildRange(b *Builder) error {
	a := b.Op.Attrs
	elem, err := ParseDType(a.Str("elem", "i64"))
	if err != nil {
		return b.Errorf("elem: %v", err)
	}
	if elem == Bool {
		return b.Errorf("elem: a range of booleans")
	}
	var ex [3]volume.Aff
	for i, n := range []string{"start", "limit", "delta"} {
		e, err := volume.ParseAff(a.Str(n, ""), nil)
		if err != nil {
			return b.Errorf("%s: %v", n, err)
		}
		if len(e.Dims) > 0 {
			return b.Errorf("%s: %q uses iteration dims", n, a.Str(n, ""))
		}
		ex[i] = e
	}
	start, limit := ex[0], ex[1]
	delta, ok := ex[2].IsConst()
	if !ok || delta == 0 {
		return b.Errorf("delta must be a non-zero integer constant, got %s", ex[2].String())
	}
	// n = max(ceil((limit - start)/delta), 0): without a max, the op requires the range to be
	// non-empty or empty by its bounds' order (limit >= start for a positive delta)
	span := limit.Sub(start)
	if delta < 0 {
		span = span.Neg()
	}
	var n volume.Aff
	if c, ok := span.IsConst(); ok {
		n = volume.AffConst(max(ceilDiv(c, abs64(delta)), 0))
	} else {
		if err := b.require(volume.GE(span, volume.AffConst(0))); err != nil {
			return err
		}
		n = span.AddConst(abs64(delta) - 1).FloorDiv(abs64(delta))
	}
	b.SetBox([]string{"i"}, []volume.Aff{n}, nil)
	b.Op.Access = []Access{}
	b.Op.Out = AffAccess(volume.AffDim(0))
	b.Op.Body = Cast(AffScalar(start.Add(volume.AffDim(0).Mul(delta))), elem)
	b.Result = TensorType{Elem: elem, Shape: []volume.Aff{n}}
	return nil
}

func abs64(v int64) int64 {
	if v < 0 {
		return -v
	}
	return v
}
