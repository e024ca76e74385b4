// LayerTableModel over the demo model: item-model conformance, rows that match the graph, and
// sorting / filtering through LayerProxyModel.

#include <QAbstractItemModelTester>
#include <QSignalSpy>
#include <QtTest>

#include "layer_proxy_model.h"
#include "layer_table_model.h"
#include "model_snapshot.h"
#include "onnx_io/model_loader.h"

using ql::ui::LayerTableModel;

class TestLayerTableModel : public QObject {
    Q_OBJECT

private slots:
    void initTestCase();
    void emptyModel();
    void conformsToItemModelRules();
    void rowsMatchGraphNodes();
    void outputShapesComeFromShapeInference();
    void parametersCountInitializerElements();
    void sortsNumbersNumerically();
    void filtersByNameOpTypeAndShape();
    void resetsOnNewSnapshot();
    void naturalCompareOrdersDigitRunsAsNumbers();

private:
    QString display(const QAbstractItemModel &m, int row, int column) const {
        return m.index(row, column).data().toString();
    }

    ql::ui::SnapshotPtr m_snapshot;
};

void TestLayerTableModel::initTestCase() {
    auto graph = ql::loadModel(QL_DEMO_MODEL);
    QVERIFY2(graph.isOk(), graph.status().message().c_str());
    m_snapshot = ql::ui::ModelSnapshot::fromGraph(std::move(graph.value()), "fashion_cnn.onnx");
    QVERIFY(m_snapshot->graph().nodes.size() >= 10);
}

void TestLayerTableModel::emptyModel() {
    LayerTableModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    QCOMPARE(model.rowCount(), 0);
    QCOMPARE(model.columnCount(), int(LayerTableModel::ColumnCount));
    QCOMPARE(model.headerData(LayerTableModel::NameColumn, Qt::Horizontal).toString(),
             QString("Name"));
}

void TestLayerTableModel::conformsToItemModelRules() {
    LayerTableModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    ql::ui::LayerProxyModel proxy;
    QAbstractItemModelTester proxyTester(&proxy,
                                         QAbstractItemModelTester::FailureReportingMode::QtTest);
    proxy.setSourceModel(&model);
    model.setSnapshot(m_snapshot);
    proxy.sort(LayerTableModel::ParametersColumn, Qt::DescendingOrder);
    proxy.setFilterFixedString("conv");
    proxy.setFilterFixedString({});
    model.setSnapshot(nullptr);
    QCOMPARE(proxy.rowCount(), 0);
}

void TestLayerTableModel::rowsMatchGraphNodes() {
    LayerTableModel model;
    model.setSnapshot(m_snapshot);
    const ql::Graph &graph = m_snapshot->graph();
    QCOMPARE(model.rowCount(), int(graph.nodes.size()));
    for (int row = 0; row < model.rowCount(); ++row) {
        const ql::Node &node = graph.nodes[size_t(row)];
        QCOMPARE(model.index(row, LayerTableModel::IndexColumn).data().toInt(), row);
        QCOMPARE(display(model, row, LayerTableModel::NameColumn),
                 QString::fromStdString(node.name));
        QCOMPARE(display(model, row, LayerTableModel::OpTypeColumn),
                 QString::fromStdString(node.opType));
        QCOMPARE(model.index(row, LayerTableModel::OpTypeColumn)
                     .data(LayerTableModel::LayerIndexRole)
                     .toInt(),
                 row);
    }
    // The exporter's structure: conv-bn-relu blocks, then Flatten and Gemm.
    QCOMPARE(display(model, 0, LayerTableModel::OpTypeColumn), QString("Conv"));
    QCOMPARE(display(model, 1, LayerTableModel::OpTypeColumn), QString("BatchNormalization"));
    QCOMPARE(display(model, model.rowCount() - 1, LayerTableModel::OpTypeColumn), QString("Gemm"));
}

void TestLayerTableModel::outputShapesComeFromShapeInference() {
    LayerTableModel model;
    model.setSnapshot(m_snapshot);
    // Expected shapes follow from the architecture in tests/tools/make_demo.py.
    QCOMPARE(display(model, 0, LayerTableModel::OutputShapeColumn), QString("[batch,16,28,28]"));
    QCOMPARE(display(model, model.rowCount() - 1, LayerTableModel::OutputShapeColumn),
             QString("[batch,10]"));
    const ql::Graph &graph = m_snapshot->graph();
    for (int row = 0; row < model.rowCount(); ++row) {
        const ql::Node &node = graph.nodes[size_t(row)];
        if (node.opType == "MaxPool")
            QVERIFY2(display(model, row, LayerTableModel::OutputShapeColumn).endsWith(",14,14]") ||
                         display(model, row, LayerTableModel::OutputShapeColumn).endsWith(",7,7]"),
                     qPrintable(display(model, row, LayerTableModel::OutputShapeColumn)));
    }
}

