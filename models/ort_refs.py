"""Replaces the PyTorch outputs of a model's test data sets by onnxruntime's (one thread), so
that the committed references are what graphc must match: the detectors' boxes, scores and
labels as onnxruntime computes them from the exported graph.

    /usr/bin/python3 models/ort_refs.py testdata/detect/tiny_ssd

Needs node and onnxruntime-node (graphc-bench installs it into ~/.cache/graphc-bench/ort).
"""

import glob
import json
import os
import subprocess
import sys
import tempfile

import numpy as np
import onnx
from onnx import numpy_helper

ORT = os.path.expanduser("~/.cache/graphc-bench/ort/node_modules")
HERE = os.path.dirname(os.path.abspath(__file__))


def main(d):
    model = os.path.join(d, "model.onnx")
    names = [o.name for o in onnx.load(model).graph.output]
    for sd in sorted(glob.glob(os.path.join(d, "test_data_set_*"))):
        with tempfile.TemporaryDirectory() as tmp:
            spec = []
            for k, path in enumerate(sorted(glob.glob(os.path.join(sd, "input_*.pb")))):
                t = onnx.TensorProto()
                with open(path, "rb") as f:
                    t.ParseFromString(f.read())
                a = numpy_helper.to_array(t)
                raw = os.path.join(tmp, "in_%d.bin" % k)
                a.tofile(raw)
                spec.append({"name": t.name, "type": str(a.dtype), "shape": list(a.shape), "file": raw})
            with open(os.path.join(tmp, "spec.json"), "w") as f:
                json.dump(spec, f)
            env = dict(os.environ, NODE_PATH=ORT)
            subprocess.run(["node", os.path.join(HERE, "ort_reference.js"), model, os.path.join(tmp, "spec.json"), tmp],
                           check=True, env=env)
            for k, name in enumerate(names):
                with open(os.path.join(tmp, "out_%d.json" % k)) as f:
                    meta = json.load(f)
                a = np.fromfile(os.path.join(tmp, "out_%d.bin" % k), dtype=meta["type"]).reshape(meta["shape"])
                with open(os.path.join(sd, "output_%d.pb" % k), "wb") as f:
                    f.write(numpy_helper.from_array(a, name).SerializeToString())
                print(sd, name, a.shape)
    meta_path = os.path.join(d, "meta.json")
    meta = json.load(open(meta_path)) if os.path.exists(meta_path) else {}
    meta["reference"] = "onnxruntime-node"
    with open(meta_path, "w") as f:
        json.dump(meta, f, indent=1, sort_keys=True)


if __name__ == "__main__":
    for d in sys.argv[1:]:
        main(d)
