"""Writes graphc's tests of onnxruntime's com.microsoft operators and of ONNX Attention with
past state: small models built with onnx.helper per the operator specifications, random inputs,
and onnxruntime-node's outputs as the reference, in the ONNX backend-test layout
(CASE/model.onnx, CASE/test_data_set_0/{input,output}_<k>.pb).

    /usr/bin/python3 models/export_msft.py --ort ~/.cache/graphc-bench/ort --out testdata/msft

Needs python3-onnx, python3-numpy and node with onnxruntime-node in ORT/node_modules
(cmd/graphc-bench installs it into its cache). internal/conformance's TestMsftOps runs the cases
through graphc (evaluator and compiled code) without needing node.
"""

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile

import numpy as np
from onnx import TensorProto, helper, numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))
MS = "com.microsoft"
F = TensorProto.FLOAT
ORT_TYPES = {np.float32: "float32", np.uint8: "uint8", np.int8: "int8", np.int32: "int32", np.int64: "int64", np.bool_: "bool"}
NP_TYPES = {"float32": np.float32, "uint8": np.uint8, "int8": np.int8, "int32": np.int32, "int64": np.int64, "bool": np.bool_}
ONNX_TYPES = {np.float32: F, np.int32: TensorProto.INT32, np.int64: TensorProto.INT64, np.uint8: TensorProto.UINT8, np.bool_: TensorProto.BOOL}


class Case:
    """One test: nodes over named inputs (name → array, in graph order), initializers and
    outputs (name → shape list, symbolic dims as strings)."""

    def __init__(self, name, nodes, inputs, outputs, inits=None, dims=None, opset=23, tol=None, ref=None):
        self.name, self.nodes, self.inputs, self.outputs = name, nodes, inputs, outputs
        self.inits = inits or {}
        self.dims = dims or {}  # input name → shape with symbolic names
        self.opset = opset
        self.tol = tol or {"rtol": 1e-3, "atol": 1e-5}  # onnxruntime sums and approximates in its own order
        self.ref = ref  # numpy reference (name → array) for ops onnxruntime's CPU provider lacks

    def model(self):
        ins = [helper.make_tensor_value_info(n, ONNX_TYPES[a.dtype.type], self.dims.get(n, list(a.shape))) for n, a in self.inputs]
        outs = [helper.make_tensor_value_info(n, t, s) for n, (t, s) in self.outputs]
        inits = [numpy_helper.from_array(a, n) for n, a in self.inits.items()]
        g = helper.make_graph(self.nodes, self.name, ins, outs, inits)
        m = helper.make_model(g, opset_imports=[helper.make_opsetid("", self.opset), helper.make_opsetid(MS, 1)])
        m.ir_version = 10
        return m


def ort_run(ort_dir, model_path, inputs, work):
    spec = []
    for k, (name, x) in enumerate(inputs):
        f = os.path.join(work, "in_%d.bin" % k)
        x.tofile(f)
        spec.append({"name": name, "type": ORT_TYPES[x.dtype.type], "shape": list(x.shape), "file": f})
    with open(os.path.join(work, "spec.json"), "w") as f:
        json.dump(spec, f)
    env = dict(os.environ, NODE_PATH=os.path.join(ort_dir, "node_modules"))
    subprocess.run(["node", os.path.join(HERE, "ort_reference.js"), model_path, os.path.join(work, "spec.json"), work], check=True, env=env)
    outs = []
    k = 0
    while os.path.exists(os.path.join(work, "out_%d.json" % k)):
        meta = json.load(open(os.path.join(work, "out_%d.json" % k)))
        a = np.fromfile(os.path.join(work, "out_%d.bin" % k), dtype=NP_TYPES[meta["type"]]).reshape(meta["shape"])
        outs.append((meta["name"], a))
        k += 1
    return outs


def write(case, out_root, ort_dir):
    d = os.path.join(out_root, case.name)
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(os.path.join(d, "test_data_set_0"))
    path = os.path.join(d, "model.onnx")
    with open(path, "wb") as f:
        f.write(case.model().SerializeToString())
    if case.ref:
        outs = case.ref(dict(case.inputs))
    else:
        with tempfile.TemporaryDirectory() as work:
            outs = ort_run(ort_dir, path, case.inputs, work)
    sd = os.path.join(d, "test_data_set_0")
    for k, (n, a) in enumerate(case.inputs):
        with open(os.path.join(sd, "input_%d.pb" % k), "wb") as f:
            f.write(numpy_helper.from_array(a, n).SerializeToString())
    for k, (n, a) in enumerate(outs):
        with open(os.path.join(sd, "output_%d.pb" % k), "wb") as f:
            f.write(numpy_helper.from_array(a, n).SerializeToString())
    if case.tol:
        with open(os.path.join(d, "tolerance.json"), "w") as f:
            json.dump(case.tol, f)
    print(case.name, [a.shape for _, a in outs])


