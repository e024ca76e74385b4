#include "help_browser.h"

#include <QFile>
#include <QHBoxLayout>
#include <QListWidget>
#include <QPushButton>
#include <QScrollBar>
#include <QSplitter>
#include <QTextBrowser>
#include <QTextCursor>
#include <QTextDocument>
#include <QUrl>
#include <QVBoxLayout>

namespace ql::ui {
namespace {

const QString kDocs = QStringLiteral("qrc:/docs/");

struct Chapter {
    const char *file;
    const char *title;
};

// In the order of resources/docs/README.md.
const Chapter kChapters[] = {
    {"user-guide.md", QT_TRANSLATE_NOOP("ql::ui::HelpBrowser", "User guide")},
    {"metrics.md", QT_TRANSLATE_NOOP("ql::ui::HelpBrowser", "Metrics")},
    {"command-line.md", QT_TRANSLATE_NOOP("ql::ui::HelpBrowser", "Command line")},
    {"cli-reference.md", QT_TRANSLATE_NOOP("ql::ui::HelpBrowser", "Command-line reference")},
    {"pytorch-exports.md", QT_TRANSLATE_NOOP("ql::ui::HelpBrowser", "PyTorch exports")},
    {"engine.md", QT_TRANSLATE_NOOP("ql::ui::HelpBrowser", "Engine")},
    {"robustness.md", QT_TRANSLATE_NOOP("ql::ui::HelpBrowser", "Robustness")},
    {"benchmarks.md", QT_TRANSLATE_NOOP("ql::ui::HelpBrowser", "Benchmarks")},
    {"development.md", QT_TRANSLATE_NOOP("ql::ui::HelpBrowser", "Development")},
};

// Whether `w` or one of its parents has an object name or class that starts with `prefix`.
bool within(const QWidget *w, const char *prefix) {
    for (; w; w = w->parentWidget())
        if (w->objectName().startsWith(QLatin1String(prefix)) ||
            QString::fromLatin1(w->metaObject()->className()).contains(QLatin1String(prefix)))
            return true;
    return false;
}

}  // namespace

HelpBrowser::HelpBrowser(QWidget *parent)
    : QDialog(parent), m_chapters(new QListWidget(this)), m_browser(new QTextBrowser(this)) {
    setObjectName(QStringLiteral("helpBrowser"));
    setWindowTitle(tr("QuantLens Guide"));
    m_chapters->setObjectName(QStringLiteral("helpChapters"));
    m_browser->setObjectName(QStringLiteral("helpText"));
    m_browser->setOpenExternalLinks(true);  // http(s) links go to the system's browser
    m_browser->setSearchPaths({QStringLiteral(":/docs")});
    for (const Chapter &c : kChapters) {
        auto *item = new QListWidgetItem(tr(c.title), m_chapters);
        item->setData(Qt::UserRole, QString::fromLatin1(c.file));
    }
    m_chapters->setMaximumWidth(220);

    auto *back = new QPushButton(tr("&Back"), this);
    auto *forward = new QPushButton(tr("&Forward"), this);
    back->setEnabled(false);
    forward->setEnabled(false);
    connect(back, &QPushButton::clicked, m_browser, &QTextBrowser::backward);
    connect(forward, &QPushButton::clicked, m_browser, &QTextBrowser::forward);
    connect(m_browser, &QTextBrowser::backwardAvailable, back, &QPushButton::setEnabled);
    connect(m_browser, &QTextBrowser::forwardAvailable, forward, &QPushButton::setEnabled);
    connect(m_chapters, &QListWidget::currentItemChanged, this, [this](QListWidgetItem *item) {
        if (item && item->data(Qt::UserRole).toString() != currentChapter())
            showTopic(item->data(Qt::UserRole).toString());
    });
    // Follow links between chapters in the list too.
    connect(m_browser, &QTextBrowser::sourceChanged, this, [this](const QUrl &url) {
        const QString chapter = url.fileName();
        for (int i = 0; i < m_chapters->count(); ++i)
            if (m_chapters->item(i)->data(Qt::UserRole).toString() == chapter) {
                const QSignalBlocker block(m_chapters);
                m_chapters->setCurrentRow(i);
            }
    });

    auto *buttons = new QHBoxLayout;
    buttons->addWidget(back);
    buttons->addWidget(forward);
    buttons->addStretch(1);
    auto *split = new QSplitter(this);
    split->addWidget(m_chapters);
    split->addWidget(m_browser);
    split->setStretchFactor(1, 1);
    auto *layout = new QVBoxLayout(this);
    layout->addLayout(buttons);
    layout->addWidget(split, 1);
    resize(1000, 760);
}

QString HelpBrowser::currentChapter() const {
    return m_browser->source().fileName();
}

bool HelpBrowser::showTopic(const QString &chapter, const QString &phrase) {
    if (!QFile::exists(QStringLiteral(":/docs/") + chapter)) return false;
    const QUrl url(kDocs + chapter);
    if (m_browser->source() != url) m_browser->setSource(url, QTextDocument::MarkdownResource);
    scrollToPhrase(phrase);
    return true;
}

void HelpBrowser::scrollToPhrase(const QString &phrase) {
    QTextCursor found;
    if (!phrase.isEmpty()) found = m_browser->document()->find(phrase);
    if (found.isNull()) {
        m_browser->verticalScrollBar()->setValue(0);
        return;
    }
    // The phrase's line at the top of the view.
    m_browser->setTextCursor(found);
    m_browser->verticalScrollBar()->setValue(m_browser->verticalScrollBar()->maximum());
    m_browser->ensureCursorVisible();
}

HelpTopic helpTopicFor(const QWidget *focus) {
    HelpTopic topic;
    if (within(focus, "fp32SearchDialog"))
        topic.phrase = QStringLiteral("Find fp32 Set");
    else if (within(focus, "CalibrationLab"))
        topic = {QStringLiteral("command-line.md"), QStringLiteral("Analysis > Calibration Lab")};
    else if (within(focus, "GraphView"))
        topic.phrase = QStringLiteral("Graph view");
    else if (within(focus, "LayerInspector") || within(focus, "inspector"))
        topic.phrase = QStringLiteral("Layer inspector");
    else if (within(focus, "WorstSample") || within(focus, "SampleView"))
        topic.phrase = QStringLiteral("Worst samples");
    else if (within(focus, "Diagnosis"))
        topic.phrase = QStringLiteral("Diagnosis list");
    else if (within(focus, "AnalysisTable") || within(focus, "layerTable"))
        topic.phrase = QStringLiteral("Toggles.");
    else if (within(focus, "analysisSetup") || within(focus, "AnalysisSetupDialog"))
        topic.phrase = QStringLiteral("Opening.");
    return topic;
}

}  // namespace ql::ui
