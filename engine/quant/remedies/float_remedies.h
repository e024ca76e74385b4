#pragma once
// The remedies that change the float model before calibration (cross-layer equalization,
// SmoothQuant), applied in the order asked, as `--remedy` and the GUI's quantizer settings name
// them. The command line and the GUI's sessions share this; bias correction runs after
// quantizing and is not one of them.

#include <optional>
#include <string>
#include <vector>

#include "core/status.h"
#include "ir/graph.h"
#include "quant/calibration.h"
#include "quant/remedies/cross_layer_equalization.h"
#include "quant/remedies/smooth_quant.h"

namespace ql::quant {

struct FloatRemedy {
    enum class Kind { CrossLayerEqualization, SmoothQuant };
    Kind kind = Kind::CrossLayerEqualization;
    double alpha = 0.5;  // SmoothQuant's α
};

// "cle", "smoothquant" or "smoothquant=ALPHA" (ALPHA in [0, 1]); nullopt for another name (the
// caller knows the remedies it adds), BadInput for a bad ALPHA.
Result<std::optional<FloatRemedy>> parseFloatRemedy(const std::string &text);
std::string floatRemedyName(const FloatRemedy &remedy);  // "cle", "smoothquant=0.5"

struct FloatRemedyReport {
    std::vector<FloatRemedy> applied;  // in order
    std::optional<CrossLayerEqualizationReport> equalization;
    std::optional<SmoothQuantReport> smoothing;
};

// Applies `remedies` to `prepared` (BatchNorm folded already) in order, each kind once;
// SmoothQuant reads `calibration` once. `progress` (optional) is SmoothQuant's: false cancels.
Result<FloatRemedyReport> applyFloatRemedies(Graph &prepared,
                                             const std::vector<FloatRemedy> &remedies,
                                             const BatchSourceOpener &calibration, int threads,
                                             const ProgressCallback &progress = {});

}  // namespace ql::quant