SEED = 34
rng = np.random.default_rng(SEED)


def rnd(*shape, scale=1.0):
    return (rng.standard_normal(shape) * scale).astype(np.float32)


# ---- normalizations and activations

def norm_cases():
    B, S, H = 2, 5, 16
    x, skip, gamma, beta, bias = rnd(B, S, H), rnd(B, S, H), rnd(H), rnd(H), rnd(H)
    yield Case("msft_skip_layer_norm", [helper.make_node("SkipLayerNormalization", ["x", "skip", "gamma", "beta", "bias"], ["y", "", "", "sum"], domain=MS, epsilon=1e-5)],
               [("x", x), ("skip", skip)], [("y", (F, [B, S, H])), ("sum", (F, [B, S, H]))], inits={"gamma": gamma, "beta": beta, "bias": bias})
    yield Case("msft_skip_layer_norm_2d_nobias", [helper.make_node("SkipLayerNormalization", ["x", "skip", "gamma"], ["y"], domain=MS, epsilon=1e-6)],
               [("x", x[0]), ("skip", skip[0]), ("gamma", gamma)], [("y", (F, [S, H]))])
    yield Case("msft_skip_simplified_layer_norm", [helper.make_node("SkipSimplifiedLayerNormalization", ["x", "skip", "gamma", "bias"], ["y", "", "", "sum"], domain=MS, epsilon=1e-6)],
               [("x", x), ("skip", skip)], [("y", (F, [B, S, H])), ("sum", (F, [B, S, H]))], inits={"gamma": gamma, "bias": bias})
    yield Case("msft_skip_simplified_layer_norm_bcast", [helper.make_node("SkipSimplifiedLayerNormalization", ["x", "skip", "gamma"], ["y"], domain=MS, epsilon=1e-6)],
               [("x", x), ("skip", skip[:1])], [("y", (F, [B, S, H]))], inits={"gamma": gamma})
    yield Case("msft_simplified_layer_norm", [helper.make_node("SimplifiedLayerNormalization", ["x", "gamma"], ["y"], epsilon=1e-6, axis=-1, stash_type=1)],
               [("x", x)], [("y", (F, [B, S, H]))], inits={"gamma": gamma})


def act_cases():
    x, bias, skip = rnd(2, 3, 8, scale=2), rnd(8), rnd(2, 3, 8)
    yield Case("msft_fast_gelu", [helper.make_node("FastGelu", ["x"], ["y"], domain=MS)], [("x", x)], [("y", (F, [2, 3, 8]))])
    yield Case("msft_fast_gelu_bias", [helper.make_node("FastGelu", ["x", "b"], ["y"], domain=MS)], [("x", x)], [("y", (F, [2, 3, 8]))], inits={"b": bias})
    yield Case("msft_bias_gelu", [helper.make_node("BiasGelu", ["x", "b"], ["y"], domain=MS)], [("x", x), ("b", bias)], [("y", (F, [2, 3, 8]))])
    yield Case("msft_quick_gelu", [helper.make_node("QuickGelu", ["x"], ["y"], domain=MS, alpha=1.5)], [("x", x)], [("y", (F, [2, 3, 8]))])
    yield Case("msft_bias_add", [helper.make_node("BiasAdd", ["x", "b", "s"], ["y"], domain=MS)], [("x", x), ("b", bias), ("s", skip)], [("y", (F, [2, 3, 8]))],
               ref=lambda i: [("y", i["x"] + i["b"] + i["s"])])  # BiasAdd has no CPU kernel in onnxruntime


# ---- block-quantized weights

def quantize_nbits(w, bits, block):
    """w [K, N] → MatMulNBits' B [N, blocks, blob] (u8), scales [N·blocks], packed zero
    points [N·ceil(blocks·bits/8)] and the integer weights, as onnxruntime's quantizer lays them."""
    K, N = w.shape
    kb = (K + block - 1) // block
    wp = np.zeros((kb * block, N), np.float32)
    wp[:K] = w
    blocks = wp.T.reshape(N, kb, block)
    lo, hi = blocks.min(axis=2), blocks.max(axis=2)
    qmax = (1 << bits) - 1
    scale = np.maximum((hi - lo) / qmax, 1e-4).astype(np.float32)
    zp = np.clip(np.round(-lo / scale), 0, qmax).astype(np.uint8)
    q = np.clip(np.round(blocks / scale[:, :, None]) + zp[:, :, None], 0, qmax).astype(np.uint8)
    if bits == 4:
        packed = (q[:, :, 0::2] | (q[:, :, 1::2] << 4)).astype(np.uint8)
        zflat = zp.reshape(N, kb)
        if kb % 2:
            zflat = np.concatenate([zflat, np.zeros((N, 1), np.uint8)], axis=1)
        zpacked = (zflat[:, 0::2] | (zflat[:, 1::2] << 4)).astype(np.uint8).reshape(-1)
    else:
        packed, zpacked = q, zp.reshape(-1)
    return packed, scale.reshape(-1), zpacked


