// The graph view: what the outline hides and groups (Q/DQ passed through, Constant and shape
// arithmetic dropped, groups from name scopes, collapsed views), the view on a hand-made graph
// (fills from the report and the threshold, collapse and expand, selection opening groups,
// search), and in the main window on the demo: selection in sync with chart, table and
// inspector both ways, double-click toggling fp32 with undo, no re-layout after a toggle or a
// re-run,
// and a float model alone on the model page.
#include <QAction>
#include <QGraphicsView>
#include <QLineEdit>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTableView>
#include <QtTest>

#include <memory>

#include "analysis_controller.h"
#include "analysis_fixture.h"
#include "analysis_panel.h"
#include "graph_outline.h"
#include "graph_view.h"
#include "layer_inspector.h"
#include "layer_table_panel.h"
#include "main_window.h"
#include "main_window_wait.h"
#include "model_summary_widget.h"
#include "sqnr_chart.h"
#include "sqnr_colours.h"

using namespace ql;
using namespace ql::ui;

namespace {

constexpr int kLayoutTimeoutMs = 30000;

ValueInfo floatValue(const std::string &name, std::vector<int64_t> shape) {
    ValueInfo info;
    info.name = name;
    info.dtype = DataType::Float;
    info.shape = std::move(shape);
    info.hasShape = true;
    return info;
}

// input -> stem (conv, relu) -> block1 (conv1, relu, conv2 with a dequantized weight, Add with
// the stem's output) -> Q, Cast, DQ -> block2 (the same) -> head (Reshape by shape arithmetic,
// fc) -> output; plus an unused Constant.
std::shared_ptr<const Graph> residualGraph() {
    auto g = std::make_shared<Graph>();
    g->inputs.push_back(floatValue("x", {1, 8, 16, 16}));
    g->outputs.push_back(floatValue("y", {1, 10}));
    for (const char *w : {"w0", "w1", "w2", "w3", "w4", "wfc", "scale", "zero"})
        g->initializers[w] = Tensor(DataType::Float, Shape({1}));
    auto add = [&g](const std::string &name, const std::string &op, std::vector<std::string> inputs,
                    const std::string &output, DataType type = DataType::Float) {
        Node node;
        node.name = name;
        node.opType = op;
        node.inputs = std::move(inputs);
        node.outputs = {output};
        g->nodes.push_back(node);
        ValueInfo info = floatValue(output, {1, 8, 16, 16});
        info.dtype = type;
        g->valueInfo[output] = info;
    };
    add("/stem/conv/Conv", "Conv", {"x", "w0"}, "s0");
    add("/stem/relu/Relu", "Relu", {"s0"}, "s1");
    add("/block1/conv1/Conv", "Conv", {"s1", "w1"}, "a0");
    add("/block1/relu/Relu", "Relu", {"a0"}, "a1");
    // conv2's weight comes dequantized: constant, so never drawn.
    add("/block1/conv2/DequantizeLinear", "DequantizeLinear", {"w2", "scale", "zero"}, "w2dq");
    add("/block1/conv2/Conv", "Conv", {"a1", "w2dq"}, "a2");
    add("/block1/Add", "Add", {"a2", "s1"}, "a3");
    // As PyTorch exports it: a Cast to uint8 between Q and DQ.
    add("/block2/QuantizeLinear", "QuantizeLinear", {"a3", "scale", "zero"}, "q", DataType::UInt8);
    add("/block2/Cast", "Cast", {"q"}, "qc", DataType::UInt8);
    add("/block2/DequantizeLinear", "DequantizeLinear", {"qc", "scale", "zero"}, "dq");
    add("/block2/conv1/Conv", "Conv", {"dq", "w3"}, "b0");
    add("/block2/relu/Relu", "Relu", {"b0"}, "b1");
    add("/block2/conv2/Conv", "Conv", {"b1", "w4"}, "b2");
    add("/block2/Add", "Add", {"b2", "dq"}, "b3");
    add("/head/Shape", "Shape", {"b3"}, "shape", DataType::Int64);
    add("/head/Gather", "Gather", {"shape"}, "dim", DataType::Int64);
    add("/head/Concat", "Concat", {"dim"}, "dims", DataType::Int64);
    add("/head/Reshape", "Reshape", {"b3", "dims"}, "flat");
    add("/head/fc/Gemm", "Gemm", {"flat", "wfc"}, "y");
    add("/block1/Constant", "Constant", {}, "unused");
    return g;
}

int nodeNamed(const GraphOutline &outline, const QString &name) {
    for (size_t n = 0; n < outline.nodes().size(); ++n)
        if (outline.nodes()[n].name == name) return int(n);
    return -1;
}

int groupNamed(const GraphOutline &outline, const QString &path) {
    for (size_t g = 0; g < outline.groups().size(); ++g)
        if (outline.groups()[g].path == path) return int(g);
    return -1;
}

bool hasEdge(const GraphOutline &outline, const QString &from, const QString &to) {
    const int a = nodeNamed(outline, from), b = nodeNamed(outline, to);
    for (const OutlineEdge &e : outline.edges())
        if (e.from == a && e.to == b) return true;
    return false;
}

// The graph's layers as a report names them: relu folded into each conv1, Add and fc alone.
ReportPtr residualReport() {
    auto r = std::make_shared<analysis::NumericSuiteReport>();
    r->layers = {fixture::layer("/stem/conv/Conv", "Conv", 45.0, 38.0, 38.0),
                 fixture::layer("/block1/conv1/Conv", "Conv", 44.0, 31.0, 33.0),
                 fixture::layer("/block1/conv2/Conv", "Conv", 43.0, 26.0, 29.0),
                 fixture::layer("/block1/Add", "Add", {}, 24.0, 40.0),
                 fixture::layer("/block2/conv1/Conv", "Conv", 44.0, 21.0, 35.0),
                 fixture::layer("/block2/conv2/Conv", "Conv", 40.0, 15.0, 18.0),
                 fixture::layer("/head/fc/Gemm", "Gemm", 38.0, 14.0, 36.0, {}, "fp32")};
    r->layers[1].foldedFloatNodes = {"/block1/relu/Relu"};
    r->layers[4].foldedFloatNodes = {"/block2/relu/Relu"};
    return r;
}

QPoint centreOf(GraphView &view, GraphBoxItem *box) {
    view.canvas()->centerOn(box);
    return view.canvas()->mapFromScene(box->mapToScene(box->rect().center()));
}

void clickBox(GraphView &view, GraphBoxItem *box) {
    QTest::mouseClick(view.canvas()->viewport(), Qt::LeftButton, {}, centreOf(view, box));
}

bool waitLaidOut(GraphView &view);

// The residual graph in a shown view with its report, laid out.
bool showResidual(GraphView &view) {
    view.resize(900, 700);
    view.show();
    view.setGraph(residualGraph());
    view.setReport(residualReport());
    return waitLaidOut(view);
}

bool waitLaidOut(GraphView &view) {
    QElapsedTimer timer;
    timer.start();
    while (timer.elapsed() < kLayoutTimeoutMs) {
        if (view.isLaidOut()) return true;
        QTest::qWait(20);
    }
    return false;
}

}  // namespace

