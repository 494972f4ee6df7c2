#!/usr/bin/python3
"""Exports graphc's real-model set with torch.onnx.export, random weights, fixed seeds.

Every model goes to OUT/<name>/model.onnx with reference data sets computed by PyTorch in
OUT/<name>/test_data_set_<n>/{input,output}_<k>.pb (the ONNX backend-test layout, which
graphc's conformance runner reads). Models with dynamic axes get two data sets at two
sequence lengths (or batch sizes).

    python3 models/export.py                  # the benchmark set into $GRAPHC_MODELS
                                              # (default ~/.cache/graphc-models)
    python3 models/export.py --set tiny --out testdata/realmodels   # the committed test set
    python3 models/export.py --set extra      # architectures outside the benchmark set into
                                              # $GRAPHC_MODELS_EXTRA (~/.cache/graphc-models-extra)
    python3 models/export.py --set recurrent  # nn.LSTM/nn.GRU/nn.RNN models into
                                              # $GRAPHC_MODELS_RECURRENT (~/.cache/graphc-models-recurrent)
    python3 models/export.py --set audio      # torchaudio's models and a 1-D conv separator into
                                              # $GRAPHC_MODELS_AUDIO (~/.cache/graphc-models-audio)
    python3 models/export.py --set detect     # torchvision detectors (models/detect.py) into
                                              # $GRAPHC_MODELS_DETECT (~/.cache/graphc-models-detect)
    python3 models/export.py --set tiny-detect --out testdata/detect   # the committed detector
    python3 models/export.py --set detect --sets-only retinanet   # only the test data sets of
                                              # an exported model (same bytes checked), then
                                              # models/ort_refs.py DIR for onnxruntime's outputs
    python3 models/export.py --list
    python3 models/export.py gpt2 resnet18    # some models only

Needs Debian's python3-torch, python3-torchvision and python3-onnx (not needed by make test).
"""

import argparse
import filecmp
import json
import os
import shutil
import sys
import tempfile

import numpy as np
import onnx
import torch
from onnx import numpy_helper

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import audio  # noqa: E402
import cnns  # noqa: E402
import detect  # noqa: E402
import extra  # noqa: E402
import recurrent  # noqa: E402
import transformers as tfm  # noqa: E402

OPSET = 17


class Spec:
    """One exported model: a constructor, named example inputs and export options."""

    def __init__(self, name, build, inputs, outputs, dynamic=None, extra_sets=(), note=""):
        self.name = name
        self.build = build  # () -> nn.Module
        self.inputs = inputs  # list of (name, () -> tensor)
        self.outputs = outputs  # output names
        self.dynamic = dynamic  # dynamic_axes for torch.onnx.export, or None
        self.extra_sets = extra_sets  # further input generators (other sequence lengths; one taking an argument gets the model)
        self.note = note


def ids(b, t, vocab, seed):
    g = torch.Generator().manual_seed(seed)
    return torch.randint(0, vocab, (b, t), generator=g, dtype=torch.long)


def image(b, c, h, w, seed):
    g = torch.Generator().manual_seed(seed)
    return torch.randn((b, c, h, w), generator=g)


def lm_specs(prefix, make, vocab, t, t2, note):
    """Full-logits, last-token and dynamic-axes variants of a decoder."""
    out = []
    for last in (False, True):
        for dyn in (False, True):
            name = prefix + ("_last" if last else "") + ("_dyn" if dyn else "")
            dynamic = None
            extra = ()
            if dyn:
                dynamic = {"idx": {0: "batch", 1: "seq"}, "logits": {0: "batch"}}
                if not last:
                    dynamic["logits"][1] = "seq"
                extra = ([("idx", (lambda: ids(2, t2, vocab, 2)))],)
            out.append(
                Spec(
                    name,
                    (lambda last=last: make(last)),
                    [("idx", (lambda: ids(1, t, vocab, 1)))],
                    ["logits"],
                    dynamic,
                    extra,
                    note + (", logits[:, -1]" if last else ", full logits") + (", dynamic batch and seq" if dyn else ""),
                )
            )
    return out


def gpt(block, vocab, layers, heads, embd):
    return lambda last: tfm.GPT(
        tfm.GPTConfig(block_size=block, vocab_size=vocab, n_layer=layers, n_head=heads, n_embd=embd, last_token=last)
    )


