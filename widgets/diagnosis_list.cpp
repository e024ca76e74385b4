#include "diagnosis_list.h"

#include <QLocale>
#include <QMenu>
#include <QStyle>

#include <cmath>

#include "display_format.h"
#include "layer_remedy_text.h"

namespace ql::ui {
namespace {

using analysis::Finding;
using analysis::FindingKind;
using analysis::Severity;

QString db(double value) {
    return formatDb(std::isnan(value) ? std::nullopt : std::optional<double>(value));
}

// An activation range: three significant digits ("0.812", "10", "1.23e+03").
QString magnitude(double value) {
    if (std::isnan(value)) return formatFixed(std::nullopt, 0);
    return QLocale().toString(value, 'g', 3);
}

// How many times larger: "12.4" below 100, whole numbers above.
QString ratio(double value) {
    return formatFixed(value, std::isfinite(value) && value < 100.0 ? 1 : 0);
}

QString layerName(const Finding &f) {
    return QString::fromStdString(f.layerName);
}

// "; channel ranges 1024x apart: try cross-layer equalization (--remedy cle)" when the finding
// names a remedy, else "".
QString remedySuggestion(const Finding &f) {
    if (f.remedy != "cle") return QString();
    return DiagnosisList::tr(
               "; its channels' weight ranges are %1x apart, too far for one int8 "
               "scale: cross-layer equalization (quantize --remedy cle) balances "
               "them")
        .arg(ratio(f.channelRangeSpread));
}

QStyle::StandardPixmap iconFor(Severity severity) {
    switch (severity) {
        case Severity::Error:
            return QStyle::SP_MessageBoxCritical;
        case Severity::Warning:
            return QStyle::SP_MessageBoxWarning;
        case Severity::Info:
            break;
    }
    return QStyle::SP_MessageBoxInformation;
}

}  // namespace

DiagnosisList::DiagnosisList(QWidget *parent) : QListWidget(parent) {
    setObjectName(QStringLiteral("diagnosisList"));
    setWordWrap(true);
    setAlternatingRowColors(true);
    setToolTip(tr("Findings of the analysis, most serious first; click one to select its layer"));
    auto activate = [this](QListWidgetItem *item) {
        const int layer = item ? item->data(Qt::UserRole).toInt() : -1;
        if (layer >= 0) emit layerActivated(layer);
    };
    connect(this, &QListWidget::itemClicked, this, activate);
    connect(this, &QListWidget::itemActivated, this, activate);
    setContextMenuPolicy(Qt::CustomContextMenu);
    connect(this, &QWidget::customContextMenuRequested, this, [this](const QPoint &position) {
        QListWidgetItem *item = itemAt(position);
        if (!item || m_findings.empty()) return;
        QMenu *menu = createFindingMenu(row(item), this);
        menu->setAttribute(Qt::WA_DeleteOnClose);
        menu->popup(viewport()->mapToGlobal(position));
    });
    rebuild();
}

QMenu *DiagnosisList::createFindingMenu(int index, QWidget *parent) {
    auto *menu = new QMenu(parent);
    if (index < 0 || index >= int(m_findings.size())) return menu;
    const Finding &f = m_findings[size_t(index)];
    if (f.layer >= 0)
        menu->addAction(tr("Select %1").arg(layerName(f)), this,
                        [this, layer = f.layer] { emit layerActivated(layer); });
    const auto remedy = analysis::parseLayerRemedy(f.remedy);
    if (remedy && f.layer >= 0) {
        QAction *apply =
            menu->addAction(tr("%1 on %2").arg(layerRemedyAction(*remedy), layerName(f)));
        apply->setObjectName(QStringLiteral("applyRemedyAction"));
        const analysis::LayerReport *row = m_report && f.layer < int(m_report->layers.size())
                                               ? &m_report->layers[size_t(f.layer)]
                                               : nullptr;
        const QString unavailable =
            row ? layerRemedyUnavailable(*row, *remedy, m_remediesAvailable) : QString();
        apply->setEnabled(row && unavailable.isEmpty());
        apply->setStatusTip(unavailable.isEmpty() ? layerRemedyExplanation(*remedy) : unavailable);
        apply->setToolTip(apply->statusTip());
        connect(apply, &QAction::triggered, this,
                [this, layer = f.layer, r = *remedy] { emit remedyRequested(layer, r); });
    } else if (f.remedy == "cle" || f.remedy == "smoothquant") {
        QAction *settings = menu->addAction(
            tr("Quantizer Settings (%1)…")
                .arg(f.remedy == "cle" ? tr("cross-layer equalization") : tr("SmoothQuant")));
        settings->setObjectName(QStringLiteral("quantizerSettingsAction"));
        connect(settings, &QAction::triggered, this, [this] { emit quantizerSettingsRequested(); });
    }
    menu->setToolTipsVisible(true);
    return menu;
}

void DiagnosisList::setReport(ReportPtr report, const Graph *floatGraph,
                              const analysis::DiagnosisOptions &options) {
    m_report = std::move(report);
    m_floatGraph = floatGraph;
    m_options = options;
    m_findings =
        m_report ? analysis::diagnose(*m_report, m_floatGraph, m_options) : std::vector<Finding>{};
    rebuild();
}

void DiagnosisList::setFindings(std::vector<Finding> findings) {
    m_report.reset();
    m_findings = std::move(findings);
    rebuild();
}

void DiagnosisList::setThresholdDb(double thresholdDb) {
    m_options.sqnrThresholdDb = thresholdDb;
    if (!m_report) return;
    m_findings = analysis::diagnose(*m_report, m_floatGraph, m_options);
    rebuild();
}

void DiagnosisList::rebuild() {
    emit findingsChanged();
    clear();
    if (m_findings.empty()) {
        auto *item =
            new QListWidgetItem(style()->standardIcon(QStyle::SP_DialogApplyButton),
                                tr("No findings: every figure is within its healthy range"), this);
        item->setData(Qt::UserRole, -1);
        return;
    }
    for (const Finding &f : m_findings) {
        auto *item =
            new QListWidgetItem(style()->standardIcon(iconFor(f.severity)), describe(f), this);
        item->setData(Qt::UserRole, f.layer);
        QString tip = f.layer >= 0 ? tr("%1 (%2): click to select the layer")
                                         .arg(layerName(f), QString::fromStdString(f.opType))
                                   : tr("The whole model");
        if (!f.remedy.empty()) tip += QLatin1Char('\n') + tr("Right-click to apply the remedy");
        item->setToolTip(tip);
    }
}

QString DiagnosisList::describe(const Finding &f) {
    const QString name = layerName(f);
    switch (f.kind) {
        case FindingKind::UnfoldedBatchNorm:
            if (!f.related.empty())
                return tr("BatchNormalization after %1 is not folded and runs int8: %2 dB")
                    .arg(QString::fromStdString(f.related), db(f.value));
            return tr("BatchNormalization %1 is not folded and runs int8: %2 dB")
                .arg(name, db(f.value));
        case FindingKind::FirstLowSqnr:
            if (std::isnan(f.reference))
                return tr("Error starts at %1: cumulative SQNR %2 dB, under the %3 dB threshold")
                    .arg(name, db(f.value), db(f.extra));
            return tr("Error starts at %1: cumulative SQNR %2 dB after %3 dB at the previous layer "
                      "(threshold %4 dB)")
                .arg(name, db(f.value), db(f.reference), db(f.extra));
        case FindingKind::SqnrJump:
            return tr("Cumulative SQNR drops by %1 dB at %2: %3 dB to %4 dB")
                .arg(db(f.reference - f.value), name, db(f.reference), db(f.value));
        case FindingKind::LowIsolatedSqnr:
            return tr("%1 has an isolated SQNR of %2 dB: its own quantization error, not inherited "
                      "from earlier layers")
                .arg(name, db(f.value));
        case FindingKind::DataSensitive:
            return tr("%1 is data-sensitive: per-sample SQNR %2 dB at worst against a median of %3 "
                      "dB "
                      "(5th percentile %4 dB); check the calibration data")
                .arg(name, db(f.value), db(f.reference), db(f.extra));
        case FindingKind::ActivationRangeVaries:
            if (f.sampleSqnr)
                return tr("Activation range of %1 varies %2x between samples (%3 to %4) and "
                          "per-sample SQNR falls to %5 dB against a median of %6 dB: one scale "
                          "cannot fit them all; data-sensitive")
                    .arg(name, ratio(f.value), magnitude(f.reference), magnitude(f.extra),
                         db(f.sampleSqnr->min), db(f.sampleSqnr->median));
            return tr("Activation range of %1 varies %2x between samples (%3 to %4): one scale "
                      "cannot fit them all; data-sensitive")
                .arg(name, ratio(f.value), magnitude(f.reference), magnitude(f.extra));
        case FindingKind::HighSaturation:
            return tr("%1 clips %2 of its float values at the int8 range")
                .arg(name, formatPercent(f.value, 2));
        case FindingKind::KernelMismatch:
            return tr("The int8 kernel of %1 differs from the reference path: %2 dB (below %3 dB)")
                .arg(name, db(f.value), db(f.extra));
        case FindingKind::LowWeightSqnr:
            return tr("%1 has a weight SQNR of only %2 dB (worst channel %3: %4 dB)")
                       .arg(name, db(f.value))
                       .arg(f.channel)
                       .arg(db(f.extra)) +
                   remedySuggestion(f);
        case FindingKind::WeightChannelOutlier:
            return tr("Weight channel %1 of %2 is much worse than the others: %3 dB against a "
                      "median of %4 dB")
                       .arg(f.channel)
                       .arg(name, db(f.extra), db(f.reference)) +
                   remedySuggestion(f);
        case FindingKind::ActivationOutlierChannels:
            return (f.related.empty()
                        ? tr("Channel %1 of %2 reaches %3x the median channel's range (%4 "
                             "against %5)")
                              .arg(f.channel)
                              .arg(name, ratio(f.value), magnitude(f.extra), magnitude(f.reference))
                        : tr("Channel %1 of %2, which %3 reads, reaches %4x the median "
                             "channel's range (%5 against %6)")
                              .arg(f.channel)
                              .arg(name, QString::fromStdString(f.related), ratio(f.value),
                                   magnitude(f.extra), magnitude(f.reference))) +
                   tr(": one int8 scale for all channels leaves the others few levels; "
                      "SmoothQuant (quantize --remedy smoothquant) moves the outliers' range "
                      "into the weights");
        case FindingKind::ChannelMeanShift:
            return tr("%1: %2 of its error is a constant shift per output channel (mean error "
                      "%3 against an error of %4; channel %5 shifts most): bias correction "
                      "(quantize --remedy bias-correction) subtracts it")
                .arg(name, formatPercent(100.0 * f.value, 0), magnitude(f.reference),
                     magnitude(f.extra))
                .arg(f.channel);
        case FindingKind::RoundingDominated:
            return tr("%1 int8 layer(s) with balanced channel ranges owe much of their own error "
                      "to weight rounding, %2: about %3 of its isolated error: AdaRound "
                      "(quantize --remedy adaround) chooses each weight's rounding for the "
                      "layer's output (predicted there: about +%4 dB isolated SQNR)")
                .arg(static_cast<int>(f.reference))
                .arg(name, formatPercent(100.0 * f.value, 0), db(f.extra));
        case FindingKind::OutputAgreementDrop:
            return tr("The models predict the same class for only %1 of the samples (output SQNR "
                      "%2 dB)")
                .arg(formatShare(f.value), db(f.reference));
        case FindingKind::AccuracyDrop:
            return tr("Accuracy drops from %1 (float) to %2 (quantized)")
                .arg(formatShare(f.reference), formatShare(f.value));
    }
    return QString();
}

}  // namespace ql::ui
