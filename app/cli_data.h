#pragma once
// The data options every subcommand that reads samples shares: --preprocess and the reader it
// makes (images or .npy / .pb tensors, decided by the paths), the listing of --data / --calib
// paths with their labels, and the stderr line saying what reading applies.

#include <QCommandLineParser>
#include <QJsonObject>
#include <QString>

#include <memory>
#include <string>
#include <vector>

#include "analysis/data/data_reader.h"
#include "core/status.h"
#include "image_data_reader.h"
#include "ir/graph.h"

namespace cli {

// --preprocess, with the spec's keys and presets in its help, and --skip-bad-inputs for the
// commands whose data goes through listData.
void addPreprocessOption(QCommandLineParser &parser, bool skipBadInputs = true);
// The help text of a data option: tensors, or images (folders searched recursively).
QString dataOptionHelp(const QString &what);

// The reader for the command's data: --preprocess parsed (BadInput naming the key it cannot
// read), decoding on `threads` threads (0: one per core).
ql::Result<std::shared_ptr<const ql::ui::ImageDataReader>> dataReader(
    const QCommandLineParser &parser, int threads);

// What listData gives: the prepared data (labels in listed.labels).
using ListedData = ql::analysis::PreparedData;

// Lists the paths of `option` (repeatable, comma-separated) with `reader`, reads --labels when
// `labelsOption` is given and set, and prints "quantlens: <what reading applies>" for images.
// With --skip-bad-inputs, images that cannot be read or preprocessed are left out (with their
// labels), counted and named on stderr.
// specNeedsImages: BadInput for --preprocess with no images in the paths (false when another
// data option of the command may be the images).
ql::Result<ListedData> listData(const QCommandLineParser &parser, const QString &option,
                                const ql::ui::ImageDataReader &reader, const ql::Graph &graph,
                                const QString &labelsOption = QString(),
                                bool specNeedsImages = true);

// "quantlens: --data: skipped: <reason>" per file left out, then how many of how many.
void printSkipped(const std::string &option, const std::vector<ql::analysis::SkippedFile> &skipped,
                  size_t listed);

// "images", "preprocess", "classes", "labels_from", "skipped_inputs" for a JSON report of image
// data.
QJsonObject dataJsonFields(const ListedData &data, const ql::ui::ImageDataReader &reader,
                           const ql::Graph &graph);

}  // namespace cli