class TestGraphView : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() { QStandardPaths::setTestModeEnabled(true); }
    void outlineHidesQdqConstantsAndShapeArithmetic();
    void outlineGroupsFromNameScopes();
    void fillsFollowReportThresholdAndColouring();
    void groupsCollapseExpandAndOpenForSelection();
    void searchFindsAndSelects();
    void demoSelectionInSyncBothWays();
    void doubleClickTogglesWithUndoWithoutRelayout();
    void floatModelAloneOnTheModelPage();
};

void TestGraphView::outlineHidesQdqConstantsAndShapeArithmetic() {
    const auto graph = residualGraph();
    const GraphOutline plain = GraphOutline::build(*graph);
    // 12 compute nodes of 20: no Q/Cast/DQ, no constants, no Shape/Gather/Concat; plus x and y.
    QCOMPARE(int(plain.nodes().size()), 1 + 12 + 1);
    for (const char *hidden :
         {"/block2/QuantizeLinear", "/block2/Cast", "/block2/DequantizeLinear", "/block1/Constant",
          "/block1/conv2/DequantizeLinear", "/head/Shape", "/head/Gather", "/head/Concat"})
        QCOMPARE(nodeNamed(plain, hidden), -1);
    QCOMPARE(plain.nodeOfGraphNode(7), -1);  // the QuantizeLinear
    QCOMPARE(plain.nodes()[size_t(plain.nodeOfGraphNode(10))].name, QString("/block2/conv1/Conv"));
    QVERIFY(hasEdge(plain, "/block1/relu/Relu", "/block1/conv2/Conv"));
    // Edges pass through Q/DQ along the data input, naming the tensor the consumer reads...
    QVERIFY(hasEdge(plain, "/block1/Add", "/block2/conv1/Conv"));
    QVERIFY(hasEdge(plain, "/block1/Add", "/block2/Add"));
    for (const OutlineEdge &e : plain.edges())
        if (e.to == nodeNamed(plain, "/block2/conv1/Conv")) QCOMPARE(e.value, QString("dq"));
    // ...but end at shape arithmetic: Reshape reads only b3 here.
    int reshapeInputs = 0;
    for (const OutlineEdge &e : plain.edges())
        if (e.to == nodeNamed(plain, "/head/Reshape")) ++reshapeInputs;
    QCOMPARE(reshapeInputs, 1);
    QVERIFY(hasEdge(plain, "x", "/stem/conv/Conv"));
    QVERIFY(hasEdge(plain, "/head/fc/Gemm", "y"));
    QCOMPARE(plain.nodes().front().kind, OutlineNode::Kind::Input);
    QCOMPARE(plain.nodes().back().kind, OutlineNode::Kind::Output);
    QCOMPARE(plain.nodes().front().shape, QString("[1,8,16,16]"));

    OutlineOptions all;
    all.showQdq = all.showShapeComputations = true;
    const GraphOutline full = GraphOutline::build(*graph, all);
    // Only the constants still hidden: the Constant and the weight's DequantizeLinear.
    QCOMPARE(int(full.nodes().size()), 1 + 18 + 1);
    QCOMPARE(nodeNamed(full, "/block1/conv2/DequantizeLinear"), -1);
    QVERIFY(hasEdge(full, "/block1/Add", "/block2/QuantizeLinear"));
    QVERIFY(hasEdge(full, "/block2/Cast", "/block2/DequantizeLinear"));
    QVERIFY(hasEdge(full, "/block2/DequantizeLinear", "/block2/conv1/Conv"));
    QVERIFY(!hasEdge(full, "/block1/Add", "/block2/conv1/Conv"));
    QVERIFY(hasEdge(full, "/head/Concat", "/head/Reshape"));
}

