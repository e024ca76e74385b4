#pragma once
// What an analysis is made of, as the user chose it: the float model, the quantized side (a file,
// or in-app quantization with calibration data and quantizer options), the evaluation inputs
// (files or seeded random inputs), labels, batch and kernels. The project file stores it with
// paths relative to the project; the analysis job gets it as an engine request.

#include <QDir>
#include <QJsonObject>
#include <QString>
#include <QStringList>

#include "analysis_job.h"
#include "analysis_report_format.h"

struct QuantizerSettings {
    QString method = QStringLiteral("minmax");
    double percentile = 99.999;
    bool perTensor = false;
    bool symmetricActivations = false;
    bool reduceRange = false;
    bool foldBatchNorm = true;
    // Samples per calibration batch (only the moving average depends on it); 0: each
    // calibration file one batch, as `quantlens quantize --calib` reads them.
    int calibrationBatch = 0;
    // Remedies applied to the float model before calibration, as `--remedy` names them ("cle",
    // "smoothquant", "smoothquant=0.6"), in order.
    QStringList remedies;

    QJsonObject toJson() const;
    static QuantizerSettings fromJson(const QJsonObject &object);
    // The settings behind engine quantizer options (the command line's).
    static QuantizerSettings fromOptions(const ql::quant::QuantizationOptions &options,
                                         int calibrationBatch);
    bool operator==(const QuantizerSettings &other) const;
};

struct AnalysisSetup {
    QString floatModel;
    QString quantModel;  // empty with quantizeInApp
    bool quantizeInApp = false;
    QStringList calibrationPaths;  // in-app quantization; empty: the evaluation data
    QuantizerSettings quantizer;
    QStringList dataPaths;
    QString labelsPath;
    // For image data (and image calibration data): the --preprocess spec; empty: the default for
    // the model's input.
    QString preprocess;
    bool randomInputs = false;
    int randomCount = 32;
    quint64 randomSeed = 1;
    int batch = 16;
    QString int8Kernels = QStringLiteral("exact");

    // Enough to run: a float model, a quantized side and inputs.
    bool isComplete() const;
    // One line on what is missing, for the status bar.
    QString missingText() const;

    // Paths relative to `base` (absolute ones that are not under it stay absolute).
    QJsonObject toJson(const QDir &base) const;
    static AnalysisSetup fromJson(const QJsonObject &object, const QDir &base);
    // Where the models come from, for exports and reports.
    ql::ui::AnalysisModels analysisModels() const;
    // The evaluation inputs in one line: file names and labels, or the random inputs; with
    // `reading` (EvaluationData::reading: the images and the preprocessing applied) after them.
    QString dataText(const std::string &reading = {}) const;
    // The engine request; false with a one-line message for a bad setting.
    bool toRequest(ql::ui::AnalysisRequest &request, QString &error) const;
    bool operator==(const AnalysisSetup &other) const;
};
