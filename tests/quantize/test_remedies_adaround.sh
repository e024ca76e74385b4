#!/usr/bin/env bash
# AdaRound on a trained network (issue 36): the Fashion-MNIST MobileNetV2-style net with balanced
# ranges (tests/tools/make_dfq_fixture.py), per-tensor int8 weights, calibrated on 64 images and
# analysed on the 1,000 test images it never saw:
#   - --remedy adaround gains at least 3 dB of output SQNR and loses no accuracy;
#   - every layer it rounded adaptively has a higher isolated SQNR on the test images;
#   - the diagnosis suggests it on the naive model, not after it ran;
#   - on DFQ's case, after cle it gains at least 3 dB more;
#   - chosen layers only; an unknown layer is refused with one line;
#   - search (on the 64 calibration images, to keep it short) reaches sqnr:33 with adaround and
#     bias-correction alone (no fp32 layer), where no single fp32 layer reaches it without them.
source "$(dirname "$0")/remedy_cases.sh"  # from this script's arguments: $quantlens, $data, $work, expect

# isolated_case NAME OPTIONS...: as analyze_case, with the isolated per-layer SQNR.
isolated_case() {
    local name=$1
    shift
    expect "analyze $name" 0 "output 'logits'" -- "$quantlens" analyze \
        --float "$data/fashion_mobilenet_balanced.onnx" --calib "$data/fashion_calib.npy" \
        --data "$data/fashion_test.npy" --labels "$data/fashion_test_labels.npy" \
        --json "$work/$name.json" --no-kernel-check --threads 2 --per-tensor "$@"
    cp "$work/out" "$work/$name.log"
}
isolated_case naive
isolated_case rounded --remedy adaround
# The diagnosis names the remedy where weight rounding is a large share of the layers' own
# error, and not once AdaRound chose the rounding.
expect "naive analysis suggests adaround" 0 "AdaRound (quantize --remedy adaround)" -- cat "$work/naive.log"
expect "rounded analysis does not" 1 "" -- grep -q "rounding_dominated" "$work/rounded.json"
expect "adaround reports per layer" 0 "rounded Conv '/features/features.0/Conv'" -- cat "$work/rounded.log"
expect "analysis JSON records its command line" 0 "" -- python3 -c \
    "import json, sys; sys.exit(not json.load(open(sys.argv[1]))['command_line'].endswith('--remedy adaround'))" \
    "$work/rounded.json"
# The layers AdaRound rounded (it keeps nearest rounding where the held-apart calibration samples
# say the choice does not generalise) each reconstruct better on the test images.
expect "every rounded layer's isolated SQNR rises on the test images" 0 "" -- python3 -c "
import json, sys
naive, rounded = (json.load(open(f)) for f in sys.argv[1:3])
remedy = next(r for r in rounded['remedies'] if r['remedy'] == 'adaround')
chosen = [l['node'] for l in remedy['layers'] if not l['kept_nearest']]
before = {l['name']: l['isolated_sqnr_db'] for l in naive['layers']}
after = {l['name']: l['isolated_sqnr_db'] for l in rounded['layers']}
for node in chosen:
    print(f'{node}: isolated SQNR {before[node]:.2f} -> {after[node]:.2f} dB')
sys.exit(not (len(chosen) >= 10 and remedy['steps'] == 500 and all(after[n] > before[n] for n in chosen)))
" "$work/naive.json" "$work/rounded.json"
cat "$work/out"

naive_db=$(field "$work/naive.json" sqnr_db)
rounded_db=$(field "$work/rounded.json" sqnr_db)
naive_acc=$(field "$work/naive.json" quant_accuracy)
rounded_acc=$(field "$work/rounded.json" quant_accuracy)
echo "per-tensor int8: output SQNR $naive_db -> $rounded_db dB, accuracy $naive_acc -> $rounded_acc"
check "adaround gains >= 3 dB of output SQNR" "$rounded_db >= $naive_db + 3"
check "adaround loses no accuracy (within half a point)" "$rounded_acc >= $naive_acc - 0.005"

# DFQ's case: after cross-layer equalization, the rounding is what is left to fix.
analyze_case equalized "$data/fashion_mobilenet.onnx" --per-tensor --remedy cle
analyze_case equalized_rounded "$data/fashion_mobilenet.onnx" --per-tensor --remedy cle --remedy adaround
check "after cle, adaround gains >= 3 dB" \
    "$(field "$work/equalized_rounded.json" sqnr_db) >= $(field "$work/equalized.json" sqnr_db) + 3"

expect "quantize: chosen layers only" 0 "AdaRound: 1 layer in" -- "$quantlens" quantize \
    "$data/fashion_mobilenet_balanced.onnx" --calib "$data/fashion_calib.npy" --per-tensor \
    --remedy adaround=/classifier/Gemm --out "$work/one.onnx"
cp "$work/out" "$work/one.log"
expect "quantize: the chosen layer is named" 0 "rounded Gemm '/classifier/Gemm'" -- cat "$work/one.log"
expect "quantize: an unknown layer is refused" 2 "AdaRound: no node 'nope' in the model" -- \
    "$quantlens" quantize "$data/fashion_mobilenet_balanced.onnx" --calib "$data/fashion_calib.npy" \
    --remedy adaround=nope --out "$work/nope.onnx"
expect "quantize: nothing written after the refusal" 1 "" -- test -e "$work/nope.onnx"
search() {
    "$quantlens" search --float "$data/fashion_mobilenet_balanced.onnx" \
        --calib "$data/fashion_calib.npy" --per-tensor --data "$data/fashion_calib.npy" \
        --target sqnr:33 --threads 2 "$@"
}
expect "search with both: no fp32 layer" 0 "met with 0 of 20 int8 layer(s) in fp32" -- \
    search --remedy adaround --remedy bias-correction --json "$work/search_both.json"
expect "search JSON records both remedies" 0 "" -- python3 -c "import json, sys; \
r = json.load(open(sys.argv[1])); sys.exit(not ([x['remedy'] for x in r['remedies']] == ['adaround', 'bias-correction'] and r['fp32_layers'] == [] and len(r['remedies'][1]['layers']) >= 10))" \
    "$work/search_both.json"
expect "search without: the empty set, all and each single layer" 0 "22 evaluations" -- \
    search --max-evaluations 22 --json "$work/search_plain.json"
expect "no single fp32 layer meets sqnr:33" 0 "" -- python3 -c "import json, sys; \
steps = json.load(open(sys.argv[1]))['steps']; single = [s for s in steps if len(s['fp32_layers']) <= 1]; \
sys.exit(not (len(single) == 21 and all((s['metric'] if s['metric'] is not None else s['best_reachable']) < 33 for s in single)))" \
    "$work/search_plain.json"

echo "AdaRound: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
