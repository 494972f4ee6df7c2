#!/usr/bin/python3
"""Exports graphc's quantized model set, written the way quantization tools write it.

- qcnn*: a CNN quantized with torch.ao.quantization (eager mode, fbgemm: u8 activations,
  per-channel int8 weights, conv+bn+relu fused, residual adds), exported by torch.onnx.export in
  QDQ form (DequantizeLinear → Conv/Gemm → [Relu →] QuantizeLinear, int32 biases).
- qxf*: a transformer block whose Linear layers are quantized the same way (QDQ around
  MatMul + Add), with LayerNorm, attention, softmax and GELU left in float.
- qlinear_dyn*: a dynamically quantized linear layer in onnxruntime's quantize_dynamic form
  (DynamicQuantizeLinear → MatMulInteger → Cast → Mul by x_scale·w_scale → Add bias), written
  with the onnx library since onnxruntime's Python quantizer is not installed.

Reference outputs come from onnxruntime-node (models/ort_reference.js), not PyTorch: quantized
arithmetic is defined by the runtime, and graphc is compared with onnxruntime to one
quantization step. Every model goes to OUT/<name>/model.onnx with test_data_set_0 in the ONNX
backend-test layout and meta.json (note, reference, quant_step: the scale of the output's last
quantization, the step the comparison allows).

    python3 models/export_quant.py --ort ~/.cache/graphc-bench-quant/ort            # bench set
    python3 models/export_quant.py --set tiny --out testdata/realmodels --ort DIR    # committed

Needs python3-torch, python3-torchvision, python3-onnx and node with onnxruntime-node in
ORT/node_modules (cmd/graphc-bench installs it into its cache).
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile

import numpy as np
import onnx
import torch
import torch.ao.quantization as tq
import torch.nn as nn
from onnx import TensorProto, helper, numpy_helper

OPSET = 13
HERE = os.path.dirname(os.path.abspath(__file__))


def calibrate_convert(m, make_input, n=8):
    """Eager-mode static quantization with fbgemm's per-channel qconfig."""
    m.eval()
    m.qconfig = tq.get_default_qconfig("fbgemm")
    tq.prepare(m, inplace=True)
    with torch.no_grad():
        for i in range(n):
            m(make_input(100 + i))
    tq.convert(m, inplace=True)
    return m


class QCNN(nn.Module):
    """Stem conv+bn+relu, max pool, two residual blocks (the second strided with a 1×1
    projection), global average pool, linear."""

    def __init__(self, w=16, classes=10):
        super().__init__()
        self.quant, self.dequant = tq.QuantStub(), tq.DeQuantStub()
        self.stem = nn.Sequential(nn.Conv2d(3, w, 3, padding=1, bias=False), nn.BatchNorm2d(w), nn.ReLU())
        self.pool = nn.MaxPool2d(2)
        self.b1 = nn.Sequential(nn.Conv2d(w, w, 3, padding=1), nn.ReLU(), nn.Conv2d(w, w, 3, padding=1))
        self.b2 = nn.Sequential(nn.Conv2d(w, 2 * w, 3, stride=2, padding=1), nn.ReLU(), nn.Conv2d(2 * w, 2 * w, 3, padding=1))
        self.proj = nn.Conv2d(w, 2 * w, 1, stride=2)
        self.add1, self.add2 = nn.quantized.FloatFunctional(), nn.quantized.FloatFunctional()
        self.relu1, self.relu2 = nn.ReLU(), nn.ReLU()
        self.gap = nn.AdaptiveAvgPool2d(1)
        self.fc = nn.Linear(2 * w, classes)

    def fuse(self):
        tq.fuse_modules(self.stem, [["0", "1", "2"]], inplace=True)
        tq.fuse_modules(self.b1, [["0", "1"]], inplace=True)
        tq.fuse_modules(self.b2, [["0", "1"]], inplace=True)

    def forward(self, x):
        x = self.pool(self.stem(self.quant(x)))
        x = self.relu1(self.add1.add(x, self.b1(x)))
        x = self.relu2(self.add2.add(self.proj(x), self.b2(x)))
        x = torch.flatten(self.gap(x), 1)
        return self.dequant(self.fc(x))


