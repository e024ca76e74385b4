// Per-layer remedies in the window (issue 36: "remedies toggled per layer with undo, in table,
// inspector and graph"), on the Fashion-MNIST MobileNet quantized in the app with per-tensor
// weights, analysed on its 64 calibration images (the engine tests measure the remedies on
// images they were not calibrated on):
//  * the layer menu (chart, table and graph share it) switches AdaRound on a layer: the report
//    comes back with the layer rounded adaptively (precision cell "int8 + AdaRound", a different
//    output SQNR); Undo returns the figures the analysis had, Redo the remedied ones;
//  * the inspector's boxes correct a layer's bias and keep it in fp32, and its notes say what the
//    correction did; a right-click on a graph box asks for that layer's menu;
//  * a finding that names bias correction applies it to its layer from its context menu, and
//    the finding goes away;
//  * an analysis of a quantized model file offers the remedies disabled, saying why;
//  * projects keep the per-layer remedies, and a stale layer name is refused with its name;
//  * issue 37: the inspector's "16 bits" box quantizes a layer with 16 bits (precision "int16",
//    its isolated SQNR far above int8), undoably; checking it on a layer kept in fp32 takes the
//    layer out of fp32; the skip-list carries it as int16_nodes and the project keeps it.
#include <QAction>
#include <QCheckBox>
#include <QContextMenuEvent>
#include <QDir>
#include <QGraphicsView>
#include <QJsonArray>
#include <QJsonObject>
#include <QLabel>
#include <QMenu>
#include <QSignalSpy>
#include <QUndoStack>
#include <QtTest>

#include <memory>

#include "analysis_controller.h"
#include "analysis_job.h"
#include "analysis_panel.h"
#include "analysis_table_model.h"
#include "diagnosis_list.h"
#include "graph_view.h"
#include "layer_choices_bar.h"
#include "layer_inspector.h"
#include "main_window.h"
#include "main_window_wait.h"
#include "project_controller.h"
#include "remedy_setups.h"

using ql::analysis::LayerRemedy;

class TestLayerChoices : public QObject {
    Q_OBJECT
private slots:
    void menuTogglesAdaRoundWithUndo();
    void inspectorCorrectsBiasAndGraphAsksForMenu();
    void diagnosisAppliesItsRemedy();
    void quantizedFileOffersRemediesDisabled();
    void projectKeepsRemedies();
    void sixteenBitsFromInspectorWithUndoAndSkipList();
};

namespace {

using remedy_setups::kData;

AnalysisSetup fashionSetup() {
    return remedy_setups::fashionMobileNetOnCalibration();
}

int rowOf(const ql::ui::ReportPtr &report, const std::string &name) {
    for (size_t i = 0; i < report->layers.size(); ++i)
        if (report->layers[i].name == name) return int(i);
    return -1;
}

double outputSqnr(MainWindow &window) {
    return window.analysis()->report()->outputs.at(0).sqnrDb;
}

bool waitNewReport(MainWindow &window, const ql::ui::ReportPtr &before) {
    return waitIdle(window) && window.analysis()->report() != before;
}

QAction *menuAction(QMenu &menu, const char *name) {
    return menu.findChild<QAction *>(QLatin1String(name));
}

}  // namespace

void TestLayerChoices::menuTogglesAdaRoundWithUndo() {
    MainWindow window(MainWindow::Options{false, false, false});
    window.analysis()->setSetup(fashionSetup());
    QVERIFY(waitIdle(window));
    const double nearest = outputSqnr(window);
    const std::string name = "/features/features.0/Conv";
    const int layer = rowOf(window.analysis()->report(), name);
    QVERIFY(layer >= 0);

    std::unique_ptr<QMenu> menu(window.analysisPanel()->createLayerMenu(layer, nullptr));
    QAction *adaRound = menuAction(*menu, "adaRoundAction");
    QVERIFY(adaRound && adaRound->isEnabled() && !adaRound->isChecked());
    QVERIFY(menuAction(*menu, "biasCorrectionAction")->isEnabled());
    ql::ui::ReportPtr before = window.analysis()->report();
    adaRound->trigger();
    QVERIFY(waitNewReport(window, before));
    const auto &row = window.analysis()->report()->layers[size_t(layer)];
    QCOMPARE(row.remedies, std::vector<std::string>{"adaround"});
    ql::ui::AnalysisTableModel *table = window.analysisPanel()->tableModel();
    QCOMPARE(table->index(layer, ql::ui::AnalysisTableModel::PrecisionColumn).data().toString(),
             QStringLiteral("int8 + AdaRound"));
    const double rounded = outputSqnr(window);
    qInfo("output SQNR: nearest %.3f dB, %s rounded adaptively %.3f dB", nearest, name.c_str(),
          rounded);
    QVERIFY(std::abs(rounded - nearest) > 1e-3);
    QCOMPARE(window.analysis()->undoStack()->count(), 1);
    QVERIFY(window.analysis()->undoStack()->undoText().contains(QString::fromStdString(name)));
    menu.reset(window.analysisPanel()->createLayerMenu(layer, nullptr));
    QVERIFY(menuAction(*menu, "adaRoundAction")->isChecked());

    before = window.analysis()->report();
    window.analysis()->undoStack()->undo();
    QVERIFY(waitNewReport(window, before));
    QVERIFY(window.analysis()->layerRemedies().empty());
    QVERIFY(window.analysis()->report()->layers[size_t(layer)].remedies.empty());
    QVERIFY(std::abs(outputSqnr(window) - nearest) < 1e-9);
    before = window.analysis()->report();
    window.analysis()->undoStack()->redo();
    QVERIFY(waitNewReport(window, before));
    QVERIFY(window.analysis()->layerRemedies().has(LayerRemedy::AdaRound, name));
    QVERIFY(std::abs(outputSqnr(window) - rounded) < 1e-6);
}

