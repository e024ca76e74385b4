// 240 seeded random user actions on the demo — toggles, undo/redo, reset, keep-worst, threshold,
// re-run and cancel mid-analysis, a change of evaluation data, exports, reopening the demo —
// often without waiting for the analysis to finish. Every 12 actions, once the window is idle,
// it must be consistent: a report, shown by the panel, whose user-fp32 layers are exactly the
// controller's; the undo stack in range; exports that parse. Run under ASan by the asan preset.

#include <QDir>
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>
#include <QUndoStack>

#include <random>

#include "analysis_controller.h"
#include "analysis_panel.h"
#include "main_window.h"
#include "main_window_wait.h"

class TestGuiStress : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() { QStandardPaths::setTestModeEnabled(true); }
    void randomActionsKeepTheWindowConsistent();
};

namespace {

// The window after the analysis settled: a failure message, or "" when consistent.
QString inconsistency(MainWindow &window) {
    const AnalysisController &analysis = *window.analysis();
    const ql::ui::ReportPtr report = analysis.report();
    if (!report) return QStringLiteral("no report");
    if (window.analysisPanel()->report() != report)
        return QStringLiteral("the panel shows another report than the controller's");
    std::set<std::string> requested;
    for (const auto &layer : report->layers)
        if (layer.fp32Requested) requested.insert(layer.name);
    if (requested != analysis.fp32Layers()) {
        QStringList shown, wanted;
        for (const auto &n : requested) shown << QString::fromStdString(n);
        for (const auto &n : analysis.fp32Layers()) wanted << QString::fromStdString(n);
        return QStringLiteral("the report's user-fp32 layers {%1} are not the controller's {%2}")
            .arg(shown.join(QStringLiteral(", ")), wanted.join(QStringLiteral(", ")));
    }
    const QUndoStack *undo = window.analysis()->undoStack();
    if (undo->index() < 0 || undo->index() > undo->count())
        return QStringLiteral("undo index %1 of %2").arg(undo->index()).arg(undo->count());
    return {};
}

}  // namespace

void TestGuiStress::randomActionsKeepTheWindowConsistent() {
    QTemporaryDir dir;
    MainWindow window(MainWindow::Options{false, false, false});
    window.show();
    window.openDemo();
    QVERIFY(waitIdle(window));
    const QString demo = MainWindow::demoFolder();
    // QL_STRESS_SEED replays another sequence (a failure prints the action and its problem).
    const unsigned seed = qEnvironmentVariableIsSet("QL_STRESS_SEED")
                              ? unsigned(qEnvironmentVariableIntValue("QL_STRESS_SEED"))
                              : 20261126u;
    std::mt19937 random(seed);
    auto pick = [&random](int n) { return int(std::uniform_int_distribution<int>(0, n - 1)(random)); };
    int exports = 0, cancels = 0;
    for (int action = 0; action < 240; ++action) {
        AnalysisController &analysis = *window.analysis();
        const ql::ui::ReportPtr report = analysis.report();
        const int layers = report ? int(report->layers.size()) : 0;
        const int kind = pick(10);
        if (qEnvironmentVariableIsSet("QL_STRESS_TRACE")) qInfo("action %d: %d", action, kind);
        switch (kind) {
            case 0:
            case 1:
                if (layers) {
                    const int layer = pick(layers);
                    analysis.setLayerFp32(layer, !report->layers[size_t(layer)].fp32Requested);
                }
                break;
            case 2:
                analysis.undoStack()->undo();
                break;
            case 3:
                analysis.undoStack()->redo();
                break;
            case 4:
                analysis.rerun();
                QTest::qWait(pick(40));
                analysis.cancel();
                ++cancels;
                break;
            case 5:
                if (pick(3) == 0) analysis.resetToInt8();
                else if (layers) analysis.setFp32Layers(analysis.worstLayers(1 + pick(3)), "worst");
                break;
            case 6:
                analysis.setThresholdDb(10.0 + pick(40));
                break;
            case 7:
                if (pick(2) == 0) analysis.setRandomInputs(16 + 8 * pick(3), quint64(pick(1000)));
                else
                    analysis.setEvaluationFiles({QDir(demo).filePath("samples.npy")},
                                                QDir(demo).filePath("labels.npy"));
                break;
            case 8: {
                QVERIFY(waitIdle(window));
                QString error;
                const QString path = dir.filePath(QStringLiteral("a%1.json").arg(action));
                QVERIFY2(analysis.exportAnalysisJson(path, error), qPrintable(error));
                QFile file(path);
                QVERIFY(file.open(QIODevice::ReadOnly));
                QVERIFY(QJsonDocument::fromJson(file.readAll()).isObject());
                ++exports;
                break;
            }
            default:
                if (pick(6) == 0) window.openDemo();
                break;
        }
        if (pick(2) == 0) QTest::qWait(pick(30));
        if (qEnvironmentVariableIsSet("QL_STRESS_TRACE")) {
            QStringList wanted;
            for (const auto &n : window.analysis()->fp32Layers()) wanted << QString::fromStdString(n);
            qInfo("  wanted {%s}, busy %d, report %p", qPrintable(wanted.join(',')),
                  int(window.analysis()->isBusy()), (const void *)window.analysis()->report().get());
        }
        if (action % 12 == 11) {
            QVERIFY2(waitIdle(window), qPrintable(window.statusText()));
            const QString problem = inconsistency(window);
            QVERIFY2(problem.isEmpty(),
                     qPrintable(QStringLiteral("after action %1: %2").arg(action).arg(problem)));
        }
    }
    QVERIFY(waitIdle(window));
    QVERIFY2(inconsistency(window).isEmpty(), qPrintable(inconsistency(window)));
    qInfo("240 actions: %d exports, %d cancels mid-analysis", exports, cancels);
}

QTEST_MAIN(TestGuiStress)
#include "tst_gui_stress.moc"
