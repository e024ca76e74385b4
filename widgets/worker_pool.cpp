#include "worker_pool.h"

#include <QThreadPool>

#if defined(__linux__)
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>
#endif

namespace ql::ui {

QThreadPool *workerPool() {
    // One analysis job, one inspection, its value cache, a model load and a graph layout can run
    // at once; the engine spreads each over the cores itself.
    static QThreadPool *pool = [] {
        auto *p = new QThreadPool;  // lives as long as the process: jobs may outlive windows
        p->setMaxThreadCount(5);
        return p;
    }();
    return pool;
}

void lowerWorkerThreadPriority() {
    thread_local bool lowered = false;
    if (lowered) return;
    lowered = true;
#if defined(__linux__)
    // Threads this one starts later (OpenMP's team) inherit the value.
    const auto tid = static_cast<id_t>(syscall(SYS_gettid));
    (void)setpriority(PRIO_PROCESS, tid, getpriority(PRIO_PROCESS, tid) + 10);
#endif
}

}  // namespace ql::ui