void TestLayerChoices::inspectorCorrectsBiasAndGraphAsksForMenu() {
    MainWindow window(MainWindow::Options{false, false, false});
    window.resize(1600, 1000);
    window.show();
    window.analysis()->setSetup(fashionSetup());
    QVERIFY(waitIdle(window));
    const std::string name = "/classifier/Gemm";
    const int layer = rowOf(window.analysis()->report(), name);
    QVERIFY(layer >= 0);
    window.analysisPanel()->selectLayer(layer);
    ql::ui::LayerChoicesBar *bar = window.inspector()->choicesBar();
    QTRY_VERIFY(bar->isVisible());
    QCheckBox *bias = bar->remedyBox(LayerRemedy::BiasCorrection);
    QVERIFY(bias->isEnabled() && !bias->isChecked());
    ql::ui::ReportPtr before = window.analysis()->report();
    bias->click();
    QVERIFY(waitNewReport(window, before));
    QCOMPARE(window.analysis()->report()->layers[size_t(layer)].remedies,
             std::vector<std::string>{"bias-correction"});
    // The inspector follows the new report on the same layer: the box stays, the notes say what
    // the correction did.
    window.analysisPanel()->selectLayer(layer);
    QTRY_VERIFY(bar->notesLabel()->text().startsWith("bias correction: "));
    QVERIFY(bar->remedyBox(LayerRemedy::BiasCorrection)->isChecked());

    // Kept in fp32 from the inspector: the correction waits, and says so.
    before = window.analysis()->report();
    bar->fp32Box()->click();
    QVERIFY(waitNewReport(window, before));
    QCOMPARE(window.analysis()->fp32Layers(), std::set<std::string>{name});
    const auto &row = window.analysis()->report()->layers[size_t(layer)];
    QCOMPARE(row.precision, std::string("fp32"));
    QVERIFY(row.remedies.empty());
    QCOMPARE(window.analysis()->undoStack()->count(), 2);

    // The graph: a right-click on the layer's box asks for its menu.
    window.showGraph();
    ql::ui::GraphView *graph = window.analysisPanel()->graphView();
    QTRY_VERIFY_WITH_TIMEOUT(graph->isLaidOut(), 60000);
    ql::ui::GraphBoxItem *box = graph->boxOfLayer(layer);
    QVERIFY(box != nullptr);
    graph->canvas()->centerOn(box);
    const QPoint at = graph->canvas()->mapFromScene(box->mapToScene(box->rect().center()));
    QSignalSpy asked(graph, &ql::ui::GraphView::layerMenuRequested);
    QContextMenuEvent event(QContextMenuEvent::Mouse, at,
                            graph->canvas()->viewport()->mapToGlobal(at));
    QApplication::sendEvent(graph->canvas()->viewport(), &event);
    QCOMPARE(asked.count(), 1);
    QCOMPARE(asked.at(0).at(0).toInt(), layer);
    for (QWidget *popup : QApplication::topLevelWidgets())
        if (qobject_cast<QMenu *>(popup)) popup->close();
}

