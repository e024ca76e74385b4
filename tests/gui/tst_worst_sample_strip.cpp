// WorstSampleStrip and its thumbnails: image tiles show the pictures' colours once the background
// job finishes, tensor tiles a heat map with min and max where the data puts them, a flip's int8
// class in red, click / Enter / arrows activate the right sample, a second setData drops the
// first one's thumbnails, unreadable pictures get the placeholder, and the strip paints
// something. QL_STRIP_SCREENSHOT=FILE.png also saves a light and a dark demo (FILE_dark.png).
#include <QAbstractItemView>
#include <QImageWriter>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QtTest>

#include <cmath>
#include <limits>
#include <set>

#include "onnx_io/tensor_file.h"
#include "sample_thumbnail.h"
#include "worst_sample_strip.h"

using namespace ql;
using namespace ql::analysis;
using namespace ql::ui;

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

WorstSample sample(int64_t index, double sqnr, std::optional<int64_t> floatTop1 = {},
                   std::optional<int64_t> quantTop1 = {}, std::optional<int64_t> label = {}) {
    WorstSample s;
    s.index = index;
    s.sqnrDb = sqnr;
    s.floatTop1 = floatTop1;
    s.quantTop1 = quantTop1;
    s.label = label;
    s.flipped = floatTop1 && quantTop1 && *floatTop1 != *quantTop1;
    return s;
}

QString writePng(const QTemporaryDir &dir, const QString &name, QSize size, QColor colour) {
    QImage image(size, QImage::Format_RGB32);
    image.fill(colour);
    const QString path = dir.filePath(name);
    return image.save(path) ? path : QString();
}

bool near(QColor a, QColor b, int tolerance = 6) {
    return std::abs(a.red() - b.red()) <= tolerance &&
           std::abs(a.green() - b.green()) <= tolerance &&
           std::abs(a.blue() - b.blue()) <= tolerance;
}

QColor centre(const QImage &image) {
    return image.pixelColor(image.width() / 2, image.height() / 2);
}

// The dark palette of `quantlens --palette dark`.
QPalette darkPalette() {
    QPalette p;
    const QColor window(45, 45, 48), base(30, 30, 32), text(220, 220, 220);
    for (auto [role, colour] : {std::pair{QPalette::Window, window},
                                {QPalette::WindowText, text},
                                {QPalette::Base, base},
                                {QPalette::AlternateBase, window},
                                {QPalette::Text, text},
                                {QPalette::Button, window},
                                {QPalette::ButtonText, text},
                                {QPalette::Mid, QColor(70, 70, 74)},
                                {QPalette::Dark, QColor(25, 25, 27)},
                                {QPalette::Highlight, QColor(42, 130, 218)},
                                {QPalette::PlaceholderText, QColor(120, 120, 120)}})
        p.setColor(role, colour);
    return p;
}

// Pixels of `image` inside `rect` close to `colour`.
int countNear(const QImage &image, const QRect &rect, QColor colour, int tolerance) {
    int n = 0;
    for (int y = rect.top(); y <= rect.bottom(); ++y)
        for (int x = rect.left(); x <= rect.right(); ++x)
            n += near(image.pixelColor(x, y), colour, tolerance);
    return n;
}

}  // namespace

class TestWorstSampleStrip : public QObject {
    Q_OBJECT

private:
    QTemporaryDir m_dir;

    static QRect tileRect(WorstSampleStrip &strip, int tile) {
        QAbstractItemView *view = strip.view();
        return view->visualRect(view->model()->index(tile, 0));
    }

    static void clickTile(WorstSampleStrip &strip, int tile) {
        QTest::mouseClick(strip.view()->viewport(), Qt::LeftButton, {},
                          tileRect(strip, tile).center());
    }

    // The strip's text band (below the thumbnails) of one tile, in view viewport coordinates.
    static QRect textBand(WorstSampleStrip &strip, int tile) {
        const QRect r = tileRect(strip, tile);
        return QRect(r.left(), r.top() + WorstSampleStrip::kThumbnailSize + 8, r.width(),
                     r.bottom() - r.top() - WorstSampleStrip::kThumbnailSize - 8);
    }

private slots:
    void initTestCase() { QVERIFY(m_dir.isValid()); }

