#include "quant/remedies/ada_round.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <map>
#include <sstream>

#include "kernels/dense_gemm.h"
#include "quant/qdq_builder.h"
#include "quant/remedies/paired_pass.h"
#include "quant/remedies/reconstruction_statistics.h"

namespace ql::quant {
namespace {

constexpr double kZeta = 1.1, kGamma = -0.1;  // the rectified sigmoid's stretch
constexpr double kAdamBeta1 = 0.9, kAdamBeta2 = 0.999, kAdamEpsilon = 1e-8;
constexpr int kPassPerMille = 100;  // of the progress, for the pass over the data

double seconds(std::chrono::steady_clock::time_point since) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - since).count();
}

double decibels(double signal, double noise) {
    if (noise <= 0) return signal > 0 ? INFINITY : 0.0;
    return 10.0 * std::log10(signal / noise);
}

struct Layer {
    const Node *node = nullptr;
    ReconstructionStatistics stats;
    QParams qparams;
    double cost = 0;  // of one step, for the progress
};

// The output-channel axis of a layer's weight as the plan's per-channel qparams give it.
int64_t outputAxis(const Node &node, int64_t rank) {
    if (node.opType == "Conv") return 0;
    if (node.opType == "Gemm") return node.attrInt("transB", 0) ? 0 : 1;
    return rank - 1;  // MatMul
}

// The grid of one weight: u = W/s + z, rounded down, and its bounds.
struct Grid {
    std::vector<float> scale, floor, fraction;  // scale per row; floor, fraction per weight
    std::vector<int32_t> zero;                  // per row
    int32_t qmin = -128, qmax = 127;
};

Grid gridOf(const ReconstructionStatistics &stats, const QParams &q) {
    Grid g;
    std::tie(g.qmin, g.qmax) = quantizedRange({q.type, true, false});
    const int64_t rows = stats.groups() * stats.rowsPerGroup(), depth = stats.depth();
    const std::vector<float> &w = stats.weights();
    g.floor.resize(w.size()), g.fraction.resize(w.size());
    for (int64_t r = 0; r < rows; ++r) {
        const size_t c = q.scale.size() > 1 ? static_cast<size_t>(r) : 0;
        g.scale.push_back(q.scale[c]), g.zero.push_back(q.zeroPoint[c]);
        for (int64_t k = 0; k < depth; ++k) {
            const size_t i = static_cast<size_t>(r * depth + k);
            const double u = double(w[i]) / q.scale[c] + q.zeroPoint[c];
            g.floor[i] = static_cast<float>(std::floor(u));
            g.fraction[i] = static_cast<float>(u - std::floor(u));
        }
    }
    return g;
}

// The grid values s·(q − z) for integer choices `up` (1: round up; nearest when `up` is empty).
std::vector<float> gridValues(const ReconstructionStatistics &stats, const Grid &g,
                              const std::vector<uint8_t> &up) {
    std::vector<float> values(stats.weights().size());
    const size_t depth = static_cast<size_t>(stats.depth());
    for (size_t i = 0; i < values.size(); ++i) {
        float q = up.empty() ? std::nearbyint(g.floor[i] + g.fraction[i]) : g.floor[i] + up[i];
        q = std::clamp(q, float(g.qmin), float(g.qmax));
        values[i] = g.scale[i / depth] * (q - float(g.zero[i / depth]));
    }
    return values;
}

std::vector<float> minus(std::vector<float> a, const std::vector<float> &b) {
    for (size_t i = 0; i < a.size(); ++i) a[i] -= b[i];
    return a;
}

