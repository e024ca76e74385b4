#include "analysis/suite/activation_comparison.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <set>

#include "analysis/pairing/quant_value.h"
#include "kernels/quantization_common.h"
#include "passes/constant_folding.h"
#include "runtime/execution_plan.h"

namespace ql::analysis {
namespace {

// Per channel (axis 1) sums of the error quantized − float, for its mean (bias correction's
// shift). The quantized side is float, or 8-bit with per-tensor parameters (`q`); other forms
// are left out.
struct ChannelErrorSums {
    std::vector<double> sum;
    double count = 0;  // values per channel so far

    void add(const Tensor &reference, const Tensor &value, const QuantTarget *q) {
        if (reference.dtype() != DataType::Float || reference.rank() < 2 ||
            reference.shape() != value.shape())
            return;
        const bool quantized = q != nullptr;
        if (quantized && (q->scale.size() != 1 ||
                          (value.dtype() != DataType::UInt8 && value.dtype() != DataType::Int8)))
            return;
        if (!quantized && value.dtype() != DataType::Float) return;
        // One element order for both; channels-last keeps the channel as the fastest axis.
        const bool channelsLast = reference.layout() == Layout::ChannelsLast;
        const bool same = reference.layout() == value.layout();
        const Tensor x = same ? reference : reference.toPlain();
        const Tensor y = same ? value : value.toPlain();
        const int64_t c = x.dim(1), n = x.numel();
        if (c <= 0 || n == 0) return;
        if (sum.size() != static_cast<size_t>(c)) sum.assign(static_cast<size_t>(c), 0.0);
        const bool last = same && channelsLast;
        const int64_t samples = x.dim(0), spatial = n / (samples * c);
        const float scale = quantized ? q->scale[0] : 1.0f;
        const float zeroPoint = quantized ? float(q->zeroPoint[0]) : 0.0f;
        const float *px = x.data<float>();
        if (y.dtype() == DataType::Float)
            accumulate(px, y.data<float>(), samples, c, spatial, last, 1.0f, 0.0f);
        else if (y.dtype() == DataType::UInt8)
            accumulate(px, y.data<uint8_t>(), samples, c, spatial, last, scale, zeroPoint);
        else
            accumulate(px, y.data<int8_t>(), samples, c, spatial, last, scale, zeroPoint);
        count += double(n / c);
    }
    std::vector<double> means() const {
        std::vector<double> m(sum.size());
        for (size_t k = 0; k < sum.size(); ++k) m[k] = count > 0 ? sum[k] / count : 0.0;
        return m;
    }

private:
    // Sums (y − zeroPoint) · scale − x per channel over `samples` samples of `c` channels and
    // `spatial` positions; plain: a channel's positions are contiguous, channels-last: a
    // position's channels.
    template <class T>
    void accumulate(const float *x, const T *y, int64_t samples, int64_t c, int64_t spatial,
                    bool channelsLast, float scale, float zeroPoint) {
        if (channelsLast) {
            for (int64_t at = 0; at < samples * spatial * c; at += c)
                for (int64_t k = 0; k < c; ++k)
                    sum[static_cast<size_t>(k)] +=
                        (float(y[at + k]) - zeroPoint) * scale - x[at + k];
            return;
        }
        for (int64_t b = 0; b < samples; ++b)
            for (int64_t k = 0; k < c; ++k) {
                const int64_t at = (b * c + k) * spatial;
                float run = 0.0f;  // one channel of one sample: a short sum
                for (int64_t i = 0; i < spatial; ++i)
                    run += (float(y[at + i]) - zeroPoint) * scale - x[at + i];
                sum[static_cast<size_t>(k)] += run;
            }
    }
};

// Values that a MatMul or Gemm with a constant weight reads as its input 0.
std::set<std::string> inputsOfLinearLayers(const Graph &graph) {
    std::set<std::string> out;
    for (const Node &node : graph.nodes)
        if (node.domain.empty() && (node.opType == "MatMul" || node.opType == "Gemm") &&
            node.hasInput(0) && node.hasInput(1) && graph.isInitializer(node.inputs[1]))
            out.insert(node.inputs[0]);
    return out;
}

// max |x| per channel of the last axis, into `maxima`. A row (one position's channels) at a
// time, rows split over the threads: a per-element modulo cost 0.35 s on vit_b_16's 8 samples.
// Maxima do not depend on the order they are taken in, so the result is the same on any
// thread count.
void addChannelMaxima(const Tensor &value, std::vector<float> &maxima) {
    if (value.dtype() != DataType::Float || value.rank() < 1) return;
    const Tensor plain = value.layout() == Layout::Plain ? value : value.toPlain();
    const int64_t c = plain.dim(static_cast<int>(plain.rank() - 1));
    if (c <= 0) return;
    if (maxima.size() != static_cast<size_t>(c)) maxima.assign(static_cast<size_t>(c), 0.0f);
    const float *v = plain.data<float>();
    const int64_t rows = plain.numel() / c;
#pragma omp parallel if (rows * c >= 65536)
    {
        std::vector<float> mine(static_cast<size_t>(c), 0.0f);
        float *m = mine.data();
#pragma omp for schedule(static)
        for (int64_t r = 0; r < rows; ++r) {
            const float *row = v + r * c;
            for (int64_t k = 0; k < c; ++k) m[k] = std::max(m[k], std::fabs(row[k]));
        }
#pragma omp critical
        for (int64_t k = 0; k < c; ++k)
            maxima[static_cast<size_t>(k)] = std::max(maxima[static_cast<size_t>(k)], m[k]);
    }
}

int64_t sampleCount(const Tensor &t) {
    return t.rank() == 0 ? 1 : t.dim(0);
}

Status compareInto(ComparisonAccumulator &acc, const Tensor &x, const Tensor &y,
                   const std::string &what) {
    if (x.shape() != y.shape())
        return Status::badInput(what + ": float and quantized shapes differ");
    return acc.add(x.data<float>(), y.data<float>(), x.numel(), sampleCount(x)).withContext(what);
}

int64_t argmaxRow(const float *row, int64_t width) {
    int64_t best = 0;
    for (int64_t c = 1; c < width; ++c)
        if (row[c] > row[best]) best = c;
    return best;
}

}  // namespace

std::vector<int64_t> top1Classes(const Tensor &x) {
    if (x.rank() == 0 || x.dim(-1) <= 0) return {};
    const int64_t width = x.dim(-1), rows = x.numel() / width;
    std::vector<int64_t> out(static_cast<size_t>(rows));
    for (int64_t r = 0; r < rows; ++r) out[static_cast<size_t>(r)] = argmaxRow(x.data<float>() + r * width, width);
    return out;
}

Tensor floatCopy(const Tensor &t) {
    if (t.dtype() == DataType::Float) return t.toPlain().clone();
    const Tensor plain = t.toPlain();
    Tensor out(DataType::Float, plain.shape());
    float *y = out.data<float>();
    for (int64_t i = 0; i < plain.numel(); ++i) y[i] = static_cast<float>(plain.valueAsDouble(i));
    return out;
}

void captureInto(Tensor &slot, const Tensor &value) {
    if (value.dtype() != DataType::Float) {
        slot = floatCopy(value);
        return;
    }
    // The plan's own buffer, as stored: no copy. The plan does not reuse a buffer while a
    // reference to it is held, and no kernel writes into one another reference can see.
    slot = value;
}

Result<std::unique_ptr<ExecutionPlan>> createFloatPlan(const Graph &floatGraph, int threads,
                                                       const std::set<std::string> &tapped,
                                                       std::shared_ptr<BufferPool> pool) {
    Graph prepared = floatGraph;
    QL_RETURN_IF_ERROR(preparePrecision(prepared, Precision::Fp32).withContext("float model"));
    PlanOptions planOptions;
    planOptions.threads = threads;
    planOptions.fuseOperators = true;
    planOptions.keepVisible = tapped;
    planOptions.bufferPool = std::move(pool);
    auto plan = ExecutionPlan::create(std::move(prepared), planOptions);
    if (!plan) return plan.status().withContext("float model");
    return plan;
}

Status runAndCapture(ExecutionPlan &plan, const std::map<std::string, Tensor> &inputs,
                     const std::set<std::string> &wanted, std::map<std::string, Tensor> &values,
                     std::vector<Tensor> &outputs, const StreamedValues *streamed) {
    values.clear();  // the last batch's buffers go back to the plan's pool before it runs
    Status streamStatus;
    auto stream = [&](const std::string &name, const Tensor &value) {
        if (streamed && streamStatus && streamed->names.count(name))
            streamStatus = streamed->consume(name, value);
    };
    // Graph inputs are not produced by any node.
    for (const auto &[name, tensor] : inputs) {
        if (wanted.count(name)) captureInto(values[name], tensor);
        stream(name, tensor);
    }
    RunOptions run;
    run.tapStoredLayout = true;  // copied as stored: no transpose per tapped value
    std::set<std::string> tapped = wanted;  // outlives the run: the filter refers to it
    if (streamed) tapped.insert(streamed->names.begin(), streamed->names.end());
    run.tapFilter = tapNodesProducing(tapped);
    run.tap = [&](const Node &node, size_t index, const Tensor &value) {
        const std::string &name = node.outputs[index];
        if (wanted.count(name)) captureInto(values[name], value);
        stream(name, value);
    };
    QL_RETURN_IF_ERROR(plan.run(inputs, outputs, run));
    return streamStatus;
}

struct CumulativeComparison::Impl {
    LayerMatching matches;
    std::vector<QuantTarget> targets;
    std::unique_ptr<ExecutionPlan> quantPlan;
    std::set<std::string> floatWanted;
    std::map<std::string, std::vector<std::pair<size_t, bool>>>
        quantWanted;  // value -> (match, dequantize)
    std::map<std::string, std::vector<size_t>> byFloatValue;  // float value -> observable matches
    // The quantized pass (startQuantizedPass): per match, the value it waits to compare.
    struct PendingValue {
        Tensor value;
        bool dequantize = false;
    };
    std::vector<PendingValue> pending;
    std::vector<Tensor> quantOutputs;
    bool quantPassDone = true;  // the quantized pass of this batch has run to its end
    // Steps the quantized pass until match `matchIndex` has its value or the pass has ended.
    Status advanceQuantizedPassTo(size_t matchIndex);
    Status finishQuantizedPass();  // runs the rest of the pass, keeps its outputs
    std::vector<ComparisonAccumulator> accumulators;
    std::vector<bool> tracksChannels;  // per match: LayerActivationComparison::channelMaxima
    std::vector<std::vector<float>> channelMaxima;
    std::vector<bool> tracksMeanError;  // per match: LayerActivationComparison::channelMeanError
    std::vector<ChannelErrorSums> meanErrors;
    std::vector<ComparisonAccumulator> outputAccumulators;
    std::vector<int64_t> rows, agreements;
    std::vector<int64_t> labels;
    int64_t labelCursor = 0, floatCorrect = 0, quantCorrect = 0;
    std::vector<int64_t> floatTop1, quantTop1;  // first output's argmax per row
    ActivationComparisonResult result;