    void imageThumbnailsShowTheirPictures() {
        const QString red = writePng(m_dir, "red.png", {40, 30}, Qt::red);
        const QString green = writePng(m_dir, "green.png", {200, 100}, QColor(0, 160, 0));
        const QString blue = writePng(m_dir, "blue.png", {10, 10}, Qt::blue);
        SampleStripData data;
        data.files = {green.toStdString(), "", red.toStdString(), "", blue.toStdString()};
        data.samples = {sample(2, 3.25), sample(0, 7.0), sample(4, 11.0)};
        WorstSampleStrip strip;
        strip.setData(data);
        QCOMPARE(strip.count(), 3);
        // Made off the GUI thread: results only arrive through the event loop.
        QCOMPARE(strip.thumbnailState(0), WorstSampleStrip::Thumbnail::Loading);
        QVERIFY(strip.isLoading());
        QTRY_VERIFY(!strip.isLoading());
        const QColor expected[] = {Qt::red, QColor(0, 160, 0), Qt::blue};
        for (int tile = 0; tile < 3; ++tile) {
            QCOMPARE(strip.thumbnailState(tile), WorstSampleStrip::Thumbnail::Ready);
            QVERIFY2(near(centre(strip.thumbnailAt(tile)), expected[tile]),
                     qPrintable(centre(strip.thumbnailAt(tile)).name()));
        }
        // Fitted to 72 px, aspect kept, small pictures enlarged.
        QCOMPARE(strip.thumbnailAt(0).size(), QSize(72, 54));
        QCOMPARE(strip.thumbnailAt(1).size(), QSize(72, 36));
        QCOMPARE(strip.thumbnailAt(2).size(), QSize(72, 72));
        QCOMPARE(strip.sampleAt(0), 2);
        QCOMPARE(strip.sampleAt(2), 4);
        const QString tip = strip.view()->model()->index(0, 0).data(Qt::ToolTipRole).toString();
        QVERIFY2(tip.contains(red) && tip.contains(QStringLiteral("3.3 dB")), qPrintable(tip));
    }

    void largeJpegIsReadScaled() {
        QImage big(4000, 3000, QImage::Format_RGB32);
        big.fill(QColor(250, 200, 0));
        const QString path = m_dir.filePath("big.jpg");
        QVERIFY(big.save(path, "JPEG", 80));
        const QImage thumb = imageFileThumbnail(path, 72);
        QCOMPARE(thumb.size(), QSize(72, 54));
        QVERIFY(near(centre(thumb), QColor(250, 200, 0), 12));
        QVERIFY(imageFileThumbnail(m_dir.filePath("missing.png"), 72).isNull());
    }

    void heatMapPutsMinAndMaxWhereTheDataDoes() {
        // [2, 3, 4]: the channel average is smallest at the top-left, largest at the bottom-right.
        std::vector<float> values(24);
        for (int c = 0; c < 2; ++c)
            for (int i = 0; i < 12; ++i) values[size_t(c * 12 + i)] = float(i * (c + 1));
        const QImage map = tensorHeatMap(Tensor::fromVector<float>({2, 3, 4}, values), 72);
        QCOMPARE(map.size(), QSize(72, 54));
        QCOMPARE(map.pixelColor(0, 0), heatColour(0.0));
        QCOMPARE(map.pixelColor(71, 53), heatColour(1.0));
        QVERIFY(heatColour(0.0) != heatColour(1.0));
        // Constant: mid colour; NaN: grey; rank 1: a strip still visible.
        const QImage flat =
            tensorHeatMap(Tensor::fromVector<float>({4, 4}, std::vector<float>(16, 2.0f)), 72);
        QCOMPARE(flat.pixelColor(10, 10), heatColour(0.5));
        const QImage withNan =
            tensorHeatMap(Tensor::fromVector<float>({2, 2}, {0.0f, std::nanf(""), 1.0f, 2.0f}), 72);
        QCOMPARE(withNan.pixelColor(60, 5), heatNanColour());
        QCOMPARE(withNan.pixelColor(5, 5), heatColour(0.0));
        const QImage strip =
            tensorHeatMap(Tensor::fromVector<float>({100}, std::vector<float>(100, 1.0f)), 72);
        QCOMPARE(strip.width(), 72);
        QVERIFY(strip.height() >= 9);
        QVERIFY(tensorHeatMap(Tensor::fromVector<float>({0, 3}, {}), 72).isNull());
    }

