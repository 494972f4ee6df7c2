"""Architectures and exporter idioms outside the benchmark set, for checking graphc on models it
was not tuned on (`models/export.py --set extra`).

Torchvision models are built as public code builds them (random weights, no download); the
transformer idioms are written the way their public sources write them, a few layers each:

- TextEncoder: nn.TransformerEncoder of batch_first nn.TransformerEncoderLayers (so
  nn.MultiheadAttention), with a key_padding_mask computed from the token ids (ids == pad), as
  text classifiers write it, and a masked mean pooling.
- T5Encoder: Hugging Face's T5Stack encoder: T5LayerNorm (RMS, no mean), attention without
  scaling plus a relative position bias (log-spaced buckets of j - i looked up in an embedding,
  computed in forward from arange), a ReLU feed-forward.
- WhisperEncoder: OpenAI Whisper's AudioEncoder: two Conv1d + GELU (the second of stride 2)
  over a log-mel spectrogram, a sinusoidal position buffer, pre-norm residual attention blocks
  with q and k each scaled by d_head ** -0.25, key projection without bias.
"""

import math

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
import torchvision.models as tvm
import torchvision.models.optical_flow as tvo
import torchvision.models.segmentation as tvs
import torchvision.models.video as tvv

from cnns import _OutOnly


class _Last(nn.Module):
    """Returns the last entry of a model's list of outputs (RAFT's final flow estimate)."""

    def __init__(self, m, **kwargs):
        super().__init__()
        self.m = m
        self.kwargs = kwargs

    def forward(self, *xs):
        return self.m(*xs, **self.kwargs)[-1]


def _tv(fn, **kwargs):
    return lambda: fn(weights=None, **kwargs)


def _seg(fn):
    return lambda: _OutOnly(fn(weights=None, weights_backbone=None))


# (name, constructor, input shape)
TORCHVISION = [
    ("vgg11_bn", _tv(tvm.vgg11_bn), (1, 3, 224, 224)),
    ("alexnet", _tv(tvm.alexnet), (1, 3, 224, 224)),
    ("inception_v3", _tv(tvm.inception_v3, aux_logits=False, init_weights=True), (1, 3, 299, 299)),
    ("mobilenet_v3_small", _tv(tvm.mobilenet_v3_small), (1, 3, 224, 224)),
    ("efficientnet_v2_s", _tv(tvm.efficientnet_v2_s), (1, 3, 224, 224)),
    ("wide_resnet50_2", _tv(tvm.wide_resnet50_2), (1, 3, 224, 224)),
    ("regnet_x_400mf", _tv(tvm.regnet_x_400mf), (1, 3, 224, 224)),
    ("swin_t", _tv(tvm.swin_t), (1, 3, 224, 224)),
    ("fcn_resnet50", _seg(tvs.fcn_resnet50), (1, 3, 224, 224)),
    ("lraspp_mobilenet_v3_large", _seg(tvs.lraspp_mobilenet_v3_large), (1, 3, 224, 224)),
    ("r3d_18", _tv(tvv.r3d_18), (1, 3, 8, 112, 112)),
    ("mc3_18", _tv(tvv.mc3_18), (1, 3, 8, 112, 112)),
    ("r2plus1d_18", _tv(tvv.r2plus1d_18), (1, 3, 8, 112, 112)),
]


def raft_small():
    # the final flow after torchvision's default 12 refinement iterations
    return _Last(tvo.raft_small(weights=None))


# ---------------------------------------------------------------------------------------------
# nn.TransformerEncoder text classifier


class TextEncoder(nn.Module):
    def __init__(self, vocab=1000, d_model=128, nhead=4, dim_ff=256, layers=2, classes=8, pad_id=0, max_len=64):
        super().__init__()
        self.pad_id = pad_id
        self.embed = nn.Embedding(vocab, d_model, padding_idx=pad_id)
        self.pos = nn.Parameter(torch.randn(1, max_len, d_model) * 0.02)
        layer = nn.TransformerEncoderLayer(d_model, nhead, dim_ff, dropout=0.1, batch_first=True)
        # without nested tensors, padded positions are computed (not zeroed) both in PyTorch's
        # inference fast path and in the exported graph
        self.encoder = nn.TransformerEncoder(layer, layers, enable_nested_tensor=False)
        self.head = nn.Linear(d_model, classes)

    def forward(self, ids):
        mask = ids == self.pad_id
        x = self.embed(ids) * math.sqrt(self.embed.embedding_dim) + self.pos[:, : ids.size(1)]
        x = self.encoder(x, src_key_padding_mask=mask)
        keep = (~mask).unsqueeze(-1).to(x.dtype)
        pooled = (x * keep).sum(1) / keep.sum(1).clamp(min=1.0)
        return self.head(pooled)


