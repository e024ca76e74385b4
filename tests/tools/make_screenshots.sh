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
echo "screenshots written to $shots"
