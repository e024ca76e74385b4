#!/bin/bash
# quantlens gui --screenshot: the demo analysed, a project (the demo with conv1, pool1 and conv2
# in fp32) analysed, the layer inspector alone (--layer, --inspector-tab, --grab), a plain model, the
# graph view (--view graph) of both, and a broken project (an error on stderr, a non-zero exit);
# and the demo's int8 model script runs (tst_demo_quantization compares its result with the
# committed model within the calibration's resolution: not byte for byte, as float kernels sum in
# another order on another CPU).
set -eu
quantlens=$1
source=$2
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
export QT_QPA_PLATFORM=offscreen XDG_CONFIG_HOME=$out/config XDG_DATA_HOME=$out/data OMP_NUM_THREADS=2

is_png() {
    [ "$(head -c 8 "$1" | od -An -tx1 | tr -d ' \n')" = "89504e470d0a1a0a" ] && [ "$(stat -c %s "$1")" -gt 20000 ]
}

"$quantlens" gui --demo --screenshot "$out/demo.png"
is_png "$out/demo.png"
"$quantlens" gui "$source/resources/demo/demo_fixed.qlproj" --screenshot "$out/fixed.png"
is_png "$out/fixed.png"
"$quantlens" gui --demo --palette dark --screenshot "$out/dark.png"
is_png "$out/dark.png"
# The layer inspector alone, on a chosen layer and tab; a layer the analysis lacks is an error.
"$quantlens" gui --demo --layer /features/features.4/Conv --inspector-tab explain --grab inspector \
    --screenshot "$out/inspector.png"
is_png "$out/inspector.png"
[ "$(/usr/bin/env python3 -c 'import struct,sys; d=open(sys.argv[1],"rb").read(24); print(struct.unpack(">I", d[16:20])[0])' "$out/inspector.png")" -lt 1400 ]
# The layer's menu drawn beside its table row: the picture differs from the window's alone.
"$quantlens" gui --demo --layer /features/features.4/Conv --screenshot "$out/layer.png"
"$quantlens" gui --demo --layer /features/features.4/Conv --grab layer-menu \
    --screenshot "$out/layer_menu.png"
is_png "$out/layer_menu.png"
! cmp -s "$out/layer.png" "$out/layer_menu.png"
if "$quantlens" gui --demo --layer /no/such/Conv --screenshot "$out/nolayer.png" 2> "$out/err.txt"; then
    echo "an unknown --layer must fail"; exit 1
fi
grep -q "/no/such/Conv" "$out/err.txt"
"$quantlens" gui "$source/resources/demo/fashion_cnn.onnx" --screenshot "$out/model.png"
is_png "$out/model.png"
# The graph view: the demo with its SQNR overlay, and a float model alone (no overlay).
"$quantlens" gui --demo --view graph --screenshot "$out/graph.png"
is_png "$out/graph.png"
"$quantlens" gui "$source/resources/demo/fashion_cnn.onnx" --view graph --screenshot "$out/model_graph.png"
is_png "$out/model_graph.png"
if "$quantlens" gui --demo --view table --screenshot "$out/noview.png" 2> "$out/err.txt"; then
    echo "an unknown --view must fail"; exit 1
fi
grep -q -- "--view" "$out/err.txt"
# One sample alone (the worst-samples strip's click), and a sample the data does not have.
"$quantlens" gui --demo --sample 17 --screenshot "$out/sample.png"
is_png "$out/sample.png"
if "$quantlens" gui --demo --sample 999 --screenshot "$out/nosample.png" 2> "$out/err.txt"; then
    echo "a sample out of range must fail"; exit 1
fi
grep -q "sample 999 of 64" "$out/err.txt"

echo '{"format": "quantlens-project", "version": 1, "analysis": {"float_model": "missing.onnx",
      "quant_model": "missing_int8.onnx", "data": ["x.npy"]}}' > "$out/broken.qlproj"
if "$quantlens" gui "$out/broken.qlproj" --screenshot "$out/broken.png" 2> "$out/err.txt"; then
    echo "a project with missing models must fail"; exit 1
fi
grep -q "missing.onnx" "$out/err.txt"
[ ! -e "$out/broken.png" ]

bash "$source/tests/tools/make_demo_quant.sh" "$quantlens" "$out/int8.onnx" > /dev/null
"$quantlens" bench "$out/int8.onnx" --runs 1 > /dev/null
echo "screenshots and demo pair OK"
