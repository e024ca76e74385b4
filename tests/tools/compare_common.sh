# Helpers shared by compare_with_ort.sh and compare_int8_with_ort.sh (sourced, not run).
# Needs $python (a python3 with numpy).

# Markdown cells must not contain '|' or newlines.
cell() { tr '\n|' ' /' <<<"$1" | sed 's/ *$//' | cut -c1-160; }

# SQNR and max |diff| of OURS against REF (float64 sums); "inf" when identical.
sqnr() {
    "$python" - "$1" "$2" <<'PYEOF'
import sys
import numpy as np
ours, ref = np.load(sys.argv[1]).astype(np.float64), np.load(sys.argv[2]).astype(np.float64)
if ours.shape != ref.shape:
    print(f"shape {list(ours.shape)} vs {list(ref.shape)}")
    sys.exit(0)
noise = np.sum((ours - ref) ** 2)
signal = np.sum(ref ** 2)
value = "inf" if noise == 0 else ("-inf" if signal == 0 else f"{10 * np.log10(signal / noise):.1f}")
if not np.all(np.isfinite(ours)):
    value = "nan/inf in output"
print(f"{value} {np.max(np.abs(ours - ref)):.3g}")
PYEOF
}

# Share of rows (samples) whose argmax over the last axis agrees, in percent.
top1_agreement() {
    "$python" - "$1" "$2" <<'PYEOF'
import sys
import numpy as np
a, b = np.load(sys.argv[1]), np.load(sys.argv[2])
if a.shape != b.shape:
    print("-")
    sys.exit(0)
a, b = a.reshape(-1, a.shape[-1]), b.reshape(-1, b.shape[-1])
print(f"{100.0 * np.mean(a.argmax(1) == b.argmax(1)):.1f}")
PYEOF
}

# passes_sqnr VALUE [THRESHOLD=$min_sqnr]: "inf" passes; numbers compare against the threshold.
passes_sqnr() {
    [ "$1" = inf ] && return 0
    awk -v s="$1" -v t="${2:-$min_sqnr}" 'BEGIN { exit !(s ~ /^-?[0-9.]+$/ && s + 0 > t + 0) }'
}

median() { sort -g | awk '{ v[NR] = $1 } END { if (NR == 0) print "nan"; else print v[int((NR + 1) / 2)] }'; }
median_ms() { awk '/^median_ms:/ { print $2 }' "$1"; }
