#!/usr/bin/env python3
"""Data for models with several inputs (issue 18): `--data NAME=PATH` per input and `.npz` files
with one array per input name, in quantize, analyze and search, on the ONNX backend suite's
two-input Add (x, y: [3, 4, 5], a fixed batch of 3). The same samples given either way give the
same calibration and the same figures; wrong names, mixed forms and uneven inputs are one line,
exit 2.

    test_multi_input.py QUANTLENS
"""
import json
import os
import subprocess
import sys
import tempfile

import numpy as np

quantlens = os.path.abspath(sys.argv[1])
model = "/usr/share/libonnx-testdata/data/node/test_add/model.onnx"
work = tempfile.mkdtemp(prefix="ql-multi-")


def run(args, expect=0):
    p = subprocess.run([quantlens] + args, capture_output=True, text=True, cwd=work)
    if p.returncode != expect:
        sys.exit(f"quantlens {' '.join(args)}: exit {p.returncode}, want {expect}\n{p.stdout}\n{p.stderr}")
    return p


def path(*parts):
    return os.path.join(work, *parts)


rng = np.random.default_rng(7)
os.makedirs(path("x"))
os.makedirs(path("y"))
os.makedirs(path("npz"))
for i in range(6):
    x = rng.standard_normal((3, 4, 5)).astype(np.float32)
    y = (0.5 * rng.standard_normal((3, 4, 5))).astype(np.float32)
    np.save(path("x", f"{i:02d}.npy"), x)
    np.save(path("y", f"{i:02d}.npy"), y)
    save = np.savez_compressed if i % 2 else np.savez  # both forms numpy writes
    save(path("npz", f"{i:02d}.npz"), y=y, x=x)  # arrays found by name, not order

# The same calibration either way: the same model, so the same figures.
named = ["--data", "x=" + path("x"), "--data", "y=" + path("y")]
run(["quantize", model, "--calib", "x=" + path("x"), "--calib", "y=" + path("y"), "--out", path("named.onnx")])
q = run(["quantize", model, "--calib", path("npz"), "--out", path("npz.onnx")])
assert "18 samples from 6 file(s)" in q.stdout, q.stdout
figures = {}
for quant in ("named", "npz"):
    for data in ("named", "npz"):
        out = path(f"{quant}_{data}.json")
        run(["analyze", "--float", model, "--quant", path(quant + ".onnx"), "--no-latency", "--json", out]
            + (named if data == "named" else ["--data", path("npz")]))
        report = json.load(open(out))
        assert report["samples"] == 18, report["samples"]
        figures[quant, data] = report["outputs"][0]["sqnr_db"]
print("output SQNR (quantized from, data as):", figures)
values = list(figures.values())
assert max(values) - min(values) < 1e-6, figures
assert 20 < values[0] < 80, figures

# search reads named data too.
out = path("search.json")
run(["search", "--float", model, "--quant", path("named.onnx"), "--target", "sqnr:20", "--json", out] + named)
assert json.load(open(out))["fp32_layers"] == []

# Bad input: one line naming what is wrong, exit 2.
base = ["analyze", "--float", model, "--quant", path("named.onnx"), "--no-latency"]
p = run(base + ["--data", "x=" + path("x")], expect=2)
assert "no data for input 'y'" in p.stderr, p.stderr
p = run(base + ["--data", "x=" + path("x"), "--data", path("y")], expect=2)
assert "NAME=PATH" in p.stderr, p.stderr
p = run(base + ["--data", path("x")], expect=2)
assert "one input, this one has 2" in p.stderr and ".npz" in p.stderr, p.stderr
p = run(base + named + ["--data", "z=" + path("x")], expect=2)
assert "no input 'z'" in p.stderr, p.stderr
np.savez(path("wrong.npz"), x=np.zeros((3, 4, 5), np.float32), z=np.zeros((3, 4, 5), np.float32))
p = run(base + ["--data", path("wrong.npz")], expect=2)
assert "wrong.npz" in p.stderr and "'y'" in p.stderr, p.stderr
np.save(path("x", "06.npy"), np.zeros((3, 4, 5), np.float32))  # one more file for x than for y
p = run(base + named, expect=2)
assert "different numbers of samples" in p.stderr, p.stderr
print("multi-input data OK")
