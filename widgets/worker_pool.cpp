#include "worker_pool.h"

#include <QThreadPool>

namespace ql::ui {

QThreadPool *workerPool() {
    // One analysis job, one inspection and a model load can run at once; the engine spreads
    // each over the cores itself.
    static QThreadPool *pool = [] {
        auto *p = new QThreadPool;  // lives as long as the process: jobs may outlive windows
        p->setMaxThreadCount(4);
        return p;
    }();
    return pool;
}

}  // namespace ql::ui
