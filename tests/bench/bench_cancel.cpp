// How fast Cancel gives the GUI back (issue 15: <= 200 ms), on torchvision resnet50 and its
// PyTorch FX QDQ export from /tmp/models_q (QL_BENCH_FLOAT, QL_BENCH_QUANT override), 32 seeded
// random inputs at 224x224 in batches of 8, through the jobs the main window runs. Each
// operation is started and cancelled at several points (QL_CANCEL_DELAYS_MS, default
// 100,400,1000,2500 ms after its start); the time from cancel() to the job's "not busy" is the
// latency. Operations: a new analysis of the pair (loading, weights, cumulative, isolated), an
// analysis quantizing the float model in the app (calibration), an fp32 toggle, the latency
// measurement, an fp32 search, and a calibration lab (pool, evaluation, runs). After every
// cancel the job must still hold the analysis it had before, with the same fp32 layers; a
// benchmark that sees anything else fails. Counters: max_ms and median_ms over the cancels that
// landed while the operation ran; stderr lists each cancel with the stage it interrupted.
//
// Measured: see README ("Cancel").

#include <benchmark/benchmark.h>

#include <QApplication>
#include <QDir>
#include <QElapsedTimer>
#include <QEventLoop>
#include <QFileInfo>
#include <QTemporaryDir>
#include <QTimer>

#include <cstdio>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "analysis_job.h"
#include "bench_support.h"
#include "calibration_lab_job.h"
#include "onnx_io/tensor_file.h"

namespace {

using ql::ui::AnalysisJob;

QString modelPath(const char *variable, const char *fallback) {
    return QString::fromStdString(ql::bench::env(variable, fallback));
}

std::vector<int> cancelDelaysMs() {
    std::vector<int> delays;
    const QString text =
        QString::fromStdString(ql::bench::env("QL_CANCEL_DELAYS_MS", "100,400,1000,2500"));
    for (const QString &part : text.split(',', Qt::SkipEmptyParts)) delays.push_back(part.toInt());
    return delays;
}

// Runs the event loop until `done` holds or `timeoutMs` passes; false on timeout.
bool waitFor(const std::function<bool()> &done, int timeoutMs = 900000) {
    QElapsedTimer clock;
    clock.start();
    while (!done()) {
        if (clock.elapsed() > timeoutMs) return false;
        QEventLoop loop;
        QTimer::singleShot(2, &loop, &QEventLoop::quit);
        loop.exec();
    }
    return true;
}

ql::ui::AnalysisRequest pairRequest(bool quantizeInApp) {
    ql::ui::AnalysisRequest request;
    request.floatModel = modelPath("QL_BENCH_FLOAT", "/tmp/models_q/resnet50.onnx").toStdString();
    if (!quantizeInApp)
        request.quantModel =
            modelPath("QL_BENCH_QUANT", "/tmp/models_q/resnet50_qdq.onnx").toStdString();
    request.randomInputs = true;
    request.randomCount = 32;
    request.batch = 8;
    request.measureLatency = false;
    return request;
}

// One cancel: what it interrupted and how long the job took to give the GUI back.
struct CancelSample {
    int delayMs = 0;
    QString stage;
    double latencyMs = 0.0;
    bool landed = false;  // the operation was still running when cancel() was called
};

class CancelRecorder {
public:
    explicit CancelRecorder(const char *operation) : m_operation(operation) {}

