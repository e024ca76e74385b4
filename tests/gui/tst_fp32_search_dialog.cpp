// Edit > Find fp32 Set… on the demo: the search runs on the analysis job and leaves the analysis
// as it was; its answer is the one the engine's search gives on a session the test makes itself;
// Apply and a click on a point of the Pareto front set the fp32 layers in one undoable step each;
// Cancel loses nothing; a holdout is measured; the skip-list export writes every dialect. On the
// demo quantized in the app, the search may quantize the chosen layers with 16 bits instead: both
// kinds of set reach the front (diamonds for 16 bits) and applying a 16-bit set makes those layers
// 16-bit in one undoable step; on the demo's int8 file 16 bits are offered disabled.

#include <qcustomplot.h>
#include <QAction>
#include <QComboBox>
#include <QDir>
#include <QDoubleSpinBox>
#include <QElapsedTimer>
#include <QFile>
#include <QLabel>
#include <QListWidget>
#include <QPushButton>
#include <QSignalSpy>
#include <QSpinBox>
#include <QStandardItemModel>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>
#include <QThread>
#include <QUndoStack>

#include "analysis/search/fp32_search.h"
#include "analysis_controller.h"
#include "analysis_job.h"
#include "fp32_pareto_chart.h"
#include "fp32_search_dialog.h"
#include "main_window.h"
#include "main_window_wait.h"
#include "onnx_io/model_loader.h"

namespace {

ql::ui::Fp32SearchDialog *openDialog(MainWindow &window) {
    QAction *action = window.findChild<QAction *>(QStringLiteral("actionFindFp32Set"));
    if (!action || !action->isEnabled()) return nullptr;
    if (action->shortcut() != QKeySequence(QStringLiteral("Ctrl+F"))) return nullptr;
    action->trigger();
    return window.searchDialog();
}

// Clicks Search and waits for the outcome (null when the search failed or was cancelled).
ql::ui::SearchOutcomePtr runSearch(MainWindow &window, ql::ui::Fp32SearchDialog *dialog) {
    QSignalSpy ready(window.analysis(), &AnalysisController::searchReady);
    QSignalSpy failed(window.analysis(), &AnalysisController::searchFailed);
    QTest::mouseClick(dialog->findChild<QPushButton *>(QStringLiteral("searchButton")),
                      Qt::LeftButton);
    QElapsedTimer timer;
    timer.start();
    while (ready.isEmpty() && failed.isEmpty() && timer.elapsed() < kAnalysisTimeoutMs) QTest::qWait(20);
    return ready.isEmpty() ? nullptr : dialog->outcome();
}

}  // namespace

class TestFp32SearchDialog : public QObject {
    Q_OBJECT
private slots:
    void initTestCase();
    void searchLeavesTheAnalysisAndApplyIsUndoable();
    void cancelLosesNothing();
    void holdoutIsMeasured();
    void skipListInEveryDialect();
    void sixteenBitsOnAnInAppAnalysis();

private:
    MainWindow::Options m_options{false, false, false};
    ql::analysis::SearchResult m_direct;  // sqnr:35 on a session of the test's own
};

void TestFp32SearchDialog::initTestCase() {
    QStandardPaths::setTestModeEnabled(true);
    const QString demo = QFileInfo(QL_DEMO_MODEL).absolutePath();
    auto floatGraph = ql::loadModel((demo + "/fashion_cnn.onnx").toStdString());
    auto quantGraph = ql::loadModel((demo + "/fashion_cnn_int8.onnx").toStdString());
    QVERIFY(floatGraph && quantGraph);
    auto data = ql::analysis::evaluationDataFromFiles(*floatGraph,
                                                      {(demo + "/samples.npy").toStdString()}, 16);
    QVERIFY(data);
    ql::analysis::SessionOptions options;
    options.suite.threads = std::max(1, QThread::idealThreadCount() - 1);
    auto session =
        ql::analysis::AnalysisSession::create(*floatGraph, *quantGraph, std::move(*data), options);
    QVERIFY(session);
    ql::analysis::SearchOptions search;
    search.target = ql::analysis::parseSearchTarget("sqnr:35").value();
    auto result = ql::analysis::searchFp32Layers(**session, search);
    QVERIFY(result && result->reached);
    m_direct = *result;
}

