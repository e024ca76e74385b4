#!/usr/bin/env bash
# Interleaved int8 / fp32 latency table: ONNX Runtime (Node.js) vs QuantLens, batch 1.
#
#   bench_int8_table.sh QUANTLENS MODELS_DIR [ROUNDS=5] [RUNS=20] [THREADS=2] [MODELS="resnet18 resnet50 mobilenet_v2"]
#
# MODELS_DIR holds NAME.onnx (float) and NAME_qdq.onnx (PyTorch FX QDQ export, see
# export_torchvision.py). Every round runs each engine/mode once per model (RUNS timed runs,
# median), in turn, so that slow phases of a shared machine hit all columns alike; the table
# shows the median of the round medians in ms. Prints a markdown table.
set -u -o pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ql=$1 dir=$2 rounds=${3:-5} runs=${4:-20} threads=${5:-2}
models=${6:-"resnet18 resnet50 mobilenet_v2"}
node=${NODE:-node}
work=$(mktemp -d /tmp/int8-table.XXXXXX)
median() { grep '^median_ms:' | awk '{print $2}'; }
for ((r = 1; r <= rounds; ++r)); do
    for m in $models; do
        q="$dir/${m}_qdq.onnx" f="$dir/$m.onnx"
        "$node" "$here/ort_run.js" bench "$q" --threads "$threads" --runs "$runs" | median >>"$work/$m.ort_int8"
        "$ql" bench "$q" --threads "$threads" --runs "$runs" --int8-kernels exact | median >>"$work/$m.ql_exact"
        "$ql" bench "$q" --threads "$threads" --runs "$runs" --int8-kernels fast | median >>"$work/$m.ql_fast"
        "$ql" bench "$f" --threads "$threads" --runs "$runs" | median >>"$work/$m.ql_fp32"
        "$node" "$here/ort_run.js" bench "$f" --threads "$threads" --runs "$runs" | median >>"$work/$m.ort_fp32"
    done
    echo "round $r done" >&2
done
mid() { sort -g "$1" | awk '{v[NR] = $1} END {printf "%.1f", NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }
echo "| model | ORT 1.30 int8 | QuantLens int8 exact | QuantLens int8 fast | QuantLens fp32 | ORT 1.30 fp32 | fp32 / int8 exact | fp32 / int8 fast |"
echo "|---|---|---|---|---|---|---|---|"
for m in $models; do
    oi=$(mid "$work/$m.ort_int8") e=$(mid "$work/$m.ql_exact") fa=$(mid "$work/$m.ql_fast")
    fp=$(mid "$work/$m.ql_fp32") of=$(mid "$work/$m.ort_fp32")
    echo "| $m | $oi | $e | $fa | $fp | $of | $(awk "BEGIN {printf \"%.2fx\", $fp / $e}") | $(awk "BEGIN {printf \"%.2fx\", $fp / $fa}") |"
done
echo "(raw round medians in $work)" >&2
