#include "capture_runners.h"

#include "worker_pool.h"

namespace ql::ui {
namespace {

// Drops a reference off the GUI thread.
void releaseLater(CaptureRunners::RunnerPtr &runner) {
    if (!runner) return;
    (void)runInBackground([r = std::move(runner)]() mutable { r.reset(); });
    runner.reset();
}

}  // namespace

// A job hands a runner it built over here, not in its outcome: the future keeps outcomes alive,
// and the last reference would then go on the GUI thread.
struct CaptureRunners::Mailbox {
    std::mutex mutex;
    RunnerPtr runner;
    quint64 modelsId = 0;
};

CaptureRunners::CaptureRunners() : m_mailbox(std::make_shared<Mailbox>()) {}

CaptureRunners::~CaptureRunners() {
    if (m_cancelKeep) *m_cancelKeep = true;
    releaseLater(m_runner);
    releaseLater(m_donor);
    std::lock_guard<std::mutex> lock(m_mailbox->mutex);
    releaseLater(m_mailbox->runner);  // built by a job whose outcome was never read
}

void CaptureRunners::setModels(std::shared_ptr<const Graph> floatGraph,
                               std::shared_ptr<const Graph> quantGraph,
                               const analysis::LayerCaptureOptions &options) {
    m_keepRequested = false;  // maybe another batch
    const bool sameOptions = m_options.precision == options.precision &&
                             m_options.int8Kernels == options.int8Kernels &&
                             m_options.threads == options.threads &&
                             m_options.valueCacheBytes == options.valueCacheBytes;
    const bool sameFloat = floatGraph && floatGraph == m_floatGraph;
    m_options = options;
    if (sameFloat && quantGraph == m_quantGraph && sameOptions) return;
    ++m_modelsId;  // a runner built by a running job is for the old models
    if (!sameFloat) {
        if (m_cancelKeep) *m_cancelKeep = true;  // values of models that are gone
        releaseLater(m_donor);
    } else if (m_runner) {
        // A toggle: the float half of the prepared models stays valid.
        releaseLater(m_donor);
        m_donor = std::move(m_runner);
    }
    releaseLater(m_runner);
    m_floatGraph = std::move(floatGraph);
    m_quantGraph = std::move(quantGraph);
}

CaptureRunners::Ticket CaptureRunners::ticket() const {
    Ticket t;
    t.runner = m_runner;
    t.donor = m_donor;
    t.mailbox = m_mailbox;
    t.modelsId = m_modelsId;
    return t;
}

Result<CaptureRunners::RunnerPtr> CaptureRunners::Ticket::obtain(
    const Graph &floatGraph, const Graph &quantGraph, const analysis::LayerCaptureOptions &options,
    bool &built, bool &floatReused) const {
    built = floatReused = false;
    if (runner) return runner;
    auto made = donor ? donor->withQuantGraph(quantGraph, options)
                      : analysis::LayerCaptureRunner::create(floatGraph, quantGraph, options);
    if (!made) return made.status();
    RunnerPtr use = std::move(*made);
    built = true;
    floatReused = donor && use->sharesFloatHalfWith(*donor);
    std::lock_guard<std::mutex> lock(mailbox->mutex);
    mailbox->runner = use;
    mailbox->modelsId = modelsId;
    return use;
}

void CaptureRunners::jobFinished(
    bool built, bool floatReused,
    const std::shared_ptr<const std::map<std::string, Tensor>> &batch) {
    if (built) {
        ++m_built;
        m_floatReused += floatReused ? 1 : 0;
        RunnerPtr runner;
        quint64 builtFor = 0;
        {
            std::lock_guard<std::mutex> lock(m_mailbox->mutex);
            runner = std::move(m_mailbox->runner);
            m_mailbox->runner.reset();
            builtFor = m_mailbox->modelsId;
        }
        if (builtFor == m_modelsId && !m_runner) {
            m_runner = std::move(runner);  // the next jobs for these models reuse it
            releaseLater(m_donor);
        }
        releaseLater(runner);  // built for models that are gone
    }
    if (m_runner && batch && !m_keepRequested) {
        // While the user looks at the first layer: both models run once on the whole batch and
        // the runner keeps the values, so that the next layers are copied, not run.
        m_keepRequested = true;
        m_cancelKeep = std::make_shared<std::atomic<bool>>(false);
        (void)runInBackground([runner = m_runner, batch, cancel = m_cancelKeep] {
            (void)runner->keepValues(*batch, [cancel] { return cancel->load(); });
        });
    }
}

}  // namespace ql::ui
