#pragma once
// The thread pool our long jobs (analysis, inspection, model loading) run on. Not Qt's global
// pool: Qt 6 paints through that one too (QRasterPaintEngine splits fills and line drawing into
// tasks on it and waits for them), so seconds-long jobs there held up painting on the GUI thread
// for as long as a job ran (measured 2-4 s on resnet18, tests/bench/bench_gui_thread.cpp).

class QThreadPool;

namespace ql::ui {

QThreadPool *workerPool();

}  // namespace ql::ui
