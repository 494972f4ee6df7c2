"""torchvision detectors with random weights for issue 35 (export.py --set detect).

Each detector is wrapped so that it takes one image tensor [1, 3, H, W] and returns the first
image's (boxes, scores, labels). With random weights a classification head gives every class
about the same score, so the heads' last layers are scaled (HeadScale) to spread the scores:
some boxes pass the score threshold and some do not.
"""

import torch
import torchvision


class Detector(torch.nn.Module):
    """images [1, 3, H, W] → boxes [n, 4], scores [n], labels [n] of the first image."""

    def __init__(self, model):
        super().__init__()
        self.model = model

    def forward(self, x):
        out = self.model([x[0]])[0]
        return out["boxes"], out["scores"], out["labels"]


def calibrate(model, run, hw):
    """Sets every BatchNorm's running statistics from random images: with torchvision's
    initial statistics (mean 0, variance 1) the activations of random weights vanish layer by
    layer (1e-13 at SSDlite's first head input), so every score would be the same."""
    for m in model.modules():
        if isinstance(m, torch.nn.BatchNorm2d):
            m.momentum = None  # a cumulative average
            m.reset_running_stats()
    g = torch.Generator().manual_seed(1)
    model.train()
    with torch.no_grad():
        for _ in range(4):
            run(torch.rand((2, 3, hw, hw), generator=g))
    model.eval()


def ssdlite320(std=1.0, score_thresh=0.2):
    torch.manual_seed(0)
    m = torchvision.models.detection.ssdlite320_mobilenet_v3_large(weights=None, weights_backbone=None)
    calibrate(m, lambda x: m.head(list(m.backbone(x).values())), 320)
    # calibrated, the class logits are so large that the softmax is one-hot: some foreground
    # class of every anchor scores above 0.8 whatever the image (flat, noise, ±1000), so no
    # image leaves no box. Spread to std 1 (each level's last convolution), the scores stay
    # under 0.2 on a gray image (no box), reach 0.4-0.6 on noise (the 300-box limit) and the
    # threshold decides in between.
    for seq in m.head.classification_head.module_list:
        spread(Detector(m), seq[1], std)
    m.score_thresh = score_thresh
    return Detector(m)


def bound_image(det, hw=320, seed=2, margin=0.05, steps=150, lr=0.1):
    """An image [1, 3, hw, hw] on which SSD detector det (a Detector around torchvision's SSD)
    keeps as many boxes as it may (detections_per_img), found by gradient ascent from a random
    image: no simple image reaches that bound with heads spread so that a gray image keeps
    none. The image is sigmoid(z) (it stays in [0, 1]); the objective counts, smoothly, the
    (anchor, class) scores above the threshold plus margin (each a candidate box), and the
    search stops once the detector keeps its bound with the threshold raised by margin, so
    that a rounding difference between runtimes cannot change the count."""
    m = det.model

    def count(x, thresh):
        old = m.score_thresh
        m.score_thresh = thresh
        with torch.no_grad():
            n = det(x)[1].shape[0]
        m.score_thresh = old
        return n

    x = torch.rand((1, 3, hw, hw), generator=torch.Generator().manual_seed(seed))
    z = torch.logit(x.clamp(0.02, 0.98)).requires_grad_()
    opt = torch.optim.Adam([z], lr=lr)
    for it in range(steps):
        x = torch.sigmoid(z).detach()
        if it % 5 == 0 and count(x, m.score_thresh + margin) == m.detections_per_img:
            return x
        images, _ = m.transform([torch.sigmoid(z)[0]])
        logits = m.head(list(m.backbone(images.tensors).values()))["cls_logits"][0]
        fg = torch.softmax(logits, -1)[:, 1:]  # class 0 is the background
        loss = -torch.sigmoid((fg - (m.score_thresh + 2 * margin)) / margin).sum()
        opt.zero_grad()
        loss.backward()
        opt.step()
    raise RuntimeError("bound_image: no image keeps %d boxes after %d steps" % (m.detections_per_img, steps))


def postprocess(det):
    """The module holding det's final score threshold and box limit (score_thresh,
    detections_per_img): the detector itself (SSD, RetinaNet) or its RoI heads (Faster and
    Mask R-CNN)."""
    m = det.model
    return m.roi_heads if hasattr(m, "roi_heads") else m


def scores_at(det, x, thresh):
    """The scores of the boxes det keeps on image x with its score threshold set to thresh."""
    post = postprocess(det)
    old = post.score_thresh
    post.score_thresh = thresh
    try:
        with torch.no_grad():
            return det(x)[1]
    finally:
        post.score_thresh = old


