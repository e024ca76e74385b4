#!/usr/bin/python3
"""SmoothQuant's case on data we have: a tiny pre-LayerNorm vision transformer trained on
Fashion-MNIST, with the persistent outlier channels of real transformers' LayerNorm outputs.

The network: a 7x7 stride-7 patch convolution (16 tokens of 64 channels) plus a learned position
embedding; two encoder blocks x = x + attn(ln1(x)), x = x + mlp(ln2(x)) (separate q, k, v Linear
layers, 4 heads of 16, softmax(q k^T / 4) v, an output Linear; mlp Linear(64, 128), exact GELU,
Linear(128, 64)); a final LayerNorm, the mean over the tokens and a Linear(64, 10) head. Plain
modules (no nn.MultiheadAttention), so the export is predictable. Trained with make_demo.py's
train() (3 epochs), exported in eval mode: input "input" [N,1,28,28] (dynamic N), output
"logits" [N,10].

Writes into tests/data/remedies/ (or --out):
  fashion_vit_balanced.onnx  the network as trained and exported, opset 17 (each LayerNorm is
                             one LayerNormalization node)
  fashion_vit.onnx           the same function with SmoothQuant's outliers, opset 17: for every
                             LayerNorm (ln1 and ln2 of both blocks, the final one) the same 4
                             channels (seeded) have gamma and beta multiplied by 40 and the
                             matching input columns of each Linear that reads it (q, k, v; fc1;
                             the head, through the token mean, which is linear) divided by 40.
                             The outputs do not change; those 4 channels of every LayerNorm output
                             are ~40x the others, as in trained LLMs and ViTs (a short training on
                             Fashion-MNIST does not produce them). Done on the torch parameters
                             before export, so the file is an ordinary export.
  fashion_vit_op13.onnx      fashion_vit.onnx exported at opset 13, as older exports look: each
                             LayerNorm written out as ReduceMean, Sub, Pow, ReduceMean, Add, Sqrt,
                             Div, Mul, Add.
The Linear layers on [N,16,64] tokens export as MatMul (weight transposed into a new [in, out]
initializer "onnx::MatMul_<n>") + Add(bias, product), e.g. /blocks/blocks.0/attn/q/MatMul; the
head (on [N,64]) as Gemm transB=1 that reads the ReduceMean (axes 1) of the final LayerNorm, not
the LayerNorm itself; GELU as Div, Erf, Add, Mul, Mul at both opsets.
Calibration and test data are make_dfq_fixture.py's fashion_calib.npy (64 training images) and
fashion_test.npy / fashion_test_labels.npy (the first 1,000 test images), same normalisation;
this script does not write them.

Measured (seed 38, 3 epochs, 2 threads): float accuracy 0.8790 on the 1,000 test images for
both torch models (0.8724 on all 10,000); the torch logits of the two differ by at most 2.9e-6,
ONNX Runtime's of fashion_vit_balanced.onnx and of fashion_vit.onnx (or _op13) by 2.4e-6 (largest
logit 11.3). Outlier channels 15, 20, 30, 63; largest / median channel max|x| of each LayerNorm
output on the 64 calibration images: 41-49x with the outliers, 1.4-1.7x without. Deterministic
for a seed on one machine (a second run wrote identical files); took 12 minutes on two cores
shared with a build (14 CPU minutes).
Needs Debian's python3-torch, python3-onnx, python3-numpy and dataset-fashion-mnist.
Run: /usr/bin/python3 tests/tools/make_smoothquant_fixture.py
"""

import argparse
import copy
import os
import sys
import time

import numpy as np
import onnx
import torch
import torch.nn as nn

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from make_demo import evaluate, load_split, train  # noqa: E402  (the demo's data and training)

DIM, TOKENS, HEADS, HIDDEN = 64, 16, 4, 128
HEAD_DIM = DIM // HEADS
OUTLIERS, FACTOR = 4, 40.0


class Attention(nn.Module):
    def __init__(self):
        super().__init__()
        self.q, self.k, self.v = nn.Linear(DIM, DIM), nn.Linear(DIM, DIM), nn.Linear(DIM, DIM)
        self.proj = nn.Linear(DIM, DIM)
        self.scale = HEAD_DIM ** -0.5

    def heads(self, x):  # [N,16,64] -> [N,4,16,16]; constant shapes keep the export Shape-free
        return x.reshape(-1, TOKENS, HEADS, HEAD_DIM).transpose(1, 2)

    def forward(self, x):
        q, k, v = self.heads(self.q(x)), self.heads(self.k(x)), self.heads(self.v(x))
        attn = torch.softmax(torch.matmul(q, k.transpose(-2, -1)) * self.scale, dim=-1)
        return self.proj(torch.matmul(attn, v).transpose(1, 2).reshape(-1, TOKENS, DIM))


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.ln1, self.attn = nn.LayerNorm(DIM), Attention()
        self.ln2 = nn.LayerNorm(DIM)
        self.fc1, self.act, self.fc2 = nn.Linear(DIM, HIDDEN), nn.GELU(), nn.Linear(HIDDEN, DIM)

    def forward(self, x):
        x = x + self.attn(self.ln1(x))
        return x + self.fc2(self.act(self.fc1(self.ln2(x))))


