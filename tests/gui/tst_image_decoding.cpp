// Qt's image readers against PIL on the JPEG fixtures (issue 18): the pixels QuantLens decodes
// must be the ones PyTorch users' PIL decodes (digests from tests/tools/make_pil_pixel_digests.py),
// so the preprocessing's figures match torchvision's on JPEGs too, not only on PNGs.
#include <QCryptographicHash>
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QtTest>

#include <numeric>

#include "image_dataset.h"

class TestImageDecoding : public QObject {
    Q_OBJECT
private slots:
    void jpegPixelsAreThoseOfPil();
};

void TestImageDecoding::jpegPixelsAreThoseOfPil() {
    const QString root = QStringLiteral(QL_TEST_DATA_DIR "/images/");
    QFile file(root + QStringLiteral("pil_pixels.json"));
    QVERIFY(file.open(QIODevice::ReadOnly));
    const QJsonObject digests = QJsonDocument::fromJson(file.readAll()).object();
    QCOMPARE(digests.size(), 6);
    for (auto it = digests.begin(); it != digests.end(); ++it) {
        const QJsonObject pil = it.value().toObject();
        auto image = ql::ui::decodeImage((root + it.key()).toStdString());
        QVERIFY2(image, image ? "" : image.status().message().c_str());
        QCOMPARE(image->width, pil.value("width").toInt());
        QCOMPARE(image->height, pil.value("height").toInt());
        QCOMPARE(image->channels, pil.value("mode").toString() == QLatin1String("L") ? 1 : 3);
        const std::vector<uint8_t> &pixels = image->pixels8;
        QCOMPARE(pixels.size(), size_t(image->width) * image->height * image->channels);
        // The sum first: when the digests differ it says by how much.
        const qint64 sum = std::accumulate(pixels.begin(), pixels.end(), qint64(0));
        QCOMPARE(sum, qint64(pil.value("sum").toDouble()));
        const QByteArray digest = QCryptographicHash::hash(
            QByteArrayView(reinterpret_cast<const char *>(pixels.data()), qsizetype(pixels.size())),
            QCryptographicHash::Sha256);
        QCOMPARE(QString::fromLatin1(digest.toHex()), pil.value("sha256").toString());
    }
}

QTEST_MAIN(TestImageDecoding)
#include "tst_image_decoding.moc"
