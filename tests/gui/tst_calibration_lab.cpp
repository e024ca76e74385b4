// The calibration lab's GUI on the demo: the dialog's fields and one-line validation, a small lab
// (2 methods x 2 sizes x 2 repeats) run through the job off the GUI thread and shown on the page
// (run table sorted by accuracy, one chart series per method whose means are the runs' means,
// comparisons, double-click opens a run), a run opened as an analysis reproduces the lab's
// figures (directly and through the main window), Cancel keeps the finished runs, the JSON reader
// on hand-made labs, and the project's copy of the lab with relative paths.
// The pool is the demo's (resources/demo/pool: 64 training images, one file each); the evaluation
// set its 64 test samples with labels.

#include <qcustomplot.h>
#include <QAbstractItemModelTester>
#include <QCheckBox>
#include <QJsonArray>
#include <QLineEdit>
#include <QMenu>
#include <QMenuBar>
#include <QPushButton>
#include <QSignalSpy>
#include <QSpinBox>
#include <QStandardPaths>
#include <QTableView>
#include <QtTest>

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>

#include "analysis_controller.h"
#include "analysis_job.h"
#include "calibration_comparison_model.h"
#include "calibration_lab_chart.h"
#include "calibration_lab_controller.h"
#include "calibration_lab_data.h"
#include "calibration_lab_dialog.h"
#include "calibration_lab_job.h"
#include "calibration_lab_settings.h"
#include "calibration_lab_view.h"
#include "calibration_run_model.h"
#include "layer_proxy_model.h"
#include "main_window.h"

using ql::ui::CalibrationLabSettings;
using ql::ui::CalibrationRunModel;

namespace {

constexpr int kLabTimeoutMs = 600000;

struct LabOutcome {
    QJsonObject json;
    ql::ui::CalibrationLabPtr live;
    QString error;
    ql::ErrorKind kind = ql::ErrorKind::None;
    bool done = false;
};

// Runs `settings` through a job and waits; `onProgress` sees every progress report.
LabOutcome runLab(const CalibrationLabSettings &settings,
                  const std::function<void(ql::ui::CalibrationLabJob &, const QString &, int, int)>
                      &onProgress = {}) {
    LabOutcome outcome;
    ql::ui::CalibrationLabJob job;
    QObject::connect(&job, &ql::ui::CalibrationLabJob::finished,
                     [&outcome](const QJsonObject &json, const ql::ui::CalibrationLabPtr &live) {
                         outcome.json = json;
                         outcome.live = live;
                         outcome.done = true;
                     });
    QObject::connect(&job, &ql::ui::CalibrationLabJob::failed,
                     [&outcome](const QString &message, ql::ErrorKind kind) {
                         outcome.error = message;
                         outcome.kind = kind;
                         outcome.done = true;
                     });
    QObject::connect(&job, &ql::ui::CalibrationLabJob::progress,
                     [&job, &onProgress](const QString &stage, int done, int total, double) {
                         if (onProgress) onProgress(job, stage, done, total);
                     });
    if (!job.start(settings, 2)) return outcome;
    QElapsedTimer timer;
    timer.start();
    while (!outcome.done && timer.elapsed() < kLabTimeoutMs) QTest::qWait(20);
    return outcome;
}

QVector<double> proxyColumn(const QAbstractItemModel *model, int column) {
    QVector<double> values;
    for (int row = 0; row < model->rowCount(); ++row)
        values << model->index(row, column).data(CalibrationRunModel::SortRole).toDouble();
    return values;
}

// A run as calibrationLabJson writes it ("percentile" with its percentile in the id's spelling).
QJsonObject handMadeRun(const QString &id, const QString &method, int size, int repeat,
                        const QJsonValue &identicalTo, const QJsonValue &output) {
    const QJsonValue percentile = method == "percentile"
                                      ? QJsonValue(id.section(':', 1).section('-', 0, 0).toDouble())
                                      : QJsonValue(QJsonValue::Null);
    QJsonObject run{{"id", id},
                    {"method", method},
                    {"percentile", percentile},
                    {"size", size},
                    {"repeat", repeat},
                    {"selection", "random"},
                    {"calib_batch", 1},
                    {"calib_indices", QJsonArray{0, 2}},
                    {"identical_to", identicalTo},
                    {"seconds", 0.1}};
    if (!output.isNull()) run.insert("output", output);
    return run;
}

}  // namespace

