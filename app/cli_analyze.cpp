// `quantlens analyze`: the numeric suite of a float / quantized model pair (or of a float model
// and its in-app quantization) on evaluation inputs, as a table on stdout and JSON / CSV files.
#include <QCommandLineParser>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <future>
#include <set>
#include <string>
#include <vector>

#include "analysis/data/pair_batch.h"
#include "analysis/session/analysis_session.h"
#include "analysis/session/keep_layers_fp32.h"
#include "analysis/session/pass_latency.h"
#include "analysis/suite/numeric_suite.h"
#include "analysis_job.h"
#include "analysis_report.h"
#include "analysis_report_format.h"
#include "analysis_setup.h"
#include "cli_commands.h"
#include "cli_data.h"
#include "cli_layer_table.h"
#include "cli_quantizer_options.h"
#include "cli_remedies.h"
#include "cli_report.h"
#include "cli_support.h"
#include "diagnosis_list.h"
#include "onnx_io/model_loader.h"
#include "onnx_io/model_writer.h"
#include "onnx_io/tensor_file.h"
#include "project_controller.h"
#include "report_export.h"

namespace cli {

namespace {

// The evaluation inputs of --data: tensors (.npy / .pb) as before, or images with their
// preprocessing, labels (--labels, or the class folders) and what the JSON says about them.
struct EvaluationInputs {
    ql::analysis::BatchSourceFactory inputs;
    std::vector<int64_t> labels;
    std::vector<std::string> files;  // images: one per sample, for worst_samples
    std::vector<std::string> classes;  // class folders' names
    QJsonObject jsonFields;          // images: "images", "preprocess", "classes", "labels_from"
    std::string reading;             // what reading applies (images: the preprocessing)
};

ql::Result<EvaluationInputs> evaluationInputs(const QCommandLineParser &parser,
                                              const ql::Graph &floatModel, int64_t batch,
                                              int threads) {
    auto reader = dataReader(parser, threads);
    if (!reader) return reader.status();
    auto data = listData(parser, "data", **reader, floatModel, "labels");
    if (!data) return data.status();
    EvaluationInputs out;
    out.labels = data->listed.labels;
    if (data->listed.images) out.files = data->listed.files;
    out.classes = data->listed.classes;
    out.inputs = [&floatModel, reader = *reader, listed = data->listed, batch]() {
        return reader->open(floatModel, listed, batch);
    };
    out.jsonFields = dataJsonFields(*data, **reader, floatModel);
    out.reading = data->reading;
    return out;
}

// The lines under the table: unmatched layers, the first output, the counts.
void printTotals(const ql::analysis::NumericSuiteReport &report) {
    for (const auto &u : report.unmatched)
        std::printf("unmatched %s layer %s '%s': %s\n", u.model.c_str(), u.opType.c_str(), u.name.c_str(),
                    u.reason.c_str());
    if (!report.outputs.empty()) {
        const auto &out = report.outputs.front();
        std::printf("output '%s': SQNR %s dB, top-1 agreement %.2f%%", out.floatName.c_str(),
                    qPrintable(tableDb(out.sqnrDb)), 100.0 * out.top1Agreement);
        if (out.floatAccuracy && out.quantAccuracy)
            std::printf(", accuracy float %.2f%% / quantized %.2f%%", 100.0 * *out.floatAccuracy,
                        100.0 * *out.quantAccuracy);
        std::printf("\n");
    }
    const std::string other = report.otherLayers > 0 ? ", " + std::to_string(report.otherLayers) +
                                                           " 16-bit or weight-only"
                                                     : std::string();
    std::printf("samples: %lld; layers: %d int8, %d fp32%s; quantized model ran %s (%s kernels)\n",
                static_cast<long long>(report.samples), report.int8Layers, report.fp32Layers,
                other.c_str(), report.quantPrecision.c_str(), report.int8Kernels.c_str());
}

}  // namespace

// The float model quantized from --calib, with --remedy, as `quantize` would.
struct Requantized {
    ql::Graph floatGraph;  // remedied (same outputs) when --remedy changed it
    ql::Graph quantGraph;
    QJsonArray remedies;  // what each remedy did
    ql::ui::AnalysisModels models;
};

ql::Result<Requantized> requantize(const QCommandLineParser &parser, const ql::Graph &floatGraph,
                                   const ql::quant::QuantizationOptions &quantizer,
                                   int64_t calibBatch, int threads) {
    Requantized out;
    out.floatGraph = floatGraph;
    auto calibration = listCalibrationFiles(parser, floatGraph, threads, calibBatch, false);
    if (!calibration) return calibration.status();
    auto remedied = applyRemedies(
        parser, "analyze", floatGraph, quantizer.foldBatchNorm,
        [&](const ql::Graph &g) { return calibration->opener(g); }, threads);
    if (!remedied) return remedied.status();
    if (*remedied) {
        printRemedies(**remedied);
        out.floatGraph = (*remedied)->model;
        if (parser.isSet("out-float"))
            QL_RETURN_IF_ERROR(
                ql::writeModel(out.floatGraph, parser.value("out-float").toStdString()));
    }
    int64_t calibrated = 0;
    const AfterQuantize remedyResult = [&](ql::quant::QuantizeResult &result,
                                           const ql::quant::BatchSourceOpener &calibration) {
        return *remedied ? remedyQuantized(**remedied, result, calibration, threads)
                         : ql::Status::ok();
    };
    auto quantized = quantizeFromFiles(out.floatGraph, *calibration, quantizer, threads, calibrated,
                                       remedyResult);
    if (!quantized) return quantized.status();
    if (*remedied) out.remedies = remediesJson(**remedied);
    out.quantGraph = std::move(quantized->model);
    out.models.floatModel = parser.value("float");
    out.models.quantizedInApp = true;
    out.models.quantizerOptions =
        QJsonObject{{"method", ql::quant::rangeMethodName(quantizer.method)},
                    {"percentile", quantizer.percentile},
                    {"per_channel_weights", quantizer.perChannelWeights},
                    {"symmetric_activations", quantizer.symmetricActivations},
                    {"reduce_range", quantizer.reduceRange},
                    {"fold_batch_norm", quantizer.foldBatchNorm},
                    {"calibration_samples", static_cast<double>(calibrated)}};
    // By name, as asked, for the HTML/PDF report; the JSON's "remedies" has what each did.
    if (parser.isSet("remedy"))
        out.models.quantizerOptions.insert("remedies",
                                           QJsonArray::fromStringList(parser.values("remedy")));
    return out;
}

std::optional<double> cumulativeOf(const ql::analysis::LayerReport &layer) {
    return layer.cumulative ? std::optional<double>(layer.cumulative->sqnrDb) : std::nullopt;
}

// The user's model and the re-quantization: headline figures, then the layers both have (by
// float node name) with their cumulative SQNR.
void printSideBySide(const ql::analysis::NumericSuiteReport &yours,
                     const ql::analysis::NumericSuiteReport &ours, const QStringList &remedies) {
    // The first column fits the longest layer name (torchvision names run to 60 characters).
    int width = 32;
    for (const auto &layer : yours.layers) width = std::max(width, int(layer.name.size()));
    const QString how = remedies.isEmpty() ? QStringLiteral("no remedies")
                                           : QStringLiteral("--remedy ") + remedies.join(", ");
    std::printf(
        "side by side on the same %lld samples: your quantized model | QuantLens "
        "re-quantized from the float model (%s)\n",
        static_cast<long long>(yours.samples), qPrintable(how));
    if (!yours.outputs.empty() && !ours.outputs.empty()) {
        const auto &a = yours.outputs.front(), &b = ours.outputs.front();
        std::printf("%-*s %12s | %12s\n", width, "output SQNR (dB)", qPrintable(tableDb(a.sqnrDb)),
                    qPrintable(tableDb(b.sqnrDb)));
        std::printf("%-*s %11.2f%% | %11.2f%%\n", width, "top-1 agreement", 100.0 * a.top1Agreement,
                    100.0 * b.top1Agreement);
        if (a.quantAccuracy && b.quantAccuracy)
            std::printf("%-*s %11.2f%% | %11.2f%%  (float %.2f%%)\n", width, "accuracy",
                        100.0 * *a.quantAccuracy, 100.0 * *b.quantAccuracy,
                        100.0 * a.floatAccuracy.value_or(0.0));
    }
    std::printf("%-*s %12s | %12s\n", width, "layers int8 / fp32",
                qPrintable(QStringLiteral("%1 / %2").arg(yours.int8Layers).arg(yours.fp32Layers)),
                qPrintable(QStringLiteral("%1 / %2").arg(ours.int8Layers).arg(ours.fp32Layers)));
    std::map<std::string, const ql::analysis::LayerReport *> byName;
    for (const auto &layer : ours.layers) byName[layer.name] = &layer;
    std::printf("%-*s %12s | %12s %8s\n", width, "layer (cumulative SQNR, dB)", "yours",
                "re-quantized", "change");
    for (const auto &layer : yours.layers) {
        const auto other = byName.find(layer.name);
        if (other == byName.end()) continue;
        const auto a = cumulativeOf(layer), b = cumulativeOf(*other->second);
        const std::optional<double> change = a && b && std::isfinite(*a) && std::isfinite(*b)
                                                 ? std::optional<double>(*b - *a)
                                                 : std::nullopt;
        std::printf("%-*s %12s | %12s %8s\n", width, layer.name.c_str(), qPrintable(tableDb(a)),
                    qPrintable(tableDb(b)), qPrintable(tableDb(change)));
    }
}

int runAnalyze(const QStringList &arguments) {
    QCommandLineParser parser;
    parser.setApplicationDescription(
        "Compare a float ONNX model with its quantized version layer by layer: weight, cumulative and isolated "
        "activation SQNR, output agreement, and the int8 kernels against the reference path.");
    parser.addHelpOption();
    parser.addOption({"float", "The float ONNX model.", "FLOAT.onnx"});
    parser.addOption({"quant", "The quantized ONNX model (QDQ or QOperator).", "QUANT.onnx"});
    parser.addOption(
        {"calib",
         "Instead of --quant: quantize the float model in the app from these calibration inputs "
         "(folders of .npy/.pb files or images, or files; repeatable), with the quantizer options "
         "and remedies below. With --quant too: your model is analysed, and QuantLens's "
         "re-quantization (with --remedy) is analysed beside it on the same data.",
         "DIR_OR_FILES"});
    addQuantizerOptions(parser);
    addRemedyOptions(parser);
    parser.addOption({"data", dataOptionHelp("Evaluation inputs"), "DIR_OR_FILES"});
    parser.addOption(
        {"labels",
         "Class ids for the accuracy of both models: .npy of integers (one per sample); for "
         "images also a text file (one label per line, in file order) or a CSV of "
         "file,label; labels may be class folder names.",
         "LABELS"});
    addPreprocessOption(parser);
    parser.addOption({"batch", "Samples per batch (default 8; a model with a fixed batch dim runs at that batch).",
                      "N", "8"});
    parser.addOption({"json", "Write the report as JSON.", "OUT.json"});
    addReportOptions(parser);
    parser.addOption({"csv", "Write one row per layer as CSV.", "OUT.csv"});
    parser.addOption({"wide",
                      "Print layer names whole (on a terminal the name column otherwise takes "
                      "what the terminal's width leaves, elided in the middle)."});
    parser.addOption({"threads", "Threads (default: all cores).", "N"});
    parser.addOption({"int8-kernels", kInt8KernelsHelp, "MODE", "exact"});
    parser.addOption({"no-isolated", "Skip the isolated (shadow) comparison."});
    parser.addOption({"no-kernel-check", "Skip the int8-kernel-vs-reference check."});
    parser.addOption({"kernel-check-samples",
                      "Samples the kernel check runs on: the first N (default 2; 0: all).", "N",
                      "2"});
    if (!parser.parse(QStringList{"quantlens analyze"} + arguments)) return usageError(parser.errorText());
    if (parser.isSet("help")) {
        std::fputs(qPrintable(parser.helpText()), stdout);
        return Success;
    }
    if (!parser.positionalArguments().isEmpty())
        return usageError("analyze: unexpected argument '" + parser.positionalArguments().first() +
                          "' (models are given with --float and --quant)");
    if (!parser.isSet("float")) return usageError("analyze: --float is required");
    if (!parser.isSet("quant") && !parser.isSet("calib"))
        return usageError(
            "analyze: give --quant QUANT.onnx, --calib DIR_OR_FILES, or both (side by side)");
    if (!parser.isSet("data")) return usageError("analyze: --data is required");
    if (parser.isSet("remedy") && !parser.isSet("calib"))
        return usageError(
            "analyze: --remedy needs --calib (it changes the float model before quantizing it)");
    bool ok = true;
    const int threads = parser.isSet("threads") ? parser.value("threads").toInt(&ok) : 0;
    if (!ok || threads < 0) return usageError("analyze: --threads expects a positive number");
    const int batch = parser.value("batch").toInt(&ok);
    if (!ok || batch <= 0) return usageError("analyze: --batch expects a positive number");

    const qlonglong kernelCheckSamples = parser.value("kernel-check-samples").toLongLong(&ok);
    if (!ok || kernelCheckSamples < 0) return usageError("analyze: --kernel-check-samples expects a number >= 0");

    ql::analysis::NumericSuiteOptions options;
    options.kernelCheckSamples = kernelCheckSamples;
    options.threads = threads;
    options.isolated = !parser.isSet("no-isolated");
    options.kernelCheck = !parser.isSet("no-kernel-check");
    if (!ql::parseInt8Kernels(parser.value("int8-kernels").toStdString(), options.int8Kernels))
        return usageError("analyze: --int8-kernels expects exact or fast, got '" + parser.value("int8-kernels") + "'");

    const QString floatPath = parser.value("float");
    // The quantized model loads on a second thread while this one loads the float model.
    std::future<ql::Result<ql::Graph>> quantLoad;
    if (parser.isSet("quant"))
        quantLoad = std::async(std::launch::async, ql::loadModel,
                               parser.value("quant").toStdString(), ql::LoadOptions{});
    auto floatGraph = ql::loadModel(floatPath.toStdString());
    if (!floatGraph) return reportFailure(floatGraph.status());
    ql::Graph quantGraph;
    QJsonArray remedies;  // what --remedy did, for the JSON
    ql::ui::AnalysisModels models;
    models.floatModel = floatPath;
    // With --quant: only the skip-list (excludedNodes); with --calib: everything.
    ql::quant::QuantizationOptions quantizer;
    int calibrationBatch = 0;
    if (parser.isSet("quant")) {
        models.quantModel = parser.value("quant");
        auto loaded = quantLoad.get();
        if (!loaded) return reportFailure(loaded.status());
        quantGraph = std::move(*loaded);
        if (!ql::isQuantizedModel(quantGraph))
            return reportFailure(ql::Status::badInput(quantGraph.sourcePath +
                                                      ": has no quantized nodes; expected a QDQ or QOperator model"));
        // --skip-list / --exclude on a quantized model: those layers run fp32 on float inputs,
        // as the GUI's toggle does.
        if (ql::Status read = readQuantizerOptions(parser, "analyze", floatPath, quantizer); !read)
            return reportFailure(read);
        if (!quantizer.excludedNodes.empty()) {
            const std::set<std::string> layers(quantizer.excludedNodes.begin(), quantizer.excludedNodes.end());
            auto kept = ql::analysis::quantModelWithFp32Layers(*floatGraph, quantGraph, layers);
            if (!kept) return reportFailure(kept.status().withContext(floatPath.toStdString()));
            quantGraph = std::move(*kept);
            std::printf("kept in fp32: %zu layer(s) of %s\n", layers.size(), qPrintable(models.quantModel));
        }
    }
    // --calib: the float model quantized here (with --remedy: remedied first; the remedied float
    // model, same outputs, is then the float side of its comparison).
    std::optional<Requantized> requantized;
    if (parser.isSet("calib")) {
        if (!parser.isSet("quant"))
            if (ql::Status read = readQuantizerOptions(parser, "analyze", floatPath, quantizer);
                !read)
                return reportFailure(read);
        auto calibBatch = readCalibrationBatch(parser, "analyze");
        if (!calibBatch) return reportFailure(calibBatch.status());
        calibrationBatch = static_cast<int>(*calibBatch);
        auto made = requantize(parser, *floatGraph, quantizer, *calibBatch, threads);
        if (!made) return reportFailure(made.status());
        if (parser.isSet("quant")) {
            requantized = std::move(*made);
        } else {
            *floatGraph = std::move(made->floatGraph);
            quantGraph = std::move(made->quantGraph);
            remedies = made->remedies;
            models = made->models;
            models.floatModel = floatPath;
        }
    }

    auto pairBatch = ql::analysis::pairBatchSize(*floatGraph, quantGraph, batch, parser.isSet("batch"));
    if (!pairBatch) return reportFailure(pairBatch.status());
    if (!pairBatch->note.empty())
        std::fprintf(stderr, "quantlens: note: %s\n", pairBatch->note.c_str());
    const ql::Graph &floatModel = *floatGraph;
    auto data = evaluationInputs(parser, floatModel, pairBatch->batch, threads);
    if (!data) return reportFailure(data.status());
    const ql::analysis::BatchSourceFactory inputs = data->inputs;
    options.labels = data->labels;

    std::vector<std::string> dataPaths = splitPaths(parser.values("data"));
    auto report = ql::analysis::runNumericSuite(floatModel, quantGraph, inputs, options);
    if (!report) return reportFailure(report.status());
    printLayerTable(*report, terminalTableStyle(parser.isSet("wide"), ql::ui::kDefaultThresholdDb));
    printTotals(*report);
    std::optional<ql::analysis::NumericSuiteReport> beside;
    if (requantized) {
        auto second = ql::analysis::runNumericSuite(requantized->floatGraph,
                                                    requantized->quantGraph, inputs, options);
        if (!second) return reportFailure(second.status().withContext("re-quantized model"));
        beside = std::move(*second);
        printSideBySide(*report, *beside, parser.values("remedy"));
    }
    // What the app's diagnosis list says, one line each, most serious first.
    ql::analysis::DiagnosisOptions diagnosis;
    // AdaRound chose the analysed model's rounding (not with --quant: it rounded the model beside).
    for (const QString &remedy : parser.values("remedy"))
        if (remedy.startsWith("adaround") && !parser.isSet("quant"))
            diagnosis.weightsRoundedToNearest = false;
    const std::vector<ql::analysis::Finding> findings =
        ql::analysis::diagnose(*report, &floatModel, diagnosis);
    for (const auto &f : findings)
        std::printf("finding: %s\n", qPrintable(ql::ui::DiagnosisList::describe(f)));
    QStringList written;  // for the summary
    if (parser.isSet("json")) {
        QJsonObject object = ql::ui::analysisReportJson(*report, models);
        object.insert("findings", ql::ui::findingsJson(findings));
        object.insert("command_line", commandLine("analyze", arguments));
        for (auto it = data->jsonFields.begin(); it != data->jsonFields.end(); ++it)
            object.insert(it.key(), it.value());
        if (!report->outputs.empty())
            object.insert("worst_samples", ql::ui::worstSamplesJson(report->outputs[0],
                                                                    options.labels, data->files));
        if (!remedies.isEmpty()) object.insert("remedies", remedies);
        if (beside) {
            QJsonObject second = ql::ui::analysisReportJson(*beside, requantized->models);
            if (!requantized->remedies.isEmpty()) second.insert("remedies", requantized->remedies);
            object.insert("requantized", second);
        }
        const QByteArray json = QJsonDocument(object).toJson();
        if (ql::Status s = writeTextFile(parser.value("json"), json); !s) return reportFailure(s);
        written << parser.value("json");
    }
    if (parser.isSet("csv")) {
        if (ql::Status s = writeTextFile(parser.value("csv"), ql::ui::analysisReportCsv(*report).toUtf8()); !s)
            return reportFailure(s);
        written << parser.value("csv");
    }
    if (!wantsReport(parser)) {
        printAnalysisSummary(*report, findings, written);
        return Success;
    }
    // The report: the analysis as a project (so that the HTML reopens it), the first batch for
    // the histograms of the worst layers.
    AnalysisSetup setup;
    setup.floatModel = QFileInfo(floatPath).absoluteFilePath();
    setup.quantizeInApp = models.quantizedInApp;
    if (!setup.quantizeInApp) setup.quantModel = QFileInfo(models.quantModel).absoluteFilePath();
    for (const QString &path : parser.values("calib"))
        for (const QString &part : path.split(',', Qt::SkipEmptyParts))
            setup.calibrationPaths << QFileInfo(part).absoluteFilePath();
    setup.quantizer = QuantizerSettings::fromOptions(quantizer, calibrationBatch);
    for (const std::string &path : dataPaths)
        setup.dataPaths << QFileInfo(QString::fromStdString(path)).absoluteFilePath();
    if (parser.isSet("labels")) setup.labelsPath = QFileInfo(parser.value("labels")).absoluteFilePath();
    setup.batch = batch;
    setup.int8Kernels = parser.value("int8-kernels");
    setup.preprocess = parser.value("preprocess");
    const std::set<std::string> fp32(quantizer.excludedNodes.begin(), quantizer.excludedNodes.end());

    ql::ui::ReportInput input;
    input.report = std::make_shared<const ql::analysis::NumericSuiteReport>(std::move(*report));
    input.models = models;
    input.data = setup.dataText(data->reading);
    input.floatGraph = std::make_shared<const ql::Graph>(floatModel);
    input.quantGraph = std::make_shared<const ql::Graph>(quantGraph);
    // Pictures for image data; analyze streams tensors, so those rows have none.
    input.worstSamples =
        ql::ui::worstSampleData(*input.report, options.labels, data->files, data->classes);
    auto source = inputs();
    if (source) {
        std::map<std::string, ql::Tensor> first;
        if (auto got = (*source)(first); got && *got)
            input.batch = std::make_shared<const std::map<std::string, ql::Tensor>>(std::move(first));
    }
    // Latency on the first batch: analyze streams its data and does not keep it all in memory.
    if (input.batch && !parser.isSet("no-latency")) {
        ql::PlanOptions planOptions;
        planOptions.threads = threads;
        auto latency = ql::analysis::measureModelsLatencyMs(quantGraph, floatModel,
                                                            options.int8Kernels, planOptions,
                                                            {*input.batch}, 3);
        if (!latency) return reportFailure(latency.status());
        input.latencyMs = *latency;
        const ql::Shape &shape = input.batch->begin()->second.shape();
        input.latencySamples = shape.empty() ? 1 : int(shape.front());
    }
    input.fp32Layers = fp32;
    input.skipList = ql::ui::skipListObject(floatPath, fp32);
    input.howMade = commandLineText("analyze", arguments);
    input.project = ProjectController::projectJson(setup, fp32, input.thresholdDb, QDir(reportFolder(parser)));
    const auto analysed = input.report;
    const int code = writeReports(parser, std::move(input));
    if (code != Success) return code;
    for (const char *option : {"html", "pdf"})
        if (parser.isSet(option)) written << parser.value(option);
    printAnalysisSummary(*analysed, findings, written);
    return Success;
}

}  // namespace cli