    // With a sweep, the comparisons its pass can serve join it; the others run at once.
    Status compareLayer(size_t matchIndex, bool isQuantizedTensor, const Tensor &value,
                        const Tensor &floatValue, ValueSweep *sweep = nullptr);
    Status compareLayer(size_t matchIndex, bool isQuantizedTensor, const Tensor &value,
                        const std::map<std::string, Tensor> &floatValues);
    void countBatch(const std::map<std::string, Tensor> &inputs,
                    const std::vector<Tensor> &floatOutputs);
    // The quantized pass's run options: `compared` gets each value a match compares, as stored
    // (with whether it needs dequantizing); `everyValue` (optional) every node output.
    using ComparedValue = std::function<void(size_t match, bool dequantize, const Tensor &value)>;
    RunOptions quantRunOptions(const TapCallback &everyValue, const ComparedValue &compared);
    Status compareOutputs(const std::vector<Tensor> &floatOutputs,
                          const std::vector<Tensor> &quantOutputs);
};

namespace {

// The quantized model's outputs compared with the float model's, in the float model's order: by
// position when the models have as many, else by name (a quantized model may also output its
// quantized values, e.g. the int16 'y_q' beside 'y'). BadInput naming them when neither pairs.
Result<std::vector<std::string>> pairedQuantOutputs(const Graph &floatGraph,
                                                    const Graph &quantGraph) {
    std::vector<std::string> names;
    if (floatGraph.outputs.size() == quantGraph.outputs.size()) {
        for (const ValueInfo &out : quantGraph.outputs) names.push_back(out.name);
        return names;
    }
    const auto list = [](const Graph &g) {
        std::string text;
        for (const ValueInfo &out : g.outputs)
            text += (text.empty() ? "'" : ", '") + out.name + "'";
        return text;
    };
    for (const ValueInfo &out : floatGraph.outputs) {
        if (!quantGraph.isGraphOutput(out.name))
            return Status::badInput(
                "activation comparison: the float model has " +
                std::to_string(floatGraph.outputs.size()) + " outputs (" + list(floatGraph) +
                ") and the quantized model " + std::to_string(quantGraph.outputs.size()) + " (" +
                list(quantGraph) + "); they pair neither by position nor by name");
        names.push_back(out.name);
    }
    return names;
}

}  // namespace

CumulativeComparison::CumulativeComparison() : m_impl(std::make_unique<Impl>()) {}
CumulativeComparison::~CumulativeComparison() = default;

const std::set<std::string> &CumulativeComparison::floatValuesNeeded() const {
    return m_impl->floatWanted;
}

Result<std::unique_ptr<CumulativeComparison>> CumulativeComparison::create(
    const Graph &floatGraph, const Graph &quantGraph, const LayerMatching &matching,
    const ActivationComparisonOptions &options) {
    auto quantOutputs = pairedQuantOutputs(floatGraph, quantGraph);
    if (!quantOutputs) return quantOutputs.status();
    std::unique_ptr<CumulativeComparison> self(new CumulativeComparison());
    Impl &d = *self->m_impl;
    d.matches = matching;
    d.labels = options.labels;

    // Q/DQ parameters from the loaded quantized graph, with constant subgraphs folded.
    Graph folded = quantGraph;
    QL_RETURN_IF_ERROR(foldConstants(folded));
    for (const auto &match : matching.matches)
        d.targets.push_back(describeQuantValue(folded, match.quantOutput));

    Graph quantPrepared = quantGraph;
    QL_RETURN_IF_ERROR(preparePrecision(quantPrepared, options.precision, &d.result.precision));
    if (options.precision == Precision::Int8) applyInt8Kernels(quantPrepared, options.int8Kernels);
    // Only the paired outputs, in the float model's order (the lowering keeps output names).
    std::vector<ValueInfo> outputs;
    for (const std::string &name : *quantOutputs)
        for (const ValueInfo &out : quantPrepared.outputs)
            if (out.name == name) outputs.push_back(out);
    quantPrepared.outputs = std::move(outputs);

    // Which plan value each match reads: the float name if it still exists, else a quantized alias.
    std::set<std::string> quantValues;
    for (const auto &node : quantPrepared.nodes)
        quantValues.insert(node.outputs.begin(), node.outputs.end());
    for (const auto &in : quantPrepared.inputs) quantValues.insert(in.name);

    d.accumulators.resize(matching.matches.size());
    d.channelMaxima.resize(matching.matches.size());
    d.meanErrors.resize(matching.matches.size());
    const std::set<std::string> linearInputs = inputsOfLinearLayers(floatGraph);
    for (const auto &match : matching.matches) {
        d.tracksChannels.push_back(linearInputs.count(match.floatOutput) != 0);
        const Node *node = floatGraph.findNode(match.floatNode);
        d.tracksMeanError.push_back(
            node && node->domain.empty() &&
            (node->opType == "Conv" || node->opType == "ConvTranspose" || node->opType == "Gemm"));
    }
    for (size_t i = 0; i < matching.matches.size(); ++i) {
        LayerActivationComparison layer;
        layer.match = matching.matches[i];
        const QuantTarget &t = d.targets[i];
        layer.compared = options.compareLayers;
        if (layer.compared && quantValues.count(t.floatName)) {
            layer.quantValueSeen = t.floatName;
            d.quantWanted[t.floatName].push_back({i, false});
        } else if (layer.compared) {
            for (const auto &name : t.quantizedNames)
                if (quantValues.count(name)) {
                    layer.quantValueSeen = name;
                    d.quantWanted[name].push_back({i, true});
                    break;
                }
        }
        if (!layer.quantValueSeen.empty()) {
            d.floatWanted.insert(layer.match.floatOutput);
            d.byFloatValue[layer.match.floatOutput].push_back(i);
        }
        if (!t.scale.empty() && t.scale.size() == 1) d.accumulators[i].setOutputScale(t.scale[0]);
        int64_t lo = 0, hi = 0;  // the 8- or 16-bit type's levels
        if (t.scale.size() == 1 && !t.quantizedNames.empty() &&
            quant::integerRange(t.quantType, lo, hi))
            d.accumulators[i].setQuantizer(t.scale[0], t.zeroPoint[0], static_cast<int32_t>(lo),
                                           static_cast<int32_t>(hi));
        d.result.layers.push_back(std::move(layer));
    }

    PlanOptions planOptions;
    planOptions.threads = options.threads;
    planOptions.bufferPool = options.bufferPool;
    auto quantPlan = ExecutionPlan::create(std::move(quantPrepared), planOptions);
    if (!quantPlan) return quantPlan.status().withContext("quantized model");
    d.quantPlan = std::move(*quantPlan);

    d.pending.resize(matching.matches.size());
    d.outputAccumulators.resize(floatGraph.outputs.size());
    d.rows.assign(floatGraph.outputs.size(), 0);
    d.agreements.assign(floatGraph.outputs.size(), 0);
    for (size_t o = 0; o < floatGraph.outputs.size(); ++o) {
        OutputComparison out;
        out.floatName = floatGraph.outputs[o].name;
        out.quantName = (*quantOutputs)[o];
        d.result.outputs.push_back(std::move(out));
    }
    return self;
}

Status CumulativeComparison::Impl::compareLayer(size_t matchIndex, bool isQuantizedTensor,
                                                const Tensor &value,
                                                const std::map<std::string, Tensor> &floatValues) {
    const LayerMatch &match = matches.matches[matchIndex];
    auto fx = floatValues.find(match.floatOutput);
    if (fx == floatValues.end())
        return Status::internal("float value '" + match.floatOutput + "' was not produced");
    return compareLayer(matchIndex, isQuantizedTensor, value, fx->second);
}

Status CumulativeComparison::Impl::compareLayer(size_t matchIndex, bool isQuantizedTensor,
                                                const Tensor &value, const Tensor &floatValue,
                                                ValueSweep *sweep) {
    const LayerMatch &match = matches.matches[matchIndex];
    const std::string what = "layer '" + match.floatNode + "'";
    if (floatValue.shape() != value.shape())
        return Status::badInput(what + ": float and quantized shapes differ");
    ComparisonAccumulator &acc = accumulators[matchIndex];
    const QuantTarget &t = targets[matchIndex];
    if (tracksChannels[matchIndex]) addChannelMaxima(floatValue, channelMaxima[matchIndex]);
    if (tracksMeanError[matchIndex])
        meanErrors[matchIndex].add(floatValue, value, isQuantizedTensor ? &t : nullptr);
    // Both sides in one element order; NHWC stays NHWC when both plans keep it.
    const bool sameLayout = floatValue.layout() == value.layout();
    const Tensor x = sameLayout ? floatValue : floatValue.toPlain();
    const Tensor y = sameLayout ? value : value.toPlain();
    const float *px = x.data<float>();
    const int64_t n = x.numel(), samples = sampleCount(x);
    const bool perTensor = t.scale.size() == 1 && t.scale[0] > 0.0f;
    const bool eightBit = y.dtype() == DataType::UInt8 || y.dtype() == DataType::Int8;
    const bool sweepable = sweep && sameLayout && x.dtype() == DataType::Float;
    if (sweepable && !isQuantizedTensor && y.dtype() == DataType::Float) {
        sweep->compare(acc, y);
        return Status::ok();
    }
    if (sweepable && isQuantizedTensor && perTensor && eightBit) {
        sweep->compare(acc, y, t.scale[0], t.zeroPoint[0]);
        return Status::ok();
    }
    if (!isQuantizedTensor) {
        if (y.dtype() == DataType::Float)
            return acc.add(px, y.data<float>(), n, samples).withContext(what);
        const Tensor yf = floatCopy(y);
        return acc.add(px, yf.data<float>(), n, samples).withContext(what);
    }
    if (perTensor && y.dtype() == DataType::UInt8)
        return acc.addDequantized(px, y.data<uint8_t>(), n, samples, t.scale[0], t.zeroPoint[0])
            .withContext(what);
    if (perTensor && y.dtype() == DataType::Int8)
        return acc.addDequantized(px, y.data<int8_t>(), n, samples, t.scale[0], t.zeroPoint[0])
            .withContext(what);
    // Per-channel parameters: dequantize a plain copy.
    const Tensor xp = x.toPlain();
    auto dq = dequantizeTarget(y.toPlain(), t);
    if (!dq) return dq.status();
    return acc.add(xp.data<float>(), dq->data<float>(), n, samples).withContext(what);
}

Status CumulativeComparison::Impl::compareOutputs(const std::vector<Tensor> &floatOutputs,
                                                  const std::vector<Tensor> &quantOutputs) {
    for (size_t o = 0;
         o < floatOutputs.size() && o < quantOutputs.size() && o < outputAccumulators.size(); ++o) {
        const Tensor x = floatCopy(floatOutputs[o]);
        const Tensor y = floatCopy(quantOutputs[o]);
        QL_RETURN_IF_ERROR(compareInto(outputAccumulators[o], x, y,
                                       "output '" + result.outputs[o].floatName + "'"));
        const std::vector<int64_t> ax = top1Classes(x), ay = top1Classes(y);
        const int64_t n = static_cast<int64_t>(std::min(ax.size(), ay.size()));
        const bool withLabels = o == 0 && !labels.empty();
        if (withLabels && labelCursor + n > static_cast<int64_t>(labels.size()))
            return Status::badInput("labels: " + std::to_string(labels.size()) +
                                    " labels, but the inputs hold more samples");
        if (o == 0) {
            floatTop1.insert(floatTop1.end(), ax.begin(), ax.begin() + n);
            quantTop1.insert(quantTop1.end(), ay.begin(), ay.begin() + n);
        }
        for (int64_t r = 0; r < n; ++r) {
            const size_t i = static_cast<size_t>(r);
            ++rows[o];
            if (ax[i] == ay[i]) ++agreements[o];
            if (withLabels) {
                const int64_t label = labels[static_cast<size_t>(labelCursor++)];
                floatCorrect += ax[i] == label;
                quantCorrect += ay[i] == label;
            }
        }
    }
    return Status::ok();
}

Status CumulativeComparison::addBatch(const std::map<std::string, Tensor> &inputs,
                                      const std::map<std::string, Tensor> &floatValues,
                                      const std::vector<Tensor> &floatOutputs,
                                      const TapCallback &everyValue) {
    Impl &d = *m_impl;
    std::vector<bool> seen(d.matches.matches.size(), false);
    Status tapStatus;
    const RunOptions quantRun = d.quantRunOptions(
        everyValue, [&](size_t matchIndex, bool needsDequantize, const Tensor &value) {
            if (!tapStatus.isOk()) return;
            tapStatus = d.compareLayer(matchIndex, needsDequantize, value, floatValues);
            seen[matchIndex] = tapStatus.isOk();
        });
    std::vector<Tensor> quantOutputs;
    QL_RETURN_IF_ERROR(
        d.quantPlan->run(inputs, quantOutputs, quantRun).withContext("quantized model"));
    QL_RETURN_IF_ERROR(tapStatus);
    for (size_t i = 0; i < seen.size(); ++i)
        if (seen[i]) d.result.layers[i].observed = true;
    QL_RETURN_IF_ERROR(d.compareOutputs(floatOutputs, quantOutputs));
    d.countBatch(inputs, floatOutputs);
    return Status::ok();
}

RunOptions CumulativeComparison::Impl::quantRunOptions(const TapCallback &everyValue,
                                                       const ComparedValue &compared) {
    RunOptions run;
    run.tapStoredLayout = true;  // compared against the float value in the same element order
    if (!everyValue)
        run.tapFilter = [this](const Node &node) {
            for (const auto &o : node.outputs)
                if (quantWanted.count(o)) return true;
            return false;
        };
    run.tap = [this, everyValue, compared](const Node &node, size_t index, const Tensor &value) {
        if (everyValue) everyValue(node, index, value);
        auto it = quantWanted.find(node.outputs[index]);
        if (it == quantWanted.end()) return;
        for (const auto &[matchIndex, needsDequantize] : it->second)
            compared(matchIndex, needsDequantize, value);
    };
    return run;
}

void CumulativeComparison::Impl::countBatch(const std::map<std::string, Tensor> &inputs,
                                            const std::vector<Tensor> &floatOutputs) {
    if (!inputs.empty())
        result.samples +=
            sampleCount(floatOutputs.empty() ? inputs.begin()->second : floatOutputs[0]);
    ++result.batches;
}

Status CumulativeComparison::startQuantizedPass(const std::map<std::string, Tensor> &inputs,
                                                const TapCallback &everyValue) {
    Impl &d = *m_impl;
    for (auto &p : d.pending) p = {};
    d.quantOutputs.clear();
    // Kept as stored and shared: the plan does not reuse a buffer while it is referenced.
    const RunOptions quantRun = d.quantRunOptions(
        everyValue,
        [pending = &d.pending](size_t matchIndex, bool needsDequantize, const Tensor &value) {
            (*pending)[matchIndex] = {value, needsDequantize};
        });
    QL_RETURN_IF_ERROR(d.quantPlan->start(inputs, quantRun).withContext("quantized model"));
    d.quantPassDone = false;
    return Status::ok();
}

Status CumulativeComparison::runQuantizedPass(const std::map<std::string, Tensor> &inputs,
                                              const TapCallback &everyValue) {
    QL_RETURN_IF_ERROR(startQuantizedPass(inputs, everyValue));
    return m_impl->finishQuantizedPass();
}

Status CumulativeComparison::Impl::finishQuantizedPass() {
    if (quantPassDone) return Status::ok();
    quantPassDone = true;
    return quantPlan->finish(quantOutputs).withContext("quantized model");
}

Status CumulativeComparison::Impl::advanceQuantizedPassTo(size_t matchIndex) {
    while (!quantPassDone && !pending[matchIndex].value.defined()) {
        auto stepped = quantPlan->step();
        if (!stepped) {
            quantPassDone = true;  // a failed step ends the plan's run
            return stepped.status().withContext("quantized model");
        }
        if (!*stepped) return finishQuantizedPass();
    }
    return Status::ok();
}

Status CumulativeComparison::addFloatValue(const std::string &name, const Tensor &value) {
    ValueSweep sweep;
    QL_RETURN_IF_ERROR(addFloatValue(name, value, sweep));
    return sweep.run(value).withContext("float value '" + name + "'");
}

Status CumulativeComparison::addFloatValue(const std::string &name, const Tensor &value,
                                           ValueSweep &sweep) {
    Impl &d = *m_impl;
    auto it = d.byFloatValue.find(name);
    if (it == d.byFloatValue.end()) return Status::ok();
    for (size_t matchIndex : it->second) {
        QL_RETURN_IF_ERROR(d.advanceQuantizedPassTo(matchIndex));
        Impl::PendingValue &p = d.pending[matchIndex];
        if (!p.value.defined()) continue;  // not produced by the quantized pass
        QL_RETURN_IF_ERROR(d.compareLayer(matchIndex, p.dequantize, p.value, value, &sweep));
        d.result.layers[matchIndex].observed = true;
        p = {};  // its buffer goes back to the quantized plan once compared
    }
    return Status::ok();
}

Status CumulativeComparison::finishBatch(const std::map<std::string, Tensor> &inputs,
                                         const std::vector<Tensor> &floatOutputs) {
    Impl &d = *m_impl;
    QL_RETURN_IF_ERROR(d.finishQuantizedPass());
    for (size_t i = 0; i < d.pending.size(); ++i)
        if (d.pending[i].value.defined()) {
            const std::string name = d.matches.matches[i].floatOutput;
            for (auto &p : d.pending) p = {};
            return Status::internal("float value '" + name + "' was not produced");
        }
    const std::vector<Tensor> quantOutputs = std::move(d.quantOutputs);
    d.quantOutputs.clear();
    QL_RETURN_IF_ERROR(d.compareOutputs(floatOutputs, quantOutputs));
    d.countBatch(inputs, floatOutputs);
    return Status::ok();
}

OutputTally CumulativeComparison::firstOutputTally() const {
    const Impl &d = *m_impl;
    OutputTally t;
    if (d.outputAccumulators.empty()) return t;
    t.signal = d.outputAccumulators[0].signalEnergy();
    t.noise = d.outputAccumulators[0].noiseEnergy();
    t.rows = d.rows[0];
    t.agreements = d.agreements[0];
    t.floatCorrect = d.floatCorrect;
    t.quantCorrect = d.quantCorrect;
    return t;
}

const Graph &CumulativeComparison::quantPlanGraph() const {
    return m_impl->quantPlan->graph();
}

const std::string &CumulativeComparison::quantValueRead(size_t index) const {
    return m_impl->result.layers.at(index).quantValueSeen;
}

Status CumulativeComparison::runQuantPlan(const std::map<std::string, Tensor> &inputs,
                                          std::vector<Tensor> &outputs, const RunOptions &run) {
    return m_impl->quantPlan->run(inputs, outputs, run).withContext("quantized model");
}

Status CumulativeComparison::addQuantValue(const std::string &name, const Tensor &value,
                                           const std::map<std::string, Tensor> &floatValues,
                                           const std::vector<size_t> &matches) {
    Impl &d = *m_impl;
    auto it = d.quantWanted.find(name);
    if (it == d.quantWanted.end()) return Status::ok();
    for (const auto &[matchIndex, needsDequantize] : it->second) {
        if (std::find(matches.begin(), matches.end(), matchIndex) == matches.end()) continue;
        QL_RETURN_IF_ERROR(d.compareLayer(matchIndex, needsDequantize, value, floatValues));
        d.result.layers[matchIndex].observed = true;
    }
    return Status::ok();
}

Status CumulativeComparison::addOutputs(const std::map<std::string, Tensor> &inputs,
                                        const std::vector<Tensor> &floatOutputs,
                                        const std::vector<Tensor> &quantOutputs) {
    Impl &d = *m_impl;
    QL_RETURN_IF_ERROR(d.compareOutputs(floatOutputs, quantOutputs));
    d.countBatch(inputs, floatOutputs);
    return Status::ok();
}

ActivationComparisonResult CumulativeComparison::result() const {
    const Impl &d = *m_impl;
    ActivationComparisonResult r = d.result;
    for (size_t i = 0; i < d.accumulators.size(); ++i) {
        r.layers[i].metrics = d.accumulators[i].result();
        r.layers[i].sampleRanges = d.accumulators[i].sampleRanges();
        r.layers[i].channelMaxima = d.channelMaxima[i];
        r.layers[i].channelMeanError = d.meanErrors[i].means();
    }
    for (size_t o = 0; o < d.outputAccumulators.size(); ++o) {
        OutputComparison &out = r.outputs[o];
        out.metrics = d.outputAccumulators[o].result();
        out.rows = d.rows[o];
        out.top1Agreements = d.agreements[o];
        out.top1Agreement =
            d.rows[o] ? static_cast<double>(d.agreements[o]) / static_cast<double>(d.rows[o])
                      : std::numeric_limits<double>::quiet_NaN();
        if (o == 0) out.floatTop1 = d.floatTop1, out.quantTop1 = d.quantTop1;
        if (o == 0 && !d.labels.empty()) {
            out.labelled = true;
            out.floatCorrect = d.floatCorrect;
            out.quantCorrect = d.quantCorrect;
        }
    }
    return r;
}

Result<ActivationComparisonResult> compareActivations(const Graph &floatGraph,
                                                      const Graph &quantGraph,
                                                      const LayerMatching &matching,
                                                      const ActivationBatchSource &source,
                                                      const ActivationComparisonOptions &options) {
    if (!source) return Status::badInput("activation comparison: no batch source");
    auto comparison = CumulativeComparison::create(floatGraph, quantGraph, matching, options);
    if (!comparison) return comparison.status();

    auto floatPlan =
        createFloatPlan(floatGraph, options.threads, (*comparison)->floatValuesNeeded());
    if (!floatPlan) return floatPlan.status();

    std::map<std::string, Tensor> batch, floatValues;
    std::vector<Tensor> floatOutputs;
    for (int done = 1;; ++done) {
        batch.clear();
        auto more = source(batch);
        if (!more) return more.status();
        if (!*more) break;
        QL_RETURN_IF_ERROR(runAndCapture(**floatPlan, batch, (*comparison)->floatValuesNeeded(),
                                         floatValues, floatOutputs)
                               .withContext("float model"));
        QL_RETURN_IF_ERROR((*comparison)->addBatch(batch, floatValues, floatOutputs));
        if (options.progress && !options.progress(done, options.expectedBatches))
            return Status::error(ErrorKind::Cancelled, "activation comparison cancelled");
    }
    return (*comparison)->result();
}

}  // namespace ql::analysis
