#pragma once
// `--remedy`: fixes that make more of a model quantize well in int8 (issue 36).
//   cle: cross-layer equalization of Conv pairs, on the float model after BatchNorm folding and
//        before calibration. The remedied float model computes the same outputs as the original;
//        its weights and the activations between equalized layers differ per channel, so it is
//        the float side to compare the quantized model with.
//   smoothquant[=ALPHA]: for MatMul / Gemm / Conv layers whose input has outlier channels, part
//        of the outliers' range moves into the weights (scales from one float pass over the
//        calibration data, folded into the LayerNorm before them or an inserted Mul). Applied to
//        the float model before calibration, like cle, and in the order given with it.
//   adaround[=LAYER,...]: after quantizing, the weights of the int8 layers (or the layers named)
//        are rounded up or down as best reconstructs each layer's output on the calibration data
//        (AdaRound), instead of to nearest. The float side stays as it was.
//   bias-correction: after quantizing, the biases of the int8 layers are corrected for the mean
//        shift their quantization causes, measured on the calibration data (layers without a
//        bias get a zero one before calibration). The float side stays as it was.

#include <QCommandLineParser>
#include <QJsonArray>
#include <QString>

#include <functional>
#include <optional>

#include "core/status.h"
#include "ir/graph.h"
#include "quant/qdq_builder.h"
#include "quant/remedies/ada_round.h"
#include "quant/remedies/bias_correction.h"
#include "quant/remedies/float_remedies.h"

namespace cli {

// --remedy (repeatable) and, for commands that write models, --out-float.
void addRemedyOptions(QCommandLineParser &parser, bool writesModels = true);

struct RemedyRun {
    ql::Graph model;  // the float model with the remedies applied (BatchNorm folded first)
    ql::BatchNormFoldReport folding;
    ql::quant::FloatRemedyReport before;  // the remedies applied before calibration, in order
    std::optional<ql::quant::AdaRoundOptions> adaRound;  // asked for, with its layers
    std::optional<ql::quant::AdaRoundReport> adaRounding;
    bool correctBiases = false;
    std::vector<std::string> zeroBiasesAdded;
    std::optional<ql::quant::BiasCorrectionReport> biasCorrection;
};

// Applies the --remedy values to `floatGraph` (BatchNorm folded when `foldBatchNorm`); nullopt
// when none was asked for. BadInput naming an unknown remedy or a bad parameter; smoothquant
// reads `calibration` once.
// The calibration data for a graph (the remedied one, as it is at the time).
using CalibrationFor = std::function<ql::quant::BatchSourceOpener(const ql::Graph &graph)>;
ql::Result<std::optional<RemedyRun>> applyRemedies(const QCommandLineParser &parser,
                                                   const QString &command,
                                                   const ql::Graph &floatGraph, bool foldBatchNorm,
                                                   const CalibrationFor &calibration, int threads);

// The remedies that run on the quantized result (AdaRound, then bias correction): changes the
// weights and biases of a copy of run.model, rebuilds result.model from it and prints what they
// did. `calibration` reopens the
// calibration data. A no-op when none was asked for.
ql::Status remedyQuantized(RemedyRun &run, ql::quant::QuantizeResult &result,
                           const ql::quant::BatchSourceOpener &calibration, int threads);

// One line per remedy for stdout (those applied before calibration), and the "remedies" array of
// a JSON report (all).
void printRemedies(const RemedyRun &run);
QJsonArray remediesJson(const RemedyRun &run);

}  // namespace cli
