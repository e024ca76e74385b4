// SqnrChart over hand-filled reports: the plotted data equal the report's figures, missing ones
// are not drawn, +inf goes to the "∞" row, the threshold picks exactly the expected layers
// (set or dragged), clicks and selectLayer select, zoom stays on the layers, x labels thin out.

#include <qcustomplot.h>
#include <QSignalSpy>
#include <QToolTip>
#include <QtTest>

#include "analysis_fixture.h"
#include "display_format.h"
#include "sqnr_chart.h"

using ql::ui::SqnrChart;

namespace {

QVector<QPair<double, double>> points(const QCPGraph *graph) {
    QVector<QPair<double, double>> out;
    for (auto it = graph->data()->constBegin(); it != graph->data()->constEnd(); ++it)
        out << qMakePair(it->key, it->value);
    return out;
}

QVector<QPair<double, double>> points(const QCPBars *bars) {
    QVector<QPair<double, double>> out;
    for (auto it = bars->data()->constBegin(); it != bars->data()->constEnd(); ++it)
        out << qMakePair(it->key, it->value);
    return out;
}

QStringList tickLabels(QCPAxis *axis) {
    axis->parentPlot()->replot();
    return QStringList(axis->tickVectorLabels().cbegin(), axis->tickVectorLabels().cend());
}

void sendMouse(QWidget *target, QEvent::Type type, QPoint pos, Qt::MouseButton button,
               Qt::MouseButtons buttons) {
    QMouseEvent event(type, pos, target->mapToGlobal(pos), button, buttons, Qt::NoModifier);
    QCoreApplication::sendEvent(target, &event);
}

}  // namespace

class TestSqnrChart : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() { QLocale::setDefault(QLocale::c()); }
    void emptyChart();
    void dataEqualsReportFigures();
    void missingFiguresAreNotDrawn();
    void infinityGoesToTheInfinityRow();
    void fp32LayersAreDrawnApart();
    void thresholdSelectsExactlyTheLayersUnderIt();
    void draggingTheLineMovesTheThreshold();
    void clickAndSelectLayerSelect();
    void toolTipShowsNameOpAndFigures();
    void arrowKeysStepTheSelection();
    void hoverShowsToolTip();
    void zoomAndPanStayOnTheLayers();
    void xLabelsThinOutForManyLayers();
    void shortLayerNames();

private:
    void showChart(SqnrChart &chart, QSize size = {900, 450}) {
        chart.resize(size);
        chart.show();
        QVERIFY(QTest::qWaitForWindowExposed(&chart));
        chart.plot()->replot();
    }
};

void TestSqnrChart::emptyChart() {
    SqnrChart chart;
    QCOMPARE(chart.cumulativeGraph()->dataCount(), 0);
    QCOMPARE(chart.weightBars()->dataCount(), 0);
    QCOMPARE(chart.selectedLayer(), -1);
    QCOMPARE(chart.thresholdDb(), 30.0);
    QVERIFY(chart.layersUnderThreshold().isEmpty());
    QCOMPARE(chart.toolTipText(0), QString());
    chart.selectLayer(0);
    QCOMPARE(chart.selectedLayer(), -1);
}

void TestSqnrChart::dataEqualsReportFigures() {
    SqnrChart chart;
    chart.setReport(fixture::makeFixtureReport());
    using P = QPair<double, double>;
    // Weight bars at the four weighted layers (conv1, conv2, conv3, fc), PyTorch's figures.
    QCOMPARE(points(chart.weightBars()), (QVector<P>{{0, 47.698974609375},
                                                     {1, 43.93027877807617},
                                                     {4, 44.064918518066406},
                                                     {7, 38.96370315551758}}));
    QCOMPARE(chart.fp32WeightBars()->dataCount(), 0);
    QCOMPARE(points(chart.cumulativeGraph()), (QVector<P>{{0, 37.0030403137207},
                                                          {1, 32.649044036865234},
                                                          {2, 33.30987548828125},
                                                          {3, 35.01315689086914},
                                                          {4, 32.81099319458008},
                                                          {5, 34.30583572387695},
                                                          {6, 34.30583572387695},
                                                          {7, 40.26018142700195}}));
    QCOMPARE(points(chart.isolatedGraph()), (QVector<P>{{0, 40.2},
                                                        {1, 36.1},
                                                        {2, 38.5},
                                                        {3, 38.9},
                                                        {4, 35.9},
                                                        {5, 37.6},
                                                        {6, 40.1},
                                                        {7, 43.3}}));
    QCOMPARE(chart.offScaleGraph()->dataCount(), 0);
    // Scale: highest figure 47.7 -> 0..60 dB, no "∞" row.
    QCOMPARE(chart.scaleTopDb(), 60.0);
    QCOMPARE(chart.topRowDb(), 60.0);
    QVERIFY(!tickLabels(chart.plot()->yAxis).contains("∞"));
    QCOMPARE(chart.plot()->yAxis->label(), QString("SQNR (dB)"));
}

