# Sourced by the remedies' fixture tests (test_remedies_*.sh) with their arguments (QUANTLENS
# REPO): sets $quantlens, $data (the fixture folder) and $work (removed at exit), sources
# tests/cli/expect.sh, and gives quantize-and-analyse runs of one model on the Fashion-MNIST test
# images, and checks on their JSON.
set -u
quantlens=$1
repo=$2
data="$repo/tests/data/remedies"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export OMP_NUM_THREADS=2
source "$(dirname "${BASH_SOURCE[0]}")/../cli/expect.sh"

# analyze_case NAME MODEL OPTIONS...: int8 of MODEL calibrated on fashion_calib.npy, analysed
# on the 1,000 test images with labels; the JSON is $work/NAME.json, the output $work/NAME.log.
analyze_case() {
    local name=$1 model=$2
    shift 2
    expect "analyze $name" 0 "output 'logits'" -- "$quantlens" analyze --float "$model" \
        --calib "$data/fashion_calib.npy" --data "$data/fashion_test.npy" \
        --labels "$data/fashion_test_labels.npy" --json "$work/$name.json" --no-kernel-check \
        --no-isolated --threads 2 "$@"
    cp "$work/out" "$work/$name.log"
    python3 -c "import json, sys; o = json.load(open(sys.argv[1]))['outputs'][0]; \
print(f\"$name: output SQNR {o['sqnr_db']:.2f} dB, accuracy float {o['float_accuracy']:.4f} int8 {o['quant_accuracy']:.4f}\")" \
        "$work/$name.json"
}

# field FILE KEY: outputs[0][KEY] of an analysis.
field() { python3 -c "import json, sys; print(json.load(open(sys.argv[1]))['outputs'][0][sys.argv[2]])" "$1" "$2"; }

check() {  # check DESCRIPTION PYTHON_EXPRESSION (true passes)
    expect "$1" 0 "" -- python3 -c "import sys; sys.exit(not ($2))"
}