void TestGraphView::outlineGroupsFromNameScopes() {
    const GraphOutline outline = GraphOutline::build(*residualGraph());
    // stem, block1, block2, head; the one-node scopes (conv, relu, fc) make no group.
    QCOMPARE(int(outline.groups().size()), 4);
    const int stem = groupNamed(outline, "/stem"), block1 = groupNamed(outline, "/block1"),
              block2 = groupNamed(outline, "/block2"), head = groupNamed(outline, "/head");
    QVERIFY(stem >= 0 && block1 >= 0 && block2 >= 0 && head >= 0);
    QCOMPARE(outline.groups()[size_t(block1)].nodeCount, 4);
    QCOMPARE(outline.groups()[size_t(head)].nodeCount, 2);  // Reshape and fc
    QCOMPARE(outline.groups()[size_t(stem)].name, QString("stem"));
    const int conv1 = nodeNamed(outline, "/block1/conv1/Conv");
    QCOMPARE(outline.nodes()[size_t(conv1)].group, block1);
    QCOMPARE(outline.groupsAround(conv1), std::vector<int>{block1});
    QCOMPARE(outline.nodes()[size_t(conv1)].label, QString("conv1"));
    // An Add named only by its scope says nothing more inside the scope's frame.
    QCOMPARE(outline.nodes()[size_t(nodeNamed(outline, "/block1/Add"))].label, QString());
    QCOMPARE(outline.nodes()[size_t(nodeNamed(outline, "x"))].group, -1);

    // Fits: nothing collapsed. Tight: the largest groups open while the count fits.
    QVERIFY(outline.defaultCollapsed(100).isEmpty());
    const QSet<int> tight = outline.defaultCollapsed(10);
    QVERIFY(!tight.contains(block1) || !tight.contains(block2));  // one of the 4-node blocks
    QVERIFY(int(outline.view(tight).items.size()) <= 10);
    QVERIFY(int(outline.view(outline.defaultCollapsed(1)).items.size()) == 6);  // x, 4 groups, y

    // block1 collapsed: one box; the stem's output reaches it twice (conv1 and the Add): one
    // edge standing for both; nothing inside it becomes a self loop.
    const OutlineView view = outline.view({block1});
    QCOMPARE(int(view.items.size()), 14 - 4 + 1);
    const int box = view.itemOfNode[size_t(conv1)];
    QVERIFY(view.items[size_t(box)].isGroup);
    QCOMPARE(view.itemOfNode[size_t(nodeNamed(outline, "/block1/Add"))], box);
    const int stemRelu = view.itemOfNode[size_t(nodeNamed(outline, "/stem/relu/Relu"))];
    int intoBlock = 0;
    for (const OutlineView::Edge &e : view.edges) {
        QVERIFY(e.from != e.to);
        if (e.from == stemRelu && e.to == box) {
            ++intoBlock;
            QCOMPARE(int(e.outline.size()), 2);
        }
    }
    QCOMPARE(intoBlock, 1);
    // Expanded groups are clusters; the stem's nodes sit in the stem's.
    const int stemConv = view.itemOfNode[size_t(nodeNamed(outline, "/stem/conv/Conv"))];
    const int cluster = view.items[size_t(stemConv)].cluster;
    QVERIFY(cluster >= 0);
    QCOMPARE(view.clusters[size_t(cluster)].group, stem);
}