void TestFp32SearchDialog::searchLeavesTheAnalysisAndApplyIsUndoable() {
    MainWindow window(m_options);
    window.show();
    window.openDemo();
    QVERIFY(waitIdle(window));
    const double before = window.analysis()->report()->outputs.at(0).sqnrDb;
    const int undoBefore = window.analysis()->undoStack()->count();
    ql::ui::Fp32SearchDialog *dialog = openDialog(window);
    QVERIFY(dialog && dialog->isVisible());
    // The demo has labels: the accuracy-drop target is offered; 4 batches: a holdout too.
    auto *metric = dialog->findChild<QComboBox *>(QStringLiteral("metricCombo"));
    auto *items = qobject_cast<QStandardItemModel *>(metric->model());
    QVERIFY(items && items->item(2)->isEnabled());
    QVERIFY(dialog->findChild<QSpinBox *>(QStringLiteral("holdoutSpin"))->isEnabled());
    QCOMPARE(dialog->request().options.target.value, 35.0);

    ql::ui::SearchOutcomePtr outcome = runSearch(window, dialog);
    QVERIFY(outcome);
    const auto &r = outcome->result;
    QVERIFY(r.reached);
    QCOMPARE(r.layers, m_direct.layers);
    QVERIFY(std::abs(r.figure - m_direct.figure) < 1e-6);
    QCOMPARE(r.evaluations.size(), m_direct.evaluations.size());
    QVERIFY(waitIdle(window));
    // The analysis is as it was: same layers, same figures.
    QVERIFY(window.analysis()->fp32Layers().empty());
    QCOMPARE(window.analysis()->report()->outputs.at(0).sqnrDb, before);
    QCOMPARE(window.analysis()->undoStack()->count(), undoBefore);
    // The dialog lists the set and says how it was found.
    auto *list = dialog->findChild<QListWidget *>(QStringLiteral("layerList"));
    QCOMPARE(list->count(), int(r.layers.size()));
    const QString summary = dialog->findChild<QLabel *>(QStringLiteral("summaryLabel"))->text();
    QVERIFY2(summary.contains(QStringLiteral("Every smaller set was measured")),
             qPrintable(summary));
    QCOMPARE(dialog->chart()->pointCount(), int(r.pareto.size()));
    QVERIFY(r.pareto.size() >= 2);

    // Apply: one undoable step, the report follows with the search's figure.
    QTest::mouseClick(dialog->findChild<QPushButton *>(QStringLiteral("applyButton")),
                      Qt::LeftButton);
    QVERIFY(waitIdle(window));
    const std::set<std::string> answer(r.layers.begin(), r.layers.end());
    QCOMPARE(window.analysis()->fp32Layers(), answer);
    QCOMPARE(window.analysis()->undoStack()->count(), undoBefore + 1);
    QVERIFY(std::abs(window.analysis()->report()->outputs.at(0).sqnrDb - r.figure) < 1e-6);

    // A click on another point of the front applies its set.
    int other = -1;
    for (int i = 0; i < int(r.pareto.size()); ++i)
        if (r.pareto[size_t(i)].layers != r.layers &&
            (other < 0 || !r.pareto[size_t(i)].layers.empty()))
            other = i;
    QVERIFY(other >= 0);
    QCustomPlot *plot = dialog->chart()->plot();
    plot->replot();
    QTest::mousePress(plot, Qt::LeftButton, {}, dialog->chart()->pixelOf(other));
    QVERIFY(waitIdle(window));
    const auto &point = r.pareto[size_t(other)];
    QCOMPARE(window.analysis()->fp32Layers(),
             std::set<std::string>(point.layers.begin(), point.layers.end()));
    QCOMPARE(window.analysis()->undoStack()->count(), undoBefore + 2);
    QVERIFY(std::abs(window.analysis()->report()->outputs.at(0).sqnrDb - point.figure) < 1e-6);

    window.analysis()->undoStack()->undo();
    QVERIFY(waitIdle(window));
    QCOMPARE(window.analysis()->fp32Layers(), answer);
    window.analysis()->undoStack()->undo();
    QVERIFY(waitIdle(window));
    QVERIFY(window.analysis()->fp32Layers().empty());
    QCOMPARE(window.analysis()->report()->outputs.at(0).sqnrDb, before);
}

