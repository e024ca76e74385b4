// The main window on a big model (issue 5: "the GUI thread is never blocked more than 50 ms"):
// torchvision resnet18 and its PyTorch FX QDQ export from /tmp/models_q (QL_BENCH_FLOAT,
// QL_BENCH_QUANT override), 32 seeded random inputs at 224x224 in batches of 8, offscreen. A 5 ms
// watchdog timer on the GUI thread runs while the window analyses the pair, the inspector shows
// five layers, and five layers are toggled to fp32 and back (undo). Counters:
//   worst_gap_ms / worst_gap_cpu_ms: the longest gap between two watchdog ticks, in wall time
//     (includes other processes on a loaded machine) and in the GUI thread's own CPU time;
//   gaps_over_50ms: how many wall gaps exceeded 50 ms;
//   median_toggle_ms: toggle request to the new report on screen, as the GUI sees it (the
//     engine gets all cores but one there); median_toggle_idle_ms: until the inspector and the
//     latency measurement of the new plan are done too.
// QL_WATCHDOG_LOG=1 prints every gap over 15 ms with what the window was doing.
//
// Measured 2026-11-23 on the quiet 2-core machine (load 1.1-2.1), workers at nice +10: worst gap
// 71 ms once (CPU 55 ms), the analysis page's first layout and paint when the first report
// arrives; every other gap <= 42 ms; GUI-thread CPU otherwise <= 32 ms; median toggle 811 ms.
// Before the fixes this benchmark led to: 2-4 s stalls (jobs on Qt's global pool, which
// painting waits on), then 95 ms (workers at the GUI thread's priority), 53 ms at nice +5.

#include <benchmark/benchmark.h>

#include <QApplication>
#include <QElapsedTimer>
#include <QEventLoop>
#include <QFileInfo>
#include <QTimer>
#include <QUndoStack>

#include <algorithm>
#include <cstdio>
#include <ctime>
#include <string>
#include <vector>

#include "analysis_controller.h"
#include "analysis_panel.h"
#include "layer_inspector.h"
#include "main_window.h"

