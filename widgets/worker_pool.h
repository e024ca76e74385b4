#pragma once
// Where our long jobs (analysis, inspection, model loading) run: runInBackground(f) runs f on our
// own thread pool at a lower CPU priority than the GUI thread.
//  * Not Qt's global pool: Qt 6 paints through that one too (QRasterPaintEngine splits fills and
//    line drawing into tasks on it and waits for them), so seconds-long jobs there held up
//    painting for as long as a job ran (2-4 s on resnet18, tests/bench/bench_gui_thread.cpp).
//  * Lower priority (nice +10 on Linux, where it is per thread): on a machine with fewer cores
//    than busy workers, the GUI thread otherwise waits its turn behind them for tens of ms.

#include <QtConcurrent/QtConcurrentRun>

#include <utility>

class QThreadPool;

namespace ql::ui {

QThreadPool *workerPool();
// Called on a worker thread: lowers its priority once (a no-op where that is not possible).
void lowerWorkerThreadPriority();

template <typename Function>
auto runInBackground(Function &&function) {
    return QtConcurrent::run(workerPool(), [f = std::forward<Function>(function)]() mutable {
        lowerWorkerThreadPriority();
        return f();
    });
}

}  // namespace ql::ui
