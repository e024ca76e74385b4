#!/usr/bin/env python3
"""Fixtures for tst_npz_file: .npz archives as numpy writes them, the same arrays as .npy files
(what the test compares readNpz with, through readNpy), and hand-broken archives.

    /usr/bin/python3 tests/tools/make_npz_fixtures.py tests/data/npz

numpy's savez always writes zip64 local headers (force_zip64, numpy gh-10776), so every good
archive here exercises them."""
import io
import os
import struct
import sys
import zipfile

import numpy as np

out = sys.argv[1]
os.makedirs(out, exist_ok=True)
rng = np.random.default_rng(29)


def path(name):
    return os.path.join(out, name)


def write_bytes(name, data):
    with open(path(name), "wb") as f:
        f.write(data)


weights = rng.normal(0, 1, (2, 3, 4)).astype(np.float32)
ids = np.array([3, -1, 2**40, -(2**62), 7], dtype=np.int64)
pixels = rng.integers(0, 256, (2, 2), dtype=np.uint8)
count = np.array(42, dtype=np.int32)  # 0-d: a scalar member
matrix = rng.normal(0, 1, (3, 3))  # float64

np.savez(path("named.npz"), weights=weights, ids=ids)
np.savez_compressed(path("named_compressed.npz"), weights=weights, ids=ids)
np.savez(path("positional.npz"), pixels, count)
np.savez(path("float64.npz"), matrix=matrix)
np.savez(path("fortran.npz"), good=weights, f=np.asfortranarray(weights[0]))
for name, array in [("weights", weights), ("ids", ids), ("arr_0", pixels), ("arr_1", count),
                    ("matrix", matrix)]:
    np.save(path(name + ".npy"), array)

with open(path("named.npz"), "rb") as f:
    named = f.read()
write_bytes("truncated.npz", named[: len(named) // 2])
write_bytes("random.npz", rng.integers(0, 256, 300, dtype=np.uint8).tobytes())

# A bad CRC: one bit of the stored float data flipped.
data_at = named.index(weights.tobytes())
write_bytes("bad_crc.npz", named[:data_at] + bytes([named[data_at] ^ 1]) + named[data_at + 1:])

# A damaged deflate stream: a byte in the middle of the first compressed member flipped.
with open(path("named_compressed.npz"), "rb") as f:
    compressed = bytearray(f.read())
name_length, extra_length = struct.unpack_from("<HH", compressed, 26)
compressed_size = zipfile.ZipFile(path("named_compressed.npz")).infolist()[0].compress_size
compressed[30 + name_length + extra_length + compressed_size // 2] ^= 0xFF
write_bytes("bad_deflate.npz", bytes(compressed))


def zip_bytes(members, compression=zipfile.ZIP_STORED):
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression) as z:
        for name, data in members:
            z.writestr(name, data)
    return buffer.getvalue()


npy = io.BytesIO()
np.save(npy, ids)
write_bytes("text_member.npz", zip_bytes([("ids.npy", npy.getvalue()), ("notes.txt", b"hello\n")]))
write_bytes("bad_npy_member.npz", zip_bytes([("junk.npy", b"not an array at all")]))
write_bytes("empty.npz", zip_bytes([]))

# A deflated member whose headers claim 4 GB uncompressed: must be refused before allocating.
lying = bytearray(zip_bytes([("big.npy", npy.getvalue())], zipfile.ZIP_DEFLATED))
for signature, size_at in [(b"PK\x03\x04", 22), (b"PK\x01\x02", 24)]:
    header = lying.index(signature)
    struct.pack_into("<I", lying, header + size_at, 0xFFFFFFF0)
write_bytes("lying_size.npz", bytes(lying))

for name in sorted(os.listdir(out)):
    print(name, os.path.getsize(path(name)))
