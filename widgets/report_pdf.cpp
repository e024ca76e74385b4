#include "report_pdf.h"

#include <QAbstractTextDocumentLayout>
#include <QBuffer>
#include <QCoreApplication>
#include <QDir>
#include <QFileInfo>
#include <QPainter>
#include <QPdfWriter>
#include <QSaveFile>
#include <QTextBlock>
#include <QTextCursor>
#include <QTextDocument>
#include <QTextFrame>
#include <QTextObjectInterface>
#include <QTextTable>
#include <QUrl>

#include <memory>

#include "report_figures.h"
#include "report_html.h"

namespace ql::ui {

namespace {

constexpr int kFigureObject = QTextFormat::UserObject + 1;
constexpr int kFigureIndex = QTextFormat::UserProperty + 1;
constexpr int kFigureSize = QTextFormat::UserProperty + 2;
constexpr double kFooterMm = 8.0;

const char kPrintStyle[] =
    "h1 { font-size: 16pt; } h2 { font-size: 12pt; margin-top: 14px; } "
    "th { background-color: #eef2f7; text-align: left; } "
    ".hash { font-family: monospace; font-size: 7pt; color: #555555; } "
    ".sub, .caption { color: #444444; font-size: 8pt; } "
    "table.layers { font-size: 7pt; } td.name { white-space: nowrap; } "
    "pre { font-size: 7pt; } code { font-size: 8pt; }";

// Draws figure N (0: the SQNR chart, 1..: the histograms) where the document placed it.
class FigureObject : public QObject, public QTextObjectInterface {
    Q_OBJECT
    Q_INTERFACES(QTextObjectInterface)
public:
    explicit FigureObject(const ReportData &data) : m_data(data) {}
    QSizeF intrinsicSize(QTextDocument *, int, const QTextFormat &format) override {
        return format.property(kFigureSize).toSizeF();
    }
    void drawObject(QPainter *painter, const QRectF &rect, QTextDocument *, int,
                    const QTextFormat &format) override {
        const int index = format.property(kFigureIndex).toInt();
        if (index == 0)
            paintSqnrChart(*painter, rect, m_data);
        else if (index - 1 < int(m_data.histograms.size()))
            paintHistogram(*painter, rect, m_data.histograms[size_t(index - 1)]);
    }

private:
    const ReportData &m_data;
};

// The figure placeholders (<img src="ql-figure:N">) become vector objects sized to the text
// width: the chart full width, a histogram two thirds.
void placeFigures(QTextDocument &doc, double textWidth) {
    struct Placeholder {
        int position, index;
    };
    std::vector<Placeholder> found;
    for (QTextBlock block = doc.begin(); block.isValid(); block = block.next())
        for (auto it = block.begin(); !it.atEnd(); ++it) {
            const QTextFragment fragment = it.fragment();
            const QTextCharFormat format = fragment.charFormat();
            if (!format.isImageFormat()) continue;
            const QString name = format.toImageFormat().name();
            if (name.startsWith(QLatin1String("ql-figure:")))
                found.push_back({fragment.position(), name.mid(10).toInt()});
        }
    for (const Placeholder &p : found) {
        QTextCharFormat figure;
        figure.setObjectType(kFigureObject);
        figure.setProperty(kFigureIndex, p.index);
        const double width = p.index == 0 ? textWidth : textWidth * 0.66;
        figure.setProperty(kFigureSize,
                           QSizeF(width, p.index == 0 ? width * 0.4 : width * 260.0 / 480.0));
        QTextCursor cursor(&doc);
        cursor.setPosition(p.position);
        cursor.setPosition(p.position + 1, QTextCursor::KeepAnchor);
        cursor.insertText(QString(QChar::ObjectReplacementCharacter), figure);
    }
}

// Tables whose first row is a header (<thead>) repeat it on every page they span.
void repeatTableHeaders(QTextFrame *frame) {
    for (QTextFrame *child : frame->childFrames()) {
        if (auto *table = qobject_cast<QTextTable *>(child)) {
            QTextTableFormat format = table->format();
            if (format.headerRowCount() == 0 && table->rows() > 1 &&
                table->cellAt(0, 0).format().toTableCellFormat().fontWeight() >= QFont::Bold) {
                format.setHeaderRowCount(1);
                table->setFormat(format);
            }
        }
        repeatTableHeaders(child);
    }
}

struct LaidOut {
    std::unique_ptr<QTextDocument> doc;
    std::unique_ptr<FigureObject> figures;
    QSizeF page;  // the text area of one page, device units
};

LaidOut layOut(const ReportData &data, QPdfWriter &writer) {
    LaidOut out;
    out.doc = std::make_unique<QTextDocument>();
    out.figures = std::make_unique<FigureObject>(data);
    QTextDocument &doc = *out.doc;
    doc.documentLayout()->setPaintDevice(&writer);
    // No shaping: ligatures would turn "fi" in layer names (/classifier/Gemm) into one glyph
    // that pdftotext and PDF search do not match.
    QFont font(QStringLiteral("DejaVu Sans"), 9);
    font.setStyleStrategy(QFont::PreferNoShaping);
    doc.setDefaultFont(font);
    doc.setDefaultStyleSheet(QString::fromLatin1(kPrintStyle));
    doc.documentLayout()->registerHandler(kFigureObject, out.figures.get());
    for (size_t row = 0; row < data.sampleThumbnails.size(); ++row)
        doc.addResource(QTextDocument::ImageResource,
                        QUrl(QLatin1String(kSampleThumbnailScheme) + QString::number(row)),
                        data.sampleThumbnails[row]);
    doc.setHtml(reportHtml(data, ReportFlavor::QtRichText));
    const double footer = kFooterMm / 25.4 * writer.resolution();
    out.page = QSizeF(writer.width(), writer.height() - footer);
    // Figures and header rows go in before the page size is set: that lays the whole document
    // out once (an object inserted into a laid-out document leaves later blocks where they were).
    placeFigures(doc, out.page.width() - 2.0 * doc.documentMargin());
    repeatTableHeaders(doc.rootFrame());
    doc.setPageSize(out.page);
    return out;
}

void configure(QPdfWriter &writer, const ReportData &data) {
    writer.setPageSize(QPageSize(QPageSize::A4));
    writer.setPageMargins(QMarginsF(14, 14, 14, 10), QPageLayout::Millimeter);
    writer.setResolution(300);
    writer.setTitle(QCoreApplication::translate("Report", "QuantLens report: %1")
                        .arg(QFileInfo(data.input.models.floatModel).fileName()));
    writer.setCreator(QStringLiteral("QuantLens %1").arg(data.version));
}

}  // namespace

int reportPdfPageCount(const ReportData &data) {
    QByteArray sink;
    QBuffer buffer(&sink);
    buffer.open(QIODevice::WriteOnly);
    QPdfWriter writer(&buffer);
    configure(writer, data);
    return layOut(data, writer).doc->pageCount();
}

Status writeReportPdf(const ReportData &data, const QString &path) {
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly))
        return Status::io(QDir::toNativeSeparators(path).toStdString() + ": cannot write (" +
                          file.errorString().toStdString() + ")");
    {
        QPdfWriter writer(&file);
        configure(writer, data);
        LaidOut laid = layOut(data, writer);
        QTextDocument &doc = *laid.doc;
        const int pages = doc.pageCount();
        QPainter painter(&writer);
        for (int page = 0; page < pages; ++page) {
            if (page > 0) writer.newPage();
            painter.save();
            painter.translate(0, -page * laid.page.height());
            QAbstractTextDocumentLayout::PaintContext context;
            context.clip =
                QRectF(0, page * laid.page.height(), laid.page.width(), laid.page.height());
            painter.setClipRect(context.clip);
            doc.documentLayout()->draw(&painter, context);
            painter.restore();
            painter.setFont(QFont(QStringLiteral("DejaVu Sans"), 8));
            painter.setPen(QColor(90, 90, 90));
            painter.drawText(
                QRectF(0, laid.page.height(), laid.page.width(),
                       writer.height() - laid.page.height()),
                Qt::AlignCenter,
                QCoreApplication::translate("Report", "Page %1 of %2").arg(page + 1).arg(pages));
        }
    }
    if (!file.commit())
        return Status::io(QDir::toNativeSeparators(path).toStdString() + ": cannot write (" +
                          file.errorString().toStdString() + ")");
    return Status::ok();
}

}  // namespace ql::ui

#include "report_pdf.moc"
