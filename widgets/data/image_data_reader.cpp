#include "image_data_reader.h"

#include <QThread>

#include "image_dataset.h"

namespace ql::ui {

ImageDataReader::ImageDataReader(std::optional<quant::PreprocessSpec> spec, int threads,
                                 bool skipBad)
    : m_spec(std::move(spec)),
      m_threads(threads > 0 ? threads : QThread::idealThreadCount()),
      m_skipBad(skipBad) {}

Result<std::vector<analysis::SkippedFile>> ImageDataReader::dropUnreadable(
    const Graph &graph, analysis::DataFiles &listed) const {
    if (!m_skipBad || !listed.images || !listed.inputFiles.empty() || graph.inputs.size() != 1)
        return std::vector<analysis::SkippedFile>();
    auto spec = specFor(graph.inputs.front());
    if (!spec) return spec.status();
    auto skipped = dropBadImages(listed, *spec, graph.inputs.front(), m_threads);
    if (listed.files.empty()) return Status::badInput("no image could be read");
    return skipped;
}

Result<analysis::DataFiles> ImageDataReader::listFiles(
    const std::vector<std::string> &paths) const {
    return pathsHoldImages(paths) ? listImages(paths) : DataReader::listFiles(paths);
}

Result<std::vector<int64_t>> ImageDataReader::readLabels(const std::string &path,
                                                         const analysis::DataFiles &listed) const {
    return listed.images && listed.inputFiles.empty() ? readImageLabels(path, listed)
                                                      : DataReader::readLabels(path, listed);
}

Result<quant::BatchSource> ImageDataReader::openInput(const ValueInfo &input,
                                                      std::vector<std::string> files,
                                                      int64_t batchSize) const {
    if (files.empty() || !isImageFile(files.front()))
        return DataReader::openInput(input, std::move(files), batchSize);
    auto spec = specFor(input);
    if (!spec) return spec.status();
    return imageBatchSource(input, std::move(files), *spec, batchSize, m_threads);
}

Result<quant::PreprocessSpec> ImageDataReader::specFor(const ValueInfo &input) const {
    if (m_spec) return *m_spec;
    return quant::defaultPreprocessSpec(input);
}

Result<std::string> ImageDataReader::describe(const Graph &graph,
                                              const analysis::DataFiles &listed) const {
    if (!listed.images) return std::string();
    std::string text;
    auto describeOne = [&](const ValueInfo &input, const analysis::DataFiles &files) -> Status {
        if (!files.images) return Status::ok();
        auto spec = specFor(input);
        if (!spec) return spec.status();
        if (!text.empty()) text += "; ";
        if (!listed.inputFiles.empty()) text += "input '" + input.name + "': ";
        text += std::to_string(files.files.size()) + " images";
        if (!files.classes.empty())
            text += " in " + std::to_string(files.classes.size()) + " class folders";
        text += "; preprocess " + quant::formatPreprocessSpec(*spec);
        if (!m_spec) text += " (the default for the model's input)";
        return Status::ok();
    };
    if (listed.inputFiles.empty()) {
        if (graph.inputs.size() != 1)
            return Status::unsupported(graph.sourcePath +
                                       ": images feed a model with one input, or each input named "
                                       "as NAME=FOLDER; this one has " +
                                       std::to_string(graph.inputs.size()));
        QL_RETURN_IF_ERROR(describeOne(graph.inputs.front(), listed));
        return text;
    }
    for (const auto &[name, files] : listed.inputFiles)
        for (const ValueInfo &input : graph.inputs)
            if (input.name == name) QL_RETURN_IF_ERROR(describeOne(input, files));
    return text;
}

}  // namespace ql::ui
