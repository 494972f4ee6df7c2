package ir_test

import (
	"github.com/graphc/graphc/ir"
)

// Element-map cases of the layout, padding, convolution, pooling, resize and index ops. The
// shapes are small enough to enumerate and chosen so that every piece of a piecewise access
// is hit (borders, clamps, strides that skip elements, empty operands).
func init() {
	f32 := func(shape ...int64) ir.TensorType { return ir.StaticType(ir.F32, shape...) }
	s := ir.StringAttr
	ints := ir.IntsAttr
	i := ir.IntAttr
	elementMapCases = append(elementMapCases,
		elementMapCase{name: "transpose", kind: "transpose", operands: []ir.TensorType{f32(2, 3, 4)}, attrs: ir.Attrs{"perm": ints(2, 0, 1)}},
		elementMapCase{name: "transpose_default", kind: "transpose", operands: []ir.TensorType{f32(2, 3)}},
		elementMapCase{name: "reshape_merge", kind: "reshape", operands: []ir.TensorType{f32(2, 3, 4)}, attrs: ir.Attrs{"shape": s("[6, 4]")}},
		elementMapCase{name: "reshape_split", kind: "reshape", operands: []ir.TensorType{f32(12)}, attrs: ir.Attrs{"shape": s("[2, 3, 2]")}},
		elementMapCase{name: "reshape_cross", kind: "reshape", operands: []ir.TensorType{f32(4, 6)}, attrs: ir.Attrs{"shape": s("[3, 8]")}},
		elementMapCase{name: "reshape_units", kind: "reshape", operands: []ir.TensorType{f32(1, 3, 1, 4)}, attrs: ir.Attrs{"shape": s("[3, 4, 1]")}},
		elementMapCase{name: "reshape_empty", kind: "reshape", operands: []ir.TensorType{f32(0, 3)}, attrs: ir.Attrs{"shape": s("[3, 0]")}},
		elementMapCase{name: "slice_steps", kind: "slice", operands: []ir.TensorType{f32(5, 7)}, attrs: ir.Attrs{"starts": ints(1, -1), "ends": ints(100, -8), "steps": ints(2, -3)}},
		elementMapCase{name: "slice_axes", kind: "slice", operands: []ir.TensorType{f32(3, 6)}, attrs: ir.Attrs{"starts": ints(-4), "ends": ints(5), "axes": ints(-1)}},
		elementMapCase{name: "concat", kind: "concat", operands: []ir.TensorType{f32(2, 3), f32(2, 1), f32(2, 0), f32(2, 2)}, attrs: ir.Attrs{"axis": i(-1)}},
		elementMapCase{name: "expand", kind: "expand", operands: []ir.TensorType{f32(3, 1)}, attrs: ir.Attrs{"shape": s("[2, 1, 4]")}},
		elementMapCase{name: "tile", kind: "tile", operands: []ir.TensorType{f32(2, 3)}, attrs: ir.Attrs{"repeats": ints(2, 3)}},
		elementMapCase{name: "depth_to_space_dcr", kind: "depth_to_space", operands: []ir.TensorType{f32(1, 8, 2, 3)}, attrs: ir.Attrs{"blocksize": i(2)}},
		elementMapCase{name: "depth_to_space_crd", kind: "depth_to_space", operands: []ir.TensorType{f32(1, 8, 2, 2)}, attrs: ir.Attrs{"blocksize": i(2), "mode": s("CRD")}},
		elementMapCase{name: "space_to_depth", kind: "space_to_depth", operands: []ir.TensorType{f32(1, 2, 4, 6)}, attrs: ir.Attrs{"blocksize": i(2)}},
		elementMapCase{name: "pad_constant", kind: "pad", operands: []ir.TensorType{f32(3, 4)}, attrs: ir.Attrs{"pads": ints(1, -1, 2, 2), "value": ir.FloatAttr(1.5)}},
		elementMapCase{name: "pad_edge", kind: "pad", operands: []ir.TensorType{f32(3, 2)}, attrs: ir.Attrs{"pads": ints(2, 1, 1, 3), "mode": s("edge")}},
		elementMapCase{name: "pad_reflect", kind: "pad", operands: []ir.TensorType{f32(3, 4)}, attrs: ir.Attrs{"pads": ints(2, 3, 1, 0), "mode": s("reflect")}},
		elementMapCase{name: "pad_wrap", kind: "pad", operands: []ir.TensorType{f32(3, 2)}, attrs: ir.Attrs{"pads": ints(4, 1, 1, 0), "mode": s("wrap")}},
		elementMapCase{name: "pad_empty", kind: "pad", operands: []ir.TensorType{f32(0, 2)}, attrs: ir.Attrs{"pads": ints(1, 0, 1, 0)}},
		elementMapCase{name: "conv2d_pads_strides", kind: "conv", operands: []ir.TensorType{f32(1, 2, 5, 4), f32(3, 2, 3, 2), f32(3)},
			attrs: ir.Attrs{"pads": ints(1, 0, 2, 1), "strides": ints(2, 1), "dilations": ints(1, 2)}},
		elementMapCase{name: "conv1d_groups", kind: "conv", operands: []ir.TensorType{f32(2, 4, 5), f32(6, 2, 2)}, attrs: ir.Attrs{"group": i(2), "pads": ints(1, 1)}},
		elementMapCase{name: "conv3d", kind: "conv", operands: []ir.TensorType{f32(1, 1, 3, 3, 3), f32(1, 1, 2, 2, 2)}},
		elementMapCase{name: "conv_transpose", kind: "conv_transpose", operands: []ir.TensorType{f32(1, 2, 3, 2), f32(2, 2, 3, 2), f32(4)},
			attrs: ir.Attrs{"strides": ints(2, 3), "pads": ints(1, 0, 0, 1), "group": i(2), "output_padding": ints(1, 0)}},
		elementMapCase{name: "max_pool_ceil", kind: "max_pool", operands: []ir.TensorType{f32(1, 1, 5, 5)}, attrs: ir.Attrs{"kernel": ints(2, 3), "strides": ints(2, 2), "ceil_mode": i(1)}},
		elementMapCase{name: "avg_pool_pads", kind: "avg_pool", operands: []ir.TensorType{f32(1, 2, 4)}, attrs: ir.Attrs{"kernel": ints(3), "pads": ints(1, 2), "dilations": ints(2)}},
		elementMapCase{name: "max_pool_index", kind: "max_pool_index", operands: []ir.TensorType{f32(2, 2, 4, 5)},
			attrs: ir.Attrs{"kernel": ints(2, 2), "strides": ints(1, 2), "pads": ints(1, 0, 0, 1), "dilations": ints(2, 1), "storage_order": i(1)}},
		elementMapCase{name: "lp_pool", kind: "lp_pool", operands: []ir.TensorType{f32(1, 2, 5)}, attrs: ir.Attrs{"kernel": ints(2), "pads": ints(1, 1), "p": i(3)}},
		elementMapCase{name: "eye", kind: "eye", attrs: ir.Attrs{"type": s("f32[3, 4]"), "k": i(-1)}},
		elementMapCase{name: "global_avg_pool", kind: "global_avg_pool", operands: []ir.TensorType{f32(2, 3, 2, 2)}},
		elementMapCase{name: "global_max_pool", kind: "global_max_pool", operands: []ir.TensorType{f32(1, 2, 3)}},
		elementMapCase{name: "resize_nearest", kind: "resize", operands: []ir.TensorType{f32(1, 1, 3, 4)},
			attrs: ir.Attrs{"shape": s("[1, 1, 7, 2]"), "scales": ir.FloatsAttr(1, 1, 7.0/3, 0.5), "nearest_mode": s("round_prefer_ceil")}},
		elementMapCase{name: "resize_linear", kind: "resize", operands: []ir.TensorType{f32(1, 1, 3, 5)},
			attrs: ir.Attrs{"shape": s("[1, 1, 8, 3]"), "scales": ir.FloatsAttr(1, 1, 8.0/3, 0.6), "mode": s("linear")}},
		elementMapCase{name: "resize_cubic_align", kind: "resize", operands: []ir.TensorType{f32(4, 4)},
			attrs: ir.Attrs{"shape": s("[4, 7]"), "scales": ir.FloatsAttr(1, 1.75), "mode": s("cubic"), "coordinate_transformation_mode": s("align_corners")}},
		elementMapCase{name: "resize_tf_crop", kind: "resize", operands: []ir.TensorType{f32(1, 4, 4)},
			attrs: ir.Attrs{"shape": s("[1, 3, 3]"), "scales": ir.FloatsAttr(1, 0.75, 0.75), "mode": s("linear"), "coordinate_transformation_mode": s("tf_crop_and_resize"),
				"roi": ir.FloatsAttr(0, -0.2, 0.4, 1, 0.6, 1.3)}},
		elementMapCase{name: "gather_indices_exact", kind: "gather", operands: []ir.TensorType{f32(4, 3), ir.StaticType(ir.I64, 2, 2)}, attrs: ir.Attrs{"axis": i(1)}},
		elementMapCase{name: "values", kind: "values", attrs: ir.Attrs{"type": s("i64[3]"), "values": ir.StringsAttr("2", "3", "4")}},
		elementMapCase{name: "range", kind: "range", attrs: ir.Attrs{"start": s("7"), "limit": s("-2"), "delta": s("-3")}},
		elementMapCase{name: "slice_symbolic", kind: "slice", operands: []ir.TensorType{f32(6, 5)},
			attrs: ir.Attrs{"starts": ints(1, 0), "ends": ints(4, 0), "sym_starts": ir.StringsAttr("1", "2"), "sym_ends": ir.StringsAttr("4", "5")}},
		elementMapCase{name: "trilu_dynamic_k", kind: "trilu", operands: []ir.TensorType{f32(3, 4), ir.StaticType(ir.I64)}},
	)
}

