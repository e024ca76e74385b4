#include "calibration_lab_view.h"

#include <QApplication>
#include <QClipboard>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QMenu>
#include <QProgressBar>
#include <QShortcut>
#include <QSplitter>
#include <QTableView>
#include <QToolButton>
#include <QVBoxLayout>

#include "calibration_comparison_model.h"
#include "calibration_lab_chart.h"
#include "calibration_lab_text.h"
#include "calibration_run_model.h"
#include "layer_proxy_model.h"

namespace ql::ui {

namespace {

// The best run: highest score, then highest SQNR.
const CalibrationLabRun *bestRun(const CalibrationLabData &lab) {
    const CalibrationLabRun *best = nullptr;
    for (const CalibrationLabRun &run : lab.runs) {
        const auto score = lab.score(run);
        if (!score) continue;
        const auto bestScore = best ? lab.score(*best) : std::nullopt;
        if (!best || *score > *bestScore ||
            (*score == *bestScore && run.sqnrDb.value_or(-1e300) > best->sqnrDb.value_or(-1e300)))
            best = &run;
    }
    return best;
}

}  // namespace

CalibrationLabView::CalibrationLabView(QWidget *parent)
    : QWidget(parent),
      m_header(new QLabel(this)),
      m_chart(new CalibrationLabChart(this)),
      m_runModel(new CalibrationRunModel(this)),
      m_runProxy(new LayerProxyModel(this)),
      m_comparisonModel(new CalibrationComparisonModel(this)),
      m_comparisonProxy(new LayerProxyModel(this)),
      m_splitter(new QSplitter(Qt::Vertical, this)) {
    m_header->setObjectName(QStringLiteral("calibrationLabHeader"));
    m_header->setWordWrap(true);
    m_header->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_chart->setObjectName(QStringLiteral("calibrationLabChart"));
    m_chart->setMinimumHeight(180);
    m_runProxy->setSourceModel(m_runModel);
    m_comparisonProxy->setSourceModel(m_comparisonModel);

    auto *runPart = new QWidget(this);
    auto *runLayout = new QVBoxLayout(runPart);
    runLayout->setContentsMargins(0, 0, 0, 0);
    runLayout->setSpacing(2);
    runLayout->addWidget(
        new QLabel(tr("Runs (double-click one to open it as the analysis)"), runPart));
    m_runTable = makeTable(runPart);
    m_runTable->setObjectName(QStringLiteral("calibrationRunTable"));
    m_runTable->setModel(m_runProxy);
    m_runTable->setContextMenuPolicy(Qt::CustomContextMenu);
    runLayout->addWidget(m_runTable, 1);

    auto *comparisonPart = new QWidget(this);
    auto *comparisonLayout = new QVBoxLayout(comparisonPart);
    comparisonLayout->setContentsMargins(0, 0, 0, 0);
    comparisonLayout->setSpacing(2);
    comparisonLayout->addWidget(
        new QLabel(tr("Paired comparisons on the same evaluation samples"), comparisonPart));
    m_comparisonTable = makeTable(comparisonPart);
    m_comparisonTable->setObjectName(QStringLiteral("calibrationComparisonTable"));
    m_comparisonTable->setModel(m_comparisonProxy);
    m_comparisonTable->horizontalHeader()->setStretchLastSection(true);
    comparisonLayout->addWidget(m_comparisonTable, 1);

    m_splitter->setObjectName(QStringLiteral("calibrationLabSplitter"));
    m_splitter->addWidget(m_chart);
    m_splitter->addWidget(runPart);
    m_splitter->addWidget(comparisonPart);
    m_splitter->setStretchFactor(0, 3);
    m_splitter->setStretchFactor(1, 2);
    m_splitter->setStretchFactor(2, 1);
    m_splitter->setSizes({440, 260, 160});  // the chart first: the tables scroll
    m_splitter->setChildrenCollapsible(false);

    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addWidget(m_header);
    layout->addWidget(makeProgressRow());
    layout->addWidget(m_splitter, 1);

    auto activate = [this](const QModelIndex &index) {
        if (index.isValid())
            emit runActivated(index.data(CalibrationRunModel::RunIdRole).toString());
    };
    connect(m_runTable, &QTableView::doubleClicked, this, activate);
    for (const QKeySequence &key : {QKeySequence(Qt::Key_Return), QKeySequence(Qt::Key_Enter)}) {
        auto *shortcut = new QShortcut(key, m_runTable, nullptr, nullptr, Qt::WidgetShortcut);
        connect(shortcut, &QShortcut::activated, this,
                [this, activate] { activate(m_runTable->currentIndex()); });
    }
    connect(m_runTable, &QWidget::customContextMenuRequested, this,
            &CalibrationLabView::showRunMenu);
    connect(m_chart, &CalibrationLabChart::runClicked, this, &CalibrationLabView::selectRun);
    connect(m_chart, &CalibrationLabChart::runActivated, this, &CalibrationLabView::runActivated);
    setLab({});
}

QTableView *CalibrationLabView::makeTable(QWidget *parent) {
    auto *table = new QTableView(parent);
    table->setSortingEnabled(true);
    table->setSelectionBehavior(QAbstractItemView::SelectRows);
    table->setSelectionMode(QAbstractItemView::SingleSelection);
    table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    table->setAlternatingRowColors(true);
    table->verticalHeader()->hide();
    table->verticalHeader()->setDefaultSectionSize(table->fontMetrics().height() + 6);
    table->horizontalHeader()->setSortIndicatorShown(true);
    table->horizontalHeader()->setSortIndicator(-1, Qt::AscendingOrder);  // plan order at first
    return table;
}

QWidget *CalibrationLabView::makeProgressRow() {
    m_progressRow = new QWidget(this);
    m_progressRow->setObjectName(QStringLiteral("calibrationLabProgressRow"));
    auto *row = new QHBoxLayout(m_progressRow);
    row->setContentsMargins(0, 0, 0, 0);
    m_progressText = new QLabel(m_progressRow);
    m_progress = new QProgressBar(m_progressRow);
    m_progress->setObjectName(QStringLiteral("calibrationLabProgress"));
    m_progress->setRange(0, 0);
    m_progress->setMaximumWidth(260);
    m_progress->setTextVisible(false);
    m_cancel = new QToolButton(m_progressRow);
    m_cancel->setObjectName(QStringLiteral("calibrationLabCancel"));
    m_cancel->setText(tr("Cancel"));
    m_cancel->setToolTip(tr("Stop after the current run; the finished runs stay"));
    connect(m_cancel, &QToolButton::clicked, this, &CalibrationLabView::cancelRequested);
    row->addWidget(m_progressText, 1);
    row->addWidget(m_progress);
    row->addWidget(m_cancel);
    m_progressRow->hide();
    return m_progressRow;
}

void CalibrationLabView::setLab(const QJsonObject &lab) {
    m_json = lab;
    m_lab = std::make_shared<const CalibrationLabData>(parseCalibrationLab(lab));
    m_runModel->setLab(m_lab);
    m_comparisonModel->setLab(m_lab);
    m_chart->setLab(m_lab);
    m_runTable->resizeColumnsToContents();
    m_comparisonTable->resizeColumnsToContents();
    updateHeader();
}

void CalibrationLabView::setRunning(bool running) {
    m_running = running;
    updateHeader();
    m_progressRow->setVisible(running);
    m_cancel->setEnabled(running);
    if (running) {
        m_progress->setRange(0, 0);
        m_progressText->setText(tr("Starting the calibration lab…"));
    }
}

void CalibrationLabView::setProgress(const QString &stage, int done, int total, double etaSeconds) {
    m_progress->setRange(0, total > 0 ? total : 0);
    if (total > 0) m_progress->setValue(done);
    QString text = total > 0 ? tr("%1: %2 of %3").arg(stage).arg(done).arg(total)
                             : stage + QStringLiteral("…");
    const QString left = formatTimeLeft(etaSeconds);
    if (!left.isEmpty()) text += QStringLiteral(" — ") + left;
    m_progressText->setText(text);
}

void CalibrationLabView::selectRun(const QString &id) {
    const int row = m_runModel->rowOf(id);
    if (row < 0) return;
    const QModelIndex index = m_runProxy->mapFromSource(m_runModel->index(row, 0));
    m_runTable->setCurrentIndex(index);
    m_runTable->scrollTo(index);
}

QString CalibrationLabView::headerText() const {
    return m_header->text();
}

QString CalibrationLabView::progressText() const {
    return m_progressText->text();
}

void CalibrationLabView::showRunMenu(const QPoint &position) {
    const QModelIndex index = m_runTable->indexAt(position);
    if (!index.isValid()) return;
    const QString id = index.data(CalibrationRunModel::RunIdRole).toString();
    const CalibrationLabRun *run = m_lab->findRun(id);
    auto *menu = new QMenu(this);
    menu->setAttribute(Qt::WA_DeleteOnClose);
    menu->addAction(tr("Open %1 as the Analysis").arg(id), this,
                    [this, id] { emit runActivated(id); });
    QAction *copy = menu->addAction(tr("Copy the quantize Command"), this,
                                    [run] { QApplication::clipboard()->setText(run->reproduce); });
    copy->setEnabled(run && !run->reproduce.isEmpty());
    menu->popup(m_runTable->viewport()->mapToGlobal(position));
}

void CalibrationLabView::updateHeader() {
    const CalibrationLabData &lab = *m_lab;
    if (lab.isEmpty()) {
        m_header->setText(m_running ? tr("The calibration lab is running; its runs appear here "
                                         "when it finishes or is cancelled.")
                                    : tr("No calibration lab yet. Analysis > Calibration Lab… "
                                         "compares calibration methods, sizes and repeats, and "
                                         "tells a real difference from noise."));
        return;
    }
    QStringList parts;
    if (lab.labelled)
        parts << tr("Float model accuracy %1")
                     .arg(formatShareCi(lab.floatAccuracy, lab.floatAccuracyCi));
    else
        parts << tr("No labels: every run is scored by its top-1 agreement with the float model");
    if (lab.evaluationRows > 0)
        parts << tr("%n evaluation sample(s)", nullptr, int(lab.evaluationRows));
    parts << tr("%1 of %2 runs").arg(lab.runs.size()).arg(lab.runsPlanned);
    if (const CalibrationLabRun *best = bestRun(lab))
        parts << tr("best: %1, %2")
                     .arg(best->id, formatShareCi(lab.score(*best), lab.scoreCi(*best)));
    if (!lab.complete) parts << tr("cancelled");
    m_header->setText(parts.join(QStringLiteral(" · ")));
}

}  // namespace ql::ui
