#include "quant/qdq_builder.h"

#include <cmath>
#include <set>

#include "kernels/quantization_common.h"
#include "passes/qdq_graph_utils.h"

namespace ql::quant {

namespace {

// Ops whose inputs or semantics changed at opset 13: raising an older model to 13 would change
// them.
const std::set<std::string> kChangedAtOpset13 = {"Squeeze", "Unsqueeze",  "Split",  "ReduceSum",
                                                 "Softmax", "LogSoftmax", "Hardmax"};

Tensor int32Quantize(const Tensor &bias, const QParams &q) {
    const std::vector<float> values = bias.toFloatVector();
    Tensor out(DataType::Int32, bias.shape());
    int32_t *dst = out.data<int32_t>();
    for (size_t i = 0; i < values.size(); ++i)
        dst[i] = quantizeBiasValue(values[i], q.scale[q.perChannel() ? i : 0]);
    return out;
}

Tensor scaleTensor(const QParams &q) {
    const Shape shape = q.perChannel() ? Shape{static_cast<int64_t>(q.scale.size())} : Shape{};
    return Tensor::fromVector<float>(shape, q.scale);
}

Tensor zeroPointTensor(const QParams &q) {
    const Shape shape = q.perChannel() ? Shape{static_cast<int64_t>(q.zeroPoint.size())} : Shape{};
    Tensor t(q.type, shape);
    for (size_t i = 0; i < q.zeroPoint.size(); ++i) {
        if (q.type == DataType::Int8)
            t.data<int8_t>()[i] = static_cast<int8_t>(q.zeroPoint[i]);
        else if (q.type == DataType::Int16)
            t.data<int16_t>()[i] = static_cast<int16_t>(q.zeroPoint[i]);
        else if (q.type == DataType::UInt16)
            t.data<uint16_t>()[i] = static_cast<uint16_t>(q.zeroPoint[i]);
        else if (q.type == DataType::Int32)
            t.data<int32_t>()[i] = q.zeroPoint[i];
        else
            t.data<uint8_t>()[i] = static_cast<uint8_t>(q.zeroPoint[i]);
    }
    return t;
}

class Builder {
public:
    Builder(const Graph &prepared, const QuantizationPlan &plan)
        : m_in(prepared), m_plan(plan), m_names(prepared) {}

    Result<Graph> run() {
        m_out = m_in;
        m_out.nodes.clear();
        QL_RETURN_IF_ERROR(raiseOpset());
        for (const NodeDecision &d : m_plan.nodes) {
            m_int8[d.node] = d.precision == Precision::Int8;
            if (d.readsUnquantized) m_readsUnquantized.insert(d.node);
        }

        // Graph inputs first: their Q/DQ pairs precede every node.
        for (const ValueInfo &in : m_in.inputs)
            if (m_plan.activations.count(in.name)) emitQdq(in.name);
        for (const Node &node : m_in.nodes) {
            Node copy = node;
            const bool int8 = m_int8.count(node.name) && m_int8.at(node.name);
            for (size_t k = 0; k < copy.inputs.size(); ++k)
                if (!copy.inputs[k].empty()) copy.inputs[k] = inputFor(node, k, int8);
            for (std::string &out : copy.outputs)
                if (m_plan.activations.count(out) && m_in.isGraphOutput(out))
                    out = renamedOutput(out);
            m_out.nodes.push_back(copy);
            for (const std::string &out : node.outputs)
                if (!out.empty() && m_plan.activations.count(out)) emitQdq(out);
        }
        dropUnusedInitializers();
        return std::move(m_out);
    }

private:
    Status raiseOpset() {
        if (m_out.opsetVersion >= 13) return Status::ok();
        for (const Node &n : m_in.nodes)
            if (n.domain.empty() && kChangedAtOpset13.count(n.opType))
                return Status::unsupported(
                    n.describe() + ": the QDQ export needs opset 13 and the model's opset " +
                    std::to_string(m_out.opsetVersion) + " " + n.opType +
                    " differs from its opset-13 form; re-export the model at opset 13");
        m_out.opsetVersion = 13;
        m_out.domainOpsets[""] = 13;
        return Status::ok();
    }

