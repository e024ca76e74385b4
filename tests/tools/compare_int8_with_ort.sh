#!/usr/bin/env bash
# Compare `quantlens infer/bench --precision int8` on PyTorch-FX QDQ models with PyTorch's own
# int8 output and with ONNX Runtime (Node.js).
#
#   compare_int8_with_ort.sh QUANTLENS MODELS_DIR [options]
#     --models a,b,...   models for the correctness table (default: resnet18,resnet50,mobilenet_v2)
#     --bench a,b,...    models for the speed table (default: the same; "none" skips it)
#     --threads N        threads for both engines (default 2)
#     --runs N           timed runs per bench call (default 30)
#     --rounds N         interleaved bench rounds ORT int8, QuantLens int8, QuantLens fp32 (default 3)
#     --min-sqnr DB      threshold for QuantLens int8 vs PyTorch int8 (default 35)
#     --no-precision     do not pass --precision (a quantlens without it; plumbing test only)
#     --work DIR         scratch folder for outputs (default: a fresh mktemp -d)
#
# MODELS_DIR is either what export_torchvision_qdq.py writes (NAME.onnx, NAME_qdq.onnx,
# NAME/input_0.npy, NAME/torch_int8_output_0.npy, optional NAME/qdq_reference_output_0.npy) or a
# folder of fixtures like tests/data (NAME/float.onnx, NAME/qdq.onnx, NAME/inputs.npy,
# NAME/torch_int8_output.npy, NAME/qdq_reference_output.npy), e.g.
#   compare_int8_with_ort.sh build/release/app/quantlens tests/data --models fx_fashion_cnn --bench none
# Prints markdown tables; exits 1 if a model errors or misses the SQNR threshold vs PyTorch int8.
set -u -o pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
python=/usr/bin/python3
node=${NODE:-node}
# cell, sqnr, top1_agreement, passes_sqnr, median, median_ms
source "$here/compare_common.sh"

usage() { sed -n '2,21p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; exit 2; }
[ $# -ge 2 ] || usage
quantlens=$1
models_dir=$2
shift 2
models="resnet18,resnet50,mobilenet_v2" bench=""
threads=2 runs=30 rounds=3 min_sqnr=35 work="" use_precision=1
while [ $# -gt 0 ]; do
    case $1 in
        --no-precision) use_precision=0; shift; continue ;;
        --models) models=$2 ;;
        --bench) bench=$2 ;;
        --threads) threads=$2 ;;
        --runs) runs=$2 ;;
        --rounds) rounds=$2 ;;
        --min-sqnr) min_sqnr=$2 ;;
        --work) work=$2 ;;
        *) usage ;;
    esac
    shift 2 || usage
done
[ -n "$bench" ] || bench=$models
[ -x "$quantlens" ] || { echo "compare_int8_with_ort.sh: $quantlens is not an executable" >&2; exit 2; }
[ -d "$models_dir" ] || { echo "compare_int8_with_ort.sh: $models_dir is not a folder" >&2; exit 2; }
[ -n "$work" ] || work=$(mktemp -d /tmp/quantlens-int8-vs-ort.XXXXXX)
mkdir -p "$work"
failures=0

# precision_args P: the --precision option, or nothing with --no-precision.
precision_args() { [ $use_precision -eq 1 ] && printf '%s\n' --precision "$1"; }

# Sets float_onnx, qdq_onnx, input, torch_int8, reference for model NAME (either layout).
locate() {
    local name=$1 d=$models_dir
    if [ -f "$d/${name}_qdq.onnx" ]; then
        float_onnx=$d/$name.onnx qdq_onnx=$d/${name}_qdq.onnx input=$d/$name/input_0.npy
        torch_int8=$d/$name/torch_int8_output_0.npy reference=$d/$name/qdq_reference_output_0.npy
    else
        float_onnx=$d/$name/float.onnx qdq_onnx=$d/$name/qdq.onnx input=$d/$name/inputs.npy
        torch_int8=$d/$name/torch_int8_output.npy reference=$d/$name/qdq_reference_output.npy
    fi
}

