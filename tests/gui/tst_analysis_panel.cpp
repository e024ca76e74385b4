// AnalysisPanel: selection synced between chart and table both ways (also when the table is
// sorted or filtered), the threshold spin box and the chart's line kept equal, the headline's
// figures, the precision toggle forwarded; and PNG renders of the panel for an 8-layer and a
// 150-layer report (written under the build dir, or $QL_SHOT_DIR).

#include <qcustomplot.h>
#include <QDoubleSpinBox>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QSignalSpy>
#include <QTableView>
#include <QtTest>
#include <memory>

#include "analysis_fixture.h"
#include "analysis_headline.h"
#include "analysis_panel.h"
#include "analysis_proxy_model.h"
#include "analysis_table_model.h"
#include "sqnr_chart.h"

using ql::ui::AnalysisPanel;
using ql::ui::AnalysisTableModel;

class TestAnalysisPanel : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() { QLocale::setDefault(QLocale::c()); }
    void tableSelectionSelectsInChart();
    void chartSelectionSelectsInTable();
    void chartClickSelectsInTable();
    void thresholdSpinBoxAndLineStayEqual();
    void headlineShowsReportFigures();
    void precisionToggleIsForwarded();
    void newReportClearsSelection();
    void rendersToPng_data();
    void rendersToPng();

private:
    static int tableLayer(const AnalysisPanel &panel) {
        const QModelIndex current = panel.tableView()->currentIndex();
        return current.isValid() ? current.data(AnalysisTableModel::LayerIndexRole).toInt() : -1;
    }
    static void show(AnalysisPanel &panel) {
        panel.resize(1280, 860);
        panel.show();
        QVERIFY(QTest::qWaitForWindowExposed(&panel));
    }
};

void TestAnalysisPanel::tableSelectionSelectsInChart() {
    AnalysisPanel panel;
    panel.setReport(fixture::makeFixtureReport());
    QSignalSpy current(&panel, &AnalysisPanel::currentLayerChanged);
    QTableView *view = panel.tableView();
    // Sorted by cumulative SQNR ascending: the first row is conv2 (32.65 dB), layer 1.
    view->sortByColumn(AnalysisTableModel::CumulativeSqnrColumn, Qt::AscendingOrder);
    view->setCurrentIndex(view->model()->index(0, AnalysisTableModel::NameColumn));
    QCOMPARE(panel.chart()->selectedLayer(), 1);
    QCOMPARE(panel.currentLayer(), 1);
    QCOMPARE(current.count(), 1);
    QCOMPARE(current.at(0).at(0).toInt(), 1);
    view->setCurrentIndex(view->model()->index(1, AnalysisTableModel::CosineColumn));  // conv3
    QCOMPARE(panel.chart()->selectedLayer(), 4);
    QCOMPARE(current.count(), 2);
}

void TestAnalysisPanel::chartSelectionSelectsInTable() {
    AnalysisPanel panel;
    panel.setReport(fixture::makeFixtureReport());
    QSignalSpy current(&panel, &AnalysisPanel::currentLayerChanged);
    panel.tableView()->sortByColumn(AnalysisTableModel::WeightSqnrColumn, Qt::DescendingOrder);
    panel.chart()->selectLayer(7);
    QCOMPARE(tableLayer(panel), 7);
    QCOMPARE(panel.tableView()->selectionModel()->selectedRows().size(), 1);
    QCOMPARE(current.count(), 1);
    QCOMPARE(current.at(0).at(0).toInt(), 7);
    // Filtered out of the table: the chart keeps it, the table shows no selection.
    panel.filterEdit()->setText("pool");
    panel.chart()->selectLayer(0);
    QCOMPARE(panel.currentLayer(), 0);
    QVERIFY(panel.tableView()->selectionModel()->selectedRows().isEmpty());
    panel.chart()->selectLayer(5);  // /pool2/MaxPool is shown
    QCOMPARE(tableLayer(panel), 5);
    panel.selectLayer(3);  // the panel's own slot drives both
    QCOMPARE(tableLayer(panel), 3);
    QCOMPARE(panel.chart()->selectedLayer(), 3);
}

void TestAnalysisPanel::chartClickSelectsInTable() {
    AnalysisPanel panel;
    panel.setReport(fixture::makeFixtureReport());
    show(panel);
    panel.chart()->plot()->replot();
    QTest::mouseClick(panel.chart()->plot(), Qt::LeftButton, {}, panel.chart()->pixelFor(2, 5.0));
    QCOMPARE(panel.currentLayer(), 2);
    QCOMPARE(tableLayer(panel), 2);
    QCOMPARE(panel.tableView()
                 ->currentIndex()
                 .siblingAtColumn(AnalysisTableModel::NameColumn)
                 .data()
                 .toString(),
             QString("/Add"));
}

