#pragma once
// The data reader the app uses wherever data is accepted: image files and folders
// (image_dataset.h) with a preprocessing spec, and .npy / .npz / .pb tensors as the engine reads
// them. Which one applies is decided by the paths: any image in them makes them image data.

#include <optional>
#include <string>
#include <vector>

#include "analysis/data/data_reader.h"
#include "quant/image_preprocess.h"

namespace ql::ui {

class ImageDataReader : public analysis::DataReader {
public:
    // spec: the user's --preprocess; nullopt: the default for each input
    // (quant::defaultPreprocessSpec). threads: decoding threads (0: one per core). skipBad:
    // dropUnreadable leaves out images that cannot be read or preprocessed (--skip-bad-inputs).
    explicit ImageDataReader(std::optional<quant::PreprocessSpec> spec = std::nullopt,
                             int threads = 0, bool skipBad = false);

    Result<std::vector<int64_t>> readLabels(const std::string &path,
                                            const analysis::DataFiles &listed) const override;
    // With skipBad, images of a one-input model (one extra decoding pass).
    Result<std::vector<analysis::SkippedFile>> dropUnreadable(
        const Graph &graph, analysis::DataFiles &listed) const override;
    // For images: "64 images in 10 class folders; preprocess color=rgb,... (the default for the
    // model's input)"; for tensors "".
    Result<std::string> describe(const Graph &graph,
                                 const analysis::DataFiles &listed) const override;

    // The spec that applies to an input (the user's, or the default).
    Result<quant::PreprocessSpec> specFor(const ValueInfo &input) const;
    // The user's spec (nullopt: the default applies).
    const std::optional<quant::PreprocessSpec> &userSpec() const { return m_spec; }
    int threads() const { return m_threads; }
    bool skipsBadInputs() const { return m_skipBad; }

protected:
    Result<analysis::DataFiles> listFiles(const std::vector<std::string> &paths) const override;
    Result<quant::BatchSource> openInput(const ValueInfo &input, std::vector<std::string> files,
                                         int64_t batchSize) const override;

private:
    std::optional<quant::PreprocessSpec> m_spec;
    int m_threads;
    bool m_skipBad;
};

}  // namespace ql::ui
