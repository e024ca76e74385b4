// The worst-samples strip in the window, one sample's own analysis, and image data in the GUI
// (issue 18): the strip lists the report's worst samples; a tile runs the suite on that sample
// alone, whose output SQNR is the one the whole analysis gave that sample; Back and toggles return
// to all samples; an image folder with a preprocessing spec analyses in the app, shows its
// pictures, and keeps the spec in the project.
#include <QDir>
#include <QPushButton>
#include <QTemporaryDir>
#include <QtTest>

#include <cmath>

#include "analysis_controller.h"
#include "analysis_panel.h"
#include "analysis_setup.h"
#include "main_window.h"
#include "main_window_wait.h"
#include "sample_view_bar.h"
#include "worst_sample_strip.h"

using namespace ql;
using namespace ql::ui;

namespace {

QString testData(const QString &relative) {
    return QStringLiteral(QL_TEST_DATA_DIR "/") + relative;
}

// The demo analysed in a shown window.
bool showDemo(MainWindow &window) {
    window.resize(1600, 1000);
    window.show();
    window.openDemo();
    return waitIdle(window);
}

bool waitThumbnails(const WorstSampleStrip &strip) {
    QElapsedTimer timer;
    timer.start();
    while (strip.isLoading() && timer.elapsed() < 30000) QTest::qWait(20);
    return !strip.isLoading();
}

}  // namespace

class TestSampleView : public QObject {
    Q_OBJECT
private slots:
    void demoStripAndOneSample();
    void toggleReturnsToAllSamples();
    void imageFolderInTheApp();
};

void TestSampleView::demoStripAndOneSample() {
    MainWindow window(MainWindow::Options{false, false, false});
    QVERIFY(showDemo(window));
    const ReportPtr all = window.analysis()->report();
    const analysis::OutputReport &output = all->outputs.front();
    WorstSampleStrip *strip = window.worstSamples();
    QVERIFY(strip->isVisible());
    // The 10 lowest output SQNRs and the flips, lowest first, as analyze's worst_samples.
    const auto expected = analysis::worstSamples(output, {}, 10);
    QCOMPARE(strip->count(), int(expected.size()));
    QVERIFY(strip->count() >= 10);
    for (int tile = 0; tile < strip->count(); ++tile)
        QCOMPARE(strip->sampleAt(tile), expected[size_t(tile)].index);
    QVERIFY(waitThumbnails(*strip));
    QCOMPARE(strip->thumbnailState(0), WorstSampleStrip::Thumbnail::Ready);  // a heat map

    // The third-worst sample alone: its output SQNR is the whole analysis' figure for it (same
    // models, one sample instead of a batch of 16: only summation order differs).
    const int64_t index = strip->sampleAt(2);
    emit strip->sampleActivated(index);
    QTRY_VERIFY_WITH_TIMEOUT(window.shownSample() == std::optional<int64_t>(index), 60000);
    const ReportPtr one = window.analysisPanel()->report();
    QVERIFY(one != all);
    QCOMPARE(one->samples, int64_t(1));
    QCOMPARE(one->layers.size(), all->layers.size());
    const double expectedDb = output.sampleSqnrDb[size_t(index)];
    QVERIFY2(
        std::abs(one->outputs.front().sqnrDb - expectedDb) < 0.05,
        qPrintable(QStringLiteral("%1 vs %2").arg(one->outputs.front().sqnrDb).arg(expectedDb)));
    QVERIFY(window.sampleViewBar()->isVisible());
    QVERIFY(window.sampleViewBar()->text().contains(QStringLiteral("#%1").arg(index)));
    QCOMPARE(strip->currentSample(), std::optional<int64_t>(index));
    // Another sample's figures differ from this one's: the view is not the same report twice.
    QVERIFY(std::abs(output.sampleSqnrDb[size_t(strip->sampleAt(0))] - expectedDb) > 1e-6 ||
            strip->sampleAt(0) == index);

    QTest::mouseClick(window.sampleViewBar()->backButton(), Qt::LeftButton);
    QCOMPARE(window.shownSample(), std::nullopt);
    QCOMPARE(window.analysisPanel()->report(), all);
    QVERIFY(!window.sampleViewBar()->isVisible());
    QCOMPARE(strip->currentSample(), std::nullopt);
}

