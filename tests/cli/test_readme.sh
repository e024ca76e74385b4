#!/usr/bin/env bash
# README.md as a new user reads it (issue 39): at most 200 lines, every guide chapter it links to
# exists, and its command-line tour runs as it stands, from a copy of the repository root, with
# the figures the README gives (the demo at 15.7 dB; the search's skip-list reaching 35 dB;
# min-max calibration above 40 dB; a report written as HTML and PDF).
set -u
quantlens=$1
repo=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export OMP_NUM_THREADS=2 QT_QPA_PLATFORM=offscreen
source "$(dirname "$0")/expect.sh"
readme="$repo/README.md"

lines=$(wc -l <"$readme")
expect "README at most 200 lines ($lines)" 0 "" -- test "$lines" -le 200
for link in $(grep -o '](resources/[^)]*)' "$readme" | sed 's/^](//; s/)$//' | sort -u); do
    expect "link $link" 0 "" -- test -e "$repo/$link"
done

# The tour's block, run with `quantlens` on the PATH from a folder that looks like the root.
awk '/^\*\*The same on the command line\*\*/ { found = 1 }
     found && /^```sh/ { inside = 1; next }
     inside && /^```/ { exit }
     inside { print }' "$readme" >"$work/tour.sh"
expect "the tour has commands" 0 "quantlens analyze" -- cat "$work/tour.sh"
mkdir -p "$work/bin" "$work/root"
ln -s "$quantlens" "$work/bin/quantlens"
ln -s "$repo/resources" "$work/root/resources"
expect "the tour runs" 0 "" -- env PATH="$work/bin:$PATH" bash -c "cd '$work/root' && set -euo pipefail && source '$work/tour.sh'"
cp "$work/out" "$work/tour.out"
expect "the tour's figures" 0 "" -- python3 -c "
import json, re, sys
root = '$work/root'
out = open('$work/tour.out').read()
demo = json.load(open(root + '/analysis.json'))['output']['sqnr_db']
skip = json.load(open(root + '/skip.json'))['fp32_nodes']
figures = [float(v) for v in re.findall(r\"output '[^']*': SQNR ([0-9.]+) dB\", out)]
print(f'demo {demo:.2f} dB; skip-list {skip}; output SQNR per analyze: {figures}')
ok = abs(demo - 15.7) < 0.05 and len(figures) == 3 and figures[1] >= 35 and figures[2] > 40
sys.exit(0 if ok else 1)"
cat "$work/out"
expect "the report" 0 "" -- test -s "$work/root/report.html" -a -s "$work/root/report.pdf"

echo "README: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
