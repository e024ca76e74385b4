#!/usr/bin/env bash
# SmoothQuant's case (issue 36's "done when"): the small pre-LN vision transformer of
# tests/tools/make_smoothquant_fixture.py, trained on Fashion-MNIST, with outlier channels made
# exactly (every LayerNorm's γ and β × 40 on four channels, the next weights' rows ÷ 40: the float
# function is unchanged). Quantized with per-tensor weights on 64 calibration images and analysed
# on 1,000 test images with labels:
#   - --remedy smoothquant gains at least 10 dB of output SQNR over plain per-tensor int8 and
#     comes within 3 dB of the same network without the outliers;
#   - the opset-13 export (LayerNorm written out node by node) gets the same gain, its scales
#     folded into the LayerNorm's Mul and Add;
#   - the diagnosis of the plain int8 model suggests SmoothQuant where the outliers are;
#   - search reaches sqnr:30 with the remedy alone (no fp32 layer), where no single fp32 layer
#     reaches it without.
source "$(dirname "$0")/remedy_cases.sh"  # from this script's arguments: $quantlens, $data, $work, expect

analyze_case balanced "$data/fashion_vit_balanced.onnx" --per-tensor
analyze_case naive "$data/fashion_vit.onnx" --per-tensor
analyze_case smoothed "$data/fashion_vit.onnx" --per-tensor --remedy smoothquant
analyze_case smoothed13 "$data/fashion_vit_op13.onnx" --per-tensor --remedy smoothquant=0.5
# The diagnosis names the remedy: the four LayerNorms and the token mean before the head.
expect "naive analysis suggests smoothquant" 0 "SmoothQuant (quantize --remedy smoothquant)" -- cat "$work/naive.log"
expect "five outlier findings, none without outliers" 0 "" -- python3 -c "import json, sys; \
count = lambda f: sum(x.get('remedy') == 'smoothquant' and x['value'] >= 30 for x in json.load(open(f))['findings']); \
sys.exit(not (count(sys.argv[1]) == 5 and count(sys.argv[2]) == 0))" "$work/naive.json" "$work/balanced.json"
expect "scales folded into the LayerNorms" 0 \
    "(alpha 0.5, into LayerNormalization '/blocks/blocks.0/ln1/LayerNormalization')" -- cat "$work/smoothed.log"
expect "the token mean before the head gets a Mul" 0 "into inserted Mul '/ReduceMean_output_0_smooth'" -- \
    cat "$work/smoothed.log"
expect "the inserted Mul runs in float" 0 "" -- grep -E "^/ReduceMean_output_0_smooth +Mul +fp32" "$work/smoothed.log"
expect "opset 13: into the LayerNorm's Mul and Add" 0 \
    "into Mul '/blocks/blocks.0/ln1/Mul' and Add '/blocks/blocks.0/ln1/Add_1'" -- cat "$work/smoothed13.log"
expect "activations without outliers are left" 0 \
    "left     '/blocks/blocks.0/act/Mul_1_output_0' for '/blocks/blocks.0/fc2/MatMul': no outlier channels" -- \
    cat "$work/smoothed.log"
expect "JSON records the smoothing" 0 "" -- python3 -c "import json, sys; \
r = [x for x in json.load(open(sys.argv[1]))['remedies'] if x['remedy'] == 'smoothquant']; \
sys.exit(not (len(r) == 1 and len(r[0]['activations']) == 5 and r[0]['samples'] == 64 and \
all(a['activation_spread_before'] > 30 and a['activation_spread_after'] < 2 for a in r[0]['activations'])))" \
    "$work/smoothed.json"

# The HTML report names the remedy with the quantizer options.
expect "HTML report with a remedy" 0 "" -- "$quantlens" analyze --float "$data/fashion_vit.onnx" \
    --calib "$data/fashion_calib.npy" --data "$data/fashion_calib.npy" --per-tensor \
    --remedy smoothquant --no-kernel-check --no-isolated --no-latency --threads 2 --html "$work/r.html"
expect "the report says smoothquant" 0 "" -- grep -q '&quot;remedies&quot;:\[&quot;smoothquant&quot;\]' "$work/r.html"

balanced_db=$(field "$work/balanced.json" sqnr_db)
naive_db=$(field "$work/naive.json" sqnr_db)
smoothed_db=$(field "$work/smoothed.json" sqnr_db)
smoothed13_db=$(field "$work/smoothed13.json" sqnr_db)
float_acc=$(field "$work/naive.json" float_accuracy)
smoothed_acc=$(field "$work/smoothed.json" quant_accuracy)
check "smoothquant gains >= 10 dB over per-tensor int8" "$smoothed_db >= $naive_db + 10"
check "smoothquant within 3 dB of the network without outliers" "$smoothed_db >= $balanced_db - 3"
check "opset 13 gains as much (within 1 dB)" "abs($smoothed13_db - $smoothed_db) <= 1"
check "smoothed within 1 point of float accuracy" "$float_acc - $smoothed_acc <= 0.01"
check "float accuracy is the balanced network's" "$float_acc == $(field "$work/balanced.json" float_accuracy)"

# search (on the 64 calibration images, to keep the 57 evaluations short): the remedy alone
# meets sqnr:30; without it, the empty set, all and every single fp32 layer are measured (57
# sets) and none meets it.
search() {
    "$quantlens" search --float "$data/fashion_vit.onnx" --calib "$data/fashion_calib.npy" \
        --per-tensor --data "$data/fashion_calib.npy" --target sqnr:30 --threads 2 "$@"
}
expect "search with smoothquant: no fp32 layer" 0 "met with 0 of 55 int8 layer(s) in fp32" -- \
    search --remedy smoothquant --json "$work/search_sq.json"
expect "search JSON records the remedy" 0 "" -- python3 -c "import json, sys; \
r = json.load(open(sys.argv[1])); sys.exit(not (r['fp32_layers'] == [] and r['remedies'][0]['remedy'] == 'smoothquant' and r['all_raised'] is None))" \
    "$work/search_sq.json"
expect "search without, 57 sets" 0 "57 evaluations" -- search --max-evaluations 57 --json "$work/search.json"
expect "no single fp32 layer meets sqnr:30" 0 "" -- python3 -c "import json, sys; \
steps = json.load(open(sys.argv[1]))['steps']; single = [s for s in steps if len(s['fp32_layers']) <= 1]; \
sys.exit(not (len(single) == 56 and all((s['metric'] if s['metric'] is not None else s['best_reachable']) < 30 for s in single)))" \
    "$work/search.json"

echo "remedies on SmoothQuant's case: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
