#pragma once
// Keeps chosen layers of a quantized model (QDQ form) in fp32: the interactive session's toggle
// for a quantized model file. The matched quantized node (and the Relu/Clip folded into its
// unit) computes in float with the FLOAT model's constants — weight and bias with a
// BatchNormalization folded in when the match folded one (quantized model folded it) — and reads
// its activation inputs before their QuantizeLinear: DQ(Q(x)) -> x. A Q/DQ pair that nothing
// else reads any more is removed; one still read by an int8 layer stays for it. When the
// layer's output reaches a graph output only through its own Q/DQ, the pair goes too and the
// layer writes the graph output directly.
//
// QOperator models: expand them to QDQ first (passes/qoperator_to_qdq.h); the node names stay.

#include <string>
#include <vector>

#include "analysis/layer_matching.h"
#include "core/status.h"
#include "ir/graph.h"

namespace ql::analysis {

// `quantGraph` (QDQ, topologically sorted) is rewritten in place; `layers` are matches of
// (floatGraph, quantGraph). BadInput naming the layer when its quantized node's op type differs
// from the float one or a float constant is missing.
Status keepLayersFp32(Graph &quantGraph, const Graph &floatGraph, const std::vector<LayerMatch> &layers);

}  // namespace ql::analysis
