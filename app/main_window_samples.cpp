// The worst-samples strip under the analysis, and the analysis of one sample alone: a click on a
// tile runs the numeric suite on that sample (the job's Sample operation); the chart, table,
// graph and inspector then show its own figures under a bar that leads back to all samples.
#include <QLabel>
#include <QVBoxLayout>

#include "analysis_controller.h"
#include "analysis_panel.h"
#include "layer_inspector.h"
#include "main_window.h"
#include "sample_view_bar.h"
#include "worst_sample_strip.h"

QWidget *MainWindow::createSamplesPane(QWidget *analysis) {
    auto *pane = new QWidget(this);
    pane->setObjectName(QStringLiteral("analysisMain"));
    m_sampleBar = new ql::ui::SampleViewBar(pane);
    m_sampleBar->hide();
    m_worstStrip = new ql::ui::WorstSampleStrip(pane);
    m_worstStrip->setObjectName(QStringLiteral("worstSampleStrip"));
    m_worstStrip->hide();
    auto *layout = new QVBoxLayout(pane);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(2);
    layout->addWidget(m_sampleBar);
    layout->addWidget(analysis, 1);
    layout->addWidget(m_worstStrip);
    connect(m_worstStrip, &ql::ui::WorstSampleStrip::sampleActivated, this,
            [this](qint64 index) { showSample(index); });
    connect(m_sampleBar, &ql::ui::SampleViewBar::backRequested, this, &MainWindow::showAllSamples);
    connect(m_analysis->job(), &ql::ui::AnalysisJob::sampleViewReady, this,
            &MainWindow::onSampleViewReady);
    return pane;
}

void MainWindow::showSample(int64_t index) {
    m_sampleBar->showPending(index);
    m_analysis->job()->requestSampleView(index);
}

std::optional<int64_t> MainWindow::shownSample() const {
    if (!m_sampleView) return std::nullopt;
    return m_sampleView->index;
}

void MainWindow::showWorstSamples() {
    m_sampleBar->hide();
    const auto &worst = m_analysis->job()->models().worst;
    if (!worst || worst->samples.empty()) {
        m_worstStrip->clear();
        m_worstStrip->hide();
        return;
    }
    m_worstStrip->setData(*worst);
    m_worstStrip->setCurrentSample(std::nullopt);
    m_worstStrip->show();
}

void MainWindow::onSampleViewReady(const ql::ui::SampleViewPtr &view) {
    // A toggle or new analysis that finished meanwhile has the last word.
    if (m_sampleBar->isHidden()) return;
    m_sampleView = view;
    showInPanel(view->report, view->inputs);
    m_sampleBar->showSample(view->index, m_analysis->job()->models().worst.get());
    m_worstStrip->setCurrentSample(view->index);
    m_status->setText(tr("Showing sample #%1 alone").arg(view->index));
}

void MainWindow::showAllSamples() {
    const ql::ui::ReportPtr report = m_analysis->report();
    m_sampleView.reset();
    m_sampleBar->hide();
    m_worstStrip->setCurrentSample(std::nullopt);
    if (report) showInPanel(report, m_analysis->job()->models().batch);
}

void MainWindow::showInPanel(const ql::ui::ReportPtr &report,
                             std::shared_ptr<const std::map<std::string, ql::Tensor>> batch) {
    const int layer = m_analysisPanel->currentLayer();
    setInspectorContext(report, std::move(batch));
    m_analysisPanel->setReport(report);
    m_analysisPanel->selectLayer(layer >= 0 && layer < int(report->layers.size()) ? layer : 0);
}
