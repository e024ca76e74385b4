#pragma once
// Removes the noise exporters put into Q/DQ chains so the lowering sees plain DQ -> op -> Q
// patterns. PyTorch 1.13 FX exports feed zero points through Constant / ConstantOfShape / Cast
// nodes and put Identity nodes between Q, DQ and ops. Constant subgraphs (Constant, Cast of a
// constant, ConstantOfShape, QuantizeLinear of a float weight) fold into initializers
// (passes/constant_folding.h); this pass also bypasses Identity nodes and Casts to the type the
// value already has.

#include "core/status.h"
#include "ir/graph.h"

namespace ql {

struct QdqCleanupReport {
    int foldedNodes = 0;
    int removedIdentities = 0;
    int removedCasts = 0;
};

Status cleanupQdqNoise(Graph &graph, QdqCleanupReport *report = nullptr);

}  // namespace ql
