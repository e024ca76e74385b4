#include "quant/quantization_plan.h"

#include <algorithm>
#include <cmath>

#include "passes/fuse_gelu.h"
#include "passes/fuse_layer_norm.h"
#include "passes/qdq_graph_utils.h"
#include "quant/calibration.h"

namespace ql::quant {

namespace {

const std::set<std::string> kWeightedOps = {"Conv", "ConvTranspose", "Gemm", "MatMul"};
const std::set<std::string> kGeneralOps = {
    "Add",  "Mul",  "Concat",  "AveragePool", "GlobalAveragePool", "BatchNormalization",
    "Relu", "Clip", "Sigmoid", "LeakyRelu"};
// Ops whose int8 form is exact with the input's qparams, so the output reuses them.
const std::set<std::string> kSharingOps = {"MaxPool", "Reshape",   "Flatten", "Transpose",
                                           "Squeeze", "Unsqueeze", "Identity"};

size_t editDistance(const std::string &a, const std::string &b) {
    std::vector<size_t> row(b.size() + 1);
    for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
    for (size_t i = 1; i <= a.size(); ++i) {
        size_t diagonal = row[0];
        row[0] = i;
        for (size_t j = 1; j <= b.size(); ++j) {
            const size_t above = row[j];
            row[j] =
                std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
            diagonal = above;
        }
    }
    return row[b.size()];
}

bool isFloatValue(const Graph &graph, const std::string &value) {
    const DataType t = qdq::declaredType(graph, value);  // Undefined: assumed float
    return t == DataType::Float || t == DataType::Undefined;
}

// Clip can join a unit only with constant (or absent) bounds, which the int8 kernel needs.
bool clipHasConstantBounds(const Graph &graph, const Node &clip) {
    for (size_t i = 1; i < clip.inputs.size(); ++i)
        if (!clip.inputs[i].empty() && !graph.isInitializer(clip.inputs[i])) return false;
    return true;
}

class Planner {
public:
    Planner(const Graph &graph, const RangeLookup &ranges, const QuantizationOptions &options)
        : m_graph(graph),
          m_ranges(ranges),
          m_options(options),
          m_excluded(options.excludedNodes.begin(), options.excludedNodes.end()),
          m_sixteenBitNodes(options.int16Nodes.begin(), options.int16Nodes.end()),
          m_index(graph) {
        m_plan.options = options;
        collectSixteenBitValues();
        // LayerNorm and GELU as exporters write them before opsets 17 and 20 stay float inside:
        // each runs as one fused node, and a Q/DQ on an inner value (the variance, the erf)
        // would cost accuracy and keep it unfused.
        for (const auto &chain : decomposedLayerNorms(graph))
            for (size_t n : chain)
                m_insideFloatPattern[n] = "part of a LayerNorm (" + graph.nodes[chain.back()].describe() +
                                          " ends it): runs in float as one LayerNormalization";
        for (const auto &chain : decomposedGelus(graph))
            for (size_t n : chain)
                m_insideFloatPattern[n] = "part of a GELU (" + graph.nodes[chain.back()].describe() +
                                          " ends it): runs in float as one Gelu";
    }

