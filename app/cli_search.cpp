// `quantlens search`: the smallest set of layers to keep in fp32 for a target (engine/analysis/
// fp32_search.h), as JSON and a skip-list that `analyze --skip-list` and `quantize` take back.
#include <QCommandLineParser>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

#include <cmath>
#include <cstdio>
#include <optional>
#include <set>

#include "analysis/data/session_inputs.h"
#include "analysis/search/fp32_search.h"
#include "analysis/search/skip_list_dialects.h"
#include "cli_commands.h"
#include "cli_data.h"
#include "cli_quantizer_options.h"
#include "cli_remedies.h"
#include "cli_support.h"

namespace cli {

namespace {


QJsonArray names(const std::vector<std::string> &values) {
    QJsonArray out;
    for (const std::string &v : values) out.append(QString::fromStdString(v));
    return out;
}

QJsonValue number(double value) {
    return std::isfinite(value) ? QJsonValue(value) : QJsonValue(QJsonValue::Null);
}

// A set raised to a precision, as JSON: {"precision", "fp32_layers", "int16_layers"} (the other
// list empty), so that a reader of fp32 sets keeps working.
QJsonObject setJson(ql::analysis::SearchPrecision precision,
                    const std::vector<std::string> &layers) {
    const bool int16 = precision == ql::analysis::SearchPrecision::Int16;
    return {{"precision", ql::analysis::searchPrecisionName(precision)},
            {"fp32_layers", int16 ? QJsonArray() : names(layers)},
            {"int16_layers", int16 ? names(layers) : QJsonArray()}};
}

QJsonObject withFields(QJsonObject object, const QJsonObject &fields) {
    for (auto it = fields.begin(); it != fields.end(); ++it) object.insert(it.key(), it.value());
    return object;
}

QJsonObject resultJson(const ql::analysis::SearchResult &r,
                       const ql::analysis::SearchOptions &options, const QString &floatModel) {
    QJsonArray steps;
    for (const auto &e : r.evaluations)
        steps.append(
            withFields(setJson(e.precision, e.layers),
                       {{"metric", number(e.figure)},
                        {"seconds", e.seconds},
                        {"stopped_early", e.stoppedEarly},
                        {"best_reachable", e.stoppedEarly ? number(e.bound) : QJsonValue()}}));
    QJsonArray pareto;
    for (const auto &p : r.pareto)
        pareto.append(
            withFields(setJson(p.precision, p.layers), {{"metric", number(p.figure)},
                                                        {"latency_ms", p.latencyMs},
                                                        {"meets_target", p.meetsTarget}}));
    QJsonArray byPrecision;
    for (const auto &o : r.byPrecision)
        byPrecision.append(
            withFields(setJson(o.precision, o.layers), {{"met", o.reached},
                                                        {"reached", number(o.figure)},
                                                        {"all_raised", number(o.allRaisedFigure)},
                                                        {"exhaustive", o.exhaustive}}));
    return withFields(
        setJson(r.precision, r.layers),
        {{"schema_version", 1},  // resources/docs/schema/search.schema.json
         {"model", QFileInfo(floatModel).fileName()},
         {"target", QString::fromStdString(ql::analysis::searchTargetName(options.target))},
         {"objective",
          options.objective == ql::analysis::SearchObjective::Latency ? "latency" : "layers"},
         {"met", r.reached},
         {"reached", number(r.figure)},
         {"all_raised", number(r.allRaisedFigure)},
         {"by_precision", byPrecision},
         {"exhaustive", r.exhaustive},
         {"budget_exhausted", r.budgetExhausted},
         {"candidates", names(r.candidates)},
         {"evaluations", static_cast<int>(r.evaluations.size())},
         {"stopped_early", r.stoppedEarly},
         {"steps", steps},
         {"latency_ms", number(r.latencyMs)},
         {"latency_batch_samples", r.latencyBatchSamples},
         {"pareto", pareto}});
}

}  // namespace

int runSearch(const QStringList &arguments) {
    QCommandLineParser parser;
    parser.setApplicationDescription(
        "Find the smallest set of layers to keep in fp32 so that the quantized model reaches a "
        "target; every "
        "candidate set is measured on the data (exhaustively up to 14 int8 layers, so the size is "
        "minimal).");
    parser.addHelpOption();
    parser.addOption({"float", "The float ONNX model.", "FLOAT.onnx"});
    parser.addOption({"quant", "The quantized ONNX model (QDQ or QOperator).", "QUANT.onnx"});
    parser.addOption({"calib",
                      "Instead of --quant: quantize in the app from these calibration inputs "
                      "(as --data).",
                      "DIR_OR_FILES"});
    addQuantizerOptions(parser, false);
    addRemedyOptions(parser, false);
    parser.addOption({"data", dataOptionHelp("Evaluation inputs"), "DIR_OR_FILES"});
    parser.addOption({"labels",
                      "Class ids, needed for an accuracy-drop target: .npy of integers; for "
                      "images also a text file or a CSV of file,label (as analyze).",
                      "LABELS"});
    addPreprocessOption(parser);
    parser.addOption(
        {"target",
         "sqnr:DB (output SQNR), agreement:PERCENT (top-1 agreement) or accuracy-drop:POINTS.",
         "TARGET"});
    parser.addOption({"objective",
                      "layers (default): the fewest fp32 layers; latency: the fastest int8 plan "
                      "among the measured sets that meet the target. Either way the Pareto front "
                      "(fp32 layers / latency / figure) of the timed sets is reported.",
                      "OBJ", "layers"});
    parser.addOption({"raise-to",
                      "What a chosen layer becomes: fp32 (default), int16 (16-bit activations "
                      "and weights, as ONNX Runtime's QUInt16 / QInt16 overrides; needs --calib), "
                      "or fp32,int16: search both, answer with the fewer layers (int16 on a tie) "
                      "and report both on the Pareto front.",
                      "PRECISIONS", "fp32"});
    parser.addOption({"holdout",
                      "Keep this fraction of the evaluation batches (the last ones) out of the "
                      "search and report the "
                      "target's figure on them for the set found.",
                      "F"});
    parser.addOption({"max-evaluations", "Measured sets at most (default 2000).", "N", "2000"});
    parser.addOption({"no-early-stop",
                      "Measure every set over all the data, also where the target is already out "
                      "of reach (same answers; slower)."});
    parser.addOption({"batch", "Samples per batch (default 8; a fixed batch dim wins).", "N", "8"});
    parser.addOption({"threads", "Threads (default: all cores).", "N"});
    parser.addOption({"cache-mb",
                      "Memory for cached activations, in MiB (default: a 32nd of RAM, 256 to "
                      "4096). Batches that do not fit re-run whole at every evaluation: the "
                      "search's memory does not grow with the samples.",
                      "MIB"});
    parser.addOption(
        {"json", "Write the search (set, figures, every evaluation) as JSON.", "OUT.json"});
    parser.addOption({"skip-list", "Write the set as a skip-list (see --format).", "OUT"});
    parser.addOption({"format",
                      "Skip-list dialect: quantlens (JSON for analyze / quantize --skip-list; "
                      "default), ort, nncf, "
                      "pytorch, inc or trt.",
                      "FMT", "quantlens"});
    if (!parser.parse(QStringList{"quantlens search"} + arguments))
        return usageError(parser.errorText());
    if (parser.isSet("help")) {
        std::fputs(qPrintable(parser.helpText()), stdout);
        return Success;
    }
    for (const char *required : {"float", "data", "target"})
        if (!parser.isSet(required))
            return usageError(QString("search: --%1 is required").arg(required));
    if (parser.isSet("quant") == parser.isSet("calib"))
        return usageError("search: give either --quant QUANT.onnx or --calib DIR_OR_FILES");
    if (parser.isSet("remedy") && !parser.isSet("calib"))
        return usageError("search: --remedy needs --calib (the model is quantized in the app)");
    ql::analysis::SkipListDialect dialect;
    if (!ql::analysis::parseSkipListDialect(parser.value("format").toStdString(), dialect))
        return usageError(
            "search: --format expects quantlens, ort, nncf, pytorch, inc or trt, got '" +
            parser.value("format") + "'");
    auto target = ql::analysis::parseSearchTarget(parser.value("target").toStdString());
    if (!target) return reportFailure(target.status().withContext("search: --target"));
    bool ok = true;
    ql::analysis::SearchOptions search;
    search.target = *target;
    if (!ql::analysis::parseSearchObjective(parser.value("objective").toStdString(),
                                            search.objective))
        return usageError("search: --objective expects layers or latency, got '" +
                          parser.value("objective") + "'");
    if (!ql::analysis::parseSearchPrecisions(parser.value("raise-to").toStdString(),
                                             search.precisions))
        return usageError("search: --raise-to expects fp32, int16 or fp32,int16, got '" +
                          parser.value("raise-to") + "'");
    search.earlyStop = !parser.isSet("no-early-stop");
    search.maxEvaluations = parser.value("max-evaluations").toInt(&ok);
    if (!ok || search.maxEvaluations < 1)
        return usageError("search: --max-evaluations expects a positive number");
    const int batch = parser.value("batch").toInt(&ok);
    if (!ok || batch < 1) return usageError("search: --batch expects a positive number");
    const int threads = parser.isSet("threads") ? parser.value("threads").toInt(&ok) : 0;
    if (!ok || threads < 0) return usageError("search: --threads expects a positive number");

    const qlonglong cacheMb = parser.isSet("cache-mb") ? parser.value("cache-mb").toLongLong(&ok) : 0;
    if (!ok || cacheMb < 0) return usageError("search: --cache-mb expects a number of MiB");

    const double holdout = parser.isSet("holdout") ? parser.value("holdout").toDouble(&ok) : 0.0;
    if (!ok || (parser.isSet("holdout") && !(holdout > 0.0 && holdout < 1.0)))
        return usageError("search: --holdout expects a fraction in (0, 1), got '" +
                          parser.value("holdout") + "'");

    const QString floatPath = parser.value("float");
    ql::analysis::SessionSources sources;
    sources.floatModel = floatPath.toStdString();
    sources.quantModel = parser.value("quant").toStdString();
    sources.dataPaths = splitPaths(parser.values("data"));
    sources.labels = parser.value("labels").toStdString();
    sources.batch = batch;
    sources.batchGiven = parser.isSet("batch");
    auto reader = dataReader(parser, threads);
    if (!reader) return reportFailure(reader.status());
    sources.reader = *reader;
    ql::analysis::SessionOptions session;
    session.suite.threads = threads;
    if (parser.isSet("cache-mb")) session.cacheBudgetBytes = size_t(cacheMb) << 20;
    if (parser.isSet("calib")) {
        if (ql::Status read =
                readQuantizerOptions(parser, "search", floatPath, session.quantizer, false);
            !read)
            return reportFailure(read);
        auto calibBatch = readCalibrationBatch(parser, "search");
        if (!calibBatch) return reportFailure(calibBatch.status());
        sources.calibrationPaths = splitPaths(parser.values("calib"));
        sources.calibrationBatch = *calibBatch;
    }
    auto inputs = ql::analysis::loadSessionInputs(sources);
    if (!inputs) return reportFailure(inputs.status());
    printSkipped("--data", inputs->data.skipped,
                 inputs->data.files.size() + inputs->data.skipped.size());
    if (!inputs->data.reading.empty())
        std::fprintf(stderr, "quantlens: --data %s\n", inputs->data.reading.c_str());
    session.calibrationBatches = std::move(inputs->calibrationBatches);
    // Remedies first: they cost no latency, so the search measures fp32 layers on top of the
    // remedied model, and a target that the remedies reach alone needs none.
    auto remedied = applyRemedies(
        parser, "search", inputs->floatGraph, session.quantizer.foldBatchNorm,
        [&](const ql::Graph &) { return ql::quant::batchesOpener(session.calibrationBatches); },
        threads);
    if (!remedied) return reportFailure(remedied.status());
    if (*remedied) {
        printRemedies(**remedied);
        inputs->floatGraph = (*remedied)->model;
        // AdaRound and bias correction run in the session, after calibrating: every candidate
        // set keeps the rounding, and the corrections measured on the all-int8 model (a set's
        // own corrections are measured for the holdout and by analyze).
        session.adaRound = (*remedied)->adaRound;
        session.correctBiases = (*remedied)->correctBiases;
    }
    std::optional<ql::analysis::EvaluationData> held;
    if (holdout > 0.0) {
        auto split = ql::analysis::splitHoldout(std::move(inputs->data), holdout);
        if (!split) return reportFailure(split.status());
        inputs->data = std::move(split->first);
        held = std::move(split->second);
    }
    const ql::Graph floatGraph = inputs->floatGraph;
    // Kept for the holdout's own session.
    const std::optional<ql::Graph> quantCopy = inputs->quantGraph;
    const ql::analysis::SessionOptions sessionCopy = ql::analysis::searchSessionOptions(session);
    auto created = ql::analysis::AnalysisSession::create(
        std::move(inputs->floatGraph), std::move(inputs->quantGraph), std::move(inputs->data),
        ql::analysis::searchSessionOptions(std::move(session)));
    if (!created) return reportFailure(created.status());
    const size_t batches = (*created)->data().batches.size(),
                 whole = (*created)->wholeCachedBatches();
    std::fprintf(stderr, "search: %zu of %zu batches cached whole (%.0f of %.0f MiB)%s\n", whole,
                 batches, double((*created)->cachedBytes()) / 1048576.0,
                 double(sessionCopy.cacheBudgetBytes) / 1048576.0,
                 whole < batches ? "; the others re-run whole at every evaluation (--cache-mb)"
                                 : "");
    QJsonArray correctedLayers;
    if (*remedied) {
        (*remedied)->adaRounding = (*created)->adaRounding();
        if ((*remedied)->adaRounding)
            std::printf("%s\n", ql::quant::describe(*(*remedied)->adaRounding).c_str());
        for (const std::string &layer : (*created)->layerRemedies().biasCorrection)
            correctedLayers.append(QString::fromStdString(layer));
        if ((*remedied)->correctBiases)
            std::printf(
                "bias correction: %lld layers, measured on the all-int8 model; every "
                "candidate set keeps those corrections\n",
                static_cast<long long>(correctedLayers.size()));
    }
    search.progress = [](int evaluations, double) {
        if (evaluations % 50 == 0) std::fprintf(stderr, "search: %d sets measured\n", evaluations);
        return true;
    };
    auto result = ql::analysis::searchFp32Layers(**created, search);
    if (!result) return reportFailure(result.status());

    std::optional<ql::analysis::HoldoutFigure> holdoutFigure;
    if (held) {
        auto check =
            ql::analysis::measureOnHoldout(floatGraph, quantCopy, std::move(*held), sessionCopy,
                                           result->precision, result->layers, *target);
        if (!check) return reportFailure(check.status().withContext("holdout"));
        holdoutFigure = *check;
    }
    const bool latency = search.objective == ql::analysis::SearchObjective::Latency;
    const char *how = !result->reached     ? "no set reaches it"
                      : latency            ? "the fastest timed set meeting it"
                      : result->exhaustive ? "minimal: every smaller set measured"
                                           : "greedy build-up and pruning";
    const char *precision = ql::analysis::searchPrecisionName(result->precision);
    for (const auto &o : result->byPrecision)
        if (result->byPrecision.size() > 1)
            std::printf("raised to %s: %s with %zu layer(s), %.2f; all raised: %s\n",
                        ql::analysis::searchPrecisionName(o.precision),
                        o.reached ? "met" : "NOT met", o.layers.size(), o.figure,
                        std::isnan(o.allRaisedFigure)
                            ? "not measured"
                            : QByteArray::number(o.allRaisedFigure, 'f', 2).constData());
    std::printf(
        "target %s: %s with %zu of %zu int8 layer(s) in %s (%s), %.2f; all in %s: %s; "
        "%zu evaluations (%d stopped once out of reach)\n",
        ql::analysis::searchTargetName(*target).c_str(), result->reached ? "met" : "NOT met",
        result->layers.size(), result->candidates.size(), precision, how, result->figure, precision,
        std::isnan(result->allRaisedFigure)
            ? "not measured"
            : QByteArray::number(result->allRaisedFigure, 'f', 2).constData(),
        result->evaluations.size(), result->stoppedEarly);
    for (const std::string &name : result->layers) std::printf("%s %s\n", precision, name.c_str());
    std::printf(
        "int8 plan of the set: %.2f ms per batch of %d; Pareto front (layers raised, ms, "
        "figure):",
        result->latencyMs, result->latencyBatchSamples);
    for (const auto &p : result->pareto)
        std::printf(" (%zu%s, %.2f, %.2f)", p.layers.size(),
                    p.precision == ql::analysis::SearchPrecision::Int16 && !p.layers.empty()
                        ? " int16"
                        : "",
                    p.latencyMs, p.figure);
    std::printf("\n");
    if (holdoutFigure)
        std::printf("holdout (%lld samples kept out of the search): %.2f, target %s\n",
                    static_cast<long long>(holdoutFigure->samples), holdoutFigure->figure,
                    holdoutFigure->met ? "met" : "NOT met");
    if (parser.isSet("json")) {
        QJsonObject report = resultJson(*result, search, floatPath);
        QJsonArray remedies = *remedied ? remediesJson(**remedied) : QJsonArray();
        if (*remedied && (*remedied)->correctBiases)
            remedies.append(QJsonObject{{"remedy", "bias-correction"},
                                        {"layers", correctedLayers},
                                        {"measured_on", "the all-int8 model"}});
        report["remedies"] = remedies;
        report["holdout"] =
            holdoutFigure
                ? QJsonValue(QJsonObject{{"samples", static_cast<qint64>(holdoutFigure->samples)},
                                         {"metric", number(holdoutFigure->figure)},
                                         {"met", holdoutFigure->met}})
                : QJsonValue(QJsonValue::Null);
        const QByteArray json = QJsonDocument(report).toJson();
        if (ql::Status s = writeTextFile(parser.value("json"), json); !s) return reportFailure(s);
    }
    if (parser.isSet("skip-list") && result->reached) {
        ql::analysis::SkipList list;
        list.model = QFileInfo(floatPath).fileName().toStdString();
        (result->precision == ql::analysis::SearchPrecision::Int16 ? list.int16Nodes : list.nodes) =
            result->layers;
        char origin[128];
        std::snprintf(origin, sizeof origin, "quantlens search for %s: reached %.2f",
                      ql::analysis::searchTargetName(*target).c_str(), result->figure);
        list.origin = origin;
        for (const std::string &name : result->layers) list.reasons[name] = origin;
        const std::string text = ql::analysis::formatSkipList(floatGraph, list, dialect);
        if (ql::Status s =
                writeTextFile(parser.value("skip-list"), QByteArray::fromStdString(text));
            !s)
            return reportFailure(s);
    }
    if (!result->reached) {
        std::fprintf(stderr, "quantlens: search: target %s not reached: %s %.2f\n",
                     ql::analysis::searchTargetName(*target).c_str(),
                     result->budgetExhausted ? "evaluation budget spent; best set tried"
                                             : "even every layer in fp32 gives",
                     result->figure);
        return TargetNotReached;
    }
    return Success;
}

}  // namespace cli
