#!/usr/bin/env bash
# Data-Free Quantization's case on a trained network (issue 36's "done when"): the MobileNetV2-
# style Fashion-MNIST net of tests/tools/make_dfq_fixture.py, BatchNorm folded at export, with
# its depthwise channels 1/64 .. 16 apart (float-equivalent). Quantized with per-tensor weights
# on 64 calibration images and analysed on 1,000 test images with labels:
#   - naive int8 loses at least 3 points of accuracy or 10 dB of output SQNR against the same
#     network with balanced ranges;
#   - --remedy cle --remedy bias-correction brings it within 1 point of float accuracy and within
#     3 dB of the balanced network's per-tensor output SQNR;
#   - a user's naive int8 model (--quant) and the re-quantization with those remedies (--calib
#     --remedy) side by side: the same figures as analysing each alone.
source "$(dirname "$0")/remedy_cases.sh"  # from this script's arguments: $quantlens, $data, $work, expect

analyze_case balanced "$data/fashion_mobilenet_balanced.onnx" --per-tensor
analyze_case naive "$data/fashion_mobilenet.onnx" --per-tensor
analyze_case equalized "$data/fashion_mobilenet.onnx" --per-tensor --remedy cle
analyze_case remedied "$data/fashion_mobilenet.onnx" --per-tensor --remedy cle --remedy bias-correction
# The diagnosis names the remedy: depthwise channel ranges thousands of times apart.
expect "naive analysis suggests cle" 0 "cross-layer equalization (quantize --remedy cle)" -- cat "$work/naive.log"
expect "naive JSON finding names the remedy" 0 "" -- python3 -c \
    "import json, sys; sys.exit(not any(f.get('remedy') == 'cle' and f['channel_range_spread'] >= 1000 for f in json.load(open(sys.argv[1]))['findings']))" \
    "$work/naive.json"
# After CLE the layers' errors carry per-channel shifts: the diagnosis suggests bias correction,
# and once it ran, no longer.
shift_findings() {
    python3 -c "import json, sys; print(sum(f.get('remedy') == 'bias-correction' for f in json.load(open(sys.argv[1]))['findings']))" "$1"
}
check "after cle, bias correction is suggested" "$(shift_findings "$work/equalized.json") >= 1"
check "after both, it is not" "$(shift_findings "$work/remedied.json") == 0"
expect "the suggestion's wording" 0 "bias correction (quantize --remedy bias-correction) subtracts it" -- cat "$work/equalized.log"
expect "cle equalized the depthwise pairs" 0 "equalized Conv" -- cat "$work/remedied.log"
expect "bias correction ran" 0 "bias correction: " -- cat "$work/remedied.log"
expect "analysis JSON records its command line" 0 "" -- python3 -c \
    "import json, sys; sys.exit('--per-tensor' not in (c := json.load(open(sys.argv[1]))['command_line']) or not c.endswith('--remedy cle --remedy bias-correction'))" \
    "$work/remedied.json"

balanced_db=$(field "$work/balanced.json" sqnr_db)
naive_db=$(field "$work/naive.json" sqnr_db)
remedied_db=$(field "$work/remedied.json" sqnr_db)
float_acc=$(field "$work/naive.json" float_accuracy)
naive_acc=$(field "$work/naive.json" quant_accuracy)
remedied_acc=$(field "$work/remedied.json" quant_accuracy)
check "naive int8 loses >= 3 points or >= 10 dB" \
    "$float_acc - $naive_acc >= 0.03 or $balanced_db - $naive_db >= 10"
check "remedied within 1 point of float accuracy" "$float_acc - $remedied_acc <= 0.01"
check "remedied within 3 dB of the balanced network" "$remedied_db >= $balanced_db - 3"
# The float side is the same function either way (the imbalance is float-equivalent).
check "float accuracy is the balanced network's" "$float_acc == $(field "$work/balanced.json" float_accuracy)"

# Side by side: the naive model as a file of its own (a user's int8 model) and QuantLens's
# re-quantization with cle + bias correction, on the same test images.
expect "quantize the naive model" 0 "wrote" -- "$quantlens" quantize "$data/fashion_mobilenet.onnx" \
    --calib "$data/fashion_calib.npy" --per-tensor --out "$work/naive_int8.onnx"
expect "analyze side by side" 0 "side by side on the same 1000 samples" -- "$quantlens" analyze \
    --float "$data/fashion_mobilenet.onnx" --quant "$work/naive_int8.onnx" \
    --calib "$data/fashion_calib.npy" --per-tensor --remedy cle --remedy bias-correction \
    --data "$data/fashion_test.npy" --labels "$data/fashion_test_labels.npy" \
    --json "$work/side.json" --no-isolated --no-kernel-check --threads 2
cp "$work/out" "$work/side.log"
expect "the depthwise layer's change is listed" 0 "/features/features.3/conv/conv.3/Conv" -- \
    grep "^/features/features.3/conv/conv.3/Conv .* | " "$work/side.log"
side_naive_db=$(python3 -c "import json, sys; print(json.load(open(sys.argv[1]))['outputs'][0]['sqnr_db'])" "$work/side.json")
side_remedied_db=$(python3 -c "import json, sys; r = json.load(open(sys.argv[1]))['requantized']; print(r['outputs'][0]['sqnr_db'])" "$work/side.json")
side_remedied_acc=$(python3 -c "import json, sys; r = json.load(open(sys.argv[1]))['requantized']; print(r['outputs'][0]['quant_accuracy'])" "$work/side.json")
check "side by side: your model as analysed alone" "abs($side_naive_db - $naive_db) < 0.01"
check "side by side: the re-quantization as analysed alone" "abs($side_remedied_db - $remedied_db) < 0.01"
check "side by side: the re-quantization's accuracy" "abs($side_remedied_acc - $remedied_acc) < 1e-9"
expect "side by side JSON records the remedies" 0 "" -- python3 -c "import json, sys; \
r = json.load(open(sys.argv[1]))['requantized']; sys.exit(not [x['remedy'] for x in r['remedies']] == ['cle', 'bias-correction'])" \
    "$work/side.json"

echo "remedies on DFQ's case: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
