#include "analysis/data/data_reader.h"

#include <algorithm>
#include <filesystem>

#include "analysis/session/analysis_session.h"
#include "quant/calibration_data.h"

namespace ql::analysis {
namespace {

// NAME=PATH: the name and the path, when the text is not itself a path and PATH exists.
std::optional<std::pair<std::string, std::string>> namedPath(const std::string &text) {
    std::error_code error;
    if (std::filesystem::exists(text, error)) return std::nullopt;
    const size_t eq = text.find('=');
    if (eq == 0 || eq == std::string::npos) return std::nullopt;
    return std::make_pair(text.substr(0, eq), text.substr(eq + 1));
}

int64_t rowsOf(const std::map<std::string, Tensor> &batch) {
    const Tensor &t = batch.begin()->second;
    return t.rank() == 0 ? 1 : t.dim(0);
}

// One batch from each input's source: they end together and agree on the rows.
quant::BatchSource zipSources(std::vector<std::pair<std::string, quant::BatchSource>> sources) {
    auto shared = std::make_shared<decltype(sources)>(std::move(sources));
    return [shared](std::map<std::string, Tensor> &batch) -> Result<bool> {
        batch.clear();
        int ended = 0;
        for (auto &[name, source] : *shared) {
            std::map<std::string, Tensor> part;
            auto more = source(part);
            if (!more) return more.status();
            if (!*more) {
                ++ended;
                continue;
            }
            if (!batch.empty() && rowsOf(part) != rowsOf(batch))
                return Status::badInput("input '" + name + "' has " + std::to_string(rowsOf(part)) +
                                        " samples in a batch where the others have " +
                                        std::to_string(rowsOf(batch)) +
                                        ": every input needs as many samples");
            batch.insert(part.begin(), part.end());
        }
        if (ended == 0) return true;
        if (ended == int(shared->size())) return false;
        return Status::badInput("the named inputs' files hold different numbers of samples");
    };
}

}  // namespace

size_t DataFiles::fileCount() const {
    size_t count = files.size();
    for (const auto &[name, named] : inputFiles) count += named.fileCount();
    return count;
}

Result<DataFiles> DataReader::list(const std::vector<std::string> &paths) const {
    std::vector<std::pair<std::string, std::vector<std::string>>> named;
    std::vector<std::string> unnamed;
    for (const std::string &path : paths) {
        if (auto split = namedPath(path)) {
            auto it = std::find_if(named.begin(), named.end(),
                                   [&](const auto &n) { return n.first == split->first; });
            if (it == named.end()) it = named.insert(named.end(), {split->first, {}});
            it->second.push_back(split->second);
        } else {
            unnamed.push_back(path);
        }
    }
    if (named.empty()) return listFiles(paths);
    if (!unnamed.empty())
        return Status::badInput(unnamed.front() +
                                ": give every input's data as NAME=PATH, or none of them");
    DataFiles listed;
    for (const auto &[name, inputPaths] : named) {
        auto files = listFiles(inputPaths);
        if (!files) return files.status().withContext("input '" + name + "'");
        listed.images = listed.images || files->images;
        listed.inputFiles.emplace_back(name, std::move(*files));
    }
    return listed;
}

Result<quant::BatchSource> DataReader::open(const Graph &graph, const DataFiles &listed,
                                            int64_t batchSize) const {
    if (listed.inputFiles.empty()) return open(graph, listed.files, batchSize);
    std::vector<std::pair<std::string, quant::BatchSource>> sources;
    for (const ValueInfo &input : graph.inputs) {
        const auto it = std::find_if(listed.inputFiles.begin(), listed.inputFiles.end(),
                                     [&](const auto &n) { return n.first == input.name; });
        if (it == listed.inputFiles.end())
            return Status::badInput(graph.sourcePath + ": no data for input '" + input.name +
                                    "' (give it as " + input.name + "=PATH)");
        auto source = openInput(input, it->second.files, batchSize);
        if (!source) return source.status().withContext("input '" + input.name + "'");
        sources.emplace_back(input.name, std::move(*source));
    }
    for (const auto &listedInput : listed.inputFiles) {
        const std::string &name = listedInput.first;
        if (std::none_of(graph.inputs.begin(), graph.inputs.end(),
                         [&](const ValueInfo &input) { return input.name == name; }))
            return Status::badInput(graph.sourcePath + ": the model has no input '" + name + "'");
    }
    return zipSources(std::move(sources));
}

Result<quant::BatchSource> DataReader::open(const Graph &graph, std::vector<std::string> files,
                                            int64_t batchSize) const {
    // .npz files hold every input; the rest feed a model's single input.
    if (graph.inputs.size() != 1 || files.empty() || quant::isNpz(files.front()))
        return quant::fileBatchSource(graph, std::move(files), batchSize);
    return openInput(graph.inputs.front(), std::move(files), batchSize);
}

Result<DataFiles> DataReader::listFiles(const std::vector<std::string> &paths) const {
    auto files = quant::listCalibrationFiles(paths);
    if (!files) return files.status();
    DataFiles listed;
    listed.files = std::move(*files);
    return listed;
}

Result<quant::BatchSource> DataReader::openInput(const ValueInfo &input,
                                                 std::vector<std::string> files,
                                                 int64_t batchSize) const {
    return quant::inputBatchSource(input, std::move(files), batchSize);
}

Result<std::vector<int64_t>> DataReader::readLabels(const std::string &path,
                                                    const DataFiles &) const {
    return readLabelsFile(path);
}

Result<std::vector<SkippedFile>> DataReader::dropUnreadable(const Graph &, DataFiles &) const {
    return std::vector<SkippedFile>();
}

Result<std::string> DataReader::describe(const Graph &, const DataFiles &) const {
    return std::string();
}

Result<PreparedData> prepareData(const DataReader &reader, const Graph &graph,
                                 const std::vector<std::string> &paths,
                                 const std::string &labelsPath) {
    PreparedData data;
    auto listed = reader.list(paths);
    if (!listed) return listed.status();
    data.listed = std::move(*listed);
    data.labelsFrom = data.listed.labelsFrom;
    // Labels from a file first: unreadable files are left out with theirs.
    if (!labelsPath.empty()) {
        auto labels = reader.readLabels(labelsPath, data.listed);
        if (!labels) return labels.status();
        data.listed.labels = std::move(*labels);
        data.labelsFrom = labelsPath;
    }
    auto skipped = reader.dropUnreadable(graph, data.listed);
    if (!skipped) return skipped.status();
    data.skipped = std::move(*skipped);
    auto reading = reader.describe(graph, data.listed);
    if (!reading) return reading.status();
    data.reading = std::move(*reading);
    return data;
}

std::shared_ptr<const DataReader> tensorDataReader() {
    static const auto reader = std::make_shared<const DataReader>();
    return reader;
}

const DataReader &readerOrDefault(const std::shared_ptr<const DataReader> &reader) {
    return reader ? *reader : *tensorDataReader();
}

Result<std::vector<std::map<std::string, Tensor>>> readAllBatches(const DataReader &reader,
                                                                  const Graph &graph,
                                                                  const DataFiles &listed,
                                                                  int64_t batchSize) {
    auto source = reader.open(graph, listed, batchSize);
    if (!source) return source.status();
    std::vector<std::map<std::string, Tensor>> batches;
    for (;;) {
        std::map<std::string, Tensor> batch;
        auto more = (*source)(batch);
        if (!more) return more.status();
        if (!*more) break;
        batches.push_back(std::move(batch));
    }
    return batches;
}

}  // namespace ql::analysis
