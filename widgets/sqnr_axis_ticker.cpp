#include "sqnr_axis_ticker.h"

#include <algorithm>

namespace ql::ui {

void SqnrAxisTicker::setScale(double scaleBottom, double scaleTop) {
    m_scaleBottom = scaleBottom;
    m_scaleTop = scaleTop;
}

void SqnrAxisTicker::setTopRow(double position, const QString &label) {
    m_topRow = position;
    m_topLabel = label;
}

void SqnrAxisTicker::setBottomRow(double position, const QString &label) {
    m_bottomRow = position;
    m_bottomLabel = label;
}

QVector<double> SqnrAxisTicker::createTickVector(double tickStep, const QCPRange &range) {
    QVector<double> ticks;
    const double eps = tickStep * 1e-6;
    // Scale ticks stay clear of the off-scale rows, so "80" and "> 80" never overlap.
    const double clearance = tickStep * 0.75;
    for (const double t : QCPAxisTicker::createTickVector(tickStep, range)) {
        if (t < m_scaleBottom - eps || t > m_scaleTop + eps) continue;
        if (!m_topLabel.isEmpty() && t > m_topRow - clearance) continue;
        if (!m_bottomLabel.isEmpty() && t < m_bottomRow + clearance) continue;
        ticks << t;
    }
    if (!m_topLabel.isEmpty() && range.contains(m_topRow)) ticks << m_topRow;
    if (!m_bottomLabel.isEmpty() && range.contains(m_bottomRow)) ticks.prepend(m_bottomRow);
    return ticks;
}

QString SqnrAxisTicker::getTickLabel(double tick, const QLocale &locale, QChar formatChar,
                                     int precision) {
    if (!m_topLabel.isEmpty() && tick == m_topRow) return m_topLabel;
    if (!m_bottomLabel.isEmpty() && tick == m_bottomRow) return m_bottomLabel;
    return QCPAxisTicker::getTickLabel(tick, locale, formatChar, precision);
}

}  // namespace ql::ui
