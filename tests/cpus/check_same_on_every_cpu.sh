#!/usr/bin/env bash
# Usage: check_same_on_every_cpu.sh FINGERPRINT QEMU CPU...
# Runs the fingerprint natively and on each emulated CPU; any line that differs fails the test.
set -euo pipefail
program=$1 qemu=$2
shift 2
native=$(mktemp) emulated=$(mktemp)
trap 'rm -f "$native" "$emulated"' EXIT
"$program" > "$native"
echo "native: $(wc -l < "$native") results"
status=0
for cpu in "$@"; do
    "$qemu" -cpu "$cpu" "$program" 2>/dev/null > "$emulated"
    if diff "$native" "$emulated" > /dev/null; then
        echo "$cpu: the same"
    else
        echo "$cpu: differs from the native run (< native, > $cpu):"
        diff "$native" "$emulated" || true
        status=1
    fi
done
exit $status
