#pragma once
// The numeric-suite report as the analysis views see it: one shared immutable report, and the
// per-layer figures read from it in one place, so the chart, the table and the headline agree
// on what "missing" and "under the threshold" mean.

#include <QMetaType>

#include <memory>
#include <optional>

#include "analysis/suite/numeric_suite.h"

namespace ql::ui {

using ReportPtr = std::shared_ptr<const analysis::NumericSuiteReport>;

// The SQNR threshold users know as "healthy above about 30 dB" (DESIGN.md).
constexpr double kDefaultThresholdDb = 30.0;

// A figure, or nullopt when the report has none or it is NaN (nothing to draw or sort by).
std::optional<double> presentFigure(std::optional<double> value);
std::optional<double> weightSqnr(const analysis::LayerReport &layer);
std::optional<double> cumulativeSqnr(const analysis::LayerReport &layer);
std::optional<double> isolatedSqnr(const analysis::LayerReport &layer);
std::optional<double> sampleP5Sqnr(const analysis::LayerReport &layer);
std::optional<double> kernelVsReferenceSqnr(const analysis::LayerReport &layer);

bool isFp32(const analysis::LayerReport &layer);
// The user can move the layer between int8 and fp32: it runs int8, or runs fp32 because they
// asked (a layer the quantized model itself keeps in fp32 cannot be toggled).
bool canToggle(const analysis::LayerReport &layer);
// The layer's own or end-to-end activation SQNR is below the threshold (missing figures never
// count as under it; -inf does).
bool isUnderThreshold(const analysis::LayerReport &layer, double thresholdDb);
// Kernel-vs-reference SQNR below kKernelMismatchDb, or flagged by the suite.
bool hasKernelMismatch(const analysis::LayerReport &layer);

}  // namespace ql::ui

Q_DECLARE_METATYPE(ql::ui::ReportPtr)
