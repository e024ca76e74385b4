#pragma once
// Everything an interactive session is made from, read from files as the GUI and the CLI name
// them: the float model, the quantized side (a model file, or calibration inputs to quantize
// in the app), the evaluation inputs (files or seeded random) and optional labels. Each problem is
// one BadInput line naming the file.

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "analysis/session/analysis_session.h"
#include "analysis/data/data_reader.h"
#include "core/status.h"
#include "ir/graph.h"
#include "ir/tensor.h"

namespace ql::analysis {

struct SessionSources {
    std::string floatModel;
    std::string quantModel;                     // empty: quantize the float model in the app
    std::vector<std::string> calibrationPaths;  // in-app quantization; empty: the evaluation data
    // Samples per calibration batch from calibrationPaths; 0: each file one batch (as
    // `quantlens quantize --calib`).
    int64_t calibrationBatch = 0;
    std::vector<std::string> dataPaths;  // files or folders `reader` reads
    std::string labels;                  // optional labels file (`reader` reads it)
    // How data and calibration paths are read; null: .npy / .pb tensors.
    std::shared_ptr<const DataReader> reader;
    bool randomInputs = false;
    int64_t randomCount = 32;
    uint64_t randomSeed = 1;
    int64_t batch = 16;
    // Whether `batch` was asked for explicitly (a model with a fixed batch dimension then
    // disagrees loudly rather than running at its own batch).
    bool batchGiven = false;
};

struct SessionInputs {
    Graph floatGraph;
    std::optional<Graph> quantGraph;  // nullopt: quantize in the app
    EvaluationData data;
    std::vector<std::map<std::string, Tensor>> calibrationBatches;  // empty: the evaluation data
};

// Loads and checks the sources (a quantized float model, a float "quantized" model, a pair with
// different inputs, too few labels: BadInput). `progress` may cancel between the steps.
Result<SessionInputs> loadSessionInputs(const SessionSources &sources,
                                        const SessionProgress &progress = {});

}  // namespace ql::analysis