def regime_image(det, regime, base=None, hw=320, rel_margin=0.1, steps=12):
    """An image [1, 3, hw, hw] on which detector det (a Detector or MaskDetector around any
    torchvision detector) keeps no box (regime "none") or some boxes but fewer than its limit
    (regime "some"), robustly, t its score threshold and m = rel_margin * t: for "none" it
    keeps no box with the threshold lowered to t - m; for "some" it keeps a box at t + m, fewer
    than its limit at t - m, and no score lies within t / 100 of t, so that a rounding
    difference between runtimes changes neither the regime nor the count.

    "none" is the first flat image (gray, black, white) that keeps no box, or else one found by
    gradient descent from gray (descend); "some" bisects the blend of that image (no box) and
    base (an image with boxes) until the conditions hold. (With random weights the scores
    crowd just above the threshold: a blend keeping 18 boxes at t - m keeps 1 at t + m.)"""
    post = postprocess(det)
    t, limit = post.score_thresh, post.detections_per_img
    m = rel_margin * t
    if regime == "none":
        for v in (0.5, 0.0, 1.0):
            x = torch.full((1, 3, hw, hw), v)
            if scores_at(det, x, t - m).shape[0] == 0:
                return x
        return descend(det, torch.full((1, 3, hw, hw), 0.5), t, m)
    if regime != "some":
        raise ValueError("regime_image: regime %r, want none or some" % regime)
    z = regime_image(det, "none", hw=hw, rel_margin=rel_margin)
    lo, hi = 0.0, 1.0
    tried = []
    for _ in range(steps):
        w = (lo + hi) / 2
        x = z + w * (base - z)
        s = scores_at(det, x, t - m)
        n_lo, n_hi, near = s.shape[0], int((s > t + m).sum()), int(((s - t).abs() < t / 100).sum())
        tried.append((w, n_lo, n_hi, near))
        if n_hi > 0 and n_lo < limit and near == 0:
            return x
        if n_hi == 0:
            lo = w  # too few boxes: more of base
        else:
            hi = w  # at the limit, or a score at the threshold: fewer boxes
    raise RuntimeError("regime_image: no blend keeps some boxes (w, n at t - m, n at t + m, scores near t): %s" % tried)


def candidate_scores(det, x):
    """The scores det's score threshold applies to on image x, differentiable in x: each
    (anchor or proposal, foreground class) pair's (the proposals themselves, chosen by the
    RPN, are held)."""
    m = det.model
    images, _ = m.transform([x[0]])
    features = m.backbone(images.tensors)
    if hasattr(m, "roi_heads"):
        with torch.no_grad():
            proposals, _ = m.rpn(images, features)
        h = m.roi_heads
        logits, _ = h.box_predictor(h.box_head(h.box_roi_pool(features, proposals, images.image_sizes)))
        return torch.softmax(logits, -1)[:, 1:]  # class 0 is the background
    logits = m.head(list(features.values()))["cls_logits"][0]
    if isinstance(m, torchvision.models.detection.RetinaNet):
        return torch.sigmoid(logits)
    return torch.softmax(logits, -1)[:, 1:]


def descend(det, x, t, m, steps=60, lr=0.1):
    """An image near x on which det keeps no box with its threshold lowered to t - m, found
    by gradient descent on the smooth count of candidate scores above t - 2m (the image is
    sigmoid(z): it stays in [0, 1])."""
    z = torch.logit(x.clamp(0.02, 0.98)).requires_grad_()
    opt = torch.optim.Adam([z], lr=lr)
    for it in range(steps):
        if it % 5 == 0 and scores_at(det, torch.sigmoid(z).detach(), t - m).shape[0] == 0:
            return torch.sigmoid(z).detach()
        loss = torch.sigmoid((candidate_scores(det, torch.sigmoid(z)) - (t - 2 * m)) / m).sum()
        opt.zero_grad()
        loss.backward()
        opt.step()
    raise RuntimeError("descend: the detector keeps boxes after %d steps" % steps)


def spread(model, layer, std, hw=320):
    """Scales layer (a head's last layer) so that its outputs on a random image have standard
    deviation std: with random weights a classification head gives every class about the same
    score, and once calibrated its logits are so large that every kept score is 1.0; spread,
    some boxes pass the score threshold, some do not, and their scores differ."""
    seen = []
    h = layer.register_forward_hook(lambda m, i, o: seen.append(o.detach()))
    with torch.no_grad():
        model(torch.rand((1, 3, hw, hw), generator=torch.Generator().manual_seed(3)))
        h.remove()
        s = torch.cat([o.flatten() for o in seen]).std()
        layer.weight.mul_(std / s)  # the bias (RetinaNet's prior of 0.01) is kept


