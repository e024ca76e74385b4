#pragma once
// The remedies an interactive session switches per layer: those that change only a layer's own
// quantization after calibration (AdaRound and bias correction change its int8 weights or bias;
// 16 bits quantize its activations and weights with 16 bits instead of 8, ONNX Runtime's QUInt16 /
// QInt16 overrides), so that switching one re-quantizes that layer from the cached statistics and
// re-runs what follows it, like an fp32 toggle. Cross-layer equalization and SmoothQuant rescale
// the float model itself (two layers and the activation between them) and stay whole-model
// choices of the quantizer settings.

#include <optional>
#include <set>
#include <string>
#include <vector>

namespace ql::analysis {

struct LayerReport;  // analysis/suite/numeric_suite.h

enum class LayerRemedy { AdaRound, BiasCorrection, SixteenBit };
inline constexpr LayerRemedy kLayerRemedies[] = {LayerRemedy::AdaRound, LayerRemedy::BiasCorrection,
                                                 LayerRemedy::SixteenBit};

// "adaround", "bias-correction", "int16": the names of projects and reports.
const char *layerRemedyName(LayerRemedy remedy);
std::optional<LayerRemedy> parseLayerRemedy(const std::string &name);

struct LayerRemedies {
    std::set<std::string> adaRound, biasCorrection, int16;  // float node names

    std::set<std::string> &of(LayerRemedy remedy);
    const std::set<std::string> &of(LayerRemedy remedy) const;
    bool has(LayerRemedy remedy, const std::string &layer) const { return of(remedy).count(layer); }
    void set(LayerRemedy remedy, const std::string &layer, bool on);
    bool empty() const { return adaRound.empty() && biasCorrection.empty() && int16.empty(); }
    bool operator==(const LayerRemedies &other) const {
        return adaRound == other.adaRound && biasCorrection == other.biasCorrection &&
               int16 == other.int16;
    }
    bool operator!=(const LayerRemedies &other) const { return !(*this == other); }
};

// The remedies an int8 weighted layer of `opType` can take: AdaRound for Conv / Gemm / MatMul,
// bias correction for Conv / ConvTranspose / Gemm, 16 bits for every op.
std::vector<LayerRemedy> remediesForOp(const std::string &opType);
// The same for a report row: none unless it runs int8 (AdaRound and bias correction: with a
// weight).
std::vector<LayerRemedy> remediesFor(const LayerReport &row);

}  // namespace ql::analysis
