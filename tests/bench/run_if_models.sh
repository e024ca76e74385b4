#!/usr/bin/env bash
# Runs a benchmark script of tests/tools when what it measures is on this machine, else skips
# (exit 77, ctest's SKIP_RETURN_CODE): ctest --preset bench, never the default test run.
#
#   run_if_models.sh MODELS_DIR FILE_IN_IT SCRIPT [ARGS...]
#
# MODELS_DIR comes from tests/tools/export_torchvision.py or export_torchvision_qdq.py; ONNX
# Runtime for Node.js as ort_run.js finds it (npm pack onnxruntime-node, then npm install
# --ignore-scripts on the tarball in /tmp/ort).
set -u
dir=$1 probe=$2
shift 2
if [ ! -f "$dir/$probe" ]; then
    echo "skipped: $dir/$probe missing (run the export script of tests/tools)"
    exit 77
fi
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/../tools" && pwd)"
if ! node -e "require('${ORT_NODE_MODULE:-/tmp/ort/node_modules/onnxruntime-node}')" 2>/dev/null &&
    ! node -e "require('onnxruntime-node')" 2>/dev/null; then
    echo "skipped: onnxruntime-node not found (see $here/ort_run.js)"
    exit 77
fi
exec bash "$@"
