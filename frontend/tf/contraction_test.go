// This file tests MatMul, BatchMatMul*, BiasAdd, MatrixBandPart and MatrixDiagPart against
// ONNX graphs of the same computation.

package tf_test

import (
	"testing"

	"github.com/graphc/graphc/internal/onnxgen"
	"github.com/graphc/graphc/internal/tfgen"
	"github.com/graphc/graphc/ir"
)

func TestMatMulSameAsONNX(t *testing.T) {
	for _, tc := range []struct{ ta, tb bool }{{false, false}, {true, false}, {false, true}, {true, true}} {
		t.Run("", func(t *testing.T) {
			// A' is 3×5 and B' 5×4 after the transposes
			sa, sb := []int64{3, 5}, []int64{5, 4}
			if tc.ta {
				sa = []int64{5, 3}
			}
			if tc.tb {
				sb = []int64{4, 5}
			}
			tg := tfgen.New()
			tg.Placeholder("a", ir.F32, sa...)
			tg.Placeholder("b", ir.F32, sb...)
			tg.Node("MatMul", "y", []string{"a", "b"}, tfgen.Bool("transpose_a", tc.ta), tfgen.Bool("transpose_b", tc.tb))
			m := onnxgen.New("m", 18)
			m.Input("a", ir.F32, anyDims(sa)...)
			m.Input("b", ir.F32, anyDims(sb)...)
			m.Node("Gemm", "y", []string{"a", "b"}, []string{"y"}, onnxgen.IntAttr("transA", b2i(tc.ta)), onnxgen.IntAttr("transB", b2i(tc.tb)))
			onnxOut(m, "y")
			checkSame(t, sameCase{tf: tg, onnx: m})
		})
	}
}

func b2i(b bool) int64 {
	if b {
		return 1
	}
	return 0
}

func TestBatchMatMulSameAsONNX(t *testing.T) {
	for _, op := range []string{"BatchMatMul", "BatchMatMulV2", "BatchMatMulV3"} {
		for _, tc := range []struct {
			adjX, adjY bool
			eq         string
		}{{false, false, ""}, {true, false, "...ki,...kj->...ij"}, {false, true, "...ik,...jk->...ij"}, {true, true, "...ki,...jk->...ij"}} {
			t.Run(op, func(t *testing.T) {
				// x [2, 3, 5] (or its adjoint [2, 5, 3]) times y [5, 4]: V2 and V3 broadcast the batch
				sx, sy := []int64{2, 3, 5}, []int64{2, 5, 4}
				if op != "BatchMatMul" {
					sy = []int64{5, 4}
				}
				if tc.adjX {
					sx[1], sx[2] = sx[2], sx[1]
				}
				if tc.adjY {
					sy[len(sy)-1], sy[len(sy)-2] = sy[len(sy)-2], sy[len(sy)-1]
				}
				tg := tfgen.New()
				tg.Placeholder("x", ir.F32, sx...)
				tg.Placeholder("y", ir.F32, sy...)
				tg.Node(op, "z", []string{"x", "y"}, tfgen.Bool("adj_x", tc.adjX), tfgen.Bool("adj_y", tc.adjY))
				m := onnxgen.New("m", 18)
				m.Input("x", ir.F32, anyDims(sx)...)
				m.Input("y", ir.F32, anyDims(sy)...)
				if tc.eq == "" {
					m.Node("MatMul", "z", []string{"x", "y"}, []string{"z"})
				} else {
					m.Node("Einsum", "z", []string{"x", "y"}, []string{"z"}, onnxgen.StringAttr("equation", tc.eq))
				}
				onnxOut(m, "z")
				checkSame(t, sameCase{tf: tg, onnx: m})
			})
		}
	}
}

// TestBatchMatMulV3Tout multiplies int8 matrices into int32, as quantised models do.
func TestBatchMatMulV3Tout(t *testing.T) {
	tg := tfgen.New()
	tg.Placeholder("x", ir.I8, 2, 3, 4)
	tg.Placeholder("y", ir.I8, 2, 4, 5)
	tg.Node("BatchMatMulV3", "z", []string{"x", "y"}, tfgen.Type("Tout", ir.I32))
	m := onnxgen.New("m", 18)
	m.Input("x", ir.I8, 2, 3, 4)
	m.Input("y", ir.I8, 2, 4, 5)
	m.Node("Cast", "cx", []string{"x"}, []string{"cx"}, onnxgen.IntAttr("to", 6))
	m.Node("Cast", "cy", []string{"y"}, []string{"cy"}, onnxgen.IntAttr("to", 6))
	m.Node("MatMul", "z", []string{"cx", "cy"}, []string{"z"})
	onnxOut(m, "z")
	checkSame(t, sameCase{tf: tg, onnx: m})
}

