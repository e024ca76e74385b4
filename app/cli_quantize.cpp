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
#include "ir/tensor_checks.h"
#include "onnx_io/model_loader.h"
#include "onnx_io/model_writer.h"
#include "onnx_io/tensor_file.h"
#include "quant/activation_histograms.h"
#include "quant/qdq_builder.h"

namespace cli {

namespace {

constexpr int64_t kSamplesPerRun = 32;  // bounds the calibration run's memory

// --calib arguments: folders (their .npy / .pb files, sorted) and files.
ql::Result<QStringList> calibrationFiles(const QStringList &arguments) {
    QStringList files;
    for (const QString &argument : arguments) {
        for (const QString &part : argument.split(',', Qt::SkipEmptyParts)) {
            const QFileInfo info(part);
            if (info.isDir()) {
                QStringList found = QDir(part).entryList({"*.npy", "*.pb"}, QDir::Files, QDir::Name);
                if (found.isEmpty())
                    return ql::Status::badInput(part.toStdString() + ": folder holds no .npy or .pb files");
                for (const QString &f : found) files << QDir(part).filePath(f);
            } else if (info.isFile()) {
                files << part;
            } else {
                return ql::Status::badInput(part.toStdString() + ": no such file or folder");
            }
        }
    }
    if (files.isEmpty()) return ql::Status::badInput("--calib names no files");
    return files;
}

// A calibration file holds one sample (the input's rank minus the batch dim) or a batch.
ql::Result<ql::Tensor> asBatch(const ql::Tensor &t, const ql::ValueInfo &input, const std::string &file) {
    if (t.dtype() != ql::DataType::Float)
        return ql::Status::badInput(file + ": calibration data must be float32, got " + ql::dataTypeName(t.dtype()));
    const size_t rank = input.shape.size();
    ql::Tensor batch = t;
    if (input.hasShape && static_cast<size_t>(t.rank()) + 1 == rank) {
        ql::Shape shape{1};
        shape.insert(shape.end(), t.shape().begin(), t.shape().end());
        batch = t.toPlain().reshaped(shape);
    }
    ql::Status matches = ql::checkInputMatches(input, batch);
    if (!matches) return ql::Status::badInput(file + ": " + matches.message());
    QL_RETURN_IF_ERROR(ql::checkFinite(batch, file));
    return batch;
}

ql::Tensor sliceBatch(const ql::Tensor &batch, int64_t begin, int64_t end) {
    ql::Shape shape = batch.shape();
    shape[0] = end - begin;
    ql::Tensor out(ql::DataType::Float, shape);
    const int64_t per = batch.numel() / std::max<int64_t>(1, batch.dim(0));
    std::copy(batch.data<float>() + begin * per, batch.data<float>() + end * per, out.data<float>());
    return out;
}

// Skip-list: {"model": "...", "fp32_nodes": ["name", ...], "reason": {"name": "why"}}.
ql::Status readSkipList(const QString &path, const QString &modelPath, ql::quant::QuantizationOptions &options) {
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly)) return ql::Status::badInput(path.toStdString() + ": cannot open skip-list");
    QJsonParseError error;
    const QJsonDocument doc = QJsonDocument::fromJson(file.readAll(), &error);
    const std::string where = path.toStdString() + ": ";
    if (error.error != QJsonParseError::NoError)
        return ql::Status::badInput(where + "not valid JSON (" + error.errorString().toStdString() + " at offset " +
                                    std::to_string(error.offset) + ")");
    const QJsonObject root = doc.object();
    if (!doc.isObject() || !root.value("fp32_nodes").isArray())
        return ql::Status::badInput(where + "expected an object with an \"fp32_nodes\" array of node names");
    for (const QJsonValue &v : root.value("fp32_nodes").toArray()) {
        if (!v.isString()) return ql::Status::badInput(where + "\"fp32_nodes\" must hold node names (strings)");
        options.excludedNodes.push_back(v.toString().toStdString());
    }
    if (root.contains("reason") && !root.value("reason").isObject())
        return ql::Status::badInput(where + "\"reason\" must be an object mapping node names to text");
    const QJsonObject reasons = root.value("reason").toObject();
    for (auto it = reasons.begin(); it != reasons.end(); ++it)
        options.exclusionReasons[it.key().toStdString()] = it.value().toString().toStdString();
    const QString model = root.value("model").toString();
    if (!model.isEmpty() && QFileInfo(model).fileName() != QFileInfo(modelPath).fileName())
        std::fprintf(stderr, "quantlens: warning: skip-list %s was written for %s, not %s\n", qPrintable(path),
                     qPrintable(model), qPrintable(QFileInfo(modelPath).fileName()));
    return ql::Status::ok();
}