void TestSqnrChart::missingFiguresAreNotDrawn() {
    auto report = fixture::makeFixtureReport();
    report->layers[0].weightSqnrDb = fixture::kNaN;
    report->layers[3].cumulative.reset();
    report->layers[5].isolated.reset();
    report->layers[6].isolated->sqnrDb = fixture::kNaN;
    SqnrChart chart;
    chart.setReport(report);
    QCOMPARE(chart.weightBars()->dataCount(), 3);
    QCOMPARE(chart.cumulativeGraph()->dataCount(), 7);
    QCOMPARE(chart.isolatedGraph()->dataCount(), 6);
    for (const auto &p : points(chart.cumulativeGraph())) QVERIFY(p.first != 3);
    for (const auto &p : points(chart.isolatedGraph())) QVERIFY(p.first != 5 && p.first != 6);
    for (const auto &p : points(chart.cumulativeGraph())) QVERIFY(std::isfinite(p.second));
}

void TestSqnrChart::infinityGoesToTheInfinityRow() {
    auto report = fixture::makeFixtureReport();
    report->layers[6].cumulative->sqnrDb = fixture::kInf;  // Flatten: identical outputs
    SqnrChart chart;
    chart.setReport(report);
    QCOMPARE(chart.scaleTopDb(), 60.0);
    QVERIFY(chart.topRowDb() > chart.scaleTopDb());
    QVERIFY(chart.plot()->yAxis->range().contains(chart.topRowDb()));
    QCOMPARE(points(chart.cumulativeGraph())[6], qMakePair(6.0, chart.topRowDb()));
    QCOMPARE(points(chart.offScaleGraph()),
             (QVector<QPair<double, double>>{{6, chart.topRowDb()}}));
    // The line breaks there instead of spiking to the row.
    QCOMPARE(chart.cumulativeLineGraph()->dataCount(), 8);
    QVERIFY(std::isnan(points(chart.cumulativeLineGraph())[6].second));
    QCOMPARE(points(chart.cumulativeLineGraph())[5].second, 34.30583572387695);
    QVERIFY(tickLabels(chart.plot()->yAxis).contains("∞"));
    QVERIFY(!tickLabels(chart.plot()->yAxis).contains("70"));  // no scale ticks above 60
    // A finite figure beyond the scale as well: the row reads "> 60", not "∞", and 150 dB does
    // not stretch the scale (still 0..60 for the other figures).
    report->layers[7].isolated->sqnrDb = 150.0;
    chart.setReport(report);
    QCOMPARE(chart.scaleTopDb(), 60.0);
    QCOMPARE(chart.offScaleGraph()->dataCount(), 2);
    QVERIFY(tickLabels(chart.plot()->yAxis).contains("> 60"));
    // 75 dB is still on a scale (up to 80 dB).
    report->layers[7].isolated->sqnrDb = 75.0;
    chart.setReport(report);
    QCOMPARE(chart.scaleTopDb(), 80.0);
    QCOMPARE(points(chart.isolatedGraph())[7].second, 75.0);
    // -inf (all noise) goes to a row under the scale.
    report->layers[2].cumulative->sqnrDb = -fixture::kInf;
    chart.setReport(report);
    QVERIFY(chart.bottomRowDb() < 0.0);
    QCOMPARE(points(chart.cumulativeGraph())[2], qMakePair(2.0, chart.bottomRowDb()));
    QVERIFY(tickLabels(chart.plot()->yAxis).contains("−∞"));
    QVERIFY(chart.layersUnderThreshold().contains(2));
}

