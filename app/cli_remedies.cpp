#include "cli_remedies.h"

#include <QJsonObject>

#include <algorithm>
#include <cstdio>

#include "cli_support.h"

namespace cli {

void addRemedyOptions(QCommandLineParser &parser, bool writesModels) {
    parser.addOption(
        {"remedy",
         "Fix the float model for int8 before calibrating; repeatable. cle: cross-layer "
         "equalization of Conv pairs joined directly or through Relu (BatchNorm folded first), "
         "for per-channel weight ranges far apart, as depthwise convolutions have. "
         "smoothquant[=ALPHA]: for MatMul/Gemm/Conv inputs with outlier channels (transformers "
         "after LayerNorm), move part of their range into the weights, s = max|X|^ALPHA / "
         "max|W|^(1-ALPHA) per channel (ALPHA 0.5 by default). "
         "adaround[=LAYER,...]: after quantizing, round each weight of the int8 layers (or of "
         "the layers named) up or down as best reconstructs the layer's output on the "
         "calibration data (AdaRound) instead of to nearest; minutes on large models. "
         "bias-correction: after quantizing, subtract from each int8 Conv/Gemm's bias the mean "
         "output shift its quantization causes on the calibration data, layer by layer.",
         "REMEDY"});
    if (!writesModels) return;
    parser.addOption({"out-float",
                      "With --remedy: also write the remedied float model (the same outputs as "
                      "the input model): the float side to analyse the quantized model against.",
                      "FLOAT.onnx"});
}

ql::Result<std::optional<RemedyRun>> applyRemedies(const QCommandLineParser &parser,
                                                   const QString &command,
                                                   const ql::Graph &floatGraph, bool foldBatchNorm,
                                                   const CalibrationFor &calibration, int threads) {
    const QStringList asked = parser.values("remedy");
    if (asked.isEmpty()) {
        if (parser.optionNames().contains("out-float"))
            return ql::Status::badInput(command.toStdString() + ": --out-float needs --remedy");
        return std::optional<RemedyRun>();
    }
    RemedyRun run;
    run.model = ql::quant::prepareFloatGraph(floatGraph, foldBatchNorm, &run.folding);
    std::vector<ql::quant::FloatRemedy> beforeCalibration;
    for (const QString &remedy : asked) {
        if (remedy == "bias-correction") {
            run.correctBiases = true;
            continue;
        }
        if (remedy == "adaround" || remedy.startsWith("adaround=")) {
            run.adaRound.emplace();
            for (const QString &layer : remedy.section('=', 1).split(',', Qt::SkipEmptyParts))
                run.adaRound->layers.insert(layer.trimmed().toStdString());
            continue;
        }
        auto parsed = ql::quant::parseFloatRemedy(remedy.toStdString());
        if (!parsed) return parsed.status().withContext(command.toStdString() + ": --remedy");
        if (!*parsed)
            return ql::Status::badInput(command.toStdString() + ": --remedy '" +
                                        remedy.toStdString() +
                                        "' is not one QuantLens has; available: cle, "
                                        "smoothquant[=ALPHA], adaround[=LAYER,...], "
                                        "bias-correction");
        beforeCalibration.push_back(**parsed);
    }
    const auto stop = [](int, int) { return !ql::stopRequested(); };  // a short pass: no progress
    auto applied = ql::quant::applyFloatRemedies(run.model, beforeCalibration,
                                                 calibration(run.model), threads, stop);
    if (!applied) return applied.status();
    run.before = std::move(*applied);
    // A zero bias changes nothing in float; quantized, it becomes the int32 bias that the
    // correction moves.
    if (run.correctBiases) run.zeroBiasesAdded = ql::quant::addZeroBiases(run.model);
    return std::optional<RemedyRun>(std::move(run));
}

namespace {

ql::Status runAdaRound(RemedyRun &run, ql::Graph &model, const ql::quant::QuantizationPlan &plan,
                       const ql::quant::BatchSourceOpener &calibration, int threads) {
    ql::quant::AdaRoundOptions options = *run.adaRound;
    options.threads = threads;
    ProgressPrinter printer("AdaRound", "rounding");
    options.progress = [&printer](int done, int total) {
        return done == 0 ? printer("calibration pass", 0, 1)
                         : printer("rounding", done - 100, total - 100);
    };
    auto report = ql::quant::adaRound(model, plan, calibration, options);
    printer.finish();
    if (!report) return report.status();
    std::printf("%s\n", ql::quant::describe(*report).c_str());
    for (const auto &l : report->layers)
        std::printf(
            "%s %s '%s': the weights' rounding alone %.2f -> %.2f dB on %lld held-apart columns "
            "(%.2f -> %.2f dB on the calibration columns); layer output SQNR %.2f -> %.2f dB (its "
            "input alone %.2f dB); %lld of %lld weights rounded the other way (%lld undecided at "
            "the end); %.1f s\n",
            l.keptNearest ? "kept   " : "rounded", l.opType.c_str(), l.node.c_str(),
            l.heldApartSqnrNearest, l.heldApartSqnrAdaptive,
            static_cast<long long>(l.heldApartColumns), l.weightOnlySqnrNearest,
            l.weightOnlySqnrAdaptive, l.sqnrNearest, l.sqnrAdaptive, l.inputOnlySqnr,
            static_cast<long long>(l.changed), static_cast<long long>(l.weights),
            static_cast<long long>(l.undecided), l.seconds);
    for (const auto &s : report->skipped)
        std::printf("left    '%s': %s\n", s.node.c_str(), s.reason.c_str());
    run.adaRounding = std::move(*report);
    return ql::Status::ok();
}

ql::Status runBiasCorrection(RemedyRun &run, ql::Graph &model,
                             const ql::quant::QuantizationPlan &plan,
                             const ql::quant::BatchSourceOpener &calibration, int threads) {
    ql::quant::BiasCorrectionOptions options;
    options.threads = threads;
    ProgressPrinter printer("bias correction", "passes");
    options.progress = [&printer](int done, int total) { return printer("passes", done, total); };
    auto report = ql::quant::correctBiases(model, plan, calibration, options);
    printer.finish();
    if (!report) return report.status();
    report->biasesAdded = run.zeroBiasesAdded;
    std::printf("%s\n", ql::quant::describe(*report).c_str());
    for (const auto &l : report->layers)
        std::printf(
            "corrected %s '%s': %lld of %lld channels shifted (at most %.3g); mean error "
            "per channel (RMS) %.3g -> %.3g, its noise %.3g; output RMS %.3g\n",
            l.opType.c_str(), l.node.c_str(), static_cast<long long>(l.channelsShifted),
            static_cast<long long>(l.channels), l.largestShift, l.meanErrorBefore, l.meanErrorAfter,
            l.standardError, l.outputRms);
    for (const auto &s : report->skipped)
        std::printf("left     '%s': %s\n", s.node.c_str(), s.reason.c_str());
    run.biasCorrection = std::move(*report);
    return ql::Status::ok();
}

}  // namespace

ql::Status remedyQuantized(RemedyRun &run, ql::quant::QuantizeResult &result,
                           const ql::quant::BatchSourceOpener &calibration, int threads) {
    if (!run.adaRound && !run.correctBiases) return ql::Status::ok();
    ql::Graph remedied = run.model;
    if (run.adaRound)
        QL_RETURN_IF_ERROR(runAdaRound(run, remedied, result.plan, calibration, threads));
    if (run.correctBiases)
        QL_RETURN_IF_ERROR(runBiasCorrection(run, remedied, result.plan, calibration, threads));
    auto rebuilt = ql::quant::buildQdqGraph(remedied, result.plan);
    if (!rebuilt) return rebuilt.status().withContext(run.model.sourcePath);
    result.model = std::move(*rebuilt);
    return ql::Status::ok();
}

namespace {

QString quotedList(const std::vector<std::string> &names) {
    QStringList quoted;
    for (const std::string &n : names) quoted << "'" + QString::fromStdString(n) + "'";
    return quoted.join(", ");
}

void printEqualization(const ql::quant::CrossLayerEqualizationReport &report) {
    std::printf("%s\n", ql::quant::describe(report).c_str());
    for (const auto &p : report.pairs)
        std::printf("equalized Conv '%s' -> %s'%s': channel range spread %.3gx -> %.3gx\n",
                    p.first.c_str(), p.between.empty() ? "" : (p.between + " -> ").c_str(),
                    p.second.c_str(), std::max(p.firstSpreadBefore, p.secondSpreadBefore),
                    std::max(p.firstSpreadAfter, p.secondSpreadAfter));
    for (const auto &s : report.skipped)
        std::printf("left     Conv '%s' -> '%s': %s\n", s.first.c_str(), s.second.c_str(),
                    s.reason.c_str());
}

void printSmoothing(const ql::quant::SmoothQuantReport &report) {
    std::printf("%s\n", ql::quant::describe(report).c_str());
    for (const auto &a : report.smoothed)
        std::printf(
            "smoothed '%s' for %s (alpha %.2g, into %s): activation channel spread "
            "%.3gx -> %.3gx, weight rows %.3gx -> %.3gx\n",
            a.value.c_str(), qPrintable(quotedList(a.layers)), a.alpha, a.foldedInto.c_str(),
            a.activationSpreadBefore, a.activationSpreadAfter, a.weightSpreadBefore,
            a.weightSpreadAfter);
    for (const auto &s : report.skipped)
        std::printf("left     '%s' for %s: %s\n", s.value.c_str(), qPrintable(quotedList(s.layers)),
                    s.reason.c_str());
}

}  // namespace

void printRemedies(const RemedyRun &run) {
    for (const ql::quant::FloatRemedy &remedy : run.before.applied)
        if (remedy.kind == ql::quant::FloatRemedy::Kind::CrossLayerEqualization)
            printEqualization(*run.before.equalization);
        else
            printSmoothing(*run.before.smoothing);
}

namespace {

QJsonArray names(const std::vector<std::string> &list) {
    QJsonArray out;
    for (const std::string &n : list) out.append(QString::fromStdString(n));
    return out;
}

QJsonObject biasCorrectionJson(const ql::quant::BiasCorrectionReport &report) {
    QJsonArray layers, skipped;
    for (const auto &l : report.layers)
        layers.append(QJsonObject{{"node", QString::fromStdString(l.node)},
                                  {"op", QString::fromStdString(l.opType)},
                                  {"channels", static_cast<qint64>(l.channels)},
                                  {"channels_shifted", static_cast<qint64>(l.channelsShifted)},
                                  {"standard_error_rms", l.standardError},
                                  {"mean_error_rms_before", l.meanErrorBefore},
                                  {"mean_error_rms_after", l.meanErrorAfter},
                                  {"largest_shift", l.largestShift},
                                  {"output_rms", l.outputRms}});
    for (const auto &s : report.skipped)
        skipped.append(QJsonObject{{"node", QString::fromStdString(s.node)},
                                   {"reason", QString::fromStdString(s.reason)}});
    return QJsonObject{{"remedy", "bias-correction"},
                       {"samples", static_cast<qint64>(report.samples)},
                       {"passes", report.passes},
                       {"layers", layers},
                       {"zero_biases_added", names(report.biasesAdded)},
                       {"left_as_they_are", skipped}};
}

QJsonObject adaRoundJson(const ql::quant::AdaRoundReport &report) {
    QJsonArray layers, skipped;
    for (const auto &l : report.layers)
        layers.append(
            QJsonObject{{"node", QString::fromStdString(l.node)},
                        {"op", QString::fromStdString(l.opType)},
                        {"weights", static_cast<qint64>(l.weights)},
                        {"weights_rounded_otherwise", static_cast<qint64>(l.changed)},
                        {"undecided", static_cast<qint64>(l.undecided)},
                        {"columns", static_cast<qint64>(l.columns)},
                        {"output_sqnr_nearest_db", l.sqnrNearest},
                        {"output_sqnr_adaround_db", l.sqnrAdaptive},
                        {"input_only_sqnr_db", l.inputOnlySqnr},
                        {"weight_only_sqnr_nearest_db", l.weightOnlySqnrNearest},
                        {"weight_only_sqnr_adaround_db", l.weightOnlySqnrAdaptive},
                        {"held_apart_columns", static_cast<qint64>(l.heldApartColumns)},
                        {"held_apart_weight_only_sqnr_nearest_db", l.heldApartSqnrNearest},
                        {"held_apart_weight_only_sqnr_adaround_db", l.heldApartSqnrAdaptive},
                        {"kept_nearest", l.keptNearest},
                        {"seconds", l.seconds}});
    for (const auto &s : report.skipped)
        skipped.append(QJsonObject{{"node", QString::fromStdString(s.node)},
                                   {"reason", QString::fromStdString(s.reason)}});
    const ql::quant::AdaRoundOptions &o = report.options;
    return QJsonObject{{"remedy", "adaround"},
                       {"samples", static_cast<qint64>(report.samples)},
                       {"steps", o.iterations},
                       {"learning_rate", o.learningRate},
                       {"regularization", o.regularization},
                       {"columns_per_sample", static_cast<qint64>(o.columnsPerSample)},
                       {"seed", QString::number(o.seed)},
                       {"seconds", report.seconds},
                       {"layers", layers},
                       {"left_as_they_are", skipped}};
}

QJsonObject equalizationJson(const ql::quant::CrossLayerEqualizationReport &report) {
    QJsonArray pairs, skipped;
    for (const auto &p : report.pairs) {
        QJsonArray scales;
        for (double s : p.scales) scales.append(s);
        pairs.append(QJsonObject{{"first", QString::fromStdString(p.first)},
                                 {"second", QString::fromStdString(p.second)},
                                 {"between", QString::fromStdString(p.between)},
                                 {"scales", scales},
                                 {"first_range_spread_before", p.firstSpreadBefore},
                                 {"first_range_spread_after", p.firstSpreadAfter},
                                 {"second_range_spread_before", p.secondSpreadBefore},
                                 {"second_range_spread_after", p.secondSpreadAfter}});
    }
    for (const auto &s : report.skipped)
        skipped.append(QJsonObject{{"first", QString::fromStdString(s.first)},
                                   {"second", QString::fromStdString(s.second)},
                                   {"reason", QString::fromStdString(s.reason)}});
    return QJsonObject{{"remedy", "cle"},
                       {"iterations", report.iterations},
                       {"converged", report.converged},
                       {"pairs", pairs},
                       {"left_as_they_are", skipped}};
}

QJsonObject smoothingJson(const ql::quant::SmoothQuantReport &report) {
    QJsonArray smoothed, skipped;
    for (const auto &a : report.smoothed) {
        QJsonArray scales;
        for (double s : a.scales) scales.append(s);
        smoothed.append(QJsonObject{{"activation", QString::fromStdString(a.value)},
                                    {"layers", names(a.layers)},
                                    {"folded_into", QString::fromStdString(a.foldedInto)},
                                    {"alpha", a.alpha},
                                    {"scales", scales},
                                    {"activation_spread_before", a.activationSpreadBefore},
                                    {"activation_spread_after", a.activationSpreadAfter},
                                    {"weight_spread_before", a.weightSpreadBefore},
                                    {"weight_spread_after", a.weightSpreadAfter}});
    }
    for (const auto &s : report.skipped)
        skipped.append(QJsonObject{{"activation", QString::fromStdString(s.value)},
                                   {"layers", names(s.layers)},
                                   {"reason", QString::fromStdString(s.reason)}});
    return QJsonObject{{"remedy", "smoothquant"},
                       {"samples", static_cast<qint64>(report.samples)},
                       {"activations", smoothed},
                       {"left_as_they_are", skipped}};
}

}  // namespace

// In the order they were applied.
QJsonArray remediesJson(const RemedyRun &run) {
    QJsonArray out;
    for (const ql::quant::FloatRemedy &remedy : run.before.applied)
        out.append(remedy.kind == ql::quant::FloatRemedy::Kind::CrossLayerEqualization
                       ? equalizationJson(*run.before.equalization)
                       : smoothingJson(*run.before.smoothing));
    if (run.adaRounding) out.append(adaRoundJson(*run.adaRounding));
    if (run.biasCorrection) out.append(biasCorrectionJson(*run.biasCorrection));
    return out;
}

}  // namespace cli