void TestAnalysisPanel::thresholdSpinBoxAndLineStayEqual() {
    AnalysisPanel panel;
    panel.setReport(fixture::makeFixtureReport());
    QDoubleSpinBox *spin = panel.thresholdSpinBox();
    QCOMPARE(spin->value(), 30.0);
    auto *count = panel.findChild<QLabel *>("underThresholdCount");
    QVERIFY(count);
    QCOMPARE(count->text(), QString("0 layers under 30.0 dB"));
    spin->setValue(33.0);
    QCOMPARE(panel.chart()->thresholdDb(), 33.0);
    QCOMPARE(panel.tableModel()->thresholdDb(), 33.0);
    QCOMPARE(count->text(), QString("2 layers under 33.0 dB"));
    QVERIFY(panel.tableModel()
                ->index(1, AnalysisTableModel::CumulativeSqnrColumn)
                .data(AnalysisTableModel::UnderThresholdRole)
                .toBool());
    panel.chart()->setThresholdDb(34.5);  // as a drag of the line does
    QCOMPARE(spin->value(), 34.5);
    QCOMPARE(count->text(), QString("5 layers under 34.5 dB"));
    panel.setThresholdDb(20.0);
    QCOMPARE(spin->value(), 20.0);
    QCOMPARE(panel.thresholdDb(), 20.0);
    // The output SQNR (40.3 dB) turns red only under the threshold.
    const auto *sqnr = panel.headline()->findChild<QLabel *>("outputSqnrValue");
    QVERIFY(sqnr->styleSheet().isEmpty());
    spin->setValue(45.0);
    QVERIFY(sqnr->styleSheet().contains("color"));
}

void TestAnalysisPanel::headlineShowsReportFigures() {
    AnalysisPanel panel;
    const ql::ui::AnalysisHeadline *headline = panel.headline();
    QCOMPARE(headline->outputSqnrText(), QString("—"));
    QCOMPARE(headline->latencyText(), QString("—"));
    panel.setReport(fixture::makeFixtureReport());
    QCOMPARE(headline->outputSqnrText(), QString("40.3 dB"));
    QCOMPARE(headline->top1AgreementText(), QString("100.0 %"));
    QCOMPARE(headline->accuracyText(), QString("85.9 % / 85.9 % (+0.0 pts)"));  // 55/64 both
    QCOMPARE(headline->layersText(), QString("8 / 0"));
    QCOMPARE(headline->samplesText(), QString("64"));
    QCOMPARE(headline->latencyText(), QString("—"));
    panel.setLatency(1.5, 3.25);
    QCOMPARE(headline->latencyText(), QString("1.50 / 3.25 ms"));
    panel.setLatency(std::nullopt, 3.25);
    QCOMPARE(headline->latencyText(), QString("— / 3.25 ms"));
    panel.setLatency(1.5, 3.25, {8, 3});  // the batch and threads it was timed with
    QCOMPARE(headline->latencyText(), QString("1.50 / 3.25 ms · batch 8, 3 threads"));
    panel.setLatency(1.5, 3.25, {1, 1});
    QCOMPARE(headline->latencyText(), QString("1.50 / 3.25 ms · batch 1, 1 thread"));
    auto report = fixture::makeSyntheticReport();
    report->unmatched.push_back({"/extra/Softmax", "Softmax", "float"});
    panel.setReport(report);
    QCOMPARE(headline->outputSqnrText(), QString("21.7 dB"));
    QCOMPARE(headline->top1AgreementText(), QString("90.6 %"));
    QCOMPARE(headline->accuracyText(), QString("—"));  // no labels
    report->outputs[0].floatAccuracy = 0.71875;        // 46/64
    report->outputs[0].quantAccuracy = 0.625;          // 40/64: 9.4 points lost
    panel.setReport(report);
    QCOMPARE(headline->accuracyText(), QString("71.9 % / 62.5 % (−9.4 pts)"));
    QCOMPARE(headline->layersText(), QString("147 / 3 (1 unmatched)"));
}

void TestAnalysisPanel::precisionToggleIsForwarded() {
    AnalysisPanel panel;
    panel.setReport(fixture::makeFixtureReport());
    QSignalSpy toggled(&panel, &AnalysisPanel::precisionToggled);
    AnalysisTableModel *model = panel.tableModel();
    model->setData(model->index(4, AnalysisTableModel::PrecisionColumn), Qt::Checked,
                   Qt::CheckStateRole);
    QCOMPARE(toggled.count(), 1);
    QCOMPARE(toggled.at(0).at(0).toInt(), 4);
    QCOMPARE(toggled.at(0).at(1).toBool(), true);
    // The chart's context menu toggles through the same model.
    std::unique_ptr<QMenu> menu(panel.createLayerMenu(1, nullptr));
    auto *keep = menu->findChild<QAction *>("keepFp32Action");
    QVERIFY(keep);
    QVERIFY(keep->text().contains("/conv2/Conv"));
    QVERIFY(!keep->isChecked());
    keep->trigger();
    QCOMPARE(toggled.count(), 2);
    QCOMPARE(toggled.at(1).at(0).toInt(), 1);
    QCOMPARE(toggled.at(1).at(1).toBool(), true);
    QVERIFY(model->isLayerFp32(1));
    menu.reset(panel.createLayerMenu(4, nullptr));
    QVERIFY(menu->findChild<QAction *>("keepFp32Action")->isChecked());  // toggled above
    menu.reset(panel.createLayerMenu(-1, nullptr));
    QVERIFY(!menu->findChild<QAction *>("keepFp32Action"));
}

