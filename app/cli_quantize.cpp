// `quantlens quantize`: float model + calibration inputs -> standard QDQ ONNX model.
#include <QCommandLineParser>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

#include <algorithm>
#include <cstdio>

#include "cli_commands.h"
#include "cli_support.h"
#include "onnx_io/model_loader.h"
#include "onnx_io/model_writer.h"
#include "quant/calibration.h"
#include "quant/calibration_data.h"
#include "quant/qdq_builder.h"

namespace cli {

namespace {

// Skip-list: {"model": "...", "fp32_nodes": ["name", ...], "reason": {"name": "why"}}.
ql::Status readSkipList(const QString &path, const QString &modelPath,
                        ql::quant::QuantizationOptions &options) {
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return ql::Status::badInput(path.toStdString() + ": cannot open skip-list");
    QJsonParseError error;
    const QJsonDocument doc = QJsonDocument::fromJson(file.readAll(), &error);
    const std::string where = path.toStdString() + ": ";
    if (error.error != QJsonParseError::NoError)
        return ql::Status::badInput(where + "not valid JSON (" + error.errorString().toStdString() +
                                    " at offset " + std::to_string(error.offset) + ")");
    const QJsonObject root = doc.object();
    if (!doc.isObject() || !root.value("fp32_nodes").isArray())
        return ql::Status::badInput(
            where + "expected an object with an \"fp32_nodes\" array of node names");
    for (const QJsonValue &v : root.value("fp32_nodes").toArray()) {
        if (!v.isString())
            return ql::Status::badInput(where + "\"fp32_nodes\" must hold node names (strings)");
        options.excludedNodes.push_back(v.toString().toStdString());
    }
    if (root.contains("reason") && !root.value("reason").isObject())
        return ql::Status::badInput(where +
                                    "\"reason\" must be an object mapping node names to text");
    const QJsonObject reasons = root.value("reason").toObject();
    for (auto it = reasons.begin(); it != reasons.end(); ++it)
        options.exclusionReasons[it.key().toStdString()] = it.value().toString().toStdString();
    const QString model = root.value("model").toString();
    if (!model.isEmpty() && QFileInfo(model).fileName() != QFileInfo(modelPath).fileName())
        std::fprintf(stderr, "quantlens: warning: skip-list %s was written for %s, not %s\n",
                     qPrintable(path), qPrintable(model),
                     qPrintable(QFileInfo(modelPath).fileName()));
    return ql::Status::ok();
}

// The plan as JSON; "fp32_nodes" (the nodes the user excluded) and "reason" follow the skip-list
// format, so the report can be edited and passed back with --skip-list.
QJsonObject planReport(const ql::quant::QuantizeResult &result, const QString &model,
                       const QString &out, int64_t samples) {
    const ql::quant::QuantizationOptions &o = result.plan.options;
    QJsonArray nodes, fp32, folded;
    QJsonObject reasons;
    for (const auto &d : result.plan.nodes) {
        const bool int8 = d.precision == ql::quant::Precision::Int8;
        QJsonObject node{{"name", QString::fromStdString(d.node)},
                         {"op", QString::fromStdString(d.opType)},
                         {"precision", int8 ? "int8" : "fp32"},
                         {"reason", QString::fromStdString(d.reason)}};
        if (!d.unitHead.empty()) node["unit_head"] = QString::fromStdString(d.unitHead);
        nodes.append(node);
        // Only the user's choices go to the skip-list part: the other fp32 nodes follow from them.
        if (!int8 && d.reason.rfind("excluded by user", 0) == 0) {
            fp32.append(QString::fromStdString(d.node));
            auto note = o.exclusionReasons.find(d.node);
            if (note != o.exclusionReasons.end())
                reasons[QString::fromStdString(d.node)] = QString::fromStdString(note->second);
        }
    }
    for (const auto &f : result.folding.folded)
        folded.append(QJsonObject{{"batch_norm", QString::fromStdString(f.batchNormNode)},
                                  {"into", QString::fromStdString(f.producerNode)},
                                  {"op", QString::fromStdString(f.producerOp)}});
    QJsonArray warnings;
    for (const std::string &w : result.warnings) warnings.append(QString::fromStdString(w));
    const QJsonObject options{{"method", ql::quant::rangeMethodName(o.method)},
                              {"percentile", o.percentile},
                              {"per_channel_weights", o.perChannelWeights},
                              {"symmetric_activations", o.symmetricActivations},
                              {"reduce_range", o.reduceRange},
                              {"fold_batch_norm", o.foldBatchNorm}};
    return QJsonObject{{"model", QFileInfo(model).fileName()},
                       {"quantized_model", out},
                       {"calibration_samples", static_cast<qint64>(samples)},
                       {"options", options},
                       {"nodes", nodes},
                       {"folded_batch_norms", folded},
                       {"warnings", warnings},
                       {"fp32_nodes", fp32},
                       {"reason", reasons}};
}

void printSummary(const ql::quant::QuantizeResult &result, const QString &out) {
    for (const auto &f : result.folding.folded)
        std::printf("folded   BatchNormalization '%s' into %s '%s'\n", f.batchNormNode.c_str(),
                    f.producerOp.c_str(), f.producerNode.c_str());
    for (const auto &k : result.folding.kept)
        std::printf("kept     BatchNormalization '%s': %s\n", k.batchNormNode.c_str(),
                    k.reason.c_str());
    for (const auto &d : result.plan.nodes)
        std::printf("%-8s %s '%s': %s\n",
                    d.precision == ql::quant::Precision::Int8 ? "int8" : "fp32", d.opType.c_str(),
                    d.node.c_str(), d.reason.c_str());
    for (const std::string &w : result.warnings) std::printf("warning  %s\n", w.c_str());
    std::printf(
        "summary: %d int8, %d fp32 nodes; %zu BatchNormalization folded; %zu activations "
        "quantized; "
        "wrote %s\n",
        result.plan.countInt8(), result.plan.countFp32(), result.folding.folded.size(),
        result.plan.activations.size(), qPrintable(out));
}

}  // namespace

int runQuantize(const QStringList &arguments) {
    QCommandLineParser parser;
    parser.setApplicationDescription(
        "Quantize a float ONNX model to standard QDQ ONNX (opset 13) from calibration inputs.");
    parser.addHelpOption();
    parser.addPositionalArgument("model", "The float ONNX model.");
    parser.addOption({"calib",
                      "Calibration inputs: a folder of .npy/.pb files or files (one sample or a "
                      "batch each); repeatable.",
                      "DIR_OR_FILES"});
    parser.addOption({"out", "The quantized QDQ model to write.", "QUANT.onnx"});
    parser.addOption(
        {"method",
         "Activation range: minmax (default), percentile, entropy, mse or moving_average.",
         "METHOD", "minmax"});
    parser.addOption(
        {"percentile", "Percentile for --method percentile (default 99.999).", "P", "99.999"});
    parser.addOption({"per-tensor", "Quantize weights per tensor instead of per output channel."});
    parser.addOption(
        {"symmetric-activations", "Activations as int8 symmetric instead of uint8 asymmetric."});
    parser.addOption({"reduce-range", "Use 7-bit activations (for CPUs without VNNI)."});
    parser.addOption(
        {"no-fold-bn",
         "Keep BatchNormalization nodes instead of folding them into the preceding Conv/Gemm."});
    parser.addOption({"exclude", "Keep this node in fp32; repeatable.", "NODE_NAME"});
    parser.addOption({"skip-list",
                      "JSON {\"model\": ..., \"fp32_nodes\": [...], \"reason\": {...}} of nodes to "
                      "keep in fp32.",
                      "FILE.json"});
    parser.addOption({"threads", "Threads for the calibration run (default: all cores).", "N"});
    parser.addOption(
        {"report",
         "Write the plan as JSON: per node int8/fp32 and why, BN folding, options; its "
         "\"fp32_nodes\" and \"reason\" make it a skip-list for --skip-list.",
         "FILE.json"});
    if (!parser.parse(QStringList{"quantlens quantize"} + arguments))
        return usageError(parser.errorText());
    if (parser.isSet("help")) {
        std::fputs(qPrintable(parser.helpText()), stdout);
        return Success;
    }
    if (parser.positionalArguments().size() != 1)
        return usageError("quantize: expected exactly one FLOAT.onnx");
    if (!parser.isSet("calib")) return usageError("quantize: --calib is required");
    if (!parser.isSet("out")) return usageError("quantize: --out is required");
    bool threadsOk = true;
    const int threads = parser.isSet("threads") ? parser.value("threads").toInt(&threadsOk) : 0;
    if (!threadsOk || threads < 0)
        return usageError("quantize: --threads expects a positive number");

    ql::quant::QuantizationOptions options;
    if (!ql::quant::parseRangeMethod(parser.value("method").toStdString(), options.method))
        return usageError(
            "quantize: --method expects minmax, percentile, entropy, mse or moving_average, got '" +
            parser.value("method") + "'");
    bool percentileOk = false;
    options.percentile = parser.value("percentile").toDouble(&percentileOk);
    if (!percentileOk || !(options.percentile > 0.0 && options.percentile <= 100.0))
        return usageError("quantize: --percentile expects a number in (0, 100], got '" +
                          parser.value("percentile") + "'");
    options.perChannelWeights = !parser.isSet("per-tensor");
    options.symmetricActivations = parser.isSet("symmetric-activations");
    options.reduceRange = parser.isSet("reduce-range");
    options.foldBatchNorm = !parser.isSet("no-fold-bn");
    const QString modelPath = parser.positionalArguments().first();
    if (parser.isSet("skip-list")) {
        ql::Status read = readSkipList(parser.value("skip-list"), modelPath, options);
        if (!read) return reportFailure(read);
    }
    for (const QString &name : parser.values("exclude"))
        options.excludedNodes.push_back(name.toStdString());

    auto graph = ql::loadModel(modelPath.toStdString());
    if (!graph) return reportFailure(graph.status());
    const ql::Graph &floatGraph = graph.value();
    ql::Status names = ql::quant::validateExcludedNodes(floatGraph, options.excludedNodes);
    if (!names) return reportFailure(names.withContext(modelPath.toStdString()));
    if (floatGraph.inputs.size() != 1)
        return reportFailure(ql::Status::unsupported(
            modelPath.toStdString() + ": --calib supports models with one input, this one has " +
            std::to_string(floatGraph.inputs.size())));
    std::vector<std::string> paths;
    for (const QString &argument : parser.values("calib"))
        for (const QString &part : argument.split(',', Qt::SkipEmptyParts))
            paths.push_back(part.toStdString());
    auto files = ql::quant::listCalibrationFiles(paths);
    if (!files) return reportFailure(files.status());
    auto source = ql::quant::fileBatchSource(floatGraph, files.value());
    if (!source) return reportFailure(source.status());
    ql::quant::CalibrationOptions calibrationOptions;
    calibrationOptions.threads = threads;
    ql::quant::CalibrationStatistics stats(calibrationOptions);
    ql::Status calibrated = ql::quant::calibrate(floatGraph, source.value(), stats);
    if (!calibrated) return reportFailure(calibrated.withContext(floatGraph.sourcePath));
    for (const auto &[value, count] : stats.nonFiniteValues())
        std::fprintf(
            stderr,
            "quantlens: warning: %lld NaN/Inf values of '%s' were skipped during calibration\n",
            static_cast<long long>(count), value.c_str());
    std::printf("calibrated on %lld samples from %zu file(s); activation range: %s%s\n",
                static_cast<long long>(stats.sampleCount()), files.value().size(),
                ql::quant::rangeMethodName(options.method),
                options.method == ql::quant::RangeMethod::Percentile
                    ? (" " + std::to_string(options.percentile)).c_str()
                    : "");

    auto result = ql::quant::quantizeGraph(floatGraph, stats, options);
    if (!result) return reportFailure(result.status().withContext(floatGraph.sourcePath));
    const QString out = parser.value("out");
    const QString outDir = QFileInfo(out).absolutePath();
    if (!QDir().mkpath(outDir)) return usageError(outDir + ": cannot create folder");
    ql::Status written = ql::writeModel(result.value().model, out.toStdString());
    if (!written) return reportFailure(written);
    if (parser.isSet("report")) {
        QFile report(parser.value("report"));
        if (!report.open(QIODevice::WriteOnly))
            return usageError(report.fileName() + ": cannot write the report");
        report.write(QJsonDocument(planReport(result.value(), modelPath, out, stats.sampleCount()))
                         .toJson());
    }
    printSummary(result.value(), out);
    return Success;
}

}  // namespace cli