void TestGraphView::fillsFollowReportThresholdAndColouring() {
    GraphView view;
    view.resize(900, 700);
    view.show();
    view.setGraph(residualGraph());
    QVERIFY(waitLaidOut(view));
    QVERIFY(view.boxOfLayer(0));
    QVERIFY(!view.boxOfLayer(0)->look().fill);  // no report: no figure, no fill
    const ReportPtr report = residualReport();
    const double layoutMs = view.lastLayoutMilliseconds();
    view.setReport(report);
    QVERIFY(view.isLaidOut());  // a report repaints, it does not lay out again
    GraphBoxItem *conv2 = view.boxOfLayer(2);
    QVERIFY(conv2);
    QCOMPARE(conv2->look().fill, sqnrFill(26.0, kDefaultThresholdDb));
    QVERIFY(conv2->look().detail.contains("26.0"));
    // The Relu folded into block1's conv1 is part of that layer: its box selects layer 1.
    GraphBoxItem *relu = view.boxOfNode(nodeNamed(view.outline(), "/block1/relu/Relu"));
    QVERIFY(relu && relu != view.boxOfLayer(1));
    QCOMPARE(relu->look().fill, sqnrFill(31.0, kDefaultThresholdDb));
    QSignalSpy changed(&view, &GraphView::currentLayerChanged);
    clickBox(view, relu);
    QCOMPARE(view.currentLayer(), 1);
    QCOMPARE(changed.count(), 1);
    QVERIFY(relu->isCurrent());
    view.setThresholdDb(20.0);
    QCOMPARE(conv2->look().fill, sqnrFill(26.0, 20.0));
    QVERIFY(conv2->look().fill != sqnrFill(26.0, kDefaultThresholdDb));
    view.setColouring(GraphView::Colouring::Isolated);
    QCOMPARE(conv2->look().fill, sqnrFill(29.0, 20.0));
    // The fp32 layer: marked and grey, whatever its figures.
    QVERIFY(view.boxOfLayer(6)->look().fp32);
    QCOMPARE(view.boxOfLayer(6)->look().fill, std::optional<QColor>(kFp32Color.lighter(160)));
    // Findings as badges on their layer's box.
    analysis::Finding finding;
    finding.layer = 2;
    view.setFindings({finding, finding});
    QCOMPARE(conv2->look().findings, 2);
    QCOMPARE(view.boxOfLayer(0)->look().findings, 0);
    QCOMPARE(view.lastLayoutMilliseconds(), layoutMs);
    // Showing Q/DQ makes a new outline; a repaint asked for before its layout is in must not
    // reach the old scene's boxes.
    const size_t nodes = view.outline().nodes().size();
    view.selectLayer(4);
    view.setShowQdq(true);
    view.setThresholdDb(25.0);
    QVERIFY(waitLaidOut(view));
    QCOMPARE(view.outline().nodes().size(), nodes + 3);  // Q, Cast, DQ
    QCOMPARE(view.currentLayer(), 4);  // the selection survives
    QVERIFY(view.boxOfLayer(4) && view.boxOfLayer(4)->isCurrent());
    QCOMPARE(view.boxOfLayer(2)->look().fill, sqnrFill(29.0, 25.0));
}