    // Stores scale and zero point initializers for `base`; returns their names.
    std::pair<std::string, std::string> storeQParams(const std::string &base, const QParams &q) {
        const std::string scale = m_names.make(base + "_scale");
        const std::string zp = m_names.make(base + "_zero_point");
        m_out.initializers[scale] = scaleTensor(q);
        m_out.initializers[zp] = zeroPointTensor(q);
        return {scale, zp};
    }

    Node dequantizeNode(const std::string &base, const std::string &input, const std::string &scale,
                        const std::string &zp, const std::string &output, const QParams &q) {
        Node dq;
        dq.name = m_names.make(base + "_DequantizeLinear");
        dq.opType = "DequantizeLinear";
        dq.inputs = {input, scale, zp};
        dq.outputs = {output};
        if (q.perChannel()) dq.attributes["axis"] = qdq::intAttribute(q.axis);
        return dq;
    }

    // The output name a quantized graph output's producer writes before the Q/DQ pair.
    std::string renamedOutput(const std::string &value) {
        auto it = m_preQuant.find(value);
        if (it != m_preQuant.end()) return it->second;
        return m_preQuant[value] = m_names.make(value + "_QuantizeLinear_Input");
    }

    // A Q/DQ pair on an activation; constants are stored quantized with only a DQ.
    void emitQdq(const std::string &value) {
        const QParams &q = m_plan.activations.at(value);
        auto [scale, zp] = storeQParams(value, q);
        if (const Tensor *constant = m_in.initializer(value)) {
            const std::string stored = m_names.make(value + "_quantized");
            m_out.initializers[stored] = quantizeTensor(*constant, q);
            m_dqOutput[value] = m_names.make(value + "_DequantizeLinear_Output");
            m_out.nodes.push_back(dequantizeNode(value, stored, scale, zp, m_dqOutput[value], q));
            return;
        }
        const bool graphOutput = m_in.isGraphOutput(value);
        Node qn;
        qn.name = m_names.make(value + "_QuantizeLinear");
        qn.opType = "QuantizeLinear";
        qn.inputs = {graphOutput ? renamedOutput(value) : value, scale, zp};
        qn.outputs = {m_names.make(value + "_QuantizeLinear_Output")};
        m_out.nodes.push_back(qn);
        m_dqOutput[value] = graphOutput ? value : m_names.make(value + "_DequantizeLinear_Output");
        m_out.nodes.push_back(
            dequantizeNode(value, qn.outputs[0], scale, zp, m_dqOutput[value], q));
    }

    // A weight or bias of an int8 node, stored quantized behind a DQ (once per initializer and
    // qparams).
    std::string emitConstant(const std::string &init, const QParams &q) {
        const std::string key = init + "#" + std::to_string(q.axis) + "#" +
                                std::to_string(q.scale.size()) + "#" +
                                (q.scale.empty() ? std::string() : std::to_string(q.scale[0]));
        auto it = m_constantOutput.find(key);
        if (it != m_constantOutput.end()) return it->second;
        const Tensor &tensor = *m_in.initializer(init);
        const std::string stored = m_names.make(init + "_quantized");
        m_out.initializers[stored] =
            q.type == DataType::Int32 ? int32Quantize(tensor, q) : quantizeTensor(tensor, q);
        auto [scale, zp] = storeQParams(init, q);
        const std::string output = m_names.make(init + "_DequantizeLinear_Output");
        m_out.nodes.push_back(dequantizeNode(init, stored, scale, zp, output, q));
        return m_constantOutput[key] = output;
    }