# ql_infer MODEL OUTDIR PRECISION: runs quantlens infer; log in OUTDIR.log.
ql_infer() {
    rm -rf "$2" && mkdir -p "$2"
    # shellcheck disable=SC2046
    "$quantlens" infer "$1" --input "input=$input" --output-dir "$2" --threads "$threads" \
        $(precision_args "$3") >"$2.log" 2>&1
}

# "int8 N / fallback M" from outputs.json's precision block, when the build writes one.
precision_summary() {
    "$python" - "$1" <<'PYEOF'
import json, sys
try:
    p = json.load(open(sys.argv[1])).get("precision", {})
except (OSError, ValueError):
    p = {}
fallback = p.get("fallback")
fallback = len(fallback) if isinstance(fallback, list) else p.get("fallback_nodes", "?")
print(f"{p['int8_nodes']} / {fallback}" if "int8_nodes" in p else "-")
PYEOF
}

echo "QuantLens int8 vs PyTorch int8 and ONNX Runtime — $(date -u '+%Y-%m-%d %H:%M UTC')," \
     "$(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg), threads $threads"
echo "quantlens: $quantlens$([ $use_precision -eq 1 ] || echo ' (run WITHOUT --precision)')"
echo
echo "SQNR in dB of the first argument against the second; top-1 = argmax agreement in %."
echo
echo "exact QDQ = the QDQ graph evaluated in float64 (qdq_reference.py); QL reference = quantlens"
echo "--precision reference. On AVX2 without VNNI, PyTorch's onednn int8 kernels saturate (u8*s8"
echo "pairs summed in int16), so PyTorch int8 can be far from the exact QDQ meaning; and on random-weight"
echo "models a single rounding flip is amplified, so even float32 vs float64 QDQ differ (20-35 dB)."
echo
echo "| model | int8 / fallback nodes | QL int8 vs PyTorch int8 | top-1 | QL int8 vs exact QDQ | QL int8 vs ORT | QL int8 vs QL reference | QL reference vs exact QDQ | ORT vs PyTorch int8 | pass (> $min_sqnr dB vs PyTorch int8) |"
echo "|---|---|---|---|---|---|---|---|---|---|"
IFS=, read -r -a model_list <<<"$models"
for name in "${model_list[@]}"; do
    locate "$name"
    out="$work/$name"
    mkdir -p "$out"
    if [ ! -f "$qdq_onnx" ] || [ ! -f "$input" ] || [ ! -f "$torch_int8" ]; then
        echo "| $name | missing $qdq_onnx, $input or $torch_int8 | | | | | | | | FAIL |"
        failures=$((failures + 1)); continue
    fi
    ort_vs_torch="-" ql_vs_ort="-"
    if "$node" "$here/ort_run.js" infer "$qdq_onnx" "$input" "$out/ort.npy" --threads "$threads" \
            >"$out/ort.log" 2>&1; then
        ort_vs_torch=$(sqnr "$out/ort.npy" "$torch_int8" | cut -d' ' -f1)
    else
        ort_vs_torch="ORT failed: $(cell "$(tail -1 "$out/ort.log")")"
    fi
    if ! ql_infer "$qdq_onnx" "$out/int8" int8; then
        echo "| $name | error: $(cell "$(tail -1 "$out/int8.log")") | | | | | | | $ort_vs_torch | FAIL |"
        failures=$((failures + 1)); continue
    fi
    ours=$out/int8/output_0.npy
    nodes=$(precision_summary "$out/int8/outputs.json")
    read -r vs_torch _ <<<"$(sqnr "$ours" "$torch_int8")"
    top1=$(top1_agreement "$ours" "$torch_int8")
    [ -f "$out/ort.npy" ] && ql_vs_ort=$(sqnr "$ours" "$out/ort.npy" | cut -d' ' -f1)
    vs_exact="-"
    [ -f "$reference" ] && vs_exact=$(sqnr "$ours" "$reference" | cut -d' ' -f1)
    vs_reference="-" reference_vs_exact="-"
    if [ $use_precision -eq 1 ]; then
        if ql_infer "$qdq_onnx" "$out/reference" reference; then
            vs_reference=$(sqnr "$ours" "$out/reference/output_0.npy" | cut -d' ' -f1)
            [ -f "$reference" ] &&
                reference_vs_exact=$(sqnr "$out/reference/output_0.npy" "$reference" | cut -d' ' -f1)
        else
            vs_reference="error: $(cell "$(tail -1 "$out/reference.log")")"
        fi
    fi
    verdict=FAIL
    if passes_sqnr "$vs_torch"; then verdict=pass; else failures=$((failures + 1)); fi
    echo "| $name | $nodes | $vs_torch | $top1 | $vs_exact | $ql_vs_ort | $vs_reference | $reference_vs_exact | $ort_vs_torch | $verdict |"
