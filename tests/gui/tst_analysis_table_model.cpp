// AnalysisTableModel over hand-filled numeric-suite reports: item-model conformance (model and
// proxy), the texts the cells show, numeric sorting with +inf / -inf / missing figures, the
// name / op / precision filter, the precision checkbox and the threshold and mismatch flags.

#include <QAbstractItemModelTester>
#include <QSignalSpy>
#include <QtTest>

#include "analysis_fixture.h"
#include "analysis_proxy_model.h"
#include "analysis_table_model.h"

using ql::ui::AnalysisTableModel;
using Col = AnalysisTableModel::Column;

class TestAnalysisTableModel : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() { QLocale::setDefault(QLocale::c()); }
    void emptyModel();
    void conformsToItemModelRules();
    void valuesShownMatchReport();
    void specialValuesShowAsSymbols();
    void sortsNumericallyWithInfAndNull();
    void sortsNamesNaturally();
    void filtersByNameOpAndPrecisionOnly();
    void toggleEmitsPrecisionToggled();
    void checkboxFollowsRequestAndPrecision();
    void thresholdMarksCumulativeAndIsolatedCells();
    void kernelMismatchIsFlagged();

private:
    static QString text(const QAbstractItemModel &m, int row, int column) {
        return m.index(row, column).data().toString();
    }
    // The report rows in the proxy's order.
    static QVector<int> order(const QAbstractItemModel &proxy) {
        QVector<int> rows;
        for (int r = 0; r < proxy.rowCount(); ++r)
            rows << proxy.index(r, 0).data(AnalysisTableModel::LayerIndexRole).toInt();
        return rows;
    }
};

void TestAnalysisTableModel::emptyModel() {
    AnalysisTableModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    QCOMPARE(model.rowCount(), 0);
    QCOMPARE(model.columnCount(), 12);
    QCOMPARE(model.headerData(Col::CumulativeSqnrColumn, Qt::Horizontal).toString(),
             QString("Cumul. dB"));
    QVERIFY(model.headerData(Col::RmseOverScaleColumn, Qt::Horizontal, Qt::ToolTipRole)
                .toString()
                .contains("0.289"));
}

void TestAnalysisTableModel::conformsToItemModelRules() {
    AnalysisTableModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    ql::ui::AnalysisProxyModel proxy;
    QAbstractItemModelTester proxyTester(&proxy,
                                         QAbstractItemModelTester::FailureReportingMode::QtTest);
    proxy.setSourceModel(&model);
    model.setReport(fixture::makeFixtureReport());
    for (int c = 0; c < model.columnCount(); ++c) {
        proxy.sort(c, Qt::AscendingOrder);
        proxy.sort(c, Qt::DescendingOrder);
    }
    proxy.setFilterFixedString("conv");
    model.setData(model.index(1, Col::PrecisionColumn), Qt::Checked, Qt::CheckStateRole);
    model.setThresholdDb(35.0);
    proxy.setFilterFixedString({});
    model.setReport(fixture::makeSyntheticReport());
    QCOMPARE(proxy.rowCount(), 150);
    model.setReport(nullptr);
    QCOMPARE(proxy.rowCount(), 0);
}

void TestAnalysisTableModel::valuesShownMatchReport() {
    AnalysisTableModel model;
    model.setReport(fixture::makeFixtureReport());
    QCOMPARE(model.rowCount(), 8);
    // /conv1/Conv: PyTorch weight 47.699, cumulative 37.003 dB (numeric_suite.json).
    QCOMPARE(text(model, 0, Col::IndexColumn), QString("0"));
    QCOMPARE(text(model, 0, Col::NameColumn), QString("/conv1/Conv"));
    QCOMPARE(text(model, 0, Col::OpTypeColumn), QString("Conv"));
    QCOMPARE(text(model, 0, Col::PrecisionColumn), QString("int8"));
    QCOMPARE(model.index(0, Col::PrecisionColumn).data(Qt::CheckStateRole).toInt(),
             int(Qt::Unchecked));
    QCOMPARE(text(model, 0, Col::WeightSqnrColumn), QString("47.7"));
    QCOMPARE(text(model, 0, Col::CumulativeSqnrColumn), QString("37.0"));
    QCOMPARE(text(model, 0, Col::IsolatedSqnrColumn), QString("40.2"));
    QCOMPARE(text(model, 0, Col::KernelSqnrColumn), QString("61.4"));
    QCOMPARE(text(model, 0, Col::RmseOverScaleColumn), QString("0.400"));
    QCOMPARE(text(model, 0, Col::SaturationColumn), QString("0.10"));
    QCOMPARE(text(model, 0, Col::SampleP5SqnrColumn), QString("34.5"));  // 37.003 - 2.5
    // cosine = 1 - 10^(-3.70030)/2 = 0.999900; fc (40.26 dB): 1 - 10^(-4.026)/2 = 0.999953
    QCOMPARE(text(model, 0, Col::CosineColumn), QString("0.99990"));
    QCOMPARE(text(model, 7, Col::CosineColumn), QString("0.99995"));
    // /conv2/Conv 43.930 / 32.649; /Add has no weights: "—".
    QCOMPARE(text(model, 1, Col::WeightSqnrColumn), QString("43.9"));
    QCOMPARE(text(model, 1, Col::CumulativeSqnrColumn), QString("32.6"));
    QCOMPARE(text(model, 2, Col::WeightSqnrColumn), QString("—"));
    QCOMPARE(text(model, 2, Col::CumulativeSqnrColumn), QString("33.3"));
    QCOMPARE(text(model, 6, Col::KernelSqnrColumn), QString("—"));
    QCOMPARE(text(model, 7, Col::WeightSqnrColumn), QString("39.0"));
    QCOMPARE(text(model, 7, Col::CumulativeSqnrColumn), QString("40.3"));
    // Sort values are the report's numbers, unrounded.
    QCOMPARE(
        model.index(1, Col::CumulativeSqnrColumn).data(AnalysisTableModel::SortRole).toDouble(),
        32.649044036865234);
    QVERIFY(!model.index(2, Col::WeightSqnrColumn).data(AnalysisTableModel::SortRole).isValid());
    QCOMPARE(model.index(5, Col::NameColumn).data(AnalysisTableModel::LayerIndexRole).toInt(), 5);
}

