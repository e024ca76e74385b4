#pragma once
// `--remedy`: fixes applied to the float model before calibration so that more of it quantizes
// well in int8 (issue 36). Available: cle (cross-layer equalization of Conv pairs, after
// BatchNorm folding). The remedied float model computes the same outputs as the original; its
// weights and the activations between equalized layers differ per channel, so it is the float
// side to compare the quantized model with.

#include <QCommandLineParser>
#include <QJsonArray>
#include <QString>

#include <optional>

#include "core/status.h"
#include "ir/graph.h"
#include "quant/qdq_builder.h"
#include "quant/remedies/cross_layer_equalization.h"

namespace cli {

// --remedy (repeatable) and --out-float.
void addRemedyOptions(QCommandLineParser &parser);

struct RemedyRun {
    ql::Graph model;  // the float model with the remedies applied (BatchNorm folded first)
    ql::BatchNormFoldReport folding;
    std::optional<ql::quant::CrossLayerEqualizationReport> equalization;
};

// Applies the --remedy values to `floatGraph` (BatchNorm folded when `foldBatchNorm`); nullopt
// when none was asked for. BadInput naming an unknown remedy.
ql::Result<std::optional<RemedyRun>> applyRemedies(const QCommandLineParser &parser,
                                                   const QString &command,
                                                   const ql::Graph &floatGraph, bool foldBatchNorm);

// One line per remedy for stdout, and the "remedies" array of a JSON report.
void printRemedies(const RemedyRun &run);
QJsonArray remediesJson(const RemedyRun &run);

}  // namespace cli
