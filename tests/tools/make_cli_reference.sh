#!/usr/bin/env bash
# Writes the command-line reference (resources/docs/cli-reference.md) from the program's own
# --help texts, so the reference cannot drift from the options: ctest `cli_reference_current`
# fails when the committed file differs from what this prints.
#   tests/tools/make_cli_reference.sh build/release/app/quantlens > resources/docs/cli-reference.md
set -euo pipefail
quantlens=$1
repo=$(cd "$(dirname "$0")/../.." && pwd)
export QT_QPA_PLATFORM=offscreen COLUMNS=100 LC_ALL=C.UTF-8
help() {  # the --help text with the program's path as `quantlens`
    "$@" --help 2>/dev/null | sed -E "s#^Usage: [^ ]*quantlens#Usage: quantlens#"
}
cat <<'HEAD'
# Command-line reference

Every subcommand's `--help`, as the program prints it (made by
`tests/tools/make_cli_reference.sh`; ctest `cli_reference_current` checks it is current). The
[command-line guide](command-line.md) explains the options with examples, and
[Metrics](metrics.md) defines the figures.

HEAD
echo '## quantlens'
echo
echo '```text'
help "$quantlens"
echo '```'
for sub in infer bench quantize analyze calib-lab search report; do
    echo
    echo "## quantlens $sub"
    echo
    echo '```text'
    help "$quantlens" "$sub" | sed -E "s#^Usage: quantlens#Usage: quantlens $sub#"
    echo '```'
done
echo
echo '## quantlens-export-pytorch'
echo
echo 'Installed beside `quantlens`; needs PyTorch (`python3-torch`) to export, not for `--help`.'
echo
echo '```text'
python3 "$repo/packaging/quantlens-export-pytorch" --help
echo '```'