class TestCalibrationLab : public QObject {
    Q_OBJECT

private slots:
    void initTestCase();
    void positiveLists();
    void dialogFieldsAndValidation();
    void smallLabFillsThePage();
    void openedRunReproducesTheLab();
    void remediedRunOpensWithItsRemedies();
    void cancelKeepsFinishedRuns();
    void cancelBeforeTheRunsFails();
    void readerBorrowsIdenticalRunsAndScoresAgreementWithoutLabels();
    void projectCopyHasRelativePaths();
    void mainWindowOpensARunAsTheAnalysis();

private:
    CalibrationLabSettings smallLab() const;

    QString m_demoDir, m_pool;
    QStringList m_poolFiles;
    LabOutcome m_small;  // smallLab(), run once by smallLabFillsThePage
};

void TestCalibrationLab::initTestCase() {
    QStandardPaths::setTestModeEnabled(true);
    QLocale::setDefault(QLocale::c());
    m_demoDir = QFileInfo(QL_DEMO_MODEL).absolutePath();
    m_pool = m_demoDir + "/pool";
    for (const QString &name : QDir(m_pool).entryList({"*.npy"}, QDir::Files, QDir::Name))
        m_poolFiles << m_pool + "/" + name;
    QCOMPARE(m_poolFiles.size(), 64);
}

CalibrationLabSettings TestCalibrationLab::smallLab() const {
    CalibrationLabSettings s;
    s.floatModel = m_demoDir + "/fashion_cnn.onnx";
    s.poolPaths = {m_pool};
    s.evaluationPaths = {m_demoDir + "/samples.npy"};
    s.labelsPath = m_demoDir + "/labels.npy";
    s.methods = {"minmax", "entropy"};
    s.sizes = "8,16";
    s.repeats = 2;
    s.seed = 7;
    return s;
}

void TestCalibrationLab::positiveLists() {
    QString error;
    QCOMPARE(*ql::ui::parsePositiveList("16, 8;32 8", "Sizes", &error), (QList<qint64>{8, 16, 32}));
    QVERIFY(!ql::ui::parsePositiveList("8,0", "Sizes", &error));
    QCOMPARE(error, QString("Sizes: '0' is not a positive number"));
    QVERIFY(!ql::ui::parsePositiveList("8,x", "Sizes", &error));
    QCOMPARE(error, QString("Sizes: 'x' is not a positive number"));
    QVERIFY(!ql::ui::parsePositiveList("-4", "Calibration batches", &error));
    QCOMPARE(error, QString("Calibration batches: '-4' is not a positive number"));
    QVERIFY(!ql::ui::parsePositiveList(" , ", "Sizes", &error));
    QCOMPARE(error, QString("Sizes: enter at least one number"));
}

