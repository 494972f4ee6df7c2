// This file tests Conv2D, DepthwiseConv2dNative, MaxPool, MaxPoolV2 and AvgPool against ONNX
// graphs of the same computation (NHWC inputs transposed around ONNX's NCHW ops, filters
// rearranged to OIHW in Go).

package tf_test

import (
	"fmt"
	"testing"

	"github.com/graphc/graphc/internal/onnxgen"
	"github.com/graphc/graphc/internal/tfgen"
	"github.com/graphc/graphc/ir"
)

// hwioToOIHW rearranges a TensorFlow filter [kh, kw, i, o] into ONNX's [o, i, kh, kw].
func hwioToOIHW(f *ir.Tensor) *ir.Tensor {
	kh, kw, ci, co := f.Shape[0], f.Shape[1], f.Shape[2], f.Shape[3]
	w := ir.NewTensor(f.Elem, []int64{co, ci, kh, kw})
	for a := int64(0); a < kh; a++ {
		for b := int64(0); b < kw; b++ {
			for i := int64(0); i < ci; i++ {
				for o := int64(0); o < co; o++ {
					w.F[((o*ci+i)*kh+a)*kw+b] = f.F[((a*kw+b)*ci+i)*co+o]
				}
			}
		}
	}
	return w
}

// depthwiseToOIHW rearranges a depthwise filter [kh, kw, c, m] into a grouped conv's
// [c·m, 1, kh, kw].
func depthwiseToOIHW(f *ir.Tensor) *ir.Tensor {
	kh, kw, c, m := f.Shape[0], f.Shape[1], f.Shape[2], f.Shape[3]
	w := ir.NewTensor(f.Elem, []int64{c * m, 1, kh, kw})
	for a := int64(0); a < kh; a++ {
		for b := int64(0); b < kw; b++ {
			for i := int64(0); i < c; i++ {
				for o := int64(0); o < m; o++ {
					w.F[((i*m+o)*kh+a)*kw+b] = f.F[((a*kw+b)*c+i)*m+o]
				}
			}
		}
	}
	return w
}

// nchwModel wraps an ONNX node on the NCHW image "xn" (named y) with the layout transposes when
// nhwc; x has the TensorFlow-side dims.
func nchwModel(nhwc bool, dims []any, node func(m *onnxgen.Model, x, y string)) *onnxgen.Model {
	m := onnxgen.New("m", 18)
	m.Input("x", ir.F32, dims...)
	if !nhwc {
		node(m, "x", "y")
	} else {
		m.Node("Transpose", "tin", []string{"x"}, []string{"xn"}, onnxgen.IntsAttr("perm", 0, 3, 1, 2))
		node(m, "xn", "yn")
		m.Node("Transpose", "tout", []string{"yn"}, []string{"y"}, onnxgen.IntsAttr("perm", 0, 2, 3, 1))
	}
	onnxOut(m, "y")
	return m
}

// image returns the TensorFlow-side shape of an image with h×w pixels and c channels.
func image(nhwc bool, n, h, w, c int64) []int64 {
	if nhwc {
		return []int64{n, h, w, c}
	}
	return []int64{n, c, h, w}
}

// perLayout returns a 4-value attribute with h and w at the spatial positions.
func perLayout(nhwc bool, h, w int64) []int64 {
	if nhwc {
		return []int64{1, h, w, 1}
	}
	return []int64{1, 1, h, w}
}

