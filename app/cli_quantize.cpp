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
#include "cli_data.h"
#include "cli_quantizer_options.h"
#include "cli_remedies.h"
#include "cli_support.h"
#include "onnx_io/model_loader.h"
#include "onnx_io/model_writer.h"
#include "quant/qdq_builder.h"
#include "save_file.h"

namespace cli {

namespace {

// "int16" (a 16-bit layer), "int8" or "fp32": a node's precision in the plan.
const char *precisionLabel(const ql::quant::NodeDecision &d) {
    if (d.precision != ql::quant::Precision::Int8) return "fp32";
    return d.sixteenBit ? "int16" : "int8";
}

// The plan as JSON; "fp32_nodes" (the nodes the user excluded) and "reason" follow the skip-list
// format, so the report can be edited and passed back with --skip-list.
QJsonObject planReport(const ql::quant::QuantizeResult &result, const QString &model,
                       const QString &out, int64_t samples, const QJsonArray &remedies,
                       const QString &command) {
    const ql::quant::QuantizationOptions &o = result.plan.options;
    QJsonArray nodes, fp32, folded;
    QJsonObject reasons;
    QJsonArray int16;
    for (const std::string &name : o.int16Nodes) int16.append(QString::fromStdString(name));
    for (const auto &d : result.plan.nodes) {
        const bool int8 = d.precision == ql::quant::Precision::Int8;
        QJsonObject node{{"name", QString::fromStdString(d.node)},
                         {"op", QString::fromStdString(d.opType)},
                         {"precision", precisionLabel(d)},
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
                       {"remedies", remedies},
                       {"command_line", command},
                       {"warnings", warnings},
                       {"fp32_nodes", fp32},
                       {"int16_nodes", int16},
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
        std::printf("%-8s %s '%s': %s\n", precisionLabel(d), d.opType.c_str(), d.node.c_str(),
                    d.reason.c_str());
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
    parser.addOption({"calib", dataOptionHelp("Calibration inputs"), "DIR_OR_FILES"});
    addPreprocessOption(parser);
    parser.addOption({"out", "The quantized QDQ model to write.", "QUANT.onnx"});
    addQuantizerOptions(parser);
    addRemedyOptions(parser);
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

    const QString modelPath = parser.positionalArguments().first();
    ql::quant::QuantizationOptions options;
    if (ql::Status read = readQuantizerOptions(parser, "quantize", modelPath, options); !read)
        return reportFailure(read);

    auto calibBatch = readCalibrationBatch(parser, "quantize");
    if (!calibBatch) return reportFailure(calibBatch.status());
    auto graph = ql::loadModel(modelPath.toStdString());
    if (!graph) return reportFailure(graph.status());
    // Remedies change the float model before calibration: it is calibrated and quantized as
    // remedied (BatchNorm folded already, so the plan's folding report is the remedies').
    auto calibration = listCalibrationFiles(parser, graph.value(), threads, *calibBatch);
    if (!calibration) return reportFailure(calibration.status());
    auto remedies = applyRemedies(
        parser, "quantize", graph.value(), options.foldBatchNorm,
        [&](const ql::Graph &g) { return calibration->opener(g); }, threads);
    if (!remedies) return reportFailure(remedies.status());
    if (*remedies) printRemedies(**remedies);
    const ql::Graph &floatGraph = *remedies ? (*remedies)->model : graph.value();
    int64_t samples = 0;
    const AfterQuantize remedyResult = [&](ql::quant::QuantizeResult &quantized,
                                           const ql::quant::BatchSourceOpener &calibration) {
        return *remedies ? remedyQuantized(**remedies, quantized, calibration, threads)
                         : ql::Status::ok();
    };
    auto result =
        quantizeFromFiles(floatGraph, *calibration, options, threads, samples, remedyResult);
    if (!result) return reportFailure(result.status());
    if (*remedies) result->folding = (*remedies)->folding;
    const QString out = parser.value("out");
    const QString outDir = QFileInfo(out).absolutePath();
    if (!QDir().mkpath(outDir)) return usageError(outDir + ": cannot create folder");
    ql::Status written = ql::writeModel(result.value().model, out.toStdString());
    if (!written) return reportFailure(written);
    if (parser.isSet("out-float")) {
        const QString outFloat = parser.value("out-float");
        if (!QDir().mkpath(QFileInfo(outFloat).absolutePath()))
            return usageError(outFloat + ": cannot create its folder");
        if (ql::Status s = ql::writeModel((*remedies)->model, outFloat.toStdString()); !s)
            return reportFailure(s);
    }
    if (parser.isSet("report")) {
        const QByteArray report =
            QJsonDocument(planReport(result.value(), modelPath, out, samples,
                                     *remedies ? remediesJson(**remedies) : QJsonArray(),
                                     commandLine("quantize", arguments)))
                .toJson();
        if (ql::Status s = ql::ui::saveFile(parser.value("report"), report); !s)
            return reportFailure(s);
    }
    printSummary(result.value(), out);
    return Success;
}

}  // namespace cli
