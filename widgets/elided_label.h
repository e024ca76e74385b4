#pragma once
// A single-line label that elides its text to the width it gets instead of forcing its parent
// wider; the full text stays available through fullText() and the tooltip.

#include <QLabel>

namespace ql::ui {

class ElidedLabel : public QLabel {
    Q_OBJECT
public:
    explicit ElidedLabel(QWidget *parent = nullptr, Qt::TextElideMode mode = Qt::ElideRight);

    void setFullText(const QString &text);
    const QString &fullText() const { return m_fullText; }
    QSize minimumSizeHint() const override;
    QSize sizeHint() const override;

protected:
    void resizeEvent(QResizeEvent *event) override;

private:
    void updateElided();

    QString m_fullText;
    Qt::TextElideMode m_mode;
};

}  // namespace ql::ui
