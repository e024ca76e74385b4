#!/bin/bash
# Remakes the README's screenshots with `quantlens gui --screenshot` (offscreen, fresh settings):
#   bash tests/tools/make_screenshots.sh [build/release/app/quantlens]
set -eu
source=$(cd "$(dirname "$0")/../.." && pwd)
quantlens=${1:-$source/build/release/app/quantlens}
shots=$source/resources/screenshots
settings=$(mktemp -d)
trap 'rm -rf "$settings"' EXIT
export QT_QPA_PLATFORM=offscreen XDG_CONFIG_HOME=$settings/config XDG_DATA_HOME=$settings/data

"$quantlens" gui --demo --screenshot "$shots/main_window_demo.png"
"$quantlens" gui "$source/resources/demo/demo_fixed.qlproj" --screenshot "$shots/main_window_three_fp32.png"
"$quantlens" gui --demo --layer /features/features.4/Conv --inspector-tab explain --grab inspector \
    --screenshot "$shots/layer_inspector_explain.png"
"$quantlens" gui --demo --layer /features/features.0/Conv --inspector-tab activations \
    --grab inspector --screenshot "$shots/layer_inspector_activations.png"
"$quantlens" gui --demo --palette dark --screenshot "$shots/main_window_dark.png"
"$quantlens" gui --demo --view graph --screenshot "$shots/graph_view_demo.png"
# The worst-samples strip on image data: 200 Fashion-MNIST test images as PNGs in class folders
# (needs Debian's dataset-fashion-mnist and python3-numpy), the demo's models, batch 16.
if [ -d /usr/share/datasets/fashion-mnist ]; then
    /usr/bin/python3 "$source/tests/tools/make_fashion_images.py" "$settings/fashion" 200 >/dev/null
    cat > "$settings/fashion.qlproj" <<EOF
{
    "format": "quantlens-project",
    "version": 1,
    "analysis": {
        "float_model": "$source/resources/demo/fashion_cnn.onnx",
        "quant_model": "$source/resources/demo/fashion_cnn_int8.onnx",
        "quantized_in_app": false,
        "data": ["$settings/fashion"],
        "preprocess": "color=gray,resize=28,crop=28,scale=1/255,mean=0.2860,std=0.3530",
        "batch": 16,
        "int8_kernels": "exact"
    },
    "threshold_db": 30
}
EOF
    "$quantlens" gui "$settings/fashion.qlproj" --screenshot "$shots/worst_samples_fashion.png"
else
    echo "no /usr/share/datasets/fashion-mnist (apt-get install dataset-fashion-mnist):" \
        "worst_samples_fashion.png not remade" >&2
fi
# Per-layer remedies: the Fashion-MNIST MobileNet (per-tensor weights) quantized in the app, its
# first Conv rounded by AdaRound and the classifier's bias corrected; the layer menu on the Conv
# the diagnosis asks to bias-correct, then the same analysis with that bias corrected too.
remedies=$source/tests/data/remedies
for corrected in "" ', "/features/features.3/conv/conv.3/Conv"'; do
    cat > "$settings/remedies.qlproj" <<EOF
{
    "format": "quantlens-project",
    "version": 1,
    "analysis": {
        "float_model": "$remedies/fashion_mobilenet_balanced.onnx",
        "quantized_in_app": true,
        "quantizer": {"method": "minmax", "per_tensor": true},
        "calibration": ["$remedies/fashion_calib.npy"],
        "data": ["$remedies/fashion_test.npy"],
        "labels": "$remedies/fashion_test_labels.npy",
        "batch": 100,
        "int8_kernels": "exact"
    },
    "threshold_db": 30,
    "layer_remedies": {"adaround": ["/features/features.0/Conv"],
                       "bias-correction": ["/classifier/Gemm"$corrected]}
}
EOF
    if [ -z "$corrected" ]; then
        "$quantlens" gui "$settings/remedies.qlproj" --layer /features/features.3/conv/conv.3/Conv \
            --grab layer-menu --screenshot "$shots/remedies_layer_menu.png"
    else
        "$quantlens" gui "$settings/remedies.qlproj" --layer /features/features.3/conv/conv.3/Conv \
            --screenshot "$shots/remedies_bias_corrected.png"
    fi
done
echo "screenshots written to $shots"
