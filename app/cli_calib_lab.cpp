// `quantlens calib-lab`: many calibrations of one float model evaluated on the same data, with
// confidence intervals and paired tests (engine/analysis/calibration_lab/calibration_lab.h), as JSON and a table.
#include <QCommandLineParser>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonDocument>

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "analysis/session/analysis_session.h"
#include "analysis/calibration_lab/calibration_lab.h"
#include "calibration_lab_format.h"
#include "cli_commands.h"
#include "cli_data.h"
#include "cli_quantizer_options.h"
#include "cli_support.h"
#include "onnx_io/model_loader.h"
#include "onnx_io/model_writer.h"

namespace cli {

namespace {

using ql::analysis::CalibrationLabOptions;


// "8,16,32" -> numbers >= 1; BadInput naming the option and the value otherwise.
ql::Result<std::vector<int64_t>> positiveList(const QString &text, const char *option) {
    std::vector<int64_t> out;
    for (const QString &part : text.split(',', Qt::SkipEmptyParts)) {
        bool ok = false;
        const qlonglong v = part.trimmed().toLongLong(&ok);
        if (!ok || v < 1)
            return ql::Status::badInput(std::string("calib-lab: ") + option + ": '" +
                                        part.trimmed().toStdString() +
                                        "' is not a positive number");
        out.push_back(v);
    }
    if (out.empty()) return ql::Status::badInput(std::string("calib-lab: ") + option + " is empty");
    return out;
}

// Sizes when none are given: 8, 16, 32, ... up to the pool (the pool itself when smaller).
std::vector<int64_t> defaultSizes(int64_t pool) {
    std::vector<int64_t> sizes;
    for (int64_t s = 8; s <= pool; s *= 2) sizes.push_back(s);
    if (sizes.empty()) sizes.push_back(pool);
    return sizes;
}

ql::Status readLabOptions(const QCommandLineParser &parser, const ql::Graph &graph,
                          CalibrationLabOptions &o) {
    const QString floatPath = parser.value("float");
    const std::string lab = "calib-lab: ";
    if (parser.isSet("method") || parser.isSet("percentile"))
        return ql::Status::badInput(
            lab + "give the methods with --methods (e.g. minmax,percentile:99.99)");
    QL_RETURN_IF_ERROR(readQuantizerOptions(parser, "calib-lab", floatPath, o.quantizer));
    bool ok = false;
    o.threads = parser.isSet("threads") ? parser.value("threads").toInt(&ok) : 0;
    if (parser.isSet("threads") && (!ok || o.threads < 0))
        return ql::Status::badInput(lab + "--threads expects a positive number");
    auto reader = dataReader(parser, o.threads);
    if (!reader) return reader.status();
    o.reader = *reader;
    auto pool = listData(parser, "calib", **reader, graph, QString(), false);
    if (!pool) return pool.status().withContext("calib-lab");
    auto eval = listData(parser, "data", **reader, graph, "labels", false);
    if (!eval) return eval.status().withContext("calib-lab");
    if ((*reader)->userSpec().has_value() && !pool->listed.images && !eval->listed.images)
        return ql::Status::badInput(lab + "--preprocess: neither --calib nor --data holds images");
    o.poolFiles = std::move(pool->listed.files);
    o.evalFiles = std::move(eval->listed.files);
    o.labels = std::move(eval->listed.labels);
    for (const QString &m : parser.value("methods").split(',', Qt::SkipEmptyParts)) {
        auto method = ql::analysis::parseCalibrationMethod(m.trimmed().toStdString());
        if (!method) return method.status().withContext("calib-lab: --methods");
        o.methods.push_back(*method);
    }
    if (parser.isSet("sizes")) {
        auto sizes = positiveList(parser.value("sizes"), "--sizes");
        if (!sizes) return sizes.status();
        o.sizes = *sizes;
    } else {
        o.sizes = defaultSizes(static_cast<int64_t>(o.poolFiles.size()));
    }
    auto batches = positiveList(parser.value("calib-batches"), "--calib-batches");
    if (!batches) return batches.status();
    o.calibBatches = *batches;
    o.remedies.clear();
    for (const QString &set : parser.value("remedies").split(',', Qt::SkipEmptyParts)) {
        auto remedies = ql::analysis::parseLabRemedies(set.trimmed().toStdString());
        if (!remedies) return remedies.status().withContext("calib-lab: --remedies");
        o.remedies.push_back(*remedies);
    }
    o.repeats = parser.value("repeats").toInt(&ok);
    if (!ok || o.repeats < 1)
        return ql::Status::badInput(lab + "--repeats: '" + parser.value("repeats").toStdString() +
                                    "' is not a positive number");
    o.seed = parser.value("seed").toULongLong(&ok);
    if (!ok)
        return ql::Status::badInput(lab + "--seed: '" + parser.value("seed").toStdString() +
                                    "' is not a number");
    if (!ql::analysis::parseCalibrationSelection(parser.value("selection").toStdString(),
                                                 o.selection))
        return ql::Status::badInput(lab + "--selection expects random, stratified or first, got '" +
                                    parser.value("selection").toStdString() + "'");
    o.evalBatch = parser.value("batch").toLongLong(&ok);
    if (!ok || o.evalBatch < 1)
        return ql::Status::badInput(lab + "--batch: '" + parser.value("batch").toStdString() +
                                    "' is not a positive number");
    o.bootstrapResamples = parser.value("bootstrap").toInt(&ok);
    if (!ok || o.bootstrapResamples < 100)
        return ql::Status::badInput(lab + "--bootstrap expects at least 100 resamples, got '" +
                                    parser.value("bootstrap").toStdString() + "'");
    if (!ql::parseInt8Kernels(parser.value("int8-kernels").toStdString(), o.int8Kernels))
        return ql::Status::badInput(lab + "--int8-kernels expects exact or fast, got '" +
                                    parser.value("int8-kernels").toStdString() + "'");
    o.layers = parser.isSet("layers");
    return ql::Status::ok();
}

// Progress on stderr at most once a second: a line that rewrites itself on a terminal.
QString percent(const std::optional<double> &value) {
    return value && std::isfinite(*value) ? QString::number(100.0 * *value, 'f', 1)
                                          : QStringLiteral("-");
}

void printLab(const ql::analysis::CalibrationLabResult &lab) {
    const char *metric = lab.labelled ? "accuracy" : "agreement";
    if (lab.floatModel.accuracy)
        std::printf("float model: accuracy %s%% [%s, %s] on %lld rows\n",
                    qPrintable(percent(lab.floatModel.accuracy)),
                    qPrintable(percent(lab.floatModel.accuracyCi95->low)),
                    qPrintable(percent(lab.floatModel.accuracyCi95->high)),
                    static_cast<long long>(lab.evalRows));
    // The id column fits the longest id ("minmax-n16-r1-b1+adaround+bias-correction").
    int width = 30;
    for (const auto &run : lab.runs) width = std::max(width, int(run.spec.id.size()));
    std::printf("%-*s %8s %9s %18s  %s\n", width, "run", "SQNR dB", "agree %", metric,
                "identical to");
    for (const auto &run : lab.runs) {
        const double score = run.accuracy ? *run.accuracy : run.top1Agreement;
        const auto ci = run.accuracyCi95 ? *run.accuracyCi95 : run.top1AgreementCi95;
        std::printf("%-*s %8.2f %9s %6s [%4s, %4s]  %s\n", width, run.spec.id.c_str(), run.sqnrDb,
                    qPrintable(percent(run.top1Agreement)), qPrintable(percent(score)),
                    qPrintable(percent(ci.low)), qPrintable(percent(ci.high)),
                    run.identicalTo.c_str());
    }
    for (const auto &c : lab.comparisons)
        std::printf("%-15s %s vs %s: %s\n", c.kind.c_str(), c.a.c_str(), c.b.c_str(),
                    c.verdict.c_str());
    std::printf("runs: %zu of %d%s; pool %.1f s, evaluation %.1f s, runs %.1f s\n", lab.runs.size(),
                lab.runsPlanned, lab.complete ? "" : " (cancelled)", lab.poolSeconds,
                lab.evaluationSeconds, lab.runsSeconds);
}

}  // namespace

int runCalibLab(const QStringList &arguments) {
    QCommandLineParser parser;
    parser.setApplicationDescription(
        "Calibrate a float model many ways (methods x sizes x repeats x calibration batches), "
        "quantize each as "
        "`quantize` would, evaluate all on the same data, and say which differences are real: "
        "Wilson intervals, "
        "exact McNemar tests and paired bootstrap intervals.");
    parser.addHelpOption();
    parser.addOption({"float", "The float ONNX model.", "FLOAT.onnx"});
    parser.addOption(
        {"calib", dataOptionHelp("The calibration pool (one item per file)"), "DIR_OR_FILES"});
    parser.addOption({"data", dataOptionHelp("Evaluation inputs"), "DIR_OR_FILES"});
    parser.addOption(
        {"labels",
         "Class ids, one per evaluation sample (.npy of integers; for images also a text file "
         "or a CSV of file,label); without them, and without class folders, every figure is "
         "the top-1 agreement with the float model.",
         "LABELS"});
    addPreprocessOption(parser);
    parser.addOption({"methods",
                      "Comma-separated: minmax, percentile:P, entropy, mse, moving-average.",
                      "LIST", "minmax,percentile:99.99,entropy,mse"});
    parser.addOption(
        {"sizes",
         "Comma-separated calibration sizes in files (default 8, 16, 32, ... up to the pool).",
         "LIST"});
    parser.addOption({"repeats", "Draws per size (default 3).", "N", "3"});
    parser.addOption(
        {"selection",
         "How a run draws its files: random (default), stratified (even over the float "
         "model's predicted classes) or first.",
         "MODE", "random"});
    parser.addOption(
        {"calib-batches", "Comma-separated calibration batch sizes (default 1).", "LIST", "1"});
    parser.addOption(
        {"remedies",
         "Comma-separated remedy sets applied after quantizing each calibration, a lab axis: "
         "none (default), bias-correction, adaround, adaround+bias-correction (AdaRound, then "
         "bias correction, on the run's own calibration files; `quantize --remedy`). Each "
         "remedied run is compared with the same calibration without remedies (McNemar).",
         "LIST", "none"});
    parser.addOption({"seed", "Seed of the draws and the bootstrap (default 0).", "S", "0"});
    parser.addOption({"json", "Write the lab as JSON (schema in README).", "OUT.json"});
    parser.addOption({"layers", "Also record every matched layer's cumulative SQNR per run."});
    parser.addOption({"batch", "Evaluation samples per int8 batch (default 32).", "N", "32"});
    parser.addOption({"threads", "Threads (default: all cores).", "N"});
    parser.addOption({"int8-kernels", kInt8KernelsHelp, "MODE", "exact"});
    parser.addOption(
        {"bootstrap", "Paired bootstrap resamples per comparison (default 2000).", "N", "2000"});
    parser.addOption({"export-run",
                      "Write this run's quantized model to --out instead of running the lab.",
                      "ID"});
    parser.addOption({"out", "With --export-run: the QDQ model to write.", "QUANT.onnx"});
    addQuantizerOptions(parser);
    if (!parser.parse(QStringList{"quantlens calib-lab"} + arguments))
        return usageError(parser.errorText());
    if (parser.isSet("help")) {
        std::fputs(qPrintable(parser.helpText()), stdout);
        return Success;
    }
    if (!parser.positionalArguments().isEmpty())
        return usageError("calib-lab: unexpected argument '" +
                          parser.positionalArguments().first() + "'");
    for (const char *required : {"float", "calib", "data"})
        if (!parser.isSet(required))
            return usageError(QString("calib-lab: --%1 is required").arg(required));
    if (parser.isSet("export-run") != parser.isSet("out"))
        return usageError("calib-lab: --export-run ID and --out QUANT.onnx go together");
    if (parser.isSet("calib-batch"))
        return usageError("calib-lab: give calibration batches with --calib-batches");

    const QString floatPath = parser.value("float");
    auto graph = ql::loadModel(floatPath.toStdString());
    if (!graph) return reportFailure(graph.status());
    CalibrationLabOptions options;
    if (ql::Status read = readLabOptions(parser, *graph, options); !read)
        return reportFailure(read);

    ProgressPrinter printer("calib-lab", "runs");
    const ql::analysis::LabProgress progress = [&](const std::string &stage, int done, int total) {
        return printer(stage, done, total);
    };
    auto lab = ql::analysis::CalibrationLab::create(*graph, options, progress);
    printer.finish();
    if (!lab) {
        if (lab.status().kind() == ql::ErrorKind::Cancelled) {
            std::fprintf(
                stderr,
                "quantlens: calib-lab interrupted before any run finished; nothing written\n");
            return Cancelled;
        }
        return reportFailure(lab.status());
    }

    if (parser.isSet("export-run")) {
        const auto *spec = (*lab)->findRun(parser.value("export-run").toStdString());
        if (!spec)
            return reportFailure(ql::Status::badInput("calib-lab: --export-run: no run '" +
                                                      parser.value("export-run").toStdString() +
                                                      "' in this lab"));
        auto quantized = (*lab)->quantizeRun(*spec);
        if (!quantized) return reportFailure(quantized.status());
        const QString out = parser.value("out");
        if (!QDir().mkpath(QFileInfo(out).absolutePath()))
            return usageError(QFileInfo(out).absolutePath() + ": cannot create folder");
        if (ql::Status written = ql::writeModel(quantized->model, out.toStdString()); !written)
            return reportFailure(written);
        std::printf("wrote run %s to %s\nsame as: %s\n", spec->id.c_str(), qPrintable(out),
                    qPrintable(ql::ui::reproduceCommand(*spec, options, floatPath)));
        return Success;
    }

    auto result = (*lab)->run(progress);
    printer.finish();
    if (!result) return reportFailure(result.status());
    printLab(*result);
    if (parser.isSet("json")) {
        const QJsonDocument json(ql::ui::calibrationLabJson(*result, options, floatPath));
        if (ql::Status s = writeTextFile(parser.value("json"), json.toJson()); !s)
            return reportFailure(s);
    }
    if (!result->complete) {
        std::fprintf(stderr, "quantlens: calib-lab interrupted: %zu of %d runs kept%s\n",
                     result->runs.size(), result->runsPlanned,
                     parser.isSet("json") ? " in the JSON" : "");
        return Cancelled;
    }
    return Success;
}

}  // namespace cli
