#!/usr/bin/env bash
# The `quantlens infer` / `bench` contract later checks rely on: outputs, outputs.json, exit codes
# (0 ok, 2 bad usage or input, 3 unsupported model) and one-line messages naming the file.
set -u
quantlens=$1
data=${2:-/usr/share/libonnx-testdata/data}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
source "$(dirname "$0")/expect.sh"

relu="$data/node/test_relu"
[ -d "$relu" ] || { echo "missing $relu: apt-get install libonnx-testdata"; exit 1; }

expect "infer runs an ONNX test case" 0 "" -- \
    "$quantlens" infer "$relu/model.onnx" --inputs-dir "$relu/test_data_set_0" --output-dir "$work/o"
for f in output_0.npy outputs.json; do
    if [ -s "$work/o/$f" ]; then passed=$((passed + 1)); else failed=$((failed + 1)); echo "FAIL missing $f"; fi
done
expect "outputs.json names the output" 0 '"name": "y"' -- cat "$work/o/outputs.json"
expect "outputs.json gives dtype" 0 '"dtype": "float32"' -- cat "$work/o/outputs.json"
expect "named input" 0 "" -- \
    "$quantlens" infer "$relu/model.onnx" --input "x=$relu/test_data_set_0/input_0.pb" --output-dir "$work/o2"

printf 'not a model' >"$work/bad.onnx"
expect "corrupt model" 2 "bad.onnx: not an ONNX model" -- \
    "$quantlens" infer "$work/bad.onnx" --inputs-dir "$relu/test_data_set_0" --output-dir "$work/o3"
expect "missing model" 2 "no such file" -- \
    "$quantlens" infer "$work/none.onnx" --inputs-dir "$relu/test_data_set_0" --output-dir "$work/o3"
expect "unknown input name" 2 "model has no input named 'nope'" -- \
    "$quantlens" infer "$relu/model.onnx" --input "nope=$relu/test_data_set_0/input_0.pb" --output-dir "$work/o3"
expect "wrong input shape" 2 "input 'x': expected shape [3,4,5], got [5]" -- \
    "$quantlens" infer "$relu/model.onnx" --input "x=$data/node/test_add_bcast/test_data_set_0/input_1.pb" \
    --output-dir "$work/o3"
expect "no inputs given" 2 "give either --input" -- "$quantlens" infer "$relu/model.onnx" --output-dir "$work/o3"
expect "unknown option" 2 "Unknown option" -- "$quantlens" infer --frobnicate
unsupported="$data/node/test_nonmaxsuppression_center_point_box_format"
expect "unsupported op" 3 "unsupported op NonMaxSuppression (node '" -- \
    "$quantlens" infer "$unsupported/model.onnx" --inputs-dir "$unsupported/test_data_set_0" --output-dir "$work/o3"
expect "bench" 0 "median_ms:" -- "$quantlens" bench "$relu/model.onnx" --runs 3 --threads 1

# --precision on the PyTorch FX QDQ fixture (int8 by default for a quantized model).
fx="$(dirname "$0")/../data/fx_fashion_cnn"
if [ -f "$fx/qdq.onnx" ]; then
    expect "infer int8 report" 0 "" -- \
        "$quantlens" infer "$fx/qdq.onnx" --input "input=$fx/inputs.npy" --output-dir "$work/q8" --threads 1
    expect "outputs.json has the precision" 0 '"int8_nodes"' -- cat "$work/q8/outputs.json"
    expect "infer reference" 0 "" -- \
        "$quantlens" infer "$fx/qdq.onnx" --input "input=$fx/inputs.npy" --output-dir "$work/qr" --precision reference
    expect "reference mode recorded" 0 '"mode": "reference"' -- cat "$work/qr/outputs.json"
    expect "bad precision" 2 "--precision expects fp32, int8 or reference, got 'int4'" -- \
        "$quantlens" infer "$fx/qdq.onnx" --input "input=$fx/inputs.npy" --output-dir "$work/qx" --precision int4
    expect "bench int8 summary" 0 "fp32 fallback:" -- "$quantlens" bench "$fx/qdq.onnx" --runs 1 --threads 1
    expect "bench fp32" 0 "precision: fp32" -- "$quantlens" bench "$fx/qdq.onnx" --runs 1 --threads 1 --precision fp32
    expect "infer fast int8 kernels" 0 "" -- \
        "$quantlens" infer "$fx/qdq.onnx" --input "input=$fx/inputs.npy" --output-dir "$work/qf" --int8-kernels fast
    expect "bench exact int8 kernels" 0 "median_ms:" -- \
        "$quantlens" bench "$fx/qdq.onnx" --runs 1 --threads 1 --int8-kernels exact
    expect "bad int8 kernels" 2 "--int8-kernels expects exact or fast, got 'vnni'" -- \
        "$quantlens" bench "$fx/qdq.onnx" --runs 1 --int8-kernels vnni
fi
expect "float model defaults to fp32" 0 "precision: fp32" -- "$quantlens" bench "$relu/model.onnx" --runs 1 --threads 1
expect "int8 asked for a float model" 0 "has no quantized nodes; it runs in fp32" -- \
    "$quantlens" bench "$relu/model.onnx" --runs 1 --threads 1 --precision int8

