#include "calibration_lab_format.h"

#include <QJsonArray>
#include <QStringList>

#include <cmath>

#include "image_data_reader.h"

namespace ql::ui {

namespace {

using namespace ql::analysis;

QJsonValue number(double value) {
    return std::isfinite(value) ? QJsonValue(value) : QJsonValue(QJsonValue::Null);
}

QJsonValue interval(const Interval &ci) {
    return QJsonArray{ci.low, ci.high};
}
QJsonValue interval(const std::optional<Interval> &ci) {
    return ci ? interval(*ci) : QJsonValue(QJsonValue::Null);
}

// The method without its percentile ("percentile"), as --method takes it.
QString methodName(const CalibrationMethod &m) {
    return m.method == quant::RangeMethod::Percentile
               ? QStringLiteral("percentile")
               : QString::fromStdString(calibrationMethodName(m));
}

template <class T>
QJsonArray array(const std::vector<T> &values) {
    QJsonArray out;
    for (const T &v : values) out.append(static_cast<qint64>(v));
    return out;
}

QJsonArray strings(const std::vector<std::string> &values) {
    QJsonArray out;
    for (const std::string &v : values) out.append(QString::fromStdString(v));
    return out;
}

QString quoted(const QString &path) {
    return path.contains(' ') ? '"' + path + '"' : path;
}

QJsonObject optionsJson(const CalibrationLabOptions &o) {
    QJsonArray methods, batches;
    for (const auto &m : o.methods)
        methods.append(QString::fromStdString(calibrationMethodName(m)));
    for (int64_t b : o.calibBatches) batches.append(static_cast<qint64>(b));
    const QJsonObject quantizer{{"per_channel_weights", o.quantizer.perChannelWeights},
                                {"symmetric_activations", o.quantizer.symmetricActivations},
                                {"reduce_range", o.quantizer.reduceRange},
                                {"fold_batch_norm", o.quantizer.foldBatchNorm},
                                {"excluded_nodes", strings(o.quantizer.excludedNodes)}};
    QJsonArray remedies;
    for (const LabRemedies &r : o.remedies) remedies.append(QString::fromStdString(labRemediesName(r)));
    return QJsonObject{{"methods", methods},
                       {"sizes", array(o.sizes)},
                       {"repeats", o.repeats},
                       {"selection", calibrationSelectionName(o.selection)},
                       {"calib_batches", batches},
                       {"remedies", remedies},
                       {"seed", static_cast<double>(o.seed)},
                       {"eval_batch", static_cast<qint64>(o.evalBatch)},
                       {"int8_kernels", int8KernelsName(o.int8Kernels)},
                       {"bootstrap_resamples", o.bootstrapResamples},
                       {"layers", o.layers},
                       {"quantizer", quantizer}};
}

QJsonObject runJson(const CalibrationRunResult &run, const CalibrationLabOptions &options,
                    const QString &floatModel) {
    const CalibrationRunSpec &s = run.spec;
    const bool percentile = s.method.method == quant::RangeMethod::Percentile;
    QJsonObject output{
        {"sqnr_db", number(run.sqnrDb)},
        {"top1_agreement", number(run.top1Agreement)},
        {"top1_agreement_ci95", interval(run.top1AgreementCi95)},
        {"accuracy", run.accuracy ? number(*run.accuracy) : QJsonValue(QJsonValue::Null)},
        {"accuracy_ci95", interval(run.accuracyCi95)}};
    QJsonObject out{
        {"id", QString::fromStdString(s.id)},
        {"method", methodName(s.method)},
        {"percentile", percentile ? QJsonValue(s.method.percentile) : QJsonValue(QJsonValue::Null)},
        {"size", static_cast<qint64>(s.size)},
        {"repeat", s.repeat},
        {"selection", calibrationSelectionName(s.selection)},
        {"calib_batch", static_cast<qint64>(s.calibBatch)},
        {"calib_indices", array(s.calibIndices)},
        {"remedies", QString::fromStdString(labRemediesName(s.remedies))},
        {"identical_to", run.identicalTo.empty()
                             ? QJsonValue(QJsonValue::Null)
                             : QJsonValue(QString::fromStdString(run.identicalTo))},
        {"seconds", run.seconds},
        {"output", output},
        {"reproduce", reproduceCommand(s, options, floatModel)}};
    if (options.layers) {
        QJsonArray layers;
        for (const auto &l : run.layers)
            layers.append(QJsonObject{{"name", QString::fromStdString(l.name)},
                                      {"cumulative_sqnr_db", number(l.cumulativeSqnrDb)}});
        out["layers"] = layers;
    }
    return out;
}

QJsonObject comparisonJson(const RunComparison &c) {
    return QJsonObject{{"kind", QString::fromStdString(c.kind)},
                       {"a", QString::fromStdString(c.a)},
                       {"b", QString::fromStdString(c.b)},
                       {"accuracy_diff", c.diff},
                       {"accuracy_diff_ci95", QJsonArray{c.diffCi95.low, c.diffCi95.high}},
                       {"mcnemar_p", c.mcnemarP},
                       {"n01", static_cast<qint64>(c.n01)},
                       {"n10", static_cast<qint64>(c.n10)},
                       {"verdict", QString::fromStdString(c.verdict)}};
}

}  // namespace

QString reproduceCommand(const CalibrationRunSpec &spec, const CalibrationLabOptions &options,
                         const QString &floatModel) {
    QStringList files;
    for (int64_t i : spec.calibIndices)
        files << QString::fromStdString(options.poolFiles[static_cast<size_t>(i)]);
    QStringList command{"quantlens",
                        "quantize",
                        quoted(floatModel),
                        "--calib",
                        quoted(files.join(',')),
                        "--method",
                        methodName(spec.method)};
    if (spec.method.method == quant::RangeMethod::Percentile)
        command << "--percentile" << QString::number(spec.method.percentile, 'g', 10);
    command << "--calib-batch" << QString::number(spec.calibBatch);
    if (spec.remedies.adaRound) command << "--remedy" << "adaround";
    if (spec.remedies.biasCorrection) command << "--remedy" << "bias-correction";
    // Image pools are preprocessed as the lab did (without a spec, quantize picks the same
    // default).
    const auto *images = dynamic_cast<const ImageDataReader *>(options.reader.get());
    if (images && images->userSpec())
        command << "--preprocess"
                << quoted(QString::fromStdString(quant::formatPreprocessSpec(*images->userSpec())));
    const quant::QuantizationOptions &q = options.quantizer;
    if (!q.perChannelWeights) command << "--per-tensor";
    if (q.symmetricActivations) command << "--symmetric-activations";
    if (q.reduceRange) command << "--reduce-range";
    if (!q.foldBatchNorm) command << "--no-fold-bn";
    for (const std::string &node : q.excludedNodes)
        command << "--exclude" << quoted(QString::fromStdString(node));
    command << "--out" << QString::fromStdString(spec.id).replace(':', '_') + ".onnx";
    return command.join(' ');
}

QJsonObject calibrationLabJson(const CalibrationLabResult &lab,
                               const CalibrationLabOptions &options, const QString &floatModel) {
    QJsonArray runs, comparisons;
    QJsonObject predictions{{"labels", array(lab.labels)},
                            {"float", array(lab.floatModel.predictions)}};
    for (const auto &run : lab.runs) {
        runs.append(runJson(run, options, floatModel));
        predictions[QString::fromStdString(run.spec.id)] = array(run.predictions);
    }
    for (const auto &c : lab.comparisons) comparisons.append(comparisonJson(c));
    const QJsonObject floatModelJson{
        {"accuracy",
         lab.floatModel.accuracy ? number(*lab.floatModel.accuracy) : QJsonValue(QJsonValue::Null)},
        {"accuracy_ci95", interval(lab.floatModel.accuracyCi95)}};
    const QJsonObject timing{
        {"pool_seconds", lab.poolSeconds},
        {"evaluation_seconds", lab.evaluationSeconds},
        {"runs_seconds", lab.runsSeconds},
        {"total_seconds", lab.poolSeconds + lab.evaluationSeconds + lab.runsSeconds}};
    return QJsonObject{{"schema_version", kCalibrationLabSchemaVersion},
                       {"float_model", floatModel},
                       {"metric", lab.labelled ? "accuracy" : "top1_agreement"},
                       {"complete", lab.complete},
                       {"runs_planned", lab.runsPlanned},
                       {"options", optionsJson(options)},
                       {"pool", QJsonObject{{"files", strings(options.poolFiles)},
                                            {"samples", static_cast<qint64>(lab.poolSamples)}}},
                       {"evaluation", QJsonObject{{"files", strings(options.evalFiles)},
                                                  {"labels", lab.labelled},
                                                  {"rows", static_cast<qint64>(lab.evalRows)}}},
                       {"float", floatModelJson},
                       {"runs", runs},
                       {"comparisons", comparisons},
                       {"predictions", predictions},
                       {"timing", timing}};
}

}  // namespace ql::ui
