#pragma once
// The layer inspector's prepared models: one analysis::LayerCaptureRunner per set of models,
// built by the first inspection job (never on the GUI thread) and reused by the later ones. New
// models with the same float graph (a toggle) share the previous runner's float half. After the
// first capture a background job keeps the batch's values, so that later layers only copy
// theirs. Runners are freed off the GUI thread (freeing one with its values takes up to ~50 ms).
// A GUI-thread object; a Ticket is what one job takes along.

#include <QtGlobal>

#include <atomic>
#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "analysis/explain/layer_capture.h"
#include "core/status.h"
#include "ir/graph.h"
#include "ir/tensor.h"

namespace ql::ui {

class CaptureRunners {
    struct Mailbox;

public:
    using RunnerPtr = std::shared_ptr<const analysis::LayerCaptureRunner>;

    CaptureRunners();
    ~CaptureRunners();  // stops the keep job; runners are freed on a worker
    CaptureRunners(const CaptureRunners &) = delete;
    CaptureRunners &operator=(const CaptureRunners &) = delete;

    // The models of a new context; keeps what stays valid for them.
    void setModels(std::shared_ptr<const Graph> floatGraph, std::shared_ptr<const Graph> quantGraph,
                   const analysis::LayerCaptureOptions &options);

    // What one job takes along.
    struct Ticket {
        RunnerPtr runner, donor;  // donor: the previous models' runner on the same float graph
        std::shared_ptr<Mailbox> mailbox;
        quint64 modelsId = 0;
        // On the worker: the runner for the models, built when there was none (`built`; with
        // `floatReused`: sharing the donor's float half) and handed over for adopted().
        Result<RunnerPtr> obtain(const Graph &floatGraph, const Graph &quantGraph,
                                 const analysis::LayerCaptureOptions &options, bool &built,
                                 bool &floatReused) const;
    };
    Ticket ticket() const;

    // On the GUI thread after a job whose obtain() built a runner: adopts it if it is for the
    // current models. Then, once per setModels, starts keeping the batch's values.
    void jobFinished(bool built, bool floatReused,
                     const std::shared_ptr<const std::map<std::string, Tensor>> &batch);

    RunnerPtr runner() const { return m_runner; }
    int built() const { return m_built; }
    int floatHalvesReused() const { return m_floatReused; }

private:
    std::shared_ptr<const Graph> m_floatGraph, m_quantGraph;
    analysis::LayerCaptureOptions m_options;
    quint64 m_modelsId = 0;
    RunnerPtr m_runner, m_donor;
    std::shared_ptr<Mailbox> m_mailbox;
    int m_built = 0, m_floatReused = 0;
    bool m_keepRequested = false;
    std::shared_ptr<std::atomic<bool>> m_cancelKeep;  // set: the running keep job stops
};

}  // namespace ql::ui
