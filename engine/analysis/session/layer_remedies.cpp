#include "analysis/session/layer_remedies.h"

#include "analysis/suite/numeric_suite.h"

namespace ql::analysis {

const char *layerRemedyName(LayerRemedy remedy) {
    return remedy == LayerRemedy::AdaRound ? "adaround" : "bias-correction";
}

std::optional<LayerRemedy> parseLayerRemedy(const std::string &name) {
    for (LayerRemedy remedy : {LayerRemedy::AdaRound, LayerRemedy::BiasCorrection})
        if (name == layerRemedyName(remedy)) return remedy;
    return std::nullopt;
}

std::set<std::string> &LayerRemedies::of(LayerRemedy remedy) {
    return remedy == LayerRemedy::AdaRound ? adaRound : biasCorrection;
}

const std::set<std::string> &LayerRemedies::of(LayerRemedy remedy) const {
    return remedy == LayerRemedy::AdaRound ? adaRound : biasCorrection;
}

void LayerRemedies::set(LayerRemedy remedy, const std::string &layer, bool on) {
    if (on)
        of(remedy).insert(layer);
    else
        of(remedy).erase(layer);
}

std::vector<LayerRemedy> remediesForOp(const std::string &op) {
    std::vector<LayerRemedy> remedies;
    if (op == "Conv" || op == "Gemm" || op == "MatMul") remedies.push_back(LayerRemedy::AdaRound);
    if (op == "Conv" || op == "ConvTranspose" || op == "Gemm")
        remedies.push_back(LayerRemedy::BiasCorrection);
    return remedies;
}

std::vector<LayerRemedy> remediesFor(const LayerReport &row) {
    if (row.precision != "int8" || !row.weightSqnrDb) return {};
    return remediesForOp(row.opType);
}

}  // namespace ql::analysis
