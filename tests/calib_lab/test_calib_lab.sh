#!/usr/bin/env bash
# `quantlens calib-lab` on the embedded demo (a Fashion-MNIST CNN; 64 training images as the pool,
# 64 labelled test images): a 4 methods x 4 sizes x 3 repeats lab whose every CI and McNemar p
# SciPy recomputes from the JSON's own predictions; a run reproduced by `quantize` + `analyze`
# within 0.01 dB and written by --export-run byte for byte; the calibration batch changing nothing
# but the moving average; Ctrl+C keeping the finished runs; one-line errors, exit 2, no file.
set -u
quantlens=$1
repo=$2
demo="$repo/resources/demo"
check="/usr/bin/python3 $repo/tests/calib_lab/check_calib_lab.py"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export OMP_NUM_THREADS=2
source "$(dirname "$0")/../cli/expect.sh"

lab=(--float "$demo/fashion_cnn.onnx" --calib "$demo/pool" --data "$demo/samples.npy" --labels "$demo/labels.npy"
     --threads 2 --seed 3)
expect "48-run lab" 0 "runs: 48 of 48" -- \
    "$quantlens" calib-lab "${lab[@]}" --methods minmax,percentile:99.99,entropy,mse --sizes 8,16,32,64 \
    --repeats 3 --json "$work/lab.json"
tail -n 3 "$work/out"
expect "statistics against SciPy" 0 "checked against SciPy" -- $check stats "$work/lab.json" 40
cat "$work/out"

# Reproduce minmax-n16-r1-b1 outside the lab with the command the JSON gives.
run=minmax-n16-r1-b1
reproduce=$(/usr/bin/python3 -c "import json,sys; print(next(r['reproduce'] for r in json.load(open(sys.argv[1]))['runs'] if r['id'] == sys.argv[2]))" "$work/lab.json" $run)
read -r -a command <<<"${reproduce% --out *}"
expect "quantize the run's files" 0 "calibrated on 16 samples from 16 file(s)" -- \
    "$quantlens" "${command[@]:1}" --out "$work/q16.onnx"
expect "analyze the run's model" 0 "" -- "$quantlens" analyze --float "$demo/fashion_cnn.onnx" --quant "$work/q16.onnx" \
    --data "$demo/samples.npy" --json "$work/q16.json" --threads 2
expect "same SQNR as the lab" 0 "quantize + analyze" -- $check sqnr "$work/lab.json" $run "$work/q16.json"
cat "$work/out"
expect "export-run" 0 "wrote run $run" -- "$quantlens" calib-lab "${lab[@]}" --methods minmax --sizes 16 --repeats 1 \
    --export-run $run --out "$work/exported.onnx"
expect "export-run equals quantize" 0 "" -- cmp "$work/exported.onnx" "$work/q16.onnx"

# Only the moving average depends on the calibration batch: quantize at batch 1 and 16. (Not a
# byte comparison: on AVX2 oneDNN's float kernels sum in another order per batch size, which
# moves ranges by ULPs; the lab's identical runs are identical in exact arithmetic.)
for method in entropy moving-average; do
    for batch in 1 16; do
        expect "quantize $method batch $batch" 0 "" -- "$quantlens" "${command[@]:1:4}" \
            --method $method --calib-batch $batch --out "$work/$method-$batch.onnx"
        expect "analyze $method batch $batch" 0 "" -- "$quantlens" analyze --float "$demo/fashion_cnn.onnx" \
            --quant "$work/$method-$batch.onnx" --data "$demo/samples.npy" --json "$work/$method-$batch.json" --threads 2
    done
done
expect "entropy: batch 16 == batch 1" 0 "" -- $check same "$work/entropy-1.json" "$work/entropy-16.json" 0.01
expect "moving-average: batch 16 != batch 1" 0 "" -- \
    $check differ "$work/moving-average-1.json" "$work/moving-average-16.json" 1.0
cat "$work/out"

# Ctrl+C: a lab slowed by a 100x evaluation set (6400 rows, 90 runs: several seconds) is
# interrupted once its first runs are done.
big=()
for i in $(seq 100); do big+=(--data "$demo/samples.npy"); done
"$quantlens" calib-lab --float "$demo/fashion_cnn.onnx" --calib "$demo/pool" "${big[@]}" --threads 2 \
    --methods minmax,mse,percentile:99.9 --sizes 8,16,32 --repeats 10 --json "$work/partial.json" \
    >"$work/out" 2>"$work/err" &
pid=$!
for _ in $(seq 300); do grep -q "runs [1-9]" "$work/err" 2>/dev/null && break; sleep 0.1; done
kill -INT $pid
start=$(date +%s%N)
wait $pid
code=$?
stopped_ms=$(( ($(date +%s%N) - start) / 1000000 ))
echo "interrupted: exit $code after ${stopped_ms} ms"
expect "Ctrl+C exit code" 0 "" -- test $code -eq 130
expect "Ctrl+C stops within a second" 0 "" -- test $stopped_ms -lt 1000
expect "Ctrl+C keeps finished runs" 0 "runs kept" -- $check partial "$work/partial.json"
expect "lab JSON against its schema" 0 "valid (calib-lab)" -- \
    python3 "$repo/tests/tools/validate_json.py" calib-lab "$work/lab.json" "$work/partial.json"
expect "analyses against their schema" 0 "valid (analysis)" -- \
    python3 "$repo/tests/tools/validate_json.py" analysis "$work/q16.json"
cat "$work/out"

# Bad input: one line naming the value, exit 2, nothing written.
bad() {  # bad NAME TEXT -- extra arguments
    local name=$1 text=$2
    shift 3
    expect "$name" 2 "$text" -- "$quantlens" calib-lab "${lab[@]}" --json "$work/bad.json" "$@"
    # Progress lines may precede it; the error is one line.
    [ "$(grep -c '^quantlens:' "$work/err")" -eq 1 ] || { failed=$((failed + 1)); echo "FAIL $name: not one error line"; cat "$work/err"; }
    [ ! -e "$work/bad.json" ] || { failed=$((failed + 1)); echo "FAIL $name: wrote the JSON"; rm -f "$work/bad.json"; }
}
bad "size larger than the pool" "size 65 is larger than the pool (64 files)" -- --sizes 8,65
bad "unknown method" "unknown calibration method 'median'" -- --methods minmax,median
bad "bad size" "--sizes: 'x' is not a positive number" -- --sizes 8,x
mkdir "$work/empty"
bad "empty pool" "empty" -- --calib "$work/empty"
/usr/bin/python3 -c "import numpy as np; np.save('$work/labels63.npy', np.zeros(63, dtype=np.int64))"
bad "labels of the wrong length" "63 labels for 64 evaluation rows" -- --labels "$work/labels63.npy"
/usr/bin/python3 -c "import numpy as np; np.save('$work/wrong.npy', np.zeros((1, 32, 32), dtype=np.float32))"
bad "mismatched input shape" "wrong.npy" -- --calib "$demo/pool,$work/wrong.npy"
bad "unknown selection" "--selection expects random, stratified or first" -- --selection best

echo "calib-lab: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