namespace {

QString env(const char *name, const QString &fallback) {
    const QString v = qEnvironmentVariable(name);
    return v.isEmpty() ? fallback : v;
}

double threadCpuMs() {
    timespec t{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return double(t.tv_sec) * 1e3 + double(t.tv_nsec) / 1e6;
}

// Runs the event loop (sleeping, not spinning: the watchdog measures the GUI thread's CPU) until
// the window is idle or `timeoutMs` passes.
bool waitIdle(MainWindow &window, int timeoutMs = 600000) {
    QEventLoop loop;
    QTimer poll;
    QElapsedTimer clock;
    clock.start();
    bool idle = false;
    QObject::connect(&poll, &QTimer::timeout, [&] {
        idle = !window.analysis()->isBusy() && window.analysis()->report() &&
               !window.inspector()->isBusy();
        if (idle || clock.elapsed() > timeoutMs) loop.quit();
    });
    poll.start(20);
    loop.exec();
    return idle;
}

void GuiThreadWhileAnalysing(benchmark::State &state) {
    const QString floatModel = env("QL_BENCH_FLOAT", "/tmp/models_q/resnet18.onnx");
    const QString quantModel = env("QL_BENCH_QUANT", "/tmp/models_q/resnet18_qdq.onnx");
    if (!QFileInfo::exists(floatModel) || !QFileInfo::exists(quantModel)) {
        state.SkipWithError("models missing: run tests/tools/export_torchvision_qdq.py");
        return;
    }
    for (auto _ : state) {
        MainWindow window(MainWindow::Options{false, false, false});
        window.resize(1600, 1000);
        window.show();
        QElapsedTimer clock;
        qint64 last = 0, worst = 0;
        int over50 = 0;
        double lastCpu = threadCpuMs(), worstCpu = 0.0;
        const char *phase = "start";
        QTimer watchdog;
        watchdog.setInterval(5);
        QObject::connect(&watchdog, &QTimer::timeout, [&] {
            const qint64 now = clock.elapsed();
            const double cpu = threadCpuMs();
            worst = std::max(worst, now - last);
            worstCpu = std::max(worstCpu, cpu - lastCpu);
            over50 += now - last > 50;
            if (now - last > 15 && qEnvironmentVariableIsSet("QL_WATCHDOG_LOG"))
                std::fprintf(stderr, "gap %lld ms (GUI thread CPU %.1f ms) at %lld ms, %s\n",
                             static_cast<long long>(now - last), cpu - lastCpu,
                             static_cast<long long>(now), phase);
            last = now;
            lastCpu = cpu;
        });
        if (qEnvironmentVariableIsSet("QL_WATCHDOG_LOG")) {
            auto say = [&clock](const char *what) {
                return [&clock, what] {
                    std::fprintf(stderr, "  %lld ms: %s\n", static_cast<long long>(clock.elapsed()),
                                 what);
                };
            };
            QObject::connect(window.analysis(), &AnalysisController::reportReady, &window,
                             say("report ready"));
            QObject::connect(window.analysis(), &AnalysisController::latencyReady, &window,
                             say("latency ready"));
            QObject::connect(window.inspector(), &ql::ui::LayerInspector::inspected, &window,
                             say("inspected"));
            QObject::connect(window.inspector(), &ql::ui::LayerInspector::busyChanged, &window,
                             say("inspector busy changed"));
        }
        clock.start();
        watchdog.start();
        if (qEnvironmentVariableIsSet(
                "QL_WATCHDOG_LOG")) {  // to line up with `perf record -k mono`
            timespec t{};
            clock_gettime(CLOCK_MONOTONIC, &t);
            std::fprintf(stderr, "clock starts at CLOCK_MONOTONIC %lld.%09ld s\n",
                         static_cast<long long>(t.tv_sec), t.tv_nsec);
        }

        AnalysisSetup setup;
        setup.floatModel = floatModel;
        setup.quantModel = quantModel;
        setup.randomInputs = true;
        setup.randomCount = 32;
        setup.randomSeed = 1;
        setup.batch = 8;
        phase = "analysis";
        window.openPath(floatModel);
        window.analysis()->setSetup(setup);
        if (!waitIdle(window)) {
            state.SkipWithError("the analysis did not finish");
            return;
        }
        const qint64 analysisMs = clock.elapsed();
        const auto &layers = window.analysis()->report()->layers;
        const int n = int(layers.size());
        phase = "inspector";
        for (int i : {0, n / 4, n / 2, 3 * n / 4, n - 1}) {
            window.analysisPanel()->selectLayer(i);
            waitIdle(window);
        }
        phase = "toggles";
        std::vector<double> toggleMs, idleMs;
        QElapsedTimer toggle;
        QObject::connect(window.analysis(), &AnalysisController::reportReady, &window,
                         [&] { toggleMs.push_back(double(toggle.elapsed())); });
        for (int i : {0, n / 4, n / 2, 3 * n / 4, n - 1}) {
            toggle.start();
            window.analysis()->setLayerFp32(i, true);
            waitIdle(window);
            idleMs.push_back(double(toggle.elapsed()));
            window.analysis()->undoStack()->undo();
            waitIdle(window);
        }
        watchdog.stop();
        // Every other report is an undo's.
        std::vector<double> on;
        for (size_t i = 0; i < toggleMs.size(); i += 2) on.push_back(toggleMs[i]);
        std::sort(on.begin(), on.end());
        std::sort(idleMs.begin(), idleMs.end());
        state.counters["layers"] = n;
        state.counters["analysis_ms"] = double(analysisMs);
        state.counters["median_toggle_ms"] = on.empty() ? 0.0 : on[on.size() / 2];
        state.counters["median_toggle_idle_ms"] = idleMs[idleMs.size() / 2];
        state.counters["worst_gap_ms"] = double(worst);
        state.counters["worst_gap_cpu_ms"] = worstCpu;
        state.counters["gaps_over_50ms"] = over50;
    }
}

}  // namespace

BENCHMARK(GuiThreadWhileAnalysing)->Unit(benchmark::kMillisecond)->Iterations(1)->UseRealTime();

int main(int argc, char **argv) {
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM")) qputenv("QT_QPA_PLATFORM", "offscreen");
    QApplication app(argc, argv);
    benchmark::Initialize(&argc, argv);
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    return 0;
}
