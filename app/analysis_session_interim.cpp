// INTERIM implementation of engine/analysis/analysis_session.h for the GUI until the engine's own
// (branch `session`) is merged: app/CMakeLists.txt compiles this file only while
// engine/analysis/analysis_session*.cpp does not exist. It re-runs the whole numeric suite on
// every change (no incremental re-run), and toggles layers to fp32 only for in-app quantization
// (re-quantized from the cached calibration statistics); a quantized model FILE answers
// Unsupported. Delete this file once the engine implements the header.

#include <algorithm>
#include <chrono>
#include <random>

#include "analysis/analysis_session.h"
#include "onnx_io/model_writer.h"
#include "passes/int8_kernel_mode.h"
#include "passes/precision.h"
#include "quant/calibration.h"
#include "quant/calibration_data.h"
#include "quant/qdq_builder.h"
#include "runtime/execution_plan.h"

namespace ql::analysis {

namespace {

Result<EvaluationData> drain(const quant::BatchSource &source) {
    EvaluationData data;
    for (;;) {
        std::map<std::string, Tensor> batch;
        auto more = source(batch);
        if (!more) return more.status();
        if (!*more) break;
        if (!batch.empty()) data.samples += batch.begin()->second.shape().empty() ? 1 : batch.begin()->second.dim(0);
        data.batches.push_back(std::move(batch));
    }
    if (data.batches.empty()) return Status::badInput("no evaluation samples");
    return data;
}

}  // namespace

Result<EvaluationData> evaluationDataFromFiles(const Graph &floatGraph, const std::vector<std::string> &paths,
                                               int64_t batchSize) {
    auto files = quant::listCalibrationFiles(paths);
    if (!files) return files.status();
    auto source = quant::fileBatchSource(floatGraph, *files, batchSize);
    if (!source) return source.status();
    return drain(*source);
}

Result<EvaluationData> randomEvaluationData(const Graph &floatGraph, int64_t samples, uint64_t seed,
                                            int64_t batchSize) {
    if (samples <= 0 || batchSize <= 0) return Status::badInput("random inputs: count and batch must be positive");
    std::mt19937_64 rng(seed);
    std::normal_distribution<float> normal(0.0f, 1.0f);
    EvaluationData data;
    for (int64_t first = 0; first < samples; first += batchSize) {
        const int64_t rows = std::min(batchSize, samples - first);
        std::map<std::string, Tensor> batch;
        for (const ValueInfo &input : floatGraph.inputs) {
            if (input.dtype != DataType::Float)
                return Status::unsupported("random inputs: input '" + input.name + "' is not float32");
            Shape shape = input.shape;
            if (shape.empty()) return Status::badInput("random inputs: input '" + input.name + "' has no shape");
            for (size_t d = 1; d < shape.size(); ++d)
                if (shape[d] <= 0) shape[d] = 1;
            shape[0] = shape[0] > 0 ? shape[0] : rows;
            Tensor tensor(DataType::Float, shape);
            float *values = tensor.data<float>();
            for (int64_t i = 0; i < tensor.numel(); ++i) values[i] = normal(rng);
            batch.emplace(input.name, std::move(tensor));
        }
        data.samples += rows;
        data.batches.push_back(std::move(batch));
    }
    return data;
}

struct AnalysisSession::Impl {
    Graph floatGraph;
    Graph quantGraph;
    bool inApp = false;
    EvaluationData data;
    SessionOptions options;
    std::unique_ptr<quant::CalibrationStatistics> stats;
    std::set<std::string> fp32;
    NumericSuiteReport report;

    Result<NumericSuiteReport> run(const Graph &quant, const SessionProgress &progress) const {
        NumericSuiteOptions suite = options.suite;
        suite.labels = data.labels;
        suite.expectedBatches = static_cast<int>(data.batches.size());
        if (progress) suite.progress = progress;
        const auto *batches = &data.batches;
        BatchSourceFactory inputs = [batches]() -> Result<ActivationBatchSource> {
            auto next = std::make_shared<size_t>(0);
            return ActivationBatchSource([batches, next](std::map<std::string, Tensor> &batch) -> Result<bool> {
                if (*next >= batches->size()) return false;
                batch = (*batches)[(*next)++];
                return true;
            });
        };
        return runNumericSuite(floatGraph, quant, inputs, suite);
    }

