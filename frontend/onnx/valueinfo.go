// This file checks what the model declares against what the importer computed: graph-level
// value_info and the constants the caller binds to graph inputs.

package onnx

import (
	"fmt"
	"strings"

	"github.com/graphc/graphc/ir"
	"github.com/graphc/graphc/proto/onnxpb"
)

// declaredType returns the element type and the dims of a ValueInfo (-1 for dims that are
// symbolic or unknown); ok=false when it declares no tensor type.
func declaredType(vi *onnxpb.ValueInfoProto) (elem ir.DType, dims []int64, hasShape, ok bool, err error) {
	tt := vi.GetType().GetTensorType()
	if tt == nil || tt.GetElemType() == 0 {
		return 0, nil, false, false, nil
	}
	elem, err = DType(tt.GetElemType())
	if err != nil {
		return 0, nil, false, false, err
	}
	if tt.Shape == nil {
		return elem, nil, false, true, nil
	}
	for _, d := range tt.Shape.Dim {
		if hasDimValue(d) {
			dims = append(dims, d.GetDimValue())
		} else {
			dims = append(dims, -1)
		}
	}
	return elem, dims, true, true, nil
}

// conforms reports how t differs from a declared type ("" when it conforms): element type,
// rank, and every dim both sides know statically.
func conforms(t ir.TensorType, elem ir.DType, dims []int64, hasShape bool) string {
	if t.Elem != elem {
		return fmt.Sprintf("element type %s", elem)
	}
	if !hasShape {
		return ""
	}
	if len(dims) != t.Rank() {
		return fmt.Sprintf("rank %d", len(dims))
	}
	for i, d := range dims {
		if v, ok := t.Dim(i); ok && d >= 0 && v != d {
			return fmt.Sprintf("dim %d = %d", i, d)
		}
	}
	return ""
}

func declString(elem ir.DType, dims []int64, hasShape bool) string {
	if !hasShape {
		return elem.String() + "[?]"
	}
	parts := make([]string, len(dims))
	for i, d := range dims {
		if d < 0 {
			parts[i] = "?"
		} else {
			parts[i] = fmt.Sprint(d)
		}
	}
	return elem.String() + "[" + strings.Join(parts, ", ") + "]"
}

// checkValueInfo checks the graph's value_info and output types against the imported values.
func (im *importer) checkValueInfo(gp *onnxpb.GraphProto) error {
	check := func(what string, vi *onnxpb.ValueInfoProto) error {
		var t ir.TensorType
		if v, found := im.Vals[vi.GetName()]; found {
			t = v.Type
		} else if c, found := im.Consts[vi.GetName()]; found {
			t = ir.StaticType(c.Elem, c.Shape...)
		} else {
			return nil // a value no node produces is reported where it is used
		}
		elem, dims, hasShape, ok, err := declaredType(vi)
		if err != nil {
			return im.errf("%s %q: %w", what, vi.GetName(), err)
		}
		if !ok {
			return nil
		}
		if diff := conforms(t, elem, dims, hasShape); diff != "" {
			return im.errf("%w: %s %q is declared %s, the importer computed %s (%s differs)", ErrInvalid, what, vi.GetName(), declString(elem, dims, hasShape), t, diff)
		}
		return nil
	}
	for _, vi := range gp.ValueInfo {
		if err := check("value_info", vi); err != nil {
			return err
		}
	}
	for _, vi := range gp.Output {
		if err := check("output", vi); err != nil {
			return err
		}
	}
	return nil
}

// checkConstInput checks a constant the caller binds to graph input vi.
func (im *importer) checkConstInput(vi *onnxpb.ValueInfoProto, data *ir.Tensor) error {
	elem, dims, hasShape, ok, err := declaredType(vi)
	if err != nil {
		return im.errf("input %q: %w", vi.GetName(), err)
	}
	if !ok {
		return nil
	}
	if diff := conforms(ir.StaticType(data.Elem, data.Shape...), elem, dims, hasShape); diff != "" {
		return im.errf("%w: constant bound to input %q is %s%v, the input is declared %s", ErrInvalid, vi.GetName(), data.Elem, data.Shape, declString(elem, dims, hasShape))
	}
	return nil
}

func inputNames(gp *onnxpb.GraphProto) string {
	var n []string
	for _, vi := range gp.Input {
		n = append(n, fmt.Sprintf("%q", vi.GetName()))
	}
	return strings.Join(n, ", ")
}
