#pragma once
// Quantizer options shared by `quantlens quantize` and `quantlens analyze --calib`: the same
// flags, parsed the same way, and the calibrate-then-quantize run on files.

#include <QCommandLineParser>
#include <QString>
#include <QStringList>

#include <cstdint>
#include <functional>

#include "core/status.h"
#include "ir/graph.h"
#include "quant/qdq_builder.h"
#include "quant/remedies/bias_correction.h"

namespace cli {

// --method, --percentile, --per-tensor, --symmetric-activations, --reduce-range, --no-fold-bn,
// --exclude, --skip-list (unless the command uses that name for its output), --calib-batch.
void addQuantizerOptions(QCommandLineParser &parser, bool skipListInput = true);

// Reads those options (bad values are BadInput statuses naming the option) for `modelPath`.
ql::Status readQuantizerOptions(const QCommandLineParser &parser, const QString &command, const QString &modelPath,
                                ql::quant::QuantizationOptions &options, bool skipListInput = true);

// --calib-batch: samples per calibration batch, 0 (the default) for each file as one batch.
ql::Result<int64_t> readCalibrationBatch(const QCommandLineParser &parser, const QString &command);

// Calibrates the float model on --calib (folders and files, comma-separated or repeated; images
// with --preprocess; calibBatch samples per batch, 0: one batch per file) and quantizes it;
// prints the calibration line and warnings. samples: calibrated count. specNeedsImages:
// --preprocess is only for --calib (else it may be for another data option). afterQuantize, when
// given, runs on the result with the calibration data opened again (remedies that need data).
using AfterQuantize = std::function<ql::Status(ql::quant::QuantizeResult &result,
                                               const ql::quant::BatchSourceOpener &calibration)>;
ql::Result<ql::quant::QuantizeResult> quantizeFromFiles(
    const ql::Graph &floatGraph, const QCommandLineParser &parser,
    const ql::quant::QuantizationOptions &options, int threads, int64_t calibBatch,
    int64_t &samples, bool specNeedsImages = true, const AfterQuantize &afterQuantize = {});

}  // namespace cli
