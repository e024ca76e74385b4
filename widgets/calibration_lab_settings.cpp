#include "calibration_lab_settings.h"

#include <QCoreApplication>
#include <QFileInfo>
#include <QJsonArray>
#include <QRegularExpression>

#include <algorithm>

#include "analysis/calibration_lab/calibration_lab.h"

namespace ql::ui {

namespace {

QString tr(const char *text) {
    return QCoreApplication::translate("ql::ui::CalibrationLabSettings", text);
}

QString stored(const QDir *base, const QString &path) {
    if (!base || path.isEmpty()) return path;
    return base->relativeFilePath(QFileInfo(path).absoluteFilePath());
}

QString restored(const QDir *base, const QString &path) {
    if (!base || path.isEmpty()) return path;
    return QDir::cleanPath(base->absoluteFilePath(path));
}

QJsonArray storedList(const QDir *base, const QStringList &paths) {
    QJsonArray array;
    for (const QString &path : paths) array.append(stored(base, path));
    return array;
}

QStringList restoredList(const QDir *base, const QJsonValue &value) {
    QStringList paths;
    for (const QJsonValue &item : value.toArray()) paths.append(restored(base, item.toString()));
    return paths;
}

}  // namespace

const QStringList CalibrationLabSettings::kMethods{
    QStringLiteral("minmax"), QStringLiteral("percentile"), QStringLiteral("entropy"),
    QStringLiteral("mse"), QStringLiteral("moving-average")};
const QStringList CalibrationLabSettings::kSelections{
    QStringLiteral("random"), QStringLiteral("stratified"), QStringLiteral("first")};

std::optional<QList<qint64>> parsePositiveList(const QString &text, const QString &what,
                                               QString *error) {
    static const QRegularExpression separators(QStringLiteral("[,;\\s]+"));
    QList<qint64> values;
    for (const QString &item : text.split(separators, Qt::SkipEmptyParts)) {
        bool ok = false;
        const qint64 value = item.toLongLong(&ok);
        if (!ok || value <= 0) {
            if (error)
                *error = QCoreApplication::translate("ql::ui::CalibrationLabSettings",
                                                     "%1: '%2' is not a positive number")
                             .arg(what, item);
            return std::nullopt;
        }
        values.append(value);
    }
    if (values.isEmpty()) {
        if (error)
            *error = QCoreApplication::translate("ql::ui::CalibrationLabSettings",
                                                 "%1: enter at least one number")
                         .arg(what);
        return std::nullopt;
    }
    std::sort(values.begin(), values.end());
    values.erase(std::unique(values.begin(), values.end()), values.end());
    return values;
}

QStringList CalibrationLabSettings::engineMethods() const {
    QStringList out;
    for (const QString &method : methods)
        out.append(method == QLatin1String("percentile")
                       ? QStringLiteral("percentile:") + QString::number(percentile, 'g', 10)
                       : method);
    return out;
}

QStringList CalibrationLabSettings::remedySets() const {
    QStringList sets;
    for (const QString &set : remedies.split(QLatin1Char(','), Qt::SkipEmptyParts))
        sets << set.trimmed();
    return sets;
}

QString CalibrationLabSettings::validate() const {
    if (floatModel.trimmed().isEmpty()) return tr("Choose the float model");
    if (poolPaths.isEmpty()) return tr("Choose the calibration pool (files or a folder)");
    if (evaluationPaths.isEmpty()) return tr("Choose the evaluation inputs (files or a folder)");
    if (methods.isEmpty()) return tr("Choose at least one calibration method");
    for (const QString &method : methods)
        if (!kMethods.contains(method)) return tr("Unknown calibration method '%1'").arg(method);
    if (methods.contains(QStringLiteral("percentile")) && (percentile <= 0.0 || percentile > 100.0))
        return tr("Percentile: %1 is not in (0, 100]").arg(percentile);
    QString error;
    if (!parsePositiveList(sizes, tr("Sizes"), &error)) return error;
    if (!parsePositiveList(calibrationBatches, tr("Calibration batches"), &error)) return error;
    if (remedySets().isEmpty()) return tr("Remedies: give at least one set (none is one)");
    for (const QString &set : remedySets())
        if (auto parsed = analysis::parseLabRemedies(set.toStdString()); !parsed)
            return tr("Remedies: '%1' is not none, bias-correction, adaround or "
                      "adaround+bias-correction")
                .arg(set);
    if (repeats < 1) return tr("Repeats: at least 1");
    if (!kSelections.contains(selection)) return tr("Unknown selection '%1'").arg(selection);
    if (evaluationBatch < 1) return tr("Evaluation batch: at least 1");
    return {};
}

int CalibrationLabSettings::plannedRuns() const {
    const auto sizeList = parsePositiveList(sizes, QString());
    const auto batchList = parsePositiveList(calibrationBatches, QString());
    if (!sizeList || !batchList) return 0;
    return int(methods.size() * sizeList->size() * batchList->size() * remedySets().size()) *
           std::max(repeats, 0);
}

QJsonObject CalibrationLabSettings::toJson(const QDir *base) const {
    return {{"float_model", stored(base, floatModel)},
            {"pool", storedList(base, poolPaths)},
            {"evaluation", storedList(base, evaluationPaths)},
            {"labels", stored(base, labelsPath)},
            {"methods", QJsonArray::fromStringList(methods)},
            {"percentile", percentile},
            {"sizes", sizes},
            {"repeats", repeats},
            {"selection", selection},
            {"calib_batches", calibrationBatches},
            {"remedies", remedies},
            {"seed", QString::number(seed)},  // 64 bits do not fit a JSON double
            {"eval_batch", evaluationBatch},
            {"per_tensor", perTensor},
            {"symmetric_activations", symmetricActivations},
            {"reduce_range", reduceRange},
            {"fold_batch_norm", foldBatchNorm},
            {"layers", layers}};
}

CalibrationLabSettings CalibrationLabSettings::fromJson(const QJsonObject &object,
                                                        const QDir *base) {
    CalibrationLabSettings s;
    s.floatModel = restored(base, object.value("float_model").toString());
    s.poolPaths = restoredList(base, object.value("pool"));
    s.evaluationPaths = restoredList(base, object.value("evaluation"));
    s.labelsPath = restored(base, object.value("labels").toString());
    if (object.contains("methods")) {
        s.methods.clear();
        for (const QJsonValue &method : object.value("methods").toArray())
            s.methods.append(method.toString());
    }
    s.percentile = object.value("percentile").toDouble(s.percentile);
    s.sizes = object.value("sizes").toString(s.sizes);
    s.repeats = object.value("repeats").toInt(s.repeats);
    s.selection = object.value("selection").toString(s.selection);
    s.calibrationBatches = object.value("calib_batches").toString(s.calibrationBatches);
    s.remedies = object.value("remedies").toString(s.remedies);
    s.seed = object.value("seed").toString(QString::number(s.seed)).toULongLong();
    s.evaluationBatch = object.value("eval_batch").toInt(s.evaluationBatch);
    s.perTensor = object.value("per_tensor").toBool(s.perTensor);
    s.symmetricActivations = object.value("symmetric_activations").toBool(s.symmetricActivations);
    s.reduceRange = object.value("reduce_range").toBool(s.reduceRange);
    s.foldBatchNorm = object.value("fold_batch_norm").toBool(s.foldBatchNorm);
    s.layers = object.value("layers").toBool(s.layers);
    return s;
}

bool CalibrationLabSettings::operator==(const CalibrationLabSettings &o) const {
    return floatModel == o.floatModel && poolPaths == o.poolPaths &&
           evaluationPaths == o.evaluationPaths && labelsPath == o.labelsPath &&
           methods == o.methods && percentile == o.percentile && sizes == o.sizes &&
           repeats == o.repeats && selection == o.selection &&
           calibrationBatches == o.calibrationBatches && remedies == o.remedies && seed == o.seed &&
           evaluationBatch == o.evaluationBatch && perTensor == o.perTensor &&
           symmetricActivations == o.symmetricActivations && reduceRange == o.reduceRange &&
           foldBatchNorm == o.foldBatchNorm && layers == o.layers;
}

}  // namespace ql::ui