void TestCalibrationLab::dialogFieldsAndValidation() {
    ql::ui::CalibrationLabDialog dialog(CalibrationLabSettings{});
    QVERIFY(!dialog.runButton()->isEnabled());  // no model yet
    QCOMPARE(dialog.validationMessage(), QString("Choose the float model"));
    dialog.floatModelEdit()->setText(m_demoDir + "/fashion_cnn.onnx");
    dialog.poolEdit()->setText(m_pool);
    dialog.evaluationEdit()->setText(m_demoDir + "/samples.npy");
    dialog.labelsEdit()->setText(m_demoDir + "/labels.npy");
    for (const QString &method : CalibrationLabSettings::kMethods)
        dialog.methodBox(method)->setChecked(method == "minmax" || method == "entropy");
    dialog.sizesEdit()->setText("8, 0");
    QCOMPARE(dialog.validationMessage(), QString("Sizes: '0' is not a positive number"));
    QVERIFY(!dialog.runButton()->isEnabled());
    dialog.sizesEdit()->setText("16,8");
    dialog.repeatsSpinBox()->setValue(2);
    QVERIFY2(dialog.validationMessage().isEmpty(), qPrintable(dialog.validationMessage()));
    QVERIFY(dialog.runButton()->isEnabled());
    QVERIFY(!dialog.percentileSpinBox()->isEnabled());  // percentile unchecked
    // No translator in the test: the plural stays as written.
    QCOMPARE(dialog.findChild<QLabel *>("labPlannedRuns")->text(), QString("8 run(s) planned"));

    const CalibrationLabSettings s = dialog.settings();
    QCOMPARE(s.methods, (QStringList{"minmax", "entropy"}));
    QCOMPARE(s.poolPaths, QStringList{m_pool});
    QCOMPARE(s.plannedRuns(), 8);
    QCOMPARE(s.engineMethods(), (QStringList{"minmax", "entropy"}));
    CalibrationLabSettings withPercentile = s;
    withPercentile.methods << "percentile";
    withPercentile.percentile = 99.9;
    QCOMPARE(withPercentile.engineMethods().last(), QString("percentile:99.9"));

    // The project's copy: relative paths, and back.
    const QDir base(m_demoDir);
    const QJsonObject json = s.toJson(&base);
    QCOMPARE(json.value("labels").toString(), QString("labels.npy"));
    QCOMPARE(CalibrationLabSettings::fromJson(json, &base), s);
    QVERIFY(CalibrationLabSettings::fromJson(json, nullptr) != s);

    // A missing file is refused on Run with its name, and the dialog stays open.
    dialog.labelsEdit()->setText(m_demoDir + "/no_such_labels.npy");
    dialog.accept();
    QCOMPARE(dialog.result(), int(QDialog::Rejected));
    QCOMPARE(dialog.validationMessage(),
             QString("No such file or folder: %1/no_such_labels.npy").arg(m_demoDir));
    dialog.labelsEdit()->setText(m_demoDir + "/labels.npy");
    dialog.accept();
    QCOMPARE(dialog.result(), int(QDialog::Accepted));
}

