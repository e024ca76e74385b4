// Help > User Guide (issue 39): the guide opens offline from the application's resources, F1 on a
// view opens that view's section, links between chapters and the screenshots resolve inside the
// bundle, and every chapter of resources/docs/ is bundled.
#include <QAction>
#include <QApplication>
#include <QDir>
#include <QListWidget>
#include <QRegularExpression>
#include <QScrollBar>
#include <QTest>
#include <QTextBlock>
#include <QTextBrowser>

#include "analysis_controller.h"
#include "fp32_search_dialog.h"
#include "help_browser.h"
#include "main_window.h"

class TestHelpBrowser : public QObject {
    Q_OBJECT
private slots:
    void userGuideOpensOffline();
    void everyChapterIsBundledWithItsPictures();
    void f1OpensTheSectionOfTheFocusedView();
};

namespace {

// The text of the line the browser's cursor is on (where showTopic put it).
QString cursorLine(QTextBrowser *browser) {
    return browser->textCursor().block().text();
}

}  // namespace

void TestHelpBrowser::userGuideOpensOffline() {
    MainWindow window(MainWindow::Options{false, false, false});
    window.show();
    QAction *guide = window.findChild<QAction *>(QStringLiteral("actionUserGuide"));
    QVERIFY(guide);
    QCOMPARE(guide->shortcut(), QKeySequence(QKeySequence::HelpContents));
    guide->trigger();
    auto *help = window.findChild<ql::ui::HelpBrowser *>();
    QVERIFY(help && help->isVisible());
    QCOMPARE(help->currentChapter(), QStringLiteral("user-guide.md"));
    const QString text = help->browser()->toPlainText();
    QVERIFY2(text.contains(QStringLiteral("Find fp32 Set")), qPrintable(text.left(300)));
    // A link to another chapter opens it, and the chapter list follows.
    help->browser()->setSource(QUrl(QStringLiteral("metrics.md")), QTextDocument::MarkdownResource);
    QCOMPARE(help->currentChapter(), QStringLiteral("metrics.md"));
    QVERIFY(help->browser()->toPlainText().contains(QStringLiteral("10 · log10")));
    auto *chapters = help->findChild<QListWidget *>(QStringLiteral("helpChapters"));
    QCOMPARE(chapters->currentItem()->data(Qt::UserRole).toString(), QStringLiteral("metrics.md"));
    QVERIFY(help->showTopic(QStringLiteral("metrics.md"), QStringLiteral("Kernel check")));
    QVERIFY2(cursorLine(help->browser()).contains(QStringLiteral("Kernel check")),
             qPrintable(cursorLine(help->browser())));
    QVERIFY(!help->showTopic(QStringLiteral("no-such-chapter.md")));
    if (const char *dir = std::getenv("QL_SCREENSHOT_DIR")) {
        help->showTopic(QStringLiteral("user-guide.md"), QStringLiteral("Find fp32 Set"));
        help->grab().save(QString::fromLocal8Bit(dir) + "/help_browser.png");
    }
}

void TestHelpBrowser::everyChapterIsBundledWithItsPictures() {
    const QDir docs(QStringLiteral(QL_DOCS_DIR));
    const QStringList files = docs.entryList({QStringLiteral("*.md")}, QDir::Files);
    QVERIFY(files.size() >= 9);
    ql::ui::HelpBrowser help;
    for (const QString &file : files) {
        QVERIFY2(QFile::exists(QStringLiteral(":/docs/") + file), qPrintable(file));
        QVERIFY(help.showTopic(file));
        // Every picture the chapter shows loads from the bundle.
        const QString markdown = QString::fromUtf8([&] {
            QFile f(docs.filePath(file));
            f.open(QIODevice::ReadOnly);
            return f.readAll();
        }());
        static const QRegularExpression image(QStringLiteral("!\\[[^\\]]*\\]\\(([^)]+)\\)"));
        for (auto it = image.globalMatch(markdown); it.hasNext();) {
            const QString target = it.next().captured(1);
            const QVariant picture = help.browser()->loadResource(
                QTextDocument::ImageResource, help.browser()->source().resolved(QUrl(target)));
            QVERIFY2(picture.isValid() && !picture.toByteArray().isEmpty(),
                     qPrintable(file + ": " + target));
        }
    }
}

void TestHelpBrowser::f1OpensTheSectionOfTheFocusedView() {
    MainWindow window(MainWindow::Options{false, false, false});
    window.show();
    window.openDemo();
    QTRY_VERIFY_WITH_TIMEOUT(window.analysis() && window.analysis()->report(), 60000);
    window.findChild<QAction *>(QStringLiteral("actionFindFp32Set"))->trigger();
    ql::ui::Fp32SearchDialog *search = window.searchDialog();
    QVERIFY(search);
    const ql::ui::HelpTopic topic = ql::ui::helpTopicFor(search);
    QCOMPARE(topic.phrase, QStringLiteral("Find fp32 Set"));
    QApplication::setActiveWindow(search);
    search->findChild<QWidget *>(QStringLiteral("targetSpin"))->setFocus();
    QTRY_VERIFY(search->isAncestorOf(QApplication::focusWidget()));
    ql::ui::HelpBrowser *help = window.showHelp();
    QCOMPARE(help->currentChapter(), QStringLiteral("user-guide.md"));
    QVERIFY2(cursorLine(help->browser()).contains(QStringLiteral("Find fp32 Set")),
             qPrintable(cursorLine(help->browser())));
    QVERIFY(help->browser()->verticalScrollBar()->value() > 0);
}

QTEST_MAIN(TestHelpBrowser)
#include "tst_help_browser.moc"
