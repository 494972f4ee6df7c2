package eval_test

import (
	"math"

	"github.com/graphc/graphc/ir"
)

// u64 builds a u64 tensor from its unsigned values (those above 2^63 are held as the int64 of
// the same bits).
func u64(shape []int64, v ...uint64) *ir.Tensor {
	t := ir.NewTensor(ir.U64, shape)
	for i, x := range v {
		t.I[i] = int64(x)
	}
	return t
}

// Golden cases of the unsigned types: u64 values above 2^63 compare, divide, reduce and
// convert as unsigned numbers; u16 and u32 wrap at their widths.
func init() {
	big := uint64(1)<<63 + 6 // 9223372036854775814
	goldenCases = append(goldenCases,
		goldenCase{"u64_less", "less", nil, []in{u64(s(2), big, 1), u64(s(2), 2, big)}, bl(s(2), 0, 1)},
		goldenCase{"u64_div", "div", nil, []in{u64(s(2), big, math.MaxUint64), u64(s(2), 2, 1<<32)}, u64(s(2), 1<<62+3, 1<<32-1)},
		goldenCase{"u64_max", "max", nil, []in{u64(s(2), big, 3), u64(s(2), 5, 2)}, u64(s(2), big, 3)},
		goldenCase{"u64_reduce_min", "reduce_min", ir.Attrs{"axes": ir.IntsAttr(0), "keepdims": ir.IntAttr(0)}, []in{u64(s(2), big, math.MaxUint64)}, u64(s(), big)},
		goldenCase{"u64_to_f64", "cast", ir.Attrs{"to": ir.StringAttr("f64")}, []in{u64(s(1), 1<<63)}, tensorOf(ir.F64, s(1), 9223372036854775808.0)},
		goldenCase{"f64_to_u64", "cast", ir.Attrs{"to": ir.StringAttr("u64")}, []in{tensorOf(ir.F64, s(1), 1.5e19)}, u64(s(1), 15000000000000000000)},
		goldenCase{"u32_wraps", "sub", nil, []in{tensorOf(ir.U32, s(1), 1), tensorOf(ir.U32, s(1), 2)}, tensorOf(ir.U32, s(1), math.MaxUint32)},
		goldenCase{"u16_to_f32", "cast", ir.Attrs{"to": ir.StringAttr("f32")}, []in{tensorOf(ir.U16, s(1), 65535)}, f32(s(1), 65535)},
		goldenCase{"i4_wraps", "add", nil, []in{tensorOf(ir.I4, s(2), 7, -8), tensorOf(ir.I4, s(2), 1, -1)}, tensorOf(ir.I4, s(2), -8, 7)},
		goldenCase{"u2_wraps", "mul", nil, []in{tensorOf(ir.U2, s(1), 3), tensorOf(ir.U2, s(1), 3)}, tensorOf(ir.U2, s(1), 1)},
		// 1.0f is 0x3f800000; -1 as i8 is 255 as u8
		goldenCase{"bitcast_f32_i32", "bitcast", ir.Attrs{"to": ir.StringAttr("i32")}, []in{f32(s(2), 1, -2)}, i32(s(2), 0x3f800000, -1073741824)},
		goldenCase{"bitcast_i8_u8", "bitcast", ir.Attrs{"to": ir.StringAttr("u8")}, []in{tensorOf(ir.I8, s(1), -1)}, tensorOf(ir.U8, s(1), 255)},
		goldenCase{"i16_wraps", "add", nil, []in{tensorOf(ir.I16, s(1), 32767), tensorOf(ir.I16, s(1), 1)}, tensorOf(ir.I16, s(1), -32768)},
	)
}