class QLinear(nn.Module):
    """A Linear quantized on its own: QuantStub → Linear → DeQuantStub."""

    def __init__(self, i, o):
        super().__init__()
        self.q, self.l, self.dq = tq.QuantStub(), nn.Linear(i, o), tq.DeQuantStub()

    def forward(self, x):
        return self.dq(self.l(self.q(x)))


class QBlock(nn.Module):
    """A pre-norm transformer block with quantized QKV, output and MLP projections."""

    def __init__(self, c, heads):
        super().__init__()
        self.h = heads
        self.ln1, self.ln2 = nn.LayerNorm(c), nn.LayerNorm(c)
        self.qkv, self.proj = QLinear(c, 3 * c), QLinear(c, c)
        self.up, self.down = QLinear(c, 4 * c), QLinear(4 * c, c)

    def forward(self, x):
        b, t, c = x.shape
        q, k, v = self.qkv(self.ln1(x)).split(c, dim=2)
        sh = lambda z: z.view(b, t, self.h, c // self.h).transpose(1, 2)  # noqa: E731
        q, k, v = sh(q), sh(k), sh(v)
        a = torch.softmax(q @ k.transpose(-1, -2) / (c // self.h) ** 0.5, dim=-1) @ v
        x = x + self.proj(a.transpose(1, 2).reshape(b, t, c))
        return x + self.down(torch.nn.functional.gelu(self.up(self.ln2(x))))


class QXF(nn.Module):
    def __init__(self, c, heads, layers):
        super().__init__()
        self.blocks = nn.Sequential(*[QBlock(c, heads) for _ in range(layers)])

    def forward(self, x):
        return self.blocks(x)


def qcnn(width, hw):
    torch.manual_seed(0)
    m = QCNN(width).eval()
    m.fuse()
    make = lambda s: torch.randn((1, 3, hw, hw), generator=torch.Generator().manual_seed(s))  # noqa: E731
    return calibrate_convert(m, make), [("x", make(1))]


def qresnet18():
    import torchvision.models.quantization as qm

    torch.manual_seed(0)
    m = qm.resnet18(weights=None, quantize=False).eval()
    m.fuse_model()
    make = lambda s: torch.randn((1, 3, 224, 224), generator=torch.Generator().manual_seed(s))  # noqa: E731
    return calibrate_convert(m, make, n=2), [("x", make(1))]


def qmobilenet_v2():
    import torchvision.models.quantization as qm

    torch.manual_seed(0)
    m = qm.mobilenet_v2(weights=None, quantize=False).eval()
    m.fuse_model()
    make = lambda s: torch.randn((1, 3, 224, 224), generator=torch.Generator().manual_seed(s))  # noqa: E731
    return calibrate_convert(m, make, n=2), [("x", make(1))]


def qxf(c, heads, layers, t):
    torch.manual_seed(0)
    m = QXF(c, heads, layers).eval()
    for blk in m.blocks:
        blk.ln1.qconfig = blk.ln2.qconfig = None
    make = lambda s: torch.randn((1, t, c), generator=torch.Generator().manual_seed(s))  # noqa: E731
    return calibrate_convert(m, make), [("x", make(1))]


def qlinear_dyn(path, batch, k, n):
    """onnxruntime's quantize_dynamic form of y = x·Wᵀ + b: u8 activations quantized at run time,
    symmetric per-tensor int8 weights."""
    rng = np.random.default_rng(0)
    w = rng.standard_normal((k, n)).astype(np.float32) / np.sqrt(k)
    b = rng.standard_normal(n).astype(np.float32) * 0.1
    ws = np.float32(np.abs(w).max() / 127)
    wq = np.clip(np.rint(w / ws), -127, 127).astype(np.int8)
    inits = [
        numpy_helper.from_array(wq, "W_quantized"),
        numpy_helper.from_array(np.array(ws, np.float32), "W_scale"),
        numpy_helper.from_array(np.array(0, np.int8), "W_zero_point"),
        numpy_helper.from_array(b, "bias"),
    ]
    nodes = [
        helper.make_node("DynamicQuantizeLinear", ["x"], ["x_quantized", "x_scale", "x_zero_point"]),
        helper.make_node("MatMulInteger", ["x_quantized", "W_quantized", "x_zero_point", "W_zero_point"], ["y_int32"]),
        helper.make_node("Cast", ["y_int32"], ["y_float"], to=TensorProto.FLOAT),
        helper.make_node("Mul", ["x_scale", "W_scale"], ["scale"]),
        helper.make_node("Mul", ["y_float", "scale"], ["y_scaled"]),
        helper.make_node("Add", ["y_scaled", "bias"], ["y"]),
    ]
    g = helper.make_graph(nodes, "qlinear_dyn", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [batch, k])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, [batch, n])], inits)
    model = helper.make_model(g, opset_imports=[helper.make_opsetid("", OPSET)])
    onnx.checker.check_model(model)
    onnx.save(model, path)
    x = np.random.default_rng(1).standard_normal((batch, k)).astype(np.float32)
    return [("x", x)]


