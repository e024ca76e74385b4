// DiagnosisList: one line per finding with its numbers, errors first with their icon, the
// "no findings" line, clicking a layer's finding emits its index (a model-wide one does not),
// and the threshold re-diagnoses the report.
#include <QLocale>
#include <QSignalSpy>
#include <QtTest>

#include <memory>

#include "diagnosis_list.h"

using namespace ql;
using namespace ql::analysis;
using namespace ql::ui;

class TestDiagnosisList : public QObject {
    Q_OBJECT

private:
    static std::shared_ptr<NumericSuiteReport> report() {
        auto r = std::make_shared<NumericSuiteReport>();
        for (auto [name, sqnr] : {std::pair<const char *, double>{"/conv1/Conv", 40.0},
                                  {"/conv2/Conv", 35.0},
                                  {"/bn/BatchNormalization", 12.25}}) {
            LayerReport row;
            row.name = name;
            row.opType = std::string(name).find("Batch") != std::string::npos ? "BatchNormalization"
                                                                              : "Conv";
            row.precision = "int8";
            row.cumulative = ComparisonMetrics{};
            row.cumulative->sqnrDb = sqnr;
            r->layers.push_back(row);
        }
        OutputReport out;
        out.sqnrDb = 10.0;
        out.top1Agreement = 0.5;
        r->outputs.push_back(out);
        return r;
    }

private slots:
    void linesCarryTheNumbers() {
        DiagnosisList list;
        list.setReport(report());
        // Accuracy is absent; agreement 50 % (error), BN (error), first low layer = the BN (error).
        QCOMPARE(list.count(), 3);
        QStringList texts;
        for (int i = 0; i < list.count(); ++i) texts << list.item(i)->text();
        QVERIFY2(texts.join('\n').contains(QStringLiteral("12.3")), qPrintable(texts.join('\n')));
        QVERIFY(texts.join('\n').contains(QStringLiteral("BatchNormalization")));
        QVERIFY(texts.join('\n').contains(QStringLiteral("50.0")));
        QVERIFY(!list.item(0)->icon().isNull());
        // The model-wide finding first, then the layer ones.
        QCOMPARE(list.item(0)->data(Qt::UserRole).toInt(), -1);
        QCOMPARE(list.item(1)->data(Qt::UserRole).toInt(), 2);
    }

    void clickingALayerFindingSelectsIt() {
        DiagnosisList list;
        list.setReport(report());
        QSignalSpy spy(&list, &DiagnosisList::layerActivated);
        list.show();
        QVERIFY(QTest::qWaitForWindowExposed(&list));
        QTest::mouseClick(list.viewport(), Qt::LeftButton, {},
                          list.visualItemRect(list.item(1)).center());
        QCOMPARE(spy.count(), 1);
        QCOMPARE(spy.at(0).at(0).toInt(), 2);
        QTest::mouseClick(list.viewport(), Qt::LeftButton, {},
                          list.visualItemRect(list.item(0)).center());
        QCOMPARE(spy.count(), 1);  // the whole model: nothing to select
    }

    void thresholdAndEmptyList() {
        DiagnosisList list;
        list.setReport(report());
        const int before = list.count();
        list.setThresholdDb(
            38.0);  // conv2 (35 dB) is now the first low layer, the BN a 22.8 dB jump
        QCOMPARE(list.count(), before + 1);
        bool conv2 = false;
        for (int i = 0; i < list.count(); ++i)
            conv2 |= list.item(i)->text().contains(QStringLiteral("/conv2/Conv"));
        QVERIFY(conv2);
        list.setFindings({});
        QCOMPARE(list.count(), 1);
        QCOMPARE(list.item(0)->data(Qt::UserRole).toInt(), -1);
    }

    void describeEveryKind() {
        Finding f;
        f.layerName = "/l/Conv";
        f.value = 21.5;
        f.reference = 40.0;
        f.extra = 17.25;
        f.channel = 7;
        for (int k = 0; k <= int(FindingKind::AccuracyDrop); ++k) {
            f.kind = FindingKind(k);
            QVERIFY2(!DiagnosisList::describe(f).isEmpty(), findingKindName(f.kind));
        }
        f.kind = FindingKind::WeightChannelOutlier;
        const QString text = DiagnosisList::describe(f);
        QVERIFY2(text.contains(QStringLiteral("7")) && text.contains(QStringLiteral("17.3")),
                 qPrintable(text));
        QVERIFY2(!text.contains(QStringLiteral("--remedy")), qPrintable(text));
        f.remedy = "cle";
        f.channelRangeSpread = 1600.0;
        const QString suggested = DiagnosisList::describe(f);
        QVERIFY2(suggested.startsWith(text) && suggested.contains(QLocale().toString(1600)) &&
                     suggested.contains(QStringLiteral("--remedy cle")),
                 qPrintable(suggested));
    }

    void rangeFindingReadsItsNumbers() {
        // A report whose conv output ranges 0.81 to 10 between its two samples: 12.3x.
        auto r = std::make_shared<NumericSuiteReport>();
        LayerReport row;
        row.name = "/layer1/conv";
        row.opType = "Conv";
        row.precision = "int8";
        row.cumulative = ComparisonMetrics{};
        row.cumulative->sqnrDb = 40.0;
        row.sampleRanges.min = {-0.5f, -2.0f};
        row.sampleRanges.max = {0.31f, 8.0f};
        r->layers.push_back(row);
        DiagnosisList list;
        list.setReport(r);
        QCOMPARE(list.count(), 1);
        const QString text = list.item(0)->text();
        for (const char *part :
             {"Activation range of /layer1/conv", "12.3x", "0.81 to 10)", "data-sensitive"})
            QVERIFY2(text.contains(QLatin1String(part)), qPrintable(text));
        QCOMPARE(list.item(0)->data(Qt::UserRole).toInt(), 0);

        // With the per-sample SQNR spread folded in, its numbers are in the same line.
        Finding f;
        f.kind = FindingKind::ActivationRangeVaries;
        f.layerName = "/layer1/conv";
        f.value = 40.0;
        f.reference = 0.25;
        f.extra = 10.0;
        f.sampleSqnr = SampleSqnrSummary{8.5, 12.0, 31.5, 64};
        const QString both = DiagnosisList::describe(f);
        for (const char *part : {"40.0x", "0.25 to 10", "8.5 dB", "31.5 dB"})
            QVERIFY2(both.contains(QLatin1String(part)), qPrintable(both));
    }
};

QTEST_MAIN(TestDiagnosisList)
#include "tst_diagnosis_list.moc"
