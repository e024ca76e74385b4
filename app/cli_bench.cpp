#include <QCommandLineParser>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <random>

#include "cli_commands.h"
#include "cli_support.h"
#include "onnx_io/model_loader.h"
#include "runtime/execution_plan.h"

namespace cli {

namespace {

// Seeded random values of the declared type; unknown dims take `batch` first, 1 elsewhere.
ql::Status makeRandomInputs(const ql::Graph &graph, int batch, std::map<std::string, ql::Tensor> &inputs) {
    std::mt19937 rng(1234);
    std::uniform_real_distribution<float> uniform(0.0f, 1.0f);
    for (const ql::ValueInfo &in : graph.inputs) {
        if (!in.hasShape) return ql::Status::badInput("input '" + in.name + "' has no declared shape; bench cannot invent one");
        ql::Shape shape = in.shape;
        for (size_t d = 0; d < shape.size(); ++d)
            if (shape[d] < 0) shape[d] = d == 0 ? batch : 1;
        if (!shape.empty() && in.shape[0] > 0 && batch != 1) shape[0] = batch;
        ql::Tensor t(in.dtype == ql::DataType::Undefined ? ql::DataType::Float : in.dtype, shape);
        for (int64_t i = 0; i < t.numel(); ++i) {
            switch (t.dtype()) {
                case ql::DataType::Float: t.data<float>()[i] = uniform(rng); break;
                case ql::DataType::Int64: t.data<int64_t>()[i] = static_cast<int64_t>(uniform(rng) * 10); break;
                case ql::DataType::Int32: t.data<int32_t>()[i] = static_cast<int32_t>(uniform(rng) * 10); break;
                case ql::DataType::UInt8: t.data<uint8_t>()[i] = static_cast<uint8_t>(uniform(rng) * 255); break;
                default: break;  // zeros
            }
        }
        inputs[in.name] = t;
    }
    return ql::Status::ok();
}

// The ten slowest nodes of the last run, then the time per op type.
void printProfile(std::vector<ql::NodeTiming> timings) {
    std::sort(timings.begin(), timings.end(), [](auto &a, auto &b) { return a.milliseconds > b.milliseconds; });
    std::printf("slowest nodes:\n");
    for (size_t i = 0; i < timings.size() && i < 10; ++i)
        std::printf("  %8.3f ms  %-20s %s\n", timings[i].milliseconds, timings[i].opType.c_str(), timings[i].nodeName.c_str());
    std::map<std::string, std::pair<double, int>> byOp;
    for (const ql::NodeTiming &t : timings) {
        byOp[t.opType].first += t.milliseconds;
        byOp[t.opType].second += 1;
    }
    std::vector<std::pair<std::string, std::pair<double, int>>> ops(byOp.begin(), byOp.end());
    std::sort(ops.begin(), ops.end(), [](auto &a, auto &b) { return a.second.first > b.second.first; });
    std::printf("by op type:\n");
    for (const auto &[op, total] : ops) std::printf("  %8.3f ms  %-20s %d nodes\n", total.first, op.c_str(), total.second);
}

}  // namespace

int runBench(const QStringList &arguments) {
    QCommandLineParser parser;
    parser.setApplicationDescription("Time the execution plan on seeded random inputs.");
    parser.addHelpOption();
    parser.addPositionalArgument("model", "The ONNX model to time.");
    parser.addOption({"runs", "Timed runs after two warm-up runs (default 20).", "N", "20"});
    parser.addOption({"no-fuse", "Run every node on its own instead of fusing Conv with its activation / residual Add."});
    parser.addOption({"threads", "Threads for the kernels (default: all cores).", "N", "0"});
    parser.addOption({"batch", "Batch size for inputs whose first dim is symbolic (default 1).", "N", "1"});
    parser.addOption({"profile", "Also print the ten slowest nodes of the last run."});
    parser.addOption({"precision", "fp32, int8 or reference (default: int8 for a quantized model, fp32 for a float one).", "P"});
    parser.addOption({"int8-kernels", kInt8KernelsHelp, "MODE"});
    if (!parser.parse(QStringList{"quantlens bench"} + arguments)) return usageError(parser.errorText());
    if (parser.isSet("help")) {
        std::fputs(qPrintable(parser.helpText()), stdout);
        return Success;
    }
    if (parser.positionalArguments().size() != 1) return usageError("bench: expected exactly one MODEL.onnx");
    bool ok1, ok2, ok3;
    const int runs = parser.value("runs").toInt(&ok1), threads = parser.value("threads").toInt(&ok2),
              batch = parser.value("batch").toInt(&ok3);
    if (!ok1 || !ok2 || !ok3 || runs < 1 || threads < 0 || batch < 1)
        return usageError("bench: --runs, --threads and --batch expect positive numbers");

    auto graph = ql::loadModel(parser.positionalArguments().first().toStdString());
    if (!graph) return reportFailure(graph.status());
    std::map<std::string, ql::Tensor> inputs;
    ql::Status made = makeRandomInputs(graph.value(), batch, inputs);
    if (!made) return reportFailure(made);
    ql::PrecisionReport precision;
    ql::Status prepared = applyPrecision(graph.value(), parser.value("precision"), precision, parser.value("int8-kernels"));
    if (!prepared) return reportFailure(prepared);
    const std::string source = graph.value().sourcePath;
    auto plan = ql::ExecutionPlan::create(std::move(graph.value()), planOptions(threads, !parser.isSet("no-fuse")));
    if (!plan) return reportFailure(plan.status().withContext(source));
    std::vector<ql::Tensor> outputs;
    for (int i = 0; i < 2; ++i) {
        ql::Status ran = plan.value()->run(inputs, outputs);
        if (!ran) return reportFailure(ran.withContext(source));
    }
    plan.value()->setTimingEnabled(parser.isSet("profile"));
    std::vector<double> times;
    for (int i = 0; i < runs; ++i) {
        const auto start = std::chrono::steady_clock::now();
        ql::Status ran = plan.value()->run(inputs, outputs);
        if (!ran) return reportFailure(ran);
        times.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
    }
    std::sort(times.begin(), times.end());
    std::printf("model: %s\nthreads: %d  batch: %d  runs: %d\nmedian_ms: %.3f\nmin_ms: %.3f\n",
                qPrintable(parser.positionalArguments().first()), threads, batch, runs,
                times[times.size() / 2], times.front());
    std::printf("precision: %s\n", precision.precision.c_str());
    if (precision.precision == "int8") std::printf("%s\n", precision.summary().c_str());
    if (parser.isSet("profile")) printProfile(plan.value()->lastTimings());
    return Success;
}

}  // namespace cli
