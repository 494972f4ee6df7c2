// This file checks that every rejection of the op importers names the file, the node, the op
// and the reason.

package tf_test

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/graphc/graphc/frontend/tf"
	"github.com/graphc/graphc/internal/tfgen"
	"github.com/graphc/graphc/ir"
)

func TestOpErrors(t *testing.T) {
	// x is f32[2, 3, 4], m f32[3, 3], img f32[1, 5, 5, 2], s f32[x_d0, 4] (symbolic), i an i32[3]
	// placeholder (not a constant)
	type errCase struct {
		op     string
		inputs []string
		consts map[string][]int64 // i32 constants by name (a name ending in "_s" is a scalar)
		attrs  []tfgen.Attr
		want   string
		unsup  bool // ErrUnsupported rather than ErrInvalid
	}
	cases := []errCase{
		// math
		{op: "Add", inputs: []string{"x"}, want: "expected 2 inputs, got 1"},
		{op: "Relu6", inputs: []string{"x", "x"}, want: "expected 1 input, got 2"},
		{op: "Cast", inputs: []string{"x"}, want: "Cast without a DstT attribute"},
		{op: "Cast", inputs: []string{"x"}, attrs: []tfgen.Attr{{Name: "DstT", Value: tfgen.Int("t", 7).Value}}, want: "attribute DstT: unsupported: element type DT_INVALID", unsup: true},
		{op: "Softmax", inputs: []string{"x0"}, want: "logits must have rank >= 1, got f32[]"},
		{op: "AddN", want: "no inputs"},
		{op: "Add", inputs: []string{"x", "m"}, want: "add:"},
		// contraction
		{op: "MatMul", inputs: []string{"x", "m"}, want: "operands must be matrices, got f32[2, 3, 4] and f32[3, 3]"},
		{op: "BatchMatMulV2", inputs: []string{"i", "m"}, want: "operands must have rank >= 2, got i32[3] and f32[3, 3]"},
		{op: "BatchMatMulV2", inputs: []string{"x", "xi"}, want: "operand types differ: f32[2, 3, 4] and i32[2, 3, 4]"},
		{op: "BiasAdd", inputs: []string{"x", "m"}, want: "bias must be 1-D, got f32[3, 3]"},
		{op: "BiasAdd", inputs: []string{"x", "i"}, attrs: []tfgen.Attr{tfgen.String("data_format", "NCWH")}, want: `data_format "NCWH" (want NHWC or NCHW)`},
		{op: "BiasAdd", inputs: []string{"x", "v3"}, want: "bias f32[3] does not match dim 2 of f32[2, 3, 4] (NHWC)"},
		{op: "MatrixBandPart", inputs: []string{"m", "i", "one_s"}, want: "input #1 (num_lower) must be a constant known at import", unsup: true},
		{op: "MatrixBandPart", inputs: []string{"m", "c2", "one_s"}, want: "input #1 (num_lower) must be a scalar, got 2 values"},
		// reductions
		{op: "Sum", inputs: []string{"x", "i"}, want: "input #1 (reduction_indices) must be a constant known at import", unsup: true},
		{op: "Sum", inputs: []string{"x", "c5_s"}, want: "axis 5 out of range for rank 3"},
		{op: "Mean", inputs: []string{"x", "c2"}, want: "axis 1 repeated"},
		{op: "All", inputs: []string{"x", "one_s"}, want: "All of f32[2, 3, 4]"},
		{op: "ArgMax", inputs: []string{"x", "one_s"}, attrs: []tfgen.Attr{tfgen.Type("output_type", ir.F32)}, want: "output_type f32 (want int32 or int64)"},
		{op: "ArgMax", inputs: []string{"x"}, want: "expected 2 inputs (input, dimension), got 1"},
		// batch norm
		{op: "FusedBatchNormV3", inputs: []string{"img", "v2", "v2", "v2", "v2"}, want: "is_training = true (batch statistics)", unsup: true},
		{op: "FusedBatchNorm", inputs: []string{"img", "v2", "v2", "v2"}, want: "expected 5 inputs (x, scale, offset, mean, variance), got 4"},
		{op: "FusedBatchNorm", inputs: []string{"img", "v2", "v2", "v2", "v2"}, attrs: []tfgen.Attr{tfgen.Bool("is_training", false), tfgen.String("data_format", "HWC")}, want: `data_format "HWC"`},
		{op: "FusedBatchNorm", inputs: []string{"img", "m", "v2", "v2", "v2"}, attrs: []tfgen.Attr{tfgen.Bool("is_training", false)}, want: "input #1 must be 1-D, got f32[3, 3]"},
		{op: "FusedBatchNorm", inputs: []string{"xi", "v2", "v2", "v2", "v2"}, attrs: []tfgen.Attr{tfgen.Bool("is_training", false)}, want: "x must be a float tensor, got i32[2, 3, 4]"},
		// layout
		{op: "Reshape", inputs: []string{"x", "i"}, want: "input #1 (shape) must be known at import (a constant, or computed from shapes)", unsup: true},
		{op: "Reshape", inputs: []string{"x", "m1m1"}, want: "shape [-1, -1] has extent -1 (only one -1 may be inferred)"},
		{op: "Reshape", inputs: []string{"x", "c5"}, want: "shape [5] has 5 elements, the input [2, 3, 4] has 24"},
		{op: "Reshape", inputs: []string{"x", "m1five"}, want: "reshape of [2, 3, 4] to [-1, 5]: invalid graph: 24 elements do not reshape into multiples of 5"},
		{op: "Reshape", inputs: []string{"s", "c5"}, want: "shape [5] has 5 elements, the input [s_d0, 4] has 4s_d0"},
		{op: "Reshape", inputs: []string{"ss", "m1"}, want: "reshape of [ss_d0, ss_d1] to [-1]: unsupported: the product of the symbolic extents ss_d0 and ss_d1 is not quasi-affine (bind one of them with --dim NAME=VALUE)", unsup: true},
		{op: "Transpose", inputs: []string{"x", "c2"}, want: "perm [1 1] for an input of rank 3"},
		{op: "Squeeze", inputs: []string{"x"}, attrs: []tfgen.Attr{tfgen.Ints("squeeze_dims", 1)}, want: "dim 1 of f32[2, 3, 4] is not 1"},
		{op: "ExpandDims", inputs: []string{"x", "c5_s"}, want: "axis 5 out of range for inserting into rank 3"},
		{op: "ConcatV2", inputs: []string{"x", "x", "i"}, want: "input #2 (axis) must be a constant known at import", unsup: true},
		{op: "ConcatV2", inputs: []string{"x", "x", "c5_s"}, want: "axis 5 out of range for rank 3"},
		{op: "ConcatV2", inputs: []string{"x"}, want: "expected values and an axis, got 1 inputs"},
		{op: "Reshape", inputs: []string{"s", "sshape"}, want: "shape [u_d0, 4] has 4u_d0 elements, the input [s_d0, 4] has 4s_d0"},
		{op: "Reshape", inputs: []string{"x", "fshape"}, want: "input #1 (shape) must hold integers, got f32"},
		{op: "Shape", inputs: []string{"x"}, attrs: []tfgen.Attr{tfgen.Type("out_type", ir.F32)}, want: "out_type f32 (want int32 or int64)"},
		// slices
		{op: "Slice", inputs: []string{"x", "c2", "c2"}, want: "begin [1 1] and size [1 1] for an input of rank 3"},
		{op: "Slice", inputs: []string{"m", "c2", "c5c5"}, want: "begin 1 and size 5 out of range for dim 0 of f32[3, 3]"},
		{op: "StridedSlice", inputs: []string{"m", "zero", "one", "zero"}, want: "strides[0] is 0"},
		{op: "StridedSlice", inputs: []string{"m", "zero", "one", "one"}, attrs: []tfgen.Attr{tfgen.Int("ellipsis_mask", 3)}, want: "ellipsis_mask 0b11 has more than one bit set"},
		{op: "StridedSlice", inputs: []string{"m", "c5", "c5", "one"}, attrs: []tfgen.Attr{tfgen.Int("shrink_axis_mask", 1)}, want: "axis 0 of f32[3, 3]: invalid graph: index 5 out of range for extent 3"},
		{op: "StridedSlice", inputs: []string{"m", "zero3", "zero3", "one3"}, want: "3 sliced axes for an input of rank 2"},
		{op: "StridedSlice", inputs: []string{"m", "zero", "one3", "one"}, want: "begin [0], end [1 1 1] and strides [1] differ in length"},
		// padding
		{op: "Pad", inputs: []string{"m", "c2"}, want: "paddings has 2 values for an input of rank 2 (want [2, 2])"},
		{op: "Pad", inputs: []string{"m", "neg4"}, want: "negative paddings -1 and 1 of dim 0"},
		{op: "MirrorPad", inputs: []string{"m", "pad3"}, attrs: []tfgen.Attr{tfgen.String("mode", "REFLECT")}, want: "REFLECT paddings 3 and 0 of dim 0 must be below its extent 3"},
		{op: "MirrorPad", inputs: []string{"m", "pad4"}, attrs: []tfgen.Attr{tfgen.String("mode", "SYMMETRIC")}, want: "SYMMETRIC paddings 4 and 0 of dim 0 exceed its extent 3"},
		{op: "MirrorPad", inputs: []string{"m", "pad3"}, attrs: []tfgen.Attr{tfgen.String("mode", "WRAP")}, want: `mode "WRAP" (want REFLECT or SYMMETRIC)`},
		{op: "PadV2", inputs: []string{"m", "pad3", "f2"}, want: "input #2 (constant_values) must be a scalar, got 2 values"},
		{op: "PadV2", inputs: []string{"m", "pad3", "m"}, want: "input #2 (constant_values) must be a constant known at import", unsup: true},
		// convolutions and pools
		{op: "Conv2D", inputs: []string{"x", "filt"}, attrs: []tfgen.Attr{tfgen.String("padding", "VALID")}, want: "input and filter must be 4-D, got f32[2, 3, 4] and f32[3, 3, 2, 4]"},
		{op: "Conv2D", inputs: []string{"img", "img"}, attrs: []tfgen.Attr{tfgen.String("padding", "SAME")}, want: "the filter f32[1, 5, 5, 2] does not divide the 2 input channels into groups"},
		{op: "Conv2D", inputs: []string{"img", "filt"}, attrs: []tfgen.Attr{tfgen.String("padding", "FULL")}, want: `padding "FULL" (want SAME, VALID or EXPLICIT)`},
		{op: "Conv2D", inputs: []string{"img", "filt"}, attrs: []tfgen.Attr{tfgen.String("padding", "VALID"), tfgen.Ints("strides", 2, 1, 1, 1)}, want: "strides [2 1 1 1] must be 1 in the batch and channel dims", unsup: true},
		{op: "Conv2D", inputs: []string{"img", "filt"}, attrs: []tfgen.Attr{tfgen.String("padding", "VALID"), tfgen.Ints("strides", 1, 1)}, want: "strides [1 1] must have 4 values"},
		{op: "Conv2D", inputs: []string{"img", "filt"}, attrs: []tfgen.Attr{tfgen.String("padding", "EXPLICIT"), tfgen.Ints("explicit_paddings", 0, 0, 1, 1)}, want: "explicit_paddings [0 0 1 1] must have 8 values"},
		{op: "Conv2D", inputs: []string{"img", "filt"}, attrs: []tfgen.Attr{tfgen.String("padding", "EXPLICIT"), tfgen.Ints("explicit_paddings", 0, 0, 1, 1, 1, 1, 1, 0)}, want: "pad the batch or channel dim", unsup: true},
		{op: "Conv2D", inputs: []string{"simg", "filt"}, attrs: []tfgen.Attr{tfgen.String("padding", "SAME"), tfgen.Ints("strides", 1, 2, 2, 1)}, want: "SAME padding with stride 2 needs a static extent, got simg_d1 (bind it with --dim)", unsup: true},
		{op: "Conv2D", inputs: []string{"img", "sfilt"}, attrs: []tfgen.Attr{tfgen.String("padding", "VALID")}, want: "the filter f32[sfilt_d0, 3, 2, 4] must have a static shape", unsup: true},
		{op: "DepthwiseConv2dNative", inputs: []string{"img", "m"}, attrs: []tfgen.Attr{tfgen.String("padding", "VALID")}, want: "input and filter must be 4-D, got f32[1, 5, 5, 2] and f32[3, 3]"},
		{op: "DepthwiseConv2dNative", inputs: []string{"img", "dfilt"}, attrs: []tfgen.Attr{tfgen.String("padding", "VALID"), tfgen.String("data_format", "NCHW")}, want: "the filter f32[3, 3, 2, 1] does not match the 5 input channels"},
		{op: "MaxPool", inputs: []string{"img"}, attrs: []tfgen.Attr{tfgen.String("padding", "VALID"), tfgen.Ints("ksize", 1, 2, 2), tfgen.Ints("strides", 1, 1, 1, 1)}, want: "ksize [1 2 2] must have 4 values"},
		{op: "AvgPool", inputs: []string{"x"}, attrs: []tfgen.Attr{tfgen.String("padding", "VALID"), tfgen.Ints("ksize", 1, 2, 2, 1), tfgen.Ints("strides", 1, 1, 1, 1)}, want: "input must be 4-D, got f32[2, 3, 4]"},
		{op: "MaxPoolV2", inputs: []string{"img", "i", "i"}, attrs: []tfgen.Attr{tfgen.String("padding", "VALID")}, want: "input #1 (ksize) must be a constant known at import", unsup: true},
		{op: "MaxPool", inputs: []string{"img"}, attrs: []tfgen.Attr{tfgen.String("padding", "VALID"), tfgen.Ints("ksize", 1, 0, 2, 1), tfgen.Ints("strides", 1, 1, 1, 1)}, want: "ksize [1 0 2 1] must be positive"},
	}
	consts := map[string][]int64{"one_s": {1}, "c5_s": {5}, "c2": {1, 1}, "c5": {5}, "c5c5": {5, 5}, "m1m1": {-1, -1}, "m1five": {-1, 5},
		"m1": {-1}, "zero": {0}, "one": {1}, "zero3": {0, 0, 0}, "one3": {1, 1, 1}, "neg4": {-1, 1, 0, 0}, "pad3": {3, 0, 0, 0}, "pad4": {4, 0, 0, 0}}
	for _, tc := range cases {
		t.Run(tc.op, func(t *testing.T) {
			tg := tfgen.New()
			tg.Placeholder("x", ir.F32, 2, 3, 4)
			tg.Placeholder("x0", ir.F32)
			tg.Placeholder("xi", ir.I32, 2, 3, 4)
			tg.Placeholder("m", ir.F32, 3, 3)
			tg.Placeholder("img", ir.F32, 1, 5, 5, 2)
			tg.Placeholder("simg", ir.F32, 1, -1, 5, 2)
			tg.Placeholder("s", ir.F32, -1, 4)
			tg.Placeholder("ss", ir.F32, -1, -1)
			tg.Placeholder("i", ir.I32, 3)
			tg.Placeholder("v2", ir.F32, 2)
			tg.Placeholder("v3", ir.F32, 3)
			tg.Placeholder("sfilt", ir.F32, -1, 3, 2, 4)
			tg.Const("filt", randConst(1, 3, 3, 2, 4))
			tg.Const("dfilt", randConst(1, 3, 3, 2, 1))
			tg.Const("f2", randConst(1, 2))
			tg.Const("fshape", randConst(1, 2))
			tg.Placeholder("u", ir.F32, -1, 4)
			tg.Node("Shape", "sshape", []string{"u"})
			for name, v := range consts {
				if name[len(name)-1] == 's' && name[len(name)-2] == '_' {
					tg.Int32s(name, v, []int64{}...)
				} else {
					tg.Int32s(name, v)
				}
			}
			tg.Node(tc.op, "y", tc.inputs, tc.attrs...)
			_, err := tf.Import(tg.G, "t.pbtxt", tf.WithOutputs("y"))
			require.Error(t, err)
			require.ErrorContains(t, err, `t.pbtxt: node "y" (`+tc.op+`): `)
			require.ErrorContains(t, err, tc.want)
			if tc.unsup {
				require.True(t, errors.Is(err, tf.ErrUnsupported), "%v", err)
			}
		})
	}
}