void TestGraphView::groupsCollapseExpandAndOpenForSelection() {
    GraphView view;
    QVERIFY(showResidual(view));
    const int block2 = groupNamed(view.outline(), "/block2");
    QVERIFY(view.collapsedGroups().isEmpty());
    QVERIFY(view.boxOfLayer(5));
    QSignalSpy laidOut(&view, &GraphView::layoutFinished);
    view.setGroupCollapsed(block2, true);
    QVERIFY(waitLaidOut(view));
    QVERIFY(laidOut.count() >= 1);
    QVERIFY(!view.boxOfLayer(5));  // inside the collapsed group
    GraphBoxItem *group = view.boxOfGroup(block2);
    QVERIFY(group);
    QVERIFY(group->look().stacked);
    QVERIFY(group->look().subtitle.contains("4"));
    // The group shows its worst layer: block2's conv2 at 15 dB.
    QCOMPARE(group->look().fill, sqnrFill(15.0, kDefaultThresholdDb));
    // A click on the group opens it.
    clickBox(view, group);
    QVERIFY(waitLaidOut(view));
    QVERIFY(!view.collapsedGroups().contains(block2));
    QVERIFY(view.boxOfLayer(5));
    QVERIFY(!view.boxOfGroup(block2));
    // Collapsing back comes from the cache: no new Graphviz run, the same place.
    view.setGroupCollapsed(block2, true);
    QVERIFY(view.isLaidOut());
    QVERIFY(view.boxOfGroup(block2));
    // Selecting a layer inside a collapsed group opens the group and marks its box.
    QSignalSpy changed(&view, &GraphView::currentLayerChanged);
    view.selectLayer(5);
    QVERIFY(waitLaidOut(view));
    QVERIFY(!view.collapsedGroups().contains(block2));
    QVERIFY(view.boxOfLayer(5) && view.boxOfLayer(5)->isCurrent());
    QCOMPARE(changed.count(), 0);  // the caller's selection, not the user's
    // Expand All and back to the first groups.
    view.expandAll();
    QVERIFY(waitLaidOut(view));
    QVERIFY(view.collapsedGroups().isEmpty());
}

