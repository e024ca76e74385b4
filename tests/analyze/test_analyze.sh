#!/usr/bin/env bash
# `quantlens analyze` on the PyTorch FX fixture (tests/data/fx_fashion_cnn, made by
# tests/tools/make_fx_fixture.py): per-layer weight SQNR within 0.1 dB of PyTorch Numeric Suite's
# extract_weights, cumulative activation SQNR within 1 dB of add_loggers, accuracy of both models
# as PyTorch measured it, figures independent of the batch size, the CSV equal to the JSON, the
# in-app quantization path, and one-line errors with exit code 2 for bad input.
set -u
quantlens=$1
repo=$2
fixture="$repo/tests/data/fx_fashion_cnn"
check="python3 $repo/tests/analyze/check_analyze.py"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export OMP_NUM_THREADS=2
source "$(dirname "$0")/../cli/expect.sh"

pair=(--float "$fixture/float.onnx" --quant "$fixture/qdq.onnx" --data "$fixture/inputs.npy" --threads 2)
expect "analyze fixture" 0 "top-1 agreement" -- \
    "$quantlens" analyze "${pair[@]}" --labels "$fixture/labels.npy" --json "$work/a.json" --csv "$work/a.csv"
cat "$work/out"
expect "against PyTorch Numeric Suite" 0 "PyTorch" -- \
    $check torch "$work/a.json" "$fixture/numeric_suite.json"
cat "$work/out"
expect "CSV equals JSON" 0 "" -- $check csv "$work/a.json" "$work/a.csv"
expect "analyze batch 7" 0 "" -- "$quantlens" analyze "${pair[@]}" --batch 7 --json "$work/b7.json"
expect "batch 7 == batch 8" 0 "" -- $check same "$work/a.json" "$work/b7.json"

# A skip-list on the imported quantized model: conv2 runs fp32 (as the GUI toggle), the rest int8;
# an unknown name is a one-line error listing the closest names.
echo '{"model": "float.onnx", "fp32_nodes": ["/conv2/Conv"]}' >"$work/skip.json"
expect "analyze --quant --skip-list" 0 "kept in fp32: 1 layer(s)" -- \
    "$quantlens" analyze "${pair[@]}" --skip-list "$work/skip.json" --json "$work/skip_report.json"
expect "skip-list layers run fp32" 0 "" -- $check fp32 "$work/skip_report.json" "$work/a.json" /conv2/Conv
expect "unknown --exclude" 2 "closest names" -- "$quantlens" analyze "${pair[@]}" --exclude /conv9/Conv

# In-app quantization of the float model from the same samples (our quantizer, MSE ranges).
expect "analyze --calib" 0 "calibrated on 64 samples" -- \
    "$quantlens" analyze --float "$fixture/float.onnx" --calib "$fixture/inputs.npy" --method mse \
    --data "$fixture/inputs.npy" --labels "$fixture/labels.npy" --json "$work/calib.json" --threads 2
expect "in-app quantization report" 0 "" -- $check inapp "$work/calib.json"

# Bad input: exit code 2 and one line naming the file and the reason.
head -c 100 "$fixture/qdq.onnx" >"$work/truncated.onnx"
expect "truncated model" 2 "truncated.onnx" -- \
    "$quantlens" analyze --float "$fixture/float.onnx" --quant "$work/truncated.onnx" --data "$fixture/inputs.npy"
expect "mismatched pair" 2 "models do not match" -- \
    "$quantlens" analyze --float "$repo/tests/data/quantizer/mixed_ops.onnx" --quant "$fixture/qdq.onnx" \
    --data "$fixture/inputs.npy"
expect "float model as --quant" 2 "has no quantized nodes" -- \
    "$quantlens" analyze --float "$fixture/float.onnx" --quant "$fixture/float.onnx" --data "$fixture/inputs.npy"
expect "labels not integers" 2 "labels must be integer class ids" -- \
    "$quantlens" analyze "${pair[@]}" --labels "$fixture/inputs.npy"
python3 -c "
import struct,sys
hdr=\"{'descr': '<i8', 'fortran_order': False, 'shape': (10,), }\"
hdr+=' '*(118-len(hdr))+'\n'
open(sys.argv[1],'wb').write(b'\x93NUMPY\x01\x00'+struct.pack('<H',len(hdr))+hdr.encode()+bytes(80))" "$work/ten.npy"
expect "too few labels" 2 "10 labels, but the inputs hold more samples" -- "$quantlens" analyze "${pair[@]}" --labels "$work/ten.npy"
expect "wrong data shape" 2 "labels.npy" -- "$quantlens" analyze "${pair[@]/inputs.npy/labels.npy}"
expect "neither --quant nor --calib" 2 "give --quant QUANT.onnx, --calib DIR_OR_FILES, or both" -- \
    "$quantlens" analyze --float "$fixture/float.onnx" --data "$fixture/inputs.npy"
expect "bad --batch" 2 "--batch" -- "$quantlens" analyze "${pair[@]}" --batch 0

echo "analyze: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
