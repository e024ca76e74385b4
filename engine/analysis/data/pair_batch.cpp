#include "analysis/data/pair_batch.h"

namespace ql::analysis {

namespace {

// The fixed batch of a graph's first input, or 0 when it is dynamic or unknown.
int64_t fixedBatch(const Graph &graph) {
    if (graph.inputs.empty()) return 0;
    const ValueInfo &input = graph.inputs[0];
    return input.hasShape && !input.shape.empty() && input.shape[0] > 0 ? input.shape[0] : 0;
}

std::string describe(const Graph &graph) {
    const ValueInfo &input = graph.inputs[0];
    return "'" + graph.sourcePath + "' (input '" + input.name + "' " + shapeToString(input.shape) +
           ")";
}

}  // namespace

Result<PairBatch> pairBatchSize(const Graph &floatGraph, const Graph &quantGraph, int64_t requested,
                                bool explicitRequest) {
    const int64_t f = fixedBatch(floatGraph), q = fixedBatch(quantGraph);
    if (f > 0 && q > 0 && f != q)
        return Status::badInput("models do not match: " + describe(floatGraph) +
                                " fixes the batch at " + std::to_string(f) + ", " +
                                describe(quantGraph) + " at " + std::to_string(q));
    const int64_t fixed = f > 0 ? f : q;
    if (fixed == 0 || fixed == requested) return PairBatch{requested, ""};
    const Graph &which = f > 0 ? floatGraph : quantGraph;
    if (explicitRequest)
        return Status::badInput("--batch " + std::to_string(requested) + ": " + describe(which) +
                                " fixes the batch at " + std::to_string(fixed) +
                                "; leave --batch out, or export the model with a dynamic batch "
                                "axis (torch.onnx.export dynamic_axes)");
    return PairBatch{fixed, describe(which) + " fixes the batch at " + std::to_string(fixed) +
                                ": running batches of " + std::to_string(fixed)};
}

}  // namespace ql::analysis