done

[ "$bench" = none ] && { echo; echo "failures: $failures; scratch: $work"; [ $failures -eq 0 ]; exit; }

echo
echo "Benchmark: batch 1, $threads threads, $runs runs per call, $rounds interleaved rounds" \
     "(ORT int8, QuantLens int8, QuantLens fp32, ...), median of the per-round medians, in ms."
echo "ORT and QuantLens int8 run the QDQ model; QuantLens fp32 runs the float model."
echo
echo "| model | ORT 1.30 int8 | QuantLens int8 | QL int8 / ORT int8 | QuantLens fp32 | QL fp32 / QL int8 speedup |"
echo "|---|---|---|---|---|---|"
IFS=, read -r -a bench_list <<<"$bench"
rounds_note=()
for name in "${bench_list[@]}"; do
    locate "$name"
    log="$work/bench-$name.log"
    if [ ! -f "$qdq_onnx" ] || [ ! -f "$float_onnx" ]; then
        echo "| $name | missing $qdq_onnx or $float_onnx | | | | |"; failures=$((failures + 1)); continue
    fi
    ort_times=() int8_times=() fp32_times=() error=""
    for ((r = 0; r < rounds; ++r)); do
        if ! "$node" "$here/ort_run.js" bench "$qdq_onnx" --threads "$threads" --runs "$runs" \
                --batch 1 >"$log" 2>&1; then
            error="ORT failed: $(tail -1 "$log")"; break
        fi
        ort_times+=("$(median_ms "$log")")
        # shellcheck disable=SC2046
        if ! "$quantlens" bench "$qdq_onnx" --threads "$threads" --runs "$runs" --batch 1 \
                $(precision_args int8) >"$log" 2>&1; then
            error="QuantLens int8: $(tail -1 "$log")"; break
        fi
        int8_times+=("$(median_ms "$log")")
        if ! "$quantlens" bench "$float_onnx" --threads "$threads" --runs "$runs" --batch 1 \
                >"$log" 2>&1; then
            error="QuantLens fp32: $(tail -1 "$log")"; break
        fi
        fp32_times+=("$(median_ms "$log")")
    done
    if [ -n "$error" ]; then
        echo "| $name | $(cell "$error") | | | | |"
        failures=$((failures + 1)); continue
    fi
    ort=$(printf '%s\n' "${ort_times[@]}" | median)
    int8=$(printf '%s\n' "${int8_times[@]}" | median)
    fp32=$(printf '%s\n' "${fp32_times[@]}" | median)
    ratio=$(awk -v a="$int8" -v b="$ort" 'BEGIN { printf "%.2f", a / b }')
    speedup=$(awk -v a="$fp32" -v b="$int8" 'BEGIN { printf "%.2f", a / b }')
    echo "| $name | $ort | $int8 | $ratio | $fp32 | $speedup |"
    rounds_note+=("$name: ORT int8 ${ort_times[*]}; QL int8 ${int8_times[*]}; QL fp32 ${fp32_times[*]}")
done
echo
[ ${#rounds_note[@]} -eq 0 ] || printf 'per-round medians (ms): %s\n' "${rounds_note[@]}"
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg); failures: $failures; scratch: $work"
[ $failures -eq 0 ]
