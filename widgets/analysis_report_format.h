#pragma once
// The numeric-suite report in the `quantlens analyze` file formats, shared by the command line
// and the GUI's export:
//  * JSON: {"models": {...}, "samples": N, "output": {...}, "outputs": [...], "layers": [...],
//    "unmatched": [...]}; one object per layer in the float model's topological order; null where
//    a figure does not apply; an infinite SQNR (identical values) is the string "inf" ("-inf"
//    for all noise), as JSON has no infinity.
//  * CSV: a header and one row per layer with the scalar columns; empty cells for null, "inf".

#include <QJsonArray>
#include <QJsonObject>
#include <QString>

#include "analysis/suite/diagnosis.h"
#include "analysis/suite/numeric_suite.h"

namespace ql::ui {

// Where the two models came from, for the "models" section.
struct AnalysisModels {
    QString floatModel;
    QString quantModel;         // the file, or empty when quantized in the app
    bool quantizedInApp = false;
    QJsonObject quantizerOptions;  // when quantized in the app
};

// The analysis as JSON (resources/docs/schema/analysis.schema.json, `schema_version` below).
constexpr int kAnalysisSchemaVersion = 1;
QJsonObject analysisReportJson(const analysis::NumericSuiteReport &report, const AnalysisModels &models);
QString analysisReportCsv(const analysis::NumericSuiteReport &report);
// The samples to look at first (analysis::worstSamples): the `lowest` with the lowest output SQNR
// and every sample whose top-1 class differs between the models (at most `maxFlips`), lowest SQNR
// first. Each names its index, its file when `files` has one per sample, its label when `labels`
// has one, both predictions, whether they differ, and its SQNR.
QJsonArray worstSamplesJson(const analysis::OutputReport &output,
                            const std::vector<int64_t> &labels,
                            const std::vector<std::string> &files, int lowest = 10,
                            int maxFlips = 100);
// The diagnosis as JSON: per finding its kind (findingKindName), severity, layer index and name,
// the numbers it carries, the remedy it suggests, and the sentence the app shows.
QJsonArray findingsJson(const std::vector<analysis::Finding> &findings);

}  // namespace ql::ui
