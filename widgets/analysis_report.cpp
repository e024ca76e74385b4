#include "analysis_report.h"

#include <cmath>

namespace ql::ui {

std::optional<double> presentFigure(std::optional<double> value) {
    if (!value || std::isnan(*value)) return std::nullopt;
    return value;
}

std::optional<double> weightSqnr(const analysis::LayerReport &layer) {
    return presentFigure(layer.weightSqnrDb);
}

std::optional<double> cumulativeSqnr(const analysis::LayerReport &layer) {
    if (!layer.cumulative) return std::nullopt;
    return presentFigure(layer.cumulative->sqnrDb);
}

std::optional<double> isolatedSqnr(const analysis::LayerReport &layer) {
    if (!layer.isolated) return std::nullopt;
    return presentFigure(layer.isolated->sqnrDb);
}

std::optional<double> sampleP5Sqnr(const analysis::LayerReport &layer) {
    if (!layer.cumulative || !layer.cumulative->sampleSqnr) return std::nullopt;
    return presentFigure(layer.cumulative->sampleSqnr->p5);
}

std::optional<double> kernelVsReferenceSqnr(const analysis::LayerReport &layer) {
    return presentFigure(layer.kernelVsReferenceSqnrDb);
}

bool isFp32(const analysis::LayerReport &layer) {
    return layer.precision == "fp32";
}

bool canToggle(const analysis::LayerReport &layer) {
    return layer.fp32Requested || !isFp32(layer);
}

bool isUnderThreshold(const analysis::LayerReport &layer, double thresholdDb) {
    const auto under = [thresholdDb](std::optional<double> v) { return v && *v < thresholdDb; };
    return under(cumulativeSqnr(layer)) || under(isolatedSqnr(layer));
}

bool hasKernelMismatch(const analysis::LayerReport &layer) {
    const auto db = kernelVsReferenceSqnr(layer);
    return layer.kernelMismatch || (db && *db < analysis::kKernelMismatchDb);
}

}  // namespace ql::ui
