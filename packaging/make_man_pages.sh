#!/usr/bin/env bash
# Writes quantlens(1), quantlens-SUBCOMMAND(1) for each subcommand and
# quantlens-export-pytorch(1) into OUTDIR, made by Debian's help2man from the programs' own
# --help (the same source as resources/docs/cli-reference.md), so they cannot drift apart.
#   packaging/make_man_pages.sh build/release/app/quantlens OUTDIR VERSION
set -euo pipefail
quantlens=$1
out=$2
version=$3
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$out"
export QT_QPA_PLATFORM=offscreen LC_ALL=C.UTF-8 COLUMNS=80
common=(--no-info --version-string="$version" --source="QuantLens $version"
    --manual="QuantLens")
see_also=$(mktemp)
trap 'rm -f "$see_also"' EXIT
{
    echo '[SEE ALSO]'
    echo '.BR quantlens (1),'
    for sub in infer bench quantize analyze calib-lab search report; do echo ".BR quantlens\\-$sub (1),"; done
    echo '.BR quantlens\-export\-pytorch (1).'
    echo 'The guide: /usr/share/doc/quantlens/docs/README.md, or Help > User Guide in the application.'
} >"$see_also"

help2man "${common[@]}" --include="$see_also" --name="find and fix int8 quantization accuracy loss of ONNX models" \
    --output="$out/quantlens.1" "$quantlens"
declare -A names=(
    [infer]="run an ONNX model on given inputs"
    [bench]="time an ONNX model's execution plan"
    [quantize]="quantize a float ONNX model to int8 QDQ from calibration data"
    [analyze]="compare a float and a quantized ONNX model layer by layer"
    [calib-lab]="compare calibration choices with confidence intervals"
    [search]="find the fewest layers to keep in fp32 or at 16 bits for a target"
    [report]="write an analysis as an HTML or PDF report"
)
for sub in infer bench quantize analyze calib-lab search report; do
    page="$out/quantlens-$sub.1"
    help2man "${common[@]}" --include="$see_also" --help-option="$sub --help" --name="${names[$sub]}" \
        --output="$page" "$quantlens"
    # The page of `quantlens SUB`: its title and synopsis name the subcommand.
    upper=$(echo "$sub" | tr 'a-z' 'A-Z' | sed 's/-/\\-/g')
    sed -i -e "s/^\\.TH QUANTLENS /.TH QUANTLENS\\\\-$upper /" \
        -e "s/^quantlens \\\\- /quantlens\\\\-$(echo "$sub" | sed 's/-/\\\\-/g') \\\\- /" \
        -e "/^\\.SH SYNOPSIS/,/^\\.SH/ s/^\\.B quantlens$/.B quantlens $(echo "$sub" | sed 's/-/\\\\-/g')/" "$page"
done
page="$out/quantlens-export-pytorch.1"
help2man "${common[@]}" --include="$see_also" \
    --name="export a PyTorch model and its int8 version to ONNX with module-path node names" \
    --output="$page" "$here/quantlens-export-pytorch"
# Its Python example as code: lines as written, not filled (a long path cannot be adjusted).
sed -i -e '/^\.SS "Python/,/^\.PP/ { s/^\.IP$/.nf/; s/^\.PP$/.fi\n.PP/ }' "$page"
