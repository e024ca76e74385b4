#include "sqnr_fill_legend.h"

#include <QLinearGradient>
#include <QPainter>

#include "display_format.h"
#include "sqnr_colours.h"

namespace ql::ui {
namespace {
constexpr int kRampWidth = 220, kSwatch = 12, kMargin = 6;
}

SqnrFillLegend::SqnrFillLegend(QWidget *parent) : QWidget(parent) {
    setObjectName(QStringLiteral("sqnrFillLegend"));
    setAttribute(Qt::WA_TransparentForMouseEvents);
}

void SqnrFillLegend::setThresholdDb(double thresholdDb) {
    m_thresholdDb = thresholdDb;
    update();
}

void SqnrFillLegend::setCaption(const QString &caption) {
    m_caption = caption;
    updateGeometry();
    adjustSize();
    update();
}

QSize SqnrFillLegend::sizeHint() const {
    const QFontMetrics metrics(font());
    const int swatches = metrics.horizontalAdvance(tr("fp32")) +
                         metrics.horizontalAdvance(tr("no figure")) + 4 * kSwatch + 12;
    const int width = std::max({kRampWidth, metrics.horizontalAdvance(m_caption), swatches});
    return {width + 2 * kMargin, 3 * metrics.height() + kSwatch + 2 * kMargin};
}

void SqnrFillLegend::paintEvent(QPaintEvent *) {
    QPainter painter(this);
    painter.setRenderHint(QPainter::Antialiasing);
    QColor background = palette().color(QPalette::Window);
    background.setAlpha(225);
    painter.setPen(QPen(palette().color(QPalette::Mid), 1.0));
    painter.setBrush(background);
    painter.drawRoundedRect(QRectF(rect()).adjusted(0.5, 0.5, -0.5, -0.5), 4, 4);

    const QFontMetrics metrics(font());
    painter.setPen(palette().color(QPalette::Text));
    int y = kMargin;
    painter.drawText(QRect(kMargin, y, width() - 2 * kMargin, metrics.height()),
                     Qt::AlignLeft | Qt::AlignVCenter, m_caption);
    y += metrics.height();
    const double low = m_thresholdDb + kFillScaleLowDb, high = m_thresholdDb + kFillScaleHighDb;
    const QRect ramp(kMargin, y, kRampWidth, kSwatch);
    QLinearGradient gradient(ramp.topLeft(), ramp.topRight());
    for (int k = 0; k <= 12; ++k) {
        const double t = k / 12.0;
        gradient.setColorAt(t, *sqnrFill(low + t * (high - low), m_thresholdDb));
    }
    painter.fillRect(ramp, gradient);
    // The threshold's tick, where amber starts.
    const int thresholdX = ramp.left() + int(kRampWidth * (m_thresholdDb - low) / (high - low));
    painter.setPen(QPen(kUnderColor, 1.5, Qt::DashLine));
    painter.drawLine(thresholdX, ramp.top() - 2, thresholdX, ramp.bottom() + 2);
    y += kSwatch;
    painter.setPen(palette().color(QPalette::Text));
    // Whole dB: the ends and the threshold's tick stay apart at this width.
    const QRect labels(kMargin, y, kRampWidth, metrics.height());
    painter.drawText(labels, Qt::AlignLeft | Qt::AlignVCenter,
                     QStringLiteral("≤ %1").arg(formatFixed(low, 0)));
    painter.drawText(QRect(thresholdX - 30, y, 60, metrics.height()), Qt::AlignCenter,
                     formatFixed(m_thresholdDb, 0));
    painter.drawText(labels, Qt::AlignRight | Qt::AlignVCenter,
                     tr("≥ %1 dB").arg(formatFixed(high, 0)));
    y += metrics.height();
    int x = kMargin;
    auto swatch = [&](const QColor &fill, Qt::PenStyle style, const QString &text) {
        painter.setPen(
            QPen(style == Qt::DashLine ? kFp32Color : palette().color(QPalette::Text), 1.2, style));
        painter.setBrush(fill);
        painter.drawRect(QRect(x, y + (metrics.height() - kSwatch) / 2, kSwatch, kSwatch));
        x += kSwatch + 4;
        painter.setPen(palette().color(QPalette::Text));
        painter.drawText(QRect(x, y, metrics.horizontalAdvance(text) + 2, metrics.height()),
                         Qt::AlignLeft | Qt::AlignVCenter, text);
        x += metrics.horizontalAdvance(text) + 12;
    };
    swatch(kFp32Color.lighter(160), Qt::DashLine, tr("fp32"));
    swatch(noFigureFill(palette()), Qt::SolidLine, tr("no figure"));
}

}  // namespace ql::ui