void TestAnalysisTableModel::specialValuesShowAsSymbols() {
    AnalysisTableModel model;
    model.setReport(fixture::makeSyntheticReport());
    QCOMPARE(text(model, 5, Col::CumulativeSqnrColumn), QString("∞"));
    QCOMPARE(text(model, 6, Col::WeightSqnrColumn), QString("∞"));
    QCOMPARE(text(model, 60, Col::IsolatedSqnrColumn), QString("120.0"));
    QCOMPARE(text(model, 70, Col::IsolatedSqnrColumn), QString("—"));  // NaN
    QCOMPARE(text(model, 80, Col::IsolatedSqnrColumn), QString("—"));  // nullopt
    QCOMPARE(text(model, 40, Col::PrecisionColumn), QString("fp32"));
    QCOMPARE(model.index(40, Col::PrecisionColumn).data(Qt::CheckStateRole).toInt(),
             int(Qt::Checked));
    auto report = fixture::makeFixtureReport();
    report->layers[3].cumulative->sqnrDb = -fixture::kInf;
    model.setReport(report);
    QCOMPARE(text(model, 3, Col::CumulativeSqnrColumn), QString("−∞"));
}

void TestAnalysisTableModel::sortsNumericallyWithInfAndNull() {
    auto report = fixture::makeFixtureReport();
    // Cumulative SQNR by row: 30, +inf, missing, 12.5, -inf, NaN, 45, 9.
    const std::optional<double> values[] = {30.0,           fixture::kInf, std::nullopt, 12.5,
                                            -fixture::kInf, fixture::kNaN, 45.0,         9.0};
    for (int i = 0; i < 8; ++i) {
        auto &l = report->layers[size_t(i)];
        if (values[i])
            l.cumulative->sqnrDb = *values[i];
        else
            l.cumulative.reset();
    }
    AnalysisTableModel model;
    model.setReport(report);
    ql::ui::AnalysisProxyModel proxy;
    proxy.setSourceModel(&model);
    proxy.sort(Col::CumulativeSqnrColumn, Qt::AscendingOrder);
    QVector<int> ascending = order(proxy);
    // Missing (row 2) and NaN (row 5) first, in either order; then -inf, 9, 12.5, 30, 45, +inf.
    QCOMPARE(QSet<int>({ascending[0], ascending[1]}), QSet<int>({2, 5}));
    QCOMPARE(ascending.mid(2), QVector<int>({4, 7, 3, 0, 6, 1}));
    proxy.sort(Col::CumulativeSqnrColumn, Qt::DescendingOrder);
    const QVector<int> descending = order(proxy);
    QCOMPARE(descending.mid(0, 6), QVector<int>({1, 6, 0, 3, 7, 4}));
    QCOMPARE(QSet<int>({descending[6], descending[7]}), QSet<int>({2, 5}));
    // Weight SQNR: the four weighted layers by value, the others (missing) first.
    model.setReport(fixture::makeFixtureReport());
    proxy.sort(Col::WeightSqnrColumn, Qt::DescendingOrder);
    QCOMPARE(order(proxy).mid(0, 4), QVector<int>({0, 4, 1, 7}));  // 47.7, 44.1, 43.9, 39.0
    // Index column: numbers (10 after 9).
    model.setReport(fixture::makeSyntheticReport(12));
    proxy.sort(Col::IndexColumn, Qt::AscendingOrder);
    QCOMPARE(order(proxy), QVector<int>({0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}));
}