void TestSqnrChart::fp32LayersAreDrawnApart() {
    auto report = fixture::makeSyntheticReport();  // fp32: layers 40, 41, 97
    SqnrChart chart;
    chart.setReport(report);
    QVector<int> fp32Keys;
    for (const auto &p : points(chart.fp32WeightBars())) fp32Keys << int(p.first);
    QVector<int> expected;
    int weighted = 0;
    for (int i = 0; i < int(report->layers.size()); ++i) {
        const auto &l = report->layers[size_t(i)];
        if (l.precision == "fp32" && l.weightSqnrDb) expected << i;
        if (l.weightSqnrDb && !std::isnan(*l.weightSqnrDb)) ++weighted;
    }
    QCOMPARE(fp32Keys, expected);
    QCOMPARE(expected, QVector<int>({40}));  // 41 and 97 are Clips: no weights
    QCOMPARE(chart.weightBars()->dataCount() + chart.fp32WeightBars()->dataCount(), weighted);
    for (const auto &p : points(chart.weightBars())) QVERIFY(p.first != 40);
}

void TestSqnrChart::thresholdSelectsExactlyTheLayersUnderIt() {
    SqnrChart chart;
    chart.setReport(fixture::makeFixtureReport());
    QSignalSpy changed(&chart, &SqnrChart::thresholdChanged);
    QVERIFY(chart.layersUnderThreshold().isEmpty());  // lowest is 32.65 dB
    QCOMPARE(chart.underThresholdGraph()->dataCount(), 0);
    chart.setThresholdDb(33.0);
    QCOMPARE(changed.count(), 1);
    QCOMPARE(changed.at(0).at(0).toDouble(), 33.0);
    QCOMPARE(chart.layersUnderThreshold(), QVector<int>({1, 4}));
    QCOMPARE(chart.underThresholdGraph()->dataCount(), 2);
    chart.setThresholdDb(34.5);
    // cumulative 32.65 (conv2), 33.31 (Add), 32.81 (conv3), 34.31 (pool2, flatten)
    QCOMPARE(chart.layersUnderThreshold(), QVector<int>({1, 2, 4, 5, 6}));
    chart.setThresholdDb(36.0);  // conv3's isolated 35.9 is under too: 2 rings there
    QCOMPARE(chart.layersUnderThreshold(), QVector<int>({1, 2, 3, 4, 5, 6}));
    QCOMPARE(chart.underThresholdGraph()->dataCount(), 7);
    // Only isolated under: a layer counts by either figure.
    auto report = fixture::makeFixtureReport();
    report->layers[7].isolated->sqnrDb = 20.0;
    chart.setReport(report);
    QCOMPARE(chart.layersUnderThreshold(), QVector<int>({1, 2, 3, 4, 5, 6, 7}));
    chart.setThresholdDb(30.0);
    QCOMPARE(chart.layersUnderThreshold(), QVector<int>({7}));
    const int before = changed.count();
    chart.setThresholdDb(30.0);
    QCOMPARE(changed.count(), before);  // unchanged: no signal
}

void TestSqnrChart::draggingTheLineMovesTheThreshold() {
    SqnrChart chart;
    chart.setReport(fixture::makeFixtureReport());
    showChart(chart);
    QSignalSpy changed(&chart, &SqnrChart::thresholdChanged);
    QWidget *plot = chart.plot();
    const QCPRange xBefore = chart.plot()->xAxis->range();
    // Grab the line between layers 2 and 3, 3 px off, drag it to 35 dB.
    const QPoint start = chart.pixelFor(2, 30.0) + QPoint(20, 3);
    const QPoint end(start.x() + 40, chart.pixelFor(2, 35.0).y());
    sendMouse(plot, QEvent::MouseButtonPress, start, Qt::LeftButton, Qt::LeftButton);
    sendMouse(plot, QEvent::MouseMove, (start + end) / 2, Qt::NoButton, Qt::LeftButton);
    sendMouse(plot, QEvent::MouseMove, end, Qt::NoButton, Qt::LeftButton);
    sendMouse(plot, QEvent::MouseButtonRelease, end, Qt::LeftButton, Qt::NoButton);
    QVERIFY(changed.count() >= 1);
    QCOMPARE(chart.thresholdDb(), 35.0);  // snapped to 0.5 dB
    QCOMPARE(chart.layersUnderThreshold(), QVector<int>({1, 2, 4, 5, 6}));
    QCOMPARE(chart.plot()->xAxis->range(), xBefore);  // no pan while dragging the line
    QCOMPARE(chart.selectedLayer(), -1);              // and no click
    // Far from the line, the same gesture pans and leaves the threshold alone.
    const QPoint far = chart.pixelFor(2, 10.0);
    sendMouse(plot, QEvent::MouseButtonPress, far, Qt::LeftButton, Qt::LeftButton);
    sendMouse(plot, QEvent::MouseMove, far - QPoint(60, 0), Qt::NoButton, Qt::LeftButton);
    sendMouse(plot, QEvent::MouseButtonRelease, far - QPoint(60, 0), Qt::LeftButton, Qt::NoButton);
    QCOMPARE(chart.thresholdDb(), 35.0);
}

