#!/usr/bin/env bash
# `quantlens analyze`'s table on a terminal (issue 39), through a pseudo-terminal (`script`) of 60
# and 200 columns, and piped: every table line as wide as its header (columns aligned whatever the
# names) and no wider than the terminal; names elided on the narrow one (whole with --wide, piped
# and on the wide one), the least read figures dropped there with a line saying so; rows under the
# threshold in colour on a terminal only, and never with NO_COLOR; a closing summary.
set -u
quantlens=$1
repo=$2
corpus="$repo/tests/data/pytorch_corpus/fx_seresnet"
demo="$repo/resources/demo"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export OMP_NUM_THREADS=2
source "$(dirname "$0")/expect.sh"
run=("$quantlens" analyze --float "$corpus/float.onnx" --quant "$corpus/quant.onnx" --data "$corpus/inputs.npy"
     --threads 2)

on_terminal() {  # on_terminal COLUMNS OUT command... : stdout of the command on a pty that wide
    local columns=$1 out=$2
    shift 2
    script -qfec "stty cols $columns; $(printf '%q ' "$@") 2>/dev/null" /dev/null | tr -d '\r' >"$out"
}
# check_table FILE MAX_WIDTH ELIDED(yes|no) COLUMNS: the table's lines (header to the last layer).
check_table() {
    python3 - "$@" <<'PY'
import re, sys
path, width, elided, columns = sys.argv[1], int(sys.argv[2]), sys.argv[3] == "yes", int(sys.argv[4])
text = re.sub(r"\x1b\[[0-9;]*m", "", open(path, encoding="utf-8").read())
lines = text.split("\n")
start = next(i for i, l in enumerate(lines) if l.startswith("layer "))
table = [lines[start]]
for l in lines[start + 1:]:
    if l.startswith(("unmatched ", "output ", "(")) or not l.strip():
        break
    table.append(l.replace("  KERNEL MISMATCH", ""))
widths = {len(l) for l in table}
header = table[0].split()
ok = (len(widths) == 1 and max(widths) <= width and len(header) == columns
      and any("…" in l for l in table[1:]) == elided and len(table) > 20)
print(f"{path}: {len(table) - 1} rows, width {sorted(widths)}, {len(header)} columns, elided {elided}")
sys.exit(0 if ok else 1)
PY
}

expect "piped" 0 "summary: output SQNR" -- "${run[@]}"
cp "$work/out" "$work/piped.txt"
expect "piped: whole names, aligned" 0 "" -- check_table "$work/piped.txt" 1000 no 9
on_terminal 60 "$work/t60.txt" "${run[@]}"
expect "60 columns: elided, fitted, three figures" 0 "" -- check_table "$work/t60.txt" 60 yes 6
cat "$work/out"
expect "60 columns: says what it left out" 0 "(p5, sat%, kernel: with --wide" -- cat "$work/t60.txt"
on_terminal 200 "$work/t200.txt" "${run[@]}"
expect "200 columns: whole names, every figure" 0 "" -- check_table "$work/t200.txt" 200 no 9
on_terminal 60 "$work/wide.txt" "${run[@]}" --wide
expect "--wide on 60 columns: whole names" 0 "" -- check_table "$work/wide.txt" 1000 no 9

demo_run=("$quantlens" analyze --float "$demo/fashion_cnn.onnx" --quant "$demo/fashion_cnn_int8.onnx"
          --data "$demo/samples.npy" --threads 2)
on_terminal 120 "$work/colour.txt" "${demo_run[@]}"
expect "rows under 30 dB in colour" 0 "" -- grep -q $'\e\\[31m/features/features.0/Conv' "$work/colour.txt"
on_terminal 120 "$work/nocolour.txt" env NO_COLOR=1 "${demo_run[@]}"
expect "NO_COLOR" 1 "" -- grep -q $'\e\\[' "$work/nocolour.txt"
expect "piped: no colour" 1 "" -- grep -q $'\e\\[' "$work/piped.txt"

echo "terminal table: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