void TestCalibrationLab::smallLabFillsThePage() {
    int progressReports = 0, runsTotal = -1;
    m_small =
        runLab(smallLab(), [&](ql::ui::CalibrationLabJob &, const QString &stage, int, int total) {
            ++progressReports;
            if (stage == "Calibration runs") runsTotal = total;
        });
    QVERIFY2(m_small.done && m_small.error.isEmpty(), qPrintable(m_small.error));
    QVERIFY(m_small.live);
    QVERIFY(progressReports > 0);
    QCOMPARE(runsTotal, 8);
    const QJsonObject &json = m_small.json;
    QCOMPARE(json.value("complete").toBool(), true);
    QCOMPARE(json.value("runs_planned").toInt(), 8);
    QCOMPARE(json.value("metric").toString(), QString("accuracy"));
    const QJsonArray runs = json.value("runs").toArray();
    QCOMPARE(runs.size(), 8);
    for (const QJsonValue &run : runs)
        QCOMPARE(run["calib_indices"].toArray().size(), run["size"].toInt());

    ql::ui::CalibrationLabView view;
    view.resize(1100, 800);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    view.setLab(json);
    QAbstractItemModelTester runTester(view.runModel(),
                                       QAbstractItemModelTester::FailureReportingMode::QtTest);
    QAbstractItemModelTester proxyTester(view.runProxy(),
                                         QAbstractItemModelTester::FailureReportingMode::QtTest);
    QAbstractItemModelTester comparisonTester(
        view.comparisonModel(), QAbstractItemModelTester::FailureReportingMode::QtTest);
    QCOMPARE(view.runModel()->rowCount(), 8);
    QVERIFY2(view.headerText().contains("8 of 8 runs"), qPrintable(view.headerText()));
    QVERIFY(!view.headerText().contains("cancelled"));
    QVERIFY(view.headerText().contains("Float model accuracy"));

    // Sorted by accuracy, both ways: the JSON's accuracies in order.
    QVector<double> accuracies;
    for (const QJsonValue &run : runs) accuracies << run["output"]["accuracy"].toDouble();
    std::sort(accuracies.begin(), accuracies.end());
    qInfo("8 runs: accuracy %.4f to %.4f, %d comparisons", accuracies.front(), accuracies.back(),
          int(json.value("comparisons").toArray().size()));
    QVERIFY(accuracies.front() > 0.5);  // the demo model scores ~90 %
    view.runTable()->sortByColumn(CalibrationRunModel::AccuracyColumn, Qt::AscendingOrder);
    QCOMPARE(proxyColumn(view.runProxy(), CalibrationRunModel::AccuracyColumn), accuracies);
    view.runTable()->sortByColumn(CalibrationRunModel::AccuracyColumn, Qt::DescendingOrder);
    std::reverse(accuracies.begin(), accuracies.end());
    QCOMPARE(proxyColumn(view.runProxy(), CalibrationRunModel::AccuracyColumn), accuracies);

    // The chart: one series per method; its means per size are the runs' means.
    ql::ui::CalibrationLabChart *chart = view.chart();
    QCOMPARE(chart->seriesNames(), (QStringList{"minmax", "entropy"}));
    for (int s = 0; s < 2; ++s) {
        std::map<int, std::pair<double, int>> expected;
        for (const QJsonValue &run : runs)
            if (run["method"].toString() == chart->seriesNames()[s]) {
                expected[run["size"].toInt()].first += run["output"]["accuracy"].toDouble() * 100;
                expected[run["size"].toInt()].second += 1;
            }
        QCOMPARE(int(expected.size()), 2);
        QCOMPARE(chart->meanGraph(s)->dataCount(), 2);
        QCOMPARE(chart->repeatGraph(s)->dataCount(), 4);
        QCOMPARE(chart->errorBars(s)->dataCount(), 4);
        auto mean = chart->meanGraph(s)->data()->constBegin();
        for (const auto &[size, sum] : expected) {
            QVERIFY(std::abs(mean->value - sum.first / sum.second) < 1e-9);
            QVERIFY(std::abs(std::round(mean->key) - std::log2(size)) < 1e-9);
            ++mean;
        }
    }
    QVERIFY(chart->floatLine()->visible());
    const double floatAccuracy = json["float"]["accuracy"].toDouble();
    QVERIFY(std::abs(chart->floatLine()->point1->value() - floatAccuracy * 100) < 1e-9);

    const int comparisons = json.value("comparisons").toArray().size();
    QVERIFY(comparisons > 0);
    QCOMPARE(view.comparisonModel()->rowCount(), comparisons);
    QVERIFY(!view.comparisonTable()
                 ->model()
                 ->index(0, ql::ui::CalibrationComparisonModel::VerdictColumn)
                 .data()
                 .toString()
                 .isEmpty());

    // Double-click on a row and on a chart point open that run.
    QSignalSpy activated(&view, &ql::ui::CalibrationLabView::runActivated);
    const QModelIndex third = view.runProxy()->index(2, CalibrationRunModel::MethodColumn);
    const QString thirdId = third.data(CalibrationRunModel::RunIdRole).toString();
    QVERIFY(!thirdId.isEmpty());
    const QPoint center = view.runTable()->visualRect(third).center();
    QTest::mouseClick(view.runTable()->viewport(), Qt::LeftButton, {}, center);
    QTest::mouseDClick(view.runTable()->viewport(), Qt::LeftButton, {}, center);
    QCOMPARE(activated.count(), 1);
    QCOMPARE(activated.takeFirst().at(0).toString(), thirdId);
    chart->plot()->replot();
    const QString firstId = runs[0]["id"].toString();
    const QPoint point = chart->pixelOf(firstId);
    QVERIFY(!point.isNull());
    QCOMPARE(chart->runAt(point), firstId);
    QTest::mouseDClick(chart->plot(), Qt::LeftButton, {}, point);
    QCOMPARE(activated.count(), 1);
    QCOMPARE(activated.takeFirst().at(0).toString(), firstId);
}

