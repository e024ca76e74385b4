// Evaluation samples for an AnalysisSession: from files, or seeded random inputs.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>

#include "analysis/session/analysis_session.h"
#include "onnx_io/tensor_file.h"

namespace ql::analysis {
namespace {

int64_t batchRows(const std::map<std::string, Tensor> &batch) {
    if (batch.empty()) return 0;
    const Tensor &t = batch.begin()->second;
    return t.rank() == 0 ? 1 : t.dim(0);
}

// Per-sample rows [first, first + rows) of `from`, when it has them.
template <typename T>
void appendRows(std::vector<T> &to, const std::vector<T> &from, size_t first, int64_t rows) {
    if (from.empty()) return;
    const size_t last = std::min(from.size(), first + static_cast<size_t>(rows));
    to.insert(to.end(), from.begin() + static_cast<std::ptrdiff_t>(first),
              from.begin() + static_cast<std::ptrdiff_t>(last));
}

}  // namespace

Result<EvaluationData> evaluationDataFromFiles(const Graph &floatGraph,
                                               const std::vector<std::string> &paths,
                                               int64_t batchSize,
                                               const std::shared_ptr<const DataReader> &reader,
                                               const std::string &labelsPath) {
    const DataReader &read = readerOrDefault(reader);
    auto prepared = prepareData(read, floatGraph, paths, labelsPath);
    if (!prepared) return prepared.status();
    DataFiles &listed = prepared->listed;
    auto source = read.open(floatGraph, listed, batchSize);
    if (!source) return source.status();
    EvaluationData data;
    for (;;) {
        std::map<std::string, Tensor> batch;
        auto more = (*source)(batch);
        if (!more) return more.status();
        if (!*more) break;
        data.samples += batchRows(batch);
        data.batches.push_back(std::move(batch));
    }
    if (data.batches.empty()) return Status::badInput("evaluation data: no samples");
    if (!labelsPath.empty())
        QL_RETURN_IF_ERROR(setLabels(data, std::move(listed.labels), labelsPath));
    else
        data.labels = std::move(listed.labels);
    if (listed.images) data.files = std::move(listed.files);
    data.classes = std::move(listed.classes);
    data.skipped = std::move(prepared->skipped);
    data.reading = std::move(prepared->reading);
    return data;
}

Result<std::map<std::string, Tensor>> sampleInputs(const EvaluationData &data, int64_t index) {
    int64_t first = 0;
    for (const auto &batch : data.batches) {
        const int64_t rows = batchRows(batch);
        if (index >= first + rows) {
            first += rows;
            continue;
        }
        if (index < first) break;
        std::map<std::string, Tensor> sample;
        for (const auto &[name, tensor] : batch) {
            const Tensor plain = tensor.toPlain();
            Shape shape = plain.shape();
            if (shape.empty()) {
                sample[name] = plain;
                continue;
            }
            const size_t rowBytes = plain.byteSize() / size_t(std::max<int64_t>(shape[0], 1));
            shape[0] = 1;
            Tensor row(plain.dtype(), shape);
            std::memcpy(
                row.rawData(),
                static_cast<const char *>(plain.rawData()) + size_t(index - first) * rowBytes,
                rowBytes);
            sample[name] = std::move(row);
        }
        return sample;
    }
    return Status::badInput("evaluation sample " + std::to_string(index) + " of " +
                            std::to_string(data.samples));
}

Status setLabels(EvaluationData &data, std::vector<int64_t> labels, const std::string &from) {
    if (static_cast<int64_t>(labels.size()) < data.samples)
        return Status::badInput(from + ": " + std::to_string(labels.size()) + " labels for " +
                                std::to_string(data.samples) + " samples");
    data.labels = std::move(labels);
    return Status::ok();
}

Result<std::pair<EvaluationData, EvaluationData>> splitHoldout(EvaluationData data,
                                                               double fraction) {
    const size_t batches = data.batches.size();
    if (batches < 2)
        return Status::badInput("holdout: the evaluation data is " + std::to_string(batches) +
                                " batch; a holdout needs at least 2 (use a smaller --batch)");
    if (!(fraction > 0.0 && fraction < 1.0))
        return Status::badInput("holdout: the fraction must be in (0, 1)");
    const size_t held = std::clamp<size_t>(
        static_cast<size_t>(std::lround(fraction * static_cast<double>(batches))), 1, batches - 1);
    EvaluationData search, holdout;
    search.classes = holdout.classes = data.classes;
    search.reading = holdout.reading = data.reading;
    for (size_t b = 0; b < batches; ++b) {
        EvaluationData &part = b < batches - held ? search : holdout;
        const int64_t rows = batchRows(data.batches[b]);
        const size_t first = static_cast<size_t>(search.samples + holdout.samples);
        appendRows(part.labels, data.labels, first, rows);
        appendRows(part.files, data.files, first, rows);
        part.samples += rows;
        part.batches.push_back(std::move(data.batches[b]));
    }
    return std::make_pair(std::move(search), std::move(holdout));
}

Result<std::vector<int64_t>> readLabelsFile(const std::string &path) {
    auto tensor = readNpy(path);
    if (!tensor) return tensor.status();
    const Tensor &t = *tensor;
    const DataType type = t.dtype();
    const bool integral = type == DataType::Int64 || type == DataType::Int32 ||
                          type == DataType::UInt8 || type == DataType::Int8 ||
                          type == DataType::Int16 || type == DataType::UInt16;
    if (!integral) return Status::badInput(path + ": labels must be integer class ids");
    if (t.rank() != 1 && !(t.rank() == 2 && t.dim(1) == 1))
        return Status::badInput(path + ": labels must have shape [N] or [N, 1]");
    std::vector<int64_t> labels(static_cast<size_t>(t.numel()));
    for (int64_t i = 0; i < t.numel(); ++i)
        labels[static_cast<size_t>(i)] = static_cast<int64_t>(t.valueAsDouble(i));
    return labels;
}

Result<EvaluationData> randomEvaluationData(const Graph &floatGraph, int64_t samples, uint64_t seed,
                                            int64_t batchSize) {
    if (samples <= 0)
        return Status::badInput("random evaluation data: the sample count must be positive");
    if (batchSize <= 0) batchSize = samples;
    if (floatGraph.inputs.empty())
        return Status::badInput("random evaluation data: the model has no inputs");
    // A fixed batch dim of the model wins over batchSize.
    int64_t perBatch = batchSize;
    for (const auto &input : floatGraph.inputs) {
        if (!input.hasShape)
            return Status::badInput("random evaluation data: input '" + input.name +
                                    "' has no known shape");
        if (input.dtype != DataType::Float)
            return Status::badInput("random evaluation data: input '" + input.name +
                                    "' is not float");
        if (!input.shape.empty() && input.shape[0] > 0) perBatch = input.shape[0];
    }
    std::mt19937_64 generator(seed);
    std::normal_distribution<float> normal(0.0f, 1.0f);
    EvaluationData data;
    for (int64_t done = 0; done < samples;) {
        const int64_t rows = std::min(perBatch, samples - done);
        std::map<std::string, Tensor> batch;
        for (const auto &input : floatGraph.inputs) {
            Shape shape(input.shape.begin(), input.shape.end());
            for (size_t d = 0; d < shape.size(); ++d)
                if (shape[d] < 0) shape[d] = d == 0 ? rows : 1;
            Tensor t(DataType::Float, shape);
            float *p = t.data<float>();
            for (int64_t i = 0; i < t.numel(); ++i) p[i] = normal(generator);
            batch[input.name] = std::move(t);
        }
        const int64_t got = batchRows(batch);
        data.samples += got;
        done += std::max<int64_t>(got, 1);
        data.batches.push_back(std::move(batch));
    }
    return data;
}

}  // namespace ql::analysis
