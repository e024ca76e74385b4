#include "analysis/explain/element_explanation.h"

#include <algorithm>
#include <cmath>

#include "analysis/explain/element_explanation_support.h"
#include "analysis/pairing/layer_weights.h"
#include "kernels/convolution_common.h"
#include "kernels/quantization_common.h"
namespace ql::analysis {
namespace explain_detail {

using Kind = ElementExplanation::Kind;

Status explainIntegerMatMul(const LayerCapture &c, const Node &node, ElementExplanation &e) {
    const Graph &g = c.quantRun;
    e.kind = Kind::IntegerMatMul;
    const Tensor *x = captured(c.quantValues, node.inputs[0]);
    const Tensor *w = node.hasInput(3) ? constantBehind(g, node.inputs[3]) : nullptr;
    const Tensor *y = captured(c.quantValues, node.outputs[0]);
    if (!x || !w || !y)
        return Status::badInput(node.describe() + ": input, weight or output was not captured");
    if (y->shape() != e.outputShape)
        return Status::badInput(node.describe() + ": output shape " + shapeToString(y->shape()) +
                                " differs from the layer's " + shapeToString(e.outputShape));
    const bool conv = node.opType == "QLinearConv", gemm = node.opType == "QGemm";
    const size_t yScaleInput = gemm ? 7 : 6, yZpInput = gemm ? 8 : 7;
    const std::vector<float> xs = floatParams(g, node, 1), ws = floatParams(g, node, 4),
                             ys = floatParams(g, node, yScaleInput);
    if (xs.empty() || ws.empty() || ys.empty())
        return Status::badInput(node.describe() + ": scales are not constants");
    const std::vector<int32_t> xzp = intParams(g, node, 2, 1),
                               wzp = intParams(g, node, 5, ws.size()),
                               yzp = intParams(g, node, yZpInput, 1);
    e.yScale = ys[0];
    e.yZeroPoint = yzp[0];
    e.xScale = xs[0];
    e.xZeroPoint = xzp[0];
    int64_t lo = 0, hi = 0;
    QL_RETURN_IF_ERROR(quant::integerRange(y->dtype(), lo, hi));
    quant::QuantActivation act;
    QL_RETURN_IF_ERROR(quant::readQuantActivation(node, act));
    if (act.kind == quant::QuantActivation::Kind::Relu) e.activation = "Relu";
    if (act.kind == quant::QuantActivation::Kind::Clip) e.activation = "Clip";
    quant::narrowToActivation(act, ys[0], yzp[0], lo, hi);
    e.engineQuantized = static_cast<int64_t>(valueAt(*y, flatIndex(y->shape(), e.element)));

    // The float side: the float layer's input and its (folded) weight.
    const Node *fnode = c.floatFolded.findNode(c.match.floatNode);
    const Tensor *xf =
        fnode && fnode->hasInput(0) ? captured(c.floatValues, fnode->inputs[0]) : nullptr;
    Tensor wf;
    if (auto found = findLayerWeights(c.floatFolded, c.quantFolded, c.match);
        found && found->weights && found->weights->floatWeight.shape() == w->shape()) {
        wf = found->weights->floatWeight;
        e.batchNormFolded = found->weights->batchNormFolded;
    } else {
        e.notes.push_back("the float weight is not available: the float formula is left out");
    }
    const bool withFloat = xf && wf.defined() && xf->shape() == x->shape();
    double floatSum = 0.0;

    auto addTerm = [&](std::vector<int64_t> xi, std::vector<int64_t> wi, int32_t xzpValue,
                       int32_t wzpValue, float xScale, float wScale) {
        ExplainedTerm t;
        const int64_t xf_ = flatIndex(x->shape(), xi), wf_ = flatIndex(w->shape(), wi);
        t.xq = static_cast<int32_t>(valueAt(*x, xf_));
        t.wq = static_cast<int32_t>(valueAt(*w, wf_));
        t.xReal = static_cast<double>(xScale) * (t.xq - xzpValue);
        t.wReal = static_cast<double>(wScale) * (t.wq - wzpValue);
        t.product = static_cast<int64_t>(t.xq - xzpValue) * (t.wq - wzpValue);
        if (withFloat) {
            t.hasFloat = true;
            t.xFloat = valueAt(*xf, xf_);
            t.wFloat = valueAt(wf, wf_);
            floatSum += t.xFloat * t.wFloat;
        }
        t.inputIndex = std::move(xi);
        t.weightIndex = std::move(wi);
        e.accumulator += t.product;
        e.terms.push_back(std::move(t));
    };

    int64_t channel = 0;
    int32_t bias = 0;
    float multiplier = 0.0f;
    if (conv) {
        e.quantOp = "QLinearConv";
        conv::ConvGeometry geo;
        QL_RETURN_IF_ERROR(
            conv::resolveConvGeometry(conv::readConvAttributes(node), x->shape(), w->shape(), geo)
                .withContext(node.describe()));
        const int rank = geo.spatialRank;
        const int64_t n = e.element[0], m = e.element[1];
        channel = m;
        const int64_t groupOut = w->dim(0) / geo.group, groupIn = w->dim(1), grp = m / groupOut;
        const int32_t wz = pick(wzp, m);
        const float wScale = pick(ws, m);
        e.wZeroPoint = wz;
        e.wScale = wScale;
        int64_t taps = 1;
        for (int i = 0; i < rank; ++i) taps *= geo.kernel[i];
        for (int64_t ic = 0; ic < groupIn; ++ic) {
            for (int64_t t = 0; t < taps; ++t) {
                std::vector<int64_t> k(rank), xi = {n, grp * groupIn + ic}, wi = {m, ic};
                for (int64_t r = t, i = rank - 1; i >= 0; --i) {
                    k[i] = r % geo.kernel[i];
                    r /= geo.kernel[i];
                }
                bool inside = true;
                for (int i = 0; i < rank; ++i) {
                    const int64_t pos = e.element[2 + i] * geo.strides[i] - geo.padBegin[i] +
                                        k[i] * geo.dilations[i];
                    inside = inside && pos >= 0 && pos < x->dim(2 + i);
                    xi.push_back(pos);
                    wi.push_back(k[i]);
                }
                if (!inside) {
                    ++e.paddingTaps;
                    continue;
                }
                addTerm(xi, wi, xzp[0], wz, xs[0], wScale);
            }
        }
        if (node.hasInput(8)) {
            const Tensor *b = constantBehind(g, node.inputs[8]);
            if (b) bias = static_cast<int32_t>(b->valueAsDouble(b->numel() == 1 ? 0 : m));
        }
        multiplier = xs[0] * wScale / ys[0];
    } else if (gemm || node.opType == "QLinearMatMul") {
        e.quantOp = node.opType;
        const bool transA = gemm && node.attrInt("transA", 0),
                   transB = gemm && node.attrInt("transB", 0);
        const float alpha = gemm ? node.attrFloat("alpha", 1.0f) : 1.0f;
        if (w->rank() != 2 || x->rank() < 2 || (gemm && x->rank() != 2))
            return Status::unsupported(node.describe() +
                                       ": only a 2-D constant weight is explained");
        const int64_t i = e.element[e.element.size() - 2], j = e.element.back();
        const int64_t k = transB ? w->dim(1) : w->dim(0);
        channel = j;
        const int32_t wz = pick(wzp, j);
        const float wScale = pick(ws, j);
        e.wZeroPoint = wz;
        e.wScale = wScale;
        for (int64_t p = 0; p < k; ++p) {
            std::vector<int64_t> xi(e.element.begin(), e.element.end() - 2);
            if (transA) {
                xi.push_back(p);
                xi.push_back(i);
            } else {
                xi.push_back(i);
                xi.push_back(p);
            }
            std::vector<int64_t> wi =
                transB ? std::vector<int64_t>{j, p} : std::vector<int64_t>{p, j};
            addTerm(xi, wi, xzp[0], wz, xs[0], wScale);
        }
        if (gemm) {
            if (node.hasInput(6)) {
                const Tensor *b = constantBehind(g, node.inputs[6]);
                if (!b) return Status::unsupported(node.describe() + ": bias C is not a constant");
                const int64_t rows = b->rank() == 2 ? b->dim(0) : 1,
                              cols = b->rank() == 0 ? 1 : b->dim(-1);
                bias = static_cast<int32_t>(
                    b->valueAsDouble((rows == 1 ? 0 : i) * cols + (cols == 1 ? 0 : j)));
            }
            const float scale = alpha * xs[0] * wScale;
            multiplier = scale / ys[0];
        } else {
            multiplier = xs[0] * wScale / ys[0];
        }
        if (withFloat) floatSum *= alpha;
    } else {
        return Status::unsupported(node.describe() + ": no integer explanation");
    }
    e.channel = channel;
    e.biasInt32 = bias;
    e.accumulatorWithBias = e.accumulator + bias;
    e.multiplier = multiplier;
    // The kernel: float(acc + bias) · M, rounded half to even, + y_zp, clamped.
    const float scaled =
        static_cast<float>(static_cast<int32_t>(e.accumulatorWithBias)) * multiplier;
    e.realResult = static_cast<double>(scaled) * ys[0];
    finishQuantized(e, scaled, lo, hi);

    e.floatFormula = conv ? "Σ x·w + b" : (gemm ? "alpha·Σ a·b + beta·c" : "Σ a·b");
    if (withFloat) {
        auto bias = floatLayerBias(
            c.floatFolded, c.match,
            w->dim(static_cast<int>(conv ? 0 : (node.attrInt("transB", 0) ? 0 : 1))));
        if (bias) e.floatBias = (*bias)[static_cast<size_t>(channel)];
        e.floatComputed = applyFloatFolded(c, floatSum + e.floatBias);
    } else {
        e.floatComputed = e.floatModelValue;
    }
    return Status::ok();
}

}  // namespace explain_detail

using namespace explain_detail;

std::vector<int64_t> worstElement(const LayerCapture &capture) {
    const Tensor &x = capture.floatOutput, &y = capture.quantOutput;
    const int64_t samples = x.rank() == 0 ? 1 : std::max<int64_t>(x.dim(0), 1);
    const int64_t per = x.numel() / samples;
    int64_t best = 0;
    double worst = -1.0;
    for (int64_t i = 0; i < per; ++i) {
        const double d = std::fabs(static_cast<double>(x.data<float>()[i]) - y.data<float>()[i]);
        if (d > worst) {
            worst = d;
            best = i;
        }
    }
    return coordsOf(x.shape(), best);
}

Result<ElementExplanation> explainElement(const LayerCapture &c, std::vector<int64_t> element) {
    ElementExplanation e;
    e.outputShape = c.floatOutput.shape();
    if (element.empty()) element = worstElement(c);
    if (element.size() != e.outputShape.size())
        return Status::badInput("element needs " + std::to_string(e.outputShape.size()) +
                                " coordinates for output " + shapeToString(e.outputShape));
    for (size_t d = 0; d < element.size(); ++d)
        if (element[d] < 0 || element[d] >= e.outputShape[d])
            return Status::badInput("element coordinate " + std::to_string(d) +
                                    " is out of range for output " + shapeToString(e.outputShape));
    e.element = element;
    e.sample = element.empty() ? 0 : element[0];
    e.foldedQuantNodes = c.match.foldedQuantNodes;
    const Node *fnode = c.floatFolded.findNode(c.match.floatNode);
    e.floatOp = fnode ? fnode->opType : "";
    const int64_t flat = flatIndex(e.outputShape, element);
    e.floatModelValue = c.floatOutput.data<float>()[flat];
    e.engineDequantized = c.quantOutput.data<float>()[flat];
    e.difference = e.engineDequantized - e.floatModelValue;
    if (c.quantRunNode < 0) {
        e.notes.push_back("the quantized layer '" + c.match.quantNode +
                          "' was rewritten away when the model was prepared");
        e.floatComputed = e.floatModelValue;
        return e;
    }
    const Node &node = c.quantRun.nodes[static_cast<size_t>(c.quantRunNode)];
    if (node.opType == "QLinearConv" || node.opType == "QGemm" || node.opType == "QLinearMatMul") {
        QL_RETURN_IF_ERROR(explainIntegerMatMul(c, node, e));
    } else if (node.opType == "BatchNormalization") {
        explainBatchNorm(c, node, e);
    } else {
        explainRequantize(c, node, e);
    }
    if (e.engineQuantized) e.matchesEngine = *e.engineQuantized == e.quantized;
    return e;
}

Result<ElementExplanation> explainElement(const Graph &floatGraph, const Graph &quantGraph,
                                          const LayerMatch &match,
                                          const std::map<std::string, Tensor> &batch,
                                          std::vector<int64_t> element,
                                          const LayerCaptureOptions &options) {
    auto capture = captureLayer(floatGraph, quantGraph, match, batch, options);
    if (!capture) return capture.status();
    return explainElement(*capture, std::move(element));
}

}  // namespace ql::analysis