def export_torch(build, path):
    m, inputs = build()
    args = tuple(x for _, x in inputs)
    torch.onnx.export(m, args, path, opset_version=OPSET, input_names=[n for n, _ in inputs], output_names=["y"])
    return [(n, x.numpy()) for n, x in inputs]


ORT_TYPES = {np.float32: "float32", np.uint8: "uint8", np.int8: "int8", np.int32: "int32", np.int64: "int64"}


def ort_outputs(ort_dir, model, inputs, work):
    spec = []
    for k, (name, x) in enumerate(inputs):
        f = os.path.join(work, "in_%d.bin" % k)
        x.tofile(f)
        spec.append({"name": name, "type": ORT_TYPES[x.dtype.type], "shape": list(x.shape), "file": f})
    with open(os.path.join(work, "spec.json"), "w") as f:
        json.dump(spec, f)
    env = dict(os.environ, NODE_PATH=os.path.join(ort_dir, "node_modules"))
    subprocess.run(["node", os.path.join(HERE, "ort_reference.js"), model, os.path.join(work, "spec.json"), work], check=True, env=env)
    outs = []
    k = 0
    dtypes = {"float32": np.float32, "uint8": np.uint8, "int8": np.int8, "int32": np.int32}
    while os.path.exists(os.path.join(work, "out_%d.json" % k)):
        meta = json.load(open(os.path.join(work, "out_%d.json" % k)))
        a = np.fromfile(os.path.join(work, "out_%d.bin" % k), dtype=dtypes[meta["type"]]).reshape(meta["shape"])
        outs.append((meta["name"], a))
        k += 1
    return outs


def output_step(path):
    """The scale of the DequantizeLinear (or QuantizeLinear) that produces the graph's output,
    or 0 when the output is computed in float after the last one."""
    m = onnx.load(path)
    consts = {t.name: numpy_helper.to_array(t) for t in m.graph.initializer}
    for n in m.graph.node:
        if n.op_type == "Constant":
            consts[n.output[0]] = numpy_helper.to_array(n.attribute[0].t)
    prod = {o: n for n in m.graph.node for o in n.output}
    n = prod.get(m.graph.output[0].name)
    while n is not None and n.op_type in ("Cast", "Identity", "Reshape", "Flatten"):
        n = prod.get(n.input[0])
    if n is not None and n.op_type in ("DequantizeLinear", "QuantizeLinear") and n.input[1] in consts:
        return float(np.max(consts[n.input[1]]))
    return 0.0