def llama(seq, vocab, layers, heads, kv, dim, multiple_of=64):
    return lambda last: tfm.Llama(
        tfm.LlamaConfig(
            dim=dim,
            n_layers=layers,
            n_heads=heads,
            n_kv_heads=kv,
            vocab_size=vocab,
            max_seq_len=seq,
            multiple_of=multiple_of,
            last_token=last,
        )
    )


def bert_spec(name, cfg, t, note):
    def mask():
        m = torch.ones(1, t, dtype=torch.long)
        m[:, t - t // 4 :] = 0  # padded tail, as a batch of uneven sentences has
        return m

    return Spec(
        name,
        lambda: tfm.Bert(cfg),
        [("input_ids", lambda: ids(1, t, cfg.vocab_size, 3)), ("attention_mask", mask)],
        ["last_hidden_state", "pooler_output"],
        note=note,
    )


def cnn_spec(name, build, hw=224, note=""):
    return Spec(name, build, [("input", lambda: image(1, 3, hw, hw, 4))], ["output"], note=note)


def bench_set():
    s = []
    s += lm_specs("gpt2", gpt(256, 16384, 2, 4, 256), 16384, 128, 64, "nanoGPT, 2 layers, d=256, vocab 16384, T=128")
    s += lm_specs(
        "llama", llama(256, 16384, 2, 8, 4, 256), 16384, 128, 64, "LLaMA, 2 layers, d=256, GQA 8/4, vocab 16384, T=128"
    )
    s += [
        Spec(
            "gpt2_long",
            lambda: gpt(1024, 4096, 2, 4, 128)(False),
            [("idx", lambda: ids(1, 1024, 4096, 5))],
            ["logits"],
            note="nanoGPT, long context T=1024, d=128, vocab 4096",
        ),
        bert_spec("bert", tfm.BertConfig(), 128, "BERT encoder, 4 layers, d=256, T=128, padded mask"),
        cnn_spec("vit_b_16", cnns.vit_b_16, note="torchvision ViT-B/16"),
    ]
    for name, build in cnns.TORCHVISION:
        s.append(cnn_spec(name, build, note="torchvision " + name))
    return s


def tiny_set():
    s = []
    s += lm_specs("gpt2_tiny", gpt(16, 96, 2, 2, 32), 96, 8, 5, "nanoGPT, 2 layers, d=32, vocab 96, T=8")
    s += lm_specs(
        "llama_tiny", llama(16, 96, 2, 4, 2, 32, multiple_of=16), 96, 8, 5, "LLaMA, 2 layers, d=32, GQA 4/2, T=8"
    )
    s += [
        bert_spec(
            "bert_tiny",
            tfm.BertConfig(
                vocab_size=64,
                hidden_size=32,
                num_hidden_layers=2,
                num_attention_heads=2,
                intermediate_size=64,
                max_position_embeddings=32,
            ),
            8,
            "BERT encoder, 2 layers, d=32, T=8",
        ),
        cnn_spec("cnn_tiny", cnns.tiny_cnn, hw=32, note="every conv idiom: stem, BN, strides, groups, dilation, SE, pools"),
    ]
    return s


def randn(shape, seed):
    g = torch.Generator().manual_seed(seed)
    return torch.randn(shape, generator=g)


def padded_ids(t, vocab, pad, seed):
    """Token ids of one sentence whose last quarter is padding (pad is not drawn elsewhere)."""
    x = ids(1, t, vocab - 1, seed) + 1
    x[:, t - t // 4 :] = pad
    return x


def extra_set():
    """Architectures and exporter idioms outside the benchmark set (models/extra.py)."""
    s = []
    for name, build, shape in extra.TORCHVISION:
        s.append(Spec(name, build, [("input", lambda shape=shape: randn(shape, 4))], ["output"], note="torchvision " + name))
    s += [
        Spec(
            "raft_small",
            extra.raft_small,
            [("image1", lambda: randn((1, 3, 128, 128), 5)), ("image2", lambda: randn((1, 3, 128, 128), 6))],
            ["flow"],
            note="torchvision RAFT small (grid_sample, correlation volume), 12 updates, 128x128",
        ),
        Spec(
            "transformer_encoder",
            lambda: extra.TextEncoder(),
            [("ids", lambda: padded_ids(32, 1000, 0, 7))],
            ["logits"],
            note="nn.TransformerEncoder, batch_first, key_padding_mask from ids == pad, 2 layers, d=128, T=32",
        ),
        Spec(
            "t5_encoder",
            lambda: extra.T5Encoder(),
            [
                ("input_ids", lambda: ids(1, 32, 512, 8)),
                ("attention_mask", lambda: (padded_ids(32, 2, 0, 9) != 0).to(torch.long)),
            ],
            ["last_hidden_state"],
            note="T5 encoder, relative position bias buckets, RMS norm, 2 layers, d=128, T=32",
        ),
        Spec(
            "transformer_encoder_dyn",
            lambda: extra.TextEncoder(),
            [("ids", lambda: padded_ids(32, 1000, 0, 7))],
            ["logits"],
            {"ids": {0: "batch", 1: "seq"}, "logits": {0: "batch"}},
            ([("ids", lambda: torch.cat([padded_ids(20, 1000, 0, 11), ids(1, 20, 999, 12) + 1]))],),
            note="transformer_encoder with dynamic batch and sequence (T=32, then 2x20)",
        ),
        Spec(
            "t5_encoder_dyn",
            lambda: extra.T5Encoder(),
            [
                ("input_ids", lambda: ids(1, 32, 512, 8)),
                ("attention_mask", lambda: (padded_ids(32, 2, 0, 9) != 0).to(torch.long)),
            ],
            ["last_hidden_state"],
            {"input_ids": {0: "batch", 1: "seq"}, "attention_mask": {0: "batch", 1: "seq"}, "last_hidden_state": {0: "batch", 1: "seq"}},
            (
                [
                    ("input_ids", lambda: ids(2, 20, 512, 13)),
                    ("attention_mask", lambda: torch.cat([(padded_ids(20, 2, 0, 14) != 0).to(torch.long), torch.ones(1, 20, dtype=torch.long)])),
                ],
            ),
            note="t5_encoder with dynamic batch and sequence (T=32, then 2x20)",
        ),
        Spec(
            "whisper_encoder",
            lambda: extra.WhisperEncoder(),
            [("mel", lambda: randn((1, 80, 200), 10))],
            ["last_hidden_state"],
            note="Whisper audio encoder: conv1d front end, sinusoids, 2 blocks, d=128, 200 mel frames",
        ),
    ]
    return s


def rand_image(seed):
    return torch.rand((1, 3, 320, 320), generator=torch.Generator().manual_seed(seed))


# the RoI detectors keep their limit (detections_per_img) on the random image of
# test_data_set_0; sets 1 and 2 are the other regimes
REGIMES_NOTE = "test_data_set_1 keeps no box, test_data_set_2 some (detect.regime_image)"


def regime_sets(some=True):
    """Data sets 1 and 2 of a detector whose set 0 (rand_image(1)) keeps boxes: an image that
    keeps none and (with some) one that keeps some but fewer than the limit
    (detect.regime_image)."""
    sets = [[("images", lambda model: detect.regime_image(model, "none"))]]
    if some:
        sets.append([("images", lambda model: detect.regime_image(model, "some", base=rand_image(1)))])
    return tuple(sets)


def detect_set():
    """torchvision detectors with random weights (models/detect.py): one image, the first
    image's boxes, scores and labels; their counts are decided by the data."""
    return [
        Spec(
            "ssdlite320",
            detect.ssdlite320,
            [("images", lambda: rand_image(1))],
            ["boxes", "scores", "labels"],
            # a random image, and one found by gradient ascent that keeps the 300-box bound
            # (a gray image keeps none: the test tries flat images itself)
            extra_sets=([("images", lambda: torch.rand((1, 3, 320, 320), generator=torch.Generator().manual_seed(2)))],
                        [("images", lambda model: detect.bound_image(model))]),
            note="ssdlite320_mobilenet_v3_large, calibrated random weights, class logits spread (std 1), score threshold 0.2, 91 classes; test_data_set_2 keeps 300 boxes (detect.bound_image)",
        ),
        Spec(
            "fasterrcnn_mobilenet320",
            detect.fasterrcnn_mobilenet320,
            [("images", lambda: rand_image(1))],
            ["boxes", "scores", "labels"],
            extra_sets=regime_sets(),
            note="fasterrcnn_mobilenet_v3_large_320_fpn, calibrated random weights, SE gates std 2, box deltas std 0.1, class scores spread (std 1.5); " + REGIMES_NOTE,
        ),
        Spec(
            "retinanet",
            detect.retinanet,
            [("images", lambda: rand_image(1))],
            ["boxes", "scores", "labels"],
            extra_sets=regime_sets(),
            note="retinanet_resnet50_fpn, calibrated random weights, class logits spread (std 1), 320×320; " + REGIMES_NOTE,
        ),
        Spec(
            "maskrcnn",
            detect.maskrcnn,
            [("images", lambda: rand_image(1))],
            ["boxes", "scores", "labels", "masks"],
            # no stored image with some boxes: the bisection takes a dozen Mask R-CNN runs in
            # torch (the opt-in test's own search finds one with onnxruntime)
            extra_sets=regime_sets(some=False),
            note="maskrcnn_resnet50_fpn at 320×320 (min_size = max_size = 320), calibrated random weights, class scores spread (std 1.5); test_data_set_1 keeps no box (detect.regime_image)",
        ),
    ]


def tiny_detect_set():
    """The committed detector (testdata/detect): models/detect.py's tiny SSD on a random image
    (some boxes), another (the 40-box limit reached) and a flat grey one (no box passes)."""
    img = lambda seed: (lambda: torch.rand((1, 3, 64, 64), generator=torch.Generator().manual_seed(seed)))
    return [
        Spec(
            "tiny_ssd",
            lambda: detect.tiny_ssd(0.45),
            [("images", img(1))],
            ["boxes", "scores", "labels"],
            extra_sets=([("images", img(5))], [("images", lambda: torch.full((1, 3, 64, 64), 0.5))]),
            note="torchvision SSD postprocessing around a tiny backbone, 6 classes, 64×64",
        ),
    ]


def recurrent_set():
    """Recurrent layers as users write them (models/recurrent.py)."""
    return [
        Spec(
            "lstm_lm",
            lambda: recurrent.LSTMLM(),
            [("ids", lambda: ids(1, 64, 4096, 21))],
            ["logits"],
            note="nn.LSTM language model, 2 layers, d=256, vocab 4096, T=64, logits per step",
        ),
        Spec(
            "lstm_lm_last",
            lambda: recurrent.LSTMLM(last_only=True),
            [("ids", lambda: ids(1, 64, 4096, 21))],
            ["logits"],
            note="lstm_lm with the logits of the last step only",
        ),
        Spec(
            "gru_tagger",
            lambda: recurrent.GRUTagger(),
            [("ids", lambda: ids(1, 64, 8192, 22))],
            ["tags"],
            note="bidirectional nn.GRU tagger, 2 layers, hidden 192, T=64",
        ),
        Spec(
            "rnn_relu",
            lambda: recurrent.ReLURNN(),
            [("frames", lambda: randn((1, 100, 40), 23))],
            ["scores"],
            note="nn.RNN with ReLU, 2 layers, hidden 256, 100 frames of 40 features, head on the last step",
        ),
    ]


def audio_set():
    """torchaudio's models and a hand-written 1-D conv separator (models/audio.py)."""
    wave = {"waveform": {2: "samples"}}
    return [
        Spec(
            "wav2letter",
            audio.wav2letter,
            [("waveform", lambda: randn((1, 1, 8000), 31))],
            ["logits"],
            note="torchaudio Wav2Letter on the waveform (250 taps stride 160, 7x 7 taps, 32 taps, 1x1 to 2000), 0.5 s",
        ),
        Spec(
            "wav2letter_dyn",
            audio.wav2letter,
            [("waveform", lambda: randn((1, 1, 8000), 31))],
            ["logits"],
            dict(wave, logits={2: "frames"}),
            ([("waveform", lambda: randn((1, 1, 12000), 32))],),
            note="wav2letter with a dynamic number of samples (0.5 s, then 0.75 s)",
        ),
        Spec(
            "conv_tasnet",
            audio.conv_tasnet,
            [("waveform", lambda: randn((1, 1, 8000), 33))],
            ["sources"],
            note="torchaudio ConvTasNet, small: 128 features, 2 stacks of 4 dilated depthwise blocks (PReLU, GroupNorm), ConvTranspose1d decoder, 0.5 s",
        ),
        Spec(
            "wav2vec2_tiny",
            audio.wav2vec2_tiny,
            [("waveform", lambda: randn((1, 8000), 34))],
            ["emissions"],
            note="torchaudio wav2vec2 with the base feature extractor (7 conv layers of 512, GroupNorm), positional conv 128 taps in 16 groups, 2 layers d=256, 0.5 s",
        ),
        Spec(
            "wav2vec2_tiny_dyn",
            audio.wav2vec2_tiny,
            [("waveform", lambda: randn((1, 8000), 34))],
            ["emissions"],
            {"waveform": {1: "samples"}, "emissions": {1: "frames"}},
            ([("waveform", lambda: randn((1, 6400), 35))],),
            note="wav2vec2_tiny with a dynamic number of samples (0.5 s, then 0.4 s)",
        ),
        Spec(
            "deepspeech",
            audio.deepspeech,
            [("features", lambda: randn((1, 1, 100, 80), 36))],
            ["logits"],
            note="torchaudio DeepSpeech: 3 linear layers, bidirectional ReLU nn.RNN, hidden 256, 100 frames of 80 features",
        ),
        Spec(
            "conformer",
            audio.conformer,
            [("features", lambda: randn((1, 100, 80), 37)), ("lengths", lambda: torch.tensor([100]))],
            ["output"],
            note="torchaudio Conformer, 2 layers, d=80, 4 heads, depthwise conv1d of 31 taps, 100 frames",
        ),
        Spec(
            "specunet",
            lambda: audio.SpecUNet(),
            [("spectrogram", lambda: randn((1, 2, 256, 128), 38))],
            ["masked"],
            note="hand-written spectrogram U-Net: Conv2d 5x5 stride 2 encoders, ConvTranspose2d 5x5 stride 2 decoders, skips, 256 bins x 128 frames",
        ),
        Spec(
            "sepnet",
            lambda: audio.SepNet(),
            [("waveform", lambda: randn((1, 1, 16000), 40))],
            ["waveform_out"],
            note="hand-written separator: Conv1d 16 taps stride 8, Conv1d stride 4, 6 TCN blocks (PReLU, GroupNorm(8), dilated depthwise), ConvTranspose1d stride 4 and 8, 1 s",
        ),
        # no sepnet_dyn: GroupNorm's reshape of a symbolic length into [N, G, Cg·T] is not
        # quasi-affine (a division by the symbolic extent), so graphc cannot import it
    ]


def export(spec, out, opset, sets_only=False):
    """Exports spec into OUT/<name>; with sets_only, writes only its test data sets, after
    checking that the model exports to the bytes of the OUT/<name>/model.onnx they are for."""
    torch.manual_seed(0)
    model = spec.build().eval()
    d = os.path.join(out, spec.name)
    os.makedirs(d, exist_ok=True)
    path = os.path.join(d, "model.onnx")
    stored = path
    if sets_only:
        tmp = tempfile.mkdtemp(prefix="export-")
        path = os.path.join(tmp, "model.onnx")
    sets = [spec.inputs] + list(spec.extra_sets)
    args = tuple(gen() for _, gen in spec.inputs)
    # with gradients on: under no_grad, nn.MultiheadAttention (ViT) takes a fused fast path
    # that torch.onnx cannot export
    torch.onnx.export(
        model,
        args,
        path,
        input_names=[n for n, _ in spec.inputs],
        output_names=spec.outputs,
        dynamic_axes=spec.dynamic,
        opset_version=opset,
        do_constant_folding=True,
    )
    onnx.checker.check_model(path)
    if sets_only:
        same = filecmp.cmp(path, stored, shallow=False)
        shutil.rmtree(tmp)
        if not same:
            raise RuntimeError("%s exports to other bytes than %s: the sets would not be its own" % (spec.name, stored))
    for n, inputs in enumerate(sets):
        sd = os.path.join(d, "test_data_set_%d" % n)
        os.makedirs(sd, exist_ok=True)
        # a generator with a parameter is given the model (an image searched for on it)
        xs = tuple(gen(model) if gen.__code__.co_argcount else gen() for _, gen in inputs)
        with torch.no_grad():
            ys = model(*xs)
        if isinstance(ys, torch.Tensor):
            ys = (ys,)
        elif isinstance(ys, dict):
            ys = tuple(ys.values())
        for k, x in enumerate(xs):
            t = numpy_helper.from_array(x.numpy(), inputs[k][0])
            with open(os.path.join(sd, "input_%d.pb" % k), "wb") as f:
                f.write(t.SerializeToString())
        for k, y in enumerate(ys):
            y = y.numpy()
            if y.dtype.kind == "f":  # integer outputs (a detector's labels) keep their type
                y = y.astype(np.float32)
            t = numpy_helper.from_array(y, spec.outputs[k])
            with open(os.path.join(sd, "output_%d.pb" % k), "wb") as f:
                f.write(t.SerializeToString())
    if sets_only:  # meta.json stays: it may hold settings added by hand (graphc-bench's quant_step)
        return os.path.getsize(stored)
    meta = {"note": spec.note, "opset": opset, "torch": torch.__version__, "dynamic": spec.dynamic is not None}
    with open(os.path.join(d, "meta.json"), "w") as f:
        json.dump(meta, f, indent=1, sort_keys=True)
    return os.path.getsize(path)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("names", nargs="*", help="models to export (default: the whole set)")
    ap.add_argument("--set", choices=["bench", "tiny", "extra", "recurrent", "audio", "detect", "tiny-detect"], default="bench")
    ap.add_argument(
        "--out",
        help="where to write (default: $GRAPHC_MODELS or ~/.cache/graphc-models; for --set extra "
        "$GRAPHC_MODELS_EXTRA or ~/.cache/graphc-models-extra, for --set recurrent "
        "$GRAPHC_MODELS_RECURRENT or ~/.cache/graphc-models-recurrent, for --set audio "
        "$GRAPHC_MODELS_AUDIO or ~/.cache/graphc-models-audio)",
    )
    ap.add_argument("--opset", type=int, default=OPSET)
    ap.add_argument("--list", action="store_true")
    ap.add_argument("--force", action="store_true", help="export even when OUT/<name>/model.onnx exists")
    ap.add_argument("--sets-only", action="store_true",
                    help="rewrite only the test data sets of models exported in OUT (checked to export to the same bytes); "
                    "models/ort_refs.py then replaces their outputs by onnxruntime's")
    a = ap.parse_args()
    specs = {"bench": bench_set, "tiny": tiny_set, "extra": extra_set, "recurrent": recurrent_set, "audio": audio_set, "detect": detect_set, "tiny-detect": tiny_detect_set}[a.set]()
    if a.out is None:
        if a.set == "extra":
            a.out = os.environ.get("GRAPHC_MODELS_EXTRA", os.path.expanduser("~/.cache/graphc-models-extra"))
        elif a.set == "detect":
            a.out = os.environ.get("GRAPHC_MODELS_DETECT", os.path.expanduser("~/.cache/graphc-models-detect"))
        elif a.set == "recurrent":
            a.out = os.environ.get("GRAPHC_MODELS_RECURRENT", os.path.expanduser("~/.cache/graphc-models-recurrent"))
        elif a.set == "audio":
            a.out = os.environ.get("GRAPHC_MODELS_AUDIO", os.path.expanduser("~/.cache/graphc-models-audio"))
        else:
            a.out = os.environ.get("GRAPHC_MODELS", os.path.expanduser("~/.cache/graphc-models"))
    if a.list:
        for s in specs:
            print("%-24s %s" % (s.name, s.note))
        return
    known = {s.name for s in specs}
    for n in a.names:
        if n not in known:
            sys.exit("export.py: unknown model %r (--list shows the set)" % n)
    torch.set_num_threads(1)
    failed = []
    for s in specs:
        if a.names and s.name not in a.names:
            continue
        exists = os.path.exists(os.path.join(a.out, s.name, "model.onnx"))
        if a.sets_only and not exists:
            failed.append(s.name)
            print("%-24s not exported in %s (--sets-only)" % (s.name, a.out), flush=True)
            continue
        if not a.force and not a.sets_only and exists:
            print("%-24s cached" % s.name)
            continue
        try:
            size = export(s, a.out, a.opset, a.sets_only)
        except Exception as e:  # one model torch cannot export does not stop the others
            failed.append(s.name)
            print("%-24s export failed: %s: %s" % (s.name, type(e).__name__, str(e).splitlines()[0]), flush=True)
            continue
        print("%-24s %8.1f MB  %s" % (s.name, size / 1e6, s.note), flush=True)
    if failed:
        sys.exit("export.py: not exported: " + ", ".join(failed))


if __name__ == "__main__":
    main()
