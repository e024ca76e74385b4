#include "quant/remedies/bias_correction.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <sstream>

#include "quant/qdq_builder.h"
#include "quant/remedies/paired_pass.h"
#include "runtime/execution_plan.h"

namespace ql::quant {
namespace {

bool takesBias(const Node &node) {
    return node.domain.empty() &&
           (node.opType == "Conv" || node.opType == "ConvTranspose" || node.opType == "Gemm");
}

// Output channels of a layer from its weight: Conv [M, C/g, ...], ConvTranspose [C, M/g, ...],
// Gemm B [K, N] or [N, K] (transB).
int64_t outputChannels(const Node &node, const Tensor &weight) {
    if (weight.rank() < 2) return -1;
    if (node.opType == "Conv") return weight.dim(0);
    if (node.opType == "ConvTranspose") return weight.dim(1) * node.attrInt("group", 1);
    return node.attrInt("transB", 0) ? weight.dim(0) : weight.dim(1);
}

// The per-sample channel means of a layer's error (quantized − float output, [N, C, ...], channel
// axis 1): their mean over samples is the correction, their spread its standard error.
struct ChannelErrors {
    std::vector<double> sum, sumSquares;
    int64_t samples = 0;
    double floatSquares = 0;  // of the float output, for its RMS
    int64_t floatValues = 0;

