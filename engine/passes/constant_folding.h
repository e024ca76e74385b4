#pragma once

#include "core/status.h"
#include "ir/graph.h"

namespace ql {

struct FoldingReport {
    int foldedNodes = 0;
    int removedInitializers = 0;
};

// Replaces nodes whose inputs are all constant (Constant, and chains such as
// Shape -> Gather -> Unsqueeze -> Concat on static shapes) by initializers, running them
// through the engine's own kernels, then drops initializers nothing uses any more.
// Shape nodes fold when shape inference knows their input's full shape. DequantizeLinear never
// folds, so quantized weights stay visible to the precision passes.
Status foldConstants(Graph &graph, FoldingReport *report = nullptr);

}  // namespace ql