    QuantizationPlan run() {
        for (size_t i = 0; i < m_graph.nodes.size(); ++i) m_plan.nodes.push_back(decide(i));
        demoteSharingOpsWithoutQuantizedConsumer();
        return std::move(m_plan);
    }

private:
    // The activations of 16-bit nodes: every input and the output (of the unit, when a Relu /
    // Clip is fused). A value shared with an 8-bit neighbour is 16-bit for both: one Q/DQ pair.
    void collectSixteenBitValues() {
        for (size_t i = 0; i < m_graph.nodes.size(); ++i) {
            const Node &node = m_graph.nodes[i];
            if (!m_sixteenBitNodes.count(node.name)) continue;
            for (const std::string &in : node.inputs)
                if (!in.empty() && !m_graph.isInitializer(in)) m_sixteenBitValues.insert(in);
            for (const std::string &out : node.outputs) m_sixteenBitValues.insert(out);
            const int act = fusedActivation(i);
            if (act >= 0) m_sixteenBitValues.insert(m_graph.nodes[act].outputs[0]);
        }
        // A MaxPool / Reshape / ... passes its input's qparams on: a 16-bit output makes its
        // input 16-bit too, up the chain.
        std::vector<std::string> pending(m_sixteenBitValues.begin(), m_sixteenBitValues.end());
        while (!pending.empty()) {
            const int producer = m_graph.producerIndex(pending.back());
            pending.pop_back();
            if (producer < 0) continue;
            const Node &p = m_graph.nodes[static_cast<size_t>(producer)];
            if (kSharingOps.count(p.opType) && p.hasInput(0) &&
                m_sixteenBitValues.insert(p.inputs[0]).second)
                pending.push_back(p.inputs[0]);
        }
    }

    QRangeOptions rangeOptionsOf(const std::string &value) const {
        return m_sixteenBitValues.count(value) ? m_options.activation16Range()
                                               : m_options.activationRange();
    }

    // Qparams a value has or would get; nullopt when calibration has no range for it.
    std::optional<QParams> activationQParams(const std::string &value) const {
        auto known = m_plan.activations.find(value);
        if (known != m_plan.activations.end()) return known->second;
        if (const Tensor *constant = m_graph.initializer(value)) {
            const std::vector<float> v = constant->toFloatVector();
            float lo = 0.0f, hi = 0.0f;
            for (float x : v)
                if (std::isfinite(x)) lo = std::min(lo, x), hi = std::max(hi, x);
            return qparamsFromRange(lo, hi, rangeOptionsOf(value));
        }
        auto range = m_ranges ? m_ranges(value) : std::nullopt;
        if (!range) return std::nullopt;
        return qparamsFromRange(range->first, range->second, rangeOptionsOf(value));
    }

    // A quantized node's decision, marked 16-bit when the user asked for it.
    NodeDecision quantized(const Node &node, std::string how) const {
        NodeDecision d{node.name, node.opType, Precision::Int8, std::move(how), ""};
        if (m_sixteenBitNodes.count(node.name)) {
            d.sixteenBit = true;
            d.reason = "16-bit: " + d.reason;
        }
        return d;
    }

    // The Relu / Clip that forms one quantized unit with node i, or -1.
    int fusedActivation(size_t i) const {
        const Node &head = m_graph.nodes[i];
        if (!kWeightedOps.count(head.opType) || head.outputs.empty()) return -1;
        return soleActivationConsumer(head);
    }

    // The Relu / Clip (constant bounds, not excluded) that alone reads node's output, or -1.
    int soleActivationConsumer(const Node &head) const {
        if (head.outputs.empty()) return -1;
        const std::string &out = head.outputs[0];
        const std::vector<int> &users = m_index.consumers(out);
        if (m_graph.isGraphOutput(out) || users.size() != 1) return -1;
        const Node &act = m_graph.nodes[users[0]];
        if (!act.domain.empty() || m_excluded.count(act.name)) return -1;
        if (act.opType == "Relu" || (act.opType == "Clip" && clipHasConstantBounds(m_graph, act)))
            return users[0];
        return -1;
    }

    NodeDecision fp32(const Node &node, std::string reason) const {
        return {node.name, node.opType, Precision::Fp32, std::move(reason), ""};
    }

