"""Writes a YOLO-style detection head with NonMaxSuppression, built with onnx.helper.

    /usr/bin/python3 testdata/bounded/yolo_head.py OUT.onnx [CENTER_POINT_BOX [SCORE_THRESHOLD]]
    /usr/bin/python3 testdata/bounded/yolo_head.py --sets DIR   # DIR/model.onnx (centre boxes,
        # threshold 0.3) and the inputs of three data sets; then models/ort_refs.py DIR

Input: a feature map F[1, 16, 6, 8]. A 1x1 convolution gives 4 + 3 channels per cell; the first
four are decoded into boxes (centre and size, in pixels; or corners with CENTER_POINT_BOX=0),
the others are class scores (sigmoid). NonMaxSuppression (at most 5 boxes per class, IoU 0.45,
score 0.3 unless SCORE_THRESHOLD) selects (batch, class, box) triples; the selected boxes and scores are gathered.
Outputs: the selected indices, their boxes and their scores. Random weights, seeded; the score
bias is scaled so that some boxes pass the threshold and some do not.
"""
import sys

import numpy as np
import onnx
from onnx import TensorProto as T
from onnx import helper as h
from onnx import numpy_helper as nh

import os

sets_dir = None
if sys.argv[1] == "--sets":
    sets_dir = sys.argv[2]
    os.makedirs(sets_dir, exist_ok=True)
    out, center, score_thr = os.path.join(sets_dir, "model.onnx"), 1, 0.3
else:
    out = sys.argv[1]
    center = int(sys.argv[2]) if len(sys.argv) > 2 else 1
    score_thr = float(sys.argv[3]) if len(sys.argv) > 3 else 0.3
rng = np.random.default_rng(35)
cin, hh, ww, ncls = 16, 6, 8, 3
n = hh * ww
w = (rng.standard_normal((4 + ncls, cin, 1, 1)) * 0.3).astype(np.float32)
b = np.concatenate([np.zeros(4), np.full(ncls, -0.5)]).astype(np.float32)
# the cell centres in pixels (stride 8), [2, N]
gy, gx = np.meshgrid(np.arange(hh), np.arange(ww), indexing="ij")
grid = np.stack([gx.reshape(-1), gy.reshape(-1)]).astype(np.float32) * 8 + 4
def const(name, v, dt=np.int64):
    return nh.from_array(np.array(v, dt), name)


inits = [
    nh.from_array(w, "W"), nh.from_array(b, "B"), nh.from_array(grid, "grid"),
    const("shape", [1, 4 + ncls, n]), const("c0", [0]), const("c1", [1]), const("c2", [2]), const("c3", [3]),
    const("c4", [4]), const("cend", [4 + ncls]),
    const("scale", [16.0], np.float32), const("half", [0.5], np.float32),
    const("max_out", [5]), const("iou", [0.45], np.float32), const("score_thr", [score_thr], np.float32),
]


def chan(name, lo, hi):
    return h.make_node("Slice", ["raw", lo, hi, "c1"], [name])  # channels [lo, hi) of raw


nodes = [
    h.make_node("Conv", ["F", "W", "B"], ["conv"]),
    h.make_node("Reshape", ["conv", "shape"], ["raw"]),  # [1, 4 + ncls, N]
    chan("xy_raw", "c0", "c2"), chan("wh_raw", "c2", "c4"), chan("cls_raw", "c4", "cend"),
    h.make_node("Tanh", ["xy_raw"], ["xy_t"]),
    h.make_node("Mul", ["xy_t", "scale"], ["xy_off"]),
    h.make_node("Add", ["xy_off", "grid"], ["xy"]),  # centres, [1, 2, N]
    h.make_node("Exp", ["wh_raw"], ["wh_e"]),
    h.make_node("Mul", ["wh_e", "scale"], ["wh"]),  # sizes
]
if center:
    nodes.append(h.make_node("Concat", ["xy", "wh"], ["box_t"], axis=1))  # x, y, w, h
