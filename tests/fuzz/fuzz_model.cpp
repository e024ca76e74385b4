// The ONNX model loader with its graph checks, then the importer: QOperator nodes expanded to
// QDQ, precision preparation (int8 lowering) and an execution plan (shape checks, kernels).
#include "fuzz_support.h"
#include "onnx_io/model_loader.h"
#include "passes/precision.h"
#include "passes/qoperator_to_qdq.h"
#include "runtime/execution_plan.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    ql::fuzz::limitTensors();
    auto graph = ql::loadModelFromBytes(std::string(reinterpret_cast<const char *>(data), size),
                                        "fuzz.onnx", "");
    if (!graph) return 0;
    ql::Graph quantized = *graph;
    if (!ql::expandQOperatorsToQdq(quantized).isOk()) return 0;
    if (!ql::preparePrecision(quantized, ql::Precision::Int8).isOk()) return 0;
    ql::PlanOptions options;
    options.threads = 1;
    auto plan = ql::ExecutionPlan::create(std::move(quantized), options);
    (void)plan;
    return 0;
}