func TestConv2DSameAsONNX(t *testing.T) {
	type convCase struct {
		nhwc           bool
		h, w, c        int64
		filter         []int64 // kh, kw, in, out
		padding        string
		explicit       []int64 // top, bottom, left, right
		sh, sw, dh, dw int64
	}
	var cases []convCase
	for _, nhwc := range []bool{true, false} {
		cases = append(cases,
			convCase{nhwc, 6, 7, 2, []int64{3, 3, 2, 4}, "VALID", nil, 1, 1, 1, 1},
			convCase{nhwc, 6, 7, 2, []int64{3, 2, 2, 4}, "SAME", nil, 1, 1, 1, 1},
			convCase{nhwc, 7, 8, 2, []int64{3, 3, 2, 3}, "SAME", nil, 2, 3, 1, 1},
			convCase{nhwc, 7, 8, 2, []int64{3, 3, 2, 3}, "SAME", nil, 1, 1, 2, 2},
			convCase{nhwc, 7, 8, 2, []int64{2, 3, 2, 3}, "EXPLICIT", []int64{1, 2, 0, 3}, 2, 1, 1, 2},
			convCase{nhwc, 5, 5, 4, []int64{3, 3, 2, 6}, "SAME", nil, 1, 1, 1, 1}, // two groups
		)
	}
	for k, tc := range cases {
		t.Run(fmt.Sprint(k), func(t *testing.T) {
			f := randConst(uint64(k), tc.filter...)
			tg := tfgen.New()
			tg.Placeholder("x", ir.F32, image(tc.nhwc, 2, tc.h, tc.w, tc.c)...)
			tg.Const("f", f)
			format := map[bool]string{true: "NHWC", false: "NCHW"}[tc.nhwc]
			attrs := []tfgen.Attr{tfgen.String("padding", tc.padding), tfgen.String("data_format", format),
				tfgen.Ints("strides", perLayout(tc.nhwc, tc.sh, tc.sw)...), tfgen.Ints("dilations", perLayout(tc.nhwc, tc.dh, tc.dw)...)}
			if tc.explicit != nil {
				e := make([]int64, 8)
				sp := 2
				if !tc.nhwc {
					sp = 4
				}
				copy(e[sp:], tc.explicit)
				attrs = append(attrs, tfgen.Ints("explicit_paddings", e...))
			}
			tg.Node("Conv2D", "y", []string{"x", "f"}, attrs...)
			m := nchwModel(tc.nhwc, anyDims(image(tc.nhwc, 2, tc.h, tc.w, tc.c)), func(m *onnxgen.Model, x, y string) {
				m.Init("w", hwioToOIHW(f))
				oattrs := []onnxgen.Attr{onnxgen.IntsAttr("kernel_shape", tc.filter[0], tc.filter[1]), onnxgen.IntsAttr("strides", tc.sh, tc.sw),
					onnxgen.IntsAttr("dilations", tc.dh, tc.dw), onnxgen.IntAttr("group", tc.c/tc.filter[2])}
				switch tc.padding {
				case "SAME":
					oattrs = append(oattrs, onnxgen.StringAttr("auto_pad", "SAME_UPPER"))
				case "EXPLICIT":
					e := tc.explicit
					oattrs = append(oattrs, onnxgen.IntsAttr("pads", e[0], e[2], e[1], e[3]))
				}
				m.Node("Conv", "conv", []string{x, "w"}, []string{y}, oattrs...)
			})
			g := checkSame(t, sameCase{tf: tg, onnx: m})
			for _, op := range g.Ops {
				if op.Kind == "transpose" && len(op.Operands[0].Type.Shape) == 4 && op.Operands[0].Data != nil {
					t.Fatalf("the constant filter's transpose was not folded:\n%s", g)
				}
			}
		})
	}
}

// TestConv2DFilterInput: a filter that is a graph input is transposed at run time.
func TestConv2DFilterInput(t *testing.T) {
	tg := tfgen.New()
	tg.Placeholder("x", ir.F32, 1, 5, 5, 3)
	tg.Placeholder("f", ir.F32, 3, 3, 3, 2)
	tg.Node("Conv2D", "y", []string{"x", "f"}, tfgen.String("padding", "SAME"), tfgen.Ints("strides", 1, 1, 1, 1))
	m := nchwModel(true, anyDims([]int64{1, 5, 5, 3}), func(m *onnxgen.Model, x, y string) {
		m.Input("f", ir.F32, 3, 3, 3, 2)
		m.Node("Transpose", "tf", []string{"f"}, []string{"w"}, onnxgen.IntsAttr("perm", 3, 2, 0, 1))
		m.Node("Conv", "conv", []string{x, "w"}, []string{y}, onnxgen.IntsAttr("pads", 1, 1, 1, 1))
	})
	checkSame(t, sameCase{tf: tg, onnx: m})
}

