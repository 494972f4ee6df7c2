// This file tests Sum, Prod, Max, Min, Mean, All, Any, ArgMax and ArgMin against ONNX graphs of
// the same computation.

package tf_test

import (
	"fmt"
	"testing"

	"github.com/graphc/graphc/internal/onnxgen"
	"github.com/graphc/graphc/internal/tfgen"
	"github.com/graphc/graphc/ir"
)

func TestReduceSameAsONNX(t *testing.T) {
	ops := map[string]string{"Sum": "ReduceSum", "Prod": "ReduceProd", "Max": "ReduceMax", "Min": "ReduceMin", "Mean": "ReduceMean"}
	axesCases := []struct {
		tf   []int64 // nil: a scalar 1
		onnx []int64
	}{{nil, []int64{1}}, {[]int64{0, 2}, []int64{0, 2}}, {[]int64{-1}, []int64{2}}, {[]int64{}, nil}}
	for tfOp, onnxOp := range ops {
		for _, elem := range []ir.DType{ir.F32, ir.I32} {
			for _, ax := range axesCases {
				for _, keep := range []bool{false, true} {
					t.Run(fmt.Sprintf("%s/%s/%v/%v", tfOp, elem, ax.tf, keep), func(t *testing.T) {
						tg := tfgen.New()
						tg.Placeholder("x", elem, 2, 3, 4)
						if ax.tf == nil {
							tg.Int32s("axes", []int64{1}, []int64{}...)
						} else {
							tg.Int32s("axes", ax.tf)
						}
						tg.Node(tfOp, "y", []string{"x", "axes"}, tfgen.Bool("keep_dims", keep))
						m := onnxgen.New("m", 18)
						m.Input("x", elem, 2, 3, 4)
						if ax.onnx == nil {
							m.Node("Identity", "y", []string{"x"}, []string{"y"})
						} else {
							m.Init("axes", i64(ax.onnx...))
							m.Node(onnxOp, "y", []string{"x", "axes"}, []string{"y"}, onnxgen.IntAttr("keepdims", b2i(keep)))
						}
						onnxOut(m, "y")
						checkSame(t, sameCase{tf: tg, onnx: m})
					})
				}
			}
		}
	}
}

// TestMeanSymbolic divides by an element count that depends on a symbolic dim.
func TestMeanSymbolic(t *testing.T) {
	tg := tfgen.New()
	tg.Placeholder("x", ir.F32, -1, 4)
	tg.Int32s("axes", []int64{0})
	tg.Node("Mean", "y", []string{"x", "axes"})
	m := onnxgen.New("m", 18)
	m.Input("x", ir.F32, "x_d0", 4)
	m.Init("axes", i64(0))
	m.Node("ReduceMean", "y", []string{"x", "axes"}, []string{"y"}, onnxgen.IntAttr("keepdims", 0))
	onnxOut(m, "y")
	for _, n := range []int64{1, 3, 7} {
		checkSame(t, sameCase{tf: tg, onnx: m, params: map[string]int64{"x_d0": n}})
	}
}

// TestAllAnySameAsONNX: All and Any are the minimum and maximum of booleans (as 0/1 integers
// on the ONNX side).
func TestAllAnySameAsONNX(t *testing.T) {
	for tfOp, onnxOp := range map[string]string{"All": "ReduceMin", "Any": "ReduceMax"} {
		tg := tfgen.New()
		tg.Placeholder("x", ir.Bool, 3, 2)
		tg.Int32s("axes", []int64{1})
		tg.Node(tfOp, "y", []string{"x", "axes"})
		m := onnxgen.New("m", 18)
		m.Input("x", ir.Bool, 3, 2)
		m.Init("axes", i64(1))
		m.Node("Cast", "c", []string{"x"}, []string{"c"}, onnxgen.IntAttr("to", 6))
		m.Node(onnxOp, "r", []string{"c", "axes"}, []string{"r"}, onnxgen.IntAttr("keepdims", 0))
		m.Node("Cast", "y", []string{"r"}, []string{"y"}, onnxgen.IntAttr("to", 9))
		onnxOut(m, "y")
		checkSame(t, sameCase{tf: tg, onnx: m})
	}
}

func TestArgMaxSameAsONNX(t *testing.T) {
	for _, op := range []string{"ArgMax", "ArgMin"} {
		for _, out := range []ir.DType{ir.I64, ir.I32} {
			tg := tfgen.New()
			// integers in [-5, 5] make ties: both sides return the first extremum
			tg.Placeholder("x", ir.I32, 3, 6)
			tg.Int32s("axis", []int64{-1}, []int64{}...)
			tg.Node(op, "y", []string{"x", "axis"}, tfgen.Type("output_type", out))
			m := onnxgen.New("m", 18)
			m.Input("x", ir.I32, 3, 6)
			y := "y"
			if out != ir.I64 {
				y = "a"
			}
			m.Node(op, "a", []string{"x"}, []string{y}, onnxgen.IntAttr("axis", -1), onnxgen.IntAttr("keepdims", 0))
			if out != ir.I64 {
				m.Node("Cast", "y", []string{"a"}, []string{"y"}, onnxgen.IntAttr("to", 6))
			}
			onnxOut(m, "y")
			checkSame(t, sameCase{tf: tg, onnx: m})
		}
	}
}
