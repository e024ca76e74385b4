#!/usr/bin/env python3
"""`quantlens analyze --data FOLDER --preprocess SPEC` on PNG images against the same samples as
normalised .npy made by a NumPy reference of the preprocessing (issue 18).

The demo's 64 Fashion-MNIST samples become 8-bit images again, upscaled 2x (56x56) and, for
every third one, 4 columns wider (56x60) or stored as RGB, in ImageFolder layout with class
folders named "0 T-shirt top" ... "9 Ankle boot" (spaces; sorted = class index). The NumPy
reference below does what the spec says the way PIL does it (antialiased bilinear in 22-bit
fixed point, centre crop rounded half to even, ToTensor's division, Normalize), independently of
the engine's code. Both analyses must give the same output SQNR (within 0.01 dB) and the same
float and int8 accuracies; the JSON names the classes, where labels came from and the spec, and
lists the worst samples (lowest SQNR, top-1 flips) with their files and labels.
Bad input: a truncated PNG, an unknown preprocess key and a label file of the wrong length are
one line naming the file or key, exit 2.

    test_images.py QUANTLENS SOURCE_DIR
"""
import json
import os
import struct
import subprocess
import sys
import tempfile
import zlib

import numpy as np

quantlens, source = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
demo = os.path.join(source, "resources", "demo")
MEAN, STD = 0.2860, 0.3530
SPEC = "color=gray,resize=28,crop=28,scale=1/255,mean=0.2860,std=0.3530"
CLASSES = ["0 T-shirt top", "1 Trouser", "2 Pullover", "3 Dress", "4 Coat", "5 Sandal",
           "6 Shirt", "7 Sneaker", "8 Bag", "9 Ankle boot"]


def write_png(path, a):
    h, w = a.shape[:2]
    color = 0 if a.ndim == 2 else 2
    raw = b"".join(b"\x00" + a[y].tobytes() for y in range(h))

    def chunk(kind, data):
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body) & 0xFFFFFFFF)

    with open(path, "wb") as f:
        f.write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, color, 0, 0, 0))
                + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b""))


def pil_weights(in_size, out_size):
    """PIL's bilinear resampling weights (triangle widened by the downscale factor), in its
    22-bit fixed point: one row per output pixel."""
    scale = in_size / out_size
    widen = max(scale, 1.0)
    w = np.zeros((out_size, in_size))
    for o in range(out_size):
        centre = (o + 0.5) * scale
        lo, hi = max(int(centre - widen + 0.5), 0), min(int(centre + widen + 0.5), in_size)
        x = np.arange(lo, hi)
        k = np.clip(1.0 - np.abs((x - centre + 0.5) / widen), 0.0, None)
        w[o, lo:hi] = k / k.sum()
    return np.where(w < 0, np.trunc(w * (1 << 22) - 0.5), np.trunc(w * (1 << 22) + 0.5)).astype(np.int64)


def resample(img, out_h, out_w):
    """Horizontal pass, then vertical, each rounded to 8 bits (only when the size changes)."""
    img = img.astype(np.int64)
    if out_w != img.shape[1]:
        img = np.clip((img @ pil_weights(img.shape[1], out_w).T + (1 << 21)) >> 22, 0, 255)
    if out_h != img.shape[0]:
        img = np.clip((pil_weights(img.shape[0], out_h) @ img + (1 << 21)) >> 22, 0, 255)
    return img


def reference(gray):
    h, w = gray.shape
    oh, ow = (int(28 * h / w), 28) if w <= h else (28, int(28 * w / h))
    img = resample(gray, oh, ow)
    top, left = int(round((oh - 28) / 2.0)), int(round((ow - 28) / 2.0))
    img = img[top:top + 28, left:left + 28].astype(np.float32)
    return ((img / np.float32(255)) - np.float32(MEAN)) / np.float32(STD)


def run(args, expect=0):
    p = subprocess.run([quantlens] + args, capture_output=True, text=True)
    if p.returncode != expect:
        sys.exit(f"quantlens {' '.join(args)}: exit {p.returncode}, want {expect}\n{p.stdout}\n{p.stderr}")
    return p


work = tempfile.mkdtemp(prefix="ql-images-")
samples = np.load(os.path.join(demo, "samples.npy"))
labels = np.load(os.path.join(demo, "labels.npy")).astype(np.int64)
pixels = np.clip(np.round((samples[:, 0] * STD + MEAN) * 255), 0, 255).astype(np.uint8)
folder = os.path.join(work, "images")
expected_rows, expected_labels = [], []
for c, name in enumerate(CLASSES):
    os.makedirs(os.path.join(folder, name), exist_ok=True)
