#pragma once
// Reads an ONNX model file into the engine's Graph: parse, resolve external data inside the
// model's folder, run onnx::checker and shape inference, convert fp16/bf16 initializers to
// float32, sort nodes topologically and fold the constant subgraphs exporters leave behind.

#include <cstdint>
#include <string>

#include "core/status.h"
#include "ir/graph.h"

namespace ql {

constexpr int64_t kMinOpset = 11;
constexpr int64_t kMaxOpset = 18;

struct LoadOptions {
    uint64_t maxFileBytes = (uint64_t(2) << 30) - 1;  // protobuf cannot parse 2 GiB or more
    bool runChecker = true;
    bool foldConstants = true;
    // Lowest default-domain opset accepted; the conformance runner lowers it for the
    // opset 1-9 backend test cases.
    int64_t minOpset = kMinOpset;
};

// Every error message starts with the file name.
Result<Graph> loadModel(const std::string &path, const LoadOptions &options = {});
// Same, from bytes already in memory; `baseDir` anchors external data ("" = none allowed).
Result<Graph> loadModelFromBytes(const std::string &bytes, const std::string &displayName,
                                 const std::string &baseDir, const LoadOptions &options = {});

}  // namespace ql