void TestAnalysisTableModel::sortsNamesNaturally() {
    AnalysisTableModel model;
    model.setReport(fixture::makeSyntheticReport(96));  // blocks 0..11
    ql::ui::AnalysisProxyModel proxy;
    proxy.setSourceModel(&model);
    proxy.sort(Col::NameColumn, Qt::AscendingOrder);
    const QVector<int> rows = order(proxy);
    // features.2/... (rows 16..23) before features.10/... (rows 80..87).
    QVERIFY(rows.indexOf(16) < rows.indexOf(80));
    QVERIFY(rows.indexOf(8) < rows.indexOf(16));
}

void TestAnalysisTableModel::filtersByNameOpAndPrecisionOnly() {
    AnalysisTableModel model;
    model.setReport(fixture::makeFixtureReport());
    ql::ui::AnalysisProxyModel proxy;
    proxy.setSourceModel(&model);
    proxy.setFilterFixedString("conv");  // names and op type, any case
    QCOMPARE(order(proxy), QVector<int>({0, 1, 4}));
    proxy.setFilterFixedString("MAXPOOL");
    QCOMPARE(order(proxy), QVector<int>({3, 5}));
    proxy.setFilterFixedString("32");  // a figure (32.6) is not matched
    QCOMPARE(proxy.rowCount(), 0);
    proxy.setFilterFixedString("fp32");
    QCOMPARE(proxy.rowCount(), 0);
    model.setData(model.index(6, Col::PrecisionColumn), Qt::Checked, Qt::CheckStateRole);
    QCOMPARE(order(proxy), QVector<int>({6}));  // the toggled layer now reads "fp32"
    proxy.setFilterFixedString({});
    QCOMPARE(proxy.rowCount(), 8);
}

void TestAnalysisTableModel::toggleEmitsPrecisionToggled() {
    AnalysisTableModel model;
    model.setReport(fixture::makeFixtureReport());
    QSignalSpy toggled(&model, &AnalysisTableModel::precisionToggled);
    QSignalSpy changed(&model, &QAbstractItemModel::dataChanged);
    const QModelIndex precision = model.index(2, Col::PrecisionColumn);
    QVERIFY(model.flags(precision) & Qt::ItemIsUserCheckable);
    QVERIFY(!(model.flags(model.index(2, Col::NameColumn)) & Qt::ItemIsUserCheckable));
    QVERIFY(model.setData(precision, Qt::Checked, Qt::CheckStateRole));
    QCOMPARE(toggled.count(), 1);
    QCOMPARE(toggled.at(0).at(0).toInt(), 2);
    QCOMPARE(toggled.at(0).at(1).toBool(), true);
    QCOMPARE(changed.count(), 1);
    QCOMPARE(precision.data(Qt::CheckStateRole).toInt(), int(Qt::Checked));
    QCOMPARE(precision.data().toString(), QString("fp32"));
    QVERIFY(model.isLayerFp32(2));
    QVERIFY(model.setData(precision, Qt::Checked, Qt::CheckStateRole));  // no change
    QCOMPARE(toggled.count(), 1);
    QVERIFY(model.setData(precision, Qt::Unchecked, Qt::CheckStateRole));
    QCOMPARE(toggled.count(), 2);
    QCOMPARE(toggled.at(1).at(1).toBool(), false);
    QVERIFY(!model.setData(model.index(2, Col::NameColumn), Qt::Checked, Qt::CheckStateRole));
    QVERIFY(!model.setData(precision, "fp32", Qt::EditRole));
    QCOMPARE(toggled.count(), 2);
    // A new report starts from the report's precisions.
    model.setData(precision, Qt::Checked, Qt::CheckStateRole);
    model.setReport(fixture::makeFixtureReport());
    QVERIFY(!model.isLayerFp32(2));
}

