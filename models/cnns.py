"""Convolutional networks: torchvision's architectures (random weights, no download) and a tiny
network with every conv idiom real nets use, for the committed test set."""

import torch
import torch.nn as nn
import torch.nn.functional as F
import torchvision.models as tvm
import torchvision.models.segmentation as tvs


def vit_b_16():
    m = tvm.vit_b_16(weights=None)
    # torchvision initialises the classifier head to zeros (fine-tuning starts from there); a
    # trained model's is not, and with zeros every layer is dead code for the output
    torch.manual_seed(1)
    nn.init.normal_(m.heads.head.weight, std=0.02)
    return m


def deeplab():
    # dilated convolutions, ASPP's global pool and bilinear upsampling
    return tvs.deeplabv3_mobilenet_v3_large(weights=None, weights_backbone=None, aux_loss=False)


class _OutOnly(nn.Module):
    """Returns the "out" entry of a segmentation model's dict."""

    def __init__(self, m):
        super().__init__()
        self.m = m

    def forward(self, x):
        return self.m(x)["out"]


def _tv(fn):
    return lambda: fn(weights=None)


TORCHVISION = [
    ("resnet18", _tv(tvm.resnet18)),
    ("resnet50", _tv(tvm.resnet50)),
    ("mobilenet_v2", _tv(tvm.mobilenet_v2)),
    ("mobilenet_v3_large", _tv(tvm.mobilenet_v3_large)),
    ("efficientnet_b0", _tv(tvm.efficientnet_b0)),
    ("squeezenet1_1", _tv(tvm.squeezenet1_1)),
    ("shufflenet_v2_x1_0", _tv(tvm.shufflenet_v2_x1_0)),
    ("googlenet", lambda: tvm.googlenet(weights=None, aux_logits=False, init_weights=True)),
    ("densenet121", _tv(tvm.densenet121)),
    ("regnet_y_400mf", _tv(tvm.regnet_y_400mf)),
    ("mnasnet1_0", _tv(tvm.mnasnet1_0)),
    ("resnext50_32x4d", _tv(tvm.resnext50_32x4d)),
    ("convnext_tiny", _tv(tvm.convnext_tiny)),
    ("deeplabv3_mobilenet", lambda: _OutOnly(deeplab())),
]


class SqueezeExcitation(nn.Module):
    def __init__(self, c, squeeze):
        super().__init__()
        self.fc1 = nn.Conv2d(c, squeeze, 1)
        self.fc2 = nn.Conv2d(squeeze, c, 1)

    def forward(self, x):
        s = F.adaptive_avg_pool2d(x, 1)
        s = F.relu(self.fc1(s))
        s = torch.sigmoid(self.fc2(s))
        return x * s


class TinyCNN(nn.Module):
    """A 7x7 stride-2 stem with BatchNorm, max pooling, a residual 3x3 block, a strided
    downsample, an inverted residual with a depthwise conv, SiLU, squeeze-excitation and
    HardSwish, a grouped conv, a dilated conv, global pooling and a classifier."""

    def __init__(self, classes=10):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(3, 16, 7, 2, 3, bias=False), nn.BatchNorm2d(16), nn.ReLU(inplace=True))
        self.pool = nn.MaxPool2d(3, 2, 1)
        self.c1 = nn.Conv2d(16, 16, 3, 1, 1, bias=False)
        self.b1 = nn.BatchNorm2d(16)
        self.c2 = nn.Conv2d(16, 16, 3, 1, 1, bias=False)
        self.b2 = nn.BatchNorm2d(16)
        self.down = nn.Sequential(nn.Conv2d(16, 32, 3, 2, 1, bias=False), nn.BatchNorm2d(32), nn.ReLU6())
        self.expand = nn.Sequential(nn.Conv2d(32, 64, 1, bias=False), nn.BatchNorm2d(64), nn.SiLU())
        self.dw = nn.Sequential(nn.Conv2d(64, 64, 3, 1, 1, groups=64, bias=False), nn.BatchNorm2d(64), nn.Hardswish())
        self.se = SqueezeExcitation(64, 8)
        self.project = nn.Sequential(nn.Conv2d(64, 32, 1, bias=False), nn.BatchNorm2d(32))
        self.grouped = nn.Sequential(nn.Conv2d(32, 32, 3, 1, 1, groups=4), nn.LeakyReLU(0.1))
        self.dilated = nn.Sequential(nn.Conv2d(32, 32, 3, 1, 2, dilation=2), nn.Hardsigmoid())
        self.avg = nn.AvgPool2d(2, 2)
        self.fc = nn.Linear(32, classes)

    def forward(self, x):
        x = self.pool(self.stem(x))
        y = F.relu(self.b1(self.c1(x)))
        x = F.relu(x + self.b2(self.c2(y)))
        x = self.down(x)
        y = self.project(self.se(self.dw(self.expand(x))))
        x = x + y
        x = self.dilated(self.grouped(x)) + x
        x = self.avg(x)
        x = torch.flatten(F.adaptive_avg_pool2d(x, 1), 1)
        return self.fc(x)


def tiny_cnn():
    m = TinyCNN()
    # random BatchNorm statistics, as a trained network has
    g = torch.Generator().manual_seed(7)
    for mod in m.modules():
        if isinstance(mod, nn.BatchNorm2d):
            mod.running_mean.copy_(torch.randn(mod.num_features, generator=g) * 0.1)
            mod.running_var.copy_(torch.rand(mod.num_features, generator=g) + 0.5)
            mod.weight.data.copy_(torch.rand(mod.num_features, generator=g) + 0.5)
            mod.bias.data.copy_(torch.randn(mod.num_features, generator=g) * 0.1)
    return m
