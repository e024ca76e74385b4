#pragma once
// Writes the engine's Graph back as an ONNX ModelProto: the exporter behind `quantlens quantize`
// and any pass whose result a user wants to open in another tool (ONNX Runtime, Netron).

#include <cstdint>
#include <string>

#include "core/status.h"
#include "ir/graph.h"

namespace ql {

struct WriteOptions {
    // At least this IR version: IR 8 is what ONNX 1.12 / ONNX Runtime 1.1x read without complaint;
    // models of opsets 19-20 are written as IR 9, of opset 21 as IR 10, as those opsets came with.
    int64_t irVersion = 8;
    std::string producerName = "QuantLens";
    // Shapes of intermediate values from the loader's shape inference. Off by default: after a
    // pass rewrote the graph they may be stale, and ONNX Runtime re-infers them anyway.
    bool writeValueInfo = false;
    // Run onnx::checker on the result before writing it.
    bool runChecker = true;
};

// The serialized model. Fails with Unsupported for nodes with subgraph attributes (the Graph
// does not keep them) and with BadInput when the checker rejects the result.
Result<std::string> serializeModel(const Graph &graph, const WriteOptions &options = {});
// Same, written to `path`; messages start with the path.
Status writeModel(const Graph &graph, const std::string &path, const WriteOptions &options = {});

}  // namespace ql
