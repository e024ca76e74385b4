#!/usr/bin/python3
"""Print which ONNX op types (with counts) each model in a folder uses, as a markdown table.

Usage: /usr/bin/python3 list_ops.py [MODELS_DIR] [--quantlens BINARY]

With --quantlens, also runs `quantlens infer` on each model and names the first op it rejects,
which tells which kernels the models still need. Needs the onnx Python package only (no torch).
"""
import argparse
import collections
import glob
import os
import subprocess
import sys
import tempfile

import onnx


def op_counts(path):
    model = onnx.load(path, load_external_data=False)
    counts = collections.Counter(n.op_type for n in model.graph.node)
    return counts


def first_error(quantlens, path):
    data = os.path.join(os.path.splitext(path)[0], "input_0.npy")
    if not os.path.exists(data):
        return "no input_0.npy"
    with tempfile.TemporaryDirectory() as out:
        run = subprocess.run([quantlens, "infer", path, "--input", "input=" + data,
                              "--output-dir", out, "--threads", "2"],
                             capture_output=True, text=True)
    if run.returncode == 0:
        return "runs"
    return (run.stderr.strip().splitlines() or ["exit %d" % run.returncode])[-1]


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("models_dir", nargs="?", default="/tmp/models")
    parser.add_argument("--quantlens", help="quantlens binary: also report the first failure")
    args = parser.parse_args()
    paths = sorted(glob.glob(os.path.join(args.models_dir, "*.onnx")))
    if not paths:
        print(f"no .onnx files in {args.models_dir}", file=sys.stderr)
        return 2
    total = collections.Counter()
    header = "| model | ops (count) |" + (" quantlens infer |" if args.quantlens else "")
    print(header)
    print("|---|---|" + ("---|" if args.quantlens else ""))
    for path in paths:
        counts = op_counts(path)
        total.update(counts.keys())
        ops = ", ".join(f"{op} {n}" for op, n in sorted(counts.items()))
        row = f"| {os.path.basename(path)[:-5]} | {ops} |"
        if args.quantlens:
            row += " " + first_error(args.quantlens, path).replace("|", "/") + " |"
        print(row)
    print()
    print("op types over all models (number of models using each): " +
          ", ".join(f"{op} {n}" for op, n in sorted(total.items())))
    return 0


if __name__ == "__main__":
    sys.exit(main())
