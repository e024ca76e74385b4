// ReadableStyle: on a dark palette Fusion's check-box frame is near-black on near-black; the
// style draws it again in the text colour so the frame stands out from the box's inside. On a
// light palette it draws exactly what Fusion draws.

#include <QApplication>
#include <QImage>
#include <QPainter>
#include <QStyleFactory>
#include <QStyleOptionButton>
#include <QtTest>

#include "readable_style.h"

class TestReadableStyle : public QObject {
    Q_OBJECT

private slots:
    void frameStandsOutOnDark();
    void lightPaletteIsUntouched();

private:
    static QPalette darkPalette() {
        QPalette p;
        p.setColor(QPalette::Window, QColor(45, 45, 48));
        p.setColor(QPalette::Base, QColor(30, 30, 32));
        p.setColor(QPalette::Button, QColor(45, 45, 48));
        p.setColor(QPalette::Text, QColor(220, 220, 220));
        p.setColor(QPalette::WindowText, QColor(220, 220, 220));
        return p;
    }
    // A 20x20 image (filled with the palette's base) with an unchecked box drawn at (2,2) 16x16.
    static QImage drawBox(const QStyle &style, const QPalette &palette) {
        QImage image(20, 20, QImage::Format_ARGB32);
        image.fill(palette.base().color());
        QStyleOptionButton option;
        option.rect = QRect(2, 2, 16, 16);
        option.palette = palette;
        option.state = QStyle::State_Enabled | QStyle::State_Off;
        QPainter painter(&image);
        style.drawPrimitive(QStyle::PE_IndicatorCheckBox, &option, &painter);
        return image;
    }
    // The largest lightness difference between the box's left edge and its centre.
    static int edgeContrast(const QImage &image) {
        const int inside = QColor(image.pixel(10, 10)).lightness();
        int best = 0;
        for (int y = 4; y < 16; ++y)
            best = qMax(best, qAbs(QColor(image.pixel(2, y)).lightness() - inside));
        return best;
    }
};

void TestReadableStyle::frameStandsOutOnDark() {
    std::unique_ptr<QStyle> fusion(QStyleFactory::create("Fusion"));
    ql::ui::ReadableStyle readable(QStyleFactory::create("Fusion"));
    const int before = edgeContrast(drawBox(*fusion, darkPalette()));
    const int after = edgeContrast(drawBox(readable, darkPalette()));
    qInfo("edge contrast: Fusion %d, readable %d", before, after);
    QVERIFY2(after >= 60, qPrintable(QString("edge contrast %1").arg(after)));
    QVERIFY2(after > before + 30, qPrintable(QString("%1 -> %2").arg(before).arg(after)));
}

void TestReadableStyle::lightPaletteIsUntouched() {
    std::unique_ptr<QStyle> fusion(QStyleFactory::create("Fusion"));
    ql::ui::ReadableStyle readable(QStyleFactory::create("Fusion"));
    QPalette light;  // Fusion's default light palette
    light.setColor(QPalette::Window, QColor(239, 239, 239));
    light.setColor(QPalette::Base, Qt::white);
    QCOMPARE(drawBox(readable, light), drawBox(*fusion, light));
}

QTEST_MAIN(TestReadableStyle)
#include "tst_readable_style.moc"