# ImageFolder order: class by class, files by name.
for i, (img, label) in enumerate(zip(pixels, labels)):
    big = np.repeat(np.repeat(img, 2, 0), 2, 1)
    if i % 3 == 1:
        big = np.pad(big, ((0, 0), (2, 2)))  # 56 x 60: cropped back after the resize
    stored = np.stack([big] * 3, -1) if i % 3 == 2 else big
    write_png(os.path.join(folder, CLASSES[label], f"sample {i:02d}.png"), stored)
order = sorted(range(len(labels)), key=lambda i: (CLASSES[labels[i]], f"sample {i:02d}.png"))
for i in order:
    big = np.repeat(np.repeat(pixels[i], 2, 0), 2, 1)
    if i % 3 == 1:
        big = np.pad(big, ((0, 0), (2, 2)))
    expected_rows.append(reference(big))
    expected_labels.append(labels[i])
np.save(os.path.join(work, "reference.npy"), np.stack(expected_rows)[:, None].astype(np.float32))
np.save(os.path.join(work, "reference_labels.npy"), np.array(expected_labels, dtype=np.int64))

common = ["analyze", "--float", os.path.join(demo, "fashion_cnn.onnx"),
          "--quant", os.path.join(demo, "fashion_cnn_int8.onnx"), "--batch", "16", "--no-latency"]
images = run(common + ["--data", folder, "--preprocess", SPEC, "--json", os.path.join(work, "images.json")])
tensors = run(common + ["--data", os.path.join(work, "reference.npy"),
                        "--labels", os.path.join(work, "reference_labels.npy"),
                        "--json", os.path.join(work, "tensors.json")])
a = json.load(open(os.path.join(work, "images.json")))
b = json.load(open(os.path.join(work, "tensors.json")))
oa, ob = a["outputs"][0], b["outputs"][0]
print(f"images: output SQNR {oa['sqnr_db']:.4f} dB, accuracy {oa.get('float_accuracy')} / {oa.get('quant_accuracy')}")
print(f"npy:    output SQNR {ob['sqnr_db']:.4f} dB, accuracy {ob.get('float_accuracy')} / {ob.get('quant_accuracy')}")
assert abs(oa["sqnr_db"] - ob["sqnr_db"]) < 0.01, (oa["sqnr_db"], ob["sqnr_db"])
assert oa["float_accuracy"] == ob["float_accuracy"] and oa["quant_accuracy"] == ob["quant_accuracy"]
assert oa["float_accuracy"] is not None and oa["float_accuracy"] > 0.5
assert a["classes"] == CLASSES, a.get("classes")
assert a["labels_from"] == "folders" and a["images"] == 64
assert a["preprocess"] == ("color=gray,resize=28,crop=28x28,scale=1/255,mean=0.286,std=0.353,"
                          "layout=nchw,dtype=float32"), a["preprocess"]
assert "64 images in 10 class folders" in images.stderr and "preprocess color=gray" in images.stderr, images.stderr

# worst_samples: the 10 lowest output SQNRs and every top-1 flip, lowest first, with the image's
# file and label; the flips are as many as the top-1 agreement says.
worst = a["worst_samples"]
sqnrs = [w["sqnr_db"] for w in worst]
assert sqnrs == sorted(sqnrs) and len(worst) >= 10, sqnrs
flipped = [w for w in worst if w["flipped"]]
assert all(w["float_top1"] != w["quant_top1"] for w in flipped)
assert len(flipped) == round((1 - oa["top1_agreement"]) * 64), (len(flipped), oa["top1_agreement"])
for w in worst:
    assert os.path.isfile(w["file"]) and w["label"] == CLASSES.index(os.path.basename(os.path.dirname(w["file"])))
# The same samples in the .npy run (same order), without files.
assert [w["index"] for w in b["worst_samples"]] == [w["index"] for w in worst]
assert "file" not in b["worst_samples"][0]
print(f"worst sample: {os.path.basename(worst[0]['file'])}, {worst[0]['sqnr_db']:.2f} dB; {len(flipped)} flips")

# Labels from a text file (class names, in file order) give the same accuracies.
with open(os.path.join(work, "labels.txt"), "w") as f:
    f.write("\n".join(CLASSES[l] for l in expected_labels) + "\n")
named = run(common + ["--data", folder, "--preprocess", SPEC, "--labels", os.path.join(work, "labels.txt"),
                      "--json", os.path.join(work, "named.json")])
n = json.load(open(os.path.join(work, "named.json")))
assert n["outputs"][0]["float_accuracy"] == oa["float_accuracy"]
assert n["labels_from"].endswith("labels.txt")