    void tensorTilesShowHeatMaps() {
        // Sample 5: [1, 8, 8] rising left to right and top to bottom; min top-left, max
        // bottom-right.
        std::vector<float> rising(64);
        for (int i = 0; i < 64; ++i) rising[size_t(i)] = float(i);
        // Sample 9: reversed, min at the bottom-right.
        std::vector<float> falling(rising.rbegin(), rising.rend());
        SampleStripData data;
        data.samples = {sample(9, 1.0), sample(5, 2.0), sample(7, 3.0)};
        data.tensors[5] = Tensor::fromVector<float>({1, 8, 8}, rising);
        data.tensors[9] = Tensor::fromVector<float>({1, 8, 8}, falling);
        WorstSampleStrip strip;
        strip.setData(std::move(data));
        QTRY_VERIFY(!strip.isLoading());
        const QImage rise = strip.thumbnailAt(1), fall = strip.thumbnailAt(0);
        QCOMPARE(rise.size(), QSize(72, 72));
        QCOMPARE(rise.pixelColor(0, 0), heatColour(0.0));
        QCOMPARE(rise.pixelColor(71, 71), heatColour(1.0));
        QCOMPARE(fall.pixelColor(0, 0), heatColour(1.0));
        QCOMPARE(fall.pixelColor(71, 71), heatColour(0.0));
        // No tensor for sample 7: the placeholder.
        QCOMPARE(strip.thumbnailState(2), WorstSampleStrip::Thumbnail::Unavailable);
    }

    void captionsAndFlipColour() {
        SampleStripData data;
        data.classes = {"T-shirt", "Trouser", "Pullover", "Dress", "Coat", "Sandal", "Shirt"};
        data.samples = {sample(3, 12.34, 4, 6, 4), sample(8, 15.0, 4, 4, 6),
                        sample(11, -std::numeric_limits<double>::infinity()),
                        sample(12, kNaN, 40, 41)};
        data.lowest = 3;
        WorstSampleStrip strip;
        strip.setData(data);
        QCOMPARE(strip.title(), QStringLiteral("Worst samples (3 lowest SQNR, 2 flips)"));
        QAbstractItemView *view = strip.view();
        auto caption = [view](int tile) { return view->model()->index(tile, 0).data().toString(); };
        QCOMPARE(caption(0), QStringLiteral("#3 · 12.3 dB"));
        QCOMPARE(caption(2), QStringLiteral("#11 · −∞ dB"));
        QCOMPARE(caption(3), QStringLiteral("#12 · n/a"));
        const QString tip = view->model()->index(0, 0).data(Qt::ToolTipRole).toString();
        for (const char *part :
             {"Label: Coat (class 4)", "Float top-1: Coat", "Int8 top-1: Shirt", "12.3 dB"})
            QVERIFY2(tip.contains(QString::fromUtf8(part)), qPrintable(tip));
        // Classes past the names: indices.
        QVERIFY(view->model()->index(3, 0).data(Qt::ToolTipRole).toString().contains("41"));

        strip.resize(700, strip.sizeHint().height());
        strip.show();
        QVERIFY(QTest::qWaitForWindowExposed(&strip));
        for (const QPalette &palette : {strip.palette(), darkPalette()}) {
            strip.setPalette(palette);
            const QColor red = WorstSampleStrip::flipColour(view->palette());
            const QImage shot = view->viewport()->grab().toImage();
            // Anti-aliased glyphs: count pixels near the red that a bold glyph's core reaches.
            const int flippedRed = countNear(shot, textBand(strip, 0), red, 40);
            const int plainRed = countNear(shot, textBand(strip, 1), red, 40);
            QVERIFY2(flippedRed > 5 && plainRed == 0,
                     qPrintable(QStringLiteral("%1 / %2").arg(flippedRed).arg(plainRed)));
        }
        QCOMPARE(strip.title(), QStringLiteral("Worst samples (3 lowest SQNR, 2 flips)"));
        data.samples.resize(2);
        data.samples[1].flipped = false;
        strip.setData(data);
        QCOMPARE(strip.title(), QStringLiteral("Worst samples (2 lowest SQNR, 1 flip)"));
        strip.clear();
        QCOMPARE(strip.count(), 0);
        QCOMPARE(strip.title(), QStringLiteral("Worst samples"));
    }