void TestLayerTableModel::parametersCountInitializerElements() {
    LayerTableModel model;
    model.setSnapshot(m_snapshot);
    const ql::Graph &graph = m_snapshot->graph();
    qlonglong total = 0;
    for (int row = 0; row < model.rowCount(); ++row) {
        qlonglong expected = 0;
        for (const std::string &in : graph.nodes[size_t(row)].inputs)
            if (const ql::Tensor *t = graph.initializer(in)) expected += t->numel();
        QCOMPARE(model.index(row, LayerTableModel::ParametersColumn)
                     .data(LayerTableModel::SortRole)
                     .toLongLong(),
                 expected);
        total += expected;
    }
    // The first conv: 16 filters of 1x3x3, no bias (BatchNorm follows); BN: 4 vectors of 16.
    QCOMPARE(model.index(0, LayerTableModel::ParametersColumn)
                 .data(LayerTableModel::SortRole)
                 .toLongLong(),
             144);
    QCOMPARE(model.index(1, LayerTableModel::ParametersColumn)
                 .data(LayerTableModel::SortRole)
                 .toLongLong(),
             64);
    // Gemm: 10 x 1568 weights + 10 biases, shown with the locale's group separator.
    const int gemm = model.rowCount() - 1;
    QCOMPARE(display(model, gemm, LayerTableModel::ParametersColumn), QLocale().toString(15690));
    QCOMPARE(m_snapshot->parameterCount, total);  // no initializer is shared in this model
}

void TestLayerTableModel::sortsNumbersNumerically() {
    LayerTableModel model;
    model.setSnapshot(m_snapshot);
    ql::ui::LayerProxyModel proxy;
    proxy.setSourceModel(&model);
    proxy.sort(LayerTableModel::IndexColumn, Qt::DescendingOrder);
    QCOMPARE(proxy.index(0, LayerTableModel::IndexColumn).data().toInt(), model.rowCount() - 1);
    // Index 10 after 9 when ascending: numbers, not strings ("10" < "9").
    proxy.sort(LayerTableModel::IndexColumn, Qt::AscendingOrder);
    for (int row = 0; row < proxy.rowCount(); ++row)
        QCOMPARE(proxy.index(row, LayerTableModel::IndexColumn).data().toInt(), row);
    proxy.sort(LayerTableModel::ParametersColumn, Qt::DescendingOrder);
    QCOMPARE(proxy.index(0, LayerTableModel::OpTypeColumn).data().toString(), QString("Gemm"));
    qlonglong previous = std::numeric_limits<qlonglong>::max();
    for (int row = 0; row < proxy.rowCount(); ++row) {
        const qlonglong v = proxy.index(row, LayerTableModel::ParametersColumn)
                                .data(LayerTableModel::SortRole)
                                .toLongLong();
        QVERIFY(v <= previous);
        previous = v;
    }
    // Names in natural order: ".../features.2/..." before ".../features.10/...".
    proxy.sort(LayerTableModel::NameColumn, Qt::AscendingOrder);
    QStringList names;
    for (int row = 0; row < proxy.rowCount(); ++row)
        names << proxy.index(row, LayerTableModel::NameColumn).data().toString();
    const int relu2 = names.indexOf("/features/features.2/Relu"),
              relu10 = names.indexOf("/features/features.10/Relu");
    QVERIFY(relu2 >= 0 && relu10 >= 0);
    QVERIFY(relu2 < relu10);
}

void TestLayerTableModel::filtersByNameOpTypeAndShape() {
    LayerTableModel model;
    model.setSnapshot(m_snapshot);
    ql::ui::LayerProxyModel proxy;
    proxy.setSourceModel(&model);
    const ql::Graph &graph = m_snapshot->graph();
    auto count = [&](const char *op) {
        return int(std::count_if(graph.nodes.begin(), graph.nodes.end(),
                                 [op](const ql::Node &n) { return n.opType == op; }));
    };
    proxy.setFilterFixedString("batchnorm");  // any case
    QCOMPARE(proxy.rowCount(), count("BatchNormalization"));
    QCOMPARE(proxy.rowCount(), 3);
    for (int row = 0; row < proxy.rowCount(); ++row)
        QCOMPARE(proxy.index(row, LayerTableModel::OpTypeColumn).data().toString(),
                 QString("BatchNormalization"));
    proxy.setFilterFixedString("features.4");  // by name
    QCOMPARE(proxy.rowCount(), 1);
    QCOMPARE(proxy.index(0, LayerTableModel::OpTypeColumn).data().toString(), QString("Conv"));
    proxy.setFilterFixedString(",7,7]");  // by shape: the second pool and the last conv-bn-relu
    QCOMPARE(proxy.rowCount(), 4);
    proxy.setFilterFixedString("no such layer");
    QCOMPARE(proxy.rowCount(), 0);
    proxy.setFilterFixedString({});
    QCOMPARE(proxy.rowCount(), model.rowCount());
}

void TestLayerTableModel::resetsOnNewSnapshot() {
    LayerTableModel model;
    QSignalSpy reset(&model, &QAbstractItemModel::modelReset);
    model.setSnapshot(m_snapshot);
    QCOMPARE(reset.count(), 1);
    QCOMPARE(model.rowCount(), int(m_snapshot->layers.size()));
    model.setSnapshot(nullptr);
    QCOMPARE(reset.count(), 2);
    QCOMPARE(model.rowCount(), 0);
    QVERIFY(!model.index(0, 0).isValid());
}

void TestLayerTableModel::naturalCompareOrdersDigitRunsAsNumbers() {
    using ql::ui::naturalCompare;
    QVERIFY(naturalCompare("conv2", "conv10") < 0);
    QVERIFY(naturalCompare("conv10", "conv2") > 0);
    QVERIFY(naturalCompare("layer1.conv2", "layer1.conv2") == 0);
    QVERIFY(naturalCompare("Relu_3", "relu_20") < 0);  // case ignored
    QVERIFY(naturalCompare("a007", "a7") != 0);        // still a total order
    QVERIFY(naturalCompare("a7", "a08") < 0);
    QVERIFY(naturalCompare("block", "block1") < 0);
    QVERIFY(naturalCompare("b", "a100") > 0);
}

QTEST_MAIN(TestLayerTableModel)
#include "tst_layer_table_model.moc"