void TestFp32SearchDialog::cancelLosesNothing() {
    MainWindow window(m_options);
    window.show();
    window.openDemo();
    QVERIFY(waitIdle(window));
    std::set<std::string> start{m_direct.layers.front()};
    window.analysis()->setFp32Layers(start, QStringLiteral("one layer"));
    QVERIFY(waitIdle(window));
    const double before = window.analysis()->report()->outputs.at(0).sqnrDb;
    ql::ui::Fp32SearchDialog *dialog = openDialog(window);
    QVERIFY(dialog);
    QSignalSpy ready(window.analysis(), &AnalysisController::searchReady);
    QSignalSpy failed(window.analysis(), &AnalysisController::searchFailed);
    QTest::mouseClick(dialog->findChild<QPushButton *>(QStringLiteral("searchButton")),
                      Qt::LeftButton);
    auto *cancel = dialog->findChild<QPushButton *>(QStringLiteral("cancelButton"));
    QVERIFY(cancel->isEnabled());
    QTest::mouseClick(cancel, Qt::LeftButton);
    QVERIFY(waitIdle(window));
    // Whether the worker saw Cancel before it finished or not, the analysis is as it was.
    QCOMPARE(ready.size() + failed.size(), 1);
    if (!failed.isEmpty())
        QCOMPARE(failed.first().at(1).value<ql::ErrorKind>(), ql::ErrorKind::Cancelled);
    QCOMPARE(window.analysis()->fp32Layers(), start);
    QCOMPARE(window.analysis()->report()->outputs.at(0).sqnrDb, before);
    QVERIFY(dialog->findChild<QPushButton *>(QStringLiteral("searchButton"))->isEnabled());
    qInfo("cancel seen by the worker: %s", failed.isEmpty() ? "no (it had finished)" : "yes");
}

void TestFp32SearchDialog::holdoutIsMeasured() {
    MainWindow window(m_options);
    window.show();
    window.openDemo();
    QVERIFY(waitIdle(window));
    ql::ui::Fp32SearchDialog *dialog = openDialog(window);
    QVERIFY(dialog);
    dialog->findChild<QSpinBox *>(QStringLiteral("holdoutSpin"))->setValue(25);
    ql::ui::SearchOutcomePtr outcome = runSearch(window, dialog);
    QVERIFY2(outcome && outcome->holdout,
             qPrintable(dialog->findChild<QLabel *>(QStringLiteral("progressLabel"))->text()));
    QCOMPARE(outcome->holdout->samples, int64_t(16));  // the last of the 4 batches of 16
    QCOMPARE(outcome->holdout->met, outcome->holdout->figure >= 35.0);
    QVERIFY(outcome->holdout->figure > 20.0);
    const QString summary = dialog->findChild<QLabel *>(QStringLiteral("summaryLabel"))->text();
    QVERIFY2(summary.contains(QStringLiteral("held-out")), qPrintable(summary));
    QVERIFY(window.analysis()->fp32Layers().empty());
}

void TestFp32SearchDialog::skipListInEveryDialect() {
    MainWindow window(m_options);
    window.show();
    window.openDemo();
    QVERIFY(waitIdle(window));
    const std::set<std::string> layers(m_direct.layers.begin(), m_direct.layers.end());
    window.analysis()->setFp32Layers(layers, QStringLiteral("the search's set"));
    QVERIFY(waitIdle(window));
    QTemporaryDir dir;
    using D = ql::analysis::SkipListDialect;
    for (D dialect : {D::QuantLens, D::Ort, D::Nncf, D::PyTorch, D::Inc, D::Trt}) {
        const QString path = dir.filePath(ql::analysis::skipListDialectName(dialect));
        QString error;
        QVERIFY2(window.analysis()->exportSkipList(path, dialect, error), qPrintable(error));
        QFile file(path);
        QVERIFY(file.open(QIODevice::ReadOnly));
        const QString text = QString::fromUtf8(file.readAll());
        for (const std::string &name : layers) {
            // PyTorch names modules; a functional op (pool) is a comment there.
            const QString expected =
                dialect == D::PyTorch
                    ? QString::fromStdString(ql::analysis::pytorchModulePath(name))
                    : QString::fromStdString(name);
            QVERIFY2(text.contains(expected.isEmpty() ? QString::fromStdString(name) : expected),
                     qPrintable(QStringLiteral("%1 lacks %2").arg(path, expected)));
        }
    }
}

