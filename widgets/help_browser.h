#pragma once
// Help > User Guide (F1): the guide of resources/docs/ (Markdown, bundled in the application
// under :/docs, with its screenshots under :/screenshots), read offline in a QTextBrowser with a
// list of chapters, Back / Forward and links between chapters. showTopic() opens a chapter at
// the first heading or bold term that holds a phrase: F1 on a view opens that view's section.

#include <QDialog>
#include <QString>

class QListWidget;
class QTextBrowser;

namespace ql::ui {

class HelpBrowser : public QDialog {
    Q_OBJECT
public:
    explicit HelpBrowser(QWidget *parent = nullptr);

    // Opens `chapter` ("user-guide.md") at the first place that holds `phrase` ("" = the top).
    // False when the chapter is not bundled.
    bool showTopic(const QString &chapter, const QString &phrase = {});

    QTextBrowser *browser() const { return m_browser; }
    QString currentChapter() const;

private:
    void scrollToPhrase(const QString &phrase);

    QListWidget *m_chapters;
    QTextBrowser *m_browser;
};

// The guide's chapter and phrase for a widget that has focus: the view's own section (the graph,
// the layer inspector, the search dialog, the calibration lab, ...), else the guide's start.
struct HelpTopic {
    QString chapter = QStringLiteral("user-guide.md");
    QString phrase;
};
HelpTopic helpTopicFor(const QWidget *focus);

}  // namespace ql::ui