    void clickEnterAndArrowsActivate() {
        SampleStripData data;
        for (int64_t i : {42, 7, 19, 3}) data.samples.push_back(sample(i, double(i)));
        WorstSampleStrip strip;
        strip.setData(data);
        strip.resize(800, strip.sizeHint().height());
        strip.show();
        QVERIFY(QTest::qWaitForWindowExposed(&strip));
        QSignalSpy spy(&strip, &WorstSampleStrip::sampleActivated);
        clickTile(strip, 1);
        QCOMPARE(spy.count(), 1);
        QCOMPARE(spy.takeFirst().at(0).toLongLong(), 7);
        // Enter on the current tile, then Right moves to the next one.
        strip.view()->setFocus();
        QTest::keyClick(strip.view(), Qt::Key_Return);
        QCOMPARE(spy.count(), 1);
        QCOMPARE(spy.takeFirst().at(0).toLongLong(), 7);
        QTest::keyClick(strip.view(), Qt::Key_Right);
        QTest::keyClick(strip.view(), Qt::Key_Enter);
        QCOMPARE(spy.count(), 1);
        QCOMPARE(spy.takeFirst().at(0).toLongLong(), 19);
        QTest::keyClick(strip.view(), Qt::Key_Left);
        QTest::keyClick(strip.view(), Qt::Key_Left);
        QTest::keyClick(strip.view(), Qt::Key_Return);
        QCOMPARE(spy.takeFirst().at(0).toLongLong(), 42);
        // A double-click (as a window system delivers it: click, press, double-click, release)
        // activates once, with its first click.
        QWidget *viewport = strip.view()->viewport();
        const QPoint fourth = tileRect(strip, 3).center();
        QTest::mouseClick(viewport, Qt::LeftButton, {}, fourth);
        QTest::mousePress(viewport, Qt::LeftButton, {}, fourth);
        QTest::mouseDClick(viewport, Qt::LeftButton, {}, fourth);
        QTest::mouseRelease(viewport, Qt::LeftButton, {}, fourth);
        QCOMPARE(spy.count(), 1);
        QCOMPARE(spy.takeFirst().at(0).toLongLong(), 3);
        // The viewed sample becomes the current tile, so Enter and arrows continue from it.
        strip.setCurrentSample(19);
        QCOMPARE(strip.currentSample(), 19);
        QCOMPARE(strip.view()->currentIndex().row(), 2);
        QTest::keyClick(strip.view(), Qt::Key_Right);
        QTest::keyClick(strip.view(), Qt::Key_Return);
        QCOMPARE(spy.takeFirst().at(0).toLongLong(), 3);
        // Kept across setData when the sample is still there.
        strip.setData(data);
        QCOMPARE(strip.view()->currentIndex().row(), 2);
    }

    void secondSetDataDropsTheFirst() {
        const QString red = writePng(m_dir, "stale.png", {300, 300}, Qt::red);
        const QString blue = writePng(m_dir, "fresh.png", {30, 20}, Qt::blue);
        SampleStripData first;
        for (int i = 0; i < 60; ++i) {
            first.files.push_back(red.toStdString());
            first.samples.push_back(sample(i, double(i)));
        }
        SampleStripData second;
        second.files = {blue.toStdString(), blue.toStdString()};
        second.samples = {sample(1, 0.5), sample(0, 0.75)};
        WorstSampleStrip strip;
        strip.setData(first);
        strip.setData(second);
        QCOMPARE(strip.count(), 2);
        QTRY_VERIFY(!strip.isLoading());
        QTest::qWait(300);  // anything the first job still had in flight
        QCOMPARE(strip.count(), 2);
        for (int tile = 0; tile < 2; ++tile) {
            QCOMPARE(strip.thumbnailAt(tile).size(), QSize(72, 48));
            QVERIFY(near(centre(strip.thumbnailAt(tile)), Qt::blue));
        }
    }

    void unreadablePicturesGetThePlaceholder() {
        QFile text(m_dir.filePath("not_an_image.png"));
        QVERIFY(text.open(QIODevice::WriteOnly));
        text.write("this is not a PNG");
        text.close();
        SampleStripData data;
        data.files = {text.fileName().toStdString(), m_dir.filePath("gone.png").toStdString()};
        data.samples = {sample(0, 1.0), sample(1, 2.0), sample(5, 3.0)};  // 5: no file at all
        WorstSampleStrip strip;
        strip.setData(data);
        strip.show();
        QTRY_VERIFY(!strip.isLoading());
        for (int tile = 0; tile < 3; ++tile) {
            QCOMPARE(strip.thumbnailState(tile), WorstSampleStrip::Thumbnail::Unavailable);
            QVERIFY(strip.thumbnailAt(tile).isNull());
        }
        QVERIFY(!strip.grab().isNull());
    }

