#include "analysis_report_format.h"

#include <QJsonArray>
#include <QStringList>

#include <cmath>
#include <optional>

#include "analysis/suite/worst_samples.h"
#include "diagnosis_list.h"

namespace ql::ui {
namespace {

using analysis::ComparisonMetrics;
using analysis::LayerReport;

// A figure as JSON: null for NaN, "inf" / "-inf" for infinities.
QJsonValue number(double value) {
    if (std::isnan(value)) return QJsonValue::Null;
    if (std::isinf(value)) return value > 0 ? QStringLiteral("inf") : QStringLiteral("-inf");
    return value;
}

QJsonValue number(const std::optional<double> &value) {
    return value ? number(*value) : QJsonValue::Null;
}

QJsonArray numbers(const std::vector<double> &values) {
    QJsonArray array;
    for (double v : values) array.append(number(v));
    return array;
}

QJsonArray numbers(const std::vector<float> &values) {
    QJsonArray array;
    for (float v : values) array.append(number(static_cast<double>(v)));
    return array;
}

QJsonArray strings(const std::vector<std::string> &values) {
    QJsonArray array;
    for (const auto &v : values) array.append(QString::fromStdString(v));
    return array;
}

QJsonValue sampleSqnr(const std::optional<ComparisonMetrics> &m) {
    if (!m || !m->sampleSqnr) return QJsonValue::Null;
    return QJsonObject{{"min", number(m->sampleSqnr->min)},
                       {"p5", number(m->sampleSqnr->p5)},
                       {"median", number(m->sampleSqnr->median)},
                       {"samples", static_cast<double>(m->sampleSqnr->stored)}};
}

// The isolated comparison's own figures (the layer object's headline keys are cumulative).
QJsonValue metricsObject(const std::optional<ComparisonMetrics> &m) {
    if (!m) return QJsonValue::Null;
    return QJsonObject{{"sqnr_db", number(m->sqnrDb)},
                       {"cosine", number(m->cosine)},
                       {"mse", number(m->mse)},
                       {"max_abs_error", number(m->maxAbsError)},
                       {"rmse_over_scale", number(m->rmseOverScale)},
                       {"saturation_pct", number(m->saturationPct)},
                       {"sample_sqnr_db", sampleSqnr(m)}};
}

template <typename F>
std::optional<double> cumulativeFigure(const LayerReport &layer, F figure) {
    if (!layer.cumulative) return std::nullopt;
    return figure(*layer.cumulative);
}

// A figure of the float output's per-sample ranges (sample_ranges.h: smallest non-degenerate
// range, largest, their ratio); nullopt without ranges.
std::optional<double> rangeFigure(const LayerReport &layer,
                                  double analysis::SampleRangeSummary::*figure) {
    const auto summary = analysis::summarizeSampleRanges(layer.sampleRanges);
    if (!summary) return std::nullopt;
    return (*summary).*figure;
}

QJsonObject layerJson(const LayerReport &layer) {
    const auto &c = layer.cumulative;
    QJsonObject o{
        {"name", QString::fromStdString(layer.name)},
        {"quant_name", QString::fromStdString(layer.quantName)},
        {"op_type", QString::fromStdString(layer.opType)},
        {"precision", QString::fromStdString(layer.precision)},
        {"precision_reason", QString::fromStdString(layer.precisionReason)},
        {"matched_by", QString::fromStdString(layer.matchedBy)},
        {"match", QJsonObject{{"by", QString::fromStdString(layer.matchedBy)},
                              {"confidence", layer.matchConfidence}}},
        {"folded_float_nodes", strings(layer.foldedFloatNodes)},
        {"folded_quant_nodes", strings(layer.foldedQuantNodes)},
        {"weight_sqnr_db", number(layer.weightSqnrDb)},
        {"weight_channel_sqnr_db",
         layer.weightSqnrDb ? QJsonValue(numbers(layer.weightChannelSqnrDb)) : QJsonValue::Null},
        {"weight_channel_min",
         layer.weightSqnrDb ? QJsonValue(numbers(layer.weightChannelMin)) : QJsonValue::Null},
        {"weight_channel_max",
         layer.weightSqnrDb ? QJsonValue(numbers(layer.weightChannelMax)) : QJsonValue::Null},
        {"activation_sqnr_db", c ? number(c->sqnrDb) : QJsonValue::Null},
        {"isolated_sqnr_db", layer.isolated ? number(layer.isolated->sqnrDb) : QJsonValue::Null},
        {"cosine", c ? number(c->cosine) : QJsonValue::Null},
        {"mse", c ? number(c->mse) : QJsonValue::Null},
        {"max_abs_error", c ? number(c->maxAbsError) : QJsonValue::Null},
        {"rmse_over_scale", c ? number(c->rmseOverScale) : QJsonValue::Null},
        {"saturation_pct", c ? number(c->saturationPct) : QJsonValue::Null},
        {"sample_sqnr_db", sampleSqnr(c)},
        {"sample_range_min", number(rangeFigure(layer, &analysis::SampleRangeSummary::smallest))},
        {"sample_range_max", number(rangeFigure(layer, &analysis::SampleRangeSummary::largest))},
        {"sample_range_ratio", number(rangeFigure(layer, &analysis::SampleRangeSummary::ratio))},
        {"isolated", metricsObject(layer.isolated)},
        {"kernel_vs_reference_sqnr_db", number(layer.kernelVsReferenceSqnrDb)},
        {"kernel_mismatch", layer.kernelMismatch},
        {"notes", strings(layer.notes)},
    };
    return o;
}

QJsonObject outputJson(const analysis::OutputReport &out) {
    return QJsonObject{{"name", QString::fromStdString(out.floatName)},
                       {"quant_name", QString::fromStdString(out.quantName)},
                       {"sqnr_db", number(out.sqnrDb)},
                       {"top1_agreement", number(out.top1Agreement)},
                       {"float_accuracy", number(out.floatAccuracy)},
                       {"quant_accuracy", number(out.quantAccuracy)}};
}

QString csvText(const QString &text) {
    if (!text.contains(',') && !text.contains('"') && !text.contains('\n')) return text;
    QString quoted = text;
    quoted.replace('"', "\"\"");
    return '"' + quoted + '"';
}

QString csvNumber(const std::optional<double> &value) {
    if (!value || std::isnan(*value)) return QString();
    if (std::isinf(*value)) return *value > 0 ? QStringLiteral("inf") : QStringLiteral("-inf");
    return QString::number(*value, 'g', 10);
}

}  // namespace

QJsonObject analysisReportJson(const analysis::NumericSuiteReport &report,
                               const AnalysisModels &models) {
    QJsonObject modelsJson{
        {"float", models.floatModel},
        {"quant", models.quantModel.isEmpty() ? QJsonValue::Null : QJsonValue(models.quantModel)},
        {"quantized_in_app", models.quantizedInApp},
        {"quant_precision", QString::fromStdString(report.quantPrecision)},
        {"int8_kernels", QString::fromStdString(report.int8Kernels)},
        {"int8_layers", report.int8Layers},
        {"fp32_layers", report.fp32Layers},
        {"other_quantized_layers", report.otherLayers}};
    if (models.quantizedInApp) modelsJson.insert("quantizer_options", models.quantizerOptions);
    QJsonArray outputs;
    for (const auto &out : report.outputs) outputs.append(outputJson(out));
    QJsonArray layers;
    for (const auto &layer : report.layers) layers.append(layerJson(layer));
    QJsonArray unmatched;
    for (const auto &u : report.unmatched)
        unmatched.append(QJsonObject{{"name", QString::fromStdString(u.name)},
                                     {"op_type", QString::fromStdString(u.opType)},
                                     {"model", QString::fromStdString(u.model)},
                                     {"reason", QString::fromStdString(u.reason)}});
    QJsonObject output =
        report.outputs.empty() ? QJsonObject{} : outputJson(report.outputs.front());
    output.remove("name");
    output.remove("quant_name");
    return QJsonObject{{"schema_version", kAnalysisSchemaVersion},
                       {"models", modelsJson},
                       {"samples", static_cast<double>(report.samples)},
                       {"kernel_check_samples", static_cast<double>(report.kernelCheckSamples)},
                       {"output", output},
                       {"outputs", outputs},
                       {"layers", layers},
                       {"unmatched", unmatched}};
}

QString analysisReportCsv(const analysis::NumericSuiteReport &report) {
    QStringList lines;
    lines << QStringLiteral(
        "name,quant_name,op_type,precision,weight_sqnr_db,activation_sqnr_db,isolated_sqnr_db,"
        "cosine,mse,"
        "max_abs_error,rmse_over_scale,saturation_pct,sample_sqnr_min_db,sample_sqnr_p5_db,sample_"
        "sqnr_median_db,"
        "kernel_vs_reference_sqnr_db,sample_range_min,sample_range_max,sample_range_ratio");
    for (const auto &layer : report.layers) {
        const auto &c = layer.cumulative;
        const auto samples = c && c->sampleSqnr ? c->sampleSqnr : std::nullopt;
        QStringList cells{
            csvText(QString::fromStdString(layer.name)),
            csvText(QString::fromStdString(layer.quantName)),
            csvText(QString::fromStdString(layer.opType)),
            QString::fromStdString(layer.precision),
            csvNumber(layer.weightSqnrDb),
            csvNumber(cumulativeFigure(layer, [](const ComparisonMetrics &m) { return m.sqnrDb; })),
            csvNumber(layer.isolated ? std::optional<double>(layer.isolated->sqnrDb)
                                     : std::nullopt),
            csvNumber(cumulativeFigure(layer, [](const ComparisonMetrics &m) { return m.cosine; })),
            csvNumber(cumulativeFigure(layer, [](const ComparisonMetrics &m) { return m.mse; })),
            csvNumber(
                cumulativeFigure(layer, [](const ComparisonMetrics &m) { return m.maxAbsError; })),
            csvNumber(c ? c->rmseOverScale : std::nullopt),
            csvNumber(c ? c->saturationPct : std::nullopt),
            csvNumber(samples ? std::optional<double>(samples->min) : std::nullopt),
            csvNumber(samples ? std::optional<double>(samples->p5) : std::nullopt),
            csvNumber(samples ? std::optional<double>(samples->median) : std::nullopt),
            csvNumber(layer.kernelVsReferenceSqnrDb),
            csvNumber(rangeFigure(layer, &analysis::SampleRangeSummary::smallest)),
            csvNumber(rangeFigure(layer, &analysis::SampleRangeSummary::largest)),
            csvNumber(rangeFigure(layer, &analysis::SampleRangeSummary::ratio))};
        lines << cells.join(',');
    }
    return lines.join('\n') + '\n';
}

QJsonArray worstSamplesJson(const analysis::OutputReport &output,
                            const std::vector<int64_t> &labels,
                            const std::vector<std::string> &files, int lowest, int maxFlips) {
    const size_t samples = output.sampleSqnrDb.size();
    QJsonArray worst;
    for (const auto &w : analysis::worstSamples(output, labels, lowest, maxFlips)) {
        QJsonObject sample{{"index", double(w.index)}, {"sqnr_db", number(w.sqnrDb)}};
        if (files.size() == samples)
            sample.insert("file", QString::fromStdString(files[size_t(w.index)]));
        if (w.label) sample.insert("label", double(*w.label));
        if (w.floatTop1 && w.quantTop1) {
            sample.insert("float_top1", double(*w.floatTop1));
            sample.insert("quant_top1", double(*w.quantTop1));
            sample.insert("flipped", w.flipped);
        }
        worst.append(sample);
    }
    return worst;
}

QJsonArray findingsJson(const std::vector<analysis::Finding> &findings) {
    QJsonArray out;
    for (const analysis::Finding &f : findings) {
        const char *severity = f.severity == analysis::Severity::Error     ? "error"
                               : f.severity == analysis::Severity::Warning ? "warning"
                                                                           : "info";
        QJsonObject finding{{"kind", analysis::findingKindName(f.kind)},
                            {"severity", severity},
                            {"layer", f.layer},
                            {"text", DiagnosisList::describe(f)}};
        if (f.layer >= 0) finding.insert("layer_name", QString::fromStdString(f.layerName));
        if (!f.related.empty()) finding.insert("related", QString::fromStdString(f.related));
        for (const auto &[key, value] :
             {std::pair{"value", f.value}, std::pair{"reference", f.reference},
              std::pair{"extra", f.extra}, std::pair{"channel_range_spread", f.channelRangeSpread}})
            if (!std::isnan(value)) finding.insert(key, number(value));
        if (f.channel >= 0) finding.insert("channel", double(f.channel));
        if (!f.remedy.empty()) finding.insert("remedy", QString::fromStdString(f.remedy));
        out.append(finding);
    }
    return out;
}

}  // namespace ql::ui
