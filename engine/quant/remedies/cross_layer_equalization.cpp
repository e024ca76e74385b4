#include "quant/remedies/cross_layer_equalization.h"

#include <algorithm>
#include <cmath>
#include <set>
#include <sstream>

namespace ql::quant {
namespace {

// A pair found in the graph, with its weights made writable (copies the graph owns alone).
struct Pair {
    int first = -1, second = -1;  // node indices
    std::string between;
    Tensor *w1 = nullptr, *b1 = nullptr, *w2 = nullptr;
    int64_t channels = 0, secondGroups = 1;
    std::vector<double> scales;
};

// The one node reading `value` (and not as a graph output), or -1.
int soleReader(const Graph &graph, const std::string &value) {
    if (graph.useCount(value) != 1) return -1;  // counts a graph output as a reader too
    for (size_t i = 0; i < graph.nodes.size(); ++i)
        for (const std::string &input : graph.nodes[i].inputs)
            if (input == value) return static_cast<int>(i);
    return -1;
}

bool isConv(const Node &node) {
    return node.opType == "Conv" && node.domain.empty();
}

// Why `graph.nodes[first]` → `graph.nodes[second]` cannot be equalized, or "".
std::string whyNot(const Graph &graph, const Node &a, const Node &b) {
    const Tensor *w1 = a.hasInput(1) ? graph.initializer(a.inputs[1]) : nullptr;
    const Tensor *w2 = b.hasInput(1) ? graph.initializer(b.inputs[1]) : nullptr;
    if (!w1 || !w2) return "a weight is not a constant";
    if (w1->dtype() != DataType::Float || w2->dtype() != DataType::Float)
        return "a weight is not float";
    if (w1->rank() < 3 || w2->rank() < 3) return "a weight is not a convolution kernel";
    if (graph.useCount(a.inputs[1]) != 1 || graph.useCount(b.inputs[1]) != 1)
        return "a weight is shared with other nodes or is a graph output";
    if (a.hasInput(2)) {
        const Tensor *bias = graph.initializer(a.inputs[2]);
        if (!bias || bias->dtype() != DataType::Float || bias->numel() != w1->dim(0))
            return "the first layer's bias is not a float constant per channel";
        if (graph.useCount(a.inputs[2]) != 1) return "the first layer's bias is shared";
    }
    const int64_t groups = b.attrInt("group", 1);
    if (groups < 1 || w1->dim(0) != w2->dim(1) * groups || w2->dim(0) % groups != 0)
        return "the channels of the two layers do not line up";
    return "";
}

double channelSpread(const std::vector<double> &ranges) {
    double lo = INFINITY, hi = 0;
    for (double r : ranges)
        if (r > 0) lo = std::min(lo, r), hi = std::max(hi, r);
    return hi > 0 ? hi / lo : 1.0;
}

// max|W[i, ...]| per output channel i (axis 0).
std::vector<double> outputRanges(const Tensor &w) {
    const int64_t channels = w.dim(0), inner = w.numel() / channels;
    std::vector<double> r(static_cast<size_t>(channels), 0.0);
    const float *v = w.data<float>();
    for (int64_t c = 0; c < channels; ++c)
        for (int64_t i = 0; i < inner; ++i)
            r[c] = std::max(r[c], double(std::fabs(v[c * inner + i])));
    return r;
}

// Calls f(flat index) for every weight of input channel `c` of a convolution with `groups` groups.
template <class F>
void forInputChannel(const Tensor &w, int64_t groups, int64_t c, F &&f) {
    const int64_t outPerGroup = w.dim(0) / groups, inPerGroup = w.dim(1);
    const int64_t kernel = w.numel() / (w.dim(0) * inPerGroup);
    const int64_t group = c / inPerGroup, column = c % inPerGroup;
    for (int64_t o = group * outPerGroup; o < (group + 1) * outPerGroup; ++o)
        for (int64_t k = 0; k < kernel; ++k) f((o * inPerGroup + column) * kernel + k);
}

std::vector<double> inputRanges(const Tensor &w, int64_t groups) {
    std::vector<double> r(static_cast<size_t>(w.dim(1) * groups), 0.0);
    const float *v = w.data<float>();
    for (int64_t c = 0; c < static_cast<int64_t>(r.size()); ++c)
        forInputChannel(w, groups, c,
                        [&](int64_t i) { r[c] = std::max(r[c], double(std::fabs(v[i]))); });
    return r;
}

// One equalization step of `p`; returns the largest |s_i − 1|.
double equalize(Pair &p) {
    const std::vector<double> r1 = outputRanges(*p.w1), r2 = inputRanges(*p.w2, p.secondGroups);
    const int64_t inner = p.w1->numel() / p.channels;
    float *w1 = p.w1->data<float>(), *w2 = p.w2->data<float>();
    float *b1 = p.b1 ? p.b1->data<float>() : nullptr;
    double moved = 0;
    for (int64_t c = 0; c < p.channels; ++c) {
        if (!(r1[c] > 0) || !(r2[c] > 0) || !std::isfinite(r1[c]) || !std::isfinite(r2[c]))
            continue;
        const double s = std::sqrt(r1[c] / r2[c]);
        moved = std::max(moved, std::fabs(s - 1.0));
        for (int64_t i = c * inner; i < (c + 1) * inner; ++i) w1[i] = float(w1[i] / s);
        if (b1) b1[c] = float(b1[c] / s);
        forInputChannel(*p.w2, p.secondGroups, c, [&](int64_t i) { w2[i] = float(w2[i] * s); });
        p.scales[c] *= s;
    }
    return moved;
}

}  // namespace

Result<CrossLayerEqualizationReport> equalizeCrossLayer(
    Graph &graph, const CrossLayerEqualizationOptions &options) {
    CrossLayerEqualizationReport report;
    std::vector<Pair> pairs;
    for (size_t a = 0; a < graph.nodes.size(); ++a) {
        const Node &first = graph.nodes[a];
        if (!isConv(first) || first.outputs.empty()) continue;
        int next = soleReader(graph, first.outputs[0]);
        if (next < 0) continue;
        std::string between, input = first.outputs[0];
        if (!isConv(graph.nodes[next])) {  // one op between them, if a Conv follows it
            const Node &op = graph.nodes[next];
            if (op.outputs.empty() || op.inputs.empty() || op.inputs[0] != input) continue;
            next = soleReader(graph, op.outputs[0]);
            if (next < 0 || !isConv(graph.nodes[next])) continue;
            input = op.outputs[0];
            if (op.opType != "Relu" || !op.domain.empty()) {
                report.skipped.push_back(
                    {first.name, graph.nodes[next].name,
                     op.opType + " '" + op.name + "' between them" +
                         (op.opType == "Clip" ? ": its bounds do not scale per channel"
                                              : ": it does not commute with a per-channel scale")});
                continue;
            }
            between = op.opType;
        }
        const Node &second = graph.nodes[next];
        if (second.inputs[0] != input) continue;  // the value is the second's weight, not its input
        if (const std::string why = whyNot(graph, first, second); !why.empty()) {
            report.skipped.push_back({first.name, second.name, why});
            continue;
        }
        Pair p;
        p.first = static_cast<int>(a);
        p.second = next;
        p.between = between;
        p.secondGroups = second.attrInt("group", 1);
        pairs.push_back(std::move(p));
    }
    // Writable copies, one per initializer: a depthwise layer is the second of one pair and the
    // first of the next, and both pairs must change the same tensor.
    std::set<std::string> copied;
    auto writable = [&](const std::string &name) {
        Tensor &t = graph.initializers.at(name);
        if (copied.insert(name).second)
            t = t.toPlain().clone();  // the caller's model keeps its values
        return &t;
    };
    for (Pair &p : pairs) {
        const Node &first = graph.nodes[p.first], &second = graph.nodes[p.second];
        p.w1 = writable(first.inputs[1]);
        p.b1 = first.hasInput(2) ? writable(first.inputs[2]) : nullptr;
        p.w2 = writable(second.inputs[1]);
        p.channels = p.w1->dim(0);
        p.scales.assign(static_cast<size_t>(p.channels), 1.0);
    }
    std::vector<EqualizedPair> out(pairs.size());
    for (size_t i = 0; i < pairs.size(); ++i) {
        out[i].first = graph.nodes[pairs[i].first].name;
        out[i].second = graph.nodes[pairs[i].second].name;
        out[i].between = pairs[i].between;
        out[i].firstSpreadBefore = channelSpread(outputRanges(*pairs[i].w1));
        out[i].secondSpreadBefore = channelSpread(inputRanges(*pairs[i].w2, pairs[i].secondGroups));
    }
    for (int it = 0; it < options.maxIterations && !pairs.empty(); ++it) {
        double moved = 0;
        for (Pair &p : pairs) moved = std::max(moved, equalize(p));
        report.iterations = it + 1;
        if (moved <= options.tolerance) {
            report.converged = true;
            break;
        }
    }
    for (size_t i = 0; i < pairs.size(); ++i) {
        out[i].scales = pairs[i].scales;
        out[i].firstSpreadAfter = channelSpread(outputRanges(*pairs[i].w1));
        out[i].secondSpreadAfter = channelSpread(inputRanges(*pairs[i].w2, pairs[i].secondGroups));
    }
    report.pairs = std::move(out);
    return report;
}

std::string describe(const CrossLayerEqualizationReport &report) {
    std::ostringstream s;
    s << "cross-layer equalization: " << report.pairs.size() << " pair(s)";
    if (!report.pairs.empty())
        s << " in " << report.iterations << " iteration(s)"
          << (report.converged ? "" : " (not converged)");
    double before = 1, after = 1;
    for (const EqualizedPair &p : report.pairs) {
        before = std::max({before, p.firstSpreadBefore, p.secondSpreadBefore});
        after = std::max({after, p.firstSpreadAfter, p.secondSpreadAfter});
    }
    if (!report.pairs.empty()) {
        s.precision(3);
        s << "; largest channel range spread " << before << "x -> " << after << "x";
    }
    if (!report.skipped.empty()) s << "; " << report.skipped.size() << " pair(s) left as they are";
    return s.str();
}

}  // namespace ql::quant
