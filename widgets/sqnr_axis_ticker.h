#pragma once
// The SQNR chart's value-axis ticker: ordinary dB ticks over the scale, plus one labelled tick
// above (and below) it where off-scale figures are drawn: "∞" when every one of them is +inf,
// "> 80" otherwise. Identical layers give +inf and near-identical ones 100+ dB; drawing them to
// scale would squash the 20–50 dB range where the decisions are made.

#include <qcustomplot.h>

namespace ql::ui {

class SqnrAxisTicker : public QCPAxisTicker {
public:
    // No off-scale row when the label is empty.
    void setScale(double scaleBottom, double scaleTop);
    void setTopRow(double position, const QString &label);
    void setBottomRow(double position, const QString &label);

protected:
    QVector<double> createTickVector(double tickStep, const QCPRange &range) override;
    QString getTickLabel(double tick, const QLocale &locale, QChar formatChar,
                         int precision) override;

private:
    double m_scaleBottom = 0.0, m_scaleTop = 60.0;
    double m_topRow = 0.0, m_bottomRow = 0.0;
    QString m_topLabel, m_bottomLabel;
};

}  // namespace ql::ui