# Without --preprocess: resize/crop to the input and 1/255, said on stderr.
plain = run(common + ["--data", folder])
assert "preprocess color=gray,resize=28,crop=28x28,scale=1/255" in plain.stderr and "default" in plain.stderr, plain.stderr

# Images wherever data is accepted: each command on the PNG folder gives what it gives on the
# NumPy reference of the same samples.
float_model = os.path.join(demo, "fashion_cnn.onnx")
per_sample = os.path.join(work, "per_sample")  # one .npy per image, in the images' order
os.makedirs(per_sample)
for k, row in enumerate(np.stack(expected_rows)):
    np.save(os.path.join(per_sample, f"{k:03d}.npy"), row[None].astype(np.float32))
# quantize --calib: the same calibration gives the same model, so the same SQNR.
for name, calib in (("png", [folder, "--preprocess", SPEC]), ("npy", [per_sample])):
    run(["quantize", float_model, "--calib"] + calib + ["--out", os.path.join(work, f"q_{name}.onnx")])
sq = {}
for name in ("png", "npy"):
    out = os.path.join(work, f"q_{name}.json")
    run(["analyze", "--float", float_model, "--quant", os.path.join(work, f"q_{name}.onnx"), "--data",
         os.path.join(work, "reference.npy"), "--no-latency", "--json", out])
    sq[name] = json.load(open(out))["outputs"][0]["sqnr_db"]
assert abs(sq["png"] - sq["npy"]) < 0.01, sq
print(f"quantize --calib: {sq['png']:.4f} dB from PNGs, {sq['npy']:.4f} dB from .npy")
# calib-lab: the same runs on the same pool and evaluation set, labels from the class folders.
lab = {}
for name, args in (("png", ["--calib", folder, "--data", folder, "--preprocess", SPEC]),
                   ("npy", ["--calib", per_sample, "--data", per_sample, "--labels",
                            os.path.join(work, "reference_labels.npy")])):
    out = os.path.join(work, f"lab_{name}.json")
    run(["calib-lab", "--float", float_model, "--methods", "minmax,percentile:99.9", "--sizes", "8",
         "--repeats", "2", "--seed", "3", "--batch", "16", "--json", out] + args)
    lab[name] = json.load(open(out))["runs"]
assert len(lab["png"]) == len(lab["npy"]) == 4
for x, y in zip(lab["png"], lab["npy"]):
    assert x["id"] == y["id"] and x["calib_indices"] == y["calib_indices"], (x, y)
    x, y = x["output"], y["output"]
    assert abs(x["sqnr_db"] - y["sqnr_db"]) < 0.01, (x, y)
    assert x["accuracy"] == y["accuracy"] and x["accuracy"] is not None, (x, y)
# A run's reproduce command preprocesses its images as the lab did: its model is the lab's.
command = lab["png"][1]["reproduce"].replace("quantlens ", "", 1)
assert "--preprocess" in command, command
subprocess.run(f"cd {work} && {quantlens} {command}", shell=True, check=True, capture_output=True)
rerun = os.path.join(work, "lab_rerun.json")
run(["analyze", "--float", float_model, "--quant", os.path.join(work, lab["png"][1]["id"].replace(":", "_") + ".onnx"),
     "--data", folder, "--preprocess", SPEC, "--batch", "16", "--no-latency", "--json", rerun])
assert abs(json.load(open(rerun))["outputs"][0]["sqnr_db"] - lab["png"][1]["output"]["sqnr_db"]) < 0.01
# search: the same fp32 set for the same target.
found = {}
for name, args in (("png", ["--data", folder, "--preprocess", SPEC]),
                   ("npy", ["--data", per_sample, "--labels", os.path.join(work, "reference_labels.npy")])):
    out = os.path.join(work, f"search_{name}.json")
    run(["search", "--float", float_model, "--quant", os.path.join(demo, "fashion_cnn_int8.onnx"),
         "--target", "sqnr:30", "--batch", "16", "--json", out] + args)
    found[name] = json.load(open(out))
assert found["png"]["fp32_layers"] == found["npy"]["fp32_layers"], (found["png"]["fp32_layers"], found["npy"]["fp32_layers"])
assert found["png"]["fp32_layers"], found["png"]  # the demo's 21.6 dB needs some
print(f"search: fp32 {found['png']['fp32_layers']} for 30 dB from both")
# infer: one image as a batch of one, the same outputs as its reference row.
first_image = sorted(os.listdir(os.path.join(folder, CLASSES[0])))[0]
run(["infer", float_model, "--input", "input=" + os.path.join(folder, CLASSES[0], first_image),
     "--preprocess", SPEC, "--output-dir", os.path.join(work, "infer_png")])
