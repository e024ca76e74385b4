#include "analysis/session/layer_remedies.h"

#include <utility>

#include "analysis/suite/numeric_suite.h"

namespace ql::analysis {

const char *layerRemedyName(LayerRemedy remedy) {
    switch (remedy) {
        case LayerRemedy::AdaRound:
            return "adaround";
        case LayerRemedy::BiasCorrection:
            return "bias-correction";
        case LayerRemedy::SixteenBit:
            return "int16";
    }
    return "";
}

std::optional<LayerRemedy> parseLayerRemedy(const std::string &name) {
    for (LayerRemedy remedy : kLayerRemedies)
        if (name == layerRemedyName(remedy)) return remedy;
    return std::nullopt;
}

std::set<std::string> &LayerRemedies::of(LayerRemedy remedy) {
    return const_cast<std::set<std::string> &>(std::as_const(*this).of(remedy));
}

const std::set<std::string> &LayerRemedies::of(LayerRemedy remedy) const {
    switch (remedy) {
        case LayerRemedy::AdaRound:
            return adaRound;
        case LayerRemedy::BiasCorrection:
            return biasCorrection;
        case LayerRemedy::SixteenBit:
            break;
    }
    return int16;
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
    remedies.push_back(LayerRemedy::SixteenBit);
    return remedies;
}

std::vector<LayerRemedy> remediesFor(const LayerReport &row) {
    if (row.precision != "int8") return {};
    if (!row.weightSqnrDb) return {LayerRemedy::SixteenBit};
    return remediesForOp(row.opType);
}

}  // namespace ql::analysis