    void paintsSomething() {
        const QString green = writePng(m_dir, "shot.png", {64, 48}, QColor(20, 180, 60));
        SampleStripData data;
        data.files = {green.toStdString(), green.toStdString()};
        data.samples = {sample(0, 5.0, 1, 2), sample(1, 9.0, 1, 1)};
        WorstSampleStrip strip;
        strip.setData(data);
        strip.resize(500, strip.sizeHint().height());
        strip.show();
        QVERIFY(QTest::qWaitForWindowExposed(&strip));
        QTRY_VERIFY(!strip.isLoading());
        const QString path = m_dir.filePath("strip.png");
        QVERIFY(strip.grab().save(path));
        const QImage shot(path);
        QVERIFY(!shot.isNull());
        std::set<QRgb> colours;
        for (int y = 0; y < shot.height(); y += 2)
            for (int x = 0; x < shot.width(); x += 2) colours.insert(shot.pixel(x, y));
        QVERIFY2(colours.size() > 20, qPrintable(QString::number(colours.size())));
        QVERIFY(countNear(shot, shot.rect(), QColor(20, 180, 60), 4) > 500);  // the thumbnails
        // Short: one row of tiles with three text lines.
        QVERIFY2(strip.sizeHint().height() < 72 + 6 * strip.fontMetrics().height() + 40,
                 qPrintable(QString::number(strip.sizeHint().height())));
    }

    // Light and dark screenshots of realistic content, when asked for.
    void demoScreenshot() {
        const QByteArray out = qgetenv("QL_STRIP_SCREENSHOT");
        if (out.isEmpty()) QSKIP("QL_STRIP_SCREENSHOT not set");
        const QString demo = QFileInfo(QStringLiteral(QL_DEMO_MODEL)).absolutePath();
        auto samples = readTensorFile((demo + "/samples.npy").toStdString());
        auto labels = readTensorFile((demo + "/labels.npy").toStdString());
        QVERIFY(samples && labels);
        const std::vector<int64_t> ids = labels->toInt64Vector();
        const int64_t rowSize = samples->numel() / samples->dim(0);
        const std::vector<float> all = samples->toFloatVector();
        SampleStripData data;
        data.classes = {"T-shirt/top", "Trouser", "Pullover", "Dress", "Coat",
                        "Sandal",      "Shirt",   "Sneaker",  "Bag",   "Ankle boot"};
        data.lowest = 5;
        const int64_t shown[] = {17, 3, 40, 8, 25, 51, 12, 60};
        const int64_t quant[] = {6, -1, -1, -1, -1, 2, 4, -1};
        double sqnr = -std::numeric_limits<double>::infinity();
        for (size_t i = 0; i < std::size(shown); ++i) {
            const int64_t s = shown[i], label = ids[size_t(s)];
            data.samples.push_back(sample(s, sqnr, label, quant[i] < 0 ? label : quant[i], label));
            sqnr = std::isinf(sqnr) ? 6.8 : sqnr + 1.7;
            std::vector<float> row(all.begin() + s * rowSize, all.begin() + (s + 1) * rowSize);
            data.tensors[s] = Tensor::fromVector<float>({1, 28, 28}, row);
        }
        data.samples[7].sqnrDb = kNaN;
        WorstSampleStrip strip;
        strip.setData(data);
        strip.setCurrentSample(40);
        strip.resize(900, strip.sizeHint().height());
        strip.show();
        QVERIFY(QTest::qWaitForWindowExposed(&strip));
        QTRY_VERIFY(!strip.isLoading());
        QVERIFY(strip.grab().save(QString::fromLocal8Bit(out)));
        strip.setPalette(darkPalette());
        QString dark = QString::fromLocal8Bit(out);
        dark.insert(dark.lastIndexOf('.'), "_dark");
        QVERIFY(strip.grab().save(dark));
        // Pictures: the test JPEGs, one missing.
        const QString photos =
            QFileInfo(demo + "/../../tests/data/images/jpegs").absoluteFilePath();
        SampleStripData images;
        for (int i = 0; i < 6; ++i)
            images.files.push_back(
                QStringLiteral("%1/photo %2.jpg").arg(photos).arg(i).toStdString());
        images.files.push_back("/nonexistent.jpg");
        for (int i : {4, 6, 1, 0}) images.samples.push_back(sample(i, 3.0 + i, i % 2, 1, i % 2));
        images.lowest = 4;
        strip.setPalette(QPalette());
        strip.setData(images);
        QTRY_VERIFY(!strip.isLoading());
        QString photo = QString::fromLocal8Bit(out);
        photo.insert(photo.lastIndexOf('.'), "_images");
        QVERIFY(strip.grab().save(photo));
    }
};

QTEST_MAIN(TestWorstSampleStrip)
#include "tst_worst_sample_strip.moc"
