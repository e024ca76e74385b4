#include "elided_label.h"

namespace ql::ui {

ElidedLabel::ElidedLabel(QWidget *parent, Qt::TextElideMode mode) : QLabel(parent), m_mode(mode) {
    setTextFormat(Qt::PlainText);
    setSizePolicy(QSizePolicy::Preferred, QSizePolicy::Fixed);
}

void ElidedLabel::setFullText(const QString &text) {
    m_fullText = text;
    updateElided();
    updateGeometry();
}

QSize ElidedLabel::minimumSizeHint() const {
    return {fontMetrics().averageCharWidth() * 6, QLabel::minimumSizeHint().height()};
}

QSize ElidedLabel::sizeHint() const {
    return {fontMetrics().horizontalAdvance(m_fullText) + 4, QLabel::sizeHint().height()};
}

void ElidedLabel::resizeEvent(QResizeEvent *event) {
    QLabel::resizeEvent(event);
    updateElided();
}

void ElidedLabel::updateElided() {
    const QString shown =
        fontMetrics().elidedText(m_fullText, m_mode, qMax(0, contentsRect().width()));
    if (shown != text()) QLabel::setText(shown);
}

}  // namespace ql::ui
