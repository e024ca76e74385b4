#include "analysis_headline.h"

#include <QFrame>
#include <QHBoxLayout>
#include <QLabel>
#include <QVBoxLayout>

#include <cmath>

#include "display_format.h"

namespace ql::ui {

AnalysisHeadline::AnalysisHeadline(QWidget *parent) : QWidget(parent) {
    auto *layout = new QHBoxLayout(this);
    layout->setContentsMargins(4, 2, 4, 2);
    layout->setSpacing(18);
    m_outputSqnr = addField(QStringLiteral("outputSqnr"), tr("Output SQNR"),
                            tr("SQNR of the first model output, float vs quantized model, over "
                               "all evaluation samples"));
    m_top1 = addField(QStringLiteral("top1Agreement"), tr("Top-1 agreement"),
                      tr("Share of samples where both models predict the same class"));
    m_accuracy = addField(QStringLiteral("accuracy"), tr("Accuracy fp32 / int8"),
                          tr("Top-1 accuracy of the float and the quantized model against the "
                             "labels (needs a labels file)"));
    m_layers = addField(QStringLiteral("layers"), tr("Layers int8 / fp32"),
                        tr("Matched layers by how the quantized model runs them"));
    m_latency = addField(QStringLiteral("latency"), tr("Latency int8 / fp32"),
                         tr("Time of one pass of the current int8 plan and of the float model"));
    m_samples = addField(QStringLiteral("samples"), tr("Samples"),
                         tr("Evaluation samples both models ran on"));
    layout->addStretch(1);
    setReport(nullptr);
    setLatency(std::nullopt, std::nullopt);
}

QLabel *AnalysisHeadline::addField(const QString &objectName, const QString &caption,
                                   const QString &toolTip) {
    auto *box = new QWidget(this);
    box->setToolTip(toolTip);
    auto *column = new QVBoxLayout(box);
    column->setContentsMargins(0, 0, 0, 0);
    column->setSpacing(0);
    auto *captionLabel = new QLabel(caption, box);
    QFont small = captionLabel->font();
    small.setPointSizeF(small.pointSizeF() * 0.85);
    captionLabel->setFont(small);
    captionLabel->setForegroundRole(QPalette::PlaceholderText);
    auto *value = new QLabel(box);
    value->setObjectName(objectName + QStringLiteral("Value"));
    QFont big = value->font();
    big.setPointSizeF(big.pointSizeF() * 1.35);
    big.setBold(true);
    value->setFont(big);
    value->setTextInteractionFlags(Qt::TextSelectableByMouse);
    column->addWidget(captionLabel);
    column->addWidget(value);
    static_cast<QHBoxLayout *>(layout())->addWidget(box);
    return value;
}

void AnalysisHeadline::setReport(ReportPtr report) {
    m_report = std::move(report);
    const analysis::OutputReport *output =
        m_report && !m_report->outputs.empty() ? &m_report->outputs.front() : nullptr;
    updateOutputSqnr();
    m_samples->setText(m_report ? formatCount(m_report->samples) : QStringLiteral("—"));
    m_top1->setText(output ? formatShare(output->top1Agreement) : QStringLiteral("—"));
    if (output && (output->floatAccuracy || output->quantAccuracy)) {
        QString text = tr("%1 / %2").arg(formatShare(output->floatAccuracy),
                                         formatShare(output->quantAccuracy));
        if (output->floatAccuracy && output->quantAccuracy) {
            // The drop is what the user came for: in percentage points, signed.
            const double points = (*output->quantAccuracy - *output->floatAccuracy) * 100.0;
            text +=
                QLatin1Char(' ') + tr("(%1%2 pts)")
                                       .arg(points < 0 ? QStringLiteral("−") : QStringLiteral("+"))
                                       .arg(formatFixed(std::abs(points), 1));
        }
        m_accuracy->setText(text);
    } else
        m_accuracy->setText(QStringLiteral("—"));
    if (m_report) {
        QString text = tr("%1 / %2").arg(m_report->int8Layers).arg(m_report->fp32Layers);
        if (m_report->otherLayers > 0)
            text += QLatin1Char(' ') + tr("(+%1 16-bit or weight-only)").arg(m_report->otherLayers);
        if (!m_report->unmatched.empty())
            text += QLatin1Char(' ') + tr("(%1 unmatched)").arg(m_report->unmatched.size());
        m_layers->setText(text);
    } else {
        m_layers->setText(QStringLiteral("—"));
    }
}

void AnalysisHeadline::setThresholdDb(double thresholdDb) {
    m_thresholdDb = thresholdDb;
    updateOutputSqnr();
}

void AnalysisHeadline::updateOutputSqnr() {
    const analysis::OutputReport *output =
        m_report && !m_report->outputs.empty() ? &m_report->outputs.front() : nullptr;
    if (!output) {
        m_outputSqnr->setText(QStringLiteral("—"));
        m_outputSqnr->setStyleSheet({});
        return;
    }
    m_outputSqnr->setText(tr("%1 dB").arg(formatDb(output->sqnrDb)));
    const bool under = !std::isnan(output->sqnrDb) && output->sqnrDb < m_thresholdDb;
    m_outputSqnr->setStyleSheet(under ? QStringLiteral("color: #d03030;") : QString());
    m_outputSqnr->setToolTip(tr("%1 vs %2 over %3 samples")
                                 .arg(QString::fromStdString(output->floatName),
                                      QString::fromStdString(output->quantName))
                                 .arg(m_report->samples));
}

void AnalysisHeadline::setLatency(std::optional<double> int8Ms, std::optional<double> fp32Ms,
                                  LatencyConditions how) {
    if (!int8Ms && !fp32Ms) {
        m_latency->setText(QStringLiteral("—"));
        m_latency->setToolTip(QString());
        return;
    }
    QString text = tr("%1 / %2 ms").arg(formatFixed(int8Ms, 2), formatFixed(fp32Ms, 2));
    // Explicit singular: there is no English .qm to resolve %n plurals.
    if (how.batch > 0 && how.threads == 1)
        text += tr(" · batch %1, 1 thread").arg(how.batch);
    else if (how.batch > 0 && how.threads > 1)
        text += tr(" · batch %1, %2 threads").arg(how.batch).arg(how.threads);
    m_latency->setText(text);
    m_latency->setToolTip(
        tr("One pass over the evaluation samples, median of 3 passes after a warm-up: the "
           "current int8 plan, and the float model's own fp32 plan (fused operators, as "
           "quantlens bench times them)"));
}

QString AnalysisHeadline::outputSqnrText() const {
    return m_outputSqnr->text();
}
QString AnalysisHeadline::top1AgreementText() const {
    return m_top1->text();
}
QString AnalysisHeadline::accuracyText() const {
    return m_accuracy->text();
}
QString AnalysisHeadline::layersText() const {
    return m_layers->text();
}
QString AnalysisHeadline::latencyText() const {
    return m_latency->text();
}
QString AnalysisHeadline::samplesText() const {
    return m_samples->text();
}

}  // namespace ql::ui
