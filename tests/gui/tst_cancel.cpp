// Cancel while work runs (issue 15): on a model that takes seconds to analyse (ten 3x3 Convs of
// 128 channels at 64x64, quantized in the app), the jobs the main window runs are cancelled in the
// middle of a new analysis, a toggle, the latency measurement, a search and a calibration lab,
// and `quantlens analyze` gets SIGINT. Each must end as cancelled, keep the analysis it had
// before (same report, same fp32 layers), and give control back; the time from Cancel to idle is
// printed (the figures against the 200 ms target come from tests/bench/bench_cancel on
// resnet50, not from this test). The bound asserted here only tells "stopped mid-way" from
// "ran to the end": the operations cancelled take several seconds to finish.

#include <QDir>
#include <QElapsedTimer>
#include <QProcess>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

#include <cmath>
#include <csignal>
#include <functional>
#include <random>

#include "analysis_job.h"
#include "calibration_lab_job.h"
#include "ir/graph.h"
#include "onnx_io/model_writer.h"
#include "onnx_io/tensor_file.h"

using ql::ui::AnalysisJob;

class TestCancel : public QObject {
    Q_OBJECT
private slots:
    void initTestCase();
    void newAnalysisCancelledMidPass();
    void toggleLatencyAndSearchCancelled();
    void calibrationLabCancelledDuringRuns();
    void sigintStopsTheCommandLine();

private:
    ql::ui::AnalysisRequest request(int samples) const;
    bool analyse(AnalysisJob &job, int samples);

    QTemporaryDir m_dir;
    QString m_model;
    QStringList m_samples;
};

namespace {

// Stopping mid-way must come well before the several seconds the rest of the work takes. Under
// the sanitizers our own kernels run many times slower, so there only the outcome counts.
#if defined(__SANITIZE_ADDRESS__)
constexpr qint64 kStoppedMidWayMs = 60000;
#else
constexpr qint64 kStoppedMidWayMs = 2000;
#endif
constexpr int64_t kWidth = 128;  // channels of each Conv

ql::Tensor seededTensor(const ql::Shape &shape, unsigned seed, float scale) {
    ql::Tensor t(ql::DataType::Float, shape);
    std::mt19937 rng(seed);
    std::normal_distribution<float> normal(0.0f, scale);
    for (int64_t i = 0; i < t.numel(); ++i) t.data<float>()[i] = normal(rng);
    return t;
}

ql::Node node(const std::string &op, const std::string &name, std::vector<std::string> inputs,
              std::string output) {
    ql::Node n;
    n.opType = op;
    n.name = name;
    n.inputs = std::move(inputs);
    n.outputs = {std::move(output)};
    return n;
}

ql::Attribute ints(std::vector<int64_t> values) {
    ql::Attribute a;
    a.kind = ql::Attribute::Kind::Ints;
    a.ints = std::move(values);
    return a;
}

// input [N,32,64,64] -> 10 x (Conv 3x3, 128 channels, + Relu) -> GlobalAveragePool -> Flatten ->
// Gemm 10: about 11 GFLOP a sample, so a few samples keep every stage busy for seconds.
ql::Graph slowModel() {
    ql::Graph g;
    g.opsetVersion = 13;
    ql::ValueInfo input;
    input.name = "input";
    input.dtype = ql::DataType::Float;
    input.hasShape = true;
    input.shape = {-1, 32, 64, 64};
    input.dimNames = {"batch", "", "", ""};
    g.inputs.push_back(input);
    std::string x = "input";
    int64_t channels = 32;
    for (int i = 0; i < 10; ++i) {
        const std::string w = "w" + std::to_string(i), b = "b" + std::to_string(i);
        g.initializers[w] =
            seededTensor({kWidth, channels, 3, 3}, 10 + i, 1.0f / std::sqrt(9.0f * channels));
        g.initializers[b] = seededTensor({kWidth}, 50 + i, 0.1f);
        ql::Node conv =
            node("Conv", "conv" + std::to_string(i), {x, w, b}, "c" + std::to_string(i));
        conv.attributes["pads"] = ints({1, 1, 1, 1});
        conv.attributes["kernel_shape"] = ints({3, 3});
        g.nodes.push_back(conv);
        g.nodes.push_back(
            node("Relu", "relu" + std::to_string(i), {conv.outputs[0]}, "r" + std::to_string(i)));
        x = "r" + std::to_string(i);
        channels = kWidth;
    }
    g.nodes.push_back(node("GlobalAveragePool", "pool", {x}, "pooled"));
    g.nodes.push_back(node("Flatten", "flatten", {"pooled"}, "flat"));
    g.initializers["fc_w"] = seededTensor({10, kWidth}, 90, 0.1f);
    g.initializers["fc_b"] = seededTensor({10}, 91, 0.1f);
    ql::Node fc = node("Gemm", "fc", {"flat", "fc_w", "fc_b"}, "logits");
    fc.attributes["transB"].kind = ql::Attribute::Kind::Int;
    fc.attributes["transB"].i = 1;
    g.nodes.push_back(fc);
    ql::ValueInfo output;
    output.name = "logits";
    output.dtype = ql::DataType::Float;
    output.hasShape = true;
    output.shape = {-1, 10};
    output.dimNames = {"batch", ""};
    g.outputs.push_back(output);
    return g;
}

// Runs the event loop until `done` or the timeout; the elapsed milliseconds.
qint64 waitUntil(const std::function<bool()> &done, int timeoutMs = 600000) {
    QElapsedTimer clock;
    clock.start();
    while (!done() && clock.elapsed() < timeoutMs) QTest::qWait(1);
    return clock.elapsed();
}

}  // namespace

