#pragma once
// The key to the graph view's fills: the SQNR colour scale around the threshold, with the fp32
// and "no figure" swatches.

#include <QWidget>

namespace ql::ui {

class SqnrFillLegend : public QWidget {
    Q_OBJECT
public:
    explicit SqnrFillLegend(QWidget *parent = nullptr);

    void setThresholdDb(double thresholdDb);
    void setCaption(const QString &caption);  // what the fill shows: "Cumulative SQNR"
    QSize sizeHint() const override;

protected:
    void paintEvent(QPaintEvent *event) override;

private:
    double m_thresholdDb = 30.0;
    QString m_caption;
};

}  // namespace ql::ui
