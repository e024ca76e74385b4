#include "element_explanation_view.h"

#include <QCoreApplication>
#include <QFontDatabase>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QRegularExpression>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>
#include <cstdlib>

namespace ql::ui {
namespace {

using analysis::ElementExplanation;

QString num(double v, int precision = 6) {
    return QString::number(v, 'g', precision);
}

QString coords(const std::vector<int64_t> &c) {
    return QLatin1Char('[') + formatElement(c) + QLatin1Char(']');
}

// At most this many products are listed; the sum covers all of them.
constexpr size_t kListedTerms = 12;

// The products to list: all when few, else the largest |product| in input order.
std::vector<size_t> listedTerms(const ElementExplanation &e) {
    std::vector<size_t> order(e.terms.size());
    for (size_t i = 0; i < order.size(); ++i) order[i] = i;
    if (order.size() <= kListedTerms) return order;
    std::partial_sort(order.begin(), order.begin() + kListedTerms, order.end(),
                      [&](size_t a, size_t b) {
                          return std::llabs(e.terms[a].product) > std::llabs(e.terms[b].product);
                      });
    order.resize(kListedTerms);
    std::sort(order.begin(), order.end());
    return order;
}

// "a", "b" for a binary op; "x1", "x2", ... for a window or more operands.
QString operandName(const ElementExplanation &e, size_t i) {
    if (e.operands.size() == 2 && e.opFormula.find("window") == std::string::npos)
        return i == 0 ? QStringLiteral("a") : QStringLiteral("b");
    return QStringLiteral("x%1").arg(i + 1);
}

// The last lines of every integer chain: the dequantized result and the engine's own output.
QString dequantizeAndCheck(const ElementExplanation &e) {
    QString out = ElementExplanationView::tr("Dequantize: y_scale·(q − y_zp) = %1·(%2 − %3) = %4\n")
                      .arg(num(e.yScale))
                      .arg(e.quantized)
                      .arg(e.yZeroPoint)
                      .arg(num(e.dequantized, 8));
    if (e.engineQuantized)
        out += e.matchesEngine ? ElementExplanationView::tr("Engine's int8 output: %1 ✓ equal\n")
                                     .arg(*e.engineQuantized)
                               : ElementExplanationView::tr("Engine's int8 output: %1 ✗ differs\n")
                                     .arg(*e.engineQuantized);
    return out;
}

QString outputChain(const ElementExplanation &e, QString out) {
    if (!e.requantized) {
        out += ElementExplanationView::tr(
                   "No requantization: %1 works on the 8-bit values;\n"
                   "the output keeps the input's scale and zero point.\n")
                   .arg(QString::fromStdString(e.quantOp));
        return out + dequantizeAndCheck(e);
    }
    out += ElementExplanationView::tr("Requantize:\n");
    if (e.kind == ElementExplanation::Kind::IntegerMatMul) {
        out += ElementExplanationView::tr("  M = x_scale·w_scale / y_scale\n");
        out += ElementExplanationView::tr("    = %1·%2 / %3 = %4\n")
                   .arg(num(e.xScale), num(e.wScale), num(e.yScale), num(e.multiplier, 8));
        out += ElementExplanationView::tr("  acc·M          = %1\n").arg(num(e.scaled, 8));
    } else if (e.yScale > 0.0f) {
        out += ElementExplanationView::tr("  real / y_scale = %1 / %2 = %3\n")
                   .arg(num(e.realResult, 8), num(e.yScale), num(e.scaled, 8));
    }
    out += ElementExplanationView::tr("  round (half to even) = %1\n").arg(num(e.rounded, 10));
    out += ElementExplanationView::tr("  + y_zp (%1)          = %2\n")
               .arg(e.yZeroPoint)
               .arg(e.beforeClamp);
    QString range = QStringLiteral("[%1, %2]").arg(e.qmin).arg(e.qmax);
    if (!e.activation.empty())
        range += ElementExplanationView::tr(" (narrowed by the fused %1)")
                     .arg(QString::fromStdString(e.activation));
    out += ElementExplanationView::tr("  clamp to %1 → %2%3\n")
               .arg(range)
               .arg(e.quantized)
               .arg(e.clamped ? ElementExplanationView::tr("  (clamped)") : QString());
    return out + dequantizeAndCheck(e);
}

}  // namespace

QString formatElement(const std::vector<int64_t> &element) {
    QStringList parts;
    for (int64_t v : element) parts << QString::number(v);
    return parts.join(QStringLiteral(", "));
}

std::optional<std::vector<int64_t>> parseElement(const QString &text) {
    const QStringList parts =
        text.split(QRegularExpression(QStringLiteral("[,\\s\\[\\]()]+")), Qt::SkipEmptyParts);
    std::vector<int64_t> out;
    for (const QString &p : parts) {
        bool ok = false;
        const qlonglong v = p.toLongLong(&ok);
        if (!ok) return std::nullopt;
        out.push_back(v);
    }
    return out;
}

QString integerColumnText(const ElementExplanation &e) {
    QString out =
        ElementExplanationView::tr("Quantized layer: %1\n").arg(QString::fromStdString(e.quantOp));
    if (!e.foldedQuantNodes.empty()) {
        QStringList folded;
        for (const auto &n : e.foldedQuantNodes) folded << QString::fromStdString(n);
        out +=
            ElementExplanationView::tr("  with %1 fused\n").arg(folded.join(QStringLiteral(", ")));
    }
    out += ElementExplanationView::tr("Output element %1\n\n").arg(coords(e.element));
    switch (e.kind) {
        case ElementExplanation::Kind::IntegerMatMul: {
            out += ElementExplanationView::tr("x_zp = %1   x_scale = %2\n")
                       .arg(e.xZeroPoint)
                       .arg(num(e.xScale));
            out += ElementExplanationView::tr("w_zp = %1   w_scale = %2   (channel %3)\n")
                       .arg(e.wZeroPoint)
                       .arg(num(e.wScale))
                       .arg(e.channel);
            const std::vector<size_t> listed = listedTerms(e);
            out +=
                listed.size() < e.terms.size()
                    ? ElementExplanationView::tr(
                          "Products (x_q − x_zp)·(w_q − w_zp), the %1 largest of %2:\n")
                          .arg(listed.size())
                          .arg(e.terms.size())
                    : ElementExplanationView::tr("Products (x_q − x_zp)·(w_q − w_zp), %1 in all:\n")
                          .arg(e.terms.size());
            for (size_t i : listed) {
                const auto &t = e.terms[i];
                out += QStringLiteral("  x%1=%2  w%3=%4  → (%5)·(%6) = %7\n")
                           .arg(coords(t.inputIndex))
                           .arg(t.xq, 4)
                           .arg(coords(t.weightIndex))
                           .arg(t.wq, 4)
                           .arg(t.xq - e.xZeroPoint)
                           .arg(t.wq - e.wZeroPoint)
                           .arg(t.product);
            }
            if (listed.size() < e.terms.size())
                out +=
                    ElementExplanationView::tr("  … %1 more\n").arg(e.terms.size() - listed.size());
            if (e.paddingTaps > 0)
                out += ElementExplanationView::tr("  (%1 window positions in the padding add 0)\n")
                           .arg(e.paddingTaps);
            out += ElementExplanationView::tr("int32 accumulation Σ = %1\n").arg(e.accumulator);
            out += ElementExplanationView::tr("+ bias_int32 (%1) = %2\n\n")
                       .arg(e.biasInt32)
                       .arg(e.accumulatorWithBias);
            return outputChain(e, out);
        }
        case ElementExplanation::Kind::BatchNorm:
            if (!e.operands.empty()) {
                const auto &x = e.operands[0];
                out += ElementExplanationView::tr("x_q = %1   x_zp = %2   x_scale = %3\n")
                           .arg(x.q)
                           .arg(x.zeroPoint)
                           .arg(num(x.scale));
                out += ElementExplanationView::tr("x = x_scale·(x_q − x_zp) = %1\n")
                           .arg(num(x.real, 8));
            }
            out += ElementExplanationView::tr(
                       "gamma = %1  beta = %2\nmean = %3  var = %4  eps = %5   (channel %6)\n")
                       .arg(num(e.gamma), num(e.beta), num(e.mean), num(e.var), num(e.epsilon))
                       .arg(e.channel);
            out +=
                ElementExplanationView::tr(
                    "y = gamma·(x − mean)/sqrt(var + eps) + beta\n  = %1   (in float, between DQ "
                    "and Q)\n\n")
                    .arg(num(e.realResult, 8));
            return outputChain(e, out);
        case ElementExplanation::Kind::Requantize:
            out += ElementExplanationView::tr("Operands (%1):\n").arg(e.operands.size());
            for (size_t i = 0; i < e.operands.size() && i < kListedTerms; ++i) {
                const auto &op = e.operands[i];
                if (op.quantized && op.scale > 0.0f)
                    out += ElementExplanationView::tr("  %1: q = %2, zp = %3, scale = %4 → %5\n")
                               .arg(operandName(e, i))
                               .arg(op.q)
                               .arg(op.zeroPoint)
                               .arg(num(op.scale))
                               .arg(num(op.real, 8));
                else if (op.quantized)
                    out += ElementExplanationView::tr("  %1: q = %2\n")
                               .arg(operandName(e, i))
                               .arg(op.q);
                else
                    out += ElementExplanationView::tr("  %1: %2 (float)\n")
                               .arg(operandName(e, i), num(op.real, 8));
            }
            if (e.operands.size() > kListedTerms)
                out += ElementExplanationView::tr("  … %1 more\n")
                           .arg(e.operands.size() - kListedTerms);
            out += ElementExplanationView::tr("%1 = %2\n\n")
                       .arg(QString::fromStdString(e.opFormula), num(e.realResult, 8));
            return outputChain(e, out);
    }
    return out;
}

QString floatColumnText(const ElementExplanation &e) {
    QString out =
        ElementExplanationView::tr("Float model: %1\n").arg(QString::fromStdString(e.floatOp));
    if (e.batchNormFolded)
        out += ElementExplanationView::tr("  (BatchNormalization folded into w and b)\n");
    out += ElementExplanationView::tr("Output element %1\n\n").arg(coords(e.element));
    if (e.kind == ElementExplanation::Kind::IntegerMatMul) {
        out += ElementExplanationView::tr("%1\n").arg(QString::fromStdString(e.floatFormula));
        const std::vector<size_t> listed = listedTerms(e);
        out +=
            ElementExplanationView::tr("Products x·w (float input and weight),\nsame positions:\n");
        for (size_t i : listed) {
            const auto &t = e.terms[i];
            if (!t.hasFloat) break;
            out += QStringLiteral("  %1 · %2 = %3\n")
                       .arg(num(t.xFloat, 5), num(t.wFloat, 5), num(t.xFloat * t.wFloat, 5));
        }
        if (listed.size() < e.terms.size())
            out += ElementExplanationView::tr("  … %1 more\n").arg(e.terms.size() - listed.size());
        out += ElementExplanationView::tr("b = %1\n").arg(num(e.floatBias, 8));
    } else {
        out += ElementExplanationView::tr("%1\n").arg(QString::fromStdString(e.floatFormula));
        const bool batchNorm = e.kind == ElementExplanation::Kind::BatchNorm;
        for (size_t i = 0; i < e.operands.size() && i < kListedTerms; ++i)
            if (e.operands[i].floatValue)
                out += ElementExplanationView::tr("  %1 = %2\n    (quantized model: %3)\n")
                           .arg(batchNorm ? QStringLiteral("x") : operandName(e, i))
                           .arg(num(*e.operands[i].floatValue, 8), num(e.operands[i].real, 8));
    }
    out += ElementExplanationView::tr("\nFormula value     = %1\n").arg(num(e.floatComputed, 8));
    out += ElementExplanationView::tr("Float model value = %1\n").arg(num(e.floatModelValue, 8));
    out += ElementExplanationView::tr("Quantized value   = %1\n").arg(num(e.engineDequantized, 8));
    out += ElementExplanationView::tr("Difference (quantized − float) = %1\n")
               .arg(num(e.difference, 6));
    if (e.yScale > 0.0f) {
        out += ElementExplanationView::tr("  = %1 output steps\n")
                   .arg(num(e.difference / e.yScale, 3));
        // Where it comes from: the op on quantized operands vs the float ones, then this layer's
        // own rounding and clamping of the result.
        out += ElementExplanationView::tr("  from the quantized operands: %1\n")
                   .arg(num(e.realResult - e.floatComputed, 4));
        out += ElementExplanationView::tr("  from requantization:         %1\n")
                   .arg(num(e.dequantized - e.realResult, 4));
    }
    for (const auto &note : e.notes) out += QLatin1Char('\n') + QString::fromStdString(note);
    return out;
}

ElementExplanationView::ElementExplanationView(QWidget *parent) : QWidget(parent) {
    m_edit = new QLineEdit(this);
    m_edit->setPlaceholderText(ElementExplanationView::tr("Output element, e.g. 0, 3, 12, 7"));
    m_edit->setToolTip(ElementExplanationView::tr(
        "Coordinates of one output element (N, C, H, W for a convolution, row, column for Gemm)"));
    m_explain = new QPushButton(ElementExplanationView::tr("Explain"), this);
    m_worst = new QPushButton(ElementExplanationView::tr("Worst element"), this);
    m_worst->setToolTip(
        ElementExplanationView::tr("The element with the largest error in the first sample"));
    m_verdict = new QLabel(this);
    m_verdict->setTextInteractionFlags(Qt::TextSelectableByMouse);
    const QFont mono = QFontDatabase::systemFont(QFontDatabase::FixedFont);
    auto makeText = [&] {
        auto *t = new QPlainTextEdit(this);
        t->setReadOnly(true);
        t->setFont(mono);
        t->setLineWrapMode(QPlainTextEdit::NoWrap);
        return t;
    };
    m_integer = makeText();
    m_float = makeText();

    auto *top = new QHBoxLayout;
    top->addWidget(new QLabel(ElementExplanationView::tr("Element:"), this));
    top->addWidget(m_edit, 1);
    top->addWidget(m_explain);
    top->addWidget(m_worst);
    auto *grid = new QGridLayout;
    auto *intTitle =
        new QLabel(ElementExplanationView::tr("<b>Integer arithmetic (int8 kernel)</b>"), this);
    auto *floatTitle = new QLabel(ElementExplanationView::tr("<b>Float model</b>"), this);
    grid->addWidget(intTitle, 0, 0);
    grid->addWidget(floatTitle, 0, 1);
    grid->addWidget(m_integer, 1, 0);
    grid->addWidget(m_float, 1, 1);
    grid->setColumnStretch(0, 3);
    grid->setColumnStretch(1, 2);
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addLayout(top);
    layout->addWidget(m_verdict);
    layout->addLayout(grid, 1);

    connect(m_explain, &QPushButton::clicked, this, &ElementExplanationView::submit);
    connect(m_edit, &QLineEdit::returnPressed, this, &ElementExplanationView::submit);
    connect(m_worst, &QPushButton::clicked, this, [this] {
        m_edit->clear();
        emit elementRequested({});
    });
}

void ElementExplanationView::submit() {
    const auto element = parseElement(m_edit->text());
    if (!element) {
        m_verdict->setText(ElementExplanationView::tr(
            "Type the element's coordinates as numbers separated by commas."));
        return;
    }
    emit elementRequested(*element);
}

void ElementExplanationView::clear(const QString &message) {
    m_integer->clear();
    m_float->clear();
    m_verdict->setText(message);
}

void ElementExplanationView::setExplanation(const std::optional<analysis::ElementExplanation> &e,
                                            const QString &why) {
    if (!e) {
        clear(why.isEmpty() ? ElementExplanationView::tr("No explanation for this layer.") : why);
        return;
    }
    m_edit->setText(formatElement(e->element));
    m_integer->setPlainText(integerColumnText(*e));
    m_float->setPlainText(floatColumnText(*e));
    QString verdict =
        ElementExplanationView::tr("Quantized %1 vs float %2: difference %3")
            .arg(num(e->engineDequantized, 6), num(e->floatModelValue, 6), num(e->difference, 4));
    if (e->engineQuantized)
        verdict += e->matchesEngine
                       ? ElementExplanationView::tr(
                             " — the recomputed integer equals the engine's output.")
                       : ElementExplanationView::tr(
                             " — the recomputed integer DIFFERS from the engine's output.");
    m_verdict->setText(verdict);
}

}  // namespace ql::ui