void TestCancel::initTestCase() {
    QVERIFY(m_dir.isValid());
    m_model = m_dir.filePath("slow.onnx");
    const ql::Status written = ql::writeModel(slowModel(), m_model.toStdString());
    QVERIFY2(written.isOk(), written.message().c_str());
    QDir().mkpath(m_dir.filePath("samples"));
    for (int i = 0; i < 12; ++i) {
        const QString path =
            m_dir.filePath(QStringLiteral("samples/s%1.npy").arg(i, 2, 10, QChar('0')));
        QVERIFY(
            ql::writeNpy(path.toStdString(), seededTensor({1, 32, 64, 64}, 100 + i, 1.0f)).isOk());
        m_samples << path;
    }
}

ql::ui::AnalysisRequest TestCancel::request(int samples) const {
    ql::ui::AnalysisRequest r;
    r.floatModel = m_model.toStdString();  // no quantized model: quantized in the app
    r.randomInputs = true;
    r.randomCount = samples;
    r.batch = 2;
    r.measureLatency = false;
    return r;
}

bool TestCancel::analyse(AnalysisJob &job, int samples) {
    job.start(request(samples));
    waitUntil([&] { return !job.isBusy(); });
    return job.report() != nullptr;
}

void TestCancel::newAnalysisCancelledMidPass() {
    AnalysisJob job;
    QVERIFY(analyse(job, 2));
    const ql::ui::ReportPtr before = job.report();
    QSignalSpy failed(&job, &AnalysisJob::failed);
    QString stage;
    connect(&job, &AnalysisJob::progress, this, [&](const QString &s, int, int) { stage = s; });
    job.start(request(24));  // 12 batches: seconds of calibration and comparison
    waitUntil([&] { return stage == QLatin1String("Cumulative comparison") || !job.isBusy(); });
    QVERIFY2(job.isBusy(), "the analysis ended before its comparison could be cancelled");
    job.cancel();
    const qint64 ms = waitUntil([&] { return !job.isBusy(); });
    qInfo("new analysis: cancelled during '%s', idle after %lld ms", qPrintable(stage), ms);
    QVERIFY(ms < kStoppedMidWayMs);
    QCOMPARE(failed.count(), 1);
    QCOMPARE(failed.first().at(1).value<ql::ErrorKind>(), ql::ErrorKind::Cancelled);
    QCOMPARE(job.report(), before);  // the previous analysis is intact and still usable
    job.requestLayers({"conv3"}, {});
    waitUntil([&] { return !job.isBusy(); });
    QVERIFY(job.report() != before);
    QCOMPARE(job.fp32Layers(), std::set<std::string>{"conv3"});
}

