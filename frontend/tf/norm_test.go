// This file tests FusedBatchNorm/V2/V3 (inference) against ONNX BatchNormalization.

package tf_test

import (
	"testing"

	"github.com/graphc/graphc/internal/onnxgen"
	"github.com/graphc/graphc/internal/tfgen"
	"github.com/graphc/graphc/ir"
)

func TestFusedBatchNormSameAsONNX(t *testing.T) {
	for _, op := range []string{"FusedBatchNorm", "FusedBatchNormV2", "FusedBatchNormV3"} {
		for _, format := range []string{"NCHW", "NHWC"} {
			t.Run(op+"/"+format, func(t *testing.T) {
				shape := []int64{2, 3, 4, 5}
				if format == "NHWC" {
					shape = []int64{2, 4, 5, 3}
				}
				scale, offset, mean := randConst(1, 3), randConst(2, 3), randConst(3, 3)
				variance := randConst(4, 3)
				for i := range variance.F {
					variance.F[i] = variance.F[i]*variance.F[i] + 0.5
				}
				tg := tfgen.New()
				tg.Placeholder("x", ir.F32, shape...)
				names := []string{"x"}
				for i, p := range []*ir.Tensor{scale, offset, mean, variance} {
					n := []string{"scale", "offset", "mean", "variance"}[i]
					tg.Const(n, p)
					names = append(names, n)
				}
				tg.Node(op, "bn", names, tfgen.Bool("is_training", false), tfgen.Float("epsilon", 0.001), tfgen.String("data_format", format))
				m := onnxgen.New("m", 18)
				m.Input("x", ir.F32, anyDims(shape)...)
				for i, p := range []*ir.Tensor{scale, offset, mean, variance} {
					m.Init(names[i+1], p)
				}
				x := "x"
				if format == "NHWC" {
					m.Node("Transpose", "t", []string{"x"}, []string{"xt"}, onnxgen.IntsAttr("perm", 0, 3, 1, 2))
					x = "xt"
				}
				y := "bn"
				if format == "NHWC" {
					y = "yt"
				}
				m.Node("BatchNormalization", "bn", []string{x, "scale", "offset", "mean", "variance"}, []string{y}, onnxgen.FloatAttr("epsilon", 0.001))
				if format == "NHWC" {
					m.Node("Transpose", "t2", []string{"yt"}, []string{"bn"}, onnxgen.IntsAttr("perm", 0, 2, 3, 1))
				}
				onnxOut(m, "bn")
				checkSame(t, sameCase{tf: tg, onnx: m})
			})
		}
	}
}
