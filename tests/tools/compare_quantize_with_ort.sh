#!/usr/bin/env bash
# `quantlens quantize` output in ONNX Runtime vs QuantLens (manual: CI has no ONNX Runtime).
#
#   compare_quantize_with_ort.sh QUANTLENS [FLOAT.onnx CALIB.npy]   (default: the demo model)
#
# For each quantizer setting, quantizes the model with CALIB.npy, then runs the same CALIB.npy
# through: QuantLens float, QuantLens on the QDQ model, ONNX Runtime on the QDQ model with all graph
# optimizations (its int8 kernels) and with optimizations disabled (QDQ executed as float ops,
# ORT's reference path). Prints a markdown table of SQNRs and exits 1 when QuantLens and ORT's
# reference path differ by more than 40 dB or QuantLens vs float is below 30 dB.
set -u -o pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
quantlens=${1:?usage: compare_quantize_with_ort.sh QUANTLENS [FLOAT.onnx CALIB.npy]}
model=${2:-$repo/resources/demo/fashion_cnn.onnx}
calib=${3:-$repo/resources/demo/samples.npy}
sqnr() { python3 "$repo/tests/quantize/sqnr.py" "$1" "$2" | sed 's/SQNR //; s/ dB//'; }
work=$(mktemp -d /tmp/quantize-vs-ort.XXXXXX)
export OMP_NUM_THREADS=2
failures=0

"$quantlens" infer "$model" --input "input=$calib" --output-dir "$work/float" --threads 2 >/dev/null || exit 1
grep -qw avx512_vnni /proc/cpuinfo && isa="VNNI" || isa="no VNNI ($(grep -ow -m1 'avx512f\|avx2' /proc/cpuinfo | head -1))"
echo "model: $model, calibration and evaluation: $calib, CPU: $isa"
echo
if "$quantlens" infer --help | grep -q -- --precision; then int8=1; else int8=0; fi
if [ "$int8" = 1 ]; then
    echo "| setting | QuantLens reference vs float | ORT reference vs QuantLens reference | QuantLens int8 vs float | QuantLens int8 vs reference | ORT int8 vs QuantLens int8 | int8 fallbacks |"
    echo "|---|---|---|---|---|---|---|"
else
    echo "| setting | QuantLens QDQ vs float | ORT reference vs QuantLens | ORT int8 vs QuantLens |"
    echo "|---|---|---|---|"
fi
for setting in "default:" "per-tensor:--per-tensor" "symmetric:--symmetric-activations" \
               "reduce-range:--reduce-range" "percentile:--method percentile" "mse:--method mse"; do
    name=${setting%%:*}
    args=${setting#*:}
    # shellcheck disable=SC2086
    "$quantlens" quantize "$model" --calib "$calib" --out "$work/$name.onnx" $args >"$work/$name.log" 2>&1 ||
        { echo "| $name | quantize failed: $(tail -1 "$work/$name.log") | | |"; failures=$((failures + 1)); continue; }
    if [ "$int8" = 1 ]; then
        "$quantlens" infer "$work/$name.onnx" --input "input=$calib" --output-dir "$work/$name" --threads 2 \
            --precision reference >/dev/null
        "$quantlens" infer "$work/$name.onnx" --input "input=$calib" --output-dir "$work/$name.int8" --threads 2 \
            --precision int8 >/dev/null
    else
        "$quantlens" infer "$work/$name.onnx" --input "input=$calib" --output-dir "$work/$name" --threads 2 >/dev/null
    fi
    node "$here/ort_run.js" infer "$work/$name.onnx" "$calib" "$work/$name.ort.npy" >/dev/null
    ORT_GRAPH_OPTIMIZATION=disabled node "$here/ort_run.js" infer "$work/$name.onnx" "$calib" "$work/$name.ortref.npy" >/dev/null
    ours="$work/$name/output_0.npy"
    vs_float=$(sqnr "$work/float/output_0.npy" "$ours")
    vs_ref=$(sqnr "$work/$name.ortref.npy" "$ours")
    vs_int8=$(sqnr "$work/$name.ort.npy" "$ours")
    if [ "$int8" = 1 ]; then
        int8_out="$work/$name.int8/output_0.npy"
        fallbacks=$(grep -c '"node"' "$work/$name.int8/outputs.json")
        echo "| $name | $vs_float dB | $vs_ref dB | $(sqnr "$work/float/output_0.npy" "$int8_out") dB |" \
             "$(sqnr "$ours" "$int8_out") dB | $(sqnr "$work/$name.ort.npy" "$int8_out") dB | $fallbacks |"
    else
        echo "| $name | $vs_float dB | $vs_ref dB | $vs_int8 dB |"
    fi
    python3 -c "import sys; sys.exit(0 if float('$vs_float') >= 30 and float('$vs_ref') >= 40 else 1)" ||
        failures=$((failures + 1))
done
echo
echo "work folder: $work"
[ "$failures" -eq 0 ]