void TestCalibrationLab::openedRunReproducesTheLab() {
    QVERIFY2(m_small.done && m_small.error.isEmpty(), "needs smallLabFillsThePage");
    const ql::ui::CalibrationLabData data = ql::ui::parseCalibrationLab(m_small.json);
    const ql::ui::CalibrationLabRun *run = nullptr;
    for (const ql::ui::CalibrationLabRun &candidate : data.runs)
        if (candidate.method == "minmax" && candidate.size == 8) run = &candidate;
    QVERIFY(run);
    AnalysisSetup current;
    current.int8Kernels = "exact";
    AnalysisSetup setup;
    std::set<std::string> fp32;
    QString error;
    QVERIFY2(CalibrationLabController::analysisSetupForRun(m_small.json, smallLab(), run->id,
                                                           current, setup, fp32, error),
             qPrintable(error));
    QStringList expectedFiles;
    for (const qint64 index : run->calibIndices) expectedFiles << m_poolFiles.at(int(index));
    QCOMPARE(setup.calibrationPaths, expectedFiles);
    QVERIFY(setup.quantizeInApp);
    QCOMPARE(setup.quantizer.method, QString("minmax"));
    QCOMPARE(setup.quantizer.calibrationBatch, 1);
    QCOMPARE(setup.quantizer.toJson().value("calib_batch").toInt(), 1);
    QCOMPARE(setup.dataPaths, QStringList{m_demoDir + "/samples.npy"});
    QCOMPARE(setup.labelsPath, m_demoDir + "/labels.npy");
    QVERIFY(fp32.empty());
    QVERIFY(!CalibrationLabController::analysisSetupForRun(m_small.json, smallLab(), "no-such-run",
                                                           current, setup, fp32, error));

    // The analysis of that setup gives the lab's figures.
    ql::ui::AnalysisRequest request;
    QVERIFY2(setup.toRequest(request, error), qPrintable(error));
    QCOMPARE(request.calibrationBatch, int64_t(1));
    request.measureLatency = false;
    request.threads = 2;
    ql::ui::AnalysisJob job;
    QSignalSpy reports(&job, &ql::ui::AnalysisJob::reportReady);
    QSignalSpy failures(&job, &ql::ui::AnalysisJob::failed);
    job.start(request);
    QTRY_VERIFY_WITH_TIMEOUT(reports.count() + failures.count() > 0, kLabTimeoutMs);
    QCOMPARE(failures.count(), 0);
    const ql::ui::ReportPtr report = job.report();
    QVERIFY(report && !report->outputs.empty());
    QVERIFY(report->outputs[0].quantAccuracy && run->accuracy);
    QCOMPARE(*report->outputs[0].quantAccuracy, *run->accuracy);
    QVERIFY(run->sqnrDb);
    QVERIFY2(
        std::abs(report->outputs[0].sqnrDb - *run->sqnrDb) < 0.01,
        qPrintable(
            QString("analysis %1 dB, lab %2 dB").arg(report->outputs[0].sqnrDb).arg(*run->sqnrDb)));
}

