// The main window end to end, offscreen: open the embedded demo and a model file off the GUI
// thread, check what the table, summary, details and recent-files menu show, and that a broken
// file reports the engine's message instead of showing a model.

#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QSettings>
#include <QSignalSpy>
#include <QStackedWidget>
#include <QTableView>
#include <QTemporaryDir>
#include <QThreadPool>
#include <QTreeWidget>
#include <QtTest>

#include "document_controller.h"
#include "layer_details_widget.h"
#include "layer_table_model.h"
#include "layer_table_panel.h"
#include "main_window.h"
#include "model_load_job.h"
#include "model_summary_widget.h"
#include "onnx_io/model_loader.h"
#include "recent_files_controller.h"

// Waits for the load job's QFutureWatcher to finish and the controller to report the outcome.
#define WAIT_FOR_LOAD(window)                                    \
    do {                                                         \
        QFutureWatcher<ql::ui::LoadOutcome> *watcher_ =          \
            (window).documents()->loadJob()->watcher();          \
        QTRY_VERIFY_WITH_TIMEOUT(watcher_->isFinished(), 30000); \
        QTRY_VERIFY(done.count() == 1);                          \
    } while (0)

// Counts finished loads of either outcome.
class LoadSpy : public QObject {
public:
    explicit LoadSpy(DocumentController *documents) {
        connect(documents, &DocumentController::modelLoaded, this, [this] { ++m_count; });
        connect(documents, &DocumentController::loadFailed, this, [this] { ++m_count; });
    }
    int count() const { return m_count; }

private:
    int m_count = 0;
};

class TestMainWindow : public QObject {
    Q_OBJECT

private slots:
    void initTestCase();
    void startsOnWelcomePage();
    void opensDemo();
    void filterBoxNarrowsTable();
    void selectingLayerShowsDetails();
    void opensFileAndRemembersIt();
    void brokenFileReportsEngineMessage();
    void recentFilesPersistAcrossWindows();
    void closingWhileLoadingIsSafe();

private:
    MainWindow::Options m_options{false, false};  // no QSettings, no modal message boxes
    int m_demoNodes = 0;
};

void TestMainWindow::initTestCase() {
    // ctest points XDG_CONFIG_HOME into the build tree; start every run from empty settings.
    QCoreApplication::setOrganizationName("QuantLensTest");
    QCoreApplication::setApplicationName("tst_main_window");
    QSettings().clear();
    auto graph = ql::loadModel(QL_DEMO_MODEL);
    QVERIFY2(graph.isOk(), graph.status().message().c_str());
    m_demoNodes = int(graph.value().nodes.size());
}

void TestMainWindow::startsOnWelcomePage() {
    MainWindow window(m_options);
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    auto *pages = window.findChild<QStackedWidget *>();
    QVERIFY(pages);
    QCOMPARE(pages->currentWidget()->objectName(), QString("welcomePage"));
    QVERIFY(window.findChild<QWidget *>("welcomeOpenDemo"));
    QVERIFY(!window.documents()->current());
}

void TestMainWindow::opensDemo() {
    MainWindow window(m_options);
    window.show();
    QSignalSpy loaded(window.documents(), &DocumentController::modelLoaded);
    LoadSpy done(window.documents());
    window.findChild<QAction *>("actionOpenDemo")->trigger();
    QCOMPARE(loaded.count(), 0);  // off the GUI thread: the result arrives via the event loop
    WAIT_FOR_LOAD(window);
    QCOMPARE(loaded.count(), 1);

    QTableView *table = window.layerPanel()->tableView();
    QCOMPARE(table->model()->rowCount(), m_demoNodes);
    QCOMPARE(table->model()->index(0, ql::ui::LayerTableModel::OpTypeColumn).data().toString(),
             QString("Conv"));
    // The demo's analysis starts with the load and, once done, takes over the window: the
    // layer table shows until then (on a fast machine the analysis may already have finished).
    const QString page = window.findChild<QStackedWidget *>()->currentWidget()->objectName();
    QVERIFY2(page == "analysisPage" || (page == "modelPage" && table->isVisible()),
             qPrintable(page));
    const QString summary = window.summary()->summaryText();
    QVERIFY2(summary.contains("fashion_cnn.onnx"), qPrintable(summary));
    QVERIFY2(summary.contains("Opset: 13"), qPrintable(summary));
    QVERIFY2(summary.contains(QString("Nodes: %1").arg(m_demoNodes)), qPrintable(summary));
    QVERIFY2(summary.contains("input: float32 [batch,1,28,28]"), qPrintable(summary));
    QVERIFY2(summary.contains("logits: float32 [batch,10]"), qPrintable(summary));
    QVERIFY(window.windowTitle().contains("fashion_cnn.onnx"));
    QCOMPARE(window.findChild<QLabel *>("layerCount")->text(),
             QString("%1 layers").arg(m_demoNodes));
    QVERIFY(window.documents()->currentFile().isEmpty());  // the demo is not a file
    QVERIFY(window.recentFiles()->files().isEmpty());
}

void TestMainWindow::filterBoxNarrowsTable() {
    MainWindow window(m_options);
    window.show();
    LoadSpy done(window.documents());
    window.documents()->openDemo();
    WAIT_FOR_LOAD(window);
    QLineEdit *filter = window.layerPanel()->filterEdit();
    QTest::keyClicks(filter, "relu");
    QTableView *table = window.layerPanel()->tableView();
    QCOMPARE(table->model()->rowCount(), 3);
    QCOMPARE(window.findChild<QLabel *>("layerCount")->text(),
             QString("3 of %1 layers").arg(m_demoNodes));
    filter->clear();
    QCOMPARE(table->model()->rowCount(), m_demoNodes);
}