# ---------------------------------------------------------------------------------------------
# T5 encoder (Hugging Face modeling_t5, encoder side)


class T5LayerNorm(nn.Module):
    def __init__(self, d, eps=1e-6):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(d))
        self.variance_epsilon = eps

    def forward(self, hidden_states):
        variance = hidden_states.to(torch.float32).pow(2).mean(-1, keepdim=True)
        hidden_states = hidden_states * torch.rsqrt(variance + self.variance_epsilon)
        return self.weight * hidden_states


class T5Attention(nn.Module):
    def __init__(self, d_model, n_heads, d_kv, has_relative_attention_bias, num_buckets=32, max_distance=128):
        super().__init__()
        self.n_heads, self.key_value_proj_dim = n_heads, d_kv
        self.inner_dim = n_heads * d_kv
        self.q = nn.Linear(d_model, self.inner_dim, bias=False)
        self.k = nn.Linear(d_model, self.inner_dim, bias=False)
        self.v = nn.Linear(d_model, self.inner_dim, bias=False)
        self.o = nn.Linear(self.inner_dim, d_model, bias=False)
        self.relative_attention_num_buckets = num_buckets
        self.relative_attention_max_distance = max_distance
        self.has_relative_attention_bias = has_relative_attention_bias
        if has_relative_attention_bias:
            self.relative_attention_bias = nn.Embedding(num_buckets, n_heads)

    @staticmethod
    def _relative_position_bucket(relative_position, bidirectional=True, num_buckets=32, max_distance=128):
        relative_buckets = 0
        if bidirectional:
            num_buckets //= 2
            relative_buckets += (relative_position > 0).to(torch.long) * num_buckets
            relative_position = torch.abs(relative_position)
        else:
            relative_position = -torch.min(relative_position, torch.zeros_like(relative_position))
        max_exact = num_buckets // 2
        is_small = relative_position < max_exact
        relative_position_if_large = max_exact + (
            torch.log(relative_position.float() / max_exact)
            / math.log(max_distance / max_exact)
            * (num_buckets - max_exact)
        ).to(torch.long)
        relative_position_if_large = torch.min(
            relative_position_if_large, torch.full_like(relative_position_if_large, num_buckets - 1)
        )
        relative_buckets += torch.where(is_small, relative_position, relative_position_if_large)
        return relative_buckets

    def compute_bias(self, query_length, key_length, device=None):
        context_position = torch.arange(query_length, dtype=torch.long, device=device)[:, None]
        memory_position = torch.arange(key_length, dtype=torch.long, device=device)[None, :]
        relative_position = memory_position - context_position
        relative_position_bucket = self._relative_position_bucket(
            relative_position,
            bidirectional=True,
            num_buckets=self.relative_attention_num_buckets,
            max_distance=self.relative_attention_max_distance,
        )
        values = self.relative_attention_bias(relative_position_bucket)  # (q, k, heads)
        return values.permute([2, 0, 1]).unsqueeze(0)  # (1, heads, q, k)

    def forward(self, hidden_states, mask, position_bias=None):
        batch_size, seq_length = hidden_states.shape[:2]

        def shape(states):
            return states.view(batch_size, -1, self.n_heads, self.key_value_proj_dim).transpose(1, 2)

        def unshape(states):
            return states.transpose(1, 2).contiguous().view(batch_size, -1, self.inner_dim)

        query_states = shape(self.q(hidden_states))
        key_states = shape(self.k(hidden_states))
        value_states = shape(self.v(hidden_states))
        scores = torch.matmul(query_states, key_states.transpose(3, 2))
        if position_bias is None:
            position_bias = self.compute_bias(seq_length, seq_length, device=scores.device)
            position_bias = position_bias + mask
        scores += position_bias
        attn_weights = nn.functional.softmax(scores.float(), dim=-1).type_as(scores)
        attn_output = unshape(torch.matmul(attn_weights, value_states))
        return self.o(attn_output), position_bias