// A remedies axis in the GUI's lab: the remedied runs are a series of their own, compared with
// the same calibration without remedies, and one opened as an analysis gets the setup's remedies
// and the lab's figures.
void TestCalibrationLab::remediedRunOpensWithItsRemedies() {
    CalibrationLabSettings s = smallLab();
    s.methods = {"minmax"};
    s.sizes = "16";
    s.repeats = 1;
    s.perTensor = true;
    s.remedies = "none, adaround+bias-correction";
    QCOMPARE(s.validate(), QString());
    QCOMPARE(s.plannedRuns(), 2);
    CalibrationLabSettings bad = s;
    bad.remedies = "none,cle";
    QVERIFY(bad.validate().contains("cle"));
    const LabOutcome outcome = runLab(s);
    QVERIFY2(outcome.done && outcome.error.isEmpty(), qPrintable(outcome.error));
    const ql::ui::CalibrationLabData data = ql::ui::parseCalibrationLab(outcome.json);
    const ql::ui::CalibrationLabRun *run = nullptr;
    for (const ql::ui::CalibrationLabRun &candidate : data.runs)
        if (candidate.remedies == "adaround+bias-correction") run = &candidate;
    QVERIFY(run);
    QCOMPARE(run->method, QString("minmax+adaround+bias-correction"));
    QVERIFY(std::any_of(data.comparisons.begin(), data.comparisons.end(), [&](const auto &c) {
        return c.kind == "remedy_vs_none" && c.a == run->id;
    }));

    AnalysisSetup current, setup;
    std::set<std::string> fp32;
    QString error;
    QVERIFY2(CalibrationLabController::analysisSetupForRun(outcome.json, s, run->id, current, setup,
                                                           fp32, error),
             qPrintable(error));
    QCOMPARE(setup.quantizer.method, QString("minmax"));
    QCOMPARE(setup.quantizer.remedies, (QStringList{"adaround", "bias-correction"}));
    QVERIFY(setup.quantizer.perTensor);
    ql::ui::AnalysisRequest request;
    QVERIFY2(setup.toRequest(request, error), qPrintable(error));
    request.measureLatency = false;
    request.threads = 2;
    auto session = ql::ui::createAnalysisSession(request);
    QVERIFY2(session, session ? "" : session.status().message().c_str());
    const double analysed = (*session)->report().outputs.at(0).sqnrDb;
    qInfo("remedied run: lab %.3f dB, its analysis %.3f dB", *run->sqnrDb, analysed);
    // The lab's workers and the session sum in another order (threads): a few hundredths at most.
    QVERIFY(std::abs(analysed - *run->sqnrDb) < 0.05);
}

void TestCalibrationLab::cancelKeepsFinishedRuns() {
    CalibrationLabSettings s = smallLab();
    s.methods = {"minmax", "entropy", "mse"};
    s.sizes = "4,8,16,32";
    s.repeats = 8;  // 96 runs: far more than finish in one progress poll (50 ms)
    bool asked = false;
    const LabOutcome outcome =
        runLab(s, [&asked](ql::ui::CalibrationLabJob &job, const QString &stage, int done, int) {
            if (stage == "Calibration runs" && done >= 2 && !asked) {
                asked = true;
                job.cancel();
                QVERIFY(job.isCancelling());
            }
        });
    QVERIFY(asked);
    QVERIFY2(outcome.done && outcome.error.isEmpty(), qPrintable(outcome.error));
    QCOMPARE(outcome.json.value("complete").toBool(), false);
    QCOMPARE(outcome.json.value("runs_planned").toInt(), 96);
    const QJsonArray runs = outcome.json.value("runs").toArray();
    qInfo("cancelled after %d of 96 runs", int(runs.size()));
    QVERIFY2(runs.size() >= 2 && runs.size() < 96, qPrintable(QString::number(runs.size())));
    for (const QJsonValue &run : runs) QVERIFY(run["output"]["accuracy"].isDouble());

    ql::ui::CalibrationLabView view;
    view.setLab(outcome.json);
    QCOMPARE(view.runModel()->rowCount(), int(runs.size()));
    QVERIFY2(view.headerText().contains("cancelled"), qPrintable(view.headerText()));
    QVERIFY(view.headerText().contains(QString("%1 of 96 runs").arg(runs.size())));
}

void TestCalibrationLab::cancelBeforeTheRunsFails() {
    ql::ui::CalibrationLabJob job;
    QSignalSpy finished(&job, &ql::ui::CalibrationLabJob::finished);
    QSignalSpy failed(&job, &ql::ui::CalibrationLabJob::failed);
    QSignalSpy busy(&job, &ql::ui::CalibrationLabJob::busyChanged);
    QVERIFY(job.start(smallLab(), 2));
    QVERIFY(job.isBusy());
    QVERIFY(!job.start(smallLab(), 2));  // one lab at a time
    job.cancel();
    QTRY_COMPARE_WITH_TIMEOUT(failed.count(), 1, kLabTimeoutMs);
    QCOMPARE(finished.count(), 0);
    QCOMPARE(failed.at(0).at(1).value<ql::ErrorKind>(), ql::ErrorKind::Cancelled);
    QVERIFY(!job.isBusy());
    QCOMPARE(busy.count(), 2);
    QCOMPARE(busy.at(1).at(0).toBool(), false);
}

