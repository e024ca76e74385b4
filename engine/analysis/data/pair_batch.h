#pragma once
// The batch size a float / quantized model pair runs at. Exporters often fix the batch dimension
// (torch.onnx.export without dynamic_axes fixes it at the example's batch, usually 1): such a
// model runs only at that batch, so the analysis uses it instead of the requested one.

#include <cstdint>
#include <string>

#include "core/status.h"
#include "ir/graph.h"

namespace ql::analysis {

struct PairBatch {
    int64_t batch = 0;  // samples per batch
    std::string note;   // non-empty when a fixed batch overrode the default: say so once
};

// A batch dim fixed in either model's first input decides; otherwise `requested`. BadInput when
// the models fix different batches, or when `explicitRequest` and `requested` differs from a
// fixed batch (the user asked for something the model cannot run).
Result<PairBatch> pairBatchSize(const Graph &floatGraph, const Graph &quantGraph, int64_t requested,
                                bool explicitRequest);

}  // namespace ql::analysis
