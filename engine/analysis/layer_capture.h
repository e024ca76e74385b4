#pragma once
// One batch through both models with taps around one matched layer: the float layer's output and
// inputs, the quantized model's value for the layer (dequantized), and, in the quantized graph as
// it ran (after the int8 lowering), the layer node's inputs and outputs in their own types (the
// uint8/int8 tensors the int8 kernel read and wrote), the quantized tensors behind
// DequantizeLinear inputs, and the values of the quantized nodes folded into the layer.
// The layer inspector and the element explanation read their numbers from this capture.

#include <map>
#include <string>

#include "analysis/layer_matching.h"
#include "analysis/quant_value.h"
#include "core/status.h"
#include "ir/graph.h"
#include "ir/tensor.h"
#include "passes/int8_kernel_mode.h"
#include "passes/precision.h"

namespace ql::analysis {

struct LayerCaptureOptions {
    Precision precision = Precision::Int8;  // how the quantized model runs
    Int8Kernels int8Kernels = Int8Kernels::Exact;
    int threads = 0;
};

struct LayerCapture {
    LayerMatch match;
    Graph floatFolded;           // the float graph with constants folded
    Graph quantFolded;           // the loaded quantized graph with constants folded
    Graph quantRun;              // the quantized graph as it ran (int8 lowering applied)
    int quantRunNode = -1;       // index of the layer's node in quantRun (the lowering keeps names)
    std::string quantRunReason;  // the lowering's decision for the node ("QLinearConv", "no int8
                                 // kernel: ...")
    QuantTarget target;          // the quantized layer's output value in quantFolded
    Tensor floatOutput;          // float model's layer output, float, plain
    Tensor quantOutput;          // quantized model's layer output, dequantized, float, plain
    Tensor quantOutputInt;  // the uint8/int8 tensor behind quantOutput when seen (else undefined)
    std::map<std::string, Tensor> floatValues;  // float node inputs (non-constant), plain, own type
    std::map<std::string, Tensor> quantValues;  // quantRun values around the node, plain, own type
};

// Both graphs as loaded (topologically sorted); `batch`: graph input name -> tensor.
// Errors: unknown nodes, a plan that cannot be built or run, a layer value that neither model
// produced.
Result<LayerCapture> captureLayer(const Graph &floatGraph, const Graph &quantGraph,
                                  const LayerMatch &match,
                                  const std::map<std::string, Tensor> &batch,
                                  const LayerCaptureOptions &options = {});

}  // namespace ql::analysis