func TestBiasAddSameAsONNX(t *testing.T) {
	for _, op := range []string{"BiasAdd", "BiasAddV1"} {
		tg := tfgen.New()
		tg.Placeholder("x", ir.F32, 2, 3, 3, 4)
		tg.Placeholder("b", ir.F32, 4)
		tg.Node(op, "y", []string{"x", "b"})
		m := onnxgen.New("m", 18)
		m.Input("x", ir.F32, 2, 3, 3, 4)
		m.Input("b", ir.F32, 4)
		m.Node("Add", "y", []string{"x", "b"}, []string{"y"})
		onnxOut(m, "y")
		checkSame(t, sameCase{tf: tg, onnx: m})
	}
}

// TestMatrixBandPartSameAsONNX: keeping i - j <= lower and j - i <= upper is ONNX's lower
// triangle with k = upper of the upper triangle with k = -lower (-1 drops a bound).
func TestMatrixBandPartSameAsONNX(t *testing.T) {
	for _, tc := range []struct{ lower, upper int64 }{{1, 2}, {0, -1}, {-1, 0}, {0, 0}, {-1, -1}, {2, 1}} {
		t.Run("", func(t *testing.T) {
			tg := tfgen.New()
			tg.Placeholder("x", ir.F32, 2, 5, 6)
			tg.Int32s("lo", []int64{tc.lower}, []int64{}...)
			tg.Int32s("up", []int64{tc.upper}, []int64{}...)
			tg.Node("MatrixBandPart", "y", []string{"x", "lo", "up"})
			m := onnxgen.New("m", 18)
			m.Input("x", ir.F32, 2, 5, 6)
			cur := "x"
			if tc.lower >= 0 {
				m.Init("kl", i64(-tc.lower))
				m.Node("Trilu", "u", []string{cur, "kl"}, []string{"u"}, onnxgen.IntAttr("upper", 1))
				cur = "u"
			}
			if tc.upper >= 0 {
				m.Init("ku", i64(tc.upper))
				m.Node("Trilu", "l", []string{cur, "ku"}, []string{"l"}, onnxgen.IntAttr("upper", 0))
				cur = "l"
			}
			m.Node("Identity", "y", []string{cur}, []string{"y"})
			onnxOut(m, "y")
			checkSame(t, sameCase{tf: tg, onnx: m})
		})
	}
}

func TestMatrixDiagPartSameAsONNX(t *testing.T) {
	tg := tfgen.New()
	tg.Placeholder("x", ir.F32, 2, 4, 4)
	tg.Node("MatrixDiagPart", "y", []string{"x"})
	m := onnxgen.New("m", 18)
	m.Input("x", ir.F32, 2, 4, 4)
	m.Node("Einsum", "y", []string{"x"}, []string{"y"}, onnxgen.StringAttr("equation", "...ii->...i"))
	onnxOut(m, "y")
	checkSame(t, sameCase{tf: tg, onnx: m})
}

// TestBiasAddNCHW adds the bias along dim 1: ONNX broadcasts a [C, 1, 1] bias.
func TestBiasAddNCHW(t *testing.T) {
	tg := tfgen.New()
	tg.Placeholder("x", ir.F32, 2, 3, 4, 5)
	tg.Placeholder("b", ir.F32, 3)
	tg.Node("BiasAdd", "y", []string{"x", "b"}, tfgen.String("data_format", "NCHW"))
	m := onnxgen.New("m", 18)
	m.Input("x", ir.F32, 2, 3, 4, 5)
	m.Input("b", ir.F32, 3)
	m.Init("shape", i64(3, 1, 1))
	m.Node("Reshape", "r", []string{"b", "shape"}, []string{"br"})
	m.Node("Add", "y", []string{"x", "br"}, []string{"y"})
	onnxOut(m, "y")
	checkSame(t, sameCase{tf: tg, onnx: m})
}
