#pragma once
// Runs one ONNX backend test case (model.onnx + test_data_set_N/{input,output}_K.pb) through the
// engine's loader and execution plan and compares every output with the reference.

#include <string>
#include <vector>

namespace ql::conformance {

enum class Outcome { Pass, Unsupported, Fail };

struct CaseResult {
    Outcome outcome = Outcome::Fail;
    std::string message;             // first problem found; empty on pass
    std::vector<std::string> notes;  // adjustments made for quirks of the test data
};

constexpr double kRelativeTolerance = 1e-3;
constexpr double kAbsoluteTolerance = 1e-4;

struct CaseOptions {
    bool fuse = false;          // PlanOptions::fuseOperators
    bool foldConstants = true;  // LoadOptions::foldConstants; off runs Constant/Shape kernels too
};

// `caseDir` holds model.onnx and test_data_set_N folders.
CaseResult runCase(const std::string &caseDir, const CaseOptions &options = {});

// The same case as a user runs it: `quantlens infer model.onnx --inputs-dir test_data_set_N`
// (the command line's own loading and defaults, fusion included), outputs read back from .npy.
CaseResult runCaseThroughCli(const std::string &caseDir, const std::string &quantlens);

}  // namespace ql::conformance