// Kept in fp32 but still int8: partially checked, and a click (the view sends Checked) drops the
// request. fp32 without a request (the quantized model's own choice): checked, not checkable.
void TestAnalysisTableModel::checkboxFollowsRequestAndPrecision() {
    auto report = fixture::makeFixtureReport();
    report->layers[3].fp32Requested = true;  // /pool1/MaxPool: asked, still int8
    report->layers[1].fp32Requested = true;  // /conv2/Conv: asked, runs fp32
    report->layers[1].precision = "fp32";
    report->layers[5].precision = "fp32";  // not asked: fp32 in the quantized model
    AnalysisTableModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    model.setReport(report);
    auto state = [&](int row) {
        return model.index(row, Col::PrecisionColumn).data(Qt::CheckStateRole).toInt();
    };
    QCOMPARE(state(0), int(Qt::Unchecked));
    QCOMPARE(state(1), int(Qt::Checked));
    QCOMPARE(state(3), int(Qt::PartiallyChecked));
    QCOMPARE(text(model, 3, Col::PrecisionColumn), QString("int8"));
    QVERIFY(model.index(3, Col::PrecisionColumn)
                .data(Qt::ToolTipRole)
                .toString()
                .contains("still runs int8"));
    QCOMPARE(state(5), int(Qt::Checked));
    QVERIFY(!model.isToggleable(5));
    QVERIFY(!(model.flags(model.index(5, Col::PrecisionColumn)) & Qt::ItemIsUserCheckable));
    QVERIFY(model.isToggleable(1) && model.isToggleable(3) && model.isToggleable(0));

    QSignalSpy toggled(&model, &AnalysisTableModel::precisionToggled);
    QVERIFY(
        !model.setData(model.index(5, Col::PrecisionColumn), Qt::Unchecked, Qt::CheckStateRole));
    QVERIFY(model.setData(model.index(3, Col::PrecisionColumn), Qt::Checked, Qt::CheckStateRole));
    QCOMPARE(toggled.count(), 1);
    QCOMPARE(toggled.at(0).at(0).toInt(), 3);
    QCOMPARE(toggled.at(0).at(1).toBool(), false);
    QCOMPARE(state(3), int(Qt::Unchecked));  // until the next report
    QVERIFY(!model.isLayerFp32(3));
}

void TestAnalysisTableModel::thresholdMarksCumulativeAndIsolatedCells() {
    AnalysisTableModel model;
    model.setReport(fixture::makeFixtureReport());
    auto under = [&](int row, int column) {
        return model.index(row, column).data(AnalysisTableModel::UnderThresholdRole).toBool();
    };
    for (int row = 0; row < 8; ++row) QVERIFY(!under(row, Col::CumulativeSqnrColumn));
    QSignalSpy changed(&model, &QAbstractItemModel::dataChanged);
    model.setThresholdDb(33.0);
    QCOMPARE(changed.count(), 1);
    QVector<int> underRows;
    for (int row = 0; row < 8; ++row)
        if (under(row, Col::CumulativeSqnrColumn)) underRows << row;
    QCOMPARE(underRows, QVector<int>({1, 4}));  // 32.65 and 32.81 dB
    QVERIFY(model.index(1, Col::CumulativeSqnrColumn).data(Qt::BackgroundRole).isValid());
    QVERIFY(!model.index(0, Col::CumulativeSqnrColumn).data(Qt::BackgroundRole).isValid());
    QVERIFY(!model.index(1, Col::IsolatedSqnrColumn).data(Qt::BackgroundRole).isValid());  // 36.1
    model.setThresholdDb(38.6);  // isolated /Add 38.5 now under too
    QVERIFY(under(2, Col::IsolatedSqnrColumn));
    QVERIFY(!under(3, Col::IsolatedSqnrColumn));  // 38.9
    QVERIFY(!model.index(2, Col::WeightSqnrColumn)
                 .data(AnalysisTableModel::UnderThresholdRole)
                 .isValid());
    model.setThresholdDb(38.6);  // same value: no signal
    QCOMPARE(changed.count(), 2);
}

void TestAnalysisTableModel::kernelMismatchIsFlagged() {
    AnalysisTableModel model;
    model.setReport(fixture::makeSyntheticReport());
    const QModelIndex mismatch = model.index(71, Col::KernelSqnrColumn);
    QCOMPARE(mismatch.data().toString(), QString("31.5"));
    QVERIFY(mismatch.data(AnalysisTableModel::KernelMismatchRole).toBool());
    QVERIFY(!mismatch.data(Qt::DecorationRole).value<QIcon>().isNull());
    QVERIFY(mismatch.data(Qt::ToolTipRole).toString().contains("40.0"));
    const QModelIndex fine = model.index(72, Col::KernelSqnrColumn);
    QVERIFY(!fine.data(AnalysisTableModel::KernelMismatchRole).toBool());
    QVERIFY(fine.data(Qt::DecorationRole).isNull());
    // 39.9 dB without the suite's flag is still a mismatch (< 40 dB); 40.0 is not.
    auto report = fixture::makeFixtureReport();
    report->layers[0].kernelVsReferenceSqnrDb = 39.9;
    report->layers[1].kernelVsReferenceSqnrDb = 40.0;
    model.setReport(report);
    QVERIFY(model.index(0, Col::KernelSqnrColumn)
                .data(AnalysisTableModel::KernelMismatchRole)
                .toBool());
    QVERIFY(!model.index(1, Col::KernelSqnrColumn)
                 .data(AnalysisTableModel::KernelMismatchRole)
                 .toBool());
}

QTEST_MAIN(TestAnalysisTableModel)
#include "tst_analysis_table_model.moc"
