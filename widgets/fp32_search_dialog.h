#pragma once
// Edit > Find fp32 Set…: the fp32 search from the GUI. The user picks a target (output SQNR,
// top-1 agreement or, with labels, accuracy drop), an objective (fewest layers or fastest int8
// plan), what a chosen layer becomes (fp32, 16 bits or either: 16 bits need in-app
// quantization), a holdout and a budget; the search runs on the analysis job (progress with the
// best figure so far, Cancel). The answer is listed with how it was found, the holdout's figure
// and the Pareto front of the timed sets; "Apply" (or a click on a point of the front) asks for
// that set, in fp32 or at 16 bits, in one undoable step. Non-modal: the analysis stays usable
// beside it.

#include <QDialog>

#include <set>
#include <string>

#include "analysis_job.h"

class QComboBox;
class QDoubleSpinBox;
class QLabel;
class QListWidget;
class QProgressBar;
class QPushButton;
class QSpinBox;

namespace ql::ui {

class Fp32ParetoChart;

class Fp32SearchDialog : public QDialog {
    Q_OBJECT
public:
    explicit Fp32SearchDialog(QWidget *parent = nullptr);

    // What the analysis offers: labels (the accuracy-drop target), its evaluation batches (a
    // holdout needs two) and 16-bit layers (in-app quantization).
    void setAnalysis(bool labelled, int batches, bool sixteenBits = false);
    SearchRequest request() const;

    void showStarted();
    void showProgress(int evaluations, double bestFigure);
    void showOutcome(SearchOutcomePtr outcome);
    void showFailure(const QString &message, bool cancelled);
    // The set a click or Apply asked for last was applied (shown under the chart).
    void showApplied(ql::analysis::SearchPrecision precision, int layers);

    SearchOutcomePtr outcome() const { return m_outcome; }
    Fp32ParetoChart *chart() const { return m_chart; }

signals:
    void searchRequested(const ql::ui::SearchRequest &request);
    void cancelRequested();
    void applyRequested(ql::analysis::SearchPrecision precision,
                        const std::set<std::string> &layers, const QString &description);

private:
    void onMetricChanged();
    void setRunning(bool running);
    void applyParetoPoint(int index);
    QString summaryText(const SearchOutcome &outcome) const;

    QComboBox *m_metric, *m_objective, *m_raiseTo;
    QDoubleSpinBox *m_target;
    QSpinBox *m_holdout, *m_maxEvaluations;
    QPushButton *m_search, *m_cancel, *m_apply;
    QProgressBar *m_progress;
    QLabel *m_progressLabel, *m_summary, *m_applied;
    QListWidget *m_layers;
    Fp32ParetoChart *m_chart;
    SearchOutcomePtr m_outcome;
    analysis::SearchMetric m_runningMetric = analysis::SearchMetric::Sqnr;
    bool m_labelled = false;
    int m_batches = 0;
};

}  // namespace ql::ui
