#include "analysis/explain/layer_inspection.h"

#include <algorithm>
#include <cmath>
#include <random>
#include <unordered_set>

#include "analysis/pairing/layer_weights.h"

namespace ql::analysis {
namespace {

void accumulate(const float *v, int64_t n, double lo, double width, std::vector<int64_t> &counts,
                int64_t &skipped) {
    const int64_t bins = static_cast<int64_t>(counts.size());
    for (int64_t i = 0; i < n; ++i) {
        if (!std::isfinite(v[i])) {
            ++skipped;
            continue;
        }
        int64_t b = width > 0.0 ? static_cast<int64_t>((v[i] - lo) / width) : 0;
        counts[static_cast<size_t>(std::clamp<int64_t>(b, 0, bins - 1))]++;
    }
}

// Parameters of a DequantizeLinear / QuantizeLinear node (scale input 1, zero point input 2).
std::optional<QuantParamSet> qdqParams(const Graph &g, const Node &node, const std::string &role,
                                       const std::string &value) {
    const Tensor *s = node.hasInput(1) ? constantBehind(g, node.inputs[1]) : nullptr;
    if (!s) return std::nullopt;
    const Tensor *zp = node.hasInput(2) ? constantBehind(g, node.inputs[2]) : nullptr;
    QuantParamSet p;
    p.role = role;
    p.value = value;
    p.scale = s->toFloatVector();
    if (zp) {
        p.type = zp->dtype();
        for (int64_t v : zp->toInt64Vector()) p.zeroPoint.push_back(static_cast<int32_t>(v));
    }
    if (p.zeroPoint.size() != p.scale.size())
        p.zeroPoint.assign(p.scale.size(), p.zeroPoint.empty() ? 0 : p.zeroPoint[0]);
    if (node.opType == "QuantizeLinear" && node.outputs.size() && !zp) p.type = DataType::UInt8;
    if (node.opType == "DequantizeLinear" && node.hasInput(0))
        if (const Tensor *q = constantBehind(g, node.inputs[0])) p.type = q->dtype();
    p.axis = p.scale.size() > 1 ? node.attrInt("axis", 1) : -1;
    return p;
}

// (scale input, zero point input) of a QOperator tensor: role, value input.
std::optional<QuantParamSet> operatorParams(const Graph &g, const Node &node, size_t value,
                                            size_t scale, size_t zp, const std::string &role,
                                            int64_t axis, DataType fallbackType) {
    const Tensor *s = node.hasInput(scale) ? constantBehind(g, node.inputs[scale]) : nullptr;
    if (!s) return std::nullopt;
    QuantParamSet p;
    p.role = role;
    p.value = node.hasInput(value) ? node.inputs[value] : "";
    p.scale = s->toFloatVector();
    const Tensor *z = node.hasInput(zp) ? constantBehind(g, node.inputs[zp]) : nullptr;
    p.type = z ? z->dtype() : fallbackType;
    if (const Tensor *t = node.hasInput(value) ? constantBehind(g, node.inputs[value]) : nullptr)
        p.type = t->dtype();
    if (z)
        for (int64_t v : z->toInt64Vector()) p.zeroPoint.push_back(static_cast<int32_t>(v));
    if (p.zeroPoint.size() != p.scale.size())
        p.zeroPoint.assign(p.scale.size(), p.zeroPoint.empty() ? 0 : p.zeroPoint[0]);
    p.axis = p.scale.size() > 1 ? axis : -1;
    return p;
}

// The output parameters of a QOperator node; its type is the output tensor's (as it ran) or
// the zero point's.
std::optional<QuantParamSet> outputParams(const LayerCapture &c, const Node &node, size_t scale,
                                          size_t zp, DataType fallbackType) {
    const size_t none = node.inputs.size() + 1;  // no value input: the output is not an input
    auto p = operatorParams(c.quantRun, node, none, scale, zp, "output", -1, fallbackType);
    if (!p) return p;
    p->value = node.outputs.empty() ? "" : node.outputs[0];
    auto it = c.quantValues.find(p->value);
    if (it != c.quantValues.end()) p->type = it->second.dtype();
    return p;
}

}  // namespace

HistogramPair histogramPair(const float *a, int64_t na, const float *b, int64_t nb, int bins) {
    HistogramPair h;
    bins = std::max(bins, 1);
    double lo = INFINITY, hi = -INFINITY;
    for (const auto &[v, n] : {std::make_pair(a, na), std::make_pair(b, nb)})
        for (int64_t i = 0; i < n; ++i)
            if (std::isfinite(v[i])) {
                lo = std::min(lo, static_cast<double>(v[i]));
                hi = std::max(hi, static_cast<double>(v[i]));
            }
    if (!(lo <= hi)) lo = hi = 0.0;
    if (hi == lo) {  // one value: a bin of unit width around it
        lo -= 0.5;
        hi += 0.5;
    }
    h.lo = lo;
    h.hi = hi;
    h.floatCounts.assign(static_cast<size_t>(bins), 0);
    h.quantCounts.assign(static_cast<size_t>(bins), 0);
    const double width = (hi - lo) / bins;
    accumulate(a, na, lo, width, h.floatCounts, h.skipped);
    accumulate(b, nb, lo, width, h.quantCounts, h.skipped);
    return h;
}

std::vector<int64_t> subsampleIndices(int64_t n, int64_t maxPoints, uint64_t seed) {
    std::vector<int64_t> out;
    if (n <= 0 || maxPoints <= 0) return out;
    if (n <= maxPoints) {
        out.resize(static_cast<size_t>(n));
        for (int64_t i = 0; i < n; ++i) out[i] = i;
        return out;
    }
    // Floyd's algorithm: maxPoints distinct indices, uniform, with a fixed seed.
    std::mt19937_64 rng(seed);
    std::unordered_set<int64_t> chosen;
    chosen.reserve(static_cast<size_t>(maxPoints) * 2);
    for (int64_t j = n - maxPoints; j < n; ++j) {
        const int64_t t = std::uniform_int_distribution<int64_t>(0, j)(rng);
        chosen.insert(chosen.count(t) ? j : t);
    }
    out.assign(chosen.begin(), chosen.end());
    std::sort(out.begin(), out.end());
    return out;
}

std::vector<QuantParamSet> layerQuantParams(const LayerCapture &c) {
    std::vector<QuantParamSet> out;
    if (c.quantRunNode < 0) return out;
    const Graph &g = c.quantRun;
    const Node &node = g.nodes[static_cast<size_t>(c.quantRunNode)];
    auto push = [&](std::optional<QuantParamSet> p) {
        if (p) out.push_back(std::move(*p));
    };
    auto bias = [&](size_t input, const std::vector<float> &xs, const std::vector<float> &ws) {
        const Tensor *b = node.hasInput(input) ? constantBehind(g, node.inputs[input]) : nullptr;
        if (!b || xs.empty() || ws.empty()) return;
        QuantParamSet p;
        p.role = "bias";
        p.value = node.inputs[input];
        p.type = b->dtype();
        p.values = b->toInt64Vector();
        // The int32 bias is at scale x_scale·w_scale[c] with zero point 0.
        const size_t channels = std::max(ws.size(), p.values.size());
        for (size_t i = 0; i < channels; ++i) p.scale.push_back(xs[0] * ws[ws.size() == 1 ? 0 : i]);
        if (p.scale.size() == 1 && p.values.size() > 1) p.scale.assign(p.values.size(), p.scale[0]);
        p.zeroPoint.assign(p.scale.size(), 0);
        p.axis = p.scale.size() > 1 ? 0 : -1;
        out.push_back(std::move(p));
    };
    const std::string &op = node.opType;
    const DataType inType = [&] {
        auto it = c.quantValues.find(node.inputs.empty() ? "" : node.inputs[0]);
        return it == c.quantValues.end() ? DataType::UInt8 : it->second.dtype();
    }();
    if (op == "QLinearConv" || op == "QLinearMatMul" || op == "QGemm") {
        const bool gemm = op == "QGemm";
        const int64_t wAxis =
            op == "QLinearConv" ? 0 : (gemm ? (node.attrInt("transB", 0) ? 0 : 1) : 1);
        push(operatorParams(g, node, 0, 1, 2, "input", -1, inType));
        push(operatorParams(g, node, 3, 4, 5, "weight", wAxis, DataType::Int8));
        const auto xs = out.empty() ? std::vector<float>{} : out[0].scale;
        const auto ws = out.size() < 2 ? std::vector<float>{} : out[1].scale;
        bias(op == "QLinearConv" ? 8 : 6, xs, ws);
        const size_t ys = gemm ? 7 : 6;
        push(outputParams(c, node, ys, ys + 1, inType));
        return out;
    }
    if (op == "QLinearAdd" || op == "QLinearMul") {
        push(operatorParams(g, node, 0, 1, 2, "input A", -1, inType));
        push(operatorParams(g, node, 3, 4, 5, "input B", -1, inType));
        push(outputParams(c, node, 6, 7, inType));
        return out;
    }
    // DQ -> op -> Q: the DequantizeLinear of each input, the QuantizeLinear after the layer.
    int index = 0;
    for (const auto &in : node.inputs) {
        if (in.empty()) continue;
        const int p = g.producerIndex(in);
        if (p < 0 || g.nodes[p].opType != "DequantizeLinear") continue;
        const Node &dq = g.nodes[p];
        const bool constant = dq.hasInput(0) && constantBehind(g, dq.inputs[0]);
        push(qdqParams(
            g, dq,
            constant ? "weight" : (index++ == 0 ? "input" : "input " + std::to_string(index)),
            dq.inputs[0]));
    }
    if (c.target.scale.empty()) {
        // An 8-bit op (MaxPool on the quantized tensor) keeps its input's parameters.
        return out;
    }
    QuantParamSet y;
    y.role = "output";
    y.value =
        c.target.quantizedNames.empty() ? c.target.floatName : c.target.quantizedNames.front();
    y.type = c.target.quantType;
    y.scale = c.target.scale;
    y.zeroPoint = c.target.zeroPoint;
    y.axis = y.scale.size() > 1 ? c.target.axis : -1;
    out.push_back(std::move(y));
    return out;
}

Result<LayerInspection> inspectLayer(const Graph &floatGraph, const Graph &quantGraph,
                                     const LayerMatch &match,
                                     const std::map<std::string, Tensor> &batch,
                                     const LayerInspectionOptions &options) {
    auto capture = captureLayer(floatGraph, quantGraph, match, batch, options.capture);
    if (!capture) return capture.status();
    return inspectCapture(*capture, options);
}

Result<LayerInspection> inspectCapture(const LayerCapture &c,
                                       const LayerInspectionOptions &options) {
    const LayerMatch &match = c.match;
    LayerInspection r;
    r.match = match;
    if (const Node *f = c.floatFolded.findNode(match.floatNode)) r.floatOp = f->opType;
    if (c.quantRunNode >= 0)
        r.quantRunOp = c.quantRun.nodes[static_cast<size_t>(c.quantRunNode)].opType;
    r.quantRunReason = c.quantRunReason;
    r.outputShape = c.floatOutput.shape();
    r.qparams = layerQuantParams(c);

    auto weights = findLayerWeights(c.floatFolded, c.quantFolded, match);
    if (!weights) return weights.status();
    if (weights->weights) {
        const LayerWeights &w = *weights->weights;
        const Tensor fw = w.floatWeight.toPlain(), qw = w.dequantWeight.toPlain();
        r.weightHistogram = histogramPair(fw.data<float>(), fw.numel(), qw.data<float>(),
                                          qw.numel(), options.histogramBins);
        r.weightChannelAxis = w.channelAxis;
        r.batchNormFolded = w.batchNormFolded;
    } else if (!weights->note.empty() && weights->note != "no constant weight") {
        r.notes.push_back("weight: " + weights->note);
    }

    const float *x = c.floatOutput.data<float>(), *y = c.quantOutput.data<float>();
    const int64_t n = c.floatOutput.numel();
    r.activationHistogram = histogramPair(x, n, y, n, options.histogramBins);
    r.scatter.population = n;
    r.scatter.indices = subsampleIndices(n, options.maxScatterPoints, options.scatterSeed);
    for (int64_t i : r.scatter.indices) {
        r.scatter.floatValues.push_back(x[i]);
        r.scatter.quantValues.push_back(y[i]);
    }
    if (options.explain) {
        auto e = explainElement(c, options.element);
        if (e)
            r.explanation = std::move(*e);
        else
            r.notes.push_back("explanation: " + e.status().message());
    }
    return r;
}

}  // namespace ql::analysis
