#include "image_data_reader.h"

#include <QThread>

#include "image_dataset.h"

namespace ql::ui {

ImageDataReader::ImageDataReader(std::optional<quant::PreprocessSpec> spec, int threads)
    : m_spec(std::move(spec)), m_threads(threads > 0 ? threads : QThread::idealThreadCount()) {}

Result<analysis::DataFiles> ImageDataReader::list(const std::vector<std::string> &paths) const {
    return pathsHoldImages(paths) ? listImages(paths) : DataReader::list(paths);
}

Result<std::vector<int64_t>> ImageDataReader::readLabels(const std::string &path,
                                                         const analysis::DataFiles &listed) const {
    return listed.images ? readImageLabels(path, listed) : DataReader::readLabels(path, listed);
}

Result<quant::BatchSource> ImageDataReader::open(const Graph &graph, std::vector<std::string> files,
                                                 int64_t batchSize) const {
    if (files.empty() || !isImageFile(files.front()))
        return DataReader::open(graph, std::move(files), batchSize);
    auto spec = specFor(graph);
    if (!spec) return spec.status();
    return imageBatchSource(graph, std::move(files), *spec, batchSize, m_threads);
}

Result<quant::PreprocessSpec> ImageDataReader::specFor(const Graph &graph) const {
    if (m_spec) return *m_spec;
    if (graph.inputs.size() != 1)
        return Status::unsupported(graph.sourcePath +
                                   ": images feed models with one input, this one has " +
                                   std::to_string(graph.inputs.size()));
    return quant::defaultPreprocessSpec(graph.inputs.front());
}

Result<std::string> ImageDataReader::describe(const Graph &graph,
                                              const analysis::DataFiles &listed) const {
    if (!listed.images) return std::string();
    auto spec = specFor(graph);
    if (!spec) return spec.status();
    std::string text = std::to_string(listed.files.size()) + " images";
    if (!listed.classes.empty())
        text += " in " + std::to_string(listed.classes.size()) + " class folders";
    text += "; preprocess " + quant::formatPreprocessSpec(*spec);
    if (!m_spec) text += " (the default for the model's input)";
    return text;
}

}  // namespace ql::ui