np.save(os.path.join(work, "first.npy"), expected_rows[0][None, None])
run(["infer", float_model, "--input", "input=" + os.path.join(work, "first.npy"),
     "--output-dir", os.path.join(work, "infer_npy")])
o1, o2 = (np.load(os.path.join(work, d, "output_0.npy")) for d in ("infer_png", "infer_npy"))
assert o1.shape == o2.shape and np.allclose(o1, o2, atol=1e-4), (o1, o2)
print("quantize, calib-lab, search and infer read the images as analyze does")

# Bad input: one line naming the file or the key, exit 2.
bad = os.path.join(work, "bad")
os.makedirs(os.path.join(bad, "a class"))
good = os.path.join(folder, CLASSES[labels[0]], "sample 00.png")
data = open(good, "rb").read()
open(os.path.join(bad, "a class", "ok.png"), "wb").write(data)
open(os.path.join(bad, "a class", "truncated.png"), "wb").write(data[: len(data) // 2])
p = run(common + ["--data", bad], expect=2)
assert "truncated.png" in p.stderr and len(p.stderr.strip().splitlines()) <= 2, p.stderr
# A file too short to hold an image header (once a crash: an exception on a decoding thread).
os.makedirs(os.path.join(bad, "b class"))
open(os.path.join(bad, "b class", "tiny.png"), "wb").write(b"\x89PN")
open(os.path.join(bad, "b class", "ok too.png"), "wb").write(data)
p = run(common + ["--data", os.path.join(bad, "b class")], expect=2)
assert "tiny.png" in p.stderr and len(p.stderr.strip().splitlines()) <= 2, p.stderr
# --skip-bad-inputs: the two bad files are left out, counted and named; the two good ones keep
# their class folders' labels.
p = run(common + ["--data", bad, "--skip-bad-inputs", "--json", os.path.join(work, "skipped.json")])
assert "skipped 2 of 4 images" in p.stderr, p.stderr
s = json.load(open(os.path.join(work, "skipped.json")))
assert sorted(os.path.basename(x["file"]) for x in s["skipped_inputs"]) == ["tiny.png", "truncated.png"], s
assert s["images"] == 2 and s["samples"] == 2 and s["classes"] == ["a class", "b class"], s
assert sorted((os.path.basename(w["file"]), w["label"]) for w in s["worst_samples"]) == [("ok too.png", 1), ("ok.png", 0)]
# search loads its data in the session: the same skipping there.
p = run(["search", "--float", float_model, "--quant", os.path.join(demo, "fashion_cnn_int8.onnx"),
         "--data", bad, "--skip-bad-inputs", "--target", "sqnr:30", "--json", os.path.join(work, "s.json")])
assert "skipped 2 of 4 images" in p.stderr and "2 images in 2 class folders" in p.stderr, p.stderr
p = run(common + ["--data", folder, "--preprocess", "colour=gray"], expect=2)
assert "colour" in p.stderr, p.stderr
with open(os.path.join(work, "short.txt"), "w") as f:
    f.write("1\n2\n")
p = run(common + ["--data", folder, "--labels", os.path.join(work, "short.txt")], expect=2)
assert "2 labels for 64 images" in p.stderr, p.stderr
p = run(common + ["--data", folder, "--preprocess", "color=rgb"], expect=2)
assert "preprocessed to [3," in p.stderr and "png" in p.stderr, p.stderr
# JPEGs of mixed sizes, RGB and grayscale, on an ImageNet-shaped model with the imagenet preset
# (its int8 side quantized here from seeded random inputs).
tiny = os.path.join(source, "tests", "data", "images", "tiny_imagenet.onnx")
np.save(os.path.join(work, "calib.npy"), np.random.default_rng(0).standard_normal((8, 3, 224, 224)).astype(np.float32))
run(["quantize", tiny, "--calib", os.path.join(work, "calib.npy"), "--out", os.path.join(work, "tiny_int8.onnx")])
jpegs = os.path.join(source, "tests", "data", "images", "jpegs")
p = run(["analyze", "--float", tiny, "--quant", os.path.join(work, "tiny_int8.onnx"), "--data", jpegs,
         "--preprocess", "imagenet", "--batch", "4", "--no-latency", "--json", os.path.join(work, "jpegs.json")])
j = json.load(open(os.path.join(work, "jpegs.json")))
assert j["images"] == 6 and "classes" not in j, j.get("images")
assert j["preprocess"].startswith("color=rgb,resize=256,crop=224x224,scale=1/255,mean=0.485:0.456:0.406"), j["preprocess"]
assert j["outputs"][0]["sqnr_db"] > 10, j["outputs"][0]
print(f"jpegs: output SQNR {j['outputs'][0]['sqnr_db']:.2f} dB")
print("images OK")