void TestCalibrationLab::readerBorrowsIdenticalRunsAndScoresAgreementWithoutLabels() {
    const QJsonObject output{{"sqnr_db", 31.5},
                             {"top1_agreement", 0.921875},
                             {"top1_agreement_ci95", QJsonArray{0.85, 0.97}},
                             {"accuracy", QJsonValue::Null},
                             {"accuracy_ci95", QJsonValue::Null}};
    const QJsonObject lab{
        {"float_model", "/models/f.onnx"},
        {"metric", "top1_agreement"},
        {"complete", true},
        {"runs_planned", 3},
        {"pool", QJsonObject{{"files", QJsonArray{"/p/a.npy", "/p/b.npy", "/p/c.npy"}}}},
        {"evaluation",
         QJsonObject{{"files", QJsonArray{"/e/x.npy"}}, {"labels", false}, {"rows", 16}}},
        {"float", QJsonObject{{"accuracy", QJsonValue::Null}, {"accuracy_ci95", QJsonValue::Null}}},
        {"runs",
         QJsonArray{
             handMadeRun("minmax-n2-r1-b1", "minmax", 2, 1, QJsonValue::Null, output),
             handMadeRun("minmax-n2-r2-b1", "minmax", 2, 2, "minmax-n2-r1-b1", QJsonValue::Null),
             handMadeRun("percentile:99.9-n2-r1-b1", "percentile", 2, 1, QJsonValue::Null,
                         QJsonValue::Null)}},
        {"comparisons", QJsonArray{}}};
    const ql::ui::CalibrationLabData data = ql::ui::parseCalibrationLab(lab);
    QVERIFY(!data.labelled);
    QCOMPARE(data.runs.size(), 3);
    const ql::ui::CalibrationLabRun &borrowed = data.runs[1];
    QCOMPARE(borrowed.identicalTo, QString("minmax-n2-r1-b1"));
    QCOMPARE(*borrowed.sqnrDb, 31.5);
    QCOMPARE(*data.score(borrowed), 0.921875);
    QCOMPARE(data.scoreCi(borrowed)->low, 0.85);
    QVERIFY(!data.score(data.runs[2]));  // no figures of its own, identical to nothing

    ql::ui::CalibrationLabView view;
    view.setLab(lab);
    QCOMPARE(view.runModel()->index(1, CalibrationRunModel::AgreementColumn).data().toString(),
             QString("92.2 %"));
    QCOMPARE(view.runModel()->index(1, CalibrationRunModel::AccuracyColumn).data().toString(),
             QString("—"));
    QVERIFY(!view.runModel()
                 ->index(2, CalibrationRunModel::SqnrColumn)
                 .data(CalibrationRunModel::SortRole)
                 .isValid());
    QVERIFY(view.headerText().contains("top-1 agreement"));
    QVERIFY(!view.chart()->floatLine()->visible());
    QCOMPARE(view.chart()->seriesNames(), (QStringList{"minmax", "percentile:99.9"}));
    QCOMPARE(view.chart()->repeatGraph(0)->dataCount(), 2);
    QCOMPARE(view.chart()->repeatGraph(1)->dataCount(), 0);

    // Opening a run of it: the pool files at its indices, the percentile from the method.
    AnalysisSetup setup;
    std::set<std::string> fp32;
    QString error;
    QVERIFY(CalibrationLabController::analysisSetupForRun(
        lab, CalibrationLabSettings{}, "percentile:99.9-n2-r1-b1", {}, setup, fp32, error));
    QCOMPARE(setup.calibrationPaths, (QStringList{"/p/a.npy", "/p/c.npy"}));
    QCOMPARE(setup.quantizer.method, QString("percentile"));
    QCOMPARE(setup.quantizer.percentile, 99.9);
    QVERIFY(setup.labelsPath.isEmpty());

    view.setLab({});
    QCOMPARE(view.runModel()->rowCount(), 0);
    QVERIFY(view.headerText().startsWith("No calibration lab yet"));
}

