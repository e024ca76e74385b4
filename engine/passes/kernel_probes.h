#pragma once
// What the kernels of this build can do, found by running them once on a tiny input (cached).
// The int8 lowering asks before it emits a node a kernel would run wrongly or not at all, so a
// build without some int8 kernel still gives correct results (and the report says why).

#include <string>

namespace ql::probe {

// MaxPool runs on uint8 tensors and returns uint8.
bool maxPoolRunsOnUint8();
// The kernel of "QLinearConv", "QLinearMatMul" or "QGemm" (com.microsoft) applies the
// ql_activation attribute (Relu) of contract 1.
bool appliesFusedActivation(const std::string &opType);

}  // namespace ql::probe
