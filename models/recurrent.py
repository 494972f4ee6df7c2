"""Recurrent models written with nn.LSTM, nn.GRU and nn.RNN (export.py --set recurrent).

Random weights. They exercise what exporters make of recurrent layers: ONNX LSTM/GRU/RNN nodes
with several layers, both directions, a ReLU cell, and a head that reads every step or only the
last one (which needs only the last step's projection).
"""

import torch
from torch import nn


class LSTMLM(nn.Module):
    """A word-level LSTM language model: embedding, 2-layer LSTM, tied-size logits per step."""

    def __init__(self, vocab=4096, emb=256, hidden=256, layers=2, last_only=False):
        super().__init__()
        self.emb = nn.Embedding(vocab, emb)
        self.rnn = nn.LSTM(emb, hidden, num_layers=layers, batch_first=True)
        self.head = nn.Linear(hidden, vocab)
        self.last_only = last_only

    def forward(self, ids):
        y, _ = self.rnn(self.emb(ids))
        if self.last_only:
            y = y[:, -1]
        return self.head(y)


class GRUTagger(nn.Module):
    """A sequence tagger: embedding, bidirectional 2-layer GRU, per-token tag scores."""

    def __init__(self, vocab=8192, emb=128, hidden=192, layers=2, tags=24):
        super().__init__()
        self.emb = nn.Embedding(vocab, emb)
        self.rnn = nn.GRU(emb, hidden, num_layers=layers, batch_first=True, bidirectional=True)
        self.head = nn.Linear(2 * hidden, tags)

    def forward(self, ids):
        y, _ = self.rnn(self.emb(ids))
        return self.head(y)


class ReLURNN(nn.Module):
    """A sequence classifier on feature frames: 2-layer nn.RNN with ReLU, head on the last step."""

    def __init__(self, feats=40, hidden=256, layers=2, classes=10):
        super().__init__()
        self.rnn = nn.RNN(feats, hidden, num_layers=layers, nonlinearity="relu", batch_first=True)
        self.head = nn.Linear(hidden, classes)

    def forward(self, x):
        y, _ = self.rnn(x)
        return self.head(y[:, -1])
