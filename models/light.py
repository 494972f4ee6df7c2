#!/usr/bin/python3
"""Prepares the ONNX model zoo's "light" CNNs as a graphc model set.

The onnx/onnx repository keeps, in onnx/backend/test/data/light, zoo CNNs (AlexNet, DenseNet-121,
Inception v1/v2, ResNet-50, ShuffleNet, SqueezeNet, VGG-19, ZFNet-512; opset 9) whose float
initializers were replaced by ConstantOfShape nodes: every weight is computed by a constant
subgraph, as converters and exporters that do not fold write them. This script copies each
light_<name>.onnx to OUT/<name>/model.onnx with test_data_set_0 (a random input, seed 4, and
onnxruntime-node's output as the reference; models/ort_reference.js) and meta.json.

    python3 models/light.py SRC --ort ~/.cache/graphc-bench/ort \
        [--out ~/.cache/graphc-models-light]

SRC is a checkout's onnx/backend/test/data/light (or any directory of light_*.onnx). Needs
python3-onnx, python3-numpy and node with onnxruntime-node in ORT/node_modules
(cmd/graphc-bench installs it into its cache).
"""

import argparse
import glob
import json
import os
import shutil
import sys
import tempfile

import numpy as np
import onnx
from onnx import numpy_helper

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from export_quant import ort_outputs  # noqa: E402


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("src", help="directory of light_*.onnx")
    ap.add_argument("--ort", required=True, help="directory whose node_modules holds onnxruntime-node")
    ap.add_argument("--out", default=os.environ.get("GRAPHC_MODELS_LIGHT", os.path.expanduser("~/.cache/graphc-models-light")))
    a = ap.parse_args()
    paths = sorted(glob.glob(os.path.join(a.src, "light_*.onnx")))
    if not paths:
        sys.exit("light.py: no light_*.onnx in %s" % a.src)
    for p in paths:
        name = os.path.basename(p)[len("light_") : -len(".onnx")]
        d = os.path.join(a.out, name)
        os.makedirs(d, exist_ok=True)
        model = os.path.join(d, "model.onnx")
        shutil.copyfile(p, model)
        m = onnx.load(model)
        inits = {t.name for t in m.graph.initializer}
        inputs = []
        for inp in m.graph.input:
            if inp.name in inits:
                continue
            shape = [dim.dim_value for dim in inp.type.tensor_type.shape.dim]
            x = np.random.default_rng(4).standard_normal(shape).astype(np.float32)
            inputs.append((inp.name, x))
        sd = os.path.join(d, "test_data_set_0")
        os.makedirs(sd, exist_ok=True)
        with tempfile.TemporaryDirectory() as work:
            outs = ort_outputs(a.ort, model, inputs, work)
        for k, (n, x) in enumerate(inputs):
            with open(os.path.join(sd, "input_%d.pb" % k), "wb") as f:
                f.write(numpy_helper.from_array(x, n).SerializeToString())
        for k, (n, y) in enumerate(outs):
            with open(os.path.join(sd, "output_%d.pb" % k), "wb") as f:
                f.write(numpy_helper.from_array(y, n).SerializeToString())
        meta = {"note": "ONNX zoo light " + name + " (opset 9, weights from ConstantOfShape)", "opset": 9, "reference": "onnxruntime", "dynamic": False}
        with open(os.path.join(d, "meta.json"), "w") as f:
            json.dump(meta, f, indent=1, sort_keys=True)
        print("%-14s %s" % (name, [o.shape for _, o in outs]), flush=True)


if __name__ == "__main__":
    main()
