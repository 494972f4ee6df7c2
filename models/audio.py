"""Audio models: torchaudio's models built as public code builds them (random weights, no
download), and a hand-written 1-D conv separation net (`models/export.py --set audio`).

They exercise what 1-D audio nets give a compiler: wide and strided Conv1d on raw waveforms
(Wav2Letter's 250-tap stride-160 front end, wav2vec2's 10-tap stride-5 extractor with a
GroupNorm of one channel per group), grouped positional convolutions (wav2vec2's 128 taps in 16
groups), dilated depthwise Conv1d with PReLU and GroupNorm (Conv-TasNet's TCN), ConvTranspose1d
decoders, depthwise convolutions inside attention blocks (Conformer), and recurrent layers fed by
convolutions (DeepSpeech, WaveRNN).

- SpecUNet: a hand-written spectrogram mask U-Net (as Spleeter writes it): Conv2d 5x5 stride 2
  encoders with BatchNorm and LeakyReLU, ConvTranspose2d 5x5 stride 2 decoders (output_padding
  1) with skip concatenations, a sigmoid mask times the input.
- SepNet: a hand-written Conv-TasNet/Demucs-like separator: a strided wide Conv1d encoder, a
  strided Conv1d down to a quarter of the frames, TCN blocks (1x1 Conv1d, PReLU, GroupNorm of 8
  groups, dilated depthwise Conv1d, PReLU, GroupNorm, 1x1 Conv1d, residual), a ConvTranspose1d
  back up (stride 4) and a ConvTranspose1d decoder to the waveform (stride 8, 16 taps).
"""

import torch
import torch.nn as nn
import torchaudio.models as tam


class _First(nn.Module):
    """Returns the first output of a model that returns (output, lengths)."""

    def __init__(self, m):
        super().__init__()
        self.m = m

    def forward(self, *xs):
        return self.m(*xs)[0]


def wav2letter():
    return tam.Wav2Letter(num_classes=40, input_type="waveform", num_features=1)


def conv_tasnet():
    # the paper's small configuration (fewer layers and features than conv_tasnet_base)
    return tam.ConvTasNet(
        num_sources=2,
        enc_kernel_size=16,
        enc_num_feats=128,
        msk_kernel_size=3,
        msk_num_feats=64,
        msk_num_hidden_feats=128,
        msk_num_layers=4,
        msk_num_stacks=2,
    )


def wav2vec2_tiny():
    # wav2vec2/HuBERT base's convolutional feature extractor (7 layers of 512 channels, a
    # GroupNorm on the first), its positional convolution (128 taps, 16 groups), 2 encoder
    # layers of d=256
    return _First(
        tam.wav2vec2_model(
            extractor_mode="group_norm",
            extractor_conv_layer_config=None,
            extractor_conv_bias=False,
            encoder_embed_dim=256,
            encoder_projection_dropout=0.0,
            encoder_pos_conv_kernel=128,
            encoder_pos_conv_groups=16,
            encoder_num_layers=2,
            encoder_num_heads=4,
            encoder_attention_dropout=0.0,
            encoder_ff_interm_features=1024,
            encoder_ff_interm_dropout=0.0,
            encoder_dropout=0.0,
            encoder_layer_norm_first=False,
            encoder_layer_drop=0.0,
            aux_num_out=32,
        )
    )


def deepspeech():
    return tam.DeepSpeech(n_feature=80, n_hidden=256, n_class=40)


def conformer():
    return _First(tam.Conformer(input_dim=80, num_heads=4, ffn_dim=256, num_layers=2, depthwise_conv_kernel_size=31))


# torchaudio's WaveRNN is left out: torch.onnx exports its repeat_interleave as Loops over
# sequences (SplitToSequence, ConcatFromSequence), which graphc does not import.


class TCNBlock(nn.Module):
    def __init__(self, ch, hidden, dilation, groups=8):
        super().__init__()
        self.inp = nn.Conv1d(ch, hidden, 1)
        self.act1 = nn.PReLU()
        self.norm1 = nn.GroupNorm(groups, hidden)
        self.dw = nn.Conv1d(hidden, hidden, 3, padding=dilation, dilation=dilation, groups=hidden)
        self.act2 = nn.PReLU(hidden)
        self.norm2 = nn.GroupNorm(groups, hidden)
        self.out = nn.Conv1d(hidden, ch, 1)

    def forward(self, x):
        y = self.norm1(self.act1(self.inp(x)))
        y = self.norm2(self.act2(self.dw(y)))
        return x + self.out(y)


class SepNet(nn.Module):
    def __init__(self, ch=128, hidden=256, blocks=6):
        super().__init__()
        self.enc = nn.Conv1d(1, ch, 16, stride=8, padding=4)
        self.down = nn.Conv1d(ch, ch, 8, stride=4, padding=2)
        self.tcn = nn.Sequential(*[TCNBlock(ch, hidden, 2**i) for i in range(blocks)])
        self.up = nn.ConvTranspose1d(ch, ch, 8, stride=4, padding=2)
        self.act = nn.PReLU(ch)
        self.dec = nn.ConvTranspose1d(ch, 1, 16, stride=8, padding=4)

    def forward(self, x):
        e = torch.relu(self.enc(x))
        y = self.tcn(self.down(e))
        y = self.act(self.up(y)) * e
        return self.dec(y)


class SpecUNet(nn.Module):
    def __init__(self, ch=2, widths=(16, 32, 64, 128)):
        super().__init__()
        self.enc = nn.ModuleList()
        c = ch
        for w in widths:
            self.enc.append(nn.Sequential(nn.Conv2d(c, w, 5, stride=2, padding=2), nn.BatchNorm2d(w), nn.LeakyReLU(0.2)))
            c = w
        self.dec = nn.ModuleList()
        outs = list(reversed(widths[:-1])) + [ch]
        for k, w in enumerate(outs):
            cin = c if k == 0 else 2 * c
            self.dec.append(
                nn.Sequential(nn.ConvTranspose2d(cin, w, 5, stride=2, padding=2, output_padding=1), nn.BatchNorm2d(w), nn.ReLU())
            )
            c = w
        self.mask = nn.Conv2d(ch, ch, 1)

    def forward(self, x):
        skips = []
        y = x
        for e in self.enc:
            y = e(y)
            skips.append(y)
        skips.pop()
        for k, d in enumerate(self.dec):
            if k > 0:
                y = torch.cat([y, skips.pop()], 1)
            y = d(y)
        return torch.sigmoid(self.mask(y)) * x
