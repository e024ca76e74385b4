#!/usr/bin/python3
"""Fashion-MNIST test images as PNG files in ImageFolder layout, for the README's example of
`quantlens analyze --data FOLDER --preprocess SPEC` and the worst-samples screenshot.

Reads Debian's dataset-fashion-mnist (/usr/share/datasets/fashion-mnist, IDX files) and writes
the first N test images (default 1000) as 8-bit grayscale 28x28 PNGs to
OUT/<class folder>/<index>.png; the class folders ("0 T-shirt top" ... "9 Ankle boot") sort in
class-index order, so ImageFolder's labels are Fashion-MNIST's. Needs NumPy (Debian's
/usr/bin/python3 with python3-numpy), not PIL.

    make_fashion_images.py OUT [N]
"""
import gzip
import os
import struct
import sys
import zlib

import numpy as np

SOURCE = "/usr/share/datasets/fashion-mnist"
CLASSES = ["0 T-shirt top", "1 Trouser", "2 Pullover", "3 Dress", "4 Coat", "5 Sandal",
           "6 Shirt", "7 Sneaker", "8 Bag", "9 Ankle boot"]


def read_idx(path):
    """An IDX file (big-endian: two zero bytes, type 0x08 = uint8, rank, then the sizes)."""
    with gzip.open(path, "rb") as f:
        data = f.read()
    zero, kind, rank = struct.unpack(">HBB", data[:4])
    if zero != 0 or kind != 0x08:
        sys.exit(f"{path}: not an IDX file of unsigned bytes")
    shape = struct.unpack(f">{rank}I", data[4:4 + 4 * rank])
    return np.frombuffer(data, np.uint8, offset=4 + 4 * rank).reshape(shape)


def write_png(path, a):
    """An 8-bit grayscale PNG (filter type 0 on every row)."""
    h, w = a.shape
    raw = b"".join(b"\x00" + a[y].tobytes() for y in range(h))

    def chunk(kind, data):
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body) & 0xFFFFFFFF)

    with open(path, "wb") as f:
        f.write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 0, 0, 0, 0))
                + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b""))


def main():
    if len(sys.argv) not in (2, 3):
        sys.exit(__doc__.strip().splitlines()[-1].strip())
    out = sys.argv[1]
    count = int(sys.argv[2]) if len(sys.argv) == 3 else 1000
    images = read_idx(os.path.join(SOURCE, "t10k-images-idx3-ubyte.gz"))
    labels = read_idx(os.path.join(SOURCE, "t10k-labels-idx1-ubyte.gz"))
    if not 0 < count <= len(images) or len(labels) != len(images):
        sys.exit(f"N must be 1..{len(images)}")
    for name in CLASSES:
        os.makedirs(os.path.join(out, name), exist_ok=True)
    for i in range(count):
        write_png(os.path.join(out, CLASSES[labels[i]], f"{i:05d}.png"), images[i])
    print(f"{count} images in {len(CLASSES)} class folders under {out}")


if __name__ == "__main__":
    main()
