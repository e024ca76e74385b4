#!/usr/bin/env bash
# `quantlens analyze` on the PyTorch export corpus (tests/data/pytorch_corpus, made by
# tests/tools/make_pytorch_corpus.py): for every pair, at the default command line (no --batch),
# once with quant.onnx as exported and once with quant_noname.onnx (every node name cleared), the
# per-layer weight SQNR within 0.1 dB and cumulative activation SQNR within 1 dB of the pair's
# reference.json (PyTorch Numeric Suite, keyed by float.onnx node names), see check_corpus.py;
# and the two runs of a pair must report the same rows and figures (check_names_irrelevant.py):
# bridge_fx's quant.onnx carries the float model's own node names, fx_seresnet's PyTorch's
# colliding ones, and quant_noname.onnx none.
# Usage: test_corpus.sh QUANTLENS REPO [PAIR ...]
set -u
quantlens=$1
repo=$2
shift 2
corpus="$repo/tests/data/pytorch_corpus"
check="python3 $repo/tests/corpus/check_corpus.py"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export OMP_NUM_THREADS=2

pairs=("$@")
if [ ${#pairs[@]} -eq 0 ]; then
    for dir in "$corpus"/*/; do pairs+=("$(basename "$dir")"); done
fi

passed=0
failed=0
for pair in "${pairs[@]}"; do
    dir="$corpus/$pair"
    for quant in quant quant_noname; do
        label="$pair/$quant.onnx"
        labels=()
        [ -f "$dir/labels.npy" ] && labels=(--labels "$dir/labels.npy")
        "$quantlens" analyze --float "$dir/float.onnx" --quant "$dir/$quant.onnx" \
            --data "$dir/inputs.npy" "${labels[@]}" --json "$work/$pair.$quant.json" \
            >"$work/out" 2>"$work/err"
        rc=$?
        if [ $rc -ne 0 ]; then
            echo "FAIL $label: quantlens analyze exited $rc: $(head -c 400 "$work/err")"
            failed=$((failed + 1))
            continue
        fi
        grep -h "note:" "$work/err" | sed "s|^|$label: |"
        if $check "$work/$pair.$quant.json" "$dir/reference.json" "$label"; then
            passed=$((passed + 1))
        else
            failed=$((failed + 1))
        fi
    done
    if [ -f "$work/$pair.quant.json" ] && [ -f "$work/$pair.quant_noname.json" ]; then
        if python3 "$repo/tests/corpus/check_names_irrelevant.py" "$work/$pair.quant.json" \
            "$work/$pair.quant_noname.json" "$pair"; then
            passed=$((passed + 1))
        else
            failed=$((failed + 1))
        fi
    fi
done
# Every analysis JSON of the corpus against resources/docs/schema/analysis.schema.json.
if python3 "$repo/tests/tools/validate_json.py" analysis "$work"/*.json >"$work/schema" 2>&1; then
    passed=$((passed + 1))
else
    failed=$((failed + 1))
    grep -v ": valid" "$work/schema"
fi
echo "pytorch corpus: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
