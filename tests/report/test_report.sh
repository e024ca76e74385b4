#!/usr/bin/env bash
# Reports (issue 14) from the CLI, on the embedded demo and on a pair exported by PyTorch (FX,
# with labels): the HTML is self-contained, passes `tidy -errors`, names every layer and carries
# the analysis; the PDF's text names every layer and the output SQNR on >= 2 pages; with
# SOURCE_DATE_EPOCH the HTML is byte-identical and the PDF text-identical across runs; the HTML
# reopens (`quantlens report R.html`, `quantlens gui R.html`); an unwritable path exits 3 leaving
# no file; a report whose models are gone names the missing file.
set -u
quantlens=$1
repo=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export OMP_NUM_THREADS=2 SOURCE_DATE_EPOCH=1767225600
source "$(dirname "$0")/../cli/expect.sh"
check="$(dirname "$0")/check_report.py"

# Copies of the models and data: a later step removes one.
mkdir -p "$work/demo" "$work/fx"
cp "$repo"/resources/demo/{fashion_cnn.onnx,fashion_cnn_int8.onnx,samples.npy,labels.npy} "$work/demo/"
cp "$repo"/tests/data/pytorch_corpus/fx_seresnet/{float.onnx,quant.onnx,inputs.npy,labels.npy} "$work/fx/"
demo=(--float "$work/demo/fashion_cnn.onnx" --quant "$work/demo/fashion_cnn_int8.onnx"
      --data "$work/demo/samples.npy" --labels "$work/demo/labels.npy" --threads 2)
fx=(--float "$work/fx/float.onnx" --quant "$work/fx/quant.onnx" --data "$work/fx/inputs.npy"
    --labels "$work/fx/labels.npy" --threads 2)

for pair in demo fx; do
    declare -n args=$pair
    mkdir -p "$work/$pair/out"
    cd "$work/$pair/out" || exit 1
    expect "$pair: analyze --html --pdf" 0 "report: r.pdf" -- \
        "$quantlens" analyze "${args[@]}" --json a.json --html r.html --pdf r.pdf
    expect "$pair: content" 0 "layers, output" -- /usr/bin/python3 "$check" a.json r.html r.pdf
    cat "$work/out"
    expect "$pair: tidy -errors" 0 "" -- tidy -errors -quiet r.html
    # Reproducible: the same analysis again (latency is a measurement: not in this comparison).
    for run in 1 2; do
        expect "$pair: run $run" 0 "" -- \
            "$quantlens" analyze "${args[@]}" --no-latency --html same.html --pdf same.pdf
        mv same.html "same$run.html"
        pdftotext same.pdf "same$run.txt"
    done
    expect "$pair: HTML byte-identical" 0 "" -- cmp same1.html same2.html
    expect "$pair: PDF text-identical" 0 "" -- cmp same1.txt same2.txt
    expect "$pair: dated by SOURCE_DATE_EPOCH" 0 "2026-01-01T00:00:00Z" -- grep -F 2026-01-01T00:00:00Z same1.html
    cd "$work" || exit 1
done

# The HTML reopens: `report` re-runs the analysis it carries (same output SQNR), the GUI opens it.
cd "$work/demo/out" || exit 1
expect "report from the HTML" 0 "report: again.pdf" -- \
    "$quantlens" report r.html --pdf again.pdf --html again.html --no-latency
expect "same analysis" 0 "" -- /usr/bin/python3 -c "
import json, re, sys
sqnr = '%.2f dB' % json.load(open('a.json'))['output']['sqnr_db']
page = open('again.html').read()
# The session keeps its tensors: each worst sample has its input's heat map.
thumbnails = page[page.find('<h2>Worst samples</h2>'):].count('data:image/png;base64')
sys.exit(0 if sqnr in page and thumbnails >= 10 else 1)"
expect "gui R.html" 0 "" -- "$quantlens" gui r.html --screenshot reopened.png
expect "gui screenshot written" 0 "" -- test -s reopened.png

# Bad paths: exit 3, one line naming the file, nothing left behind.
expect "missing folder" 3 "nowhere/r.html" -- "$quantlens" analyze "${demo[@]}" --html "$work/nowhere/r.html"
mkdir -p "$work/bad/taken.pdf"
expect "a folder in the way" 3 "taken.pdf" -- "$quantlens" analyze "${demo[@]}" --pdf "$work/bad/taken.pdf"
expect "no partial files" 0 "" -- test -z "$(ls -A "$work/bad/taken.pdf")" -a "$(ls -A "$work/bad")" = taken.pdf
[ "$(wc -l <"$work/err")" -le 3 ] || { failed=$((failed + 1)); echo "FAIL: more than one error line"; cat "$work/err"; }

# A report whose models are gone: the error names the missing file.
mv "$work/demo/fashion_cnn_int8.onnx" "$work/demo/moved.onnx"
expect "missing model" 2 "fashion_cnn_int8.onnx" -- "$quantlens" report "$work/demo/out/r.html" --html "$work/x.html"
expect "nothing written" 1 "" -- test -e "$work/x.html"
expect "not a report" 2 "not a QuantLens project" -- "$quantlens" report "$work/demo/out/a.json" --html "$work/x.html"

echo "report_cli: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
