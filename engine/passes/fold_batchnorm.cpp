#include "passes/fold_batchnorm.h"

#include <cmath>
#include <set>

namespace ql {

namespace {

// Float constant of exactly `count` elements, as doubles; empty when it is not one.
std::vector<double> constantVector(const Graph &graph, const std::string &value, int64_t count) {
    const Tensor *t = graph.initializer(value);
    if (!t || t->dtype() != DataType::Float || t->numel() != count) return {};
    const Tensor plain = t->toPlain();
    const float *p = plain.data<float>();
    return std::vector<double>(p, p + count);
}

// Chooses the name the folded tensor is stored under: the same one when `node` is the only
// user of the initializer, a fresh one otherwise (the original stays for the other users).
std::string writableName(const Graph &graph, const std::string &value, const std::string &suffix) {
    if (graph.useCount(value) <= 1) return value;
    std::string name = value + suffix;
    for (int k = 1; graph.isInitializer(name); ++k) name = value + suffix + "_" + std::to_string(k);
    return name;
}

struct BnParams {
    std::vector<double> scale;  // gamma / sqrt(var + eps)
    std::vector<double> shift;  // beta - mean * scale
};

// Why the BN cannot be folded into `producer`, or "" when it can. Fills `params` on success.
std::string checkFoldable(const Graph &graph, const Node &bn, const Node &producer,
                          int64_t channels, BnParams *params) {
    if (bn.inputs.size() < 5) return "BatchNormalization has fewer than 5 inputs";
    for (size_t o = 1; o < bn.outputs.size(); ++o)
        if (!bn.outputs[o].empty()) return "BatchNormalization has training-mode outputs";
    if (bn.attrInt("training_mode", 0) != 0) return "BatchNormalization is in training mode";
    if (graph.opsetVersion < 9 && bn.attrInt("spatial", 1) == 0)
        return "non-spatial BatchNormalization";
    if (graph.useCount(producer.outputs[0]) != 1)
        return "the " + producer.opType + " output has other consumers or is a graph output";
    if (channels <= 0) return "the " + producer.opType + " weight is not a float constant";
    const auto gamma = constantVector(graph, bn.inputs[1], channels);
    const auto beta = constantVector(graph, bn.inputs[2], channels);
    const auto mean = constantVector(graph, bn.inputs[3], channels);
    const auto var = constantVector(graph, bn.inputs[4], channels);
    if (gamma.empty() || beta.empty() || mean.empty() || var.empty())
        return "scale, bias, mean and variance are not float constants of " +
               std::to_string(channels) + " channels";
    const double eps = bn.attrFloat("epsilon", 1e-5f);
    params->scale.resize(channels);
    params->shift.resize(channels);
    for (int64_t c = 0; c < channels; ++c) {
        params->scale[c] = gamma[c] / std::sqrt(var[c] + eps);
        params->shift[c] = beta[c] - mean[c] * params->scale[c];
    }
    return "";
}

// Output channels of the producer and, per weight element, which output channel it feeds.
struct WeightLayout {
    int64_t channels = -1;
    std::vector<int64_t> channelOf;  // per weight element (plain order)
};

WeightLayout weightLayout(const Graph &graph, const Node &producer) {
    WeightLayout layout;
    const Tensor *w = producer.hasInput(1) ? graph.initializer(producer.inputs[1]) : nullptr;
    if (!w || w->dtype() != DataType::Float || w->rank() < 2) return layout;
    const Shape &s = w->shape();
    const int64_t n = w->numel();
    layout.channelOf.resize(n);
    if (producer.opType == "Conv") {  // W [M, C/g, k...]
        layout.channels = s[0];
        const int64_t inner = n / s[0];
        for (int64_t i = 0; i < n; ++i) layout.channelOf[i] = i / inner;
    } else if (producer.opType == "ConvTranspose") {  // W [C, M/g, k...], output channel g*M/g + j
        const int64_t group = producer.attrInt("group", 1);
        if (group <= 0 || s[0] % group != 0) return {};
        const int64_t perGroupOut = s[1], perGroupIn = s[0] / group;
        const int64_t spatial = n / (s[0] * s[1]);
        layout.channels = perGroupOut * group;
        for (int64_t i = 0; i < n; ++i) {
            const int64_t c = i / (s[1] * spatial), j = (i / spatial) % s[1];
            layout.channelOf[i] = (c / perGroupIn) * perGroupOut + j;
        }
    } else if (producer.opType == "Gemm") {  // Y[:, n]: W[n, k] when transB, else W[k, n]
        if (w->rank() != 2 || producer.attrInt("transA", 0) != 0) return {};
        const bool transB = producer.attrInt("transB", 0) != 0;
        layout.channels = transB ? s[0] : s[1];
        for (int64_t i = 0; i < n; ++i) layout.channelOf[i] = transB ? i / s[1] : i % s[1];
    }
    return layout;
}

// Existing bias of the producer as per-channel doubles (zeros when absent); empty when its shape
// is not a plain per-channel vector (a Gemm C of full [M, N] shape, say).
std::vector<double> existingBias(const Graph &graph, const Node &producer, int64_t channels,
                                 bool *ok) {
    *ok = true;
    std::vector<double> bias(channels, 0.0);
    if (!producer.hasInput(2)) return bias;
    const Tensor *b = graph.initializer(producer.inputs[2]);
    if (!b || b->dtype() != DataType::Float) {
        *ok = false;
        return {};
    }
    const std::vector<float> values = b->toFloatVector();
    const bool perChannel =
        b->numel() == channels && (b->rank() == 1 || (b->rank() == 2 && b->dim(0) == 1));
    if (producer.opType == "Gemm" && b->numel() == 1) {
        std::fill(bias.begin(), bias.end(), values[0]);
    } else if (!perChannel) {
        *ok = false;
        return {};
    } else {
        for (int64_t c = 0; c < channels; ++c) bias[c] = values[c];
    }
    if (producer.opType == "Gemm") {  // beta scales C; folded into the new bias, beta becomes 1
        const double gemmBeta = producer.attrFloat("beta", 1.0f);
        for (double &v : bias) v *= gemmBeta;
    }
    return bias;
}

std::string foldOne(Graph &graph, size_t bnIndex, int producerIndex) {
    const Node bn = graph.nodes[bnIndex];
    Node &producer = graph.nodes[producerIndex];
    const WeightLayout layout = weightLayout(graph, producer);
    BnParams params;
    std::string why = checkFoldable(graph, bn, producer, layout.channels, &params);
    if (!why.empty()) return why;
    bool biasOk = true;
    std::vector<double> bias = existingBias(graph, producer, layout.channels, &biasOk);
    if (!biasOk) return "the " + producer.opType + " bias is not a per-channel float constant";

    const Tensor weight = graph.initializer(producer.inputs[1])->toPlain();
    Tensor folded(DataType::Float, weight.shape());
    const float *src = weight.data<float>();
    float *dst = folded.data<float>();
    for (int64_t i = 0; i < weight.numel(); ++i)
        dst[i] = static_cast<float>(src[i] * params.scale[layout.channelOf[i]]);
    Tensor newBias(DataType::Float, {layout.channels});
    for (int64_t c = 0; c < layout.channels; ++c)
        newBias.data<float>()[c] = static_cast<float>(bias[c] * params.scale[c] + params.shift[c]);

    const std::string weightName = writableName(graph, producer.inputs[1], "_bn_folded");
    const std::string biasName = producer.hasInput(2)
                                     ? writableName(graph, producer.inputs[2], "_bn_folded")
                                     : writableName(graph, producer.name + ".bias_bn_folded", "");
    graph.initializers[weightName] = folded;
    graph.initializers[biasName] = newBias;
    producer.inputs[1] = weightName;
    if (producer.inputs.size() < 3) producer.inputs.resize(3);
    producer.inputs[2] = biasName;
    if (producer.opType == "Gemm") {
        Attribute one;
        one.kind = Attribute::Kind::Float;
        one.f = 1.0f;
        producer.attributes["beta"] = one;
    }
    producer.outputs[0] = bn.outputs[0];
    return "";
}

}  // namespace

Status foldBatchNorms(Graph &graph, BatchNormFoldReport *report,
                      const std::set<std::string> &keepVisible) {
    BatchNormFoldReport local;
    BatchNormFoldReport &r = report ? *report : local;
    for (size_t i = 0; i < graph.nodes.size();) {
        const Node &bn = graph.nodes[i];
        if (bn.opType != "BatchNormalization" || !bn.domain.empty()) {
            ++i;
            continue;
        }
        const int producerIndex = bn.hasInput(0) ? graph.producerIndex(bn.inputs[0]) : -1;
        std::string why;
        if (producerIndex < 0) {
            why = "its input is a graph input or constant, not a Conv/ConvTranspose/Gemm output";
        } else {
            const Node &producer = graph.nodes[producerIndex];
            const bool candidate = producer.domain.empty() && (producer.opType == "Conv" ||
                                                               producer.opType == "ConvTranspose" ||
                                                               producer.opType == "Gemm");
            if (!candidate)
                why = "its input comes from " + producer.describe() +
                      ", not a Conv/ConvTranspose/Gemm";
            else if (keepVisible.count(producer.outputs[0]))
                why = "the " + producer.opType + " output must stay visible";
            else
                why = foldOne(graph, i, producerIndex);
        }
        if (!why.empty()) {
            r.kept.push_back({graph.nodes[i].name, why});
            ++i;
            continue;
        }
        const Node &producer = graph.nodes[producerIndex];
        r.folded.push_back({producer.name, producer.opType, graph.nodes[i].name});
        graph.nodes.erase(graph.nodes.begin() + static_cast<long>(i));
    }
    if (!r.folded.empty()) graph.dropUnusedInitializers();
    return Status::ok();
}

}  // namespace ql