// TestConv2DSymbolicBatch: SAME padding with stride 1 needs no static extent.
func TestConv2DSymbolicBatch(t *testing.T) {
	f := randConst(3, 3, 3, 2, 2)
	tg := tfgen.New()
	tg.Placeholder("x", ir.F32, -1, 4, 4, 2)
	tg.Const("f", f)
	tg.Node("Conv2D", "y", []string{"x", "f"}, tfgen.String("padding", "SAME"), tfgen.Ints("strides", 1, 1, 1, 1))
	m := nchwModel(true, []any{"x_d0", 4, 4, 2}, func(m *onnxgen.Model, x, y string) {
		m.Init("w", hwioToOIHW(f))
		m.Node("Conv", "conv", []string{x, "w"}, []string{y}, onnxgen.IntsAttr("pads", 1, 1, 1, 1))
	})
	for _, n := range []int64{1, 3} {
		checkSame(t, sameCase{tf: tg, onnx: m, params: map[string]int64{"x_d0": n}})
	}
}

func TestDepthwiseConvSameAsONNX(t *testing.T) {
	for _, nhwc := range []bool{true, false} {
		for _, padding := range []string{"VALID", "SAME"} {
			f := randConst(8, 3, 3, 3, 2) // 3 channels, multiplier 2
			tg := tfgen.New()
			tg.Placeholder("x", ir.F32, image(nhwc, 2, 6, 5, 3)...)
			tg.Const("f", f)
			format := map[bool]string{true: "NHWC", false: "NCHW"}[nhwc]
			tg.Node("DepthwiseConv2dNative", "y", []string{"x", "f"}, tfgen.String("padding", padding), tfgen.String("data_format", format),
				tfgen.Ints("strides", perLayout(nhwc, 2, 1)...))
			m := nchwModel(nhwc, anyDims(image(nhwc, 2, 6, 5, 3)), func(m *onnxgen.Model, x, y string) {
				m.Init("w", depthwiseToOIHW(f))
				attrs := []onnxgen.Attr{onnxgen.IntAttr("group", 3), onnxgen.IntsAttr("strides", 2, 1)}
				if padding == "SAME" {
					attrs = append(attrs, onnxgen.StringAttr("auto_pad", "SAME_UPPER"))
				}
				m.Node("Conv", "conv", []string{x, "w"}, []string{y}, attrs...)
			})
			checkSame(t, sameCase{tf: tg, onnx: m})
		}
	}
}

func TestPoolSameAsONNX(t *testing.T) {
	for _, op := range []string{"MaxPool", "MaxPoolV2", "AvgPool"} {
		for _, nhwc := range []bool{true, false} {
			for _, tc := range []struct {
				padding string
				kh, kw  int64
				sh, sw  int64
			}{{"VALID", 2, 2, 2, 2}, {"SAME", 3, 3, 2, 2}, {"SAME", 2, 3, 1, 2}, {"VALID", 3, 1, 1, 1}} {
				t.Run(fmt.Sprint(op, nhwc, tc), func(t *testing.T) {
					shape := image(nhwc, 2, 7, 6, 3)
					tg := tfgen.New()
					tg.Placeholder("x", ir.F32, shape...)
					format := map[bool]string{true: "NHWC", false: "NCHW"}[nhwc]
					attrs := []tfgen.Attr{tfgen.String("padding", tc.padding), tfgen.String("data_format", format)}
					ins := []string{"x"}
					if op == "MaxPoolV2" {
						tg.Int32s("k", perLayout(nhwc, tc.kh, tc.kw))
						tg.Int32s("s", perLayout(nhwc, tc.sh, tc.sw))
						ins = append(ins, "k", "s")
					} else {
						attrs = append(attrs, tfgen.Ints("ksize", perLayout(nhwc, tc.kh, tc.kw)...), tfgen.Ints("strides", perLayout(nhwc, tc.sh, tc.sw)...))
					}
					tg.Node(op, "y", ins, attrs...)
					onnxOp := map[string]string{"MaxPool": "MaxPool", "MaxPoolV2": "MaxPool", "AvgPool": "AveragePool"}[op]
					m := nchwModel(nhwc, anyDims(shape), func(m *onnxgen.Model, x, y string) {
						attrs := []onnxgen.Attr{onnxgen.IntsAttr("kernel_shape", tc.kh, tc.kw), onnxgen.IntsAttr("strides", tc.sh, tc.sw)}
						if tc.padding == "SAME" {
							attrs = append(attrs, onnxgen.StringAttr("auto_pad", "SAME_UPPER"))
						}
						m.Node(onnxOp, "pool", []string{x}, []string{y}, attrs...)
					})
					checkSame(t, sameCase{tf: tg, onnx: m})
				})
			}
		}
	}
}
