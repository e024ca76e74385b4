#pragma once
// What the user asked the calibration lab to do, as plain text and numbers (the dialog's fields):
// the float model, the calibration pool, the evaluation inputs, the methods, sizes, repeats and
// the quantizer options. The project stores it (paths relative to the project) and the next lab
// dialog starts from it; the job turns it into engine options on its worker (folders listed,
// labels read there, off the GUI thread).

#include <QDir>
#include <QJsonObject>
#include <QList>
#include <QString>
#include <QStringList>

#include <optional>

namespace ql::ui {

struct CalibrationLabSettings {
    QString floatModel;
    QStringList poolPaths;  // files or folders; each file is one calibration item
    QStringList evaluationPaths;
    QString labelsPath;  // optional .npy of class ids
    // Base names: "minmax", "percentile", "entropy", "mse", "moving-average".
    QStringList methods{QStringLiteral("minmax"), QStringLiteral("percentile"),
                        QStringLiteral("entropy"), QStringLiteral("mse")};
    double percentile = 99.99;
    QString sizes = QStringLiteral("8,16,32,64");
    int repeats = 3;
    QString selection = QStringLiteral("random");  // "random", "stratified", "first"
    QString calibrationBatches = QStringLiteral("1");
    // Comma-separated remedy sets, each run once per set: "none", "bias-correction", "adaround",
    // "adaround+bias-correction" (analysis::parseLabRemedies).
    QString remedies = QStringLiteral("none");
    quint64 seed = 1;
    int evaluationBatch = 32;
    bool perTensor = false;
    bool symmetricActivations = false;
    bool reduceRange = false;
    bool foldBatchNorm = true;
    bool layers = false;  // per-layer cumulative SQNR of every run

    static const QStringList kMethods;     // every base name, in the dialog's order
    static const QStringList kSelections;  // "random", "stratified", "first"

    // The methods as the engine spells them ("percentile:99.99").
    QStringList engineMethods() const;
    // The first problem as one line ("Sizes: '0' is not a positive number"), or empty. Text
    // checks only: files are checked by the dialog and the engine.
    QString validate() const;
    // The remedy sets, trimmed.
    QStringList remedySets() const;
    // methods x sizes x repeats x calibration batches x remedy sets; 0 while a list does not
    // parse.
    int plannedRuns() const;

    // Paths relative to `base` (absolute ones outside it stay absolute); without a base, as they
    // are.
    QJsonObject toJson(const QDir *base = nullptr) const;
    static CalibrationLabSettings fromJson(const QJsonObject &object, const QDir *base = nullptr);
    bool operator==(const CalibrationLabSettings &other) const;
    bool operator!=(const CalibrationLabSettings &other) const { return !(*this == other); }
};

// "8, 16,32" -> {8, 16, 32}, ascending without repeats; separators: comma, semicolon, spaces.
// nullopt with a one-line message naming `what` and the bad item.
std::optional<QList<qint64>> parsePositiveList(const QString &text, const QString &what,
                                               QString *error = nullptr);

}  // namespace ql::ui