    Status add(const Tensor &quantized, const Tensor &reference, const std::string &what) {
        if (quantized.dtype() != DataType::Float || reference.dtype() != DataType::Float ||
            quantized.rank() < 2 || quantized.shape() != reference.shape())
            return Status::badInput(what +
                                    ": the quantized and float outputs are not float "
                                    "tensors [N, C, ...] of one shape");
        const Tensor q = quantized.toPlain(), f = reference.toPlain();
        const int64_t n = q.dim(0), c = q.dim(1);
        const int64_t inner = n > 0 && c > 0 ? q.numel() / (n * c) : 0;
        if (sum.empty()) sum.assign(static_cast<size_t>(c), 0.0), sumSquares = sum;
        if (static_cast<int64_t>(sum.size()) != c)
            return Status::badInput(what + ": the output's channel count changed between batches");
        const float *x = q.data<float>(), *y = f.data<float>();
        for (int64_t b = 0; b < n; ++b)
            for (int64_t k = 0; k < c; ++k) {
                const int64_t at = (b * c + k) * inner;
                double e = 0;
                for (int64_t i = 0; i < inner; ++i) {
                    e += double(x[at + i]) - y[at + i];
                    floatSquares += double(y[at + i]) * y[at + i];
                }
                e /= double(inner ? inner : 1);
                sum[static_cast<size_t>(k)] += e;
                sumSquares[static_cast<size_t>(k)] += e * e;
            }
        samples += n;
        floatValues += n * c * inner;
        return Status::ok();
    }
    double mean(size_t k) const { return samples ? sum[k] / double(samples) : 0.0; }
    // Of the mean; infinite with fewer than two samples.
    double standardError(size_t k) const {
        if (samples < 2) return INFINITY;
        const double m = mean(k);
        const double variance = std::max(0.0, (sumSquares[k] - samples * m * m) / (samples - 1));
        return std::sqrt(variance / double(samples));
    }
    double floatRms() const { return floatValues ? std::sqrt(floatSquares / floatValues) : 0.0; }
};

struct Layer {
    const Node *node = nullptr;  // in the prepared graph
    std::string output;          // its output value (float graph)
    Tensor *bias = nullptr;      // the prepared graph's float bias, writable
    int wave = 0;
    CorrectedLayer record;
};

// The quantized graph's value for a float layer output: the same node's output (a graph output
// is renamed by the QDQ builder).
std::string quantizedOutput(const Graph &qdq, const Layer &layer) {
    const Node *node = qdq.findNode(layer.node->name);
    return node && !node->outputs.empty() ? node->outputs[0] : layer.output;
}

double rootMeanSquare(const std::vector<double> &v) {
    double s = 0;
    for (double x : v) s += x * x;
    return v.empty() ? 0.0 : std::sqrt(s / double(v.size()));
}

}  // namespace

std::vector<std::string> addZeroBiases(Graph &prepared, const std::set<std::string> &only) {
    std::vector<std::string> changed;
    for (Node &node : prepared.nodes) {
        if (!only.empty() && !only.count(node.name)) continue;
        if (!takesBias(node) || node.hasInput(2) || !node.hasInput(1)) continue;
        if (node.opType == "Gemm" && node.attrFloat("beta", 1.0f) != 1.0f) continue;
        const Tensor *weight = prepared.initializer(node.inputs[1]);
        if (!weight || weight->dtype() != DataType::Float) continue;
        const int64_t channels = outputChannels(node, *weight);
        if (channels <= 0) continue;
        std::string name = (node.name.empty() ? node.outputs[0] : node.name) + ".bias";
        while (prepared.isInitializer(name) || prepared.producerIndex(name) >= 0) name += "_";
        prepared.initializers[name] = Tensor::fromVector<float>(
            {channels}, std::vector<float>(static_cast<size_t>(channels), 0.0f));
        node.inputs.resize(3);
        node.inputs[2] = name;
        changed.push_back(node.name);
    }
    return changed;
}

Result<BiasCorrectionReport> correctBiases(Graph &prepared, const QuantizationPlan &plan,
                                           const BatchSourceOpener &data,
                                           const BiasCorrectionOptions &options) {
    BiasCorrectionReport report;
    const Graph reference = prepared;  // the float function the corrections aim at

    // The layers, in execution order, with writable biases.
    std::vector<Layer> layers;
    std::map<std::string, size_t> layerOf;  // node name -> index in layers
    for (const Node &node : prepared.nodes) {
        if (node.name.empty()) continue;  // the plan knows nodes by name
        const NodeDecision *decision = plan.decision(node.name);
        if (!decision || decision->precision != Precision::Int8) continue;
        const bool weighted = plan.weights.count({node.name, 1}) != 0;
        if (!weighted) continue;
        if (!options.layers.empty() && !options.layers.count(node.name)) continue;
        auto skip = [&](const std::string &why) { report.skipped.push_back({node.name, why}); };
        if (!takesBias(node)) {
            skip(node.opType + " has no bias input");
            continue;
        }
        if (!plan.biases.count(node.name)) {
            skip("no int32 bias in the plan (a float constant per output channel is needed)");
            continue;
        }
        if (prepared.useCount(node.inputs[2]) != 1) {
            skip("its bias is shared with other nodes or is a graph output");
            continue;
        }
        Tensor &bias = prepared.initializers.at(node.inputs[2]);
        bias = bias.toPlain().clone();  // the caller's copies keep their values
        Layer layer;
        layer.node = &node;
        layer.output = node.outputs.at(0);
        layer.bias = &bias;
        layer.record.node = node.name;
        layer.record.opType = node.opType;
        layer.record.channels = bias.numel();
        layerOf[node.name] = layers.size();
        layers.push_back(std::move(layer));
    }
    for (const std::string &name : options.layers)
        if (!prepared.findNode(name))
            return Status::badInput("bias correction: no node '" + name + "' in the model");
    if (layers.empty()) return report;

    // Waves: a layer's wave counts the corrected layers on the longest path into it, so the
    // layers of one wave do not feed each other and one pass measures them all.
    std::map<std::string, int> level;  // value -> corrected layers up to and including it
    int waves = 0;
    for (const Node &node : prepared.nodes) {
        int in = 0;
        for (const std::string &input : node.inputs) {
            auto it = level.find(input);
            if (it != level.end()) in = std::max(in, it->second);
        }
        auto layer = layerOf.find(node.name);
        const bool corrected = layer != layerOf.end();
        if (corrected) layers[layer->second].wave = in, waves = std::max(waves, in + 1);
        for (const std::string &output : node.outputs) level[output] = in + (corrected ? 1 : 0);
    }
    const int passes = waves + 1;  // one per wave, then the measurement of the result
    int done = 0;
    auto progressed = [&]() -> Status {
        ++done;
        if (options.progress && !options.progress(done, passes))
            return Status::error(ErrorKind::Cancelled, "bias correction cancelled after " +
                                                           std::to_string(done) + " of " +
                                                           std::to_string(passes) + " passes");
        return Status::ok();
    };
    auto floatPlan = tapPlan(reference, options.threads);
    if (!floatPlan) return floatPlan.status().withContext(prepared.sourcePath);

    // The errors of `layers` in the quantized graph as the biases are now.
    auto measureLayers = [&](const std::vector<Layer *> &wave,
                             std::map<std::string, ChannelErrors> &taps) -> Status {
        auto qdq = buildQdqGraph(prepared, plan);
        if (!qdq) return qdq.status();
        auto quantPlan = tapPlan(*qdq, options.threads);
        if (!quantPlan) return quantPlan.status();
        std::map<std::string, std::string> quantValue;
        taps.clear();
        for (const Layer *layer : wave) {
            taps[layer->output];
            quantValue[layer->output] = quantizedOutput(*qdq, *layer);
        }
        QL_RETURN_IF_ERROR(runPaired(
            **floatPlan, **quantPlan, data, quantValue,
            [&taps](const std::string &value, const Tensor &quantized, const Tensor &reference) {
                return taps.at(value).add(quantized, reference, "'" + value + "'");
            },
            "bias correction"));
        for (const Layer *layer : wave)
            if (static_cast<int64_t>(taps.at(layer->output).sum.size()) != layer->record.channels)
                return Status::badInput(layer->node->describe() + ": its output has " +
                                        std::to_string(taps.at(layer->output).sum.size()) +
                                        " channels, its bias " +
                                        std::to_string(layer->record.channels) + " values");
        return Status::ok();
    };

    std::map<std::string, ChannelErrors> taps;
    for (int w = 0; w < waves; ++w) {
        std::vector<Layer *> wave;
        for (Layer &layer : layers)
            if (layer.wave == w) wave.push_back(&layer);
        QL_RETURN_IF_ERROR(measureLayers(wave, taps).withContext(prepared.sourcePath));
        for (Layer *layer : wave) {
            const ChannelErrors &e = taps.at(layer->output);
            CorrectedLayer &r = layer->record;
            float *bias = layer->bias->data<float>();
            std::vector<double> means, errors;
            for (size_t k = 0; k < e.sum.size(); ++k) {
                // Shrunk towards zero by its standard error (positive-part James-Stein): a mean
                // no larger than its noise is left alone instead of adding that noise.
                const double m = e.mean(k), se = e.standardError(k);
                const double shift = e.samples < 2 ? m : m * std::max(0.0, 1.0 - se * se / (m * m));
                bias[k] = static_cast<float>(double(bias[k]) - shift);
                r.largestShift = std::max(r.largestShift, std::abs(shift));
                r.channelsShifted += shift != 0.0;
                means.push_back(m);
                errors.push_back(std::isfinite(se) ? se : 0.0);
            }
            r.meanErrorBefore = rootMeanSquare(means);
            r.standardError = rootMeanSquare(errors);
            r.outputRms = e.floatRms();
            report.samples = e.samples;
        }
        QL_RETURN_IF_ERROR(progressed());
    }

    std::vector<Layer *> all;
    for (Layer &layer : layers) all.push_back(&layer);
    QL_RETURN_IF_ERROR(measureLayers(all, taps).withContext(prepared.sourcePath));
    for (Layer *layer : all) {
        const ChannelErrors &e = taps.at(layer->output);
        std::vector<double> means;
        for (size_t k = 0; k < e.sum.size(); ++k) means.push_back(e.mean(k));
        layer->record.meanErrorAfter = rootMeanSquare(means);
    }
    QL_RETURN_IF_ERROR(progressed());
    report.passes = passes;
    for (Layer &layer : layers) report.layers.push_back(layer.record);
    return report;
}

std::string describe(const BiasCorrectionReport &report) {
    std::ostringstream out;
    out << "bias correction: " << report.layers.size() << " layer"
        << (report.layers.size() == 1 ? "" : "s") << " corrected in " << report.passes
        << " passes over " << report.samples << " samples";
    double before = 0, after = 0;
    for (const CorrectedLayer &l : report.layers)
        before += l.meanErrorBefore * l.meanErrorBefore,
            after += l.meanErrorAfter * l.meanErrorAfter;
    if (!report.layers.empty())
        out << "; RMS of the per-channel mean errors " << std::sqrt(before / report.layers.size())
            << " -> " << std::sqrt(after / report.layers.size());
    if (!report.skipped.empty()) out << "; " << report.skipped.size() << " left as they are";
    return out.str();
}

}  // namespace ql::quant
