#pragma once
// Owns "the analysis": the setup (models, quantizer options, evaluation inputs), the job that runs
// the session off the GUI thread, the user's fp32 layers with undo/redo, the SQNR threshold and
// the exports (skip-list, analysis JSON/CSV, re-quantized model). The main window wires views to
// it; the project controller saves and restores it.

#include <QObject>
#include <QString>

#include <map>
#include <optional>
#include <set>
#include <string>

#include "analysis/search/fp32_search.h"
#include "analysis/search/skip_list_dialects.h"
#include "analysis/session/layer_remedies.h"
#include "analysis_job.h"
#include "analysis_report.h"
#include "analysis_setup.h"
#include "core/status.h"

class QUndoStack;
class QJsonObject;

class AnalysisController : public QObject {
    Q_OBJECT
public:
    explicit AnalysisController(QObject *parent = nullptr);
    ~AnalysisController() override;

    const AnalysisSetup &setup() const { return m_setup; }
    // What the user chose per layer: kept in fp32, and the per-layer remedies (in-app
    // quantization only).
    struct LayerChoices {
        std::set<std::string> fp32;
        ql::analysis::LayerRemedies remedies;
    };

    // Replaces the setup; runs the analysis when it is complete (fp32 layers and remedies:
    // applied after the first run, e.g. from a project). Clears the undo history.
    // `remedies`: exactly these per-layer remedies (a project's; nullopt: the setup's AdaRound
    // and bias-correction choices decide, for every layer, and the first report says which).
    void setSetup(const AnalysisSetup &setup, const std::set<std::string> &fp32Layers = {},
                  const std::optional<ql::analysis::LayerRemedies> &remedies = std::nullopt);
    void setFloatModel(const QString &path);
    void setQuantModel(const QString &path);
    void setQuantizeInApp(const QStringList &calibrationPaths, const QuantizerSettings &settings);
    void setEvaluationFiles(const QStringList &paths, const QString &labels);
    void setRandomInputs(int count, quint64 seed);
    // Runs (again) with the current setup and fp32 layers.
    void rerun();
    void cancel();

    ql::ui::AnalysisJob *job() const { return m_job; }
    QUndoStack *undoStack() const { return m_undo; }
    ql::ui::ReportPtr report() const;
    bool isBusy() const;
    std::optional<std::pair<double, double>> latency() const { return m_latency; }
    // Engine threads of the running or last analysis (latency included).
    int threads() const { return m_threads; }

    // The fp32 layers the user asked for (float node names); the report follows when the job is
    // done.
    const std::set<std::string> &fp32Layers() const { return m_fp32; }
    // Undoable: one layer by name / report index, a whole set, reset (no fp32 or 16-bit layers),
    // the N worst.
    void setLayerFp32(const std::string &name, bool fp32);
    void setLayerFp32(int reportIndex, bool fp32);
    void setFp32Layers(const std::set<std::string> &layers, const QString &undoText);
    // A set the search measured: exactly these layers in fp32 or at 16 bits, no other layer
    // raised (as the search measured it), the other remedies kept. Undoable.
    void applySearchSet(ql::analysis::SearchPrecision precision,
                        const std::set<std::string> &layers, const QString &undoText);
    void resetToInt8();
    // The n int8 layers with the lowest isolated SQNR (cumulative when no isolated figure) join
    // the fp32 layers. Returns how many were added.
    int keepWorstInFp32(int n);
    std::set<std::string> worstLayers(int n) const;

    // The per-layer remedies the user asked for (float node names; in-app quantization only).
    const ql::analysis::LayerRemedies &layerRemedies() const { return m_remedies; }
    // What a project stores: the remedies once known exactly (from a report or a project),
    // nullopt while the setup's choices still decide.
    std::optional<ql::analysis::LayerRemedies> layerRemediesToSave() const;
    // The layers the user quantizes with 16 bits (and does not keep in fp32).
    std::vector<std::string> sixteenBitLayers() const;
    // Undoable: one remedy of one layer on or off (16 bits on: the layer leaves fp32).
    void setLayerRemedy(const std::string &name, ql::analysis::LayerRemedy remedy, bool on);

    double thresholdDb() const { return m_thresholdDb; }
    void setThresholdDb(double thresholdDb);

    // The fp32 search on the current analysis (after the running operation): searchProgress,
    // then searchReady or searchFailed. The answer is applied by setFp32Layers (undoable).
    void findFp32Set(const ql::ui::SearchRequest &request);

    // Exports; false with a one-line message.
    QJsonObject skipListJson() const;
    // The fp32 layers as a skip-list for a toolchain (analysis/search/skip_list_dialects.h); quantlens is
    // skipListJson().
    bool exportSkipList(const QString &path, ql::analysis::SkipListDialect dialect,
                        QString &error) const;
    bool exportAnalysisJson(const QString &path, QString &error) const;
    bool exportAnalysisCsv(const QString &path, QString &error) const;
    void exportQuantizedModel(const QString &path);  // async: job's exported / failed

    // Applies without an undo entry (the undo command's work).
    void applyLayerChoices(const LayerChoices &choices);

signals:
    void setupChanged();
    void analysisStarted();
    void reportReady(ql::ui::ReportPtr report);
    void latencyReady(double int8Ms, double fp32Ms);
    // One line, for the status bar and a message box.
    void failed(const QString &message, ql::ErrorKind kind);
    void exported(const QString &path);
    void busyChanged(bool busy);
    void progress(const QString &stage, int done, int total);
    void thresholdChanged(double thresholdDb);
    void fp32LayersChanged();
    void searchProgress(int evaluations, double bestFigure);
    void searchReady(ql::ui::SearchOutcomePtr outcome);
    void searchFailed(const QString &message, ql::ErrorKind kind);
    // Anything a project stores changed (dirty flag, autosave).
    void modified();

private:
    void start();
    bool writeFile(const QString &path, const QByteArray &bytes, QString &error) const;

    AnalysisSetup m_setup;
    AnalysisSetup m_goodSetup;  // the setup of the report on screen
    bool m_awaitingAnalysis = false;
    ql::ui::AnalysisJob *m_job;
    QUndoStack *m_undo;
    std::set<std::string> m_fp32;
    ql::analysis::LayerRemedies m_remedies;
    bool m_remediesKnown = false;  // m_remedies is the whole set (not only the setup's choices)
    // Isolated (or cumulative) SQNR of a layer when the user moved it to fp32: the skip-list's
    // reason.
    std::map<std::string, double> m_reasonDb;
    std::optional<std::pair<double, double>> m_latency;
    int m_threads = 0;
    double m_thresholdDb = ql::ui::kDefaultThresholdDb;
};
