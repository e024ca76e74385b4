#pragma once
// How a numeric-suite report row (numeric_suite.h) is filled from each comparison's result,
// shared by runNumericSuite and the incremental session (incremental_suite.h) so that a row
// re-assembled after a toggle is the row a full run gives.
//
// Each setter or copier replaces only its own figures and its own notes; notes are kept in one
// order (cumulative, weight, isolated, others) whatever order the calls come in.

#include <map>
#include <string>

#include "analysis/suite/activation_comparison.h"
#include "analysis/suite/isolated_comparison.h"
#include "analysis/pairing/layer_matching.h"
#include "analysis/suite/numeric_suite.h"
#include "analysis/suite/weight_comparison.h"
#include "ir/graph.h"
#include "passes/precision.h"

namespace ql::analysis {

// The op type of `node` in `graph` ("" when absent).
std::string nodeOpType(const Graph &graph, const std::string &node);

using PrecisionByNode = std::map<std::string, const NodePrecision *>;
PrecisionByNode precisionByNode(const PrecisionReport &precision);

// Names, op type, folded nodes, how it was matched, and how the quantized layer runs.
void setLayerIdentity(LayerReport &row, const Graph &floatGraph, const LayerMatch &match,
                      const PrecisionByNode &precision);

// The cumulative figures and per-sample ranges, or the note that the value was not observed
// when the quantized model runs `quantPrecision`.
void setCumulativeFigures(LayerReport &row, const LayerActivationComparison &compared,
                          const std::string &quantPrecision);
// The weight figures, or the note why a weighted layer has none.
void setWeightFigures(LayerReport &row, const LayerWeightComparison &compared);
// The isolated and kernel-check figures the options ask for, and the isolated note; nullptr
// clears them (no isolated run for the layer).
void setIsolatedFigures(LayerReport &row, const LayerIsolatedComparison *compared,
                        const NumericSuiteOptions &options);

// The same figures (and notes) taken from another row of the same layer.
void copyCumulativeFigures(LayerReport &to, const LayerReport &from);
void copyWeightFigures(LayerReport &to, const LayerReport &from);
void copyIsolatedFigures(LayerReport &to, const LayerReport &from);

}  // namespace ql::analysis