    Result<Graph> quantizeInApp(const std::set<std::string> &excluded) const {
        quant::QuantizationOptions quantizer = options.quantizer;
        for (const std::string &name : excluded)
            if (std::find(quantizer.excludedNodes.begin(), quantizer.excludedNodes.end(), name) ==
                quantizer.excludedNodes.end())
                quantizer.excludedNodes.push_back(name);
        auto result = quant::quantizeGraph(floatGraph, *stats, quantizer);
        if (!result) return result.status();
        return std::move(result->model);
    }
};

AnalysisSession::AnalysisSession() : m_impl(std::make_unique<Impl>()) {}
AnalysisSession::~AnalysisSession() = default;

Result<std::unique_ptr<AnalysisSession>> AnalysisSession::create(Graph floatGraph, std::optional<Graph> quantGraph,
                                                                 EvaluationData data, SessionOptions options,
                                                                 const SessionProgress &progress) {
    std::unique_ptr<AnalysisSession> session(new AnalysisSession());
    Impl &impl = *session->m_impl;
    impl.floatGraph = std::move(floatGraph);
    impl.data = std::move(data);
    impl.options = std::move(options);
    if (quantGraph) {
        if (!isQuantizedModel(*quantGraph))
            return Status::badInput(quantGraph->sourcePath +
                                    ": has no quantized nodes; expected a QDQ or QOperator model");
        impl.quantGraph = std::move(*quantGraph);
    } else {
        impl.inApp = true;
        quant::CalibrationOptions calibration;
        calibration.threads = impl.options.suite.threads;
        impl.stats = std::make_unique<quant::CalibrationStatistics>(calibration);
        const auto &batches =
            impl.options.calibrationBatches.empty() ? impl.data.batches : impl.options.calibrationBatches;
        ProgressCallback calibrationProgress;
        if (progress) {
            const int total = static_cast<int>(batches.size());
            calibrationProgress = [&progress, total](int done, int) { return progress("calibration", done, total); };
        }
        QL_RETURN_IF_ERROR(quant::calibrate(impl.floatGraph, batches, *impl.stats, calibrationProgress));
        auto quantized = impl.quantizeInApp({});
        if (!quantized) return quantized.status();
        impl.quantGraph = std::move(*quantized);
    }
    auto report = impl.run(impl.quantGraph, progress);
    if (!report) return report.status();
    impl.report = std::move(*report);
    return session;
}

const NumericSuiteReport &AnalysisSession::report() const { return m_impl->report; }
bool AnalysisSession::quantizedInApp() const { return m_impl->inApp; }
const Graph &AnalysisSession::floatGraph() const { return m_impl->floatGraph; }
const Graph &AnalysisSession::quantGraph() const { return m_impl->quantGraph; }
const EvaluationData &AnalysisSession::data() const { return m_impl->data; }
const std::set<std::string> &AnalysisSession::fp32Layers() const { return m_impl->fp32; }

Result<NumericSuiteReport> AnalysisSession::setFp32Layers(const std::set<std::string> &layers,
                                                          const SessionProgress &progress) {
    Impl &impl = *m_impl;
    for (const std::string &name : layers) {
        const bool known = std::any_of(impl.report.layers.begin(), impl.report.layers.end(),
                                       [&name](const LayerReport &l) { return l.name == name; });
        if (!known) return Status::badInput("'" + name + "' is not a layer of the analysis");
    }
    if (layers == impl.fp32) return impl.report;
    if (!impl.inApp)
        return Status::unsupported(
            "keeping layers of a quantized model file in fp32 needs the session engine (not in this build yet); "
            "use Quantize in App");
    auto quantized = impl.quantizeInApp(layers);
    if (!quantized) return quantized.status();
    auto report = impl.run(*quantized, progress);
    if (!report) return report.status();
    impl.quantGraph = std::move(*quantized);
    impl.fp32 = layers;
    impl.report = std::move(*report);
    return impl.report;
}

Result<std::pair<double, double>> AnalysisSession::measureLatencyMs(int runs) {
    Impl &impl = *m_impl;
    auto time = [&impl, runs](const Graph &source, Precision precision) -> Result<double> {
        Graph graph = source;
        QL_RETURN_IF_ERROR(preparePrecision(graph, precision));
        if (precision == Precision::Int8) applyInt8Kernels(graph, impl.options.suite.int8Kernels);
        PlanOptions planOptions;
        planOptions.threads = impl.options.suite.threads;
        auto plan = ExecutionPlan::create(std::move(graph), planOptions);
        if (!plan) return plan.status();
        std::vector<double> times;
        std::vector<Tensor> outputs;
        for (int run = 0; run < std::max(1, runs); ++run) {
            const auto start = std::chrono::steady_clock::now();
            for (const auto &batch : impl.data.batches) QL_RETURN_IF_ERROR((*plan)->run(batch, outputs));
            times.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
        }
        std::sort(times.begin(), times.end());
        return times[times.size() / 2];
    };
    auto int8 = time(impl.quantGraph, Precision::Int8);
    if (!int8) return int8.status();
    auto fp32 = time(impl.floatGraph, Precision::Fp32);
    if (!fp32) return fp32.status();
    return std::make_pair(*int8, *fp32);
}

Status AnalysisSession::writeQuantizedModel(const std::string &path) const {
    return writeModel(m_impl->quantGraph, path);
}

}  // namespace ql::analysis
