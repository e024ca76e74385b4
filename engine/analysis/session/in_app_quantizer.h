#pragma once
// The quantized side of an interactive session that quantizes the float model itself: the
// float model planned from the calibration statistics kept at creation, with the user's fp32
// layers and per-layer remedies (layer_remedies.h) applied, as a QDQ graph.
//
// AdaRound's weights for a layer are optimised the first time the layer asks for them and kept:
// they depend on the layer's weight grid, which no toggle changes. A bias correction depends on
// every layer before it (their precisions, roundings and corrections), so it is measured again
// for each new model, unless the caller reuses the last measurement (the fp32 search tries many
// sets and keeps the corrections of the user's). Layers kept in fp32 take no remedy.

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "analysis/session/layer_remedies.h"
#include "analysis/suite/numeric_suite.h"
#include "core/status.h"
#include "ir/graph.h"
#include "quant/calibration.h"
#include "quant/quantization_plan.h"
#include "quant/remedies/ada_round.h"
#include "quant/remedies/bias_correction.h"

namespace ql::analysis {

class InAppQuantizer {
public:
    using Progress = std::function<bool(const std::string &stage, int done, int total)>;
    enum class BiasCorrections { Measure, ReuseLast };

    // `floatGraph` and `calibration` must outlive the quantizer.
    InAppQuantizer(const Graph &floatGraph, std::unique_ptr<quant::CalibrationStatistics> stats,
                   const std::vector<std::map<std::string, Tensor>> &calibration,
                   quant::QuantizationOptions options, int threads);

    // AdaRound for every int8 layer that takes it, or those options.layers names (progress stage
    // "adaround"); returns the layers whose adaptive rounding was kept.
    Result<std::set<std::string>> roundAll(const quant::AdaRoundOptions &options,
                                           const Progress &progress);
    // The report of roundAll, nullopt before.
    const std::optional<quant::AdaRoundReport> &adaRounding() const { return m_roundAll; }

    // The int8 layers (no fp32 layers of the user) that take `remedy` (remediesFor's op types).
    Result<std::set<std::string>> layersTaking(LayerRemedy remedy) const;

    // The QDQ graph with `fp32` kept in fp32 and `remedies` applied to the layers that stay int8.
    // Progress stages "adaround" and "bias-correction"; false cancels.
    Result<Graph> quantize(const std::set<std::string> &fp32, const LayerRemedies &remedies,
                           BiasCorrections biases, const Progress &progress);

    // Marks the rows of `report` (a run of quantize's last graph): the remedies each row took
    // (LayerReport::remedies) and, in its notes, what each did or why it did not apply.
    void describeRemedies(NumericSuiteReport &report, const LayerRemedies &remedies) const;

private:
    // Keeps AdaRound's weights for the layers of `report` (rounded: the graph it rounded).
    void keepRounding(const Graph &rounded, const quant::QuantizationPlan &plan,
                      const quant::AdaRoundReport &report);
    Status roundLayers(const Graph &prepared, const quant::QuantizationPlan &plan,
                       const std::set<std::string> &layers, const Progress &progress);
    Status correctBiases(Graph &prepared, const quant::QuantizationPlan &plan,
                         const std::set<std::string> &layers, BiasCorrections biases,
                         const Progress &progress);

    const Graph &m_float;
    std::unique_ptr<quant::CalibrationStatistics> m_stats;
    const std::vector<std::map<std::string, Tensor>> &m_calibration;
    quant::QuantizationOptions m_options;
    int m_threads;

    struct Rounded {
        quant::RoundedLayer layer;
        quant::QParams qparams;  // the plan's for its weight
        Tensor values;           // on the grid: s·(q − z)
    };
    std::map<std::string, Rounded> m_rounded;         // by node: optimised once
    std::map<std::string, std::string> m_notRounded;  // node -> why AdaRound skipped it
    std::optional<quant::AdaRoundReport> m_roundAll;
    struct Corrected {
        quant::CorrectedLayer layer;
        Tensor bias;  // the corrected float bias
    };
    std::map<std::string, Corrected> m_corrected;       // by node: the last measurement
    std::map<std::string, std::string> m_notCorrected;  // node -> why bias correction skipped it
};

}  // namespace ql::analysis
