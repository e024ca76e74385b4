#pragma once
// Reads an ONNX model file into the engine's Graph: parse, resolve external data inside the
// model's folder, upgrade opsets below 11 with ONNX's version converter (opset_upgrade.h), run
// onnx::checker and shape inference, convert fp16/bf16 initializers to
// float32, sort nodes topologically and fold the constant subgraphs exporters leave behind.

#include <cstdint>
#include <string>

#include "core/status.h"
#include "ir/graph.h"

namespace ql {

// Default-domain opsets: kMinNativeOpset to kMaxOpset load as they are (19-21: the ops the engine
// runs keep their meaning or the kernels follow the change: Q/DQ-21 16-bit and block-wise,
// Resize-19 half_pixel_symmetric, AveragePool-19 dilations, Gelu-20); kMinOpset to 10 are
// upgraded to opset 11 first, by ONNX's version converter (torch.onnx.export still writes opsets
// 9 and 10; the model zoo's older entries are opset 3 to 8). An op the converter has no adapter
// for is refused with the node and the opset step.
constexpr int64_t kMinOpset = 1;
constexpr int64_t kMinNativeOpset = 11;
constexpr int64_t kMaxOpset = 21;

// Highest default-domain opset the linked ONNX library has schemas for (17 for ONNX 1.12): its
// checker and shape inference judge newer models by older schemas.
int64_t onnxLibraryMaxOpset();

struct LoadOptions {
    uint64_t maxFileBytes = (uint64_t(2) << 30) - 1;  // protobuf cannot parse 2 GiB or more
    bool runChecker = true;
    bool foldConstants = true;
};

// Every error message starts with the file name.
Result<Graph> loadModel(const std::string &path, const LoadOptions &options = {});
// Same, from bytes already in memory; `baseDir` anchors external data ("" = none allowed).
Result<Graph> loadModelFromBytes(const std::string &bytes, const std::string &displayName,
                                 const std::string &baseDir, const LoadOptions &options = {});

}  // namespace ql
