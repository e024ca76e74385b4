#!/usr/bin/python3
"""Data-Free Quantization's MobileNetV2 case on data we have (issue 36): a MobileNetV2-style
network (inverted residuals, depthwise 3x3, ReLU) trained on Fashion-MNIST, exported as users
export it (eval mode: BatchNorm folded into the convolutions).

Writes into tests/data/remedies/ (or --out):
  fashion_mobilenet_balanced.onnx  the network as exported
  fashion_mobilenet.onnx           the same function with DFQ's imbalance: each depthwise
                                   convolution's output channels (weights and bias) scaled by
                                   1/64, 1 or 16 (seeded), the next 1x1 convolution's matching
                                   input columns by the inverse. Relu is positively homogeneous,
                                   so the outputs do not change; the depthwise weights' channel
                                   ranges, and the activations between the pair, spread ~1000x,
                                   as folding BatchNorm does to trained ImageNet MobileNets (a
                                   short training on Fashion-MNIST does not produce that spread).
  fashion_calib.npy                64 training images, float32 [64,1,28,28], normalised
  fashion_test.npy                 the first 1,000 test images, likewise
  fashion_test_labels.npy          their classes, int64 [1000]

Deterministic for a seed on one machine; takes about five minutes on two cores.
Needs Debian's python3-torch, python3-onnx, python3-numpy and dataset-fashion-mnist.
Run: /usr/bin/python3 tests/tools/make_dfq_fixture.py
"""

import argparse
import os
import sys

import numpy as np
import onnx
import torch
import torch.nn as nn
from onnx import numpy_helper

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from make_demo import evaluate, load_split, train  # noqa: E402  (the demo's data and training)


def conv_bn(cin, cout, kernel=1, stride=1, groups=1, relu=True):
    layers = [nn.Conv2d(cin, cout, kernel, stride, kernel // 2, groups=groups, bias=False),
              nn.BatchNorm2d(cout)]
    return layers + [nn.ReLU()] if relu else layers


class InvertedResidual(nn.Module):
    def __init__(self, cin, cout, stride, expand):
        super().__init__()
        hidden = cin * expand
        layers = conv_bn(cin, hidden) if expand != 1 else []
        layers += conv_bn(hidden, hidden, 3, stride, groups=hidden)
        layers += conv_bn(hidden, cout, relu=False)
        self.conv = nn.Sequential(*layers)
        self.residual = stride == 1 and cin == cout

    def forward(self, x):
        y = self.conv(x)
        return x + y if self.residual else y


class FashionMobileNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(
            *conv_bn(1, 16, 3),                   # 16 x 28 x 28
            InvertedResidual(16, 16, 1, 1),
            InvertedResidual(16, 24, 2, 4),       # 24 x 14 x 14
            InvertedResidual(24, 24, 1, 4),
            InvertedResidual(24, 32, 2, 4),       # 32 x 7 x 7
            InvertedResidual(32, 32, 1, 4),
            *conv_bn(32, 128))
        self.classifier = nn.Linear(128, 10)

    def forward(self, x):
        return self.classifier(self.features(x).mean((2, 3)))


def unbalance(model, seed):
    """Scales each depthwise Conv -> Relu -> Conv pair as described above; returns the count."""
    rng = np.random.default_rng(seed)
    inits = {t.name: t for t in model.graph.initializer}
    readers = {}
    for node in model.graph.node:
        for name in node.input:
            readers.setdefault(name, []).append(node)
    pairs = 0
    for node in model.graph.node:
        group = next((a.i for a in node.attribute if a.name == "group"), 1)
        if node.op_type != "Conv" or group == 1:
            continue
        relu = readers.get(node.output[0], [])
        if len(relu) != 1 or relu[0].op_type != "Relu":
            continue
        nxt = readers.get(relu[0].output[0], [])
        if len(nxt) != 1 or nxt[0].op_type != "Conv":
            continue
        w = numpy_helper.to_array(inits[node.input[1]]).copy()
        b = numpy_helper.to_array(inits[node.input[2]]).copy()
        w2 = numpy_helper.to_array(inits[nxt[0].input[1]]).copy()
        factor = rng.choice(np.array([1 / 64, 1, 16], np.float32), size=w.shape[0])
        w *= factor[:, None, None, None]
        b *= factor
        w2 /= factor[None, :, None, None]
        for name, array in [(node.input[1], w), (node.input[2], b), (nxt[0].input[1], w2)]:
            inits[name].CopyFrom(numpy_helper.from_array(array.astype(np.float32), name))
        pairs += 1
    return pairs


def main():
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=os.path.join(root, "tests", "data", "remedies"))
    parser.add_argument("--epochs", type=int, default=2)
    parser.add_argument("--seed", type=int, default=36)
    args = parser.parse_args()

    torch.manual_seed(args.seed)
    torch.set_num_threads(min(2, os.cpu_count() or 1))
    train_x, train_y = load_split("train")
    test_x, test_y = load_split("t10k")

    model = FashionMobileNet()
    train(model, train_x, train_y, test_x, test_y, args.epochs)

    model.eval()
    os.makedirs(args.out, exist_ok=True)
    balanced = os.path.join(args.out, "fashion_mobilenet_balanced.onnx")
    # Eval mode: the exporter folds each BatchNormalization into the Conv before it.
    torch.onnx.export(model, test_x[:1], balanced, opset_version=13, input_names=["input"],
                      output_names=["logits"],
                      dynamic_axes={"input": {0: "N"}, "logits": {0: "N"}})
    exported = onnx.load(balanced)
    assert not any(n.op_type == "BatchNormalization" for n in exported.graph.node)
    pairs = unbalance(exported, args.seed)
    onnx.checker.check_model(exported)
    onnx.save(exported, os.path.join(args.out, "fashion_mobilenet.onnx"))

    calib = np.random.default_rng(args.seed).choice(len(train_x), 64, replace=False)
    np.save(os.path.join(args.out, "fashion_calib.npy"), train_x[calib].numpy())
    np.save(os.path.join(args.out, "fashion_test.npy"), test_x[:1000].numpy())
    np.save(os.path.join(args.out, "fashion_test_labels.npy"), test_y[:1000].numpy())
    print(f"float accuracy on the 1,000 test images: {evaluate(model, test_x[:1000], test_y[:1000]):.4f}; "
          f"{pairs} depthwise pairs unbalanced; wrote {args.out}")


if __name__ == "__main__":
    main()
