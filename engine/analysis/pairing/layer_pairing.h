#pragma once
// The pairing step of layer matching (layer_matching.h states the rules): each graph's compute
// layers as units (a compute node plus the BatchNormalization it may absorb), paired by weight
// evidence and graph structure, with node names only breaking ties. Internal to the analysis.

#include <map>
#include <string>
#include <vector>

#include "core/status.h"
#include "ir/graph.h"

namespace ql::analysis {
class WeightCorrelationMemo;
}

namespace ql::analysis::pairing {

// BatchNormalization, Relu, Clip: a quantized model may fold or fuse them away.
bool isFoldable(const std::string &op);

// One layer: a compute node plus a BatchNormalization directly behind it (sole consumer, through
// Q/DQ, Cast and Identity).
struct Unit {
    int head = -1;
    int bn = -1;
    int depth = 0;          // compute layers (foldable ones not counted) from the graph inputs
    std::string op;         // canonical op type
    std::string signature;  // op types downstream, to order same-depth same-op layers
};

struct GraphLayers {
    const Graph *graph = nullptr;
    std::map<std::string, std::vector<int>> consumers;  // value -> node indices
    std::vector<Unit> units;                            // in node order
};

GraphLayers collectLayers(const Graph &graph);

struct UnitPair {
    int floatUnit = -1, quantUnit = -1;
    std::string how;  // "weights" | "structure" | "name"
    double confidence = 0.0;
};

struct Pairing {
    std::vector<UnitPair> pairs;
    std::map<int, std::string> floatWhy, quantWhy;  // unpaired unit -> why it found no partner
};

// Errors (BadInput): the graphs cannot be a float / quantized pair: their weighted layers differ
// and one of them finds no partner of the same weight shape; the message names it.
// `memo` (may be null) remembers weight correlations across calls.
Result<Pairing> pairUnits(const GraphLayers &floatLayers, const GraphLayers &quantLayers,
                          WeightCorrelationMemo *memo = nullptr);

}  // namespace ql::analysis::pairing