void TestLayerChoices::diagnosisAppliesItsRemedy() {
    MainWindow window(MainWindow::Options{false, false, false});
    window.analysis()->setSetup(fashionSetup());
    QVERIFY(waitIdle(window));
    ql::ui::DiagnosisList *list = window.diagnosis();
    int index = -1;
    for (size_t i = 0; i < list->findings().size() && index < 0; ++i)
        if (list->findings()[i].remedy == "bias-correction") index = int(i);
    QVERIFY(index >= 0);
    const ql::analysis::Finding finding = list->findings()[size_t(index)];
    std::unique_ptr<QMenu> menu(list->createFindingMenu(index, nullptr));
    QAction *apply = menuAction(*menu, "applyRemedyAction");
    QVERIFY(apply && apply->isEnabled());
    QVERIFY2(apply->text().contains(QString::fromStdString(finding.layerName)),
             qPrintable(apply->text()));
    const ql::ui::ReportPtr before = window.analysis()->report();
    apply->trigger();
    QVERIFY(waitNewReport(window, before));
    QCOMPARE(window.analysis()->report()->layers[size_t(finding.layer)].remedies,
             std::vector<std::string>{"bias-correction"});
    QTRY_VERIFY(std::none_of(list->findings().begin(), list->findings().end(), [&](const auto &f) {
        return f.remedy == "bias-correction" && f.layerName == finding.layerName;
    }));
    QCOMPARE(window.analysis()->undoStack()->count(), 1);
}

void TestLayerChoices::quantizedFileOffersRemediesDisabled() {
    MainWindow window(MainWindow::Options{false, false, false});
    window.openDemo();
    QVERIFY(waitIdle(window));
    const auto &layers = window.analysis()->report()->layers;
    int conv = -1;
    for (size_t i = 0; i < layers.size() && conv < 0; ++i)
        if (layers[i].opType == "Conv") conv = int(i);
    QVERIFY(conv >= 0);
    std::unique_ptr<QMenu> menu(window.analysisPanel()->createLayerMenu(conv, nullptr));
    QAction *adaRound = menuAction(*menu, "adaRoundAction");
    QVERIFY(adaRound && !adaRound->isEnabled());
    QVERIFY2(adaRound->statusTip().contains("quantized in the app"),
             qPrintable(adaRound->statusTip()));
    window.analysis()->setLayerRemedy(layers[size_t(conv)].name, LayerRemedy::AdaRound, true);
    QCOMPARE(window.analysis()->undoStack()->count(), 0);
}

void TestLayerChoices::projectKeepsRemedies() {
    // The setup's bias correction on every layer, then one switched off: the project keeps the
    // exact set, and reopening it does not switch that layer on again.
    AnalysisSetup setup = fashionSetup();
    setup.quantizer.remedies = {"bias-correction"};
    MainWindow window(MainWindow::Options{false, false, false});
    window.analysis()->setSetup(setup);
    QVERIFY(!window.analysis()->layerRemediesToSave());  // the first report decides
    QVERIFY(waitIdle(window));
    const std::set<std::string> all = window.analysis()->layerRemedies().biasCorrection;
    QVERIFY(all.size() >= 10);
    const std::string off = "/classifier/Gemm";
    QVERIFY(all.count(off));
    const ql::ui::ReportPtr before = window.analysis()->report();
    window.analysis()->setLayerRemedy(off, LayerRemedy::BiasCorrection, false);
    QVERIFY(waitNewReport(window, before));
    std::set<std::string> rest = all;
    rest.erase(off);
    QCOMPARE(window.analysis()->layerRemedies().biasCorrection, rest);
    const QDir base(kData);
    const QJsonObject project = ProjectController::projectJson(
        setup, {}, 30.0, base, window.analysis()->layerRemediesToSave());
    AnalysisSetup readSetup;
    std::set<std::string> fp32;
    double threshold = 0;
    std::optional<ql::analysis::LayerRemedies> read;
    ProjectController::unpackProject(project, base, readSetup, fp32, threshold, &read);
    QVERIFY(read && read->biasCorrection == rest && read->adaRound.empty());
    MainWindow reopened(MainWindow::Options{false, false, false});
    reopened.analysis()->setSetup(readSetup, fp32, read);
    QVERIFY(waitIdle(reopened));
    QCOMPARE(reopened.analysis()->layerRemedies().biasCorrection, rest);
    const int gemm = rowOf(reopened.analysis()->report(), off);
    QVERIFY(gemm >= 0 && reopened.analysis()->report()->layers[size_t(gemm)].remedies.empty());
    // A project without layer_remedies: the setup's choice decides again.
    QJsonObject plain = project;
    plain.remove("layer_remedies");
    ProjectController::unpackProject(plain, base, readSetup, fp32, threshold, &read);
    QVERIFY(!read);

    // A stale name: the analysis is refused with the name and the remedy.
    ql::ui::AnalysisRequest request;
    QString error;
    QVERIFY(fashionSetup().toRequest(request, error));
    request.measureLatency = false;
    request.layerRemedies.emplace();
    request.layerRemedies->adaRound = {"/features/features.1/Conv"};
    auto session = ql::ui::createAnalysisSession(request);
    QVERIFY(!session);
    const QString message = QString::fromStdString(session.status().message());
    QVERIFY2(message.contains("adaround") && message.contains("/features/features.1/Conv"),
             qPrintable(message));
}