void TestCalibrationLab::projectCopyHasRelativePaths() {
    QVERIFY2(m_small.done && m_small.error.isEmpty(), "needs smallLabFillsThePage");
    CalibrationLabController controller;
    QSignalSpy changed(&controller, &CalibrationLabController::resultChanged);
    const QDir base(m_demoDir);
    controller.restore(QJsonObject{{"settings", smallLab().toJson()}, {"result", m_small.json}},
                       QDir("/"));
    QCOMPARE(changed.count(), 1);
    QCOMPARE(controller.result().value("runs").toArray().size(), 8);
    QVERIFY(!controller.isEmpty());

    const QJsonObject stored = controller.toJson(base);
    const QJsonObject storedResult = stored["result"].toObject();
    const QString firstPool = storedResult["pool"]["files"].toArray().at(0).toString();
    QCOMPARE(firstPool, QString("pool/train_00.npy"));
    QVERIFY(QDir::isRelativePath(stored["settings"]["float_model"].toString()));
    QCOMPARE(storedResult.value("runs"), m_small.json.value("runs"));  // the figures as they are

    CalibrationLabController reopened;
    reopened.restore(stored, base);
    QCOMPARE(reopened.settings(), smallLab());
    QCOMPARE(reopened.result()["pool"]["files"].toArray().at(0).toString(), m_poolFiles.at(0));
    QVERIFY(!reopened.liveLab());

    QSignalSpy modified(&reopened, &CalibrationLabController::modified);
    reopened.clear();
    QVERIFY(reopened.isEmpty());
    QCOMPARE(modified.count(), 1);
}

void TestCalibrationLab::mainWindowOpensARunAsTheAnalysis() {
    QVERIFY2(m_small.done && m_small.error.isEmpty(), "needs smallLabFillsThePage");
    MainWindow window(MainWindow::Options{false, false, false});
    window.show();
    // Analysis > Calibration Lab…
    QAction *action = window.findChild<QAction *>("actionCalibrationLab");
    QVERIFY(action && action->isEnabled());
    bool inAnalysisMenu = false;
    for (QAction *menu : window.menuBar()->actions())
        if (menu->menu() && menu->menu()->actions().contains(action))
            inAnalysisMenu = menu->text() == "&Analysis";
    QVERIFY(inAnalysisMenu);
    QVERIFY(!window.findChild<QAction *>("actionShowCalibrationLab")->isEnabled());

    // A lab restored (as from a project) fills the page; double-clicking a run analyses it.
    window.calibrationLab()->restore(
        QJsonObject{{"settings", smallLab().toJson()}, {"result", m_small.json}}, QDir("/"));
    QCOMPARE(window.calibrationLabView()->runModel()->rowCount(), 8);
    QVERIFY(window.findChild<QAction *>("actionShowCalibrationLab")->isEnabled());
    const ql::ui::CalibrationLabRun &run = window.calibrationLabView()->labData()->runs.at(5);
    emit window.calibrationLabView()->runActivated(run.id);
    const AnalysisSetup &setup = window.analysis()->setup();
    QVERIFY(setup.quantizeInApp);
    QCOMPARE(setup.calibrationPaths.size(), int(run.size));
    QCOMPARE(setup.calibrationPaths.first(), m_poolFiles.at(int(run.calibIndices.first())));
    QCOMPARE(setup.quantizer.method, run.method.section(':', 0, 0));
    QCOMPARE(setup.labelsPath, m_demoDir + "/labels.npy");
    QVERIFY(window.analysis()->isBusy());
    QTRY_VERIFY_WITH_TIMEOUT(!window.analysis()->isBusy() && window.analysis()->report(),
                             kLabTimeoutMs);
    QCOMPARE(*window.analysis()->report()->outputs.at(0).quantAccuracy, *run.accuracy);
}

QTEST_MAIN(TestCalibrationLab)
#include "tst_calibration_lab.moc"
