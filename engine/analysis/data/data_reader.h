#pragma once
// How the data paths users name become model inputs, wherever data is accepted (analysis,
// calibration, the calibration lab, the search). This base reads .npy / .pb tensor files and
// .npz archives (quant/calibration_data.h rules). The app's image reader (library quantlens_data,
// widgets/data/image_data_reader.h) derives from it to add JPEG / PNG / BMP / WebP files with a
// preprocessing spec: decoding needs Qt, which the engine does not use.
//
// A model with several inputs reads .npz files (one array per input name), or one set of paths
// per input, named: NAME=PATH (a path that exists as given is never split at its '=').

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "core/status.h"
#include "ir/graph.h"
#include "quant/calibration.h"

namespace ql::analysis {

// The files a set of paths names, in reading order.
struct DataFiles {
    std::vector<std::string> files;    // empty with inputFiles
    bool images = false;               // one sample per file (image data)
    std::vector<int64_t> labels;       // per file, from class folders; empty when none
    std::vector<std::string> classes;  // the class folders' names, sorted
    std::string labelsFrom;            // "folders", or empty
    // NAME=PATH paths: each named input's files, in the order named.
    std::vector<std::pair<std::string, DataFiles>> inputFiles;

    size_t fileCount() const;  // the files, or every named input's
};

// A file left out because it cannot be read (reason starts with the file).
struct SkippedFile {
    std::string file, reason;
};

class DataReader {
public:
    virtual ~DataReader() = default;
    // Expands files and folders, grouped by input for NAME=PATH paths; BadInput naming the path
    // for a missing one, a file of another kind, nothing to read, or named and unnamed mixed.
    Result<DataFiles> list(const std::vector<std::string> &paths) const;
    // Batches of the model's inputs: per named input, zipped (each must give as many samples
    // per batch); else the files for the single input, or .npz files for all.
    Result<quant::BatchSource> open(const Graph &graph, const DataFiles &listed,
                                    int64_t batchSize) const;
    // The same for unnamed files (fileBatchSource's batching: a fixed batch dim wins,
    // batchSize <= 0 gives each file as one batch).
    Result<quant::BatchSource> open(const Graph &graph, std::vector<std::string> files,
                                    int64_t batchSize) const;

    // Class ids for the listed files from a labels file (this base: a .npy of integers).
    virtual Result<std::vector<int64_t>> readLabels(const std::string &path,
                                                    const DataFiles &listed) const;
    // Leaves out the listed files that cannot be read, with their labels, when the reader is
    // asked to (--skip-bad-inputs); returns them. This base reads tensors, which are checked as
    // they are read: none.
    virtual Result<std::vector<SkippedFile>> dropUnreadable(const Graph &graph,
                                                            DataFiles &listed) const;
    // What reading applies to the data, for stderr, projects and reports ("" for tensors), e.g.
    // "64 images; preprocess color=rgb,resize=256,..." for images.
    virtual Result<std::string> describe(const Graph &graph, const DataFiles &listed) const;

protected:
    // Unnamed paths expanded (this base: .npy / .npz / .pb files and folders of them).
    virtual Result<DataFiles> listFiles(const std::vector<std::string> &paths) const;
    // Batches of one input from its files (this base: quant::inputBatchSource).
    virtual Result<quant::BatchSource> openInput(const ValueInfo &input,
                                                 std::vector<std::string> files,
                                                 int64_t batchSize) const;
};

// Data ready to open: listed, labelled (from labelsPath when given, else class folders), the
// unreadable files left out, and what reading applies.
struct PreparedData {
    DataFiles listed;                  // listed.labels: per file, or empty
    std::string labelsFrom;            // labelsPath, "folders", or ""
    std::vector<SkippedFile> skipped;  // DataReader::dropUnreadable
    std::string reading;               // DataReader::describe
};
Result<PreparedData> prepareData(const DataReader &reader, const Graph &graph,
                                 const std::vector<std::string> &paths,
                                 const std::string &labelsPath = {});

// The tensor reader (the default when none is given).
std::shared_ptr<const DataReader> tensorDataReader();
// `reader`, or the tensor reader when it is null.
const DataReader &readerOrDefault(const std::shared_ptr<const DataReader> &reader);

// Every batch `open` gives, read into memory.
Result<std::vector<std::map<std::string, Tensor>>> readAllBatches(const DataReader &reader,
                                                                  const Graph &graph,
                                                                  const DataFiles &listed,
                                                                  int64_t batchSize);

}  // namespace ql::analysis
