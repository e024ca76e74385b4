// File > Export Report… on the demo: with a layer toggled to fp32, the action writes an HTML and
// a PDF report off the GUI thread; the HTML names every layer, carries the analysis and reopens
// it (same fp32 layers, same output SQNR) in a new window; the PDF has real pages; a report into
// a missing folder fails with a message and writes nothing; Cancel writes nothing.

#include <QAction>
#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

#include <cmath>

#include "analysis_controller.h"
#include "main_window.h"
#include "main_window_wait.h"
#include "report_export.h"
#include "report_html.h"

namespace {

// Exports to `path` and waits: the path written, or the failure's message.
QString exportAndWait(MainWindow &window, const QString &path, bool *ok) {
    ql::ui::ReportExport *exporter = window.reportExport();
    QSignalSpy written(exporter, &ql::ui::ReportExport::written);
    QSignalSpy failed(exporter, &ql::ui::ReportExport::failed);
    window.exportReport(path);
    QElapsedTimer timer;
    timer.start();
    while (written.isEmpty() && failed.isEmpty() && timer.elapsed() < kAnalysisTimeoutMs) QTest::qWait(20);
    *ok = !written.isEmpty();
    return written.isEmpty() ? (failed.isEmpty() ? QString() : failed.first().first().toString())
                             : written.first().first().toString();
}

}  // namespace

class TestReportExport : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() { QStandardPaths::setTestModeEnabled(true); }
    void exportsHtmlAndPdfThatReopen();
    void missingFolderFailsWithoutAFile();
    void cancelWritesNothing();

private:
    MainWindow::Options m_options{false, false, false};
};

void TestReportExport::exportsHtmlAndPdfThatReopen() {
    QTemporaryDir dir;
    MainWindow window(m_options);
    window.show();
    window.openDemo();
    QVERIFY(waitIdle(window));
    auto *action = window.findChild<QAction *>(QStringLiteral("actionExportReport"));
    QVERIFY(action && action->isEnabled());
    const std::string toggled = window.analysis()->report()->layers.at(2).name;
    window.analysis()->setLayerFp32(toggled, true);
    QVERIFY(waitIdle(window));
    const ql::ui::ReportPtr report = window.analysis()->report();
    QVERIFY(report->layers.at(2).fp32Requested);

    bool ok = false;
    const QString html = dir.filePath(QStringLiteral("demo report.html"));
    QCOMPARE(exportAndWait(window, html, &ok), html);
    QVERIFY(ok);
    QVERIFY(!window.reportExport()->isBusy());
    QVERIFY(action->isEnabled());
    QFile file(html);
    QVERIFY(file.open(QIODevice::ReadOnly));
    const QByteArray bytes = file.readAll();
    for (const auto &layer : report->layers)
        QVERIFY2(bytes.contains(QByteArray::fromStdString(layer.name)), layer.name.c_str());
    QVERIFY(bytes.contains(QByteArray::number(report->outputs.at(0).sqnrDb, 'f', 2) + " dB"));
    QVERIFY(bytes.contains("<svg"));
    QString error;
    const QJsonObject project = ql::ui::projectFromReportHtml(bytes, error);
    QVERIFY2(!project.isEmpty(), qPrintable(error));

    const QString pdf = dir.filePath(QStringLiteral("demo report.pdf"));
    QCOMPARE(exportAndWait(window, pdf, &ok), pdf);
    QVERIFY(ok);
    QFile pdfFile(pdf);
    QVERIFY(pdfFile.open(QIODevice::ReadOnly));
    const QByteArray pdfBytes = pdfFile.readAll();
    QVERIFY(pdfBytes.startsWith("%PDF-"));
    QVERIFY(pdfBytes.count("/Type /Page\n") + pdfBytes.count("/Type /Page ") +
                pdfBytes.count("/Type/Page") >=
            2);

    // The HTML reopens the analysis: the same fp32 layer, the same output SQNR.
    MainWindow reopened(m_options);
    reopened.show();
    reopened.openPath(html);
    QVERIFY(waitIdle(reopened));
    QCOMPARE(reopened.analysis()->fp32Layers(), (std::set<std::string>{toggled}));
    const double tolerance = 1e-6 + 1e-6 * std::abs(report->outputs.at(0).sqnrDb);
    QVERIFY(std::abs(reopened.analysis()->report()->outputs.at(0).sqnrDb -
                     report->outputs.at(0).sqnrDb) < tolerance);
}

void TestReportExport::missingFolderFailsWithoutAFile() {
    QTemporaryDir dir;
    MainWindow window(m_options);
    window.show();
    window.openDemo();
    QVERIFY(waitIdle(window));
    bool ok = true;
    const QString path = dir.filePath(QStringLiteral("no such folder/r.pdf"));
    const QString message = exportAndWait(window, path, &ok);
    QVERIFY(!ok);
    QVERIFY2(message.contains(QStringLiteral("r.pdf")), qPrintable(message));
    QVERIFY(!QFile::exists(path));
    QCOMPARE(QDir(dir.path()).entryList(QDir::NoDotAndDotDot | QDir::AllEntries).size(), 0);
}

void TestReportExport::cancelWritesNothing() {
    QTemporaryDir dir;
    MainWindow window(m_options);
    window.show();
    window.openDemo();
    QVERIFY(waitIdle(window));
    const QString path = dir.filePath(QStringLiteral("r.html"));
    QSignalSpy busy(window.reportExport(), &ql::ui::ReportExport::busyChanged);
    window.exportReport(path);
    QVERIFY(window.reportExport()->isBusy());
    window.reportExport()->cancel();
    QTRY_VERIFY_WITH_TIMEOUT(!window.reportExport()->isBusy(), kAnalysisTimeoutMs);
    QTRY_COMPARE(busy.size(), 2);
    QVERIFY(!QFile::exists(path));
}

QTEST_MAIN(TestReportExport)
#include "tst_report_export.moc"
