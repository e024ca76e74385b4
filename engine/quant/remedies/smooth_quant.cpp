#include "quant/remedies/smooth_quant.h"

#include <algorithm>
#include <cmath>
#include <memory>
#include <sstream>

#include "runtime/execution_plan.h"

namespace ql::quant {
namespace {

// A weighted layer that reads the activation as input 0, with its weight's input rows.
struct Layer {
    size_t node = 0;
    int64_t channels = 0;
    bool channelsFirst = false;  // Conv: the activation's channel axis is 1, else the last
};

// The layer form of `node`, or the reason it has none.
std::string asLayer(const Graph &graph, size_t index, Layer *layer) {
    const Node &node = graph.nodes[index];
    const Tensor *w = node.hasInput(1) ? graph.initializer(node.inputs[1]) : nullptr;
    if (!w) return "its weight is not a constant";
    if (w->dtype() != DataType::Float) return "its weight is not float";
    layer->node = index;
    if (node.opType == "MatMul" && w->rank() == 2) {
        layer->channels = w->dim(0);
        return "";
    }
    if (node.opType == "Gemm" && w->rank() == 2 && node.attrInt("transA", 0) == 0) {
        layer->channels = node.attrInt("transB", 0) ? w->dim(1) : w->dim(0);
        return "";
    }
    if (node.opType == "Conv" && w->rank() >= 3 && node.attrInt("group", 1) == 1) {
        layer->channels = w->dim(1);
        layer->channelsFirst = true;
        return "";
    }
    return "not a MatMul with a 2-D weight, a Gemm without transA or an ungrouped Conv";
}

bool isLayerOp(const Node &node) {
    return node.domain.empty() &&
           (node.opType == "MatMul" || node.opType == "Gemm" || node.opType == "Conv");
}

// Calls f(flat index) for every element of input row `j` of the layer's weight.
template <class F>
void forInputRow(const Node &node, const Tensor &w, int64_t j, F &&f) {
    if (node.opType == "Conv") {
        const int64_t out = w.dim(0), in = w.dim(1), kernel = w.numel() / (out * in);
        for (int64_t o = 0; o < out; ++o)
            for (int64_t k = 0; k < kernel; ++k) f((o * in + j) * kernel + k);
    } else if (node.opType == "Gemm" && node.attrInt("transB", 0)) {  // B [N, K]
        for (int64_t n = 0; n < w.dim(0); ++n) f(n * w.dim(1) + j);
    } else {  // [K, N]
        for (int64_t n = 0; n < w.dim(1); ++n) f(j * w.dim(1) + n);
    }
}

// Largest over the channels / median of the positive ones; 1 when none is positive.
double spread(const std::vector<double> &ranges) {
    std::vector<double> positive;
    for (double r : ranges)
        if (r > 0 && std::isfinite(r)) positive.push_back(r);
    if (positive.empty()) return 1.0;
    std::sort(positive.begin(), positive.end());
    const size_t n = positive.size();
    const double median = n % 2 ? positive[n / 2] : 0.5 * (positive[n / 2 - 1] + positive[n / 2]);
    return positive.back() / median;
}

// The activations to smooth: each with the layers that read it, in graph order.
struct Activation {
    std::string value;
    std::vector<Layer> layers;
    std::vector<double> maxima;  // max|X_j| over the data
    int64_t rank = 0;            // of the activation, as seen
    std::string problem;         // why it cannot be smoothed, found while collecting
};

std::string uniqueName(const Graph &graph, const std::string &base) {
    auto taken = [&](const std::string &n) {
        if (graph.isInitializer(n) || graph.producerIndex(n) >= 0 || graph.findNode(n)) return true;
        for (const ValueInfo &in : graph.inputs)
            if (in.name == n) return true;
        return false;
    };
    std::string name = base;
    for (int k = 1; taken(name); ++k) name = base + "_" + std::to_string(k);
    return name;
}

// Input `k` of node `index` as a writable copy (a new initializer when others read it too).
Tensor &writableInput(Graph &graph, size_t index, size_t k) {
    Node &node = graph.nodes[index];
    const std::string &name = node.inputs[k];
    Tensor copy = graph.initializers.at(name).toPlain().clone();
    if (graph.useCount(name) > 1) {
        node.inputs[k] = uniqueName(graph, name + "_smoothed");
        return graph.initializers[node.inputs[k]] = std::move(copy);
    }
    return graph.initializers[name] = std::move(copy);
}

// Whether `t` holds one value per channel of a rank-`rank` activation along its channel axis
// (the last, or axis 1 when channelsFirst) in a form that broadcasts there.
bool perChannel(const Tensor &t, int64_t channels, int64_t rank, bool channelsFirst) {
    if (t.dtype() != DataType::Float || t.numel() != channels) return false;
    const int64_t fromEnd = channelsFirst ? rank - 1 : 1;  // the channel axis, counted from the end
    if (t.rank() < fromEnd) return false;
    for (int64_t a = 0; a < t.rank(); ++a)
        if (a != t.rank() - fromEnd && t.dim(static_cast<int>(a)) != 1) return false;
    return true;
}

void divideChannels(Tensor &t, const std::vector<double> &scales) {
    float *v = t.data<float>();
    for (size_t j = 0; j < scales.size(); ++j) v[j] = float(v[j] / scales[j]);
}

// Divides the activation's channels by `scales` inside its producer when that is exact: the
// activation feeds only the smoothed layers and its producer ends in a per-channel affine step.
// Returns what took the division, or "" (the caller inserts a Mul).
std::string foldIntoProducer(Graph &graph, const Activation &a, const std::vector<double> &scales) {
    const std::string &x = a.value;
    if (graph.isGraphOutput(x) || graph.useCount(x) != static_cast<int>(a.layers.size())) return "";
    const int p = graph.producerIndex(x);
    if (p < 0) return "";
    const Node &producer = graph.nodes[static_cast<size_t>(p)];
    const int64_t c = static_cast<int64_t>(scales.size());
    const bool first = a.layers.front().channelsFirst;
    auto fits = [&](const Node &n, size_t k) {
        const Tensor *t = n.hasInput(k) ? graph.initializer(n.inputs[k]) : nullptr;
        return t && perChannel(*t, c, a.rank, first);
    };
    if (!producer.domain.empty()) return "";
    if (producer.opType == "LayerNormalization" && !first) {
        const int64_t axis = producer.attrInt("axis", -1);
        if (axis != -1 && axis != a.rank - 1) return "";
        if (!fits(producer, 1) || (producer.hasInput(2) && !fits(producer, 2))) return "";
        divideChannels(writableInput(graph, p, 1), scales);
        if (producer.hasInput(2)) divideChannels(writableInput(graph, p, 2), scales);
        return producer.describe();
    }
    if (producer.opType == "BatchNormalization" && first) {
        if (!fits(producer, 1) || !fits(producer, 2)) return "";
        divideChannels(writableInput(graph, p, 1), scales);
        divideChannels(writableInput(graph, p, 2), scales);
        return producer.describe();
    }
    // x = y · γ, or x = y · γ + β with y read only by the Add (a LayerNorm's tail).
    auto constantInput = [&](const Node &n) -> int {
        if (n.inputs.size() != 2) return -1;
        for (int k = 0; k < 2; ++k)
            if (fits(n, static_cast<size_t>(k))) return k;
        return -1;
    };
    if (producer.opType == "Mul") {
        const int k = constantInput(producer);
        if (k < 0) return "";
        divideChannels(writableInput(graph, p, static_cast<size_t>(k)), scales);
        return producer.describe();
    }
    if (producer.opType != "Add") return "";
    const int beta = constantInput(producer);
    if (beta < 0) return "";
    const std::string &y = producer.inputs[1 - beta];
    const int m = graph.producerIndex(y);
    if (m < 0 || graph.useCount(y) != 1 || graph.isGraphOutput(y)) return "";
    const Node &mul = graph.nodes[static_cast<size_t>(m)];
    const int gamma = mul.opType == "Mul" && mul.domain.empty() ? constantInput(mul) : -1;
    if (gamma < 0) return "";
    divideChannels(writableInput(graph, p, static_cast<size_t>(beta)), scales);
    divideChannels(writableInput(graph, static_cast<size_t>(m), static_cast<size_t>(gamma)),
                   scales);
    return mul.describe() + " and " + producer.describe();
}

// Adds max|x_j| of `value` along the channel axis into `maxima`.
Status accumulateMaxima(const Tensor &value, bool channelsFirst, std::vector<double> &maxima,
                        int64_t &rank, const std::string &name) {
    if (value.dtype() != DataType::Float || value.rank() < (channelsFirst ? 2 : 1))
        return Status::badInput("smoothquant: activation '" + name +
                                "' is not a float tensor with a channel axis");
    const Tensor plain = value.toPlain();
    const int axis = channelsFirst ? 1 : static_cast<int>(plain.rank() - 1);
    const int64_t c = plain.dim(axis);
    if (static_cast<int64_t>(maxima.size()) != c)
        return Status::badInput("smoothquant: activation '" + name + "' has " + std::to_string(c) +
                                " channels, its layers' weights " + std::to_string(maxima.size()) +
                                " input rows");
    rank = plain.rank();
    int64_t inner = 1;
    for (int64_t a = axis + 1; a < plain.rank(); ++a) inner *= plain.dim(static_cast<int>(a));
    const int64_t outer = c > 0 && inner > 0 ? plain.numel() / (c * inner) : 0;
    const float *v = plain.data<float>();
    for (int64_t o = 0; o < outer; ++o)
        for (int64_t j = 0; j < c; ++j) {
            double &m = maxima[static_cast<size_t>(j)];
            const float *row = v + (o * c + j) * inner;
            for (int64_t i = 0; i < inner; ++i) m = std::max(m, double(std::fabs(row[i])));
        }
    return Status::ok();
}

// One float pass: the per-channel maxima of every activation in `acts`.
Status measureMaxima(const Graph &graph, const BatchSourceOpener &data,
                     std::vector<Activation> &acts, const SmoothQuantOptions &options,
                     int64_t &samples) {
    std::map<std::string, Activation *> byValue;
    std::set<std::string> produced;
    for (Activation &a : acts) {
        byValue[a.value] = &a;
        if (graph.producerIndex(a.value) >= 0) produced.insert(a.value);
    }
    PlanOptions planOptions;
    planOptions.threads = options.threads;
    auto plan = ExecutionPlan::create(graph, planOptions);
    if (!plan) return plan.status();
    auto source = data();
    if (!source) return source.status();
    Status tapped = Status::ok();
    auto add = [&](const std::string &value, const Tensor &t) {
        Activation &a = *byValue.at(value);
        if (tapped)
            tapped = accumulateMaxima(t, a.layers.front().channelsFirst, a.maxima, a.rank, value);
    };
    RunOptions run;
    run.tapFilter = tapNodesProducing(produced);
    run.tap = [&](const Node &node, size_t index, const Tensor &value) {
        if (index < node.outputs.size() && byValue.count(node.outputs[index]))
            add(node.outputs[index], value);
    };
    std::map<std::string, Tensor> batch;
    std::vector<Tensor> outputs;
    for (int number = 1;; ++number) {
        batch.clear();
        Result<bool> more = (*source)(batch);
        if (!more) return more.status();
        if (!*more) break;
        for (const auto &[name, tensor] : batch)
            if (byValue.count(name)) add(name, tensor);
        const std::string where = "smoothquant statistics, batch " + std::to_string(number);
        QL_RETURN_IF_ERROR(plan.value()->run(batch, outputs, run).withContext(where));
        QL_RETURN_IF_ERROR(tapped.withContext(where));
        if (!batch.empty() && batch.begin()->second.rank() > 0)
            samples += batch.begin()->second.dim(0);
        if (options.progress && !options.progress(number, 0))
            return Status::error(ErrorKind::Cancelled, "smoothquant cancelled after " +
                                                           std::to_string(number) + " batches");
    }
    return Status::ok();
}

std::string joined(const std::vector<std::string> &names) {
    std::string s;
    for (const std::string &n : names) s += (s.empty() ? "'" : ", '") + n + "'";
    return s;
}

}  // namespace

Result<SmoothQuantReport> smoothQuant(Graph &graph, const BatchSourceOpener &data,
                                      const SmoothQuantOptions &options) {
    SmoothQuantReport report;
    for (const std::string &name : options.layers)
        if (!graph.findNode(name))
            return Status::badInput("smoothquant: no node '" + name + "' in the model");
    for (const auto &[name, alpha] : options.layerAlpha)
        if (!graph.findNode(name))
            return Status::badInput("smoothquant: no node '" + name + "' in the model");
    if (!(options.alpha >= 0.0 && options.alpha <= 1.0))
        return Status::badInput("smoothquant: alpha must be in [0, 1], got " +
                                std::to_string(options.alpha));

    // The activations read by weighted layers, each with its layers.
    std::vector<Activation> acts;
    std::map<std::string, size_t> actOf;
    for (size_t i = 0; i < graph.nodes.size(); ++i) {
        const Node &node = graph.nodes[i];
        if (!isLayerOp(node) || !node.hasInput(0)) continue;
        if (!options.layers.empty() && !options.layers.count(node.name)) continue;
        Layer layer;
        const std::string why = asLayer(graph, i, &layer);
        if (!why.empty()) {
            if (options.layers.count(node.name))
                report.skipped.push_back({node.inputs[0], {node.name}, why});
            continue;
        }
        auto [it, added] = actOf.emplace(node.inputs[0], acts.size());
        if (added) acts.push_back({node.inputs[0], {}, {}, 0, ""});
        Activation &a = acts[it->second];
        if (!a.layers.empty() && (a.layers.front().channels != layer.channels ||
                                  a.layers.front().channelsFirst != layer.channelsFirst))
            a.problem = "its layers disagree on its channel axis or count";
        a.layers.push_back(layer);
    }
    for (Activation &a : acts) a.maxima.assign(static_cast<size_t>(a.layers.front().channels), 0);
    std::vector<Activation> measurable;
    for (Activation &a : acts) {
        std::vector<std::string> names;
        for (const Layer &l : a.layers) names.push_back(graph.nodes[l.node].name);
        if (a.problem.empty())
            measurable.push_back(std::move(a));
        else
            report.skipped.push_back({a.value, names, a.problem});
    }
    acts = std::move(measurable);
    if (acts.empty()) return report;
    QL_RETURN_IF_ERROR(
        measureMaxima(graph, data, acts, options, report.samples).withContext(graph.sourcePath));

    struct Insertion {
        size_t before;
        Node node;
    };
    std::vector<Insertion> insertions;
    for (Activation &a : acts) {
        std::vector<std::string> names;
        double alpha = options.alpha;
        bool named = !options.layers.empty();
        for (const Layer &l : a.layers) {
            const std::string &n = graph.nodes[l.node].name;
            names.push_back(n);
            if (auto it = options.layerAlpha.find(n); it != options.layerAlpha.end())
                alpha = it->second, named = true;
        }
        if (!(alpha >= 0.0 && alpha <= 1.0))
            return Status::badInput("smoothquant: alpha of " + joined(names) +
                                    " must be in [0, 1], got " + std::to_string(alpha));
        const size_t c = a.maxima.size();
        std::vector<double> weightRows(c, 0.0);
        for (const Layer &l : a.layers) {
            const Node &node = graph.nodes[l.node];
            const Tensor w = graph.initializer(node.inputs[1])->toPlain();
            const float *v = w.data<float>();
            for (size_t j = 0; j < c; ++j)
                forInputRow(node, w, static_cast<int64_t>(j), [&](int64_t i) {
                    weightRows[j] = std::max(weightRows[j], double(std::fabs(v[i])));
                });
        }
        const double activationSpread = spread(a.maxima);
        if (!named && activationSpread < options.minOutlierRatio) {
            std::ostringstream why;
            why.precision(3);
            why << "no outlier channels: the largest channel maximum is " << activationSpread
                << "x the median (smoothed from " << options.minOutlierRatio << "x)";
            report.skipped.push_back({a.value, names, why.str()});
            continue;
        }
        SmoothedActivation s;
        s.value = a.value;
        s.layers = names;
        s.alpha = alpha;
        s.scales.assign(c, 1.0);
        std::vector<double> activationAfter(c), weightAfter(c);
        for (size_t j = 0; j < c; ++j) {
            const double m = a.maxima[j], w = weightRows[j];
            if (m > 0 && w > 0 && std::isfinite(m) && std::isfinite(w)) {
                const double scale =
                    std::pow(std::max(m, 1e-5), alpha) / std::pow(std::max(w, 1e-5), 1.0 - alpha);
                if (std::isfinite(scale) && scale > 0) s.scales[j] = scale;
            }
            activationAfter[j] = m / s.scales[j];
            weightAfter[j] = w * s.scales[j];
        }
        s.activationSpreadBefore = activationSpread;
        s.activationSpreadAfter = spread(activationAfter);
        s.weightSpreadBefore = spread(weightRows);
        s.weightSpreadAfter = spread(weightAfter);

        for (const Layer &l : a.layers) {
            Tensor &w = writableInput(graph, l.node, 1);
            float *v = w.data<float>();
            for (size_t j = 0; j < c; ++j)
                forInputRow(graph.nodes[l.node], w, static_cast<int64_t>(j),
                            [&](int64_t i) { v[i] = float(v[i] * s.scales[j]); });
        }
        s.foldedInto = foldIntoProducer(graph, a, s.scales);
        if (s.foldedInto.empty()) {
            // Mul by 1/s on a new value that only the smoothed layers read.
            Node mul;
            mul.name = uniqueName(graph, a.value + "_smooth");
            mul.opType = "Mul";
            const std::string scaleName = uniqueName(graph, a.value + "_smooth_scale");
            Shape shape{static_cast<int64_t>(c)};
            if (a.layers.front().channelsFirst) shape.resize(std::max<int64_t>(1, a.rank - 1), 1);
            std::vector<float> inverse(c);
            for (size_t j = 0; j < c; ++j) inverse[j] = float(1.0 / s.scales[j]);
            graph.initializers[scaleName] = Tensor::fromVector<float>(shape, inverse);
            mul.inputs = {a.value, scaleName};
            mul.outputs = {uniqueName(graph, a.value + "_smoothed")};
            if (auto info = graph.valueInfo.find(a.value); info != graph.valueInfo.end()) {
                ValueInfo copy = info->second;
                copy.name = mul.outputs[0];
                graph.valueInfo[copy.name] = copy;
            }
            size_t first = graph.nodes.size();
            for (const Layer &l : a.layers) {
                graph.nodes[l.node].inputs[0] = mul.outputs[0];
                first = std::min(first, l.node);
            }
            s.foldedInto = "inserted Mul '" + mul.name + "'";
            insertions.push_back({first, std::move(mul)});
        }
        report.smoothed.push_back(std::move(s));
    }
    // Last position first, so the earlier positions stay valid.
    std::stable_sort(insertions.begin(), insertions.end(),
                     [](const Insertion &x, const Insertion &y) { return x.before > y.before; });
    for (Insertion &in : insertions)
        graph.nodes.insert(graph.nodes.begin() + static_cast<std::ptrdiff_t>(in.before),
                           std::move(in.node));
    return report;
}

std::string describe(const SmoothQuantReport &report) {
    std::ostringstream s;
    s.precision(3);
    s << "smoothquant: " << report.smoothed.size() << " activation"
      << (report.smoothed.size() == 1 ? "" : "s") << " smoothed, statistics of " << report.samples
      << " samples";
    double before = 1, after = 1;
    for (const SmoothedActivation &a : report.smoothed)
        before = std::max(before, a.activationSpreadBefore),
        after = std::max(after, a.activationSpreadAfter);
    if (!report.smoothed.empty())
        s << "; largest activation channel spread " << before << "x -> " << after << "x";
    if (!report.skipped.empty()) s << "; " << report.skipped.size() << " left as they are";
    return s.str();
}

}  // namespace ql::quant