def nbits_cases():
    for name, M, K, N, bits, block, zp, bias in [
            ("msft_matmul_nbits_4b_zp", 3, 64, 24, 4, 32, True, False),
            ("msft_matmul_nbits_4b_nozp_bias", 2, 80, 16, 4, 16, False, True),  # K not a multiple of the block
            ("msft_matmul_nbits_4b_oddblocks_zp", 1, 96, 8, 4, 32, True, False),  # 3 blocks: zero points end in half a byte
            ("msft_matmul_nbits_8b_zp", 2, 64, 8, 8, 32, True, True),
            ("msft_matmul_nbits_8b_nozp", 4, 32, 8, 8, 16, False, False)]:
        w = rnd(K, N)
        B, scales, zps = quantize_nbits(w, bits, block)
        inits = {"B": B, "scales": scales}
        ins = ["a", "B", "scales"]
        if zp:
            inits["zp"] = zps
            ins.append("zp")
        if bias:
            inits["bias"] = rnd(N)
            ins += ([""] if zp else ["", ""]) + ["bias"]
            if zp:
                ins = ["a", "B", "scales", "zp", "", "bias"]
        yield Case(name, [helper.make_node("MatMulNBits", ins, ["y"], domain=MS, K=K, N=N, bits=bits, block_size=block)],
                   [("a", rnd(1, M, K))], [("y", (F, [1, M, N]))], inits=inits)
    # an embedding table of 4-bit values, two per byte, blocks of 16 along the hidden axis
    V, H = 10, 32
    q = rng.integers(0, 16, (V, H)).astype(np.uint8)
    data = (q[:, 0::2] | (q[:, 1::2] << 4)).astype(np.uint8)
    scales = (rng.random((V, H // 16)) + 0.5).astype(np.float32)
    zq = rng.integers(0, 16, (V, H // 16)).astype(np.uint8)
    zpk = (zq[:, 0::2] | (zq[:, 1::2] << 4)).astype(np.uint8)
    ids = np.array([[3, 0, 9], [3, 7, 1]], np.int64)
    yield Case("msft_gather_block_quantized_zp", [helper.make_node("GatherBlockQuantized", ["data", "ids", "scales", "zp"], ["y"], domain=MS, block_size=16, gather_axis=0, quantize_axis=1, bits=4)],
               [("ids", ids)], [("y", (F, [2, 3, H]))], inits={"data": data, "scales": scales, "zp": zpk})
    yield Case("msft_gather_block_quantized", [helper.make_node("GatherBlockQuantized", ["data", "ids", "scales"], ["y"], domain=MS, block_size=16, gather_axis=0, quantize_axis=1)],
               [("ids", ids[:1])], [("y", (F, [1, 3, H]))], inits={"data": data, "scales": scales})


# ---- rotary embeddings

def rope_cache(max_pos, half, base=10000.0):
    inv = 1.0 / base ** (np.arange(half, dtype=np.float64) / half)
    ang = np.outer(np.arange(max_pos), inv)
    return np.cos(ang).astype(np.float32), np.sin(ang).astype(np.float32)


def rotary_cases():
    B, S, N, H = 2, 5, 3, 8
    cos, sin = rope_cache(32, H // 2)
    pos = np.array([[0, 1, 2, 3, 4], [7, 8, 9, 10, 11]], np.int64)
    for name, x, attrs, ids, c, s_ in [
            ("msft_rotary_3d_ids", rnd(B, S, N * H), dict(num_heads=N), pos, cos, sin),
            ("msft_rotary_3d_offset_interleaved", rnd(B, S, N * H), dict(interleaved=1), np.array([6], np.int64), cos, sin),
            ("msft_rotary_4d_ids", rnd(B, N, S, H), {}, pos, cos, sin),
            ("msft_rotary_3d_partial", rnd(B, S, N * H), dict(num_heads=N, rotary_embedding_dim=4), pos, cos[:, :2], sin[:, :2])]:
        yield Case(name, [helper.make_node("RotaryEmbedding", ["x", "ids", "cos", "sin"], ["y"], domain=MS, **attrs)],
                   [("x", x), ("ids", ids)], [("y", (F, list(x.shape)))], inits={"cos": c, "sin": s_})


# ---- attention

I32 = TensorProto.INT32


def gqa_case(name, B, S, P, hq, hkv, D, rotary=False, interleaved=False, packed=False, softcap=0.0, window=-1, scale=None, bias=False, dyn=False,
             seqlens=None, shared=False):
    """seqlens: seqlens_k per batch row (a ragged batch: row b has seqlens[b] + 1 - S past keys); default P + S - 1.
    shared: present declared with the past's length P (a buffer shared at the maximum length; total <= P)."""
    inputs = []
    q, k, v = rnd(B, S, hq * D), rnd(B, S, hkv * D), rnd(B, S, hkv * D)
    if packed:
        inputs.append(("qkv", np.concatenate([q, k, v], axis=2)))
        names = ["qkv", "", ""]
    else:
        inputs += [("q", q), ("k", k), ("v", v)]
        names = ["q", "k", "v"]
    if P > 0:
        inputs += [("past_k", rnd(B, hkv, P, D)), ("past_v", rnd(B, hkv, P, D))]
        names += ["past_k", "past_v"]
    else:
        names += ["", ""]
    sk = np.full([B], P + S - 1, np.int32) if seqlens is None else np.array(seqlens, np.int32)
    inputs += [("seqlens_k", sk), ("total", np.array(int(sk.max()) + 1 if shared else P + S, np.int32))]
    names += ["seqlens_k", "total"]
    inits = {}
    attrs = dict(num_heads=hq, kv_num_heads=hkv)
    if rotary:
        cos, sin = rope_cache(P + S + 8, D // 2)
        inits = {"cos": cos, "sin": sin}
        names += ["cos", "sin"]
        attrs.update(do_rotary=1, rotary_interleaved=int(interleaved))
    if bias:
        if not rotary:
            names += ["", ""]
        names += ["", "bias"]
        inputs.append(("bias", rnd(1, hq, S, P + S)))
    if softcap:
        attrs["softcap"] = softcap
    if window >= 0:
        attrs["local_window_size"] = window
    if scale:
        attrs["scale"] = scale
    dims = {}
    if dyn:
        dims = {"q": [B, "S", hq * D], "k": [B, "S", hkv * D], "v": [B, "S", hkv * D], "past_k": [B, hkv, "P", D], "past_v": [B, hkv, "P", D]}
    T = "T" if dyn else P + S
    if shared:
        dims.update({"past_k": [B, hkv, "P", D], "past_v": [B, hkv, "P", D]})
        T = "P"
    outs = [("y", (F, [B, "S" if dyn else S, hq * D])), ("present_k", (F, [B, hkv, T, D])), ("present_v", (F, [B, hkv, T, D]))]
    return Case(name, [helper.make_node("GroupQueryAttention", names, ["y", "present_k", "present_v"], domain=MS, **attrs)],
                inputs, outs, inits=inits, dims=dims)


def attention_cases():
    yield gqa_case("msft_gqa_prefill_4x2", 1, 6, 0, 4, 2, 8)
    yield gqa_case("msft_gqa_decode_past_8x2", 2, 1, 9, 8, 2, 8)
    yield gqa_case("msft_gqa_chunk_past_mqa", 1, 4, 5, 4, 1, 8)  # a second prompt chunk, multi-query
    yield gqa_case("msft_gqa_rotary_decode", 1, 1, 7, 4, 2, 16, rotary=True)
    yield gqa_case("msft_gqa_rotary_prefill_interleaved", 2, 5, 0, 2, 2, 16, rotary=True, interleaved=True)
    yield gqa_case("msft_gqa_packed_softcap", 1, 3, 4, 4, 2, 8, packed=True, softcap=2.0)
    yield gqa_case("msft_gqa_window_scale", 1, 6, 3, 2, 1, 8, window=3, scale=0.2)
    yield gqa_case("msft_gqa_bias", 1, 3, 2, 2, 1, 8, bias=True)
    yield gqa_case("msft_gqa_dyn_rotary", 1, 3, 4, 4, 2, 16, rotary=True, dyn=True)
    # ragged batches: each row's past is seqlens_k[b] + 1 - S long (the longest fills the cache)
    yield gqa_case("msft_gqa_ragged_decode_rotary", 3, 1, 9, 4, 2, 16, rotary=True, seqlens=[9, 4, 6])
    yield gqa_case("msft_gqa_ragged_decode_window_softcap", 2, 1, 8, 4, 1, 8, window=3, softcap=2.0, seqlens=[3, 8])
    yield gqa_case("msft_gqa_ragged_decode_dyn", 4, 1, 6, 2, 2, 16, rotary=True, interleaved=True, dyn=True, seqlens=[6, 0, 2, 5])
    # a past/present buffer shared at the maximum length (8): present keeps the past's length
    yield gqa_case("msft_gqa_shared_buffer_decode_rotary", 3, 1, 8, 4, 2, 16, rotary=True, seqlens=[3, 6, 0], shared=True)
    yield gqa_case("msft_gqa_shared_buffer_window", 2, 1, 8, 2, 1, 16, window=2, softcap=3.0, seqlens=[5, 1], shared=True)
    # MultiHeadAttention
    B, S, N, D, P = 2, 3, 2, 8, 4
    q, k, v = rnd(B, S, N * D), rnd(B, S, N * D), rnd(B, S, N * D)
    yield Case("msft_mha_self", [helper.make_node("MultiHeadAttention", ["q", "k", "v"], ["y"], domain=MS, num_heads=N)],
               [("q", q), ("k", k), ("v", v)], [("y", (F, [B, S, N * D]))])
    mask = np.ones([B, P + S], np.int32)
    mask[1, :2] = 0
    yield Case("msft_mha_past_causal_mask_bias", [helper.make_node("MultiHeadAttention", ["q", "k", "v", "bias", "mask", "", "pk", "pv"], ["y", "present_k", "present_v"],
                                                                   domain=MS, num_heads=N, unidirectional=1)],
               [("q", q), ("k", k), ("v", v), ("mask", mask), ("pk", rnd(B, N, P, D)), ("pv", rnd(B, N, P, D))],
               [("y", (F, [B, S, N * D])), ("present_k", (F, [B, N, P + S, D])), ("present_v", (F, [B, N, P + S, D]))], inits={"bias": rnd(3 * N * D)})
    L = 5
    yield Case("msft_mha_cross_bnsh_attn_bias", [helper.make_node("MultiHeadAttention", ["q", "k", "v", "", "", "ab"], ["y"], domain=MS, num_heads=N, scale=0.3)],
               [("q", q), ("k", rnd(B, N, L, D)), ("v", rnd(B, N, L, D)), ("ab", rnd(B, 1, S, L))], [("y", (F, [B, S, N * D]))])


def onnx_attention_cases():
    """ONNX Attention (opset 23/24) with past state, grouped heads, masks and softcap."""
    B, Hq, Hkv, S, P, D = 2, 4, 2, 3, 5, 8
    T = P + S
    q, k, v = rnd(B, Hq, S, D), rnd(B, Hkv, S, D), rnd(B, Hkv, S, D)
    pk, pv = rnd(B, Hkv, P, D), rnd(B, Hkv, P, D)
    outs4 = [("y", (F, [B, Hq, S, D])), ("present_k", (F, [B, Hkv, T, D])), ("present_v", (F, [B, Hkv, T, D]))]
    yield Case("onnx_attention_gqa_past_causal", [helper.make_node("Attention", ["q", "k", "v", "", "pk", "pv"], ["y", "present_k", "present_v"], is_causal=1)],
               [("q", q), ("k", k), ("v", v), ("pk", pk), ("pv", pv)], outs4)
    bmask = rng.random((B, 1, S, T)) > 0.3
    bmask[..., 0] = True
    yield Case("onnx_attention_gqa_past_boolmask_softcap", [helper.make_node("Attention", ["q", "k", "v", "m", "pk", "pv"], ["y", "present_k", "present_v"], softcap=3.0)],
               [("q", q), ("k", k), ("v", v), ("m", bmask), ("pk", pk), ("pv", pv)], outs4)
    yield Case("onnx_attention_3d_mqa_addmask_scale", [helper.make_node("Attention", ["q", "k", "v", "m"], ["y"], q_num_heads=4, kv_num_heads=1, scale=0.25)],
               [("q", rnd(B, S, 4 * D)), ("k", rnd(B, 6, D)), ("v", rnd(B, 6, D)), ("m", rnd(S, 6))], [("y", (F, [B, S, 4 * D]))])
    yield Case("onnx_attention_3d_past_causal", [helper.make_node("Attention", ["q", "k", "v", "", "pk", "pv"], ["y", "present_k", "present_v"], q_num_heads=Hq, kv_num_heads=Hkv, is_causal=1)],
               [("q", rnd(B, S, Hq * D)), ("k", rnd(B, S, Hkv * D)), ("v", rnd(B, S, Hkv * D)), ("pk", pk), ("pv", pv)],
               [("y", (F, [B, S, Hq * D])), ("present_k", (F, [B, Hkv, T, D])), ("present_v", (F, [B, Hkv, T, D]))])
    # opset 24: an external cache of capacity 7 with nonpad_kv_seqlen valid keys per batch
    kc, vc = rnd(B, Hkv, 7, D), rnd(B, Hkv, 7, D)
    yield Case("onnx_attention_nonpad_kv_seqlen", [helper.make_node("Attention", ["q", "k", "v", "", "", "", "nonpad"], ["y"])],
               [("q", q), ("k", kc), ("v", vc), ("nonpad", np.array([4, 7], np.int64))], [("y", (F, [B, Hq, S, D]))], opset=24)


def merged_cases():
    """An Optimum-style merged decoder step: an If on the graph input use_cache_branch chooses
    attention over the past (present = concat(past, new), T = P + S) or without it (the past a
    dummy, present = new, T = S). The branches' outputs differ in shape, so graphc needs the
    condition at compile time: one data set per branch (prefill without the cache, decode with
    it; the conformance runner binds the condition from each set)."""
    B, H, D = 2, 2, 8
    Dm = H * D
    wq, wk, wv, wo = (rnd(Dm, Dm, scale=0.3) for _ in range(4))
    inits = {"wq": wq, "wk": wk, "wv": wv, "wo": wo}

    def branch(name, past):
        ins = ["q", "k", "v", ""] + (["past_key", "past_value"] if past else [])
        att = helper.make_node("Attention", ins, ["y_" + name, "pk_" + name, "pv_" + name], is_causal=1, q_num_heads=H, kv_num_heads=H)
        outs = [helper.make_tensor_value_info(n + name, F, None) for n in ("y_", "pk_", "pv_")]
        return helper.make_graph([att], name, [], outs)

    nodes = [helper.make_node("MatMul", ["x", w], [o]) for w, o in (("wq", "q"), ("wk", "k"), ("wv", "v"))]
    nodes.append(helper.make_node("If", ["use_cache_branch"], ["att", "present_key", "present_value"],
                                  then_branch=branch("with_past", True), else_branch=branch("without_past", False)))
    nodes.append(helper.make_node("MatMul", ["att", "wo"], ["y"]))
    dims = {"x": [B, "S", Dm], "past_key": [B, H, "P", D], "past_value": [B, H, "P", D], "use_cache_branch": [1]}
    outs = [("y", (F, [B, "S", Dm])), ("present_key", (F, [B, H, "T", D])), ("present_value", (F, [B, H, "T", D]))]
    for name, S, P, use in (("optimum_merged_prefill", 5, 1, False), ("optimum_merged_decode", 1, 6, True)):
        inputs = [("x", rnd(B, S, Dm)), ("past_key", rnd(B, H, P, D)), ("past_value", rnd(B, H, P, D)),
                  ("use_cache_branch", np.array([use], np.bool_))]
        yield Case(name, nodes, inputs, outs, inits=inits, dims=dims)


GROUPS = [norm_cases, act_cases, nbits_cases, rotary_cases, attention_cases, onnx_attention_cases, merged_cases]


# ---- a LLaMA-style decoder as onnxruntime-genai's model builder writes it

LLAMA_SIZES = {
    # name: hidden, heads, kv heads, layers, ffn, vocab, block, prefill S, decode past
    "tiny": (128, 4, 2, 2, 256, 256, 32, 64, 200),
    "bench": (1024, 16, 4, 4, 2816, 8192, 32, 64, 200),
}


def llama_variant(size):
    """The base size of a LLaMA size name, whether its LM head is pruned (_last) and its
    MatMulNBits accuracy_level (4 with _acc4, else 0)."""
    prune = size.endswith("_last")
    size = size.removesuffix("_last")
    acc = 4 if size.endswith("_acc4") else 0
    return size.removesuffix("_acc4"), prune, acc


def llama_nbits(size):
    """The model (symbolic sequence length S and past length P), its prefill (S = 64, no past)
    and decode (S = 1, past 200) inputs. A size ending in _last prunes the LM head to the last
    token as onnxruntime-genai's builder does with prune_lm_head (its PR #1995): Gather(axis=1,
    index -1) and Unsqueeze(axes=[1]) before the LM head, logits [1, 1, vocab]. A size ending in
    _acc4 (before _last, if both) gives every MatMulNBits accuracy_level=4, as onnxruntime-genai's
    builder writes 4-bit models for the CPU provider (int4_accuracy_level 4): A is quantized to
    int8 per block and the dot products are integer."""
    base, prune, acc = llama_variant(size)
    H, NQ, NKV, L, FF, V, BLK, SP, PD = LLAMA_SIZES[base]
    D = H // NQ
    nodes, inits = [], {}

    def nbits(name, x, K, N):
        B, sc, zp = quantize_nbits(rnd(K, N, scale=1 / np.sqrt(K)), 4, BLK)
        inits[name + ".B"], inits[name + ".scales"], inits[name + ".zp"] = B, sc, zp
        nodes.append(helper.make_node("MatMulNBits", [x, name + ".B", name + ".scales", name + ".zp"], [name], domain=MS, K=K, N=N, bits=4, block_size=BLK, accuracy_level=acc))
        return name

    inits["embed"] = rnd(V, H)
    cos, sin = rope_cache(512, D // 2)
    inits["cos_cache"], inits["sin_cache"] = cos, sin
    nodes.append(helper.make_node("Gather", ["embed", "input_ids"], ["x0"]))
    ins = [helper.make_tensor_value_info("input_ids", TensorProto.INT64, [1, "S"])]
    outs = [helper.make_tensor_value_info("logits", F, [1, 1 if prune else "S", V])]
    res, x = "x0", None
    for l in range(L):
        p = "l%d" % l
        for w in ("ln1", "ln2"):
            inits[p + "." + w] = (1 + 0.1 * rng.standard_normal(H)).astype(np.float32)
        if l == 0:
            nodes.append(helper.make_node("SimplifiedLayerNormalization", ["x0", p + ".ln1"], [p + ".h"], epsilon=1e-5, axis=-1, stash_type=1))
        else:
            nodes.append(helper.make_node("SkipSimplifiedLayerNormalization", [x, res, p + ".ln1"], [p + ".h", "", "", p + ".res1"], domain=MS, epsilon=1e-5))
            res = p + ".res1"
        q, k, v = nbits(p + ".q", p + ".h", H, NQ * D), nbits(p + ".k", p + ".h", H, NKV * D), nbits(p + ".v", p + ".h", H, NKV * D)
        pk, pv = "past_key_values.%d.key" % l, "past_key_values.%d.value" % l
        ins += [helper.make_tensor_value_info(n, F, [1, NKV, "P", D]) for n in (pk, pv)]
        outs += [helper.make_tensor_value_info(n, F, [1, NKV, "T", D]) for n in ("present.%d.key" % l, "present.%d.value" % l)]
        nodes.append(helper.make_node("GroupQueryAttention", [q, k, v, pk, pv, "seqlens_k", "total_sequence_length", "cos_cache", "sin_cache"],
                                      [p + ".attn", "present.%d.key" % l, "present.%d.value" % l], domain=MS, num_heads=NQ, kv_num_heads=NKV, do_rotary=1))
        o = nbits(p + ".o", p + ".attn", NQ * D, H)
        nodes.append(helper.make_node("SkipSimplifiedLayerNormalization", [o, res, p + ".ln2"], [p + ".h2", "", "", p + ".res2"], domain=MS, epsilon=1e-5))
        res = p + ".res2"
        g, u = nbits(p + ".gate", p + ".h2", H, FF), nbits(p + ".up", p + ".h2", H, FF)
        nodes += [helper.make_node("Sigmoid", [g], [p + ".sg"]), helper.make_node("Mul", [g, p + ".sg"], [p + ".silu"]),
                  helper.make_node("Mul", [p + ".silu", u], [p + ".act"])]
        x = nbits(p + ".down", p + ".act", FF, H)
    inits["lnf"] = (1 + 0.1 * rng.standard_normal(H)).astype(np.float32)
    nodes.append(helper.make_node("SkipSimplifiedLayerNormalization", [x, res, "lnf"], ["hf"], domain=MS, epsilon=1e-5))
    if prune:
        inits["last_index"] = np.array(-1, np.int64)
        inits["unsqueeze_axes"] = np.array([1], np.int64)
        nodes += [helper.make_node("Gather", ["hf", "last_index"], ["hf_last"], axis=1),
                  helper.make_node("Unsqueeze", ["hf_last", "unsqueeze_axes"], ["hf_last_3d"])]
    nbits("lm_head", "hf_last_3d" if prune else "hf", H, V)
    nodes[-1].output[0] = "logits"
    ins += [helper.make_tensor_value_info("seqlens_k", TensorProto.INT32, [1]), helper.make_tensor_value_info("total_sequence_length", TensorProto.INT32, [])]
    g = helper.make_graph(nodes, "llama_nbits", ins, outs, [numpy_helper.from_array(a, n) for n, a in inits.items()])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 21), helper.make_opsetid(MS, 1)])
    m.ir_version = 10

    def feeds(S, P):
        f = [("input_ids", rng.integers(0, V, (1, S)).astype(np.int64))]
        for l in range(L):
            f += [("past_key_values.%d.key" % l, rnd(1, NKV, P, D)), ("past_key_values.%d.value" % l, rnd(1, NKV, P, D))]
        return f + [("seqlens_k", np.array([P + S - 1], np.int32)), ("total_sequence_length", np.array(P + S, np.int32))]
    return m, [feeds(SP, 0), feeds(1, PD)]


def write_llama(size, out_root, ort_dir):
    global rng
    name = "llama_nbits_" + size
    m, sets = llama_nbits(size)
    d = os.path.join(out_root, name)
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)
    path = os.path.join(d, "model.onnx")
    with open(path, "wb") as f:
        f.write(m.SerializeToString())
    base, prune, acc = llama_variant(size)
    H, NQ, NKV, L, FF, V, BLK, SP, PD = LLAMA_SIZES[base]
    refs = []
    for k, inputs in enumerate(sets):
        with tempfile.TemporaryDirectory() as work:
            refs.append(ort_run(ort_dir, path, inputs, work))
    quant_step = 0.0
    if acc:
        # At accuracy_level 4 A is rounded to int8 per block, so the outputs are discontinuous in
        # A: compiled float ops before a MatMulNBits (layer norms, attention, the MLP) are
        # reassociated, an activation within an ulp of a rounding boundary rounds the other way,
        # and through attention every later token's output moves (seen: layer 1's input of the
        # bench prefill, 10 of 64 tokens). The tolerance is the size of that noise, measured:
        # the largest difference between onnxruntime's outputs at level 4 and at level 0 (the
        # same weights and inputs: the generator restarted from its seed), which a wrong kernel
        # exceeds by orders of magnitude.
        rng = np.random.default_rng(SEED)
        m0, sets0 = llama_nbits(size.replace("_acc4", ""))
        with tempfile.TemporaryDirectory() as work:
            p0 = os.path.join(work, "model0.onnx")
            with open(p0, "wb") as f:
                f.write(m0.SerializeToString())
            for k, inputs in enumerate(sets0):
                assert all(np.array_equal(a, b) for (_, a), (_, b) in zip(inputs, sets[k]))
                outs0 = ort_run(ort_dir, p0, inputs, work)
                quant_step = max([quant_step] + [float(np.abs(a - b).max()) for (_, a), (_, b) in zip(outs0, refs[k])])
        quant_step = float("%.2g" % quant_step)
    with open(os.path.join(d, "meta.json"), "w") as f:
        json.dump({"dynamic": True, "reference": "onnxruntime-node", "opset": 21, "quant_step": quant_step,
                   "note": "LLaMA-style decoder as onnxruntime-genai writes it (com.microsoft GroupQueryAttention with rotary, "
                           "SimplifiedLayerNormalization, SkipSimplifiedLayerNormalization, 4-bit MatMulNBits block %d, accuracy_level %d): hidden %d, %d/%d heads, "
                           "%d layers, ffn %d, vocab %d; set 0 prefill S=%d, set 1 decode S=1 past %d%s%s" % (BLK, acc, H, NQ, NKV, L, FF, V, SP, PD,
                           "; the LM head pruned to the last token as the builder's prune_lm_head writes it (Gather index -1, Unsqueeze)" if prune else "",
                           "; quant_step is onnxruntime's own largest output difference between accuracy_level 4 and 0 (A's int8 rounding)" if acc else "")}, f, indent=1)
    for k, inputs in enumerate(sets):
        sd = os.path.join(d, "test_data_set_%d" % k)
        os.makedirs(sd)
        outs = refs[k]
        for i, (n, a) in enumerate(inputs):
            with open(os.path.join(sd, "input_%d.pb" % i), "wb") as f:
                f.write(numpy_helper.from_array(a, n).SerializeToString())
        for i, (n, a) in enumerate(outs):
            with open(os.path.join(sd, "output_%d.pb" % i), "wb") as f:
                f.write(numpy_helper.from_array(a, n).SerializeToString())
        print(name, "set", k, [a.shape for _, a in outs][:3], "quant_step", quant_step)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--llama", default="", help="write the LLaMA-style decoder of this size (tiny, bench; tiny_last, bench_last with the LM head pruned to the last token; tiny_acc4, bench_acc4, bench_acc4_last with accuracy_level 4) into --out instead of the op tests")
    ap.add_argument("--ort", default=os.path.expanduser("~/.cache/graphc-bench/ort"))
    ap.add_argument("--out", default=os.path.join(HERE, "..", "testdata", "msft"))
    ap.add_argument("--only", default="", help="substring of the case names to write")
    a = ap.parse_args()
    if a.llama:
        write_llama(a.llama, a.out, a.ort)
        return
    for g in GROUPS:
        for c in g():
            if a.only in c.name:
                write(c, a.out, a.ort)


if __name__ == "__main__":
    sys.exit(main())
