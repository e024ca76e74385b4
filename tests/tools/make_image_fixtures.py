#!/usr/bin/env python3
"""Fixtures for tests/images: a tiny ImageNet-shaped float model (input [N,3,224,224] ->
Conv 16x16 stride 16 -> Relu -> GlobalAveragePool -> Flatten -> Gemm -> 10 classes) and JPEGs
of mixed sizes and modes (RGB, grayscale), so `--preprocess imagenet` is
exercised on JPEGs in CI without PyTorch or PIL.

    /usr/bin/python3 tests/tools/make_image_fixtures.py tests/data/images
"""
import os
import sys

import numpy as np
import torch
from PIL import Image

out = sys.argv[1]
os.makedirs(os.path.join(out, "jpegs"), exist_ok=True)
torch.manual_seed(0)
model = torch.nn.Sequential(torch.nn.Conv2d(3, 8, 16, stride=16), torch.nn.ReLU(),
                            torch.nn.AdaptiveAvgPool2d(1), torch.nn.Flatten(), torch.nn.Linear(8, 10)).eval()
torch.onnx.export(model, torch.randn(1, 3, 224, 224), os.path.join(out, "tiny_imagenet.onnx"),
                  input_names=["input"], output_names=["logits"], opset_version=13,
                  dynamic_axes={"input": {0: "batch"}, "logits": {0: "batch"}})
rng = np.random.default_rng(3)
for i, (h, w, mode) in enumerate([(240, 320, "RGB"), (333, 250, "RGB"), (256, 256, "L"),
                                  (180, 410, "RGB"), (500, 375, "RGB"), (224, 224, "L")]):
    y, x = np.mgrid[0:h, 0:w]
    planes = [np.sin(x / (7 + c * 3)) + np.cos(y / (5 + c)) + rng.normal(0, 0.2, (h, w)) for c in range(3)]
    a = np.stack(planes, -1)
    a = np.round((a - a.min()) / (a.max() - a.min()) * 255).astype(np.uint8)
    image = Image.fromarray(a, "RGB").convert(mode)
    image.save(os.path.join(out, "jpegs", f"photo {i}.jpg"), quality=85)
print("written to", out)
