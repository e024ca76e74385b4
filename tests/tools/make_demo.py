#!/usr/bin/python3
"""Builds QuantLens' embedded demo: a small BatchNorm CNN trained on Fashion-MNIST.

Writes into resources/demo/ (or --out):
  fashion_cnn.onnx  float model, opset 13, input "input" [N,1,28,28] (dynamic N), output "logits" [N,10]
  samples.npy       64 test images, float32 [64,1,28,28], normalised as the model expects
  labels.npy        their classes, int64 [64]

BatchNormalization stays a separate node (not folded into Conv): unfused Conv-BN is one of the
cases QuantLens is meant to diagnose. Deterministic (seed 0); takes about two minutes on two cores.
Needs Debian's python3-torch, python3-onnx, python3-numpy and dataset-fashion-mnist.
Run: /usr/bin/python3 tests/tools/make_demo.py
"""

import argparse
import gzip
import os
import time

import numpy as np
import onnx
import torch
import torch.nn as nn

DATA_DIR = "/usr/share/datasets/fashion-mnist"
CLASSES = ["T-shirt/top", "Trouser", "Pullover", "Dress", "Coat",
           "Sandal", "Shirt", "Sneaker", "Bag", "Ankle boot"]
# Mean and standard deviation of the Fashion-MNIST training pixels scaled to [0, 1].
MEAN, STD = 0.2860, 0.3530


def read_idx(name):
    with gzip.open(os.path.join(DATA_DIR, name), "rb") as f:
        data = f.read()
    dims = data[3]
    shape = tuple(int.from_bytes(data[4 + 4 * i:8 + 4 * i], "big") for i in range(dims))
    return np.frombuffer(data, dtype=np.uint8, offset=4 + 4 * dims).reshape(shape)


def load_split(prefix):
    images = read_idx(f"{prefix}-images-idx3-ubyte.gz").astype(np.float32) / 255.0
    images = ((images - MEAN) / STD)[:, None, :, :]
    labels = read_idx(f"{prefix}-labels-idx1-ubyte.gz").astype(np.int64)
    return torch.from_numpy(np.ascontiguousarray(images)), torch.from_numpy(labels)


def conv_bn_relu(cin, cout):
    return [nn.Conv2d(cin, cout, 3, padding=1, bias=False), nn.BatchNorm2d(cout), nn.ReLU()]


class FashionCnn(nn.Module):
    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(
            *conv_bn_relu(1, 16), nn.MaxPool2d(2),    # 16 x 14 x 14
            *conv_bn_relu(16, 32), nn.MaxPool2d(2),   # 32 x 7 x 7
            *conv_bn_relu(32, 32))                    # 32 x 7 x 7
        self.classifier = nn.Linear(32 * 7 * 7, 10)

    def forward(self, x):
        return self.classifier(torch.flatten(self.features(x), 1))


def evaluate(model, images, labels):
    model.eval()
    with torch.no_grad():
        correct = sum((model(images[i:i + 1000]).argmax(1) == labels[i:i + 1000]).sum().item()
                      for i in range(0, len(images), 1000))
    return correct / len(images)


def train(model, train_x, train_y, test_x, test_y, epochs):
    """Adam with a one-cycle schedule, batches of 128; prints test accuracy per epoch."""
    optimizer = torch.optim.Adam(model.parameters(), lr=2e-3)
    steps = epochs * (len(train_x) // 128)
    schedule = torch.optim.lr_scheduler.OneCycleLR(optimizer, max_lr=4e-3, total_steps=steps)
    loss_fn = nn.CrossEntropyLoss()
    start = time.time()
    for epoch in range(epochs):
        model.train()
        order = torch.randperm(len(train_x))
        for i in range(0, len(order) - 127, 128):
            batch = order[i:i + 128]
            optimizer.zero_grad()
            loss = loss_fn(model(train_x[batch]), train_y[batch])
            loss.backward()
            optimizer.step()
            schedule.step()
        print(f"epoch {epoch + 1}: loss {loss.item():.3f}, test accuracy "
              f"{evaluate(model, test_x, test_y):.4f} ({time.time() - start:.0f} s)")


def main():
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=os.path.join(root, "resources", "demo"))
    parser.add_argument("--epochs", type=int, default=2)
    args = parser.parse_args()

    torch.manual_seed(0)
    np.random.seed(0)
    torch.set_num_threads(min(2, os.cpu_count() or 1))
    train_x, train_y = load_split("train")
    test_x, test_y = load_split("t10k")

    model = FashionCnn()
    train(model, train_x, train_y, test_x, test_y, args.epochs)

    model.eval()
    accuracy = evaluate(model, test_x, test_y)
    os.makedirs(args.out, exist_ok=True)
    onnx_path = os.path.join(args.out, "fashion_cnn.onnx")
    # PRESERVE keeps BatchNormalization as its own node; EVAL would fold it into the Conv.
    torch.onnx.export(model, test_x[:1], onnx_path, opset_version=13,
                      input_names=["input"], output_names=["logits"],
                      dynamic_axes={"input": {0: "batch"}, "logits": {0: "batch"}},
                      training=torch.onnx.TrainingMode.PRESERVE, do_constant_folding=True)

    exported = onnx.load(onnx_path)
    exported.producer_name = "QuantLens make_demo.py"
    exported.doc_string = (f"Fashion-MNIST CNN with unfused BatchNorm; test accuracy {accuracy:.4f}. "
                           f"Input: grey 28x28 images scaled to [0,1], then (x - {MEAN}) / {STD}.")
    for key, value in (("classes", ",".join(CLASSES)), ("test_accuracy", f"{accuracy:.4f}"),
                       ("normalisation", f"(x / 255 - {MEAN}) / {STD}")):
        exported.metadata_props.add(key=key, value=value)
    onnx.checker.check_model(exported)
    onnx.save(exported, onnx_path)

    # The first 64 test images: every class is present several times.
    samples = test_x[:64].numpy().astype(np.float32)
    labels = test_y[:64].numpy().astype(np.int64)
    np.save(os.path.join(args.out, "samples.npy"), samples)
    np.save(os.path.join(args.out, "labels.npy"), labels)
    with torch.no_grad():
        sample_accuracy = (model(test_x[:64]).argmax(1) == test_y[:64]).float().mean().item()
    ops = sorted({n.op_type for n in exported.graph.node})
    print(f"test accuracy {accuracy:.4f} (10000 images), {sample_accuracy:.4f} on the 64 samples")
    print(f"class counts in samples: {np.bincount(labels, minlength=10).tolist()}")
    print(f"wrote {onnx_path} ({os.path.getsize(onnx_path)} bytes, ops {', '.join(ops)})")


if __name__ == "__main__":
    main()