def fasterrcnn_mobilenet320(std=1.5):
    torch.manual_seed(0)
    m = torchvision.models.detection.fasterrcnn_mobilenet_v3_large_320_fpn(weights=None, weights_backbone=None)
    calibrate(m, lambda x: m.rpn.head(list(m.backbone(x).values())), 320)
    # calibrated, the squeeze-excitation gates' inputs reach thousands while HardSigmoid passes
    # only [-3, 3]: a rounding difference of 1e-5 relative in an fc2 sum became 1e-3 in the
    # gate, 2e-3 in the backbone's features, 0.2 in the RPN's logits, and other proposals (the
    # onnxruntime and graphc runs compared tensor by tensor: the error grows only by rounding,
    # amplified ×200 by each late gate). Gate inputs of standard deviation 2 keep the
    # network well conditioned; the BatchNorm statistics are then recalibrated.
    from torchvision.ops.misc import SqueezeExcitation
    for se in [x for x in m.backbone.modules() if isinstance(x, SqueezeExcitation)]:
        spread(Detector(m), se.fc2, 2.0)
    calibrate(m, lambda x: m.rpn.head(list(m.backbone(x).values())), 320)
    # random box regressions saturate (exp(dw) clamped at 1000/16) and place the boxes by the
    # difference of large terms (a box edge at 293 = centre - half of a huge extent, clipped):
    # deltas of standard deviation 0.1 keep boxes near their anchors, the decoding well conditioned
    spread(Detector(m), m.rpn.head.bbox_pred, 0.1)
    spread(Detector(m), m.roi_heads.box_predictor.bbox_pred, 0.1)
    spread(Detector(m), m.roi_heads.box_predictor.cls_score, std)
    return Detector(m.eval())


def retinanet(std=1.0):
    torch.manual_seed(0)
    m = torchvision.models.detection.retinanet_resnet50_fpn(weights=None, weights_backbone=None)
    calibrate(m, lambda x: m.head(list(m.backbone(x).values())), 320)
    spread(Detector(m), m.head.classification_head.cls_logits, std)
    return Detector(m.eval())


class MaskDetector(torch.nn.Module):
    """images [1, 3, H, W] → boxes [n, 4], scores [n], labels [n], masks [n, 1, H, W] of the
    first image (Mask R-CNN: the masks are pasted into the image by a Loop over the detections)."""

    def __init__(self, model):
        super().__init__()
        self.model = model

    def forward(self, x):
        out = self.model([x[0]])[0]
        return out["boxes"], out["scores"], out["labels"], out["masks"]


def maskrcnn(std=1.5, size=320):
    """maskrcnn_resnet50_fpn resizing to size×size (torchvision's default is 800: the same graph,
    6× the backbone's work), the class scores spread like fasterrcnn_mobilenet320's."""
    torch.manual_seed(0)
    m = torchvision.models.detection.maskrcnn_resnet50_fpn(weights=None, weights_backbone=None,
                                                           min_size=size, max_size=size)
    calibrate(m, lambda x: m.rpn.head(list(m.backbone(x).values())), size)
    # random box regressions move most boxes out of the image (6 proposals survive the RPN,
    # no detection its heads): deltas of standard deviation 0.1 keep them near their anchors
    spread(Detector(m), m.rpn.head.bbox_pred, 0.1, size)
    spread(Detector(m), m.roi_heads.box_predictor.bbox_pred, 0.1, size)
    spread(Detector(m), m.roi_heads.box_predictor.cls_score, std, size)
    return MaskDetector(m.eval())


class _TinyBackbone(torch.nn.Module):
    """Two feature maps (8×8 and 4×4 for a 64×64 image) from three small convolutions."""

    def __init__(self):
        super().__init__()
        self.c1 = torch.nn.Sequential(torch.nn.Conv2d(3, 8, 3, 4, 1), torch.nn.ReLU())
        self.c2 = torch.nn.Sequential(torch.nn.Conv2d(8, 16, 3, 2, 1), torch.nn.ReLU())
        self.c3 = torch.nn.Sequential(torch.nn.Conv2d(16, 16, 3, 2, 1), torch.nn.ReLU())

    def forward(self, x):
        a = self.c2(self.c1(x))
        return {"0": a, "1": self.c3(a)}


def tiny_ssd(score_thresh=0.2):
    """torchvision's SSD (the same postprocessing as ssdlite320: per-class NonZero, TopK with
    k = min(count, 300) and the batched NMS in an If) around a tiny backbone, 6 classes, 64×64
    images: small enough to commit with its onnxruntime outputs (testdata/detect)."""
    from torchvision.models.detection.anchor_utils import DefaultBoxGenerator
    from torchvision.models.detection.ssd import SSD

    torch.manual_seed(0)
    anchors = DefaultBoxGenerator([[2], [2, 3]])
    m = SSD(_TinyBackbone(), anchors, (64, 64), num_classes=6, score_thresh=score_thresh,
            detections_per_img=40, topk_candidates=30, image_mean=[0.5] * 3, image_std=[0.25] * 3)
    with torch.no_grad():
        for p in m.head.classification_head.parameters():
            p.mul_(6)  # spread the class scores so that the threshold decides
    return Detector(m.eval())
