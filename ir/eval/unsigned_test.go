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
		goldenCase{"i16_wraps", "add", nil, []in{tensorOf(ir.I16, s(1), 32767), tensorOf(ir.I16, s(1), 1)}, tensorOf(ir.I16, s(1), -32768)},
	)
}