class FashionViT(nn.Module):
    def __init__(self):
        super().__init__()
        self.patch = nn.Conv2d(1, DIM, 7, 7)
        self.pos = nn.Parameter(torch.zeros(1, TOKENS, DIM))
        nn.init.trunc_normal_(self.pos, std=0.02)
        self.blocks = nn.Sequential(Block(), Block())
        self.ln = nn.LayerNorm(DIM)
        self.head = nn.Linear(DIM, 10)

    def forward(self, x):
        x = self.patch(x).reshape(-1, DIM, TOKENS).transpose(1, 2) + self.pos
        return self.head(self.ln(self.blocks(x)).mean(1))


def layer_norms(model):
    """Each LayerNorm with the Linear layers that read its output (the head via the token mean)."""
    pairs = []
    for block in model.blocks:
        pairs.append((block.ln1, [block.attn.q, block.attn.k, block.attn.v]))
        pairs.append((block.ln2, [block.fc1]))
    pairs.append((model.ln, [model.head]))
    return pairs


def add_outliers(model, channels):
    """SmoothQuant's case: the LayerNorms' `channels` x FACTOR, the readers' inputs / FACTOR."""
    with torch.no_grad():
        for ln, readers in layer_norms(model):
            ln.weight[channels] *= FACTOR
            ln.bias[channels] *= FACTOR
            for linear in readers:
                linear.weight[:, channels] /= FACTOR


def channel_spread(model, images, channels):
    """Per LayerNorm: largest / median channel max|x|, and the outliers' / the others' median."""
    maxima = []
    hooks = [ln.register_forward_hook(
        lambda _m, _i, out: maxima.append(out.abs().amax((0, 1)))) for ln, _ in layer_norms(model)]
    with torch.no_grad():
        model(images)
    for h in hooks:
        h.remove()
    others = np.setdiff1d(np.arange(DIM), channels)
    return [(m.max().item() / m.median().item(),
             m[channels].min().item() / m[others].median().item()) for m in maxima]


def export(model, sample, path, opset):
    torch.onnx.export(model, sample, path, opset_version=opset, input_names=["input"],
                      output_names=["logits"],
                      dynamic_axes={"input": {0: "N"}, "logits": {0: "N"}})
    onnx.checker.check_model(onnx.load(path))


def main():
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=os.path.join(root, "tests", "data", "remedies"))
    parser.add_argument("--epochs", type=int, default=3)
    parser.add_argument("--seed", type=int, default=38)
    args = parser.parse_args()

    start = time.time()
    torch.manual_seed(args.seed)
    torch.set_num_threads(min(2, os.cpu_count() or 1))
    train_x, train_y = load_split("train")
    test_x, test_y = load_split("t10k")

    model = FashionViT()
    train(model, train_x, train_y, test_x, test_y, args.epochs)
    model.eval()

    channels = np.sort(np.random.default_rng(args.seed).choice(DIM, OUTLIERS, replace=False))
    outliers = copy.deepcopy(model)
    add_outliers(outliers, torch.from_numpy(channels))
    outliers.eval()

    os.makedirs(args.out, exist_ok=True)
    sample = test_x[:1]
    export(model, sample, os.path.join(args.out, "fashion_vit_balanced.onnx"), 17)
    export(outliers, sample, os.path.join(args.out, "fashion_vit.onnx"), 17)
    export(outliers, sample, os.path.join(args.out, "fashion_vit_op13.onnx"), 13)

    # make_dfq_fixture.py's calibration images (its seed, 36): fashion_calib.npy.
    calib = train_x[np.random.default_rng(36).choice(len(train_x), 64, replace=False)]
    with torch.no_grad():
        difference = (model(test_x[:1000]) - outliers(test_x[:1000])).abs().max().item()
    print(f"float accuracy on the 1,000 test images: balanced "
          f"{evaluate(model, test_x[:1000], test_y[:1000]):.4f}, with outliers "
          f"{evaluate(outliers, test_x[:1000], test_y[:1000]):.4f}; all 10,000: "
          f"{evaluate(model, test_x, test_y):.4f}; torch logits differ by {difference:.2e}")
    print(f"outlier channels {channels.tolist()} x {FACTOR:g}; LayerNorm outputs on the 64 "
          f"calibration images, largest / median channel max|x| (outliers' smallest / others' "
          f"median):")
    names = [f"blocks.{i}.{ln}" for i in range(2) for ln in ("ln1", "ln2")] + ["ln"]
    for name, before, after in zip(names, channel_spread(model, calib, channels),
                                   channel_spread(outliers, calib, channels)):
        print(f"  {name:11s} balanced {before[0]:5.1f}x ({before[1]:4.2f}x), "
              f"with outliers {after[0]:6.1f}x ({after[1]:5.1f}x)")
    print(f"wrote {args.out} in {time.time() - start:.0f} s")


if __name__ == "__main__":
    main()
