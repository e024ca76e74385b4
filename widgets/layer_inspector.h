#pragma once
// The layer inspector: everything about the selected layer of a float / quantized model pair.
// Tabs: quantization parameters (tensors, and per output channel: weight scale and zero point,
// int32 bias, float weight range, channel weight SQNR), weight histogram (float vs dequantized),
// activation histogram (float vs quantized output on the evaluation batch), scatter of float vs
// quantized output values with y = x, per-channel weight ranges, per-sample SQNR distribution
// (from the report's cumulative comparison), and "explain one element".
//
// The inspection (both models run on the batch with taps) runs off the GUI thread with
// QtConcurrent; a newer request supersedes an older one (its result is dropped). While it runs
// the widget shows a busy bar and keeps the previous figures greyed out.
// Both models are prepared once per context (a LayerCaptureRunner, built by the first request's
// job, never on the GUI thread) and reused by every later layer of that context. The first
// request runs both models only up to its layer; then a background job runs them once on the
// whole batch and keeps every value (within the runner's budget), so that later layers only
// copy theirs. A new context with the same float graph (a toggle) shares the float half (its
// plan and kept values) and prepares and runs only the quantized model again.

#include <QFutureWatcher>
#include <QWidget>

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "analysis/explain/layer_inspection.h"
#include "analysis/pairing/layer_matching.h"
#include "analysis/suite/numeric_suite.h"
#include "capture_runners.h"
#include "ir/graph.h"
#include "ir/tensor.h"

class QCheckBox;
class QCustomPlot;
class QLabel;
class QProgressBar;
class QTabWidget;
class QTableWidget;

namespace ql::ui {

class ElementExplanationView;
class LayerChoicesBar;

// What the inspector reads; all shared and immutable (the analysis snapshot).
struct InspectorContext {
    std::shared_ptr<const Graph> floatGraph, quantGraph;
    std::shared_ptr<const std::map<std::string, Tensor>>
        batch;  // evaluation batch, graph input name -> tensor
    std::shared_ptr<const analysis::NumericSuiteReport> report;
    std::vector<analysis::LayerMatch> matches;  // matchLayers(floatGraph, quantGraph).matches
    analysis::LayerInspectionOptions options;   // bins, scatter points, int8 kernels
};

// The outcome of one inspection request.
struct InspectorOutcome {
    int row = -1;
    quint64 generation = 0;
    bool explainOnly = false;  // only `explanation` is new (a kept capture was explained again)
    std::optional<analysis::LayerInspection> inspection;
    std::optional<analysis::ElementExplanation> explanation;
    std::shared_ptr<const analysis::LayerCapture> capture;  // kept for element requests
    // The job built the context's runner (see CaptureRunners::Ticket::obtain); floatHalfReused:
    // sharing the previous context's float half.
    bool builtRunner = false;
    bool floatHalfReused = false;
    QString error;
};

class LayerInspector : public QWidget {
    Q_OBJECT
public:
    enum Tab {
        ParametersTab,
        WeightsTab,
        ActivationsTab,
        ScatterTab,
        ChannelsTab,
        SamplesTab,
        ExplainTab
    };

    explicit LayerInspector(QWidget *parent = nullptr);
    ~LayerInspector() override;

    // Clears the view; the next setLayer inspects in the new context.
    void setContext(InspectorContext context);
    const InspectorContext &context() const { return m_context; }

    int layer() const { return m_row; }
    bool isBusy() const;
    const std::optional<analysis::LayerInspection> &inspection() const { return m_inspection; }
    QString errorText() const { return m_error; }

    // Capture runners built so far (each prepares the models: folding, lowering, plans) and how
    // many of them reused the previous runner's float half; for tests and diagnostics.
    int captureRunnersBuilt() const { return m_runners.built(); }
    int floatHalvesReused() const { return m_runners.floatHalvesReused(); }
    // The current context's runner once a request built it (null before).
    std::shared_ptr<const analysis::LayerCaptureRunner> captureRunner() const {
        return m_runners.runner();
    }

    QTabWidget *tabs() const { return m_tabs; }
    QTableWidget *tensorTable() const { return m_tensorTable; }
    QTableWidget *channelTable() const { return m_channelTable; }
    QCustomPlot *weightPlot() const { return m_weightPlot; }
    QCustomPlot *activationPlot() const { return m_activationPlot; }
    QCustomPlot *scatterPlot() const { return m_scatterPlot; }
    QCustomPlot *channelPlot() const { return m_channelPlot; }
    QCustomPlot *samplePlot() const { return m_samplePlot; }
    ElementExplanationView *explanationView() const { return m_explain; }
    QCheckBox *logCountBox() const { return m_logCount; }
    // Keep in fp32 / AdaRound / bias correction for the layer shown (main window wires it).
    LayerChoicesBar *choicesBar() const { return m_choices; }
    QCheckBox *scatterErrorBox() const { return m_scatterError; }

public slots:
    // Inspects row `row` of the context's report (-1 clears). Asynchronous: see inspected().
    void setLayer(int row);
    // Explains one output element of the current layer (empty: the worst of the first sample).
    void explainElement(const std::vector<int64_t> &element);

signals:
    // A request finished and its figures are shown (also on error: see errorText()).
    void inspected(int row);
    void busyChanged(bool busy);

protected:
    void changeEvent(QEvent *event) override;

private:
    void request(int row, const std::vector<int64_t> &element, bool explainOnly = false);
    void onFinished();
    void showOutcome();
    void fillTables();
    void fillPlots();
    void setBusy(bool busy, const QString &what = {});
    const analysis::LayerReport *reportRow() const;

    InspectorContext m_context;
    int m_row = -1;
    quint64 m_generation = 0;
    std::optional<analysis::LayerInspection> m_inspection;
    // The last layer's capture: explaining another element reuses it instead of re-running both
    // models (it holds the layer's values on the batch; released with the next layer).
    std::shared_ptr<const analysis::LayerCapture> m_capture;
    CaptureRunners m_runners;  // the context's prepared models
    QString m_error;
    QFutureWatcher<InspectorOutcome> m_watcher;
    bool m_running = false;  // a job was started and its finished() not yet handled
    bool m_pending = false;  // a request waits for the running one to finish
    int m_pendingRow = -1;
    std::vector<int64_t> m_pendingElement;
    bool m_pendingExplainOnly = false;

    QLabel *m_title, *m_summary;
    LayerChoicesBar *m_choices;
    QProgressBar *m_busy;
    QTabWidget *m_tabs;
    QTableWidget *m_tensorTable, *m_channelTable;
    QCustomPlot *m_weightPlot, *m_activationPlot, *m_scatterPlot, *m_channelPlot, *m_samplePlot;
    QLabel *m_sampleCaption;
    QCheckBox *m_logCount, *m_scatterError;
    ElementExplanationView *m_explain;
};

}  // namespace ql::ui
