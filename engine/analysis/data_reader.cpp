#include "analysis/data_reader.h"

#include "analysis/analysis_session.h"
#include "quant/calibration_data.h"

namespace ql::analysis {

Result<DataFiles> DataReader::list(const std::vector<std::string> &paths) const {
    auto files = quant::listCalibrationFiles(paths);
    if (!files) return files.status();
    DataFiles listed;
    listed.files = std::move(*files);
    return listed;
}

Result<std::vector<int64_t>> DataReader::readLabels(const std::string &path,
                                                    const DataFiles &) const {
    return readLabelsFile(path);
}

Result<quant::BatchSource> DataReader::open(const Graph &graph, std::vector<std::string> files,
                                            int64_t batchSize) const {
    return quant::fileBatchSource(graph, std::move(files), batchSize);
}

Result<std::string> DataReader::describe(const Graph &, const DataFiles &) const {
    return std::string();
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
                                                                  std::vector<std::string> files,
                                                                  int64_t batchSize) {
    auto source = reader.open(graph, std::move(files), batchSize);
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
