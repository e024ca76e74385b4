#include "analysis/activation_comparison.h"

#include <cmath>
#include <limits>
#include <memory>
#include <set>

#include "passes/constant_folding.h"
#include "runtime/execution_plan.h"

namespace ql::analysis {
namespace {

// How to read one match's quantized value in the quantized plan: the float (DQ output) name
// itself, or failing that one of the quantized tensors behind it, dequantized with (scale, zp).
struct QuantTarget {
    std::string floatName;                 // the loaded graph's value (DQ output or plain float)
    std::vector<std::string> quantizedNames;  // Q output and Identity/Cast aliases, nearest first
    std::vector<float> scale;
    std::vector<int32_t> zeroPoint;
    int64_t axis = 1;
    DataType quantType = DataType::UInt8;  // from the zero point's type (uint8 when absent)
};

bool isPassThrough(const Node &node) {
    return node.domain.empty() && (node.opType == "Identity" || node.opType == "Cast");
}

// Reads scalar-or-vector float / integer constants.
std::vector<float> floatValues(const Tensor &t) {
    std::vector<float> out(static_cast<size_t>(t.numel()));
    for (int64_t i = 0; i < t.numel(); ++i) out[i] = static_cast<float>(t.valueAsDouble(i));
    return out;
}

QuantTarget describeQuantValue(const Graph &folded, const std::string &value) {
    QuantTarget target;
    target.floatName = value;
    int producer = folded.producerIndex(value);
    // Walk back through Identity/Cast to a DequantizeLinear.
    while (producer >= 0 && isPassThrough(folded.nodes[producer]) && folded.nodes[producer].inputs.size() == 1)
        producer = folded.producerIndex(folded.nodes[producer].inputs[0]);
    if (producer < 0) return target;
    const Node &dq = folded.nodes[producer];
    if (dq.opType != "DequantizeLinear" || dq.inputs.size() < 2) return target;
    const Tensor *scale = folded.initializer(dq.inputs[1]);
    const Tensor *zp = dq.inputs.size() > 2 && !dq.inputs[2].empty() ? folded.initializer(dq.inputs[2]) : nullptr;
    if (!scale || (dq.inputs.size() > 2 && !dq.inputs[2].empty() && !zp)) return target;
    target.scale = floatValues(*scale);
    if (zp) {
        target.quantType = zp->dtype();
        for (int64_t i = 0; i < zp->numel(); ++i) target.zeroPoint.push_back(static_cast<int32_t>(zp->valueAsDouble(i)));
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

// Dequantized float copy of a uint8/int8 tensor with per-tensor or per-axis parameters.
Result<Tensor> dequantize(const Tensor &q, const QuantTarget &t) {
    if (q.dtype() != DataType::UInt8 && q.dtype() != DataType::Int8)
        return Status::badInput("value '" + t.quantizedNames.front() + "' is not a quantized tensor");
    Tensor out(DataType::Float, q.shape());
    float *y = out.data<float>();
    const int64_t n = q.numel();
    const bool perTensor = t.scale.size() == 1;
    int64_t inner = 1, channels = 1;
    if (!perTensor) {
        const int axis = static_cast<int>(t.axis < 0 ? t.axis + q.rank() : t.axis);
        if (axis < 0 || axis >= q.rank() || q.dim(axis) != static_cast<int64_t>(t.scale.size()))
            return Status::badInput("value '" + t.quantizedNames.front() + "': scale does not match its axis");
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

int64_t sampleCount(const Tensor &t) { return t.rank() == 0 ? 1 : t.dim(0); }

Tensor floatCopy(const Tensor &t) {
    if (t.dtype() == DataType::Float) return t.toPlain().clone();
    Tensor out(DataType::Float, t.shape());
    float *y = out.data<float>();
    for (int64_t i = 0; i < t.numel(); ++i) y[i] = static_cast<float>(t.valueAsDouble(i));
    return out;
}

Status compareInto(ComparisonAccumulator &acc, const Tensor &x, const Tensor &y, const std::string &what) {
    if (x.shape() != y.shape())
        return Status::badInput(what + ": float and quantized shapes differ");
    return acc.add(x.data<float>(), y.data<float>(), x.numel(), sampleCount(x)).withContext(what);
}

}  // namespace

Result<ActivationComparisonResult> compareActivations(const Graph &floatGraph, const Graph &quantGraph,
                                                      const LayerMatching &matching,
                                                      const ActivationBatchSource &source,
                                                      const ActivationComparisonOptions &options) {
    if (!source) return Status::badInput("activation comparison: no batch source");
    if (floatGraph.outputs.size() != quantGraph.outputs.size())
        return Status::badInput("activation comparison: the models have different numbers of outputs");

    // Q/DQ parameters from the loaded quantized graph, with constant subgraphs folded.
    Graph folded = quantGraph;
    QL_RETURN_IF_ERROR(foldConstants(folded));
    std::vector<QuantTarget> targets;
    for (const auto &match : matching.matches) targets.push_back(describeQuantValue(folded, match.quantOutput));

    Graph quantPrepared = quantGraph;
    QL_RETURN_IF_ERROR(preparePrecision(quantPrepared, options.precision));
    Graph floatPrepared = floatGraph;
    QL_RETURN_IF_ERROR(preparePrecision(floatPrepared, Precision::Fp32));

    // Which plan value each match reads: the float name if it still exists, else a quantized alias.
    std::set<std::string> quantValues;
    for (const auto &node : quantPrepared.nodes) quantValues.insert(node.outputs.begin(), node.outputs.end());
    for (const auto &in : quantPrepared.inputs) quantValues.insert(in.name);

    ActivationComparisonResult result;
    std::vector<ComparisonAccumulator> accumulators(matching.matches.size());
    std::map<std::string, std::vector<size_t>> floatWanted;              // float value -> matches
    std::map<std::string, std::vector<std::pair<size_t, bool>>> quantWanted;  // value -> (match, dequantize)
    for (size_t i = 0; i < matching.matches.size(); ++i) {
        LayerActivationComparison layer;
        layer.match = matching.matches[i];
        const QuantTarget &t = targets[i];
        if (quantValues.count(t.floatName)) {
            layer.quantValueSeen = t.floatName;
            quantWanted[t.floatName].push_back({i, false});
        } else {
            for (const auto &name : t.quantizedNames)
                if (quantValues.count(name)) {
                    layer.quantValueSeen = name;
                    quantWanted[name].push_back({i, true});
                    break;
                }
        }
        if (!layer.quantValueSeen.empty()) floatWanted[layer.match.floatOutput].push_back(i);
        if (!t.scale.empty() && t.scale.size() == 1) accumulators[i].setOutputScale(t.scale[0]);
        result.layers.push_back(std::move(layer));
    }

    PlanOptions planOptions;
    planOptions.threads = options.threads;
    auto floatPlan = ExecutionPlan::create(std::move(floatPrepared), planOptions);
    if (!floatPlan) return floatPlan.status().withContext("float model");
    auto quantPlan = ExecutionPlan::create(std::move(quantPrepared), planOptions);
    if (!quantPlan) return quantPlan.status().withContext("quantized model");

    std::vector<ComparisonAccumulator> outputAccumulators(floatGraph.outputs.size());
    std::vector<int64_t> rows(floatGraph.outputs.size(), 0), agreements(floatGraph.outputs.size(), 0);

    std::map<std::string, Tensor> batch;
    std::map<std::string, Tensor> floatValuesOfBatch;
    std::vector<Tensor> floatOutputs, quantOutputs;
    std::vector<bool> seenThisBatch(matching.matches.size());
    Status tapStatus;
    for (;;) {
        batch.clear();
        auto more = source(batch);
        if (!more) return more.status();
        if (!*more) break;

        floatValuesOfBatch.clear();
        RunOptions floatRun;
        floatRun.tapFilter = [&](const Node &node) {
            for (const auto &o : node.outputs)
                if (floatWanted.count(o)) return true;
            return false;
        };
        floatRun.tap = [&](const Node &node, size_t index, const Tensor &value) {
            const std::string &name = node.outputs[index];
            if (floatWanted.count(name)) floatValuesOfBatch[name] = floatCopy(value);
        };
        QL_RETURN_IF_ERROR((*floatPlan)->run(batch, floatOutputs, floatRun).withContext("float model"));

        std::fill(seenThisBatch.begin(), seenThisBatch.end(), false);
        RunOptions quantRun;
        quantRun.tapFilter = [&](const Node &node) {
            for (const auto &o : node.outputs)
                if (quantWanted.count(o)) return true;
            return false;
        };
        quantRun.tap = [&](const Node &node, size_t index, const Tensor &value) {
            if (!tapStatus.isOk()) return;
            auto it = quantWanted.find(node.outputs[index]);
            if (it == quantWanted.end()) return;
            for (const auto &[matchIndex, needsDequantize] : it->second) {
                const LayerMatch &match = matching.matches[matchIndex];
                auto fx = floatValuesOfBatch.find(match.floatOutput);
                if (fx == floatValuesOfBatch.end()) {
                    tapStatus = Status::internal("float value '" + match.floatOutput + "' was not produced");
                    return;
                }
                Tensor y;
                if (needsDequantize) {
                    auto dq = dequantize(value.toPlain(), targets[matchIndex]);
                    if (!dq) { tapStatus = dq.status(); return; }
                    y = std::move(*dq);
                    if (value.dtype() == DataType::UInt8)
                        accumulators[matchIndex].addQuantized(value.toPlain().data<uint8_t>(), value.numel(), 0, 255);
                    else
                        accumulators[matchIndex].addQuantized(value.toPlain().data<int8_t>(), value.numel(), -128, 127);
                } else {
                    y = floatCopy(value);
                    const QuantTarget &t = targets[matchIndex];
                    if (t.scale.size() == 1 && t.scale[0] > 0.0f && !t.quantizedNames.empty()) {
                        // Saturation of the quantized tensor behind the DQ, recovered from its output.
                        const bool isSigned = t.quantType == DataType::Int8;
                        accumulators[matchIndex].addSaturationFromDequantized(
                            y.data<float>(), y.numel(), t.scale[0], t.zeroPoint[0], isSigned ? -128 : 0,
                            isSigned ? 127 : 255);
                    }
                }
                Status s = compareInto(accumulators[matchIndex], fx->second, y, "layer '" + match.floatNode + "'");
                if (!s.isOk()) { tapStatus = s; return; }
                seenThisBatch[matchIndex] = true;
            }
        };
        QL_RETURN_IF_ERROR((*quantPlan)->run(batch, quantOutputs, quantRun).withContext("quantized model"));
        QL_RETURN_IF_ERROR(tapStatus);
        floatValuesOfBatch.clear();  // this batch's copies are not kept
        for (size_t i = 0; i < seenThisBatch.size(); ++i)
            if (seenThisBatch[i]) result.layers[i].observed = true;

        for (size_t o = 0; o < floatOutputs.size() && o < quantOutputs.size(); ++o) {
            const Tensor x = floatCopy(floatOutputs[o]);
            const Tensor y = floatCopy(quantOutputs[o]);
            QL_RETURN_IF_ERROR(compareInto(outputAccumulators[o], x, y, "output " + std::to_string(o)));
            if (x.rank() == 0) continue;
            const int64_t width = x.dim(-1);
            if (width <= 0) continue;
            const float *px = x.data<float>(), *py = y.data<float>();
            for (int64_t r = 0; r < x.numel() / width; ++r) {
                int64_t ax = 0, ay = 0;
                for (int64_t c = 1; c < width; ++c) {
                    if (px[r * width + c] > px[r * width + ax]) ax = c;
                    if (py[r * width + c] > py[r * width + ay]) ay = c;
                }
                ++rows[o];
                if (ax == ay) ++agreements[o];
            }
        }
        result.samples += batch.empty() ? 0 : sampleCount(floatOutputs.empty() ? batch.begin()->second : floatOutputs[0]);
        ++result.batches;
        if (options.progress && !options.progress(result.batches, options.expectedBatches))
            return Status::error(ErrorKind::Cancelled, "activation comparison cancelled");
    }

    for (size_t i = 0; i < accumulators.size(); ++i) result.layers[i].metrics = accumulators[i].result();
    for (size_t o = 0; o < outputAccumulators.size(); ++o) {
        OutputComparison out;
        out.floatName = floatGraph.outputs[o].name;
        out.quantName = quantGraph.outputs[o].name;
        out.metrics = outputAccumulators[o].result();
        out.rows = rows[o];
        out.top1Agreements = agreements[o];
        out.top1Agreement = rows[o] ? static_cast<double>(agreements[o]) / static_cast<double>(rows[o])
                                    : std::numeric_limits<double>::quiet_NaN();
        result.outputs.push_back(std::move(out));
    }
    return result;
}

}  // namespace ql::analysis
