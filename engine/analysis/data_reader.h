#pragma once
// How the data paths users name become model inputs, wherever data is accepted (analysis,
// calibration, the calibration lab, the search). This base reads .npy / .pb tensor files
// (quant/calibration_data.h rules). The app's image reader (widgets/image_dataset.h) derives from
// it to add JPEG / PNG / BMP / WebP files with a preprocessing spec: decoding needs Qt, which the
// engine does not use.

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/status.h"
#include "ir/graph.h"
#include "quant/calibration.h"

namespace ql::analysis {

// The files a set of paths names, in reading order.
struct DataFiles {
    std::vector<std::string> files;
    bool images = false;               // one sample per file (image data)
    std::vector<int64_t> labels;       // per file, from class folders; empty when none
    std::vector<std::string> classes;  // the class folders' names, sorted
    std::string labelsFrom;            // "folders", or empty
};

class DataReader {
public:
    virtual ~DataReader() = default;
    // Expands files and folders; BadInput naming the path for a missing one, a file of another
    // kind, or nothing to read.
    virtual Result<DataFiles> list(const std::vector<std::string> &paths) const;
    // Class ids for the listed files from a labels file (this base: a .npy of integers).
    virtual Result<std::vector<int64_t>> readLabels(const std::string &path,
                                                    const DataFiles &listed) const;
    // Batches of the graph's single input from `files` (fileBatchSource's batching: a fixed
    // batch dim wins, batchSize <= 0 gives each file as one batch).
    virtual Result<quant::BatchSource> open(const Graph &graph, std::vector<std::string> files,
                                            int64_t batchSize) const;
    // What reading applies to the data, for stderr, projects and reports ("" for tensors), e.g.
    // "preprocess color=rgb,resize=256,..." for images.
    virtual Result<std::string> describe(const Graph &graph, const DataFiles &listed) const;
};

// The tensor reader (the default when none is given).
std::shared_ptr<const DataReader> tensorDataReader();
// `reader`, or the tensor reader when it is null.
const DataReader &readerOrDefault(const std::shared_ptr<const DataReader> &reader);

// Every batch `open` gives, read into memory.
Result<std::vector<std::map<std::string, Tensor>>> readAllBatches(const DataReader &reader,
                                                                  const Graph &graph,
                                                                  std::vector<std::string> files,
                                                                  int64_t batchSize);

}  // namespace ql::analysis
