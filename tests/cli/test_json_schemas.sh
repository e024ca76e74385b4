#!/usr/bin/env bash
# Every JSON QuantLens writes validates against its schema in resources/docs/schema/ (Draft
# 2020-12, Debian's python3-jsonschema): analyses (with findings, worst samples and a re-quantized
# analysis beside), searches (fp32 and 16-bit sets, a holdout), skip-lists (search's and
# quantize --report's) and projects. The corpus pairs and the calibration lab validate theirs in
# their own tests (analyze_pytorch_corpus, calib_lab_cli).
set -u
quantlens=$1
repo=$2
demo="$repo/resources/demo"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export OMP_NUM_THREADS=2 QT_QPA_PLATFORM=offscreen
source "$(dirname "$0")/expect.sh"
validate="python3 $repo/tests/tools/validate_json.py"
pair=(--float "$demo/fashion_cnn.onnx" --quant "$demo/fashion_cnn_int8.onnx" --data "$demo/samples.npy" --threads 2)

expect "analyze" 0 "" -- "$quantlens" analyze "${pair[@]}" --labels "$demo/labels.npy" --json "$work/a.json"
expect "analyze beside a re-quantization" 0 "" -- "$quantlens" analyze "${pair[@]}" --calib "$demo/pool" \
    --remedy bias-correction --json "$work/beside.json"
expect "analyze in the app" 0 "" -- "$quantlens" analyze --float "$demo/fashion_cnn.onnx" --calib "$demo/pool" \
    --data "$demo/samples.npy" --int16 /classifier/Gemm --json "$work/inapp.json"
expect "analyses" 0 "" -- $validate analysis "$work/a.json" "$work/beside.json" "$work/inapp.json"
cat "$work/out"
expect "the version" 0 "" -- python3 -c "
import json, sys
sys.exit(0 if json.load(open('$work/a.json'))['schema_version'] == 1 else 1)"

expect "search" 0 "" -- "$quantlens" search "${pair[@]}" --target sqnr:35 --holdout 0.25 --json "$work/s.json" \
    --skip-list "$work/skip.json"
expect "search with 16 bits" 0 "" -- "$quantlens" search --float "$demo/fashion_cnn.onnx" --calib "$demo/pool" \
    --data "$demo/samples.npy" --target sqnr:48 --raise-to fp32,int16 --json "$work/s16.json" \
    --skip-list "$work/skip16.json" --threads 2
expect "searches" 0 "" -- $validate search "$work/s.json" "$work/s16.json"
cat "$work/out"
expect "quantize report" 0 "" -- "$quantlens" quantize "$demo/fashion_cnn.onnx" --calib "$demo/pool" \
    --exclude /features/features.0/Conv --out "$work/q.onnx" --report "$work/report.json"
expect "skip-lists" 0 "" -- $validate skip-list "$work/skip.json" "$work/skip16.json" "$work/report.json"
cat "$work/out"
expect "projects" 0 "" -- $validate project "$demo/demo_fixed.qlproj"
cat "$work/out"

# A schema that is not met fails: the validator is not a test that cannot fail.
python3 -c "
import json
d = json.load(open('$work/a.json')); d['layers'][0]['precision'] = 8; json.dump(d, open('$work/bad.json', 'w'))"
expect "a wrong document is refused" 1 "precision" -- $validate analysis "$work/bad.json"

echo "JSON schemas: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