void TestCancel::toggleLatencyAndSearchCancelled() {
    AnalysisJob job;
    QVERIFY(analyse(job, 4));
    const ql::ui::ReportPtr before = job.report();
    QSignalSpy failed(&job, &AnalysisJob::failed);
    QSignalSpy latency(&job, &AnalysisJob::latencyReady);
    QSignalSpy searched(&job, &AnalysisJob::searchReady);
    auto cancelSoon = [&](const char *what) {
        QVERIFY(job.isBusy());
        QTest::qWait(20);  // the worker is under way
        job.cancel();
        const qint64 ms = waitUntil([&] { return !job.isBusy(); });
        qInfo("%s: idle %lld ms after Cancel", what, ms);
        QVERIFY(ms < kStoppedMidWayMs);
        QCOMPARE(job.report(), before);
        QVERIFY(job.fp32Layers().empty());
    };
    job.requestLayers({"conv1"}, {});  // every Conv after it re-runs
    cancelSoon("toggle");
    job.requestLatency();
    cancelSoon("latency");
    ql::ui::SearchRequest search;
    search.options.target = {ql::analysis::SearchMetric::Sqnr, 90.0};  // needs many evaluations
    job.requestSearch(search);
    cancelSoon("search");
    QCOMPARE(latency.count(), 0);
    QCOMPARE(searched.count(), 0);
    QCOMPARE(failed.count(), 3);
    for (const auto &call : failed)
        QCOMPARE(call.at(1).value<ql::ErrorKind>(), ql::ErrorKind::Cancelled);
}

void TestCancel::calibrationLabCancelledDuringRuns() {
    ql::ui::CalibrationLabSettings settings;
    settings.floatModel = m_model;
    settings.poolPaths = m_samples.mid(0, 8);
    settings.evaluationPaths = m_samples.mid(8);
    settings.methods = {QStringLiteral("minmax"), QStringLiteral("mse")};
    settings.sizes = QStringLiteral("2,4,8");
    settings.repeats = 3;
    settings.evaluationBatch = 2;
    ql::ui::CalibrationLabJob job;
    QSignalSpy finished(&job, &ql::ui::CalibrationLabJob::finished);
    QString stage;
    int runsDone = 0;
    connect(&job, &ql::ui::CalibrationLabJob::progress, this,
            [&](const QString &s, int done, int, double) { stage = s, runsDone = done; });
    QVERIFY(job.start(settings));
    waitUntil([&] {
        return (stage.contains(QLatin1String("run"), Qt::CaseInsensitive) && runsDone >= 1) ||
               !job.isBusy();
    });
    QVERIFY2(job.isBusy(), "the lab ended before it could be cancelled");
    job.cancel();
    const qint64 ms = waitUntil([&] { return !job.isBusy(); });
    qInfo("calibration lab: cancelled during '%s' after %d runs, idle after %lld ms",
          qPrintable(stage), runsDone, ms);
    QVERIFY(ms < kStoppedMidWayMs);
    QCOMPARE(finished.count(), 1);  // the runs done so far are kept
    const QJsonObject lab = finished.first().at(0).toJsonObject();
    QCOMPARE(lab.value("complete").toBool(true), false);
}

void TestCancel::sigintStopsTheCommandLine() {
    const QString json = m_dir.filePath("interrupted.json");
    QProcess process;
    process.start(QStringLiteral(QUANTLENS_BINARY),
                  {"analyze", "--float", m_model, "--calib", m_dir.filePath("samples"), "--data",
                   m_dir.filePath("samples"), "--batch", "2", "--json", json});
    QVERIFY(process.waitForStarted());
    QVERIFY2(!process.waitForFinished(1000),
             qPrintable("analyze finished before it could be interrupted: " +
                        QString::fromLocal8Bit(process.readAllStandardError())));
    QElapsedTimer clock;
    clock.start();
    ::kill(static_cast<pid_t>(process.processId()), SIGINT);
    QVERIFY(process.waitForFinished(60000));
    qInfo("analyze: exited %lld ms after SIGINT", clock.elapsed());
    QVERIFY(clock.elapsed() < kStoppedMidWayMs);
    const QString stderrText = QString::fromLocal8Bit(process.readAllStandardError());
    QCOMPARE(process.exitStatus(), QProcess::NormalExit);  // it stopped itself, no signal death
    QCOMPARE(process.exitCode(), 130);
    QVERIFY2(stderrText.contains(QLatin1String("interrupted")), qPrintable(stderrText));
    QVERIFY(!QFile::exists(json));
}

QTEST_MAIN(TestCancel)
#include "tst_cancel.moc"