    void add(const CancelSample &s) {
        std::fprintf(stderr, "  %-10s cancel at %5d ms in %-24s -> %s\n", m_operation, s.delayMs,
                     qPrintable(s.stage.isEmpty() ? QStringLiteral("(starting)") : s.stage),
                     s.landed ? qPrintable(QString::number(s.latencyMs, 'f', 1) + " ms")
                              : "finished before the cancel");
        if (s.landed) m_latencies.push_back(s.latencyMs);
    }
    void report(benchmark::State &state) const {
        state.counters["max_ms"] =
            m_latencies.empty() ? 0.0 : *std::max_element(m_latencies.begin(), m_latencies.end());
        state.counters["median_ms"] = ql::bench::median(m_latencies);
        state.counters["cancels"] = static_cast<double>(m_latencies.size());
    }

private:
    const char *m_operation;
    std::vector<double> m_latencies;
};

// Waits `delayMs` (or until the job ends on its own), calls `atCancel`, cancels and times until
// the job is idle again. `stage` is the job's last progress stage, read at the cancel.
template <class Job>
CancelSample cancelAfter(Job &job, int delayMs, const QString &stage,
                         const std::function<void()> &atCancel = {}) {
    CancelSample sample;
    sample.delayMs = delayMs;
    QElapsedTimer clock;
    clock.start();
    waitFor([&] { return !job.isBusy() || clock.elapsed() >= delayMs; });
    sample.landed = job.isBusy();
    sample.stage = stage;
    if (atCancel) atCancel();
    clock.restart();
    job.cancel();
    waitFor([&] { return !job.isBusy(); });
    sample.latencyMs = static_cast<double>(clock.nsecsElapsed()) / 1e6;
    return sample;
}

// A job holding a finished analysis of the pair (the "previous analysis" every cancel must keep).
struct AnalysedJob {
    AnalysisJob job;
    QString stage;
    QString failure;

    bool analyse(const ql::ui::AnalysisRequest &request) {
        QObject::connect(&job, &AnalysisJob::progress,
                         [this](const QString &s, int, int) { stage = s; });
        QObject::connect(
            &job, &AnalysisJob::failed,
            [this](const QString &m, ql::ErrorKind, AnalysisJob::Operation) { failure = m; });
        job.start(request);
        return waitFor([&] { return !job.isBusy(); }) && job.report() != nullptr;
    }

