// How long the graph view takes to show a model (issue 17: resnet50 <= 300 ms; vit_b_16 without
// freezing the window): from setGraph() on a shown GraphView to its layoutFinished, which covers
// the outline (hidden nodes, name-scope groups, the first collapsed set), sizing the boxes, dot's
// layout on a worker and building the scene. Counters: graphviz_ms (dot alone, on the worker),
// boxes (nodes and closed groups drawn), and gui_max_ms, the longest the GUI thread went without
// processing events meanwhile (a 1 ms timer's largest gap). "ExpandAll" lays out every node with no
// group collapsed: the worst case a user can ask for.
//
// Models: the demo, and torchvision exports from QL_MODELS_DIR (default /tmp/models, written by
// tests/tools/export_torchvision.py); missing ones are skipped.
//
// Measured: see README ("Graph view").

#include <benchmark/benchmark.h>

#include <QApplication>
#include <QElapsedTimer>
#include <QEventLoop>
#include <QFileInfo>
#include <QGraphicsView>
#include <QTimer>

#include <algorithm>
#include <memory>
#include <string>

#include "bench_support.h"
#include "graph_view.h"
#include "onnx_io/model_loader.h"

namespace {

std::shared_ptr<const ql::Graph> load(const std::string &path) {
    auto graph = ql::loadModel(path);
    if (!graph) return nullptr;
    return std::make_shared<const ql::Graph>(std::move(*graph));
}

std::string modelPath(const std::string &name) {
    if (name == "demo") return QL_DEMO_MODEL;
    return ql::bench::env("QL_MODELS_DIR", "/tmp/models") + "/" + name + ".onnx";
}

void showGraph(benchmark::State &state, const std::string &name, bool expandAll) {
    const std::string path = modelPath(name);
    if (!QFileInfo::exists(QString::fromStdString(path))) {
        state.SkipWithError((path + " missing").c_str());
        return;
    }
    auto graph = load(path);
    if (!graph) {
        state.SkipWithError(("cannot load " + path).c_str());
        return;
    }
    double graphvizMs = 0, guiMaxMs = 0;
    int boxes = 0;
    for (auto _ : state) {
        ql::ui::GraphView view;
        view.resize(1200, 900);
        view.show();
        QEventLoop loop;
        QObject::connect(&view, &ql::ui::GraphView::layoutFinished, &loop, &QEventLoop::quit);
        // The GUI thread's longest gap between two ticks of a 1 ms timer.
        QElapsedTimer tick;
        double gap = 0;
        QTimer heartbeat;
        heartbeat.setInterval(1);
        QObject::connect(&heartbeat, &QTimer::timeout, [&] {
            gap = std::max(gap, double(tick.nsecsElapsed()) / 1e6);
            tick.restart();
        });
        const auto start = ql::bench::Clock::now();
        tick.start();
        heartbeat.start();
        view.setGraph(graph);
        if (!view.isLaidOut()) loop.exec();
        if (expandAll) {
            view.expandAll();
            if (!view.isLaidOut()) loop.exec();
        }
        state.SetIterationTime(ql::bench::msSince(start) / 1000.0);
        heartbeat.stop();
        graphvizMs = view.lastLayoutMilliseconds();
        guiMaxMs = std::max(guiMaxMs, gap);
        boxes = int(view.outline().view(view.collapsedGroups()).items.size());
    }
    state.counters["graphviz_ms"] = graphvizMs;
    state.counters["gui_max_ms"] = guiMaxMs;
    state.counters["boxes"] = boxes;
}

}  // namespace

int main(int argc, char **argv) {
    QApplication app(argc, argv);
    for (const char *name : {"demo", "resnet50", "mobilenet_v2", "swin_t", "vit_b_16"}) {
        benchmark::RegisterBenchmark(("GraphView/" + std::string(name)).c_str(),
                                     [name](benchmark::State &s) { showGraph(s, name, false); })
            ->UseManualTime()
            ->Iterations(5)
            ->Unit(benchmark::kMillisecond);
        benchmark::RegisterBenchmark(("GraphView/" + std::string(name) + "/ExpandAll").c_str(),
                                     [name](benchmark::State &s) { showGraph(s, name, true); })
            ->UseManualTime()
            ->Iterations(1)
            ->Unit(benchmark::kMillisecond);
    }
    benchmark::Initialize(&argc, argv);
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    return 0;
}