void printSummary(const ql::quant::QuantizeResult &result, const QString &out) {
    for (const auto &f : result.folding.folded)
        std::printf("folded   BatchNormalization '%s' into %s '%s'\n", f.batchNormNode.c_str(), f.producerOp.c_str(),
                    f.producerNode.c_str());
    for (const auto &k : result.folding.kept)
        std::printf("kept     BatchNormalization '%s': %s\n", k.batchNormNode.c_str(), k.reason.c_str());
    for (const auto &d : result.plan.nodes)
        std::printf("%-8s %s '%s': %s\n", d.precision == ql::quant::Precision::Int8 ? "int8" : "fp32",
                    d.opType.c_str(), d.node.c_str(), d.reason.c_str());
    for (const std::string &w : result.warnings) std::printf("warning  %s\n", w.c_str());
    std::printf("summary: %d int8, %d fp32 nodes; %zu BatchNormalization folded; %zu activations quantized; "
                "wrote %s\n",
                result.plan.countInt8(), result.plan.countFp32(), result.folding.folded.size(),
                result.plan.activations.size(), qPrintable(out));
}

}  // namespace

int runQuantize(const QStringList &arguments) {
    QCommandLineParser parser;
    parser.setApplicationDescription("Quantize a float ONNX model to standard QDQ ONNX (opset 13) from calibration inputs.");
    parser.addHelpOption();
    parser.addPositionalArgument("model", "The float ONNX model.");
    parser.addOption({"calib", "Calibration inputs: a folder of .npy/.pb files or files (one sample or a batch each); repeatable.", "DIR_OR_FILES"});
    parser.addOption({"out", "The quantized QDQ model to write.", "QUANT.onnx"});
    parser.addOption({"method", "Activation range: minmax (default), percentile, entropy or mse.", "METHOD", "minmax"});
    parser.addOption({"percentile", "Percentile for --method percentile (default 99.999).", "P", "99.999"});
    parser.addOption({"per-tensor", "Quantize weights per tensor instead of per output channel."});
    parser.addOption({"symmetric-activations", "Activations as int8 symmetric instead of uint8 asymmetric."});
    parser.addOption({"reduce-range", "Use 7-bit activations (for CPUs without VNNI)."});
    parser.addOption({"no-fold-bn", "Keep BatchNormalization nodes instead of folding them into the preceding Conv/Gemm."});
    parser.addOption({"exclude", "Keep this node in fp32; repeatable.", "NODE_NAME"});
    parser.addOption({"skip-list", "JSON {\"model\": ..., \"fp32_nodes\": [...], \"reason\": {...}} of nodes to keep in fp32.", "FILE.json"});
    parser.addOption({"threads", "Threads for the calibration run (default: all cores).", "N"});
    if (!parser.parse(QStringList{"quantlens quantize"} + arguments)) return usageError(parser.errorText());
    if (parser.isSet("help")) {
        std::fputs(qPrintable(parser.helpText()), stdout);
        return Success;
    }
    if (parser.positionalArguments().size() != 1) return usageError("quantize: expected exactly one FLOAT.onnx");
    if (!parser.isSet("calib")) return usageError("quantize: --calib is required");
    if (!parser.isSet("out")) return usageError("quantize: --out is required");
    bool threadsOk = true;
    const int threads = parser.isSet("threads") ? parser.value("threads").toInt(&threadsOk) : 0;
    if (!threadsOk || threads < 0) return usageError("quantize: --threads expects a positive number");

    ql::quant::QuantizationOptions options;
    if (!ql::quant::parseRangeMethod(parser.value("method").toStdString(), options.method) ||
        options.method == ql::quant::RangeMethod::MovingAverageMinMax)
        return usageError("quantize: --method expects minmax, percentile, entropy or mse, got '" +
                          parser.value("method") + "'");
    bool percentileOk = false;
    options.percentile = parser.value("percentile").toDouble(&percentileOk);
    if (!percentileOk || !(options.percentile > 0.0 && options.percentile <= 100.0))
        return usageError("quantize: --percentile expects a number in (0, 100], got '" + parser.value("percentile") + "'");
    options.perChannelWeights = !parser.isSet("per-tensor");
    options.symmetricActivations = parser.isSet("symmetric-activations");
    options.reduceRange = parser.isSet("reduce-range");
    options.foldBatchNorm = !parser.isSet("no-fold-bn");
    const QString modelPath = parser.positionalArguments().first();
    if (parser.isSet("skip-list")) {
        ql::Status read = readSkipList(parser.value("skip-list"), modelPath, options);
        if (!read) return reportFailure(read);
    }
    for (const QString &name : parser.values("exclude")) options.excludedNodes.push_back(name.toStdString());

    auto graph = ql::loadModel(modelPath.toStdString());
    if (!graph) return reportFailure(graph.status());
    const ql::Graph &floatGraph = graph.value();
    ql::Status names = ql::quant::validateExcludedNodes(floatGraph, options.excludedNodes);
    if (!names) return reportFailure(names.withContext(modelPath.toStdString()));
    if (floatGraph.inputs.size() != 1)
        return reportFailure(ql::Status::unsupported(modelPath.toStdString() + ": --calib supports models with one input, this one has " +
                                                     std::to_string(floatGraph.inputs.size())));
    auto files = calibrationFiles(parser.values("calib"));
    if (!files) return reportFailure(files.status());

    // Unfused, so the taps see every value the plan may quantize.
    auto plan = ql::ExecutionPlan::create(floatGraph, planOptions(threads, false));
    if (!plan) return reportFailure(plan.status().withContext(floatGraph.sourcePath));
    ql::quant::ActivationHistograms stats;
    int64_t samples = 0;
    const ql::ValueInfo &input = floatGraph.inputs[0];
    for (const QString &file : files.value()) {
        auto tensor = ql::readTensorFile(file.toStdString());
        if (!tensor) return reportFailure(tensor.status());
        auto batch = asBatch(tensor.value(), input, file.toStdString());
        if (!batch) return reportFailure(batch.status());
        const int64_t n = batch.value().rank() > 0 ? batch.value().dim(0) : 1;
        for (int64_t begin = 0; begin < n; begin += kSamplesPerRun) {
            const int64_t end = std::min(n, begin + kSamplesPerRun);
            const ql::Tensor chunk = (begin == 0 && end == n) ? batch.value() : sliceBatch(batch.value(), begin, end);
            ql::Status ran = stats.observeRun(*plan.value(), {{input.name, chunk}});
            if (!ran) return reportFailure(ran.withContext(file.toStdString()));
        }
        samples += n;
    }
    std::printf("calibrated on %lld samples from %lld file(s); activation range: %s%s\n",
                static_cast<long long>(samples), static_cast<long long>(files.value().size()),
                ql::quant::rangeMethodName(options.method),
                options.method == ql::quant::RangeMethod::Percentile
                    ? (" " + std::to_string(options.percentile)).c_str()
                    : "");

    auto result = ql::quant::quantizeGraph(floatGraph, stats.lookup(options), options);
    if (!result) return reportFailure(result.status().withContext(floatGraph.sourcePath));
    const QString out = parser.value("out");
    const QString outDir = QFileInfo(out).absolutePath();
    if (!QDir().mkpath(outDir)) return usageError(outDir + ": cannot create folder");
    ql::Status written = ql::writeModel(result.value().model, out.toStdString());
    if (!written) return reportFailure(written);
    printSummary(result.value(), out);
    return Success;
}

}  // namespace cli