void TestGraphView::searchFindsAndSelects() {
    GraphView view;
    QVERIFY(showResidual(view));
    // Ctrl+F in the canvas goes to the search field.
    view.canvas()->setFocus();
    QTest::keyClick(view.canvas(), Qt::Key_F, Qt::ControlModifier);
    QTRY_VERIFY(view.searchEdit()->hasFocus());
    QSignalSpy changed(&view, &GraphView::currentLayerChanged);
    QTest::keyClicks(view.searchEdit(), "conv2");
    QVERIFY(view.boxOfLayer(2)->isMatch());
    QVERIFY(view.boxOfLayer(5)->isMatch());
    QVERIFY(!view.boxOfLayer(1)->isMatch());
    QTest::keyClick(view.searchEdit(), Qt::Key_Return);
    QCOMPARE(view.currentLayer(), 2);
    QTest::keyClick(view.searchEdit(), Qt::Key_Return);
    QCOMPARE(view.currentLayer(), 5);
    QCOMPARE(changed.count(), 2);
    QCOMPARE(changed.last().at(0).toInt(), 5);
}

void TestGraphView::demoSelectionInSyncBothWays() {
    MainWindow window(MainWindow::Options{false, false, false});
    window.resize(1600, 1000);
    window.show();
    window.openDemo();
    QVERIFY(waitIdle(window));
    QAction *showGraph = window.findChild<QAction *>("actionShowGraph");
    QVERIFY(showGraph && showGraph->isEnabled());
    QCOMPARE(showGraph->shortcut(), QKeySequence(QStringLiteral("Ctrl+3")));
    showGraph->trigger();
    AnalysisPanel *panel = window.analysisPanel();
    GraphView *graph = panel->graphView();
    QCOMPARE(panel->view(), AnalysisPanel::View::Graph);
    QVERIFY(graph->isVisible());
    QVERIFY(waitLaidOut(*graph));
    const ReportPtr report = window.analysis()->report();
    // Every layer of the demo's report has a box.
    for (size_t l = 0; l < report->layers.size(); ++l)
        QVERIFY2(graph->boxOfLayer(int(l)), report->layers[l].name.c_str());

    // Graph -> chart, table, inspector.
    const int layer = 2;
    clickBox(*graph, graph->boxOfLayer(layer));
    QCOMPARE(panel->currentLayer(), layer);
    QCOMPARE(panel->chart()->selectedLayer(), layer);
    QCOMPARE(panel->tableView()->currentIndex().row(), layer);  // sorted by index
    QCOMPARE(window.inspector()->layer(), layer);
    QVERIFY(graph->boxOfLayer(layer)->isCurrent());
    // Table -> graph.
    panel->tableView()->selectRow(4);
    QCOMPARE(panel->currentLayer(), 4);
    QCOMPARE(graph->currentLayer(), 4);
    QVERIFY(graph->boxOfLayer(4)->isCurrent());
    QVERIFY(!graph->boxOfLayer(layer)->isCurrent());
    // Chart (or diagnosis) -> graph.
    panel->selectLayer(0);
    QCOMPARE(graph->currentLayer(), 0);
    // A node folded into a layer (the demo's BatchNormalization) selects that layer.
    const auto &nodes = graph->outline().nodes();
    for (size_t n = 0; n < nodes.size(); ++n)
        if (nodes[n].opType == "BatchNormalization") {
            const std::string name = nodes[n].name.toStdString();
            int owner = -1;
            for (size_t l = 0; l < report->layers.size(); ++l)
                for (const std::string &folded : report->layers[l].foldedFloatNodes)
                    if (folded == name) owner = int(l);
            QVERIFY2(owner >= 0, name.c_str());
            panel->selectLayer(-1);
            QCOMPARE(graph->currentLayer(), -1);
            graph->searchEdit()->setText(nodes[n].name);
            graph->findNext();
            QCOMPARE(panel->currentLayer(), owner);
            break;
        }
    // Back to the chart: Ctrl+2.
    window.findChild<QAction *>("actionShowAnalysis")->trigger();
    QCOMPARE(panel->view(), AnalysisPanel::View::Chart);
}