void TestMainWindow::selectingLayerShowsDetails() {
    MainWindow window(m_options);
    window.show();
    LoadSpy done(window.documents());
    window.documents()->openDemo();
    WAIT_FOR_LOAD(window);
    QTableView *table = window.layerPanel()->tableView();
    QCOMPARE(window.layerDetails()->layerIndex(), 0);  // the first layer is selected on load
    table->selectRow(4);
    QCOMPARE(window.layerDetails()->layerIndex(), 4);
    QCOMPARE(window.findChild<QLabel *>("layerTitle")->text(),
             QString("<b>Conv</b> /features/features.4/Conv"));
    table->selectRow(0);
    QCOMPARE(window.layerDetails()->layerIndex(), 0);
    QTreeWidget *tree = window.layerDetails()->tree();
    // Conv: inputs (data, weight), outputs, attributes (kernel_shape, pads, ...), node.
    const QList<QTreeWidgetItem *> kernel =
        tree->findItems("kernel_shape", Qt::MatchExactly | Qt::MatchRecursive);
    QCOMPARE(kernel.size(), 1);
    QCOMPARE(kernel.first()->text(1), QString("[3,3]"));
    const QList<QTreeWidgetItem *> input =
        tree->findItems("input", Qt::MatchExactly | Qt::MatchRecursive);
    QCOMPARE(input.size(), 1);
    QCOMPARE(input.first()->text(1), QString("float32 [batch,1,28,28]"));
}

void TestMainWindow::opensFileAndRemembersIt() {
    MainWindow window(m_options);
    window.show();
    LoadSpy done(window.documents());
    window.documents()->openFile(QL_DEMO_MODEL);
    WAIT_FOR_LOAD(window);
    QCOMPARE(window.layerPanel()->tableView()->model()->rowCount(), m_demoNodes);
    QCOMPARE(window.documents()->currentFile(), QFileInfo(QL_DEMO_MODEL).absoluteFilePath());
    QCOMPARE(window.recentFiles()->files(),
             QStringList{QFileInfo(QL_DEMO_MODEL).absoluteFilePath()});
}

void TestMainWindow::brokenFileReportsEngineMessage() {
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString path = dir.filePath("broken.onnx");
    QFile file(path);
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write("this is not a protobuf");
    file.close();

    MainWindow window(m_options);
    window.show();
    QSignalSpy failed(window.documents(), &DocumentController::loadFailed);
    QSignalSpy loaded(window.documents(), &DocumentController::modelLoaded);
    LoadSpy done(window.documents());
    window.documents()->openFile(path);
    WAIT_FOR_LOAD(window);
    QCOMPARE(failed.count(), 1);
    QCOMPARE(loaded.count(), 0);
    const QString message = failed.first().at(1).toString();
    QVERIFY2(message.contains("broken.onnx"), qPrintable(message));  // the engine names the file
    QVERIFY(!message.contains('\n'));
    QCOMPARE(failed.first().at(0).toString(), QFileInfo(path).absoluteFilePath());
    QVERIFY(!window.documents()->current());
    QVERIFY(window.recentFiles()->files().isEmpty());
    QCOMPARE(window.findChild<QStackedWidget *>()->currentWidget()->objectName(),
             QString("welcomePage"));
}

void TestMainWindow::recentFilesPersistAcrossWindows() {
    const QString model = QFileInfo(QL_DEMO_MODEL).absoluteFilePath();
    {
        MainWindow window(MainWindow::Options{true, false});
        window.show();
        QCOMPARE(window.recentFiles()->files(), QStringList{});
        LoadSpy done(window.documents());
        window.documents()->openFile(QL_DEMO_MODEL);
        WAIT_FOR_LOAD(window);
        window.resize(900, 650);
        window.close();  // saves the geometry
    }
    MainWindow again(MainWindow::Options{true, false});
    QCOMPARE(again.recentFiles()->files(), QStringList{model});
    QCOMPARE(again.size(), QSize(900, 650));
    // The menu entry opens the file.
    QMenu *recent = nullptr;
    for (QMenu *menu : again.findChildren<QMenu *>())
        if (menu->title() == "Open &Recent") recent = menu;
    QVERIFY(recent);
    QAction *entry = recent->actions().first();
    QCOMPARE(entry->text(), QString("&1 fashion_cnn.onnx"));
    QSignalSpy loaded(again.documents(), &DocumentController::modelLoaded);
    LoadSpy done(again.documents());
    entry->trigger();
    WAIT_FOR_LOAD(again);
    QCOMPARE(loaded.count(), 1);
    QCOMPARE(again.documents()->currentFile(), model);
    again.recentFiles()->clear();
    QCOMPARE(QSettings().value("recentFiles").toStringList(), QStringList{});
}

void TestMainWindow::closingWhileLoadingIsSafe() {
    {
        MainWindow window(m_options);
        window.documents()->openDemo();
        window.documents()->openFile(QL_DEMO_MODEL);  // supersedes the demo load
    }
    // The orphaned loads finish on the pool and must not touch the destroyed window.
    QThreadPool::globalInstance()->waitForDone(30000);
    QCoreApplication::processEvents();
}

QTEST_MAIN(TestMainWindow)
#include "tst_main_window.moc"