    std::string inputFor(const Node &node, size_t k, bool int8) {
        const std::string &value = node.inputs[k];
        if (int8) {
            auto weight = m_plan.weights.find({node.name, k});
            if (weight != m_plan.weights.end())
                return emitConstant(weight->second.initializer, weight->second.qparams);
            auto bias = m_plan.biases.find(node.name);
            if (k == 2 && bias != m_plan.biases.end())
                return emitConstant(bias->second.initializer, bias->second.qparams);
        }
        if (!m_plan.activations.count(value)) return value;
        // fp32 nodes read constants as they are; activations through the neighbour's Q/DQ,
        // unless the plan says the node reads them as computed.
        if (m_in.isInitializer(value) && !int8) return value;
        if (!int8 && m_readsUnquantized.count(node.name))
            return m_in.isGraphOutput(value) ? renamedOutput(value) : value;
        if (!m_dqOutput.count(value)) emitQdq(value);  // constants are quantized where first used
        return m_dqOutput.at(value);
    }

    void dropUnusedInitializers() {
        std::set<std::string> used;
        for (const Node &n : m_out.nodes) used.insert(n.inputs.begin(), n.inputs.end());
        for (auto it = m_out.initializers.begin(); it != m_out.initializers.end();)
            it = used.count(it->first) ? std::next(it) : m_out.initializers.erase(it);
    }

    const Graph &m_in;
    const QuantizationPlan &m_plan;
    Graph m_out;
    qdq::NameSource m_names;
    std::map<std::string, bool> m_int8;
    std::set<std::string> m_readsUnquantized;       // fp32 nodes reading activations before their Q
    std::map<std::string, std::string> m_dqOutput;  // activation -> its DQ output
    std::map<std::string, std::string>
        m_preQuant;  // quantized graph output -> producer's new output
    std::map<std::string, std::string> m_constantOutput;  // weight/bias key -> its DQ output
};

}  // namespace

Graph prepareFloatGraph(const Graph &floatGraph, bool foldBatchNorm, BatchNormFoldReport *report) {
    Graph prepared = floatGraph;
    if (foldBatchNorm) foldBatchNorms(prepared, report);
    return prepared;
}

Result<Graph> buildQdqGraph(const Graph &prepared, const QuantizationPlan &plan) {
    return Builder(prepared, plan).run();
}

Result<QuantizeResult> quantizeGraph(const Graph &floatGraph, const RangeLookup &ranges,
                                     const QuantizationOptions &options) {
    QL_RETURN_IF_ERROR(validateExcludedNodes(floatGraph, options.excludedNodes));
    QuantizeResult result;
    Graph prepared = prepareFloatGraph(floatGraph, options.foldBatchNorm, &result.folding);
    QuantizationOptions effective = options;
    effective.excludedNodes.clear();
    for (const std::string &name : options.excludedNodes) {
        if (prepared.findNode(name)) {
            effective.excludedNodes.push_back(name);
            continue;
        }
        for (const FoldedBatchNorm &f : result.folding.folded)
            if (f.batchNormNode == name)
                result.warnings.push_back("excluded node '" + name + "' was folded into " +
                                          f.producerOp + " '" + f.producerNode + "'; exclude '" +
                                          f.producerNode +
                                          "' to keep it in fp32, or turn BN folding off");
    }
    auto plan = buildPlanFromRanges(prepared, ranges, effective);
    if (!plan) return plan.status();
    result.plan = std::move(plan.value());
    result.plan.options = options;
    auto built = buildQdqGraph(prepared, result.plan);
    if (!built) return built.status();
    result.model = std::move(built.value());
    result.warnings.insert(result.warnings.end(), result.plan.warnings.begin(),
                           result.plan.warnings.end());
    return result;
}

Result<QuantizeResult> quantizeGraph(const Graph &floatGraph, const CalibrationStatistics &stats,
                                     const QuantizationOptions &options) {
    return quantizeGraph(floatGraph, rangeLookup(stats, options), options);
}

}  // namespace ql::quant
