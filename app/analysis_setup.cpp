#include "analysis_setup.h"

#include <QCoreApplication>
#include <QFileInfo>
#include <QJsonArray>

#include "image_data_reader.h"
#include "quant/observers.h"

#include <algorithm>

namespace {

QString relative(const QDir &base, const QString &path) {
    if (path.isEmpty()) return path;
    return base.relativeFilePath(QFileInfo(path).absoluteFilePath());
}

QString absolute(const QDir &base, const QString &path) {
    if (path.isEmpty()) return path;
    return QDir::cleanPath(base.absoluteFilePath(path));
}

QJsonArray relativeList(const QDir &base, const QStringList &paths) {
    QJsonArray array;
    for (const QString &path : paths) array.append(relative(base, path));
    return array;
}

QStringList absoluteList(const QDir &base, const QJsonValue &value) {
    QStringList paths;
    for (const QJsonValue &item : value.toArray()) paths.append(absolute(base, item.toString()));
    return paths;
}

std::vector<std::string> toStd(const QStringList &list) {
    std::vector<std::string> out;
    for (const QString &item : list) out.push_back(item.toStdString());
    return out;
}

QString tr(const char *text) {
    return QCoreApplication::translate("AnalysisSetup", text);
}

}  // namespace

QJsonObject QuantizerSettings::toJson() const {
    QJsonObject object{{"method", method},
                       {"percentile", percentile},
                       {"per_tensor", perTensor},
                       {"symmetric_activations", symmetricActivations},
                       {"reduce_range", reduceRange},
                       {"fold_batch_norm", foldBatchNorm}};
    if (calibrationBatch > 0) object.insert("calib_batch", calibrationBatch);  // 0: the default
    if (!remedies.isEmpty()) object.insert("remedies", QJsonArray::fromStringList(remedies));
    return object;
}

QuantizerSettings QuantizerSettings::fromJson(const QJsonObject &object) {
    QuantizerSettings s;
    s.method = object.value("method").toString(s.method);
    s.percentile = object.value("percentile").toDouble(s.percentile);
    s.perTensor = object.value("per_tensor").toBool(s.perTensor);
    s.symmetricActivations = object.value("symmetric_activations").toBool(s.symmetricActivations);
    s.reduceRange = object.value("reduce_range").toBool(s.reduceRange);
    s.foldBatchNorm = object.value("fold_batch_norm").toBool(s.foldBatchNorm);
    s.calibrationBatch = std::max(0, object.value("calib_batch").toInt(0));
    for (const QJsonValue &remedy : object.value("remedies").toArray())
        s.remedies << remedy.toString();
    return s;
}

QuantizerSettings QuantizerSettings::fromOptions(const ql::quant::QuantizationOptions &options,
                                                 int calibrationBatch) {
    QuantizerSettings s;
    s.method = QString::fromLatin1(ql::quant::rangeMethodName(options.method));
    s.percentile = options.percentile;
    s.perTensor = !options.perChannelWeights;
    s.symmetricActivations = options.symmetricActivations;
    s.reduceRange = options.reduceRange;
    s.foldBatchNorm = options.foldBatchNorm;
    s.calibrationBatch = calibrationBatch;
    return s;
}

bool QuantizerSettings::operator==(const QuantizerSettings &o) const {
    return method == o.method && percentile == o.percentile && perTensor == o.perTensor &&
           symmetricActivations == o.symmetricActivations && reduceRange == o.reduceRange &&
           foldBatchNorm == o.foldBatchNorm && calibrationBatch == o.calibrationBatch &&
           remedies == o.remedies;
}

bool AnalysisSetup::isComplete() const {
    return missingText().isEmpty();
}

QString AnalysisSetup::missingText() const {
    if (floatModel.isEmpty()) return tr("Open a float model");
    if (!quantizeInApp && quantModel.isEmpty())
        return tr("Open a quantized model or quantize in the app");
    if (!randomInputs && dataPaths.isEmpty()) return tr("Choose evaluation inputs");
    return {};
}

QJsonObject AnalysisSetup::toJson(const QDir &base) const {
    QJsonObject object{{"float_model", relative(base, floatModel)},
                       {"quantized_in_app", quantizeInApp},
                       {"quantizer", quantizer.toJson()},
                       {"data", relativeList(base, dataPaths)},
                       {"labels", relative(base, labelsPath)},
                       {"random_inputs", QJsonObject{{"enabled", randomInputs},
                                                     {"count", randomCount},
                                                     {"seed", QString::number(randomSeed)}}},
                       {"batch", batch},
                       {"int8_kernels", int8Kernels}};
    if (!preprocess.isEmpty()) object.insert("preprocess", preprocess);
    if (quantizeInApp)
        object.insert("calibration", relativeList(base, calibrationPaths));
    else
        object.insert("quant_model", relative(base, quantModel));
    return object;
}

