#pragma once
// Internal: upgrades models of old default-domain opsets with ONNX's own version converter, so
// the kernels only meet the semantics of the opsets they were written for (11 and later).

#include <cstdint>
#include <string>
#include <vector>

#include <onnx/onnx_pb.h>

#include "core/status.h"

namespace ql {

// Opset old models are converted to: the lowest one the kernels implement. Going further (13)
// would run ONNX 1.12's Softmax 12->13 adapter, which needs static shapes and writes garbage
// into its Reshape for unknown dimensions.
constexpr int64_t kUpgradeTargetOpset = 11;

// Converts `model` from default opset `fromOpset` to kUpgradeTargetOpset in place. Nodes keep
// the names they had (name every node before calling: the converter adds nodes and replaces
// some, e.g. Upsample by Resize) and the file's initializers stay. Errors name the node and op;
// nothing the converter throws escapes. Notes about the result go to `warnings`.
Status upgradeOpset(onnx::ModelProto &model, int64_t fromOpset, std::vector<std::string> *warnings);

}  // namespace ql
