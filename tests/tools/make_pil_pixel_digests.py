#!/usr/bin/env python3
"""What PIL (Pillow 9.4, Debian's libjpeg62-turbo) decodes from the JPEG fixtures, as digests for
tst_image_decoding: per file its mode, size, the SHA-256 of the 8-bit pixels (rows top to bottom,
channels interleaved; RGB files as convert("RGB"), grayscale as "L") and the pixel sum. Qt's
JPEG reader uses the same libjpeg, so QuantLens must decode the very same pixels as the PyTorch
users' PIL.

    /usr/bin/python3 tests/tools/make_pil_pixel_digests.py tests/data/images
"""
import glob
import hashlib
import json
import os
import sys

import numpy as np
from PIL import Image

root = sys.argv[1]
digests = {}
for path in sorted(glob.glob(os.path.join(root, "jpegs", "*.jpg"))):
    image = Image.open(path)
    image = image.convert("L" if image.mode == "L" else "RGB")
    pixels = np.asarray(image, dtype=np.uint8)
    digests[os.path.relpath(path, root)] = {
        "mode": image.mode, "width": image.width, "height": image.height,
        "sha256": hashlib.sha256(pixels.tobytes()).hexdigest(), "sum": int(pixels.sum(dtype=np.int64))}
with open(os.path.join(root, "pil_pixels.json"), "w") as f:
    json.dump(digests, f, indent=1)
print(f"{len(digests)} digests written to {root}/pil_pixels.json")