// The optimisation of one layer (see the header); returns the chosen rounding (1: up).
std::vector<uint8_t> optimise(const ReconstructionStatistics &stats, const Grid &g,
                              double nearestError, const AdaRoundOptions &options,
                              RoundedLayer &record, const std::function<bool(int)> &stepped) {
    const int64_t groups = stats.groups(), rows = stats.rowsPerGroup(), depth = stats.depth();
    const size_t n = stats.weights().size();
    std::vector<float> v(n), m(n, 0.0f), s(n, 0.0f), h(n), slope(n), delta(n), gradient(n);
    for (size_t i = 0; i < n; ++i) {  // h(v) = fraction
        const double p = (g.fraction[i] - kGamma) / (kZeta - kGamma);
        v[i] = static_cast<float>(std::log(p / (1.0 - p)));
    }
    const std::vector<float> &w = stats.weights();
    const double errorScale = 2.0 / std::max(nearestError, 1e-30);
    const int warm = static_cast<int>(std::lround(options.warmup * options.iterations));
    for (int step = 0; step < options.iterations; ++step) {
        double beta = 0;  // 0: no regulariser yet
        if (step >= warm) {
            const double progress = double(step - warm) / std::max(1, options.iterations - warm);
            beta = options.betaEnd + (options.betaStart - options.betaEnd) * (1.0 - progress);
        }
#pragma omp parallel for if (n > (1 << 15))
        for (int64_t i = 0; i < int64_t(n); ++i) {
            const double sigma = 1.0 / (1.0 + std::exp(-double(v[i])));
            const double raw = sigma * (kZeta - kGamma) + kGamma;
            const double hi = std::clamp(raw, 0.0, 1.0);
            const double q = g.floor[i] + hi;
            const size_t r = static_cast<size_t>(i / depth);
            const bool inside = raw > 0.0 && raw < 1.0 && q > g.qmin && q < g.qmax;
            h[i] = float(hi);
            slope[i] = inside ? float(sigma * (1.0 - sigma) * (kZeta - kGamma) * g.scale[r]) : 0.0f;
            delta[i] = float(
                g.scale[r] * (std::clamp(q, double(g.qmin), double(g.qmax)) - g.zero[r]) - w[i]);
        }
        // gradient = Δ·gram (per group), of |Δ x_q|² / 2
        for (int64_t group = 0; group < groups; ++group) {
            const size_t at = static_cast<size_t>(group * rows * depth);
            denseGemm(false, false, rows, depth, depth, 1.0f, delta.data() + at, depth,
                      stats.gram(group), depth, 0.0f, gradient.data() + at, depth);
        }
        const double lr = options.learningRate;
        const double correction1 = 1.0 - std::pow(kAdamBeta1, step + 1);
        const double correction2 = 1.0 - std::pow(kAdamBeta2, step + 1);
        const double regularization = options.regularization / double(n);
#pragma omp parallel for if (n > (1 << 15))
        for (int64_t i = 0; i < int64_t(n); ++i) {
            double dv = errorScale * gradient[i] * slope[i];
            if (beta > 0) {
                // d/dh (1 − |2h − 1|^β) = −2β |2h − 1|^(β − 1) sign(2h − 1), through h's slope
                const double centred = 2.0 * h[i] - 1.0;
                const double sigmaSlope = slope[i] / std::max(1e-30, double(g.scale[i / depth]));
                const double pull = -2.0 * beta * std::pow(std::abs(centred), beta - 1.0) *
                                    (centred < 0 ? -1.0 : 1.0);
                if (slope[i] != 0.0f) dv += regularization * pull * sigmaSlope;
            }
            m[i] = float(kAdamBeta1 * m[i] + (1.0 - kAdamBeta1) * dv);
            s[i] = float(kAdamBeta2 * s[i] + (1.0 - kAdamBeta2) * dv * dv);
            v[i] -=
                float(lr * (m[i] / correction1) / (std::sqrt(s[i] / correction2) + kAdamEpsilon));
        }
        if (!stepped(step + 1)) return {};
    }
    std::vector<uint8_t> up(n);
    for (size_t i = 0; i < n; ++i) {
        const double sigma = 1.0 / (1.0 + std::exp(-double(v[i])));
        const double hi = std::clamp(sigma * (kZeta - kGamma) + kGamma, 0.0, 1.0);
        up[i] = hi >= 0.5;
        record.undecided += hi > 0.01 && hi < 0.99;
    }
    return up;
}

}  // namespace