AnalysisSetup AnalysisSetup::fromJson(const QJsonObject &object, const QDir &base) {
    AnalysisSetup s;
    s.floatModel = absolute(base, object.value("float_model").toString());
    s.quantizeInApp = object.value("quantized_in_app").toBool();
    s.quantModel = absolute(base, object.value("quant_model").toString());
    s.calibrationPaths = absoluteList(base, object.value("calibration"));
    s.quantizer = QuantizerSettings::fromJson(object.value("quantizer").toObject());
    s.dataPaths = absoluteList(base, object.value("data"));
    s.labelsPath = absolute(base, object.value("labels").toString());
    const QJsonObject random = object.value("random_inputs").toObject();
    s.randomInputs = random.value("enabled").toBool();
    s.randomCount = random.value("count").toInt(s.randomCount);
    s.randomSeed = random.value("seed").toString("1").toULongLong();
    s.batch = object.value("batch").toInt(s.batch);
    s.int8Kernels = object.value("int8_kernels").toString(s.int8Kernels);
    s.preprocess = object.value("preprocess").toString();
    return s;
}

ql::ui::AnalysisModels AnalysisSetup::analysisModels() const {
    ql::ui::AnalysisModels models;
    models.floatModel = floatModel;
    models.quantModel = quantizeInApp ? QString() : quantModel;
    models.quantizedInApp = quantizeInApp;
    if (quantizeInApp) models.quantizerOptions = quantizer.toJson();
    return models;
}

QString AnalysisSetup::dataText(const std::string &reading) const {
    if (randomInputs)
        return QCoreApplication::translate("AnalysisSetup", "%1 seeded random inputs (seed %2)")
            .arg(randomCount)
            .arg(randomSeed);
    QStringList names;
    for (const QString &path : dataPaths) names << QFileInfo(path).fileName();
    QString text = names.join(QStringLiteral(", "));
    if (!labelsPath.isEmpty())
        text += QCoreApplication::translate("AnalysisSetup", "; labels %1")
                    .arg(QFileInfo(labelsPath).fileName());
    if (!reading.empty())
        text += QStringLiteral("; ") + QString::fromStdString(reading);
    else if (!preprocess.isEmpty())
        text += QCoreApplication::translate("AnalysisSetup", "; preprocess %1").arg(preprocess);
    return text;
}

bool AnalysisSetup::toRequest(ql::ui::AnalysisRequest &request, QString &error) const {
    error = missingText();
    if (!error.isEmpty()) return false;
    request = {};
    request.floatModel = floatModel.toStdString();
    if (!quantizeInApp) request.quantModel = quantModel.toStdString();
    request.calibrationPaths = toStd(calibrationPaths);
    request.calibrationBatch = quantizer.calibrationBatch;
    if (!ql::quant::parseRangeMethod(quantizer.method.toStdString(), request.quantizer.method)) {
        error = tr("Unknown calibration method '%1'").arg(quantizer.method);
        return false;
    }
    request.quantizer.percentile = quantizer.percentile;
    request.quantizer.perChannelWeights = !quantizer.perTensor;
    request.quantizer.symmetricActivations = quantizer.symmetricActivations;
    request.quantizer.reduceRange = quantizer.reduceRange;
    request.quantizer.foldBatchNorm = quantizer.foldBatchNorm;
    request.adaRound = false;
    request.correctBiases = false;
    for (const QString &name : quantizer.remedies) {
        if (name == QStringLiteral("adaround")) {
            request.adaRound = quantizeInApp;
            continue;
        }
        if (name == QStringLiteral("bias-correction")) {
            request.correctBiases = quantizeInApp;
            continue;
        }
        auto remedy = ql::quant::parseFloatRemedy(name.toStdString());
        if (!remedy || !*remedy) {
            error = remedy ? tr("Unknown remedy '%1' (cle, smoothquant, adaround or "
                                "bias-correction)")
                                 .arg(name)
                           : QString::fromStdString(remedy.status().message());
            return false;
        }
        if (quantizeInApp) request.remedies.push_back(**remedy);
    }
    request.dataPaths = toStd(dataPaths);
    request.labels = labelsPath.toStdString();
    request.randomInputs = randomInputs;
    request.randomCount = randomCount;
    request.randomSeed = randomSeed;
    request.batch = batch;
    std::optional<ql::quant::PreprocessSpec> spec;
    if (!preprocess.isEmpty()) {
        auto parsed = ql::quant::parsePreprocessSpec(preprocess.toStdString());
        if (!parsed) {
            error = tr("Preprocessing: %1").arg(QString::fromStdString(parsed.status().message()));
            return false;
        }
        spec = *parsed;
    }
    request.reader = std::make_shared<const ql::ui::ImageDataReader>(spec);
    if (!ql::parseInt8Kernels(int8Kernels.toStdString(), request.int8Kernels)) {
        error = tr("Unknown int8 kernel mode '%1'").arg(int8Kernels);
        return false;
    }
    return true;
}

bool AnalysisSetup::operator==(const AnalysisSetup &o) const {
    return floatModel == o.floatModel && quantModel == o.quantModel &&
           quantizeInApp == o.quantizeInApp && calibrationPaths == o.calibrationPaths &&
           quantizer == o.quantizer && dataPaths == o.dataPaths && labelsPath == o.labelsPath &&
           preprocess == o.preprocess && randomInputs == o.randomInputs &&
           randomCount == o.randomCount && randomSeed == o.randomSeed && batch == o.batch &&
           int8Kernels == o.int8Kernels;
}