void TestSqnrChart::clickAndSelectLayerSelect() {
    SqnrChart chart;
    chart.setReport(fixture::makeFixtureReport());
    showChart(chart);
    QSignalSpy selected(&chart, &SqnrChart::layerSelected);
    QTest::mouseClick(chart.plot(), Qt::LeftButton, {}, chart.pixelFor(4, 10.0));
    QCOMPARE(selected.count(), 1);
    QCOMPARE(selected.at(0).at(0).toInt(), 4);
    QCOMPARE(chart.selectedLayer(), 4);
    QCOMPARE(chart.layerAt(chart.pixelFor(4, 10.0)), 4);
    QCOMPARE(chart.layerAt(chart.pixelFor(4, 10.0) + QPoint(30, 0)), 4);  // within the column
    QCOMPARE(chart.layerAt(QPoint(2, 2)), -1);                            // outside the plot
    chart.selectLayer(6);
    QCOMPARE(selected.count(), 2);
    QCOMPARE(selected.at(1).at(0).toInt(), 6);
    chart.selectLayer(6);
    QCOMPARE(selected.count(), 2);
    chart.selectLayer(99);  // out of range: nothing selected
    QCOMPARE(chart.selectedLayer(), -1);
    QCOMPARE(selected.last().at(0).toInt(), -1);
    // A layer outside the zoomed view is brought into it.
    chart.setReport(fixture::makeSyntheticReport());
    chart.plot()->xAxis->setRange(0, 20);
    chart.selectLayer(120);
    QVERIFY(chart.plot()->xAxis->range().contains(120));
}

void TestSqnrChart::toolTipShowsNameOpAndFigures() {
    SqnrChart chart;
    chart.setReport(fixture::makeFixtureReport());
    const QString tip = chart.toolTipText(1);
    QVERIFY2(tip.contains("/conv2/Conv"), qPrintable(tip));
    QVERIFY(tip.contains("Conv, runs int8"));
    QVERIFY(tip.contains("Weight SQNR: 43.9 dB"));
    QVERIFY(tip.contains("Cumulative SQNR: 32.6 dB"));
    QVERIFY(tip.contains("Isolated SQNR: 36.1 dB"));
    QVERIFY(!tip.contains("threshold"));
    chart.setThresholdDb(33.0);
    QVERIFY(chart.toolTipText(1).contains("Under the 33.0 dB threshold"));
    QVERIFY(chart.toolTipText(2).contains("Weight SQNR: — dB"));
}

void TestSqnrChart::arrowKeysStepTheSelection() {
    SqnrChart chart;
    chart.setReport(fixture::makeFixtureReport());
    QSignalSpy selected(&chart, &SqnrChart::layerSelected);
    QTest::keyClick(chart.plot(), Qt::Key_Right);  // nothing selected: the first layer
    QCOMPARE(chart.selectedLayer(), 0);
    QTest::keyClick(chart.plot(), Qt::Key_Right);
    QTest::keyClick(chart.plot(), Qt::Key_Right);
    QCOMPARE(chart.selectedLayer(), 2);
    QTest::keyClick(chart.plot(), Qt::Key_Left);
    QCOMPARE(chart.selectedLayer(), 1);
    QTest::keyClick(chart.plot(), Qt::Key_End);
    QCOMPARE(chart.selectedLayer(), 7);
    QTest::keyClick(chart.plot(), Qt::Key_Right);  // stays at the end
    QCOMPARE(chart.selectedLayer(), 7);
    QTest::keyClick(chart.plot(), Qt::Key_Home);
    QCOMPARE(chart.selectedLayer(), 0);
    QCOMPARE(selected.count(), 6);  // 0, 1, 2, 1, 7, 0
}

