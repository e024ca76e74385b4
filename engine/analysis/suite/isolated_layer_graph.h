#pragma once
// Cuts each matched quantized layer out of its model as a small graph of its own, for the
// isolated (shadow) comparison: the layer fed the FLOAT model's input to that layer.
//
// Per match, on the quantized graph in QDQ form (constants folded; QOperator nodes expanded to
// DequantizeLinear -> fp32 op -> QuantizeLinear, which keeps the node names):
//  * the layer's core: the nodes from `quantNode` forward to `quantOutput` (the layer node, a
//    folded Relu/Clip, and the QuantizeLinear / Cast / Identity / DequantizeLinear behind them);
//  * its input chains: from every core input back through DequantizeLinear / QuantizeLinear /
//    Cast / Identity to a root. Constant roots stay initializers; an activation root (the output
//    of another compute node, or a graph input) becomes an input of the layer graph, fed with
//    the float model's counterpart: graph inputs by position, the last compute value of another
//    match's core -> that match's floatOutput.
// So the layer sees Q(float input) with exactly the quantized model's input parameters, its own
// quantized weights, and its own output quantization: the layer's own error.
// The graph output is the layer's quantized tensor when its quantization is per tensor (the
// caller dequantizes it), else a float value. A layer whose root has no float counterpart gets
// no graph and a note saying why.

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "analysis/pairing/layer_matching.h"
#include "core/status.h"
#include "ir/graph.h"

namespace ql::analysis {

struct IsolatedLayerGraph {
    bool usable = false;
    std::string note;  // why the layer has no graph (when !usable)
    // QDQ form, not yet prepared for a precision. Inputs: the activation roots (quantized-model
    // value names); one output: the layer's dequantized output.
    Graph graph;
    std::vector<std::pair<std::string, std::string>> inputs;  // layer-graph input -> float value
    std::string floatOutput;                                  // the float value to compare with
    // The graph output is the quantized (uint8/int8) tensor: dequantize it with the parameters
    // below. Otherwise it is float.
    bool outputQuantized = false;
    // Per-tensor output quantization (dequantization, saturation, rmse/scale), when constant.
    std::optional<float> outputScale;
    int32_t outputZeroPoint = 0;
    int32_t outputQmin = 0, outputQmax = 255;
};

// How a layer-graph input is fed quantized: as QuantizeLinear with these parameters would.
struct QuantizedFeed {
    std::string input;                // the graph input's new name
    DataType type = DataType::UInt8;  // UInt8 or Int8
    float scale = 1.0f;
    int32_t zeroPoint = 0;
};

// When the graph input `input` feeds nothing but one QuantizeLinear with one constant scale and
// zero point, the input is fed already quantized: it becomes that node's output (8-bit) and the
// node goes. The caller then quantizes the float value itself, in a pass it makes anyway
// (analysis/metrics/value_sweep.h). Returns the parameters, or nullopt (graph unchanged).
std::optional<QuantizedFeed> feedQuantized(Graph &graph, const std::string &input);

// One entry per match, in matching.matches order. Fails only when the quantized graph cannot
// be brought into QDQ form (constant folding or QOperator expansion errors).
Result<std::vector<IsolatedLayerGraph>> extractIsolatedLayers(const Graph &floatGraph,
                                                              const Graph &quantGraph,
                                                              const LayerMatching &matching);

}  // namespace ql::analysis
