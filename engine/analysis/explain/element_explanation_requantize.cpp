// The element explanation of layers that run as float ops between DequantizeLinear and
// QuantizeLinear (BatchNormalization and others), of the QLinearAdd / QLinearMul kernels, and of
// ops on the 8-bit tensor itself (MaxPool).

#include "analysis/explain/element_explanation_support.h"

namespace ql::analysis::explain_detail {
namespace {

using Kind = ElementExplanation::Kind;

// An operand of the node at the element: its value as the op read it, and the quantized
// integer behind it when it comes from a DequantizeLinear (or is itself 8-bit).
std::optional<ExplainedOperand> operandAt(const LayerCapture &c, const std::string &value,
                                          const std::vector<int64_t> &element,
                                          const Shape &outShape) {
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

// MaxPool window (plain NCHW..., NOTSET padding) of the node's input at the element.
void addPoolWindow(const LayerCapture &c, const Node &node, ElementExplanation &e) {
    const Tensor *x = captured(c.quantValues, node.inputs[0]);
    if (!x || x->rank() < 3 || node.attrString("auto_pad", "NOTSET") != "NOTSET") return;
    const int rank = x->rank() - 2;
    const std::vector<int64_t> kernel = node.attrInts("kernel_shape");
    std::vector<int64_t> strides = node.attrInts("strides"), dil = node.attrInts("dilations"),
                         pads = node.attrInts("pads");
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
        // The float model's value at the same window position (same input shape).
        const Node *fnode = c.floatFolded.findNode(c.match.floatNode);
        const Tensor *xf =
            fnode && fnode->hasInput(0) ? captured(c.floatValues, fnode->inputs[0]) : nullptr;
        if (xf && xf->shape() == x->shape()) op.floatValue = valueAt(*xf, at);
        e.operands.push_back(op);
    }
}

}  // namespace

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

void explainBatchNorm(const LayerCapture &c, const Node &node, ElementExplanation &e) {
    e.kind = Kind::BatchNorm;
    e.quantOp = "DequantizeLinear → BatchNormalization → QuantizeLinear";
    e.opFormula = "gamma·(x − mean)/sqrt(var + eps) + beta";
    const int64_t ch = e.element.size() > 1 ? e.element[1] : 0;
    e.channel = ch;
    double p[4] = {};
    for (int i = 0; i < 4; ++i) {
        const Tensor *t =
            node.hasInput(i + 1) ? constantBehind(c.quantRun, node.inputs[i + 1]) : nullptr;
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
            const Tensor *t = fnode->hasInput(i + 1)
                                  ? constantBehind(c.floatFolded, fnode->inputs[i + 1])
                                  : nullptr;
            ok = t != nullptr;
            if (t) fp[i] = t->valueAsDouble(t->numel() == 1 ? 0 : ch);
        }
        if (ok) {
            const double xv = valueAt(*xf, flatIndex(xf->shape(), e.element));
            if (!e.operands.empty()) e.operands[0].floatValue = xv;
            e.floatComputed = applyFloatFolded(
                c, fp[0] * (xv - fp[2]) / std::sqrt(fp[3] + fnode->attrFloat("epsilon", 1e-5f)) +
                       fp[1]);
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
    if (pool && fnode && fnode->opType == "MaxPool" && !e.operands.empty() &&
        e.operands[0].floatValue) {
        double best = -INFINITY;
        for (const auto &op : e.operands)
            if (op.floatValue) best = std::max(best, *op.floatValue);
        e.floatComputed = applyFloatFolded(c, best);
        e.floatFormula = "max(window)";
    }
    if (fnode && (fnode->opType == "Add" || fnode->opType == "Sub" || fnode->opType == "Mul") &&
        e.operands.size() == 2 && e.operands[0].floatValue && e.operands[1].floatValue) {
        const double a = *e.operands[0].floatValue, b = *e.operands[1].floatValue;
        const double r = fnode->opType == "Add" ? a + b : fnode->opType == "Sub" ? a - b : a * b;
        e.floatComputed = applyFloatFolded(c, r);
        e.floatFormula = fnode->opType == "Add"   ? "a + b"
                         : fnode->opType == "Sub" ? "a − b"
                                                  : "a · b";
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
            const float bias =
                -(ra * static_cast<float>(a.zeroPoint) + rb * static_cast<float>(b.zeroPoint));
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
        e.requantized = false;
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

}  // namespace ql::analysis::explain_detail