class T5Block(nn.Module):
    def __init__(self, d_model, n_heads, d_kv, d_ff, has_relative_attention_bias):
        super().__init__()
        self.attn_norm = T5LayerNorm(d_model)
        self.SelfAttention = T5Attention(d_model, n_heads, d_kv, has_relative_attention_bias)
        self.ff_norm = T5LayerNorm(d_model)
        self.wi = nn.Linear(d_model, d_ff, bias=False)
        self.wo = nn.Linear(d_ff, d_model, bias=False)

    def forward(self, h, mask, position_bias):
        a, position_bias = self.SelfAttention(self.attn_norm(h), mask, position_bias)
        h = h + a
        h = h + self.wo(F.relu(self.wi(self.ff_norm(h))))
        return h, position_bias


class T5Encoder(nn.Module):
    def __init__(self, vocab=512, d_model=128, n_heads=4, d_kv=32, d_ff=256, layers=2):
        super().__init__()
        self.embed_tokens = nn.Embedding(vocab, d_model)
        self.block = nn.ModuleList(
            [T5Block(d_model, n_heads, d_kv, d_ff, has_relative_attention_bias=(i == 0)) for i in range(layers)]
        )
        self.final_layer_norm = T5LayerNorm(d_model)

    def forward(self, input_ids, attention_mask):
        extended = attention_mask[:, None, None, :].to(torch.float32)
        extended = (1.0 - extended) * torch.finfo(torch.float32).min
        h = self.embed_tokens(input_ids)
        position_bias = None
        for b in self.block:
            h, position_bias = b(h, extended, position_bias)
        return self.final_layer_norm(h)


# ---------------------------------------------------------------------------------------------
# Whisper audio encoder (openai/whisper model.py)


def sinusoids(length, channels, max_timescale=10000):
    assert channels % 2 == 0
    log_timescale_increment = np.log(max_timescale) / (channels // 2 - 1)
    inv_timescales = torch.exp(-log_timescale_increment * torch.arange(channels // 2))
    scaled_time = torch.arange(length)[:, np.newaxis] * inv_timescales[np.newaxis, :]
    return torch.cat([torch.sin(scaled_time), torch.cos(scaled_time)], dim=1)


class WhisperMHA(nn.Module):
    def __init__(self, n_state, n_head):
        super().__init__()
        self.n_head = n_head
        self.query = nn.Linear(n_state, n_state)
        self.key = nn.Linear(n_state, n_state, bias=False)
        self.value = nn.Linear(n_state, n_state)
        self.out = nn.Linear(n_state, n_state)

    def forward(self, x):
        q, k, v = self.query(x), self.key(x), self.value(x)
        n_batch, n_ctx, n_state = q.shape
        scale = (n_state // self.n_head) ** -0.25
        q = q.view(*q.shape[:2], self.n_head, -1).permute(0, 2, 1, 3) * scale
        k = k.view(*k.shape[:2], self.n_head, -1).permute(0, 2, 3, 1) * scale
        v = v.view(*v.shape[:2], self.n_head, -1).permute(0, 2, 1, 3)
        qk = (q @ k).float()
        w = F.softmax(qk, dim=-1).to(q.dtype)
        return self.out((w @ v).permute(0, 2, 1, 3).flatten(start_dim=2))


class WhisperBlock(nn.Module):
    def __init__(self, n_state, n_head):
        super().__init__()
        self.attn = WhisperMHA(n_state, n_head)
        self.attn_ln = nn.LayerNorm(n_state)
        n_mlp = n_state * 4
        self.mlp = nn.Sequential(nn.Linear(n_state, n_mlp), nn.GELU(), nn.Linear(n_mlp, n_state))
        self.mlp_ln = nn.LayerNorm(n_state)

    def forward(self, x):
        x = x + self.attn(self.attn_ln(x))
        return x + self.mlp(self.mlp_ln(x))


class WhisperEncoder(nn.Module):
    def __init__(self, n_mels=80, n_ctx=100, n_state=128, n_head=4, n_layer=2):
        super().__init__()
        self.conv1 = nn.Conv1d(n_mels, n_state, kernel_size=3, padding=1)
        self.conv2 = nn.Conv1d(n_state, n_state, kernel_size=3, stride=2, padding=1)
        self.register_buffer("positional_embedding", sinusoids(n_ctx, n_state))
        self.blocks = nn.ModuleList([WhisperBlock(n_state, n_head) for _ in range(n_layer)])
        self.ln_post = nn.LayerNorm(n_state)

    def forward(self, x):
        x = F.gelu(self.conv1(x))
        x = F.gelu(self.conv2(x))
        x = x.permute(0, 2, 1)
        x = (x + self.positional_embedding).to(x.dtype)
        for block in self.blocks:
            x = block(x)
        return self.ln_post(x)