void TestGraphView::doubleClickTogglesWithUndoWithoutRelayout() {
    MainWindow window(MainWindow::Options{false, false, false});
    window.resize(1600, 1000);
    window.show();
    window.openDemo();
    QVERIFY(waitIdle(window));
    window.showGraph();
    GraphView *graph = window.analysisPanel()->graphView();
    QVERIFY(waitLaidOut(*graph));
    const ReportPtr before = window.analysis()->report();
    const int layer = 2;
    const std::string name = before->layers[layer].name;
    GraphBoxItem *box = graph->boxOfLayer(layer);
    QVERIFY(!box->look().fp32);
    const auto fillBefore = box->look().fill;
    QSignalSpy laidOut(graph, &GraphView::layoutFinished);
    QTest::mouseDClick(graph->canvas()->viewport(), Qt::LeftButton, {}, centreOf(*graph, box));
    QVERIFY(waitIdle(window));
    QTRY_VERIFY(window.analysis()->report() != before);
    QVERIFY(waitIdle(window));
    QCOMPARE(window.analysis()->fp32Layers(), std::set<std::string>{name});
    // The same box on the same scene, now marked fp32: the view followed without a layout.
    QCOMPARE(graph->boxOfLayer(layer), box);
    QVERIFY(box->look().fp32);
    QCOMPARE(laidOut.count(), 0);
    // Undo: int8 again, the first fill back.
    window.findChild<QAction *>("actionUndo")->trigger();
    QVERIFY(waitIdle(window));
    QTRY_VERIFY(window.analysis()->fp32Layers().empty());
    QVERIFY(waitIdle(window));
    QVERIFY(!box->look().fp32);
    QCOMPARE(box->look().fill, fillBefore);
    QCOMPARE(laidOut.count(), 0);
    // Run Analysis Again loads the models anew: the same graph, so the same boxes stay.
    const ReportPtr beforeRerun = window.analysis()->report();
    window.findChild<QAction *>("actionRerun")->trigger();
    QTRY_VERIFY_WITH_TIMEOUT(window.analysis()->report() != beforeRerun, kAnalysisTimeoutMs);
    QVERIFY(waitIdle(window));
    QCOMPARE(graph->boxOfLayer(layer), box);
    QCOMPARE(box->look().fill, fillBefore);
    QCOMPARE(laidOut.count(), 0);
}

void TestGraphView::floatModelAloneOnTheModelPage() {
    MainWindow window(MainWindow::Options{false, false, false});
    window.resize(1400, 900);
    window.show();
    window.openPath(QStringLiteral(QL_DEMO_MODEL));
    QTRY_VERIFY_WITH_TIMEOUT(window.summary()->isVisible(), 20000);
    QAction *showGraph = window.findChild<QAction *>("actionShowGraph");
    QTRY_VERIFY(showGraph->isEnabled());
    showGraph->trigger();
    GraphView *graph = window.modelGraph();
    QVERIFY(graph->isVisible());
    QVERIFY(waitLaidOut(*graph));
    const auto &nodes = graph->outline().nodes();
    // No report: layers are the graph's nodes, as the model page's table numbers them.
    int conv = -1;
    for (const OutlineNode &node : nodes)
        if (node.opType == "Conv" && node.graphNode > 0) {
            conv = node.graphNode;
            break;
        }
    QVERIFY(conv > 0);
    GraphBoxItem *box = graph->boxOfLayer(conv);
    QVERIFY(box);
    QVERIFY(!box->look().fill);
    QSignalSpy rows(window.layerPanel(), &LayerTablePanel::currentLayerChanged);
    clickBox(*graph, box);
    QCOMPARE(graph->currentLayer(), conv);
    QVERIFY(rows.count() >= 1);
    QCOMPARE(rows.last().at(0).toInt(), conv);
    // And the table's selection comes back to the graph.
    window.layerPanel()->selectLayer(0);
    QCOMPARE(graph->currentLayer(), 0);
}

QTEST_MAIN(TestGraphView)
#include "tst_graph_view.moc"
