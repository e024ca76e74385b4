#pragma once
// A calibration lab's JSON (widgets/calibration_lab_format.h: what the job delivers, the project
// stores and `quantlens calib-lab --json` writes) read into plain values for the lab's views.
// The views read only this, so a lab from any of those sources shows the same. Runs evaluated
// once for an earlier identical run (identical_to) borrow that run's figures when their own are
// missing.

#include <QJsonObject>
#include <QList>
#include <QString>
#include <QStringList>
#include <QVector>

#include <memory>
#include <optional>

#include "analysis/metrics/statistics.h"

namespace ql::ui {

using analysis::Interval;

struct CalibrationLabRun {
    QString id;
    // As the engine names it: "minmax", "percentile:99.99", "moving-average"; then "+remedies"
    // for a remedied run ("minmax+bias-correction"), a series of its own.
    QString method;
    QString remedies = QStringLiteral("none");  // "bias-correction", "adaround+bias-correction"
    std::optional<double> percentile;
    qint64 size = 0;
    int repeat = 1;
    QString selection;
    qint64 calibBatch = 1;
    QList<qint64> calibIndices;  // into the pool files, in calibration order
    QString identicalTo;         // empty: evaluated itself
    double seconds = 0.0;
    std::optional<double> sqnrDb;
    std::optional<double> agreement;  // 0..1
    std::optional<Interval> agreementCi;
    std::optional<double> accuracy;  // 0..1, with labels
    std::optional<Interval> accuracyCi;
    QString reproduce;  // the `quantlens quantize` command line
};

struct CalibrationLabComparison {
    // "best_vs_worst", "method_vs_float", "size_step", "batch_step", "remedy_vs_none"
    QString kind;
    QString a, b;                // run ids, or "float"
    std::optional<double> diff;  // score(a) - score(b), 0..1
    std::optional<Interval> diffCi;
    std::optional<double> mcnemarP;
    qint64 n01 = 0, n10 = 0;
    QString verdict;
};

struct CalibrationLabData {
    QString floatModel;
    bool labelled = false;  // the score is accuracy (else top-1 agreement with the float model)
    bool complete = false;
    int runsPlanned = 0;
    QStringList poolFiles, evaluationFiles;
    qint64 evaluationRows = 0;
    std::optional<double> floatAccuracy;
    std::optional<Interval> floatAccuracyCi;
    QVector<CalibrationLabRun> runs;
    QVector<CalibrationLabComparison> comparisons;
    QJsonObject options;                     // the "options" object as it is
    bool severalCalibrationBatches = false;  // runs differ in calibration batch size

    bool isEmpty() const { return runs.isEmpty() && runsPlanned == 0; }
    const CalibrationLabRun *findRun(const QString &id) const;
    // The score of a run: accuracy with labels, else top-1 agreement (0..1).
    std::optional<double> score(const CalibrationLabRun &run) const;
    std::optional<Interval> scoreCi(const CalibrationLabRun &run) const;
    // The chart's series of a run: its method, and its calibration batch when runs differ in it
    // ("minmax", "moving-average, batch 8").
    QString seriesName(const CalibrationLabRun &run) const;
};

CalibrationLabData parseCalibrationLab(const QJsonObject &lab);

// One parsed lab shared by the views of a page.
using CalibrationLabDataPtr = std::shared_ptr<const CalibrationLabData>;

}  // namespace ql::ui
