#pragma once
// `quantlens analyze`'s per-layer table and closing summary, fitted to the terminal: the name
// column takes what the other columns leave of the terminal's width (names elided in the middle,
// as a file manager shows long paths; --wide keeps them whole); on a narrow terminal the least
// read figures (kernel, sat%, p5) make room first and a line says so; rows under the threshold
// stand out in colour when stdout is a terminal (never with NO_COLOR or when piped), and every
// row keeps the columns aligned whatever the names.

#include <QString>

#include <optional>
#include <vector>

#include "analysis/suite/diagnosis.h"
#include "analysis/suite/numeric_suite.h"

struct LayerTableStyle {
    int width = 0;        // columns of the terminal; 0: no limit (names whole)
    bool colour = false;  // ANSI colour for rows under the threshold
    double thresholdDb = 30.0;
};

// The style for stdout: a terminal's width (TIOCGWINSZ, else $COLUMNS) unless `wide`; colour on
// a terminal unless NO_COLOR is set. Piped output is neither limited nor coloured.
LayerTableStyle terminalTableStyle(bool wide, double thresholdDb);

// `text` in at most `width` characters: its start and (longer) end around "…" (whole when it
// fits).
QString elideMiddle(const QString &text, int width);
// A torch.onnx.export name without the scopes its next scope repeats:
// "/features/features.1/block/block.0/block.0.0/Conv" -> "/features.1/block.0.0/Conv".
QString compactScopes(const QString &name);

// "-", "inf" or the figure with two decimals.
QString tableDb(const std::optional<double> &value);

void printLayerTable(const ql::analysis::NumericSuiteReport &report, const LayerTableStyle &style);

// The closing paragraph: output SQNR and agreement, the layers with the lowest isolated (else
// cumulative) SQNR, the first finding, and the files written.
void printAnalysisSummary(const ql::analysis::NumericSuiteReport &report,
                          const std::vector<ql::analysis::Finding> &findings,
                          const QStringList &written);
