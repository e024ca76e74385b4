#pragma once
// Keeps chosen layers of a quantized model (QDQ form) in fp32: the interactive session's toggle
// for a quantized model file. The matched quantized node (and the Relu/Clip folded into its
// unit) computes in float with the FLOAT model's constants — weight and bias with a
// BatchNormalization folded in when the match folded one (quantized model folded it). Its
// activation inputs lose their Q/DQ (DQ(Q(x)) -> x) unless x is the output of a layer that stays
// int8: that quantizer is the int8 layer's own, and an fp32 layer after an int8 one reads its
// dequantized output (what ONNX Runtime's and QuantLens' quantizers do for an excluded node). A
// Q/DQ pair that nothing reads any more is removed; one still read by an int8 layer stays. When
// the layer's output reaches a graph output only through its own Q/DQ, the pair goes too and
// the layer writes the graph output directly. Toggling every layer gives the float model.
//
// QOperator models: expand them to QDQ first (passes/qoperator_to_qdq.h); the node names stay.

#include <set>
#include <string>
#include <vector>

#include "analysis/pairing/layer_matching.h"
#include "core/status.h"
#include "ir/graph.h"

namespace ql::analysis {

// The float model's constants as fp32 layers read them: folded as the float model computes
// them, and with BatchNormalizations folded into their producers. Made once per float model and
// shared by every toggled model, whose fp32 layers then hold the same tensors (no copy per
// toggle: a search tries hundreds of sets, and the layer matching remembers weights by memory).
struct Fp32LayerConstants {
    Graph plain, folded;
};
Result<Fp32LayerConstants> fp32LayerConstants(const Graph &floatGraph);

// `quantGraph` (QDQ, topologically sorted) is rewritten in place; `layers` are matches of
// (floatGraph, quantGraph); `constants` are floatGraph's. BadInput naming the layer when its
// quantized node's op type differs from the float one or a float constant is missing.
Status keepLayersFp32(Graph &quantGraph, const Graph &floatGraph,
                      const Fp32LayerConstants &constants, const std::vector<LayerMatch> &layers);
// The same, with floatGraph's constants folded for this call alone.
Status keepLayersFp32(Graph &quantGraph, const Graph &floatGraph,
                      const std::vector<LayerMatch> &layers);

// The matches of `layers`: float node names, each a matched layer or a node folded into one's
// match (a BatchNormalization, a Relu). BadInput naming the first name that is no node of the
// float model (with the closest names) or has no counterpart in the quantized model.
Result<std::vector<LayerMatch>> matchesOfLayers(const LayerMatching &matching,
                                                const Graph &floatGraph,
                                                const std::set<std::string> &layers);

// An imported quantized model (QDQ or QOperator form) with `layers` kept in fp32, as the
// interactive session's toggle does (QOperator nodes expanded to QDQ first).
Result<Graph> quantModelWithFp32Layers(const Graph &floatGraph, const Graph &quantGraph,
                                       const std::set<std::string> &layers);

}  // namespace ql::analysis