    NodeDecision decide(size_t i) {
        const Node &node = m_graph.nodes[i];
        auto absorbed = m_absorbedBy.find(i);
        if (absorbed != m_absorbedBy.end()) {
            NodeDecision d{node.name, node.opType, Precision::Int8,
                           "fused into the quantized unit of " + absorbed->second,
                           absorbed->second};
            d.sixteenBit = m_sixteenBitNodes.count(absorbed->second) > 0;
            return d;
        }
        auto follower = m_followsExcluded.find(i);
        if (follower != m_followsExcluded.end())
            return fp32(node, "in one unit with excluded " + follower->second);
        if (m_excluded.count(node.name)) {
            // Excluding a Conv excludes the Relu / Clip of its unit too: the user means the layer.
            const int act = fusedActivation(i);
            if (act >= 0) m_followsExcluded[static_cast<size_t>(act)] = node.describe();
            auto note = m_options.exclusionReasons.find(node.name);
            return fp32(node, "excluded by user" +
                                  (note != m_options.exclusionReasons.end() && !note->second.empty()
                                       ? " (" + note->second + ")"
                                       : std::string()));
        }
        if (auto inside = m_insideFloatPattern.find(i); inside != m_insideFloatPattern.end())
            return fp32(node, inside->second);
        if (!node.domain.empty())
            return fp32(node, "op not quantizable (domain " + node.domain + ")");
        if (node.outputs.empty() || node.outputs[0].empty() ||
            !isFloatValue(m_graph, node.outputs[0]))
            return fp32(node, "output is not float");
        if (kSharingOps.count(node.opType)) return decideSharing(node);
        if (kWeightedOps.count(node.opType)) return decideWeighted(i);
        if (scalesChannelsForLayers(node)) {
            NodeDecision d = fp32(node,
                                  "scales its input per channel for the weighted layers after "
                                  "it: runs in float on the input as computed, and its output "
                                  "is quantized once");
            d.readsUnquantized = true;
            return d;
        }
        if (kGeneralOps.count(node.opType)) return decideGeneral(node);
        return fp32(node, "op not quantizable");
    }

    // A Mul by a per-channel constant whose other input comes from an fp32 node (or the graph's
    // input) and whose output only weighted layers with constant weights read, as input 0.
    bool scalesChannelsForLayers(const Node &node) const {
        if (node.opType != "Mul" || node.inputs.size() != 2 || node.outputs.empty()) return false;
        int constant = -1;
        for (int k = 0; k < 2; ++k) {
            const Tensor *t = m_graph.initializer(node.inputs[static_cast<size_t>(k)]);
            if (t && t->dtype() == DataType::Float && t->numel() > 1) constant = k;
        }
        if (constant < 0) return false;
        const std::string &data = node.inputs[static_cast<size_t>(1 - constant)];
        if (m_graph.isInitializer(data)) return false;
        const int producer = m_graph.producerIndex(data);
        if (producer >= 0 &&
            m_plan.nodes.at(static_cast<size_t>(producer)).precision != Precision::Fp32)
            return false;
        const std::string &out = node.outputs[0];
        const std::vector<int> &readers = m_index.consumers(out);
        if (readers.empty() || m_graph.isGraphOutput(out)) return false;
        for (int r : readers) {
            const Node &layer = m_graph.nodes[static_cast<size_t>(r)];
            if (!kWeightedOps.count(layer.opType) || !layer.domain.empty() ||
                layer.inputs.size() < 2 || layer.inputs[0] != out ||
                !m_graph.isInitializer(layer.inputs[1]))
                return false;
        }
        return true;
    }

    NodeDecision decideSharing(const Node &node) {
        auto in =
            node.hasInput(0) ? m_plan.activations.find(node.inputs[0]) : m_plan.activations.end();
        if (in == m_plan.activations.end()) return fp32(node, "input is not quantized");
        m_plan.activations[node.outputs[0]] = in->second;
        return quantized(node, "shares its input's qparams");
    }