    // Starts an operation and cancels it after `delayMs`; `intact` tells whether the job then
    // holds the analysis it had when Cancel came.
    CancelSample cancelOperationAfter(int delayMs, const std::function<void()> &startOperation,
                                      bool &intact) {
        stage.clear();
        startOperation();
        ql::ui::ReportPtr report;
        std::set<std::string> fp32;
        const CancelSample sample = cancelAfter(job, delayMs, stage, [&] {
            report = job.report();
            fp32 = job.fp32Layers();
        });
        intact = job.report() == report && job.fp32Layers() == fp32;
        return sample;
    }
};

bool modelsThere(benchmark::State &state, bool needQuant) {
    const QString f = modelPath("QL_BENCH_FLOAT", "/tmp/models_q/resnet50.onnx");
    const QString q = modelPath("QL_BENCH_QUANT", "/tmp/models_q/resnet50_qdq.onnx");
    if (QFileInfo::exists(f) && (!needQuant || QFileInfo::exists(q))) return true;
    state.SkipWithError(
        "models missing: run tests/tools/export_torchvision_qdq.py --models resnet50");
    return false;
}

// Runs `startOperation` on a job holding an analysis, cancelling it at each delay (from the
// first analysis' fp32 layers each time); the job must keep the analysis it had at the cancel.
void measureCancels(benchmark::State &state, const char *name,
                    const std::function<void(AnalysedJob &)> &startOperation) {
    if (!modelsThere(state, true)) return;
    for (auto _ : state) {
        AnalysedJob analysed;
        if (!analysed.analyse(pairRequest(false))) {
            state.SkipWithError(
                ("first analysis failed: " + analysed.failure).toUtf8().constData());
            return;
        }
        const std::set<std::string> fp32Before = analysed.job.fp32Layers();
        CancelRecorder recorder(name);
        for (int delay : cancelDelaysMs()) {
            if (analysed.job.fp32Layers() !=
                fp32Before) {  // an operation finished before the cancel
                analysed.job.requestLayers(fp32Before, {});
                waitFor([&] { return !analysed.job.isBusy(); });
            }
            bool intact = false;
            const CancelSample sample = analysed.cancelOperationAfter(
                delay, [&] { startOperation(analysed); }, intact);
            recorder.add(sample);
            if (!intact) {
                state.SkipWithError("the analysis held at the cancel did not survive it");
                return;
            }
        }
        recorder.report(state);
    }
}

void CancelAnalysis(benchmark::State &state) {
    measureCancels(state, "analysis", [](AnalysedJob &a) { a.job.start(pairRequest(false)); });
}

void CancelInAppQuantization(benchmark::State &state) {
    measureCancels(state, "quantize", [](AnalysedJob &a) { a.job.start(pairRequest(true)); });
}

// The toggled layer: the second int8 layer of the report (downstream of it, nearly everything
// re-runs).
std::string toggledLayer(const AnalysisJob &job) {
    int seen = 0;
    for (const auto &layer : job.report()->layers)
        if (layer.precision == "int8" && ++seen == 2) return layer.name;
    return job.report()->layers.front().name;
}

void CancelToggle(benchmark::State &state) {
    measureCancels(state, "toggle",
                   [](AnalysedJob &a) { a.job.requestLayers({toggledLayer(a.job)}, {}); });
}

void CancelLatency(benchmark::State &state) {
    measureCancels(state, "latency", [](AnalysedJob &a) { a.job.requestLatency(); });
}

void CancelSearch(benchmark::State &state) {
    measureCancels(state, "search", [](AnalysedJob &a) {
        ql::ui::SearchRequest request;
        request.options.target = {ql::analysis::SearchMetric::Sqnr, 60.0};
        a.job.requestSearch(request);
    });
}

// Seeded normal samples as .npy files, one [1,3,224,224] image each, for the lab's pool and
// evaluation set.
QStringList writeSamples(const QString &dir, int count, unsigned seed) {
    std::mt19937 rng(seed);
    std::normal_distribution<float> normal;
    QStringList paths;
    for (int i = 0; i < count; ++i) {
        ql::Tensor t(ql::DataType::Float, {1, 3, 224, 224});
        float *v = t.data<float>();
        for (int64_t k = 0; k < t.numel(); ++k) v[k] = normal(rng);
        const QString path =
            QDir(dir).filePath(QStringLiteral("s%1.npy").arg(i, 3, 10, QChar('0')));
        if (!ql::writeNpy(path.toStdString(), t)) return {};
        paths << path;
    }
    return paths;
}

void CancelCalibrationLab(benchmark::State &state) {
    if (!modelsThere(state, false)) return;
    QTemporaryDir dir;
    ql::ui::CalibrationLabSettings settings;
    settings.floatModel = modelPath("QL_BENCH_FLOAT", "/tmp/models_q/resnet50.onnx");
    QDir().mkpath(dir.filePath("pool"));
    QDir().mkpath(dir.filePath("eval"));
    settings.poolPaths = writeSamples(dir.filePath("pool"), 16, 1);
    settings.evaluationPaths = writeSamples(dir.filePath("eval"), 16, 2);
    settings.methods = {QStringLiteral("minmax"), QStringLiteral("percentile")};
    settings.sizes = QStringLiteral("4,8,16");
    settings.repeats = 2;
    settings.evaluationBatch = 8;
    for (auto _ : state) {
        CancelRecorder recorder("lab");
        for (int delay : cancelDelaysMs()) {
            ql::ui::CalibrationLabJob job;
            QString stage;
            QObject::connect(&job, &ql::ui::CalibrationLabJob::progress,
                             [&](const QString &s, int, int, double) { stage = s; });
            job.start(settings);
            const CancelSample sample = cancelAfter(job, delay, stage);
            recorder.add(sample);
        }
        recorder.report(state);
    }
}

}  // namespace

BENCHMARK(CancelAnalysis)->Iterations(1)->Unit(benchmark::kSecond);
BENCHMARK(CancelInAppQuantization)->Iterations(1)->Unit(benchmark::kSecond);
BENCHMARK(CancelToggle)->Iterations(1)->Unit(benchmark::kSecond);
BENCHMARK(CancelLatency)->Iterations(1)->Unit(benchmark::kSecond);
BENCHMARK(CancelSearch)->Iterations(1)->Unit(benchmark::kSecond);
BENCHMARK(CancelCalibrationLab)->Iterations(1)->Unit(benchmark::kSecond);

int main(int argc, char **argv) {
    QApplication app(argc, argv);
    benchmark::Initialize(&argc, argv);
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    return 0;
}
