// This file holds the evaluator's golden cases of the quantization ops, each worked by hand from
// the ONNX formulas (the comments give the arithmetic): round half to even, saturation, per-axis
// and blocked scales, zero points per row and column, padded integer convolution.

package eval_test

import "github.com/graphc/graphc/ir"

func u8(shape []int64, v ...float64) *ir.Tensor  { return tensorOf(ir.U8, shape, v...) }
func i8(shape []int64, v ...float64) *ir.Tensor  { return tensorOf(ir.I8, shape, v...) }
func u16(shape []int64, v ...float64) *ir.Tensor { return tensorOf(ir.U16, shape, v...) }
func i16(shape []int64, v ...float64) *ir.Tensor { return tensorOf(ir.I16, shape, v...) }

func init() {
	axis := func(a int64) ir.Attrs { return ir.Attrs{"axis": ir.IntAttr(a)} }
	goldenCases = append(goldenCases,
		// x/2 = 0.5, 1.5, 2.5, -0.5, 150, -3 → round half to even 0, 2, 2, -0, 150, -3 → + 10
		goldenCase{"quantize_tensor_u8", "quantize_linear", nil,
			[]in{f32(s(6), 1, 3, 5, -1, 300, -6), f32(nil, 2), u8(nil, 10)}, u8(s(6), 10, 12, 12, 10, 160, 7)},
		// saturation: 600/2 + 10 = 310 → 255; -40/2 + 10 = -10 → 0
		goldenCase{"quantize_saturate_u8", "quantize_linear", nil,
			[]in{f32(s(2), 600, -40), f32(nil, 2), u8(nil, 10)}, u8(s(2), 255, 0)},
		// i8: 1000 → 127, -1000 → -128, 2.5 → 2 (half to even), -2.5 → -2
		goldenCase{"quantize_saturate_i8", "quantize_linear", nil,
			[]in{f32(s(4), 1000, -1000, 2.5, -2.5), f32(nil, 1), i8(nil, 0)}, i8(s(4), 127, -128, 2, -2)},
		// per axis 1 with scales 1, 10 and zero points 0, -5: column 0 x, column 1 x/10 - 5
		goldenCase{"quantize_axis_i16", "quantize_linear", axis(1),
			[]in{f32(s(2, 2), 7, 70, -7, 45), f32(s(2), 1, 10), i16(s(2), 0, -5)}, i16(s(2, 2), 7, 2, -7, -1)},
		// blocked along axis 1 in blocks of 2: scale 1 zp 0 (cols 0-1), scale 4 zp 1 (col 2);
		// 65536 saturates u16; 10/4 = 2.5 → 2 (half to even) + 1
		goldenCase{"quantize_blocked_u16", "quantize_linear", ir.Attrs{"axis": ir.IntAttr(1), "block_size": ir.IntAttr(2)},
			[]in{f32(s(1, 3), 3, 65536, 10), f32(s(1, 2), 1, 4), u16(s(1, 2), 0, 1)}, u16(s(1, 3), 3, 65535, 3)},
		// (x - zp) * scale per axis 0: row 0 (200 - 128) * 0.5 = 36, row 1 (3 - 0) * 2 = 6
		goldenCase{"dequantize_axis_u8", "dequantize_linear", axis(0),
			[]in{u8(s(2, 2), 200, 128, 3, 0), f32(s(2), 0.5, 2), u8(s(2), 128, 0)}, f32(s(2, 2), 36, 0, 6, 0)},
		// i32 input, zero point 0: 100000 * 0.25
		goldenCase{"dequantize_i32", "dequantize_linear", nil,
			[]in{i32(s(2), 100000, -3), f32(nil, 0.25), i32(nil, 0)}, f32(s(2), 25000, -0.75)},
		// blocked along axis 0, blocks of 2: rows 0-1 scale 1 zp 0, row 2 scale 3 zp -1
		goldenCase{"dequantize_blocked_i8", "dequantize_linear", ir.Attrs{"axis": ir.IntAttr(0), "block_size": ir.IntAttr(2)},
			[]in{i8(s(3, 1), -128, 127, 1), f32(s(2, 1), 1, 3), i8(s(2, 1), 0, -1)}, f32(s(3, 1), -128, 127, 6)},
		// round(acc * m) + zp, channel 0 (m 0.5): 7·0.5 = 3.5 → 4 + 1 = 5; 5·0.5 = 2.5 → 2 + 1 = 3;
		// channel 1 (m 0.25): 1000·0.25 + 1 = 251; -9·0.25 = -2.25 → -2 + 1 = -1 → 0 (u8)
		goldenCase{"requantize_axis", "requantize", axis(1),
			[]in{i32(s(1, 2, 2), 7, 5, 1000, -9), f32(s(2), 0.5, 0.25), u8(nil, 1)}, u8(s(1, 2, 2), 5, 3, 251, 0)},
		// (A - [1, 2] per row) · (B - [0, 3] per column):
		// A - az = [[1, 2], [-1, 0]], B - bz = [[1, -1], [2, 0]]
		// row 0: [1·1 + 2·2, 1·(-1) + 2·0] = [5, -1]; row 1: [-1, 1]
		goldenCase{"matmul_integer_rows_cols", "matmul_integer", nil,
			[]in{u8(s(2, 2), 2, 3, 1, 2), u8(s(2, 2), 1, 2, 2, 3), u8(s(2), 1, 2), u8(s(2), 0, 3)}, i32(s(2, 2), 5, -1, -1, 1)},
		// u8 × i8: 255·127 + 255·127 = 64770, no overflow in i32
		goldenCase{"matmul_integer_u8_i8", "matmul_integer", nil,
			[]in{u8(s(1, 2), 255, 255), i8(s(2, 1), 127, 127), u8(nil, 0), i8(nil, 0)}, i32(s(1, 1), 64770)},
		// float8 e4m3fn: x / 2 + 0, rounded to the format; 1000 saturates to its largest
		// value 448; 0.3 → 0.15 rounds to 0.15625 (e4m3 has 3 mantissa bits: 1.25·2^-3)
		goldenCase{"quantize_f8e4m3fn_saturate", "quantize_linear", nil,
			[]in{f32(s(3), 1000, 0.3, -3), f32(nil, 2), tensorOf(ir.F8E4M3FN, nil, 0)},
			tensorOf(ir.F8E4M3FN, s(3), 448, 0.15625, -1.5)},
		// dequantize float8: (x - zp) · scale = (3 - 1) · 0.5
		goldenCase{"dequantize_f8e5m2", "dequantize_linear", nil,
			[]in{tensorOf(ir.F8E5M2, s(1), 3), f32(nil, 0.5), tensorOf(ir.F8E5M2, nil, 1)}, f32(s(1), 1)},
		// 1-D conv of X - 2 = [1, -1, 3] with W - 1 = [1, 2, 0] (3 taps), pads 1 each side, bias 10:
		// y0 = 0·1 + 1·2 + (-1)·0 = 2; y1 = 1·1 + (-1)·2 + 3·0 = -1; y2 = -1·1 + 3·2 + 0 = 5; + 10
		goldenCase{"conv_integer_pad_bias", "conv_integer", ir.Attrs{"pads": ir.IntsAttr(1, 1)},
			[]in{u8(s(1, 1, 3), 3, 1, 5), i8(s(1, 1, 3), 2, 3, 1), u8(nil, 2), i8(s(1), 1), i32(s(1), 10)}, i32(s(1, 1, 3), 12, 9, 15)},
	)
}
