#include "analysis/pairing/quant_value.h"

namespace ql::analysis {
namespace {

bool isPassThrough(const Node &node) {
    return node.domain.empty() && (node.opType == "Identity" || node.opType == "Cast");
}

std::vector<float> floatValues(const Tensor &t) {
    std::vector<float> out(static_cast<size_t>(t.numel()));
    for (int64_t i = 0; i < t.numel(); ++i) out[i] = static_cast<float>(t.valueAsDouble(i));
    return out;
}

}  // namespace

QuantTarget describeQuantValue(const Graph &folded, const std::string &value) {
    QuantTarget target;
    target.floatName = value;
    int producer = folded.producerIndex(value);
    // Walk back through Identity/Cast to a DequantizeLinear.
    while (producer >= 0 && isPassThrough(folded.nodes[producer]) &&
           folded.nodes[producer].inputs.size() == 1)
        producer = folded.producerIndex(folded.nodes[producer].inputs[0]);
    if (producer < 0) return target;
    const Node &dq = folded.nodes[producer];
    if (dq.opType != "DequantizeLinear" || dq.inputs.size() < 2) return target;
    const Tensor *scale = folded.initializer(dq.inputs[1]);
    const Tensor *zp =
        dq.inputs.size() > 2 && !dq.inputs[2].empty() ? folded.initializer(dq.inputs[2]) : nullptr;
    if (!scale || (dq.inputs.size() > 2 && !dq.inputs[2].empty() && !zp)) return target;
    target.scale = floatValues(*scale);
    if (zp) {
        target.quantType = zp->dtype();
        for (int64_t i = 0; i < zp->numel(); ++i)
            target.zeroPoint.push_back(static_cast<int32_t>(zp->valueAsDouble(i)));
    } else {
        target.zeroPoint.assign(target.scale.size(), 0);
    }
    for (const auto &attr : dq.attributes)
        if (attr.first == "axis") target.axis = attr.second.i;
    // The quantized tensor and its aliases up to the QuantizeLinear output.
    std::string q = dq.inputs[0];
    for (;;) {
        target.quantizedNames.push_back(q);
        const int p = folded.producerIndex(q);
        if (p < 0 || !isPassThrough(folded.nodes[p]) || folded.nodes[p].inputs.empty()) break;
        q = folded.nodes[p].inputs[0];
    }
    return target;
}

Result<Tensor> dequantizeTarget(const Tensor &q, const QuantTarget &t) {
    const std::string name = t.quantizedNames.empty() ? t.floatName : t.quantizedNames.front();
    if (q.dtype() != DataType::UInt8 && q.dtype() != DataType::Int8)
        return Status::badInput("value '" + name + "' is not a quantized tensor");
    if (t.scale.empty())
        return Status::badInput("value '" + name + "' has no quantization parameters");
    Tensor out(DataType::Float, q.shape());
    float *y = out.data<float>();
    const int64_t n = q.numel();
    const bool perTensor = t.scale.size() == 1;
    int64_t inner = 1, channels = 1;
    if (!perTensor) {
        const int axis = static_cast<int>(t.axis < 0 ? t.axis + q.rank() : t.axis);
        if (axis < 0 || axis >= q.rank() || q.dim(axis) != static_cast<int64_t>(t.scale.size()))
            return Status::badInput("value '" + name + "': scale does not match its axis");
        channels = q.dim(axis);
        for (int d = axis + 1; d < q.rank(); ++d) inner *= q.dim(d);
    }
    for (int64_t i = 0; i < n; ++i) {
        const size_t c = perTensor ? 0 : static_cast<size_t>((i / inner) % channels);
        const int32_t v = q.dtype() == DataType::UInt8 ? q.data<uint8_t>()[i] : q.data<int8_t>()[i];
        y[i] = t.scale[c] * static_cast<float>(v - t.zeroPoint[c]);
    }
    return out;
}

}  // namespace ql::analysis
