#include "analysis/session/in_app_quantizer.h"

#include <algorithm>
#include <cstdio>

#include "quant/qdq_builder.h"

namespace ql::analysis {
namespace {

bool isInt8Weighted(const quant::QuantizationPlan &plan, const std::string &node) {
    const quant::NodeDecision *decision = plan.decision(node);
    return decision && decision->precision == quant::Precision::Int8 && !decision->sixteenBit &&
           plan.weights.count({node, 1}) != 0;
}

std::set<std::string> int8Among(const quant::QuantizationPlan &plan,
                                const std::set<std::string> &nodes) {
    std::set<std::string> int8;
    for (const std::string &node : nodes)
        if (isInt8Weighted(plan, node)) int8.insert(node);
    return int8;
}

std::string format(const char *pattern, double a, double b, double c = 0) {
    char text[160];
    std::snprintf(text, sizeof text, pattern, a, b, c);
    return text;
}

// Replaces the initializer that input `input` of `node` reads in `graph` (no-op when absent).
void replaceInput(Graph &graph, const std::string &node, size_t input, const Tensor &values) {
    const Node *n = graph.findNode(node);
    if (n && n->hasInput(input) && graph.isInitializer(n->inputs[input]))
        graph.initializers[n->inputs[input]] = values;
}

}  // namespace

InAppQuantizer::InAppQuantizer(const Graph &floatGraph,
                               std::unique_ptr<quant::CalibrationStatistics> stats,
                               const std::vector<std::map<std::string, Tensor>> &calibration,
                               quant::QuantizationOptions options, int threads)
    : m_float(floatGraph),
      m_stats(std::move(stats)),
      m_calibration(calibration),
      m_options(std::move(options)),
      m_threads(threads) {}

Result<std::set<std::string>> InAppQuantizer::roundAll(const quant::AdaRoundOptions &options,
                                                       const Progress &progress) {
    auto planned = quant::quantizeGraph(m_float, *m_stats, m_options);
    if (!planned) return planned.status();
    Graph rounded = quant::prepareFloatGraph(m_float, m_options.foldBatchNorm);
    quant::AdaRoundOptions all = options;  // its layers: all when empty
    all.threads = m_threads;
    if (progress)
        all.progress = [&](int done, int total) { return progress("adaround", done, total); };
    auto report = quant::adaRound(rounded, planned->plan, quant::batchesOpener(m_calibration), all);
    if (!report) return report.status();
    keepRounding(rounded, planned->plan, *report);
    std::set<std::string> kept;
    for (const quant::RoundedLayer &layer : report->layers)
        if (!layer.keptNearest && m_rounded.count(layer.node)) kept.insert(layer.node);
    m_roundAll = std::move(*report);
    return kept;
}

void InAppQuantizer::keepRounding(const Graph &rounded, const quant::QuantizationPlan &plan,
                                  const quant::AdaRoundReport &report) {
    for (const quant::RoundedLayer &layer : report.layers)
        if (const Node *node = rounded.findNode(layer.node))
            m_rounded[layer.node] = {layer, plan.weights.at({layer.node, 1}).qparams,
                                     *rounded.initializer(node->inputs[1])};
    for (const quant::UnroundedLayer &layer : report.skipped)
        m_notRounded[layer.node] = layer.reason;
}

Result<std::set<std::string>> InAppQuantizer::layersTaking(LayerRemedy remedy) const {
    auto planned = quant::quantizeGraph(m_float, *m_stats, m_options);
    if (!planned) return planned.status();
    std::set<std::string> layers;
    for (const Node &node : m_float.nodes) {
        if (!isInt8Weighted(planned->plan, node.name)) continue;
        const auto offered = remediesForOp(node.opType);
        if (std::find(offered.begin(), offered.end(), remedy) != offered.end())
            layers.insert(node.name);
    }
    return layers;
}

Status InAppQuantizer::roundLayers(const Graph &prepared, const quant::QuantizationPlan &plan,
                                   const std::set<std::string> &layers, const Progress &progress) {
    quant::AdaRoundOptions options;
    for (const std::string &layer : layers)
        if (!m_rounded.count(layer) && !m_notRounded.count(layer)) options.layers.insert(layer);
    if (options.layers.empty()) return Status::ok();
    options.threads = m_threads;
    if (m_roundAll) options.seed = m_roundAll->options.seed;
    if (progress)
        options.progress = [&](int done, int total) { return progress("adaround", done, total); };
    Graph rounded = prepared;
    auto report = quant::adaRound(rounded, plan, quant::batchesOpener(m_calibration), options);
    if (!report) return report.status();
    keepRounding(rounded, plan, *report);
    return Status::ok();
}

Status InAppQuantizer::correctBiases(Graph &prepared, const quant::QuantizationPlan &plan,
                                     const std::set<std::string> &layers, BiasCorrections biases,
                                     const Progress &progress) {
    if (layers.empty()) return Status::ok();
    const bool known = std::all_of(layers.begin(), layers.end(), [this](const std::string &l) {
        return m_corrected.count(l) || m_notCorrected.count(l);
    });
    if (biases == BiasCorrections::Measure || !known) {
        quant::BiasCorrectionOptions options;
        options.layers = layers;
        options.threads = m_threads;
        if (progress)
            options.progress = [&](int done, int total) {
                return progress("bias-correction", done, total);
            };
        Graph measured = prepared;
        auto report =
            quant::correctBiases(measured, plan, quant::batchesOpener(m_calibration), options);
        if (!report) return report.status();
        m_corrected.clear();
        for (const quant::CorrectedLayer &layer : report->layers) {
            const Node *node = measured.findNode(layer.node);
            if (node && node->hasInput(2))
                m_corrected[layer.node] = {layer, *measured.initializer(node->inputs[2])};
        }
        for (const quant::UncorrectedLayer &layer : report->skipped)
            m_notCorrected[layer.node] = layer.reason;
    }
    for (const std::string &layer : layers) {
        const auto corrected = m_corrected.find(layer);
        if (corrected != m_corrected.end())
            replaceInput(prepared, layer, 2, corrected->second.bias);
    }
    return Status::ok();
}

Result<Graph> InAppQuantizer::quantize(const std::set<std::string> &fp32,
                                       const LayerRemedies &remedies, BiasCorrections biases,
                                       const Progress &progress) {
    quant::QuantizationOptions q = m_options;
    for (const std::string &name : fp32) {
        if (std::find(q.excludedNodes.begin(), q.excludedNodes.end(), name) ==
            q.excludedNodes.end())
            q.excludedNodes.push_back(name);
        q.exclusionReasons[name] = "kept in fp32 by the user";
    }
    for (const std::string &name : remedies.int16)
        if (!fp32.count(name) &&
            std::find(q.int16Nodes.begin(), q.int16Nodes.end(), name) == q.int16Nodes.end())
            q.int16Nodes.push_back(name);
    if (remedies.empty()) {
        auto quantized = quant::quantizeGraph(m_float, *m_stats, q);
        if (!quantized) return quantized.status();
        return std::move(quantized->model);
    }
    // A layer without a bias gets a zero one before planning, so that the plan quantizes a bias
    // the correction can move (the function is unchanged).
    Graph source = m_float;
    if (!remedies.biasCorrection.empty()) quant::addZeroBiases(source, remedies.biasCorrection);
    auto planned = quant::quantizeGraph(source, *m_stats, q);
    if (!planned) return planned.status();
    quant::QuantizationPlan &plan = planned->plan;
    Graph prepared = quant::prepareFloatGraph(source, q.foldBatchNorm);

    const std::set<std::string> rounding = int8Among(plan, remedies.adaRound);
    QL_RETURN_IF_ERROR(roundLayers(prepared, plan, rounding, progress));
    for (const std::string &layer : rounding) {
        const auto rounded = m_rounded.find(layer);
        if (rounded == m_rounded.end() || rounded->second.layer.keptNearest) continue;
        plan.weights.at({layer, 1}).qparams = rounded->second.qparams;
        replaceInput(prepared, layer, 1, rounded->second.values);
    }
    QL_RETURN_IF_ERROR(
        correctBiases(prepared, plan, int8Among(plan, remedies.biasCorrection), biases, progress));
    return quant::buildQdqGraph(prepared, plan);
}

void InAppQuantizer::describeRemedies(NumericSuiteReport &report,
                                      const LayerRemedies &remedies) const {
    for (LayerReport &row : report.layers) {
        row.remedies.clear();
        const bool int8 = row.precision == "int8";
        if (remedies.adaRound.count(row.name)) {
            const auto rounded = m_rounded.find(row.name);
            const auto skipped = m_notRounded.find(row.name);
            if (!int8)
                row.notes.push_back("AdaRound applies again when the layer runs int8");
            else if (skipped != m_notRounded.end())
                row.notes.push_back("AdaRound does not apply: " + skipped->second);
            else if (rounded != m_rounded.end() && rounded->second.layer.keptNearest)
                row.notes.push_back(format(
                    "AdaRound kept rounding to nearest: the adaptive rounding reconstructed the "
                    "held-apart samples no better (%.1f -> %.1f dB)",
                    rounded->second.layer.heldApartSqnrNearest,
                    rounded->second.layer.heldApartSqnrAdaptive));
            else if (rounded != m_rounded.end()) {
                const quant::RoundedLayer &l = rounded->second.layer;
                row.remedies.push_back(layerRemedyName(LayerRemedy::AdaRound));
                row.notes.push_back(
                    "AdaRound: " + std::to_string(l.changed) + " of " + std::to_string(l.weights) +
                    " weights round the other way; " +
                    (l.heldApartColumns > 0
                         ? format("the weights' own error on held-apart samples %.1f -> %.1f dB",
                                  l.heldApartSqnrNearest, l.heldApartSqnrAdaptive)
                         : format("the weights' own error %.1f -> %.1f dB", l.weightOnlySqnrNearest,
                                  l.weightOnlySqnrAdaptive)));
            }
        }
        if (remedies.biasCorrection.count(row.name)) {
            const auto corrected = m_corrected.find(row.name);
            const auto skipped = m_notCorrected.find(row.name);
            if (!int8)
                row.notes.push_back("bias correction applies again when the layer runs int8");
            else if (corrected != m_corrected.end()) {
                const quant::CorrectedLayer &l = corrected->second.layer;
                row.remedies.push_back(layerRemedyName(LayerRemedy::BiasCorrection));
                row.notes.push_back(
                    "bias correction: " + std::to_string(l.channelsShifted) + " of " +
                    std::to_string(l.channels) + " channels shifted; " +
                    format("per-channel mean error (RMS) on the calibration data %.3g -> %.3g, noise floor %.3g",
                           l.meanErrorBefore, l.meanErrorAfter, l.standardError));
            } else if (skipped != m_notCorrected.end())
                row.notes.push_back("bias correction does not apply: " + skipped->second);
        }
        if (remedies.int16.count(row.name)) {
            if (row.precision == "int16")
                row.remedies.push_back(layerRemedyName(LayerRemedy::SixteenBit));
            else if (row.precision == "fp32")
                row.notes.push_back("16 bits apply again when the layer is quantized");
            else
                row.notes.push_back("16 bits do not apply: the layer runs " + row.precision + " (" +
                                    row.precisionReason + ")");
        }
    }
}

}  // namespace ql::analysis