    // A MaxPool / Reshape / ... is int8 only to keep a chain of int8 ops int8: when nothing
    // quantized reads its output, its Q/DQ would add error for nothing. Reverse order handles
    // chains.
    void demoteSharingOpsWithoutQuantizedConsumer() {
        for (size_t i = m_graph.nodes.size(); i-- > 0;) {
            const Node &node = m_graph.nodes[i];
            NodeDecision &d = m_plan.nodes[i];
            if (!kSharingOps.count(node.opType) || d.precision != Precision::Int8) continue;
            const std::string &out = node.outputs[0];
            bool quantizedConsumer = m_graph.isGraphOutput(out);
            for (int c : m_index.consumers(out))
                quantizedConsumer = quantizedConsumer || m_plan.nodes[c].precision == Precision::Int8;
            if (quantizedConsumer) continue;
            d.precision = Precision::Fp32;
            d.reason = "no quantized consumer (runs on its input's dequantized values)";
            m_plan.activations.erase(out);
        }
    }

    // Inputs quantized as activations (with their qparams), or the reason the node stays fp32.
    bool collectActivationInputs(const Node &node, const std::vector<size_t> &indices,
                                 std::map<std::string, QParams> *qparams, std::string *why) const {
        for (size_t k : indices) {
            if (!node.hasInput(k)) continue;
            const std::string &value = node.inputs[k];
            if (!isFloatValue(m_graph, value)) {
                *why = "input '" + value + "' is not float";
                return false;
            }
            auto q = activationQParams(value);
            if (!q) {
                *why = "no calibration range for input '" + value + "'";
                return false;
            }
            (*qparams)[value] = *q;
        }
        return true;
    }

    NodeDecision decideGeneral(const Node &node) {
        std::vector<size_t> dataInputs{0};
        if (node.opType == "Add" || node.opType == "Mul") dataInputs = {0, 1};
        if (node.opType == "Concat") {
            dataInputs.clear();
            for (size_t k = 0; k < node.inputs.size(); ++k) dataInputs.push_back(k);
        }
        std::map<std::string, QParams> qparams;
        std::string why;
        if (!collectActivationInputs(node, dataInputs, &qparams, &why)) return fp32(node, why);
        if (m_clampAdopted.count(node.name)) {
            // Its producer already quantized the input with the clamp's own range.
            qparams[node.outputs[0]] = qparams.at(node.inputs[0]);
            commit(qparams);
            return quantized(
                node, "shares its input's qparams (the clamp is implicit in the quantized range)");
        }
        // An Add / Concat / ... feeding only a Relu / Clip quantizes its output with the
        // activation's range (ONNX Runtime's removable activation): the Q/DQ pair then does the
        // clamp, the activation becomes a no-op on the quantized tensor, and int8 lowering can
        // drop it. Exact because the activation is the value's only reader.
        const int clamp = soleActivationConsumer(node);
        const std::string &rangeOf = clamp >= 0 ? m_graph.nodes[clamp].outputs[0] : node.outputs[0];
        auto out = activationQParams(rangeOf);
        if (!out) return fp32(node, "no calibration range for output '" + rangeOf + "'");
        qparams[node.outputs[0]] = *out;
        commit(qparams);
        if (clamp < 0) return quantized(node, "quantized");
        const Node &act = m_graph.nodes[clamp];
        m_clampAdopted.insert(act.name);
        return quantized(node, "quantized with the range of " + act.opType + " '" + act.name + "'");
    }

