#!/usr/bin/env python3
"""Fixtures for tst_image_preprocess: decoded images as uint8/uint16 .npy (H, W[, C]) and what
torchvision's transforms on PIL images make of them, so the engine's preprocessing is checked
against PIL without PyTorch in CI.

    /usr/bin/python3 tests/tools/make_preprocess_fixtures.py tests/data/preprocess

Each case NAME writes NAME.image.npy (the pixels), NAME.spec.txt (the --preprocess text) and
NAME.expected.npy (torchvision's float32 tensor, C x H x W)."""
import os
import sys

import numpy as np
import torch
from PIL import Image
from torchvision import transforms as T

out = sys.argv[1]
os.makedirs(out, exist_ok=True)
rng = np.random.default_rng(17)


def smooth(h, w, c):
    # Random but image-like (gradients and blobs), so resampling is exercised on edges too.
    y, x = np.mgrid[0:h, 0:w]
    planes = []
    for k in range(c):
        f = (np.sin(x / (3 + 2 * k)) + np.cos(y / (4 + k)) + rng.normal(0, 0.3, (h, w)))
        f = (f - f.min()) / (f.max() - f.min())
        planes.append(np.round(f * 255))
    a = np.stack(planes, -1).astype(np.uint8)
    return a[..., 0] if c == 1 else a


IMAGENET = [0.485, 0.456, 0.406], [0.229, 0.224, 0.225]
cases = [
    # name, pixels, spec, torchvision pipeline (on a PIL image)
    ("imagenet_landscape", smooth(263, 391, 3), "imagenet",
     T.Compose([T.Resize(256), T.CenterCrop(224), T.ToTensor(), T.Normalize(*IMAGENET)])),
    ("downscale_portrait_bgr", smooth(301, 133, 3),
     "color=bgr,resize=64,crop=56,scale=1/255,mean=0.406:0.456:0.485,std=0.225:0.224:0.229",
     T.Compose([T.Resize(64), T.CenterCrop(56), T.ToTensor(), T.Normalize(*IMAGENET),
                T.Lambda(lambda t: t.flip(0))])),
    ("upscale_odd_crop", smooth(19, 23, 3), "resize=40,crop=33x35,scale=1/255",
     T.Compose([T.Resize(40), T.CenterCrop((33, 35)), T.ToTensor()])),
    ("exact_size_gray", smooth(61, 47, 1), "color=gray,resize=28x28,scale=1/255,mean=0.2860,std=0.3530",
     T.Compose([T.Resize((28, 28)), T.ToTensor(), T.Normalize([0.2860], [0.3530])])),
    ("rgb_to_gray", smooth(50, 70, 3), "color=gray,resize=32,crop=32,scale=1/255",
     T.Compose([T.Grayscale(), T.Resize(32), T.CenterCrop(32), T.ToTensor()])),
    ("crop_larger_pads", smooth(20, 30, 3), "crop=24x36,scale=1/255",
     T.Compose([T.CenterCrop((24, 36)), T.ToTensor()])),
]
for name, pixels, spec, pipeline in cases:
    image = Image.fromarray(pixels, "L" if pixels.ndim == 2 else "RGB")
    expected = pipeline(image).numpy().astype(np.float32)
    np.save(os.path.join(out, name + ".image.npy"), pixels)
    np.save(os.path.join(out, name + ".expected.npy"), expected)
    with open(os.path.join(out, name + ".spec.txt"), "w") as f:
        f.write(spec + "\n")
    print(name, pixels.shape, "->", expected.shape)
