#pragma once
// Quantizer options shared by `quantlens quantize` and `quantlens analyze --calib`: the same
// flags, parsed the same way, and the calibrate-then-quantize run on files.

#include <QCommandLineParser>
#include <QString>
#include <QStringList>

#include <cstdint>
#include <functional>
#include <memory>

#include "cli_data.h"
#include "core/status.h"
#include "ir/graph.h"
#include "quant/calibration.h"
#include "quant/qdq_builder.h"

namespace cli {

// --method, --percentile, --per-tensor, --symmetric-activations, --reduce-range, --no-fold-bn,
// --exclude, --skip-list (unless the command uses that name for its output), --calib-batch.
void addQuantizerOptions(QCommandLineParser &parser, bool skipListInput = true);

// Reads those options (bad values are BadInput statuses naming the option) for `modelPath`.
ql::Status readQuantizerOptions(const QCommandLineParser &parser, const QString &command, const QString &modelPath,
                                ql::quant::QuantizationOptions &options, bool skipListInput = true);

// --calib-batch: samples per calibration batch, 0 (the default) for each file as one batch.
ql::Result<int64_t> readCalibrationBatch(const QCommandLineParser &parser, const QString &command);

// The --calib data (folders and files, comma-separated or repeated; images with --preprocess),
// listed once and opened as often as the remedies and the calibration need it.
struct CalibrationFiles {
    std::shared_ptr<const ql::ui::ImageDataReader> reader;
    ListedData data;
    int64_t batch = 0;  // samples per batch; 0: one batch per file
    // Opens the data for `graph` from its start; `graph` and this object must outlive it.
    ql::quant::BatchSourceOpener opener(const ql::Graph &graph) const;
};

// Lists --calib for `floatGraph`. specNeedsImages: --preprocess is only for --calib (else it may
// be for another data option). calibBatch: samples per batch, 0 for one batch per file.
ql::Result<CalibrationFiles> listCalibrationFiles(const QCommandLineParser &parser,
                                                  const ql::Graph &floatGraph, int threads,
                                                  int64_t calibBatch, bool specNeedsImages = true);

// Calibrates the float model on the listed data and quantizes it; prints the calibration line
// and warnings. samples: calibrated count. afterQuantize, when given, runs on the result with the
// calibration data opened again (remedies that need data).
using AfterQuantize = std::function<ql::Status(ql::quant::QuantizeResult &result,
                                               const ql::quant::BatchSourceOpener &calibration)>;
ql::Result<ql::quant::QuantizeResult> quantizeFromFiles(
    const ql::Graph &floatGraph, const CalibrationFiles &calibration,
    const ql::quant::QuantizationOptions &options, int threads, int64_t &samples,
    const AfterQuantize &afterQuantize = {});

}  // namespace cli