    NodeDecision decideWeighted(size_t i) {
        const Node &node = m_graph.nodes[i];
        const Tensor *weight = node.hasInput(1) ? m_graph.initializer(node.inputs[1]) : nullptr;
        std::vector<size_t> dataInputs{0};
        if (!weight && node.opType == "MatMul")
            dataInputs = {0, 1};
        else if (!weight)
            return fp32(node, "weight is not a constant");
        else if (weight->dtype() != DataType::Float)
            return fp32(node, "weight is not float");

        const int act = fusedActivation(i);
        const Node &last = act >= 0 ? m_graph.nodes[act] : node;
        std::map<std::string, QParams> qparams;
        std::string why;
        if (!collectActivationInputs(node, dataInputs, &qparams, &why)) return fp32(node, why);
        if (node.opType == "MatMul" && !node.hasInput(0)) return fp32(node, "MatMul without input");
        auto out = activationQParams(last.outputs[0]);
        if (!out) return fp32(node, "no calibration range for output '" + last.outputs[0] + "'");
        qparams[last.outputs[0]] = *out;

        if (weight) {
            const int64_t axis = weightAxis(node, *weight);
            const bool sixteenBit = m_sixteenBitNodes.count(node.name) > 0;
            QParams wq = weightQParams(
                *weight, axis, m_options.perChannelWeights,
                sixteenBit ? QuantizationOptions::weight16Range() : m_options.weightRange());
            m_plan.weights[{node.name, 1}] = {node.inputs[1], wq};
            if (!sixteenBit) planBias(node, *weight, axis, qparams.at(node.inputs[0]), wq);
        }
        commit(qparams);
        std::string how = "quantized";
        if (act >= 0) {
            m_absorbedBy[static_cast<size_t>(act)] = node.name;
            how += " with " + m_graph.nodes[act].opType + " '" + m_graph.nodes[act].name +
                   "' as one unit";
        }
        return quantized(node, how);
    }

    // int32 bias with scale x_scale * w_scale[c] (ONNX Runtime's QDQ convention), when simple.
    void planBias(const Node &node, const Tensor &weight, int64_t axis, const QParams &input,
                  const QParams &wq) {
        if (node.opType == "MatMul" || !node.hasInput(2)) return;
        const Tensor *bias = m_graph.initializer(node.inputs[2]);
        const int64_t channels =
            axis >= 0 && axis < weight.rank() ? weight.dim(static_cast<int>(axis)) : -1;
        int64_t outChannels = channels;
        if (node.opType == "ConvTranspose") outChannels = channels * node.attrInt("group", 1);
        auto keepFloat = [&](const std::string &why) {
            m_plan.warnings.push_back(node.describe() + ": bias stays float (" + why + ")");
        };
        if (!bias || bias->dtype() != DataType::Float) return keepFloat("not a float constant");
        if (bias->numel() != outChannels || bias->rank() != 1)
            return keepFloat("not a 1-D per-channel vector");
        if (node.opType == "Gemm" && node.attrFloat("beta", 1.0f) != 1.0f)
            return keepFloat("Gemm beta is not 1");
        BiasPlan plan;
        plan.initializer = node.inputs[2];
        plan.qparams.type = DataType::Int32;
        const float xs = input.scale.at(0);
        if (wq.perChannel()) {
            plan.qparams.axis = 0;
            for (int64_t c = 0; c < outChannels; ++c)
                plan.qparams.scale.push_back(xs * wq.scale[static_cast<size_t>(c % channels)]);
        } else {
            plan.qparams.scale.push_back(xs * wq.scale.at(0));
        }
        for (float s : plan.qparams.scale)
            if (!(s > 0.0f) || !std::isfinite(s))
                return keepFloat("scale input * weight is not positive");
        plan.qparams.zeroPoint.assign(plan.qparams.scale.size(), 0);
        m_plan.biases[node.name] = plan;
    }

    void commit(const std::map<std::string, QParams> &qparams) {
        for (const auto &[value, q] : qparams) m_plan.activations.emplace(value, q);
    }

