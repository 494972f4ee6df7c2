// This file holds the element-map cases of the quantization ops: per-tensor, per-axis and
// blocked scales, per-row and per-column zero points, padded and grouped integer convolutions.

package ir_test

import "github.com/graphc/graphc/ir"

func init() {
	st := ir.StaticType
	sc := func(t ir.DType) ir.TensorType { return ir.TensorType{Elem: t} }
	elementMapCases = append(elementMapCases,
		elementMapCase{name: "quantize_linear_tensor", kind: "quantize_linear",
			operands: []ir.TensorType{st(ir.F32, 2, 3), sc(ir.F32), sc(ir.U8)}},
		elementMapCase{name: "quantize_linear_axis", kind: "quantize_linear",
			operands: []ir.TensorType{st(ir.F32, 2, 3, 2), st(ir.F32, 3), st(ir.I8, 3)}, attrs: ir.Attrs{"axis": ir.IntAttr(1)}},
		elementMapCase{name: "quantize_linear_blocked", kind: "quantize_linear",
			operands: []ir.TensorType{st(ir.F32, 3, 5), st(ir.F32, 3, 3), st(ir.I16, 3, 3)}, attrs: ir.Attrs{"axis": ir.IntAttr(1), "block_size": ir.IntAttr(2)}},
		elementMapCase{name: "dequantize_linear_axis", kind: "dequantize_linear",
			operands: []ir.TensorType{st(ir.U8, 2, 4), st(ir.F32, 4), st(ir.U8, 4)}, attrs: ir.Attrs{"axis": ir.IntAttr(-1)}},
		elementMapCase{name: "dequantize_linear_blocked", kind: "dequantize_linear",
			operands: []ir.TensorType{st(ir.I8, 4, 3), st(ir.F32, 2, 3), st(ir.I8, 2, 3)}, attrs: ir.Attrs{"axis": ir.IntAttr(0), "block_size": ir.IntAttr(3)}},
		elementMapCase{name: "requantize_axis", kind: "requantize",
			operands: []ir.TensorType{st(ir.I32, 1, 3, 2, 2), st(ir.F32, 3), sc(ir.U8)}, attrs: ir.Attrs{"axis": ir.IntAttr(1)}},
		elementMapCase{name: "matmul_integer", kind: "matmul_integer",
			operands: []ir.TensorType{st(ir.U8, 3, 4), st(ir.I8, 4, 2), sc(ir.U8), sc(ir.I8)}},
		elementMapCase{name: "matmul_integer_rows_cols", kind: "matmul_integer",
			operands: []ir.TensorType{st(ir.U8, 2, 3, 4), st(ir.U8, 4, 5), st(ir.U8, 3), st(ir.U8, 5)}},
		elementMapCase{name: "conv_integer_pad", kind: "conv_integer",
			operands: []ir.TensorType{st(ir.U8, 1, 2, 4, 4), st(ir.I8, 3, 2, 3, 3), sc(ir.U8), st(ir.I8, 3), st(ir.I32, 3)},
			attrs:    ir.Attrs{"pads": ir.IntsAttr(1, 1, 1, 1), "strides": ir.IntsAttr(2, 1)}},
		elementMapCase{name: "conv_integer_group", kind: "conv_integer",
			operands: []ir.TensorType{st(ir.I8, 1, 4, 3, 3), st(ir.I8, 4, 2, 2, 2), sc(ir.I8), sc(ir.I8)},
			attrs:    ir.Attrs{"group": ir.IntAttr(2)}},
		// K = 5 in blocks of 2 (the last one padded), 4-bit: B has 3 blocks of 1 byte per row,
		// zero points 2 per byte
		elementMapCase{name: "matmul_nbits_4bit_zp", kind: "matmul_nbits",
			operands: []ir.TensorType{st(ir.F32, 2, 3, 5), st(ir.U8, 3, 3), st(ir.F32, 3, 3), st(ir.U8, 3, 2)},
			attrs:    ir.Attrs{"bits": ir.IntAttr(4), "block_size": ir.IntAttr(2)}},
		elementMapCase{name: "matmul_nbits_8bit", kind: "matmul_nbits",
			operands: []ir.TensorType{st(ir.F32, 4), st(ir.U8, 2, 4), st(ir.F32, 2, 1)},
			attrs:    ir.Attrs{"bits": ir.IntAttr(8), "block_size": ir.IntAttr(4)}},
		// int8 A (K = 6, zero-padded to 3 blocks of 2) with its block scales, 4-bit weights
		// [N = 3, 3 blocks, 1 byte], flat scales and packed zero points
		elementMapCase{name: "matmul_nbits_q8_zp", kind: "matmul_nbits_q8",
			operands: []ir.TensorType{st(ir.I8, 2, 6), st(ir.F32, 2, 3), st(ir.U8, 3, 3, 1), st(ir.F32, 9), st(ir.U8, 3, 2)},
			attrs:    ir.Attrs{"bits": ir.IntAttr(4), "block_size": ir.IntAttr(2)}},
	)
}
