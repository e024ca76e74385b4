#include "cli_quantizer_options.h"

#include <cstdio>
#include <string>
#include <vector>

#include "cli_data.h"
#include "cli_support.h"
#include "quant/calibration.h"
#include "skip_list_file.h"

namespace cli {

void addQuantizerOptions(QCommandLineParser &parser, bool skipListInput) {
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
    parser.addOption({"int16",
                      "Quantize this node with 16 bits: uint16 activations (int16 with "
                      "--symmetric-activations) and int16 weights, float bias, as ONNX Runtime's "
                      "QUInt16 / QInt16 overrides; repeatable.",
                      "NODE_NAME"});
    if (skipListInput)
        parser.addOption({"skip-list",
                      "JSON {\"model\": ..., \"fp32_nodes\": [...], \"reason\": {...}} of nodes to "
                      "keep in fp32.",
                      "FILE.json"});
    parser.addOption({"calib-batch",
                      "Calibration samples per batch (default: each file one batch). Only the moving average "
                      "depends on it.",
                      "N"});
}

ql::Result<int64_t> readCalibrationBatch(const QCommandLineParser &parser, const QString &command) {
    if (!parser.isSet("calib-batch")) return int64_t{0};
    bool ok = false;
    const qlonglong batch = parser.value("calib-batch").toLongLong(&ok);
    if (!ok || batch < 1)
        return ql::Status::badInput(command.toStdString() + ": --calib-batch expects a positive number, got '" +
                                    parser.value("calib-batch").toStdString() + "'");
    return static_cast<int64_t>(batch);
}

ql::Status readQuantizerOptions(const QCommandLineParser &parser, const QString &command, const QString &modelPath,
                                ql::quant::QuantizationOptions &options, bool skipListInput) {
    const std::string prefix = command.toStdString() + ": ";
    if (!ql::quant::parseRangeMethod(parser.value("method").toStdString(), options.method))
        return ql::Status::badInput(prefix + "--method expects minmax, percentile, entropy, mse or moving_average, got '" +
                                    parser.value("method").toStdString() + "'");
    bool percentileOk = false;
    options.percentile = parser.value("percentile").toDouble(&percentileOk);
    if (!percentileOk || !(options.percentile > 0.0 && options.percentile <= 100.0))
        return ql::Status::badInput(prefix + "--percentile expects a number in (0, 100], got '" +
                                    parser.value("percentile").toStdString() + "'");
    options.perChannelWeights = !parser.isSet("per-tensor");
    options.symmetricActivations = parser.isSet("symmetric-activations");
    options.reduceRange = parser.isSet("reduce-range");
    options.foldBatchNorm = !parser.isSet("no-fold-bn");
    if (skipListInput && parser.isSet("skip-list")) QL_RETURN_IF_ERROR(readSkipListFile(parser.value("skip-list"), modelPath, options));
    for (const QString &name : parser.values("exclude")) options.excludedNodes.push_back(name.toStdString());
    for (const QString &name : parser.values("int16"))
        options.int16Nodes.push_back(name.toStdString());
    return ql::Status::ok();
}

ql::quant::BatchSourceOpener CalibrationFiles::opener(const ql::Graph &graph) const {
    return [this, &graph]() { return reader->open(graph, data.listed, batch); };
}

ql::Result<CalibrationFiles> listCalibrationFiles(const QCommandLineParser &parser,
                                                  const ql::Graph &floatGraph, int threads,
                                                  int64_t calibBatch, bool specNeedsImages) {
    auto reader = dataReader(parser, threads);
    if (!reader) return reader.status();
    auto data = listData(parser, "calib", **reader, floatGraph, QString(), specNeedsImages);
    if (!data) return data.status();
    return CalibrationFiles{std::move(*reader), std::move(*data), calibBatch};
}

ql::Result<ql::quant::QuantizeResult> quantizeFromFiles(
    const ql::Graph &floatGraph, const CalibrationFiles &calibration,
    const ql::quant::QuantizationOptions &options, int threads, int64_t &samples,
    const AfterQuantize &afterQuantize) {
    QL_RETURN_IF_ERROR(ql::quant::validateExcludedNodes(floatGraph, options.excludedNodes)
                           .withContext(floatGraph.sourcePath));
    QL_RETURN_IF_ERROR(
        ql::quant::validateExcludedNodes(floatGraph, options.int16Nodes, "16-bit node")
            .withContext(floatGraph.sourcePath));
    const ql::quant::BatchSourceOpener open = calibration.opener(floatGraph);
    auto source = open();
    if (!source) return source.status();
    ql::quant::CalibrationOptions calibrationOptions;
    calibrationOptions.threads = threads;
    calibrationOptions.histograms = options.method != ql::quant::RangeMethod::MinMax &&
                                    options.method != ql::quant::RangeMethod::MovingAverageMinMax;
    ql::quant::CalibrationStatistics stats(calibrationOptions);
    QL_RETURN_IF_ERROR(ql::quant::calibrate(floatGraph, source.value(), stats).withContext(floatGraph.sourcePath));
    for (const auto &[value, count] : stats.nonFiniteValues())
        std::fprintf(stderr, "quantlens: warning: %lld NaN/Inf values of '%s' were skipped during calibration\n",
                     static_cast<long long>(count), value.c_str());
    std::printf("calibrated on %lld samples from %zu file(s); activation range: %s%s\n",
                static_cast<long long>(stats.sampleCount()), calibration.data.listed.fileCount(),
                ql::quant::rangeMethodName(options.method),
                options.method == ql::quant::RangeMethod::Percentile
                    ? (" " + std::to_string(options.percentile)).c_str()
                    : "");
    samples = stats.sampleCount();
    auto result = ql::quant::quantizeGraph(floatGraph, stats, options);
    if (!result) return result.status().withContext(floatGraph.sourcePath);
    if (afterQuantize) QL_RETURN_IF_ERROR(afterQuantize(*result, open));
    return result;
}

}  // namespace cli
