#!/usr/bin/env bash
# Installs the Debian 12 packages QuantLens needs to build, test and run; skips what is present.
set -euo pipefail
packages=(
    build-essential cmake ninja-build pkg-config git
    qt6-base-dev qt6-tools-dev qt6-tools-dev-tools qt6-l10n-tools qt6-svg-dev libgl-dev
    libqcustomplot-dev libdnnl-dev ocl-icd-opencl-dev opencl-headers libonnx-dev libprotobuf-dev protobuf-compiler
    libonnx-testdata python3 python3-numpy python3-scipy python3-jsonschema xvfb xauth libgtest-dev libbenchmark-dev fonts-dejavu-core
    tidy poppler-utils libgraphviz-dev libzip-dev qemu-user ccache help2man man-db
)
missing=()
for p in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
    sudo_cmd=""
    [ "$(id -u)" -eq 0 ] || sudo_cmd="sudo"
    echo "Installing: ${missing[*]}"
    $sudo_cmd apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