else:
    def part(name, src, lo, hi):
        return h.make_node("Slice", [src, lo, hi, "c1"], [name])
    nodes += [
        h.make_node("Mul", ["wh", "half"], ["hwh"]),
        h.make_node("Sub", ["xy", "hwh"], ["lo"]),
        h.make_node("Add", ["xy", "hwh"], ["hi"]),
        part("lox", "lo", "c0", "c1"), part("loy", "lo", "c1", "c2"),
        part("hix", "hi", "c0", "c1"), part("hiy", "hi", "c1", "c2"),
        h.make_node("Concat", ["loy", "lox", "hiy", "hix"], ["box_t"], axis=1),  # y1, x1, y2, x2
    ]
nodes += [
    h.make_node("Transpose", ["box_t"], ["boxes"], perm=[0, 2, 1]),  # [1, N, 4]
    h.make_node("Sigmoid", ["cls_raw"], ["scores"]),  # [1, ncls, N]
    h.make_node("NonMaxSuppression", ["boxes", "scores", "max_out", "iou", "score_thr"], ["selected"],
                center_point_box=center),
    # the selected boxes and scores
    h.make_node("Slice", ["selected", "c2", "c3", "c1"], ["box_col"]),  # [n, 1]
    h.make_node("Squeeze", ["box_col", "c1"], ["box_idx"]),  # [n]
    h.make_node("Squeeze", ["boxes", "c0"], ["boxes0"]),  # [N, 4]
    h.make_node("Gather", ["boxes0", "box_idx"], ["sel_boxes"], axis=0),  # [n, 4]
    h.make_node("Slice", ["selected", "c1", "c3", "c1"], ["cb"]),  # [n, 2]: class, box
    h.make_node("Squeeze", ["scores", "c0"], ["scores0"]),  # [ncls, N]
    h.make_node("GatherND", ["scores0", "cb"], ["sel_scores"]),  # [n]
]
g = h.make_graph(nodes, "yolo_head", [h.make_tensor_value_info("F", T.FLOAT, [1, cin, hh, ww])],
                 [h.make_tensor_value_info("selected", T.INT64, ["n", 3]),
                  h.make_tensor_value_info("sel_boxes", T.FLOAT, ["n", 4]),
                  h.make_tensor_value_info("sel_scores", T.FLOAT, ["n"])], inits)
m = h.make_model(g, opset_imports=[h.make_opsetid("", 13)])
m.ir_version = 8
onnx.checker.check_model(m)
onnx.save(m, out)

if sets_dir:
    # the three regimes, far from every threshold: v solves W v = (0, 0, 0, 0, -10, -10, -10)
    # (a 16 px box on its cell, class logits -10: scores 5e-5, under 0.3), so F = v at every cell
    # keeps no box; F = -v at two far cells (logits 9) keeps both in each class (6 of 15);
    # F = 0 (logits -0.5: 0.38 everywhere; 16 px boxes 8 px apart overlap by IoU 1/3 < 0.45)
    # keeps 5 a class, the bound (15)
    v = np.linalg.lstsq(w[:, :, 0, 0], np.array([0, 0, 0, 0, -10, -10, -10], np.float64) - b, rcond=None)[0]
    none = np.broadcast_to(v[None, :, None, None], (1, cin, hh, ww)).astype(np.float32)
    some = none.copy()
    some[0, :, 0, 0] = some[0, :, hh - 1, ww - 1] = -v  # W(-v) + b: box 0, class logits 10 + 2b = 9
    bound = np.zeros((1, cin, hh, ww), np.float32)
    with open(os.path.join(sets_dir, "meta.json"), "w") as f:
        f.write('{"note": "testdata/bounded/yolo_head.py --sets: centre boxes, threshold 0.3; sets 0, 1, 2 keep 0, 6 and 15 (the bound) boxes"}\n')
    for k, x in enumerate([none, some, bound]):
        sd = os.path.join(sets_dir, "test_data_set_%d" % k)
        os.makedirs(sd, exist_ok=True)
        with open(os.path.join(sd, "input_0.pb"), "wb") as f:
            f.write(nh.from_array(np.ascontiguousarray(x), "F").SerializeToString())
