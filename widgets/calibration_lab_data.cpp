#include "calibration_lab_data.h"

#include <QCoreApplication>
#include <QHash>
#include <QJsonArray>
#include <QSet>

#include <cmath>

namespace ql::ui {

namespace {

// JSON null (a missing figure) and NaN both read as "no value".
std::optional<double> number(const QJsonValue &value) {
    if (!value.isDouble()) return std::nullopt;
    const double v = value.toDouble();
    return std::isnan(v) ? std::nullopt : std::optional<double>(v);
}

std::optional<Interval> interval(const QJsonValue &value) {
    const QJsonArray pair = value.toArray();
    if (pair.size() != 2 || !pair[0].isDouble() || !pair[1].isDouble()) return std::nullopt;
    return Interval{pair[0].toDouble(), pair[1].toDouble()};
}

QStringList strings(const QJsonValue &value) {
    QStringList out;
    for (const QJsonValue &item : value.toArray()) out.append(item.toString());
    return out;
}

CalibrationLabRun parseRun(const QJsonObject &o) {
    CalibrationLabRun run;
    run.id = o.value("id").toString();
    run.method = o.value("method").toString();
    run.percentile = number(o.value("percentile"));
    // The engine's name ("percentile:99.99"), so that two percentiles are two methods.
    if (run.method == QLatin1String("percentile") && run.percentile)
        run.method += QLatin1Char(':') + QString::number(*run.percentile, 'g', 10);
    run.size = o.value("size").toInteger();
    run.repeat = o.value("repeat").toInt(1);
    run.selection = o.value("selection").toString();
    run.calibBatch = o.value("calib_batch").toInteger(1);
    // Remedies make a series of their own in the charts and tables ("minmax+bias-correction").
    run.remedies = o.value("remedies").toString(QStringLiteral("none"));
    if (run.remedies != QLatin1String("none")) run.method += QLatin1Char('+') + run.remedies;
    for (const QJsonValue &index : o.value("calib_indices").toArray())
        run.calibIndices.append(index.toInteger());
    run.identicalTo = o.value("identical_to").toString();
    run.seconds = o.value("seconds").toDouble();
    const QJsonObject output = o.value("output").toObject();
    run.sqnrDb = number(output.value("sqnr_db"));
    run.agreement = number(output.value("top1_agreement"));
    run.agreementCi = interval(output.value("top1_agreement_ci95"));
    run.accuracy = number(output.value("accuracy"));
    run.accuracyCi = interval(output.value("accuracy_ci95"));
    run.reproduce = o.value("reproduce").toString();
    return run;
}

CalibrationLabComparison parseComparison(const QJsonObject &o) {
    CalibrationLabComparison c;
    c.kind = o.value("kind").toString();
    c.a = o.value("a").toString();
    c.b = o.value("b").toString();
    c.diff = number(o.value("accuracy_diff"));
    c.diffCi = interval(o.value("accuracy_diff_ci95"));
    c.mcnemarP = number(o.value("mcnemar_p"));
    c.n01 = o.value("n01").toInteger();
    c.n10 = o.value("n10").toInteger();
    c.verdict = o.value("verdict").toString();
    return c;
}

}  // namespace

CalibrationLabData parseCalibrationLab(const QJsonObject &lab) {
    CalibrationLabData data;
    data.floatModel = lab.value("float_model").toString();
    const QJsonObject floatModel = lab.value("float").toObject();
    data.floatAccuracy = number(floatModel.value("accuracy"));
    data.floatAccuracyCi = interval(floatModel.value("accuracy_ci95"));
    data.labelled = lab.contains("metric") ? lab.value("metric").toString() == "accuracy"
                                           : data.floatAccuracy.has_value();
    data.complete = lab.value("complete").toBool();
    data.options = lab.value("options").toObject();
    data.poolFiles = strings(lab.value("pool").toObject().value("files"));
    const QJsonObject evaluation = lab.value("evaluation").toObject();
    data.evaluationFiles = strings(evaluation.value("files"));
    data.evaluationRows = evaluation.value("rows").toInteger();
    QHash<QString, int> byId;
    QSet<qint64> batches;
    for (const QJsonValue &value : lab.value("runs").toArray()) {
        CalibrationLabRun run = parseRun(value.toObject());
        // A run evaluated once for an identical earlier run: that run's figures.
        const auto first = byId.constFind(run.identicalTo);
        if (!run.identicalTo.isEmpty() && first != byId.constEnd() && !run.sqnrDb) {
            const CalibrationLabRun &source = data.runs[*first];
            run.sqnrDb = source.sqnrDb;
            run.agreement = source.agreement;
            run.agreementCi = source.agreementCi;
            run.accuracy = source.accuracy;
            run.accuracyCi = source.accuracyCi;
        }
        byId.insert(run.id, int(data.runs.size()));
        batches.insert(run.calibBatch);
        data.runs.append(run);
    }
    data.severalCalibrationBatches = batches.size() > 1;
    data.runsPlanned = lab.value("runs_planned").toInt(int(data.runs.size()));
    for (const QJsonValue &value : lab.value("comparisons").toArray())
        data.comparisons.append(parseComparison(value.toObject()));
    return data;
}

const CalibrationLabRun *CalibrationLabData::findRun(const QString &id) const {
    for (const CalibrationLabRun &run : runs)
        if (run.id == id) return &run;
    return nullptr;
}

std::optional<double> CalibrationLabData::score(const CalibrationLabRun &run) const {
    return labelled ? run.accuracy : run.agreement;
}

std::optional<Interval> CalibrationLabData::scoreCi(const CalibrationLabRun &run) const {
    return labelled ? run.accuracyCi : run.agreementCi;
}

QString CalibrationLabData::seriesName(const CalibrationLabRun &run) const {
    if (!severalCalibrationBatches) return run.method;
    return QCoreApplication::translate("ql::ui::CalibrationLabData", "%1, batch %2")
        .arg(run.method)
        .arg(run.calibBatch);
}

}  // namespace ql::ui
