#pragma once
// The headline strip over an analysis: output SQNR, top-1 agreement, accuracy of both models
// (with labels), how many layers run int8 / fp32, and int8 vs fp32 latency when measured.
// Each figure is a caption over a large value; a missing figure shows "—".

#include <QWidget>

#include <optional>

#include "analysis_report.h"

class QLabel;

namespace ql::ui {

// How a latency was measured.
struct LatencyConditions {
    int64_t batch = 0;  // samples per batch of the timed pass
    int threads = 0;    // engine threads
};

class AnalysisHeadline : public QWidget {
    Q_OBJECT
public:
    explicit AnalysisHeadline(QWidget *parent = nullptr);

    void setReport(ReportPtr report);
    // Latency of one pass of the current plan, in ms; nullopt: not measured. `how`: the batch and
    // threads it was measured with, stated beside the figures (0: not stated).
    void setLatency(std::optional<double> int8Ms, std::optional<double> fp32Ms,
                    LatencyConditions how = {});

    // The value texts, for tests and the screenshot tool.
    QString outputSqnrText() const;
    QString top1AgreementText() const;
    QString accuracyText() const;
    QString layersText() const;
    QString latencyText() const;
    QString samplesText() const;

public slots:
    // Output SQNR under the threshold is shown in red.
    void setThresholdDb(double thresholdDb);

private:
    QLabel *addField(const QString &objectName, const QString &caption, const QString &toolTip);
    void updateOutputSqnr();

    ReportPtr m_report;
    double m_thresholdDb = kDefaultThresholdDb;
    QLabel *m_outputSqnr;
    QLabel *m_top1;
    QLabel *m_accuracy;
    QLabel *m_layers;
    QLabel *m_latency;
    QLabel *m_samples;
};

}  // namespace ql::ui
