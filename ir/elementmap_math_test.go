// This file adds the math, reduction, normalisation and einsum ops to the element-map harness
// of elementmap_test.go.

package ir_test

import "github.com/graphc/graphc/ir"

func init() {
	f := func(shape ...int64) ir.TensorType { return ir.StaticType(ir.F32, shape...) }
	b := func(shape ...int64) ir.TensorType { return ir.StaticType(ir.Bool, shape...) }
	i := func(shape ...int64) ir.TensorType { return ir.StaticType(ir.I32, shape...) }
	var cases []elementMapCase
	for _, k := range []string{"erf", "floor", "ceil", "round", "sign", "sin", "cos", "tan", "asin", "acos", "atan", "sinh", "cosh", "asinh", "acosh", "atanh", "reciprocal", "softplus", "softsign",
		"leaky_relu", "elu", "celu", "selu", "hard_sigmoid", "hard_swish", "thresholded_relu", "gelu", "shrink", "swish", "mish", "is_nan", "is_inf",
		"abs", "exp", "log", "neg", "sigmoid", "sqrt", "tanh", "identity", "relu"} {
		cases = append(cases, elementMapCase{name: k, kind: k, operands: []ir.TensorType{f(2, 3)}})
	}
	for _, k := range []string{"equal", "not_equal", "greater", "greater_equal", "less", "less_equal", "rem", "mod", "sub", "mul", "div", "max", "min", "pow"} {
		cases = append(cases, elementMapCase{name: k + "_bcast", kind: k, operands: []ir.TensorType{f(2, 1, 3), f(4, 1)}})
	}
	for _, k := range []string{"bitwise_and", "bitwise_or", "bitwise_xor", "shift_left", "shift_right"} {
		cases = append(cases, elementMapCase{name: k + "_bcast", kind: k, operands: []ir.TensorType{i(3, 1), i(1, 4)}})
	}
	for _, k := range []string{"and", "or", "xor"} {
		cases = append(cases, elementMapCase{name: k + "_bcast", kind: k, operands: []ir.TensorType{b(3, 1), b(1, 4)}})
	}
	cases = append(cases,
		elementMapCase{name: "not", kind: "not", operands: []ir.TensorType{b(3, 2)}},
		elementMapCase{name: "gelu_tanh", kind: "gelu", operands: []ir.TensorType{f(4)}, attrs: ir.Attrs{"approximate": ir.StringAttr("tanh")}},
		elementMapCase{name: "where_bcast", kind: "where", operands: []ir.TensorType{b(2, 1, 3), f(4, 1), f(1)}},
		elementMapCase{name: "cast", kind: "cast", operands: []ir.TensorType{i(2, 3)}, attrs: ir.Attrs{"to": ir.StringAttr("f32")}},
		elementMapCase{name: "reduce_sum_keep", kind: "reduce_sum", operands: []ir.TensorType{f(2, 3, 4)}, attrs: ir.Attrs{"axes": ir.IntsAttr(1)}},
		elementMapCase{name: "reduce_sum_drop", kind: "reduce_sum", operands: []ir.TensorType{f(2, 3, 4)}, attrs: ir.Attrs{"axes": ir.IntsAttr(0, -1), "keepdims": ir.IntAttr(0)}},
		elementMapCase{name: "reduce_sum_none", kind: "reduce_sum", operands: []ir.TensorType{f(2, 3)}, attrs: ir.Attrs{"axes": ir.IntsAttr()}},
		elementMapCase{name: "reduce_prod_all", kind: "reduce_prod", operands: []ir.TensorType{f(2, 3)}, attrs: ir.Attrs{"axes": ir.IntsAttr(0, 1), "keepdims": ir.IntAttr(0)}},
		elementMapCase{name: "reduce_max", kind: "reduce_max", operands: []ir.TensorType{f(3, 2)}, attrs: ir.Attrs{"axes": ir.IntsAttr(0)}},
		elementMapCase{name: "reduce_min", kind: "reduce_min", operands: []ir.TensorType{i(3, 2)}, attrs: ir.Attrs{"axes": ir.IntsAttr(1), "keepdims": ir.IntAttr(0)}},
		elementMapCase{name: "argmax", kind: "argmax", operands: []ir.TensorType{f(3, 4)}, attrs: ir.Attrs{"axis": ir.IntAttr(1)}},
		elementMapCase{name: "argmin_last", kind: "argmin", operands: []ir.TensorType{f(3, 4, 2)}, attrs: ir.Attrs{"axis": ir.IntAttr(-2), "keepdims": ir.IntAttr(0), "select_last_index": ir.IntAttr(1)}},
		elementMapCase{name: "batch_norm", kind: "batch_norm", operands: []ir.TensorType{f(2, 3, 2), f(3), f(3), f(3), f(3)}},
		elementMapCase{name: "instance_norm", kind: "batch_norm", operands: []ir.TensorType{f(2, 3, 2), f(3), f(3), f(2, 3), f(2, 3)}},
		elementMapCase{name: "channel_window_sum", kind: "channel_window_sum", operands: []ir.TensorType{f(2, 5, 2)}, attrs: ir.Attrs{"size": ir.IntAttr(3)}},
		elementMapCase{name: "channel_window_sum_even", kind: "channel_window_sum", operands: []ir.TensorType{f(1, 4)}, attrs: ir.Attrs{"size": ir.IntAttr(2)}},
		elementMapCase{name: "einsum_matmul", kind: "einsum", operands: []ir.TensorType{f(3, 4), f(4, 2)}, attrs: ir.Attrs{"equation": ir.StringAttr("ij,jk->ik")}},
		elementMapCase{name: "einsum_transposed", kind: "einsum", operands: []ir.TensorType{f(4, 3), f(2, 4)}, attrs: ir.Attrs{"equation": ir.StringAttr("ki,jk->ij")}},
		elementMapCase{name: "einsum_diagonal", kind: "einsum", operands: []ir.TensorType{f(2, 3, 3)}, attrs: ir.Attrs{"equation": ir.StringAttr("...ii->...i")}},
		elementMapCase{name: "einsum_implicit", kind: "einsum", operands: []ir.TensorType{f(3, 4), f(4)}, attrs: ir.Attrs{"equation": ir.StringAttr("ij,j")}},
		elementMapCase{name: "einsum_ellipsis_bcast", kind: "einsum", operands: []ir.TensorType{f(2, 1, 3, 4), f(5, 4, 2)}, attrs: ir.Attrs{"equation": ir.StringAttr("...ij,...jk->...ik")}},
		elementMapCase{name: "einsum_trace", kind: "einsum", operands: []ir.TensorType{f(3, 3)}, attrs: ir.Attrs{"equation": ir.StringAttr("ii->")}},
		elementMapCase{name: "bitwise_not", kind: "bitwise_not", operands: []ir.TensorType{i(3)}},
		elementMapCase{name: "cumsum", kind: "cumsum", operands: []ir.TensorType{f(3, 4)}, attrs: ir.Attrs{"axis": ir.IntAttr(1)}},
		elementMapCase{name: "cumsum_exclusive_reverse", kind: "cumsum", operands: []ir.TensorType{f(4, 2)}, attrs: ir.Attrs{"axis": ir.IntAttr(0), "exclusive": ir.IntAttr(1), "reverse": ir.IntAttr(1)}},
		elementMapCase{name: "cumprod_exclusive", kind: "cumprod", operands: []ir.TensorType{f(5)}, attrs: ir.Attrs{"exclusive": ir.IntAttr(1)}},
		elementMapCase{name: "one_hot", kind: "one_hot", operands: []ir.TensorType{i(2, 3)}, attrs: ir.Attrs{"axis": ir.IntAttr(1), "depth": ir.IntAttr(4), "type": ir.StringAttr("f32")}},
		elementMapCase{name: "nll_pick", kind: "nll_pick", operands: []ir.TensorType{f(2, 3, 2), ir.StaticType(ir.I64, 2, 2), f(3)}},
		elementMapCase{name: "nll_weight", kind: "nll_weight", operands: []ir.TensorType{ir.StaticType(ir.I64, 2, 2)}, attrs: ir.Attrs{"has_ignore": ir.IntAttr(1)}},
	)
	elementMapCases = append(elementMapCases, cases...)
}
