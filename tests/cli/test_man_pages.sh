#!/usr/bin/env bash
# The man pages the .deb installs (packaging/make_man_pages.sh): installed with the rest by
# `cmake --install` into a scratch prefix, `man quantlens`, `man quantlens-analyze` and the
# others render from there at 80 columns without a troff warning, and hold their options.
set -u
build=$1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
source "$(dirname "$0")/expect.sh"

expect "cmake --install" 0 "" -- cmake --install "$build" --prefix "$work/usr"
export MANPATH="$work/usr/share/man" MANWIDTH=80 LC_ALL=C.UTF-8
for page in quantlens quantlens-infer quantlens-bench quantlens-quantize quantlens-analyze \
    quantlens-calib-lab quantlens-search quantlens-report quantlens-export-pytorch; do
    expect "man $page" 0 "--help" -- man --warnings "$page"
    cp "$work/err" "$work/warnings"
    expect "man $page without warnings" 0 "" -- test ! -s "$work/warnings"
    [ -s "$work/warnings" ] && head -c 300 "$work/warnings"
done
expect "analyze's options" 0 "--skip-list" -- man quantlens-analyze
expect "search's title" 0 "QUANTLENS-SEARCH(1)" -- man quantlens-search
expect "the guide beside them" 0 "" -- test -s "$work/usr/share/doc/quantlens/docs/metrics.md"

echo "man pages: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