void TestFp32SearchDialog::sixteenBitsOnAnInAppAnalysis() {
    MainWindow window(m_options);
    window.resize(1400, 900);
    window.show();
    window.openDemo();
    QVERIFY(waitIdle(window));
    ql::ui::Fp32SearchDialog *dialog = openDialog(window);
    QVERIFY(dialog);
    auto *raiseTo = dialog->findChild<QComboBox *>(QStringLiteral("raiseToCombo"));
    auto *choices = qobject_cast<QStandardItemModel *>(raiseTo->model());
    QVERIFY(choices && !choices->item(1)->isEnabled() && !choices->item(2)->isEnabled());
    QVERIFY(choices->item(1)->toolTip().contains(
        QStringLiteral("quantize the float model in the app")));
    dialog->close();

    const QString demo = QFileInfo(QL_DEMO_MODEL).absolutePath();
    AnalysisSetup setup;
    setup.floatModel = demo + "/fashion_cnn.onnx";
    setup.quantizeInApp = true;
    setup.calibrationPaths = {demo + "/pool"};
    setup.dataPaths = {demo + "/samples.npy"};
    window.analysis()->setSetup(setup);
    QVERIFY(waitIdle(window));
    const double int8 = window.analysis()->report()->outputs.at(0).sqnrDb;
    dialog = openDialog(window);
    QVERIFY(choices->item(2)->isEnabled());
    raiseTo->setCurrentIndex(2);
    auto *target = dialog->findChild<QDoubleSpinBox *>(QStringLiteral("targetSpin"));
    target->setValue(48.0);
    const ql::ui::SearchRequest asked = dialog->request();
    QCOMPARE(asked.options.precisions.size(), size_t(2));
    ql::ui::SearchOutcomePtr outcome = runSearch(window, dialog);
    QVERIFY(outcome);
    const auto &r = outcome->result;
    QVERIFY(r.reached);
    QCOMPARE(r.byPrecision.size(), size_t(2));
    std::set<ql::analysis::SearchPrecision> kinds;
    for (const auto &p : r.pareto)
        if (!p.layers.empty()) kinds.insert(p.precision);
    QCOMPARE(kinds.size(), size_t(2));
    QCOMPARE(dialog->chart()->pointCount(), int(r.pareto.size()));
    const QString summary = dialog->findChild<QLabel *>(QStringLiteral("summaryLabel"))->text();
    QVERIFY2(summary.contains(QStringLiteral("at 16 bits")), qPrintable(summary));
    if (const char *dir = std::getenv("QL_SCREENSHOT_DIR"))
        dialog->grab().save(QString::fromLocal8Bit(dir) + "/search_int16.png");
    QVERIFY(waitIdle(window));
    QCOMPARE(window.analysis()->report()->outputs.at(0).sqnrDb, int8);

    // Apply the first 16-bit point of the front: those layers at 16 bits, undoable.
    int sixteen = -1;
    for (int i = 0; i < int(r.pareto.size()) && sixteen < 0; ++i)
        if (r.pareto[size_t(i)].precision == ql::analysis::SearchPrecision::Int16 &&
            !r.pareto[size_t(i)].layers.empty())
            sixteen = i;
    QVERIFY(sixteen >= 0);
    const int undoBefore = window.analysis()->undoStack()->count();
    QCustomPlot *plot = dialog->chart()->plot();
    plot->replot();
    QTest::mousePress(plot, Qt::LeftButton, {}, dialog->chart()->pixelOf(sixteen));
    QVERIFY(waitIdle(window));
    const auto &point = r.pareto[size_t(sixteen)];
    const auto asSet = [](const std::vector<std::string> &v) {
        return std::set<std::string>(v.begin(), v.end());
    };
    QCOMPARE(asSet(window.analysis()->sixteenBitLayers()), asSet(point.layers));
    QVERIFY(window.analysis()->fp32Layers().empty());
    QCOMPARE(window.analysis()->undoStack()->count(), undoBefore + 1);
    QVERIFY(std::abs(window.analysis()->report()->outputs.at(0).sqnrDb - point.figure) < 1e-6);
    window.analysis()->undoStack()->undo();
    QVERIFY(waitIdle(window));
    QVERIFY(window.analysis()->sixteenBitLayers().empty());
    QCOMPARE(window.analysis()->report()->outputs.at(0).sqnrDb, int8);
}

QTEST_MAIN(TestFp32SearchDialog)
#include "tst_fp32_search_dialog.moc"