# Headless: a mistyped subcommand or an unknown option is a usage error, never a GUI that aborts
# for want of a display; the GUI without a display says so; --help needs no display.
nodisplay=(env -u DISPLAY -u WAYLAND_DISPLAY -u QT_QPA_PLATFORM)
expect "unknown subcommand" 2 "'analyse' is neither a subcommand" -- "${nodisplay[@]}" "$quantlens" analyse --float x
expect "unknown option" 2 "Unknown option 'bogus'" -- "${nodisplay[@]}" "$quantlens" --bogus
expect "unknown gui option" 2 "Unknown option 'bogus'" -- "${nodisplay[@]}" "$quantlens" gui --bogus
expect "gui without a display" 2 "no display" -- "${nodisplay[@]}" "$quantlens"
expect "help without a display" 0 "Subcommands:" -- "${nodisplay[@]}" "$quantlens" --help
echo '{"format": "quantlens-project", "analysis": []}' >"$work/broken.qlproj"
expect "broken project, screenshot" 2 "broken.qlproj: not a QuantLens project" -- \
    "${nodisplay[@]}" timeout 20 "$quantlens" gui "$work/broken.qlproj" --screenshot "$work/b.png"
expect "screenshot into a missing folder" 3 "cannot write the PNG" -- \
    "${nodisplay[@]}" timeout 60 "$quantlens" gui "$relu/model.onnx" --screenshot "$work/none/b.png"

# OpenMP threads spin briefly at barriers except in bench and infer, which keep libgomp's long
# spin (app/launcher/quantlens_launcher.cpp): libgomp's settings as it read them, in the run that
# does the work (the last one printed); a user's own setting wins.
omp=(env -u GOMP_SPINCOUNT -u OMP_WAIT_POLICY OMP_DISPLAY_ENV=verbose)
expect "short OpenMP spin" 0 "" -- "${omp[@]}" "$quantlens" --version
if grep "GOMP_SPINCOUNT = " "$work/err" | tail -1 | grep -qF "'10000'"; then passed=$((passed + 1)); else
    failed=$((failed + 1)); echo "FAIL short OpenMP spin: $(grep GOMP_SPINCOUNT "$work/err")"; fi
for subcommand in bench infer; do
    expect "long OpenMP spin for $subcommand" 0 "" -- "${omp[@]}" "$quantlens" $subcommand --help
    if grep "GOMP_SPINCOUNT = " "$work/err" | tail -1 | grep -qF "'300000'"; then passed=$((passed + 1)); else
        failed=$((failed + 1)); echo "FAIL long OpenMP spin for $subcommand: $(grep GOMP_SPINCOUNT "$work/err")"; fi
done
expect "user's OpenMP spin" 0 "GOMP_SPINCOUNT = '300'" -- "${omp[@]}" GOMP_SPINCOUNT=300 "$quantlens" --version
if ! grep -qF "'10000'" "$work/err"; then passed=$((passed + 1)); else
    failed=$((failed + 1)); echo "FAIL user's OpenMP spin overridden"; fi

# The launcher: argv[0] passes through (usage names the command as typed); without the
# application beside it or in ../libexec/quantlens/ it says where it looked.
expect "usage names the command as typed" 0 "Usage: $quantlens [options]" -- "$quantlens" infer --help
mkdir -p "$work/lonely"
cp "$quantlens" "$work/lonely/quantlens"
expect "launcher without the application" 127 "quantlens-main is missing beside $work/lonely/" -- \
    "$work/lonely/quantlens" --version

# The launcher tunes glibc's malloc (transparent huge pages, a 64 MB heap pad), keeping the user's
# tunables; their own setting of either wins. An application that prints its environment stands in for the real one.
mkdir -p "$work/env"
cp "$quantlens" "$work/env/quantlens"
printf '#!/bin/sh\necho "tunables [$GLIBC_TUNABLES]"\n' >"$work/env/quantlens-main"
chmod +x "$work/env/quantlens-main"
expect "huge pages asked for" 0 "tunables [glibc.malloc.hugetlb=1:glibc.malloc.top_pad=67108864]" -- \
    env -u GLIBC_TUNABLES "$work/env/quantlens"
expect "user's tunables kept" 0 "tunables [glibc.malloc.arena_max=2:glibc.malloc.hugetlb=1:glibc.malloc.top_pad=67108864]" -- \
    env GLIBC_TUNABLES=glibc.malloc.arena_max=2 "$work/env/quantlens"
expect "user's huge page setting wins" 0 "tunables [glibc.malloc.hugetlb=0:glibc.malloc.top_pad=67108864]" -- \
    env GLIBC_TUNABLES=glibc.malloc.hugetlb=0 "$work/env/quantlens"
expect "user's heap pad wins" 0 "tunables [glibc.malloc.top_pad=0:glibc.malloc.hugetlb=1]" -- \
    env GLIBC_TUNABLES=glibc.malloc.top_pad=0 "$work/env/quantlens"

echo "cli contract: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
