#!/usr/bin/python3
"""Writes the demo's calibration pool: 64 Fashion-MNIST training images, one .npy per image
(float32 [1,28,28], normalised as tests/tools/make_demo.py normalises), into resources/demo/pool/.

The calibration lab draws its calibration sets from such a pool; one file per image, so that a
run's files can be passed to `quantlens quantize --calib`. The images are a seeded draw from the
60000 training images (the demo's evaluation samples are test images). Deterministic.
Needs Debian's python3-numpy and dataset-fashion-mnist.
Run: /usr/bin/python3 tests/tools/make_demo_pool.py
"""

import os

import numpy as np

from make_demo import MEAN, STD, read_idx

OUT = os.path.join(os.path.dirname(__file__), "..", "..", "resources", "demo", "pool")


def main():
    images = read_idx("train-images-idx3-ubyte.gz").astype(np.float32) / 255.0
    chosen = np.sort(np.random.default_rng(2).choice(len(images), 64, replace=False))
    os.makedirs(OUT, exist_ok=True)
    for i, index in enumerate(chosen):
        sample = ((images[index] - MEAN) / STD)[None, :, :].astype(np.float32)
        np.save(os.path.join(OUT, f"train_{i:02d}.npy"), sample)
    print(f"wrote {len(chosen)} files to {os.path.normpath(OUT)}")


if __name__ == "__main__":
    main()