void TestLayerChoices::sixteenBitsFromInspectorWithUndoAndSkipList() {
    MainWindow window(MainWindow::Options{false, false, false});
    window.resize(1600, 1000);
    window.show();
    window.analysis()->setSetup(fashionSetup());
    QVERIFY(waitIdle(window));
    const std::string name = "/features/features.0/Conv";
    const int layer = rowOf(window.analysis()->report(), name);
    QVERIFY(layer >= 0);
    const auto isolated = [&window, layer] {
        const auto &row = window.analysis()->report()->layers[size_t(layer)];
        return row.isolated ? row.isolated->sqnrDb : std::nan("");
    };
    const double int8Isolated = isolated();
    const double int8Output = outputSqnr(window);
    window.analysisPanel()->selectLayer(layer);
    ql::ui::LayerChoicesBar *bar = window.inspector()->choicesBar();
    QTRY_VERIFY(bar->isVisible());
    QCheckBox *sixteen = bar->remedyBox(LayerRemedy::SixteenBit);
    QVERIFY(sixteen->isEnabled() && !sixteen->isChecked());
    ql::ui::ReportPtr before = window.analysis()->report();
    sixteen->click();
    QVERIFY(waitNewReport(window, before));
    const auto &row = window.analysis()->report()->layers[size_t(layer)];
    QCOMPARE(row.precision, std::string("int16"));
    QCOMPARE(row.remedies, std::vector<std::string>{"int16"});
    ql::ui::AnalysisTableModel *table = window.analysisPanel()->tableModel();
    QCOMPARE(table->index(layer, ql::ui::AnalysisTableModel::PrecisionColumn).data().toString(),
             QStringLiteral("int16"));
    qInfo("%s isolated SQNR: int8 %.2f dB, 16 bits %.2f dB; output %.2f -> %.2f dB", name.c_str(),
          int8Isolated, isolated(), int8Output, outputSqnr(window));
    // 16 bits leave the layer about 256 times less quantization noise: 48 dB in theory.
    QVERIFY(isolated() > int8Isolated + 40.0);
    QVERIFY(outputSqnr(window) > int8Output);
    QCOMPARE(window.analysis()->sixteenBitLayers(), std::vector<std::string>{name});
    const QJsonObject skipList = window.analysis()->skipListJson();
    QCOMPARE(skipList.value("int16_nodes").toArray(), QJsonArray{QString::fromStdString(name)});
    QVERIFY(skipList.value("fp32_nodes").toArray().isEmpty());
    const QJsonObject project =
        ProjectController::projectJson(window.analysis()->setup(), {}, 30.0, QDir(kData),
                                       window.analysis()->layerRemediesToSave());
    QCOMPARE(project.value("layer_remedies").toObject().value("int16").toArray(),
             QJsonArray{QString::fromStdString(name)});

    // Undo: int8 again, the figures as before.
    before = window.analysis()->report();
    window.analysis()->undoStack()->undo();
    QVERIFY(waitNewReport(window, before));
    QCOMPARE(window.analysis()->report()->layers[size_t(layer)].precision, std::string("int8"));
    QVERIFY(std::abs(outputSqnr(window) - int8Output) < 1e-9);

    // Kept in fp32, then 16 bits asked: the layer leaves fp32 in the same step.
    before = window.analysis()->report();
    window.analysis()->setLayerFp32(name, true);
    QVERIFY(waitNewReport(window, before));
    before = window.analysis()->report();
    window.analysis()->setLayerRemedy(name, LayerRemedy::SixteenBit, true);
    QVERIFY(waitNewReport(window, before));
    QVERIFY(window.analysis()->fp32Layers().empty());
    QCOMPARE(window.analysis()->report()->layers[size_t(layer)].precision, std::string("int16"));
    // Reset to all int8 clears the 16-bit layers too.
    before = window.analysis()->report();
    window.analysis()->resetToInt8();
    QVERIFY(waitNewReport(window, before));
    QVERIFY(window.analysis()->sixteenBitLayers().empty());
    QVERIFY(std::abs(outputSqnr(window) - int8Output) < 1e-9);
}

QTEST_MAIN(TestLayerChoices)
#include "tst_layer_choices.moc"