void TestSampleView::toggleReturnsToAllSamples() {
    MainWindow window(MainWindow::Options{false, false, false});
    QVERIFY(showDemo(window));
    WorstSampleStrip *strip = window.worstSamples();
    const int64_t index = strip->sampleAt(0);
    emit strip->sampleActivated(index);
    QTRY_VERIFY_WITH_TIMEOUT(window.shownSample().has_value(), 60000);
    const ReportPtr before = window.analysis()->report();
    window.analysis()->setLayerFp32(0, true);
    QTRY_VERIFY_WITH_TIMEOUT(window.analysis()->report() != before, 60000);
    QVERIFY(waitIdle(window));
    QCOMPARE(window.shownSample(), std::nullopt);
    QVERIFY(window.sampleViewBar()->isHidden());
    QCOMPARE(window.analysisPanel()->report(), window.analysis()->report());
    QCOMPARE(window.analysisPanel()->report()->samples, before->samples);
}

void TestSampleView::imageFolderInTheApp() {
    MainWindow window(MainWindow::Options{false, false, false});
    window.resize(1600, 1000);
    window.show();
    AnalysisSetup setup;
    setup.floatModel = testData(QStringLiteral("images/tiny_imagenet.onnx"));
    setup.quantizeInApp = true;
    const QString jpegs = testData(QStringLiteral("images/jpegs"));
    setup.calibrationPaths = {jpegs};
    setup.dataPaths = {jpegs};
    setup.preprocess = QStringLiteral("imagenet");
    setup.batch = 4;
    window.analysis()->setSetup(setup);
    QVERIFY(waitIdle(window));
    const ReportPtr report = window.analysis()->report();
    QCOMPARE(report->samples, int64_t(6));
    const auto &models = window.analysis()->job()->models();
    QVERIFY(
        QString::fromStdString(models.dataReading)
            .contains(QStringLiteral("6 images; preprocess color=rgb,resize=256,crop=224x224")));
    // The strip shows the pictures themselves, named by their files.
    WorstSampleStrip *strip = window.worstSamples();
    QCOMPARE(strip->count(), 6);
    QVERIFY(models.worst && models.worst->files.size() == 6);
    QVERIFY(QString::fromStdString(models.worst->files.front()).endsWith(QStringLiteral(".jpg")));
    QVERIFY(waitThumbnails(*strip));
    for (int tile = 0; tile < strip->count(); ++tile)
        QCOMPARE(strip->thumbnailState(tile), WorstSampleStrip::Thumbnail::Ready);
    // The project keeps the spec.
    const QDir base(QDir::tempPath());
    QCOMPARE(AnalysisSetup::fromJson(window.analysis()->setup().toJson(base), base).preprocess,
             QStringLiteral("imagenet"));
    // A bad spec is one line, and the analysis on screen stays.
    AnalysisSetup bad = window.analysis()->setup();
    bad.preprocess = QStringLiteral("colour=rgb");
    ql::ui::AnalysisRequest request;
    QString error;
    QVERIFY(!bad.toRequest(request, error));
    QVERIFY2(error.contains(QStringLiteral("colour")), qPrintable(error));

    // Dropping (opening) a folder of images makes it the evaluation data, labels from folders.
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    QDir(dir.path()).mkpath(QStringLiteral("a cat"));
    QDir(dir.path()).mkpath(QStringLiteral("b dog"));
    for (int i = 0; i < 4; ++i)
        QFile::copy(
            jpegs + QStringLiteral("/photo %1.jpg").arg(i),
            dir.filePath(QStringLiteral("%1/%2.jpg").arg(i < 2 ? "a cat" : "b dog").arg(i)));
    window.openPath(dir.path());
    QVERIFY(waitIdle(window));
    QCOMPARE(window.analysis()->setup().dataPaths, QStringList{dir.path()});
    QTRY_COMPARE_WITH_TIMEOUT(window.analysis()->report()->samples, int64_t(4), 60000);
    QCOMPARE(window.analysis()->job()->models().worst->classes,
             (std::vector<std::string>{"a cat", "b dog"}));
}

QTEST_MAIN(TestSampleView)
#include "tst_sample_view.moc"