void TestSqnrChart::hoverShowsToolTip() {
    SqnrChart chart;
    chart.setReport(fixture::makeFixtureReport());
    showChart(chart);
    sendMouse(chart.plot(), QEvent::MouseMove, chart.pixelFor(3, 12.0), Qt::NoButton, Qt::NoButton);
    QTRY_VERIFY(QToolTip::isVisible());
    QVERIFY2(QToolTip::text().contains("/pool1/MaxPool"), qPrintable(QToolTip::text()));
    QVERIFY(QToolTip::text().contains("Cumulative SQNR: 35.0 dB"));
    sendMouse(chart.plot(), QEvent::MouseMove, chart.pixelFor(7, 12.0), Qt::NoButton, Qt::NoButton);
    QTRY_VERIFY(QToolTip::text().contains("/fc/Gemm"));
    // Near the threshold line the cursor offers to drag it.
    sendMouse(chart.plot(), QEvent::MouseMove, chart.pixelFor(5, 30.0) + QPoint(0, 2), Qt::NoButton,
              Qt::NoButton);
    QCOMPARE(chart.plot()->cursor().shape(), Qt::SizeVerCursor);
}

void TestSqnrChart::zoomAndPanStayOnTheLayers() {
    SqnrChart chart;
    chart.setReport(fixture::makeSyntheticReport());
    showChart(chart);
    QCPAxis *x = chart.plot()->xAxis;
    x->setRange(-100, 1000);
    QVERIFY(x->range().lower >= -1.0 && x->range().upper <= 150.0);
    x->setRange(140, 170);  // pan past the end: shifted back
    QVERIFY(x->range().upper <= 150.0);
    QCOMPARE(x->range().size(), 30.0);
    x->setRange(10, 10.5);  // zoom past a few layers: widened
    QVERIFY(x->range().size() >= 4.0 - 1e-9);
    chart.resetZoom();
    QVERIFY(x->range().contains(0) && x->range().contains(149));
    // The wheel zooms x only.
    const QCPRange y = chart.plot()->yAxis->range();
    const QPoint center = chart.pixelFor(75, 20.0);
    QWheelEvent wheel(center, chart.plot()->mapToGlobal(center), {}, {0, 240}, Qt::NoButton,
                      Qt::NoModifier, Qt::NoScrollPhase, false);
    QCoreApplication::sendEvent(chart.plot(), &wheel);
    QVERIFY(x->range().size() < 140.0);
    QCOMPARE(chart.plot()->yAxis->range(), y);
}

void TestSqnrChart::xLabelsThinOutForManyLayers() {
    SqnrChart chart;
    chart.setReport(fixture::makeFixtureReport());
    showChart(chart, {1000, 450});
    QStringList labels = tickLabels(chart.plot()->xAxis);
    QCOMPARE(labels,
             QStringList({"conv1", "conv2", "Add", "pool1", "conv3", "pool2", "flatten", "fc"}));
    QCOMPARE(chart.plot()->xAxis->tickLabelRotation(), 0.0);
    chart.setReport(fixture::makeSyntheticReport());
    labels = tickLabels(chart.plot()->xAxis);
    QVERIFY2(labels.size() >= 8 && labels.size() <= 40, qPrintable(QString::number(labels.size())));
    QVERIFY(chart.plot()->xAxis->tickLabelRotation() != 0.0);
    // Zoomed in on 10 layers: every layer labelled.
    chart.plot()->xAxis->setRange(20, 29);
    QVERIFY(tickLabels(chart.plot()->xAxis).size() >= 10);
}

void TestSqnrChart::shortLayerNames() {
    using ql::ui::shortLayerName;
    QCOMPARE(shortLayerName("/conv1/Conv", "Conv"), QString("conv1"));
    QCOMPARE(shortLayerName("/Add", "Add"), QString("Add"));
    QCOMPARE(shortLayerName("/layer1/layer1.0/conv1/Conv", "Conv"), QString("layer1.0/conv1"));
    QCOMPARE(shortLayerName("/features/features.1/conv/conv.0/conv.0.0/Conv", "Conv"),
             QString("features.1/conv.0.0"));
    QCOMPARE(shortLayerName("fc", "Gemm"), QString("fc"));
}

QTEST_MAIN(TestSqnrChart)
#include "tst_sqnr_chart.moc"