Result<AdaRoundReport> adaRound(Graph &prepared, const QuantizationPlan &plan,
                                const BatchSourceOpener &data, const AdaRoundOptions &options) {
    const auto started = std::chrono::steady_clock::now();
    AdaRoundReport report;
    report.options = options;
    report.options.progress = {};
    for (const std::string &name : options.layers)
        if (!prepared.findNode(name))
            return Status::badInput("AdaRound: no node '" + name + "' in the model");
    if (options.iterations < 1 || !(options.learningRate > 0) || options.columnsPerSample < 1)
        return Status::badInput("AdaRound: iterations, learning rate and columns must be positive");

    std::vector<Layer> layers;
    for (const Node &node : prepared.nodes) {
        if (node.name.empty()) continue;  // the plan knows nodes by name
        const NodeDecision *decision = plan.decision(node.name);
        auto weight = plan.weights.find({node.name, 1});
        if (!decision || decision->precision != Precision::Int8 || weight == plan.weights.end())
            continue;
        if (!options.layers.empty() && !options.layers.count(node.name)) continue;
        auto skip = [&](const std::string &why) { report.skipped.push_back({node.name, why}); };
        if (prepared.useCount(node.inputs[1]) != 1) {
            skip("its weight is shared with other nodes");
            continue;
        }
        auto stats = ReconstructionStatistics::forLayer(prepared, node);
        if (!stats) {
            skip(stats.status().message());
            continue;
        }
        const QParams &q = weight->second.qparams;
        const int64_t outputs = stats->groups() * stats->rowsPerGroup();
        const Tensor *w = prepared.initializer(node.inputs[1]);
        if (q.scale.empty() ||
            (q.scale.size() > 1 && (static_cast<int64_t>(q.scale.size()) != outputs ||
                                    q.axis != outputAxis(node, w->rank())))) {
            skip("its weight's qparams are not per tensor or per output channel");
            continue;
        }
        if (options.holdOutEvery > 1)
            stats->holdOut(options.holdOutEvery, options.heldApartColumns);
        Layer layer{&node, std::move(*stats), q, 0};
        layer.cost = double(outputs) * layer.stats.depth() * layer.stats.depth();
        layers.push_back(std::move(layer));
    }
    if (layers.empty()) return report;

    // One pass: every layer's input, quantized and float.
    auto qdq = buildQdqGraph(prepared, plan);
    if (!qdq) return qdq.status().withContext(prepared.sourcePath);
    auto floatPlan = tapPlan(prepared, options.threads);
    if (!floatPlan) return floatPlan.status().withContext(prepared.sourcePath);
    auto quantPlan = tapPlan(*qdq, options.threads);
    if (!quantPlan) return quantPlan.status().withContext(prepared.sourcePath);
    std::map<std::string, std::string> quantValue;        // float input -> quantized input
    std::map<std::string, std::vector<Layer *>> readers;  // float input -> its layers
    for (Layer &layer : layers) {
        const Node *quantized = qdq->findNode(layer.node->name);
        if (!quantized || quantized->inputs.empty())
            return Status::internal("AdaRound: the QDQ graph has no node '" + layer.node->name +
                                    "'");
        quantValue[layer.node->inputs[0]] = quantized->inputs[0];
        readers[layer.node->inputs[0]].push_back(&layer);
    }
    auto cancelled = [&](int done) {
        return options.progress && !options.progress(done, 1000)
                   ? Status::error(ErrorKind::Cancelled, "AdaRound cancelled")
                   : Status::ok();
    };
    const std::string first = layers.front().node->inputs[0];
    QL_RETURN_IF_ERROR(
        runPaired(
            **floatPlan, **quantPlan, data, quantValue,
            [&](const std::string &value, const Tensor &quantized, const Tensor &reference) {
                if (value == first) {
                    report.samples += quantized.rank() > 0 ? quantized.dim(0) : 1;
                    QL_RETURN_IF_ERROR(cancelled(0));
                }
                for (Layer *layer : readers.at(value))
                    QL_RETURN_IF_ERROR(layer->stats.add(quantized, reference,
                                                        options.columnsPerSample, options.seed));
                return Status::ok();
            },
            "AdaRound")
            .withContext(prepared.sourcePath));
    report.passSeconds = seconds(started);
    QL_RETURN_IF_ERROR(cancelled(kPassPerMille));

    double totalCost = 0, doneCost = 0;
    for (const Layer &layer : layers) totalCost += layer.cost;
    for (Layer &layer : layers) {
        const auto layerStarted = std::chrono::steady_clock::now();
        RoundedLayer record;
        record.node = layer.node->name;
        record.opType = layer.node->opType;
        record.weights = static_cast<int64_t>(layer.stats.weights().size());
        record.columns = layer.stats.columns();
        const Grid grid = gridOf(layer.stats, layer.qparams);
        const double signal = layer.stats.signal();
        const std::vector<float> nearestValues = gridValues(layer.stats, grid, {});
        const std::vector<float> nearestDelta = minus(nearestValues, layer.stats.weights());
        const double nearest = layer.stats.squaredError(nearestDelta);
        const double nearestObjective = layer.stats.squaredError(nearestDelta, false);
        record.sqnrNearest = decibels(signal, nearest);
        record.inputOnlySqnr = decibels(signal, layer.stats.inputError());
        record.weightOnlySqnrNearest = decibels(signal, nearestObjective);
        Status stepStatus = Status::ok();
        auto stepped = [&](int step) {
            if (step % 10 && step != options.iterations) return true;
            const double share = (doneCost + layer.cost * step / options.iterations) / totalCost;
            stepStatus = cancelled(kPassPerMille + int((1000 - kPassPerMille) * share));
            return bool(stepStatus);
        };
        std::vector<uint8_t> up =
            optimise(layer.stats, grid, nearestObjective, options, record, stepped);
        QL_RETURN_IF_ERROR(stepStatus);
        const std::vector<float> values = gridValues(layer.stats, grid, up);
        const std::vector<float> delta = minus(values, layer.stats.weights());
        const double adaptive = layer.stats.squaredError(delta);
        record.heldApartColumns = layer.stats.validationColumns();
        if (record.heldApartColumns > 0) {
            const double heldSignal = layer.stats.validationSignal();
            const double heldNearest = layer.stats.validationError(nearestDelta, false);
            const double heldAdaptive = layer.stats.validationError(delta, false);
            record.heldApartSqnrNearest = decibels(heldSignal, heldNearest);
            record.heldApartSqnrAdaptive = decibels(heldSignal, heldAdaptive);
            record.keptNearest = !(heldAdaptive < heldNearest);
        } else {
            record.keptNearest = !(layer.stats.squaredError(delta, false) < nearestObjective);
        }
        record.sqnrAdaptive = decibels(signal, record.keptNearest ? nearest : adaptive);
        record.weightOnlySqnrAdaptive =
            record.keptNearest ? record.weightOnlySqnrNearest
                               : decibels(signal, layer.stats.squaredError(delta, false));
        if (!record.keptNearest) {
            for (size_t i = 0; i < values.size(); ++i)
                record.changed += values[i] != nearestValues[i];
            prepared.initializers[layer.node->inputs[1]] = layer.stats.weightTensor(values);
        }
        doneCost += layer.cost;
        record.seconds = seconds(layerStarted);
        report.layers.push_back(record);
    }
    report.seconds = seconds(started);
    return report;
}

std::string describe(const AdaRoundReport &report) {
    std::ostringstream out;
    out.setf(std::ios::fixed);
    out.precision(1);
    out << "AdaRound: " << report.layers.size() << " layer"
        << (report.layers.size() == 1 ? "" : "s") << " in " << report.seconds << " s (pass over "
        << report.samples << " samples " << report.passSeconds << " s, "
        << report.options.iterations << " steps per layer)";
    std::vector<double> before, after;  // the weights' own error on held-apart columns
    size_t kept = 0;
    for (const RoundedLayer &l : report.layers) {
        kept += l.keptNearest;
        if (l.heldApartColumns > 0)
            before.push_back(l.heldApartSqnrNearest), after.push_back(l.heldApartSqnrAdaptive);
    }
    if (!before.empty()) {
        auto median = [](std::vector<double> v) {
            std::sort(v.begin(), v.end());
            return v[v.size() / 2];
        };
        out << "; the weights' rounding alone, median over layers on held-apart samples: "
            << median(before) << " -> " << median(after) << " dB";
    }
    if (kept) out << "; " << kept << " kept nearest rounding";
    if (!report.skipped.empty()) out << "; " << report.skipped.size() << " left as they are";
    return out.str();
}

}  // namespace ql::quant