// Element-map cases of the scatters, sort_rank, grid_sample and gather_nd: the scatters' reads are all affine (guarded
// by the data/update phase and, for scatter_elements, by the updates' box), gather_nd's index
// operands too (its data read is over-approximated, checked by TestApproxAccessesOverApproximate).
func init() {
	f32 := func(shape ...int64) ir.TensorType { return ir.StaticType(ir.F32, shape...) }
	i64 := func(shape ...int64) ir.TensorType { return ir.StaticType(ir.I64, shape...) }
	s := ir.StringAttr
	elementMapCases = append(elementMapCases,
		elementMapCase{name: "scatter_elements_small_updates", kind: "scatter_elements", operands: []ir.TensorType{f32(3, 4), i64(2, 3), f32(2, 3)},
			attrs: ir.Attrs{"axis": ir.IntAttr(1), "reduction": s("max")}},
		elementMapCase{name: "scatter_elements_rt_last_axis", kind: "scatter_elements_rt", operands: []ir.TensorType{f32(3, 4), i64(3, 6), f32(3, 6)},
			attrs: ir.Attrs{"axis": ir.IntAttr(-1), "reduction": s("add")}},
		elementMapCase{name: "scatter_nd_rt", kind: "scatter_nd_rt", operands: []ir.TensorType{f32(4, 3), f32(2, 2, 3), i64(2, 2)},
			attrs: ir.Attrs{"reduction": s("max")}},
		elementMapCase{name: "scatter_nd", kind: "scatter_nd", operands: []ir.TensorType{f32(4, 3, 2), f32(2, 2, 2), i64(2, 2), i64(2, 2)},
			attrs: ir.Attrs{"reduction": s("mul")}},
		elementMapCase{name: "sort_rank", kind: "sort_rank", operands: []ir.TensorType{f32(2, 4, 3), f32(2, 4, 3)},
			attrs: ir.Attrs{"axis": ir.IntAttr(1), "descending": ir.IntAttr(0)}},
		elementMapCase{name: "resize_sized_linear", kind: "resize_sized", operands: []ir.TensorType{f32(1, 1, 3, 4)},
			attrs: ir.Attrs{"shape": s("[1, 1, 5, 3]"), "mode": s("linear")}},
		elementMapCase{name: "resize_sized_nearest", kind: "resize_sized", operands: []ir.TensorType{f32(2, 3, 4)},
			attrs: ir.Attrs{"shape": s("[2, 7, 4]"), "mode": s("nearest"), "coordinate_transformation_mode": s("align_corners")}},
		elementMapCase{name: "grid_sample_cubic", kind: "grid_sample", operands: []ir.TensorType{f32(1, 2, 3, 4), f32(1, 2, 3), f32(1, 2, 3)},
			attrs: ir.Attrs{"mode": s("cubic"), "padding_mode": s("reflection")}},
		elementMapCase{name: "tensor_scatter_circular", kind: "tensor_scatter", operands: []ir.TensorType{f32(2, 4, 3), f32(2, 2, 3), i64(2)},
			attrs: ir.Attrs{"axis": ir.IntAttr(1), "mode": s("circular")}},
		elementMapCase{name: "reverse_sequence", kind: "reverse_sequence", operands: []ir.TensorType{f32(3, 4, 2), i64(4)},
			attrs: ir.Attrs{"batch_axis": ir.IntAttr(1), "time_axis": ir.IntAttr(0)}},
		elementMapCase{name: "roi_align_max", kind: "roi_align", operands: []ir.TensorType{f32(2, 2, 4, 5), f32(3, 4), i64(3)},
			attrs: ir.Attrs{"mode": s("max"), "output_height": ir.IntAttr(2), "output_width": ir.IntAttr(2), "sampling_ratio": ir.IntAttr(2)}},
		elementMapCase{name: "roi_align_adaptive", kind: "roi_align", operands: []ir.TensorType{f32(2, 3, 4, 5), f32(3, 4), i64(3)},
			attrs: ir.Attrs{"output_height": ir.IntAttr(2), "output_width": ir.IntAttr(3)}},
		elementMapCase{name: "deform_conv_groups", kind: "deform_conv", operands: []ir.TensorType{f32(1, 4, 3, 3), f32(2, 2, 2, 2), f32(1, 16, 2, 2), f32(1, 16, 2, 2), f32(1, 8, 2, 2)},
			attrs: ir.Attrs{"group": ir.IntAttr(2), "offset_group": ir.IntAttr(2)}},
		elementMapCase{name: "gather_nd_batch", kind: "gather_nd", operands: []ir.TensorType{f32(2, 3, 4, 2), i64(2, 5), i64(2, 5)},
			attrs: ir.Attrs{"batch_dims": ir.IntAttr(1)}},
	)
}
