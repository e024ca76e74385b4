#!/usr/bin/env bash
# resources/docs/cli-reference.md is what tests/tools/make_cli_reference.sh prints now: every
# option of every subcommand documented as the program has it.
set -u
quantlens=$1
repo=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
bash "$repo/tests/tools/make_cli_reference.sh" "$quantlens" >"$work/now.md" || exit 1
if ! diff -u "$repo/resources/docs/cli-reference.md" "$work/now.md"; then
    echo "resources/docs/cli-reference.md is out of date; regenerate it with"
    echo "  tests/tools/make_cli_reference.sh build/release/app/quantlens > resources/docs/cli-reference.md"
    exit 1
fi
echo "cli reference: current ($(grep -c '^## ' "$work/now.md") commands)"