    const Graph &m_graph;
    const RangeLookup &m_ranges;
    const QuantizationOptions &m_options;
    std::set<std::string> m_excluded;
    std::set<std::string> m_sixteenBitNodes;   // options.int16Nodes
    std::set<std::string> m_sixteenBitValues;  // their activations (collectSixteenBitValues)
    qdq::GraphIndex m_index;
    std::map<size_t, std::string> m_absorbedBy;  // activation node index -> unit head name
    std::set<std::string> m_clampAdopted;  // Relu / Clip whose range their producer's output took
    std::map<size_t, std::string> m_followsExcluded;  // activation index -> its excluded head
    std::map<size_t, std::string> m_insideFloatPattern;  // node index -> why it stays float
    QuantizationPlan m_plan;
};

}  // namespace

int64_t weightAxis(const Node &node, const Tensor &weight) {
    if (node.opType == "Conv") return 0;
    if (node.opType == "ConvTranspose") return 1;
    if (node.opType == "Gemm") return node.attrInt("transB", 0) != 0 ? 0 : 1;
    if (node.opType == "MatMul") return weight.rank() - 1;
    return -1;
}

QRangeOptions QuantizationOptions::activationRange() const {
    QRangeOptions r;
    r.type = symmetricActivations ? DataType::Int8 : DataType::UInt8;
    r.symmetric = symmetricActivations;
    r.reduceRange = reduceRange;
    return r;
}

QRangeOptions QuantizationOptions::activation16Range() const {
    return {symmetricActivations ? DataType::Int16 : DataType::UInt16, symmetricActivations, false};
}

QRangeOptions QuantizationOptions::weightRange() const {
    return defaultWeightOptions();
}

ObserverOptions QuantizationOptions::observerOptions() const {
    ObserverOptions o;
    o.method = method;
    o.percentile = percentile;
    o.target = activationRange();
    return o;
}

const NodeDecision *QuantizationPlan::decision(const std::string &nodeName) const {
    for (const NodeDecision &d : nodes)
        if (d.node == nodeName) return &d;
    return nullptr;
}

int QuantizationPlan::countInt8() const {
    return static_cast<int>(std::count_if(nodes.begin(), nodes.end(), [](const NodeDecision &d) {
        return d.precision == Precision::Int8;
    }));
}

int QuantizationPlan::countFp32() const {
    return static_cast<int>(nodes.size()) - countInt8();
}

Status validateExcludedNodes(const Graph &graph, const std::vector<std::string> &names,
                             const std::string &what) {
    std::vector<std::string> unknown;
    for (const std::string &name : names)
        if (!graph.findNode(name)) unknown.push_back(name);
    if (unknown.empty()) return Status::ok();
    const std::string &first = unknown.front();
    std::vector<std::pair<size_t, std::string>> scored;
    for (const Node &n : graph.nodes) scored.push_back({editDistance(first, n.name), n.name});
    std::sort(scored.begin(), scored.end());
    std::string message = what + " '" + first + "' is not in the model";
    if (unknown.size() > 1)
        message += " (and " + std::to_string(unknown.size() - 1) + " more unknown names)";
    if (!scored.empty()) {
        message += "; closest names: ";
        for (size_t k = 0; k < std::min<size_t>(3, scored.size()); ++k)
            message += (k ? ", '" : "'") + scored[k].second + "'";
    }
    return Status::badInput(message);
}

Result<QuantizationPlan> buildPlanFromRanges(const Graph &graph, const RangeLookup &ranges,
                                             const QuantizationOptions &options) {
    QL_RETURN_IF_ERROR(validateExcludedNodes(graph, options.excludedNodes));
    QL_RETURN_IF_ERROR(validateExcludedNodes(graph, options.int16Nodes, "16-bit node"));
    for (const std::string &name : options.int16Nodes)
        if (std::find(options.excludedNodes.begin(), options.excludedNodes.end(), name) !=
            options.excludedNodes.end())
            return Status::badInput("node '" + name + "' is both excluded (fp32) and 16-bit");
    if (options.method == RangeMethod::Percentile &&
        !(options.percentile > 0.0f && options.percentile <= 100.0f))
        return Status::badInput("percentile must be in (0, 100], got " +
                                std::to_string(options.percentile));
    return Planner(graph, ranges, options).run();
}

}  // namespace ql::quant

namespace ql::quant {

RangeLookup rangeLookup(const CalibrationStatistics &stats, const QuantizationOptions &options) {
    const ObserverOptions query = options.observerOptions();
    return [&stats, query](const std::string &value) -> std::optional<std::pair<float, float>> {
        const ValueStatistics *found = stats.find(value);
        if (!found || found->minMax.empty()) return std::nullopt;
        return found->range(query);
    };
}

}  // namespace ql::quant
