#!/usr/bin/env bash
# Compare `quantlens infer` and `quantlens bench` with ONNX Runtime (Node.js) on torchvision models.
#
#   compare_with_ort.sh QUANTLENS MODELS_DIR [options]
#     --models a,b,...   models for the correctness table (default: the ten of the issue)
#     --bench a,b,...    models for the speed table (default: resnet18,resnet50,mobilenet_v2;
#                        "none" skips it)
#     --threads N        threads for both engines (default 2)
#     --runs N           timed runs per bench call (default 30)
#     --rounds N         interleaved ORT/QuantLens bench rounds (default 3)
#     --min-sqnr DB      correctness threshold (default 80)
#     --max-ratio R      speed threshold, QuantLens median / ORT median (default 1.2)
#     --work DIR         scratch folder for outputs (default: a fresh mktemp -d)
#
# MODELS_DIR is what export_torchvision.py writes: NAME.onnx and NAME/input_0.npy.
# Prints two markdown tables and exits 1 if any model fails a check.
set -u -o pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
python=/usr/bin/python3
node=${NODE:-node}

usage() { sed -n '2,17p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; exit 2; }
[ $# -ge 2 ] || usage
quantlens=$1
models_dir=$2
shift 2
models="resnet18,mobilenet_v2,mobilenet_v3_small,efficientnet_b0,shufflenet_v2_x1_0,squeezenet1_1"
models+=",googlenet,densenet121,regnet_y_400mf,convnext_tiny"
bench="resnet18,resnet50,mobilenet_v2"
threads=2 runs=30 rounds=3 min_sqnr=80 max_ratio=1.2 work=""
while [ $# -gt 0 ]; do
    case $1 in
        --models) models=$2 ;;
        --bench) bench=$2 ;;
        --threads) threads=$2 ;;
        --runs) runs=$2 ;;
        --rounds) rounds=$2 ;;
        --min-sqnr) min_sqnr=$2 ;;
        --max-ratio) max_ratio=$2 ;;
        --work) work=$2 ;;
        *) usage ;;
    esac
    shift 2 || usage
done
[ -x "$quantlens" ] || { echo "compare_with_ort.sh: $quantlens is not an executable" >&2; exit 2; }
[ -d "$models_dir" ] || { echo "compare_with_ort.sh: $models_dir is not a folder" >&2; exit 2; }
[ -n "$work" ] || work=$(mktemp -d /tmp/quantlens-vs-ort.XXXXXX)
mkdir -p "$work"
failures=0

# cell, sqnr, passes_sqnr, median, median_ms
source "$here/compare_common.sh"

echo "QuantLens vs ONNX Runtime — $(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) cores," \
     "load average $(cut -d' ' -f1-3 /proc/loadavg), threads $threads"
echo "quantlens: $quantlens; OMP_WAIT_POLICY=${OMP_WAIT_POLICY:-unset} GOMP_SPINCOUNT=${GOMP_SPINCOUNT:-unset}"
echo
echo "| model | SQNR ours vs ORT (dB) | max abs diff | SQNR ORT vs PyTorch (dB) | pass (> $min_sqnr dB) |"
echo "|---|---|---|---|---|"
IFS=, read -r -a model_list <<<"$models"
for name in "${model_list[@]}"; do
    onnx="$models_dir/$name.onnx" input="$models_dir/$name/input_0.npy"
    out="$work/$name"
    rm -rf "$out" && mkdir -p "$out/ql"
    if [ ! -f "$onnx" ] || [ ! -f "$input" ]; then
        echo "| $name | missing $onnx or $input (run export_torchvision.py) | | | FAIL |"
        failures=$((failures + 1)); continue
    fi
    if ! "$node" "$here/ort_run.js" infer "$onnx" "$input" "$out/ort.npy" --threads "$threads" \
            >"$out/ort.log" 2>&1; then
        echo "| $name | ORT failed: $(cell "$(tail -1 "$out/ort.log")") | | | FAIL |"
        failures=$((failures + 1)); continue
    fi
    torch_sqnr="-"
    [ -f "$models_dir/$name/torch_output_0.npy" ] &&
        torch_sqnr=$(sqnr "$out/ort.npy" "$models_dir/$name/torch_output_0.npy" | cut -d' ' -f1)
    if ! "$quantlens" infer "$onnx" --input "input=$input" --output-dir "$out/ql" \
            --threads "$threads" >"$out/ql.log" 2>&1; then
        echo "| $name | error: $(cell "$(tail -1 "$out/ql.log")") | | $torch_sqnr | FAIL |"
        failures=$((failures + 1)); continue
    fi
    read -r value diff <<<"$(sqnr "$out/ql/output_0.npy" "$out/ort.npy")"
    verdict=FAIL
    if passes_sqnr "$value"; then verdict=pass; else failures=$((failures + 1)); fi
    echo "| $name | $value | ${diff:-} | $torch_sqnr | $verdict |"
done

[ "$bench" = none ] && { echo; echo "failures: $failures"; [ $failures -eq 0 ]; exit; }

echo
echo "Benchmark: batch 1, $threads threads, $runs runs per call, $rounds interleaved rounds" \
     "(ORT, QuantLens, ORT, ...), median of the per-round medians, in ms."
echo
echo "| model | ORT 1.30 median | QuantLens median | ratio | pass (<= $max_ratio) |"
echo "|---|---|---|---|---|"
IFS=, read -r -a bench_list <<<"$bench"
rounds_note=()
for name in "${bench_list[@]}"; do
    onnx="$models_dir/$name.onnx" log="$work/bench-$name.log"
    [ -f "$onnx" ] || { echo "| $name | missing $onnx | | | FAIL |"; failures=$((failures + 1)); continue; }
    ort_times=() ql_times=() error=""
    for ((r = 0; r < rounds; ++r)); do
        if ! "$node" "$here/ort_run.js" bench "$onnx" --threads "$threads" --runs "$runs" \
                --batch 1 >"$log" 2>&1; then
            error="ORT failed: $(tail -1 "$log")"; break
        fi
        ort_times+=("$(median_ms "$log")")
        if ! "$quantlens" bench "$onnx" --threads "$threads" --runs "$runs" --batch 1 >"$log" 2>&1; then
            error="error: $(tail -1 "$log")"; break
        fi
        ql_times+=("$(median_ms "$log")")
    done
    if [ -n "$error" ]; then
        echo "| $name | $(cell "$error") | | | FAIL |"
        failures=$((failures + 1)); continue
    fi
    ort=$(printf '%s\n' "${ort_times[@]}" | median) ql=$(printf '%s\n' "${ql_times[@]}" | median)
    ratio=$(awk -v a="$ql" -v b="$ort" 'BEGIN { printf "%.2f", a / b }')
    verdict=pass
    awk -v r="$ratio" -v t="$max_ratio" 'BEGIN { exit !(r + 0 <= t + 0) }' ||
        { verdict=FAIL; failures=$((failures + 1)); }
    echo "| $name | $ort | $ql | $ratio | $verdict |"
    rounds_note+=("$name: ORT ${ort_times[*]}; QuantLens ${ql_times[*]}")
done
echo
[ ${#rounds_note[@]} -eq 0 ] || printf 'per-round medians (ms): %s\n' "${rounds_note[@]}"
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg); failures: $failures; scratch: $work"
[ $failures -eq 0 ]
