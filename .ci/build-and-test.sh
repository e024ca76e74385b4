#!/usr/bin/env bash
# Installs what QuantLens needs (Debian 12), builds it and runs every test; prints how long each
# phase took. This is README's test command and all that .ci/run does.
#   1. release build; the whole suite natively (on an AVX-512 VNNI machine oneDNN picks brgconv
#      and exact int8 dot products), including the kernels' tests on qemu-emulated AVX2-only and
#      pre-AVX CPUs (label `emulated`, tests/cpus);
#   2. the whole suite again with oneDNN held to AVX2 (jit_uni_int8, saturating u8 x s8 pairs),
#      so tolerances hold on both kinds of machine; the emulated CPUs already ran in pass 1;
#   3. the whole suite built with ASan + UBSan (-O1, no benchmarks: ctest never runs them).
# Compiles go through ccache (installed by .ci/install-deps.sh); its folder is outside the clone
# (~/.cache/ccache), so a second run, or a clone in another folder, recompiles only what changed.
set -euo pipefail
cd "$(dirname "$0")/.."

export CCACHE_BASEDIR="$PWD"  # paths inside the clone hash as relative: clones share objects
export CCACHE_NOHASHDIR=1     # -g line tables name the build folder; a cached object may keep another's
export CCACHE_MAXSIZE="${CCACHE_MAXSIZE:-6G}"

phases=()
started=$SECONDS
phase() {
    local name=$1
    shift
    local begin=$SECONDS
    echo "=== $name: $*"
    "$@"
    phases+=("$(printf '%-34s %5d s' "$name" $((SECONDS - begin)))")
}
summary() {
    local status=$?
    echo
    echo "=== time per phase"
    printf '%s\n' "${phases[@]}"
    printf '%-34s %5d s\n' "total" $((SECONDS - started))
    command -v ccache >/dev/null && ccache --show-stats 2>/dev/null | grep -iE "^ *(hits|misses|cacheable)|Hits:|Misses:" || true
    exit $status
}
trap summary EXIT

phase "install packages" bash .ci/install-deps.sh
phase "configure release" cmake --preset release
phase "build release" cmake --build --preset release
phase "tests, native" ctest --preset release
phase "tests, oneDNN held to AVX2" ctest --preset release-avx2
phase "configure asan" cmake --preset asan
phase "build asan" cmake --build --preset asan
phase "tests, ASan + UBSan" ctest --preset asan