def reference_u8s8():
    """How onnxruntime sums u8×s8 products on this host: x86 without VNNI runs vpmaddubsw,
    which saturates a pair of products at 2^15 (full-range int8 weights reach it); with
    VNNI (vpdpbusd) or on other architectures the sums are exact. Tests compare with the
    exact evaluator instead of a saturating reference."""
    try:
        flags = open("/proc/cpuinfo").read()
    except OSError:
        return "exact"
    if " sse2" not in flags:
        return "exact"
    return "exact" if (" avx512_vnni" in flags or " avx_vnni" in flags) else "saturating"


class Spec:
    def __init__(self, name, make, note):
        self.name, self.make, self.note = name, make, note


def specs(which):
    if which == "tiny":
        return [
            Spec("qcnn_tiny", lambda p: export_torch(lambda: qcnn(8, 16), p), "QDQ CNN (torch.ao fbgemm, per-channel int8 weights): conv+bn+relu, max pool, residual blocks, GAP, linear"),
            Spec("qxf_tiny", lambda p: export_torch(lambda: qxf(32, 4, 1, 8), p), "transformer block with QDQ-quantized linear layers (torch.ao), float LayerNorm/softmax/GELU"),
            Spec("qlinear_dyn_tiny", lambda p: qlinear_dyn(p, 4, 64, 32), "dynamically quantized linear layer (onnxruntime quantize_dynamic form)"),
        ]
    return [
        Spec("qcnn", lambda p: export_torch(lambda: qcnn(64, 56), p), "QDQ CNN, width 64, 56×56 (torch.ao fbgemm, per-channel int8 weights)"),
        Spec("qresnet18", lambda p: export_torch(qresnet18, p), "torchvision quantizable ResNet-18, QDQ (torch.ao fbgemm, per-channel int8 weights), 224×224"),
        Spec("qmobilenet_v2", lambda p: export_torch(qmobilenet_v2, p), "torchvision quantizable MobileNetV2, QDQ (torch.ao fbgemm, per-channel int8 weights), 224×224: depthwise convolutions"),
        Spec("qxf", lambda p: export_torch(lambda: qxf(256, 4, 2, 128), p), "two transformer blocks, d=256, T=128, QDQ-quantized linear layers"),
        Spec("qlinear_dyn", lambda p: qlinear_dyn(p, 64, 1024, 1024), "dynamically quantized linear 64×1024·1024×1024 (onnxruntime quantize_dynamic form)"),
    ]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--set", default="bench", choices=["bench", "tiny"])
    ap.add_argument("--out", default=os.environ.get("GRAPHC_MODELS", os.path.expanduser("~/.cache/graphc-models")))
    ap.add_argument("--ort", default=os.path.expanduser("~/.cache/graphc-bench/ort"), help="directory holding node_modules/onnxruntime-node")
    ap.add_argument("names", nargs="*")
    a = ap.parse_args()
    for s in specs(a.set):
        if a.names and s.name not in a.names:
            continue
        d = os.path.join(a.out, s.name)
        sd = os.path.join(d, "test_data_set_0")
        os.makedirs(sd, exist_ok=True)
        path = os.path.join(d, "model.onnx")
        inputs = s.make(path)
        with tempfile.TemporaryDirectory() as work:
            outs = ort_outputs(a.ort, path, inputs, work)
        for k, (name, x) in enumerate(inputs):
            with open(os.path.join(sd, "input_%d.pb" % k), "wb") as f:
                f.write(numpy_helper.from_array(x, name).SerializeToString())
        for k, (name, y) in enumerate(outs):
            with open(os.path.join(sd, "output_%d.pb" % k), "wb") as f:
                f.write(numpy_helper.from_array(y, name).SerializeToString())
        meta = {"note": s.note, "opset": OPSET, "torch": torch.__version__, "dynamic": False,
                "reference": "onnxruntime-node", "quant_step": output_step(path), "reference_u8s8": reference_u8s8()}
        with open(os.path.join(d, "meta.json"), "w") as f:
            json.dump(meta, f, indent=1, sort_keys=True)
        print(s.name, "->", d, file=sys.stderr)


if __name__ == "__main__":
    main()
