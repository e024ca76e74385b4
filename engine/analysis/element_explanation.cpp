#include "analysis/element_explanation.h"

#include <algorithm>
#include <cmath>

#include "analysis/layer_weights.h"
#include "kernels/convolution_common.h"
#include "kernels/quantization_common.h"

namespace ql::analysis {
namespace {

using Kind = ElementExplanation::Kind;

int64_t flatIndex(const Shape &shape, const std::vector<int64_t> &coords) {
    int64_t flat = 0;
    for (size_t d = 0; d < shape.size(); ++d) flat = flat * shape[d] + coords[d];
    return flat;
}

std::vector<int64_t> coordsOf(const Shape &shape, int64_t flat) {
    std::vector<int64_t> coords(shape.size(), 0);
    for (int d = static_cast<int>(shape.size()) - 1; d >= 0; --d) {
        coords[d] = shape[d] > 0 ? flat % shape[d] : 0;
        flat = shape[d] > 0 ? flat / shape[d] : 0;
    }
    return coords;
}

// Index into an operand broadcast (numpy rules) to the output's coordinates.
int64_t broadcastIndex(const Shape &operand, const std::vector<int64_t> &outCoords) {
    const size_t offset = outCoords.size() - operand.size();
    int64_t flat = 0;
    for (size_t d = 0; d < operand.size(); ++d)
        flat = flat * operand[d] + (operand[d] == 1 ? 0 : outCoords[offset + d]);
    return flat;
}

bool broadcastable(const Shape &operand, const Shape &out) {
    if (operand.size() > out.size()) return false;
    const size_t offset = out.size() - operand.size();
    for (size_t d = 0; d < operand.size(); ++d)
        if (operand[d] != 1 && operand[d] != out[offset + d]) return false;
    return true;
}

double valueAt(const Tensor &t, int64_t flat) { return t.valueAsDouble(flat); }

const Tensor *captured(const std::map<std::string, Tensor> &values, const std::string &name) {
    auto it = values.find(name);
    return it == values.end() ? nullptr : &it->second;
}

// Scalar or per-channel float / integer parameters of the graph as it ran.
std::vector<float> floatParams(const Graph &g, const Node &node, size_t input) {
    const Tensor *t = node.hasInput(input) ? constantBehind(g, node.inputs[input]) : nullptr;
    return t ? t->toFloatVector() : std::vector<float>{};
}
std::vector<int32_t> intParams(const Graph &g, const Node &node, size_t input, size_t fallbackSize) {
    const Tensor *t = node.hasInput(input) ? constantBehind(g, node.inputs[input]) : nullptr;
    std::vector<int32_t> out;
    if (t)
        for (int64_t v : t->toInt64Vector()) out.push_back(static_cast<int32_t>(v));
    if (out.empty()) out.assign(std::max<size_t>(fallbackSize, 1), 0);
    return out;
}
template <class V>
V pick(const std::vector<V> &v, int64_t i) { return v.size() == 1 ? v[0] : v[static_cast<size_t>(i)]; }

bool isEightBit(DataType t) { return t == DataType::UInt8 || t == DataType::Int8; }

// The float value after the float model's folded Relu/Clip, as in the float graph.
double applyFloatFolded(const LayerCapture &c, double v) {
    for (const auto &name : c.match.foldedFloatNodes) {
        const Node *n = c.floatFolded.findNode(name);
        if (!n) continue;
        if (n->opType == "Relu") v = std::max(v, 0.0);
        if (n->opType == "Clip") {
            const Tensor *lo = n->hasInput(1) ? constantBehind(c.floatFolded, n->inputs[1]) : nullptr;
            const Tensor *hi = n->hasInput(2) ? constantBehind(c.floatFolded, n->inputs[2]) : nullptr;
            if (lo) v = std::max(v, lo->valueAsDouble(0));
            if (hi) v = std::min(v, hi->valueAsDouble(0));
        }
    }
    return v;
}

// The output chain of a quantized result already in "scaled" units (acc·M or real/y_scale).
void finishQuantized(ElementExplanation &e, float scaled, int64_t lo, int64_t hi) {
    e.scaled = scaled;
    const float rounded = quant::roundHalfEven(scaled);
    e.rounded = rounded;
    const float v = rounded + static_cast<float>(e.yZeroPoint);
    e.beforeClamp = static_cast<int64_t>(v);
    e.qmin = lo;
    e.qmax = hi;
    e.quantized = std::min(std::max(e.beforeClamp, lo), hi);
    e.clamped = e.quantized != e.beforeClamp;
    e.dequantized = static_cast<double>(e.yScale) * static_cast<double>(e.quantized - e.yZeroPoint);
}

Status explainIntegerMatMul(const LayerCapture &c, const Node &node, ElementExplanation &e) {
    const Graph &g = c.quantRun;
    e.kind = Kind::IntegerMatMul;
    const Tensor *x = captured(c.quantValues, node.inputs[0]);
    const Tensor *w = node.hasInput(3) ? constantBehind(g, node.inputs[3]) : nullptr;
    const Tensor *y = captured(c.quantValues, node.outputs[0]);
    if (!x || !w || !y) return Status::badInput(node.describe() + ": input, weight or output was not captured");
    if (y->shape() != e.outputShape)
        return Status::badInput(node.describe() + ": output shape " + shapeToString(y->shape()) +
                                " differs from the layer's " + shapeToString(e.outputShape));
    const bool conv = node.opType == "QLinearConv", gemm = node.opType == "QGemm";
    const size_t yScaleInput = gemm ? 7 : 6, yZpInput = gemm ? 8 : 7;
    const std::vector<float> xs = floatParams(g, node, 1), ws = floatParams(g, node, 4), ys = floatParams(g, node, yScaleInput);
    if (xs.empty() || ws.empty() || ys.empty()) return Status::badInput(node.describe() + ": scales are not constants");
    const std::vector<int32_t> xzp = intParams(g, node, 2, 1), wzp = intParams(g, node, 5, ws.size()),
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
    const Tensor *xf = fnode && fnode->hasInput(0) ? captured(c.floatValues, fnode->inputs[0]) : nullptr;
    Tensor wf;
    if (auto found = findLayerWeights(c.floatFolded, c.quantFolded, c.match); found && found->weights &&
                                                                             found->weights->floatWeight.shape() == w->shape()) {
        wf = found->weights->floatWeight;
        e.batchNormFolded = found->weights->batchNormFolded;
    } else {
        e.notes.push_back("the float weight is not available: the float formula is left out");
    }
    const bool withFloat = xf && wf.defined() && xf->shape() == x->shape();
    double floatSum = 0.0;

    auto addTerm = [&](std::vector<int64_t> xi, std::vector<int64_t> wi, int32_t xzpValue, int32_t wzpValue, float xScale,
                       float wScale) {
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
        QL_RETURN_IF_ERROR(conv::resolveConvGeometry(conv::readConvAttributes(node), x->shape(), w->shape(), geo)
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
                    const int64_t pos = e.element[2 + i] * geo.strides[i] - geo.padBegin[i] + k[i] * geo.dilations[i];
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
        const bool transA = gemm && node.attrInt("transA", 0), transB = gemm && node.attrInt("transB", 0);
        const float alpha = gemm ? node.attrFloat("alpha", 1.0f) : 1.0f;
        if (w->rank() != 2 || x->rank() < 2 || (gemm && x->rank() != 2))
            return Status::unsupported(node.describe() + ": only a 2-D constant weight is explained");
        const int64_t i = e.element[e.element.size() - 2], j = e.element.back();
        const int64_t k = transB ? w->dim(1) : w->dim(0);
        channel = j;
        const int32_t wz = pick(wzp, j);
        const float wScale = pick(ws, j);
        e.wZeroPoint = wz;
        e.wScale = wScale;
        for (int64_t p = 0; p < k; ++p) {
            std::vector<int64_t> xi(e.element.begin(), e.element.end() - 2);
            if (transA) { xi.push_back(p); xi.push_back(i); } else { xi.push_back(i); xi.push_back(p); }
            std::vector<int64_t> wi = transB ? std::vector<int64_t>{j, p} : std::vector<int64_t>{p, j};
            addTerm(xi, wi, xzp[0], wz, xs[0], wScale);
        }
        if (gemm) {
            if (node.hasInput(6)) {
                const Tensor *b = constantBehind(g, node.inputs[6]);
                if (!b) return Status::unsupported(node.describe() + ": bias C is not a constant");
                const int64_t rows = b->rank() == 2 ? b->dim(0) : 1, cols = b->rank() == 0 ? 1 : b->dim(-1);
                bias = static_cast<int32_t>(b->valueAsDouble((rows == 1 ? 0 : i) * cols + (cols == 1 ? 0 : j)));
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
    const float scaled = static_cast<float>(static_cast<int32_t>(e.accumulatorWithBias)) * multiplier;
    e.realResult = static_cast<double>(scaled) * ys[0];
    finishQuantized(e, scaled, lo, hi);

    e.floatFormula = conv ? "Σ x·w + b" : (gemm ? "alpha·Σ a·b + beta·c" : "Σ a·b");
    if (withFloat) {
        auto bias = floatLayerBias(c.floatFolded, c.match, w->dim(static_cast<int>(conv ? 0 : (node.attrInt("transB", 0) ? 0 : 1))));
        if (bias) e.floatBias = (*bias)[static_cast<size_t>(channel)];
        e.floatComputed = applyFloatFolded(c, floatSum + e.floatBias);
    } else {
        e.floatComputed = e.floatModelValue;
    }
    return Status::ok();
}

// The QuantizeLinear of quantRun that reads `value`, or nullptr.
const Node *quantizerOf(const Graph &g, const std::string &value) {
    for (const auto &n : g.nodes)
        if (n.opType == "QuantizeLinear" && n.hasInput(0) && n.inputs[0] == value) return &n;
    return nullptr;
}

// Applies the quantized model's folded Relu/Clip to a real value.
double applyQuantFolded(const LayerCapture &c, double v, std::string &last) {
    for (const auto &name : c.match.foldedQuantNodes) {
        const Node *n = c.quantRun.findNode(name);
        if (!n) continue;
        if (n->opType == "Relu") v = std::max(v, 0.0);
        if (n->opType == "Clip") {
            const Tensor *lo = n->hasInput(1) ? constantBehind(c.quantRun, n->inputs[1]) : nullptr;
            const Tensor *hi = n->hasInput(2) ? constantBehind(c.quantRun, n->inputs[2]) : nullptr;
            if (lo) v = std::max(v, lo->valueAsDouble(0));
            if (hi) v = std::min(v, hi->valueAsDouble(0));
        }
        if (!n->outputs.empty()) last = n->outputs[0];
    }
    return v;
}

// An operand of the node at the element: its value as the op read it, and the quantized
// integer behind it when it comes from a DequantizeLinear (or is itself 8-bit).
std::optional<ExplainedOperand> operandAt(const LayerCapture &c, const std::string &value,
                                          const std::vector<int64_t> &element, const Shape &outShape) {
    const Tensor *t = captured(c.quantValues, value);
    if (!t || !broadcastable(t->shape(), outShape)) return std::nullopt;
    ExplainedOperand op;
    op.name = value;
    const int64_t at = broadcastIndex(t->shape(), element);
    op.real = valueAt(*t, at);
    const int p = c.quantRun.producerIndex(value);
    if (p >= 0 && c.quantRun.nodes[p].opType == "DequantizeLinear") {
        const Node &dq = c.quantRun.nodes[p];
        const Tensor *q = captured(c.quantValues, dq.inputs[0]);
        const std::vector<float> s = floatParams(c.quantRun, dq, 1);
        if (q && s.size() == 1 && q->shape() == t->shape()) {
            op.quantized = true;
            op.q = static_cast<int32_t>(valueAt(*q, at));
            op.scale = s[0];
            op.zeroPoint = intParams(c.quantRun, dq, 2, 1)[0];
        }
    }
    return op;
}

void explainBatchNorm(const LayerCapture &c, const Node &node, ElementExplanation &e) {
    e.kind = Kind::BatchNorm;
    e.quantOp = "DequantizeLinear → BatchNormalization → QuantizeLinear";
    e.opFormula = "gamma·(x − mean)/sqrt(var + eps) + beta";
    const int64_t ch = e.element.size() > 1 ? e.element[1] : 0;
    e.channel = ch;
    double p[4] = {};
    for (int i = 0; i < 4; ++i) {
        const Tensor *t = node.hasInput(i + 1) ? constantBehind(c.quantRun, node.inputs[i + 1]) : nullptr;
        if (t) p[i] = t->valueAsDouble(t->numel() == 1 ? 0 : ch);
    }
    e.gamma = p[0];
    e.beta = p[1];
    e.mean = p[2];
    e.var = p[3];
    e.epsilon = node.attrFloat("epsilon", 1e-5f);
    if (auto op = operandAt(c, node.inputs[0], e.element, e.outputShape)) e.operands.push_back(*op);
    const double x = e.operands.empty() ? 0.0 : e.operands[0].real;
    double y = e.gamma * (x - e.mean) / std::sqrt(e.var + e.epsilon) + e.beta;
    std::string last = node.outputs[0];
    y = applyQuantFolded(c, y, last);
    e.realResult = y;
    // The float model's BN on its own input.
    const Node *fnode = c.floatFolded.findNode(c.match.floatNode);
    if (fnode && fnode->opType == "BatchNormalization") {
        const Tensor *xf = captured(c.floatValues, fnode->inputs[0]);
        double fp[4] = {};
        bool ok = xf != nullptr;
        for (int i = 0; i < 4 && ok; ++i) {
            const Tensor *t = fnode->hasInput(i + 1) ? constantBehind(c.floatFolded, fnode->inputs[i + 1]) : nullptr;
            ok = t != nullptr;
            if (t) fp[i] = t->valueAsDouble(t->numel() == 1 ? 0 : ch);
        }
        if (ok) {
            const double xv = valueAt(*xf, flatIndex(xf->shape(), e.element));
            if (!e.operands.empty()) e.operands[0].floatValue = xv;
            e.floatComputed = applyFloatFolded(c, fp[0] * (xv - fp[2]) / std::sqrt(fp[3] + fnode->attrFloat("epsilon", 1e-5f)) + fp[1]);
        }
    }
    e.floatFormula = e.opFormula;
    const Node *q = quantizerOf(c.quantRun, last);
    if (!q) {
        e.notes.push_back("the BatchNormalization output is not requantized");
        return;
    }
    const std::vector<float> s = floatParams(c.quantRun, *q, 1);
    const Tensor *qout = captured(c.quantValues, q->outputs[0]);
    if (s.size() != 1 || !qout) {
        e.notes.push_back("the output quantization is not per tensor");
        return;
    }
    e.yScale = s[0];
    e.yZeroPoint = intParams(c.quantRun, *q, 2, 1)[0];
    int64_t lo = 0, hi = 255;
    (void)quant::integerRange(qout->dtype(), lo, hi);
    finishQuantized(e, static_cast<float>(y) / e.yScale, lo, hi);
    e.engineQuantized = static_cast<int64_t>(valueAt(*qout, flatIndex(qout->shape(), e.element)));
}

// MaxPool window (plain NCHW..., NOTSET padding) of the node's input at the element.
void addPoolWindow(const LayerCapture &c, const Node &node, ElementExplanation &e) {
    const Tensor *x = captured(c.quantValues, node.inputs[0]);
    if (!x || x->rank() < 3 || node.attrString("auto_pad", "NOTSET") != "NOTSET") return;
    const int rank = x->rank() - 2;
    const std::vector<int64_t> kernel = node.attrInts("kernel_shape");
    std::vector<int64_t> strides = node.attrInts("strides"), dil = node.attrInts("dilations"), pads = node.attrInts("pads");
    if (static_cast<int>(kernel.size()) != rank) return;
    strides.resize(rank, 1);
    dil.resize(rank, 1);
    pads.resize(2 * rank, 0);
    int64_t taps = 1;
    for (int64_t k : kernel) taps *= k;
    for (int64_t t = 0; t < taps; ++t) {
        std::vector<int64_t> xi = {e.element[0], e.element[1]}, k(rank);
        for (int64_t r = t, i = rank - 1; i >= 0; --i) {
            k[i] = r % kernel[i];
            r /= kernel[i];
        }
        bool inside = true;
        for (int i = 0; i < rank; ++i) {
            const int64_t pos = e.element[2 + i] * strides[i] - pads[i] + k[i] * dil[i];
            inside = inside && pos >= 0 && pos < x->dim(2 + i);
            xi.push_back(pos);
        }
        if (!inside) continue;
        ExplainedOperand op;
        op.name = node.inputs[0];
        const int64_t at = flatIndex(x->shape(), xi);
        if (isEightBit(x->dtype())) {
            op.quantized = true;
            op.q = static_cast<int32_t>(valueAt(*x, at));
            op.real = op.q;
        } else {
            op.real = valueAt(*x, at);
        }
        e.operands.push_back(op);
    }
}

void explainRequantize(const LayerCapture &c, const Node &node, ElementExplanation &e) {
    e.kind = Kind::Requantize;
    e.quantOp = node.opType;
    const Graph &g = c.quantRun;
    const Tensor *out = captured(c.quantValues, node.outputs[0]);
    const bool intOut = out && isEightBit(out->dtype());
    const bool pool = node.opType == "MaxPool";
    if (pool) {
        addPoolWindow(c, node, e);
        e.opFormula = "max(window)";
    } else if (node.opType == "QLinearAdd" || node.opType == "QLinearMul") {
        for (size_t base : {size_t(0), size_t(3)}) {
            const Tensor *t = captured(c.quantValues, node.inputs[base]);
            const std::vector<float> s = floatParams(g, node, base + 1);
            if (!t || s.size() != 1 || !broadcastable(t->shape(), e.outputShape)) continue;
            ExplainedOperand op;
            op.name = node.inputs[base];
            op.quantized = true;
            op.q = static_cast<int32_t>(valueAt(*t, broadcastIndex(t->shape(), e.element)));
            op.scale = s[0];
            op.zeroPoint = intParams(g, node, base + 2, 1)[0];
            op.real = static_cast<double>(op.scale) * (op.q - op.zeroPoint);
            e.operands.push_back(op);
        }
        e.opFormula = node.opType == "QLinearAdd" ? "a + b" : "a · b";
    } else {
        for (const auto &in : node.inputs) {
            if (in.empty() || g.isInitializer(in)) continue;
            if (auto op = operandAt(c, in, e.element, e.outputShape)) e.operands.push_back(*op);
        }
        e.opFormula = node.opType;
    }
    // Float-side operands: the float node's inputs at the element (same-shape or broadcast).
    const Node *fnode = c.floatFolded.findNode(c.match.floatNode);
    if (fnode && !pool) {
        size_t k = 0;
        for (const auto &in : fnode->inputs) {
            const Tensor *t = in.empty() ? nullptr : captured(c.floatValues, in);
            if (!t || k >= e.operands.size()) continue;
            if (broadcastable(t->shape(), e.outputShape))
                e.operands[k].floatValue = valueAt(*t, broadcastIndex(t->shape(), e.element));
            ++k;
        }
    }
    e.floatFormula = fnode ? fnode->opType : std::string();
    e.floatComputed = e.floatModelValue;
    if (fnode && (fnode->opType == "Add" || fnode->opType == "Sub" || fnode->opType == "Mul") && e.operands.size() == 2 &&
        e.operands[0].floatValue && e.operands[1].floatValue) {
        const double a = *e.operands[0].floatValue, b = *e.operands[1].floatValue;
        const double r = fnode->opType == "Add" ? a + b : fnode->opType == "Sub" ? a - b : a * b;
        e.floatComputed = applyFloatFolded(c, r);
        e.floatFormula = fnode->opType == "Add" ? "a + b" : fnode->opType == "Sub" ? "a − b" : "a · b";
    }

    if (node.opType == "QLinearAdd" || node.opType == "QLinearMul") {
        // As the kernel: in units of C_scale, one float multiply-add per operand.
        const std::vector<float> sc = floatParams(g, node, 6);
        if (e.operands.size() != 2 || sc.size() != 1 || !intOut) {
            e.notes.push_back("the operands could not be read");
            return;
        }
        const ExplainedOperand &a = e.operands[0], &b = e.operands[1];
        e.yScale = sc[0];
        e.yZeroPoint = intParams(g, node, 7, 1)[0];
        float v = 0.0f;
        if (node.opType == "QLinearAdd") {
            const float ra = a.scale / sc[0], rb = b.scale / sc[0];
            const float bias = -(ra * static_cast<float>(a.zeroPoint) + rb * static_cast<float>(b.zeroPoint));
            v = ra * static_cast<float>(a.q) + rb * static_cast<float>(b.q) + bias;
            e.realResult = a.real + b.real;
        } else {
            const float k = a.scale * b.scale / sc[0];
            v = k * (static_cast<float>(a.q) - static_cast<float>(a.zeroPoint)) *
                (static_cast<float>(b.q) - static_cast<float>(b.zeroPoint));
            e.realResult = a.real * b.real;
        }
        int64_t lo = 0, hi = 255;
        (void)quant::integerRange(out->dtype(), lo, hi);
        finishQuantized(e, v, lo, hi);
        e.engineQuantized = static_cast<int64_t>(valueAt(*out, flatIndex(out->shape(), e.element)));
        return;
    }
    if (intOut) {
        // An op on the 8-bit tensor itself (MaxPool, Reshape...): no requantization.
        const std::vector<float> s = c.target.scale;
        e.engineQuantized = static_cast<int64_t>(valueAt(*out, flatIndex(out->shape(), e.element)));
        if (pool && !e.operands.empty()) {
            int64_t best = e.operands[0].q;
            for (const auto &op : e.operands) best = std::max<int64_t>(best, op.q);
            e.quantized = best;
            e.beforeClamp = best;
        } else {
            e.quantized = *e.engineQuantized;
            e.beforeClamp = e.quantized;
            e.notes.push_back(node.opType + " runs on the 8-bit tensor; its value is the engine's");
        }
        if (s.size() == 1) {
            e.yScale = s[0];
            e.yZeroPoint = c.target.zeroPoint.empty() ? 0 : c.target.zeroPoint[0];
            for (auto &op : e.operands)
                if (op.quantized && op.scale == 0.0f) {
                    op.scale = e.yScale;
                    op.zeroPoint = e.yZeroPoint;
                    op.real = static_cast<double>(op.scale) * (op.q - op.zeroPoint);
                }
        }
        e.rounded = static_cast<double>(e.quantized - e.yZeroPoint);
        e.scaled = e.rounded;
        e.realResult = static_cast<double>(e.yScale) * (e.quantized - e.yZeroPoint);
        (void)quant::integerRange(out->dtype(), e.qmin, e.qmax);
        e.dequantized = e.realResult;
        return;
    }
    // Float op between DequantizeLinear and QuantizeLinear: the engine's real result, then Q.
    if (!out) {
        e.notes.push_back("the layer's output was not captured");
        return;
    }
    std::string last = node.outputs[0];
    double real = valueAt(*out, flatIndex(out->shape(), e.element));
    applyQuantFolded(c, real, last);
    if (const Tensor *t = captured(c.quantValues, last); t && t->shape() == out->shape())
        real = valueAt(*t, flatIndex(t->shape(), e.element));
    e.realResult = real;
    const Node *q = quantizerOf(g, last);
    const std::vector<float> s = q ? floatParams(g, *q, 1) : std::vector<float>{};
    const Tensor *qout = q ? captured(c.quantValues, q->outputs[0]) : nullptr;
    if (!q || s.size() != 1 || !qout) {
        e.notes.push_back("the layer runs in float and is not requantized here");
        return;
    }
    e.yScale = s[0];
    e.yZeroPoint = intParams(g, *q, 2, 1)[0];
    int64_t lo = 0, hi = 255;
    (void)quant::integerRange(qout->dtype(), lo, hi);
    finishQuantized(e, static_cast<float>(real) / e.yScale, lo, hi);
    e.engineQuantized = static_cast<int64_t>(valueAt(*qout, flatIndex(qout->shape(), e.element)));
}

}  // namespace

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
        return Status::badInput("element needs " + std::to_string(e.outputShape.size()) + " coordinates for output " +
                                shapeToString(e.outputShape));
    for (size_t d = 0; d < element.size(); ++d)
        if (element[d] < 0 || element[d] >= e.outputShape[d])
            return Status::badInput("element coordinate " + std::to_string(d) + " is out of range for output " +
                                    shapeToString(e.outputShape));
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
        e.notes.push_back("the quantized layer '" + c.match.quantNode + "' was rewritten away when the model was prepared");
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

Result<ElementExplanation> explainElement(const Graph &floatGraph, const Graph &quantGraph, const LayerMatch &match,
                                          const std::map<std::string, Tensor> &batch, std::vector<int64_t> element,
                                          const LayerCaptureOptions &options) {
    auto capture = captureLayer(floatGraph, quantGraph, match, batch, options);
    if (!capture) return capture.status();
    return explainElement(*capture, std::move(element));
}

}  // namespace ql::analysis