void TestAnalysisPanel::newReportClearsSelection() {
    AnalysisPanel panel;
    panel.setReport(fixture::makeFixtureReport());
    panel.selectLayer(3);
    QSignalSpy current(&panel, &AnalysisPanel::currentLayerChanged);
    panel.setReport(fixture::makeSyntheticReport());
    QCOMPARE(panel.currentLayer(), -1);
    QCOMPARE(panel.chart()->selectedLayer(), -1);
    QCOMPARE(tableLayer(panel), -1);
    QCOMPARE(current.count(), 1);
    QCOMPARE(panel.tableModel()->rowCount(), 150);
    panel.selectLayer(149);
    QCOMPARE(tableLayer(panel), 149);
}

void TestAnalysisPanel::rendersToPng_data() {
    QTest::addColumn<QString>("name");
    QTest::addColumn<int>("layers");
    QTest::addColumn<double>("threshold");
    QTest::addColumn<int>("selected");
    QTest::addColumn<bool>("dark");
    QTest::addColumn<double>("zoomFrom");  // first layer shown; < 0: all
    QTest::newRow("fixture, 30 dB")
        << "analysis_panel_8_layers.png" << 8 << 30.0 << 1 << false << -1.0;
    QTest::newRow("fixture, 34 dB")
        << "analysis_panel_8_layers_34db.png" << 8 << 34.0 << 4 << false << -1.0;
    QTest::newRow("synthetic 150")
        << "analysis_panel_150_layers.png" << 150 << 30.0 << 71 << false << -1.0;
    QTest::newRow("synthetic 150, zoomed")
        << "analysis_panel_150_layers_zoomed.png" << 150 << 30.0 << 42 << false << 32.0;
    QTest::newRow("synthetic 150, dark")
        << "analysis_panel_150_layers_dark.png" << 150 << 30.0 << 66 << true << -1.0;
}

void TestAnalysisPanel::rendersToPng() {
    QFETCH(QString, name);
    QFETCH(int, layers);
    QFETCH(double, threshold);
    QFETCH(int, selected);
    QFETCH(bool, dark);
    QFETCH(double, zoomFrom);
    AnalysisPanel panel;
    if (dark) {
        QPalette palette;
        palette.setColor(QPalette::Window, QColor(45, 45, 48));
        palette.setColor(QPalette::WindowText, QColor(230, 230, 230));
        palette.setColor(QPalette::Base, QColor(30, 30, 32));
        palette.setColor(QPalette::AlternateBase, QColor(40, 40, 44));
        palette.setColor(QPalette::Text, QColor(230, 230, 230));
        palette.setColor(QPalette::Button, QColor(55, 55, 58));
        palette.setColor(QPalette::ButtonText, QColor(230, 230, 230));
        palette.setColor(QPalette::Mid, QColor(90, 90, 95));
        palette.setColor(QPalette::PlaceholderText, QColor(160, 160, 165));
        panel.setPalette(palette);
    }
    panel.setReport(layers == 8 ? fixture::makeFixtureReport()
                                : fixture::makeSyntheticReport(layers));
    panel.setThresholdDb(threshold);
    panel.setLatency(std::nullopt, std::nullopt);
    show(panel);
    panel.selectLayer(selected);
    if (zoomFrom >= 0) panel.chart()->plot()->xAxis->setRange(zoomFrom - 0.5, zoomFrom + 20.5);
    panel.chart()->plot()->replot();
    QTest::qWait(50);
    const QImage image = panel.grab().toImage();
    QCOMPARE(image.size(), panel.size() * panel.devicePixelRatioF());
    const QString dir = qEnvironmentVariableIsSet("QL_SHOT_DIR")
                            ? qEnvironmentVariable("QL_SHOT_DIR")
                            : QCoreApplication::applicationDirPath();
    QVERIFY(image.save(dir + QLatin1Char('/') + name));
    // The chart area is not blank: it holds more than a couple of colours.
    const QWidget *chart = panel.chart();
    const QRect area(chart->mapTo(&panel, QPoint(0, 0)), chart->size());
    QSet<QRgb> colours;
    for (int y = area.top(); y < area.bottom(); y += 7)
        for (int x = area.left(); x < area.right(); x += 7) colours.insert(image.pixel(x, y));
    QVERIFY2(colours.size() > 8, qPrintable(QString::number(colours.size())));
}

QTEST_MAIN(TestAnalysisPanel)
#include "tst_analysis_panel.moc"
