#include "analysis/data/session_inputs.h"

#include "analysis/data/pair_batch.h"
#include "onnx_io/model_loader.h"
#include "passes/precision.h"

namespace ql::analysis {

namespace {

bool keepGoing(const SessionProgress &progress) {
    return !progress || progress("loading", 0, 0);
}

Status cancelled() {
    return Status::error(ErrorKind::Cancelled, "cancelled");
}

}  // namespace

Result<SessionInputs> loadSessionInputs(const SessionSources &sources,
                                        const SessionProgress &progress) {
    if (!keepGoing(progress)) return cancelled();
    SessionInputs inputs;
    auto floatGraph = loadModel(sources.floatModel);
    if (!floatGraph) return floatGraph.status();
    if (isQuantizedModel(*floatGraph))
        return Status::badInput(sources.floatModel +
                                ": is a quantized model; open it as the quantized side");
    inputs.floatGraph = std::move(*floatGraph);
    if (!sources.quantModel.empty()) {
        auto loaded = loadModel(sources.quantModel);
        if (!loaded) return loaded.status();
        if (!isQuantizedModel(*loaded))
            return Status::badInput(sources.quantModel +
                                    ": has no quantized nodes; expected a QDQ or QOperator model");
        if (loaded->inputs.size() != inputs.floatGraph.inputs.size())
            return Status::badInput(
                sources.quantModel + ": has " + std::to_string(loaded->inputs.size()) +
                " inputs, the float model " + std::to_string(inputs.floatGraph.inputs.size()) +
                ": not a pair");
        inputs.quantGraph = std::move(*loaded);
    }
    if (!keepGoing(progress)) return cancelled();
    // A static-batch export runs at its own batch (quantized in the app: the float model's).
    auto pairBatch =
        pairBatchSize(inputs.floatGraph, inputs.quantGraph ? *inputs.quantGraph : inputs.floatGraph,
                      sources.batch, sources.batchGiven);
    if (!pairBatch) return pairBatch.status();
    auto data = sources.randomInputs
                    ? randomEvaluationData(inputs.floatGraph, sources.randomCount,
                                           sources.randomSeed, pairBatch->batch)
                    : evaluationDataFromFiles(inputs.floatGraph, sources.dataPaths,
                                              pairBatch->batch, sources.reader, sources.labels);
    if (!data) return data.status().withContext("evaluation data");
    inputs.data = std::move(*data);
    if (sources.randomInputs && !sources.labels.empty()) {
        auto labels = readLabelsFile(sources.labels);
        if (!labels) return labels.status();
        QL_RETURN_IF_ERROR(setLabels(inputs.data, std::move(*labels), sources.labels));
    }
    if (!inputs.quantGraph && !sources.calibrationPaths.empty()) {
        if (!keepGoing(progress)) return cancelled();
        const DataReader &reader = readerOrDefault(sources.reader);
        auto listed = reader.list(sources.calibrationPaths);
        if (!listed) return listed.status().withContext("calibration data");
        auto batches = readAllBatches(reader, inputs.floatGraph, *listed, sources.calibrationBatch);
        if (!batches) return batches.status().withContext("calibration data");
        if (batches->empty()) return Status::badInput("calibration data: no samples");
        inputs.calibrationBatches = std::move(*batches);
    }
    return inputs;
}

}  // namespace ql::analysis
