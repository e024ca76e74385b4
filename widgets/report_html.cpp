#include "report_html.h"

#include <QBuffer>

#include <QCoreApplication>
#include <QFileInfo>
#include <QJsonDocument>
#include <QLocale>

#include <algorithm>
#include <cmath>

#include "analysis/metrics/statistics.h"
#include "diagnosis_list.h"
#include "display_format.h"
#include "report_figures.h"

namespace ql::ui {

namespace {

struct Report {
    Q_DECLARE_TR_FUNCTIONS(Report)
};

const QSize kChartSvgSize(1000, 400);
const QSize kHistogramSvgSize(480, 260);
// PDF placeholders: points on an A4 page's text width (about 500 pt).
const QSize kChartPdfSize(500, 200);
const QSize kHistogramPdfSize(330, 180);

QString esc(const QString &text) {
    return text.toHtmlEscaped();
}

QString esc(const std::string &text) {
    return QString::fromStdString(text).toHtmlEscaped();
}

QString fixed(double value, int decimals) {
    if (std::isnan(value)) return QStringLiteral("—");
    if (std::isinf(value)) return value > 0 ? QStringLiteral("∞") : QStringLiteral("−∞");
    return QLocale().toString(value, 'f', decimals);
}

// A sortable cell value: numbers as they are, ∞ and missing figures at the ends.
QString sortKey(std::optional<double> value) {
    if (!value || std::isnan(*value)) return QStringLiteral("-1e300");
    if (std::isinf(*value)) return *value > 0 ? QStringLiteral("1e300") : QStringLiteral("-1e299");
    return QString::number(*value, 'g', 10);
}

QString row(const QString &label, const QString &value) {
    return QStringLiteral("<tr><th>%1</th><td>%2</td></tr>\n").arg(label, value);
}

QString modelText(const QString &path, const QString &sha256) {
    QString text = QStringLiteral("<b>%1</b>").arg(esc(QFileInfo(path).fileName()));
    if (!sha256.isEmpty())
        text += QStringLiteral("<br><span class=\"hash\">SHA-256 %1</span>").arg(sha256);
    return text;
}

QString accuracyText(std::optional<double> accuracy, int64_t samples) {
    if (!accuracy) return QStringLiteral("—");
    const auto correct = static_cast<int64_t>(std::llround(*accuracy * double(samples)));
    const analysis::Interval ci = analysis::wilsonInterval(correct, samples);
    return Report::tr("%1 % (95 % CI %2–%3 %, Wilson)")
        .arg(fixed(*accuracy * 100.0, 2), fixed(ci.low * 100.0, 1), fixed(ci.high * 100.0, 1));
}

QString headline(const ReportData &d) {
    const ReportInput &in = d.input;
    const analysis::NumericSuiteReport &r = *in.report;
    QString quant = in.models.quantizedInApp
                        ? Report::tr("quantized in QuantLens from the float model")
                        : modelText(in.models.quantModel, d.quantSha256);
    QString html = QStringLiteral("<table class=\"headline\">\n");
    html += row(Report::tr("Float model"), modelText(in.models.floatModel, d.floatSha256));
    html += row(Report::tr("Quantized model"), quant);
    html +=
        row(Report::tr("Evaluation data"), esc(in.data) + QStringLiteral(" · ") +
                                               Report::tr("%n sample(s)", nullptr, int(r.samples)));
    if (!r.outputs.empty()) {
        const analysis::OutputReport &out = r.outputs.front();
        html += row(Report::tr("Output SQNR"),
                    QStringLiteral("<b>%1 dB</b>").arg(fixed(out.sqnrDb, 2)));
        html += row(Report::tr("Top-1 agreement"),
                    fixed(out.top1Agreement * 100.0, 2) + QStringLiteral(" %"));
        if (out.floatAccuracy || out.quantAccuracy) {
            html += row(Report::tr("Accuracy, float model"),
                        accuracyText(out.floatAccuracy, r.samples));
            html += row(Report::tr("Accuracy, quantized model"),
                        accuracyText(out.quantAccuracy, r.samples));
        }
    }
    html +=
        row(Report::tr("Latency"),
            in.latencyMs ? Report::tr("int8 %1 ms · fp32 %2 ms for %n sample(s) (median of "
                                      "3 passes)",
                                      nullptr, in.latencySamples)
                               .arg(fixed(in.latencyMs->first, in.latencyMs->first < 10 ? 2 : 1),
                                    fixed(in.latencyMs->second, in.latencyMs->second < 10 ? 2 : 1))
                         : Report::tr("not measured"));
    QString layers = Report::tr("%1 int8 · %2 fp32 · %3 kept in fp32 by the user")
                         .arg(r.int8Layers)
                         .arg(r.fp32Layers)
                         .arg(in.fp32Layers.size());
    if (r.otherLayers > 0)
        layers += QStringLiteral(" · ") + Report::tr("%1 16-bit or weight-only").arg(r.otherLayers);
    html += row(Report::tr("Layers"), layers);
    return html + QStringLiteral("</table>\n");
}

QString figure(ReportFlavor flavor, int index, const QSize &svgSize, const QSize &pdfSize,
               const QString &caption) {
    if (flavor == ReportFlavor::Browser)
        return QStringLiteral(
                   "<figure class=\"fig\" data-figure=\"%1\" style=\"max-width:%2px\">"
                   "<!--ql-figure-%1--><figcaption>%3</figcaption></figure>\n")
            .arg(index)
            .arg(svgSize.width())
            .arg(caption);
    return QStringLiteral(
               "<p><img src=\"ql-figure:%1\" width=\"%2\" height=\"%3\"></p>"
               "<p class=\"caption\">%4</p>\n")
        .arg(index)
        .arg(pdfSize.width())
        .arg(pdfSize.height())
        .arg(caption);
}

QString findings(const ReportData &d) {
    if (d.findings.empty()) return QStringLiteral("<p>%1</p>\n").arg(Report::tr("No findings."));
    QString html = QStringLiteral("<ul class=\"findings\">\n");
    for (const analysis::Finding &f : d.findings) {
        const QString severity = f.severity == analysis::Severity::Error     ? Report::tr("Error")
                                 : f.severity == analysis::Severity::Warning ? Report::tr("Warning")
                                                                             : Report::tr("Note");
        html += QStringLiteral("<li><b>%1:</b> %2</li>\n")
                    .arg(severity, esc(DiagnosisList::describe(f)));
    }
    return html + QStringLiteral("</ul>\n");
}

QString layerTable(const ReportData &d, ReportFlavor flavor) {
    const bool browser = flavor == ReportFlavor::Browser;
    const QStringList headers{Report::tr("#"),
                              Report::tr("Layer"),
                              Report::tr("Op"),
                              Report::tr("Precision"),
                              Report::tr("Weight SQNR (dB)"),
                              Report::tr("Cumulative SQNR (dB)"),
                              Report::tr("Isolated SQNR (dB)"),
                              Report::tr("Saturation (%)"),
                              Report::tr("Kernel check (dB)")};
    QString html = browser ? QStringLiteral("<table id=\"layers\" class=\"layers sortable\">\n")
                           : QStringLiteral(
                                 "<table class=\"layers\" border=\"1\" cellspacing=\"0\" "
                                 "cellpadding=\"2\" width=\"100%\">\n");
    html += QStringLiteral("<thead><tr>");
    for (const QString &h : headers) html += QStringLiteral("<th>%1</th>").arg(h);
    html += QStringLiteral("</tr></thead>\n<tbody>\n");
    const auto &layers = d.input.report->layers;
    for (size_t i = 0; i < layers.size(); ++i) {
        const analysis::LayerReport &l = layers[i];
        const auto cumulative = cumulativeSqnr(l), isolated = isolatedSqnr(l);
        const std::optional<double> saturation =
            l.cumulative ? l.cumulative->saturationPct : std::nullopt;
        QString precision = esc(l.precision);
        if (l.fp32Requested) precision += QStringLiteral(" ") + Report::tr("(kept by the user)");
        QString kernel = formatDb(l.kernelVsReferenceSqnrDb);
        if (l.kernelMismatch) kernel += QStringLiteral(" ") + Report::tr("mismatch");
        auto num = [&](std::optional<double> v, const QString &text) {
            return browser ? QStringLiteral("<td class=\"n\" data-v=\"%1\">%2</td>")
                                 .arg(sortKey(v), text)
                           : QStringLiteral("<td align=\"right\">%1</td>").arg(text);
        };
        const bool low = (cumulative && *cumulative < d.input.thresholdDb) ||
                         (isolated && *isolated < d.input.thresholdDb);
        html += low ? QStringLiteral("<tr class=\"low\">") : QStringLiteral("<tr>");
        html += num(double(i + 1), QString::number(i + 1));
        html += QStringLiteral("<td class=\"name\">%1</td><td>%2</td><td>%3</td>")
                    .arg(esc(l.name), esc(l.opType), precision);
        html += num(l.weightSqnrDb, formatDb(l.weightSqnrDb));
        html += num(cumulative, formatDb(cumulative));
        html += num(isolated, formatDb(isolated));
        html += num(saturation, saturation ? fixed(*saturation, 2) : QStringLiteral("—"));
        html += num(l.kernelVsReferenceSqnrDb, kernel);
        html += QStringLiteral("</tr>\n");
    }
    return html + QStringLiteral("</tbody>\n</table>\n");
}

QString histograms(const ReportData &d, ReportFlavor flavor) {
    if (d.histograms.empty())
        return QStringLiteral("<p>%1</p>\n")
            .arg(Report::tr("No int8 layer with an SQNR figure, or no models to run."));
    QString html;
    for (size_t i = 0; i < d.histograms.size(); ++i) {
        const LayerHistogram &h = d.histograms[i];
        const QString caption = Report::tr(
                                    "%1 (%2): %3 dB. Float values and int8 values "
                                    "dequantized, first evaluation batch.")
                                    .arg(esc(h.layer), esc(h.opType), fixed(h.sqnrDb, 1));
        if (!h.error.isEmpty())
            html += QStringLiteral("<p>%1 %2</p>\n")
                        .arg(caption, Report::tr("No histogram: %1").arg(esc(h.error)));
        else
            html += figure(flavor, int(i) + 1, kHistogramSvgSize, kHistogramPdfSize, caption);
    }
    return html;
}

QString classText(int64_t id, const std::vector<std::string> &classes) {
    return esc(ui::className(id, classes));
}

// A thumbnail: inline PNG in a browser; in Qt rich text a resource the PDF writer adds.
QString thumbnailImg(const ReportData &d, size_t row, ReportFlavor flavor) {
    if (row >= d.sampleThumbnails.size() || d.sampleThumbnails[row].isNull()) return QString();
    const QImage &image = d.sampleThumbnails[row];
    if (flavor == ReportFlavor::QtRichText)
        return QStringLiteral("<img src=\"%1%2\" width=\"%3\" height=\"%4\">")
            .arg(QLatin1String(kSampleThumbnailScheme))
            .arg(row)
            .arg(image.width())
            .arg(image.height());
    QByteArray png;
    QBuffer buffer(&png);
    buffer.open(QIODevice::WriteOnly);
    image.save(&buffer, "PNG");
    return QStringLiteral(
               "<img src=\"data:image/png;base64,%1\" width=\"%2\" height=\"%3\" "
               "alt=\"\">")
        .arg(QString::fromLatin1(png.toBase64()))
        .arg(image.width())
        .arg(image.height());
}

QString worstSamples(const ReportData &d, ReportFlavor flavor) {
    const auto &worst = d.input.worstSamples;
    if (!worst || worst->samples.empty())
        return QStringLiteral("<p>%1</p>\n")
            .arg(Report::tr("No per-sample figures in this analysis."));
    const bool browser = flavor == ReportFlavor::Browser;
    const size_t rows = std::min(worst->samples.size(), d.sampleThumbnails.size());
    const size_t flips =
        size_t(std::count_if(worst->samples.begin(), worst->samples.end(),
                             [](const analysis::WorstSample &s) { return s.flipped; }));
    QString html =
        QStringLiteral("<p>%1</p>\n")
            .arg(Report::tr(
                     "The %1 samples with the lowest output SQNR and the %2 whose top-1 class "
                     "changes under quantization (%3 rows here), lowest SQNR first.")
                     .arg(std::min<size_t>(size_t(std::max(worst->lowest, 0)),
                                           worst->samples.size()))
                     .arg(flips)
                     .arg(rows));
    html += browser ? QStringLiteral("<table class=\"layers\">\n")
                    : QStringLiteral(
                          "<table class=\"layers\" border=\"1\" cellspacing=\"0\" "
                          "cellpadding=\"2\" width=\"100%\">\n");
    html += QStringLiteral("<thead><tr>");
    for (const QString &h :
         {QString(), Report::tr("Sample"), Report::tr("File"), Report::tr("Label"),
          Report::tr("Float top-1"), Report::tr("Int8 top-1"), Report::tr("Output SQNR (dB)")})
        html += QStringLiteral("<th>%1</th>").arg(h);
    html += QStringLiteral("</tr></thead>\n<tbody>\n");
    for (size_t row = 0; row < rows; ++row) {
        const analysis::WorstSample &s = worst->samples[row];
        const QString file =
            s.index < int64_t(worst->files.size())
                ? esc(QFileInfo(QString::fromStdString(worst->files[size_t(s.index)])).fileName())
                : QStringLiteral("—");
        auto cls = [&](const std::optional<int64_t> &id) {
            return id ? classText(*id, worst->classes) : QStringLiteral("—");
        };
        QString quant = cls(s.quantTop1);
        if (s.flipped) quant = QStringLiteral("<b>%1</b> %2").arg(quant, Report::tr("(changed)"));
        html += s.flipped ? QStringLiteral("<tr class=\"low\">") : QStringLiteral("<tr>");
        html +=
            QStringLiteral(
                "<td>%1</td><td>#%2</td><td class=\"file\">%3</td><td>%4</td>"
                "<td>%5</td><td>%6</td><td %7>%8</td></tr>\n")
                .arg(thumbnailImg(d, row, flavor))
                .arg(s.index)
                .arg(file, cls(s.label), cls(s.floatTop1), quant,
                     browser ? QStringLiteral("class=\"n\"") : QStringLiteral("align=\"right\""),
                     formatDb(s.sqnrDb));
    }
    return html + QStringLiteral("</tbody>\n</table>\n");
}

QString fp32Set(const ReportData &d) {
    const ReportInput &in = d.input;
    if (in.fp32Layers.empty())
        return QStringLiteral("<p>%1</p>\n")
            .arg(Report::tr("None: every layer runs as the quantized model has it."));
    QString html = QStringLiteral("<ul>\n");
    for (const std::string &name : in.fp32Layers)
        html += QStringLiteral("<li>%1</li>\n").arg(esc(name));
    html += QStringLiteral("</ul>\n<p>%1</p>\n<pre>%2</pre>\n")
                .arg(Report::tr("As a skip-list for <code>quantlens quantize --skip-list</code> "
                                "(File &gt; Export &gt; Skip-List… writes the other toolchains' "
                                "formats):"),
                     esc(QString::fromUtf8(QJsonDocument(in.skipList).toJson())));
    return html;
}

QString provenance(const ReportData &d) {
    const ReportInput &in = d.input;
    QString html = QStringLiteral("<table class=\"headline\">\n");
    html += row(Report::tr("QuantLens"), esc(d.version));
    html += row(Report::tr("Made with"), QStringLiteral("<code>%1</code>").arg(esc(in.howMade)));
    if (in.models.quantizedInApp)
        html += row(
            Report::tr("Quantizer options"),
            QStringLiteral("<code>%1</code>")
                .arg(esc(QString::fromUtf8(
                    QJsonDocument(in.models.quantizerOptions).toJson(QJsonDocument::Compact)))));
    html += row(Report::tr("Kernels"), esc(in.report->int8Kernels));
    html += row(Report::tr("SQNR threshold"), fixed(in.thresholdDb, 1) + QStringLiteral(" dB"));
    html += row(Report::tr("CPU instruction set (oneDNN)"), esc(d.cpuIsa));
    html += row(Report::tr("Date"), d.created.toString(Qt::ISODate));
    return html + QStringLiteral("</table>\n");
}

const char kStyle[] =
    R"(body{font-family:"DejaVu Sans",Arial,sans-serif;font-size:14px;color:#1a1a1a;max-width:1100px;margin:24px auto;padding:0 16px;line-height:1.4}
h1{font-size:22px;margin-bottom:2px}h2{font-size:18px;margin-top:28px;border-bottom:1px solid #ccc}
.sub{color:#555;margin-top:0}.hash{font-family:monospace;font-size:11px;color:#555;word-break:break-all}
table.headline th{text-align:left;padding:2px 16px 2px 0;vertical-align:top;font-weight:normal;color:#444}
table.layers{border-collapse:collapse;width:100%;font-size:12px}
table.layers th,table.layers td{border:1px solid #ccc;padding:2px 5px}
table.layers th{background:#eef2f7;position:sticky;top:0}
table.sortable th{cursor:pointer}table.sortable th[aria-sort=ascending]::after{content:" \25B2"}
table.sortable th[aria-sort=descending]::after{content:" \25BC"}
td.n{text-align:right;white-space:nowrap}td.name{word-break:break-all}tr.low td{background:#fdecea}
figure.fig{margin:12px 0}figure.fig svg{width:100%;height:auto}figcaption{color:#444;font-size:12px}
pre{background:#f6f6f6;padding:8px;overflow-x:auto;font-size:12px}
@media print{body{max-width:none;margin:0}table.layers th{position:static}thead{display:table-header-group}tr{page-break-inside:avoid}figure{page-break-inside:avoid}}
)";

const char kSortScript[] =
    R"(document.querySelectorAll("table.sortable th").forEach(function (th, col) {
  th.addEventListener("click", function () {
    var table = th.closest("table"), body = table.tBodies[0];
    var rows = Array.prototype.slice.call(body.rows);
    var up = th.getAttribute("aria-sort") !== "ascending";
    rows.sort(function (a, b) {
      var x = a.cells[col], y = b.cells[col];
      var u = x.getAttribute("data-v"), v = y.getAttribute("data-v");
      var d = u !== null && v !== null ? parseFloat(u) - parseFloat(v)
                                       : x.textContent.localeCompare(y.textContent);
      return up ? d : -d;
    });
    table.querySelectorAll("th").forEach(function (h) { h.removeAttribute("aria-sort"); });
    th.setAttribute("aria-sort", up ? "ascending" : "descending");
    rows.forEach(function (r) { body.appendChild(r); });
  });
});
)";

const char kProjectScriptId[] = "quantlens-project";

}  // namespace

QString reportHtml(const ReportData &d, ReportFlavor flavor) {
    const bool browser = flavor == ReportFlavor::Browser;
    const QString title =
        Report::tr("QuantLens report: %1").arg(QFileInfo(d.input.models.floatModel).fileName());
    QString body;
    body += QStringLiteral("<h1>%1</h1>\n<p class=\"sub\">%2</p>\n")
                .arg(esc(title), Report::tr("Made on %1 by QuantLens %2")
                                     .arg(d.created.toString(Qt::ISODate), esc(d.version)));
    body += headline(d);
    body += QStringLiteral("<h2>%1</h2>\n").arg(Report::tr("Per-layer SQNR"));
    body += figure(flavor, 0, kChartSvgSize, kChartPdfSize,
                   Report::tr("Bars: weight SQNR; line: cumulative activation SQNR; diamonds: "
                              "isolated SQNR; dashed: the %1 dB threshold; hatched: fp32 layers.")
                       .arg(fixed(d.input.thresholdDb, 1)));
    body += QStringLiteral("<h2>%1</h2>\n").arg(Report::tr("Findings"));
    body += findings(d);
    body += QStringLiteral("<h2>%1</h2>\n").arg(Report::tr("Layers"));
    if (browser)
        body += QStringLiteral("<p class=\"noprint\">%1</p>\n")
                    .arg(Report::tr("Click a column header to sort. Rows under the threshold are "
                                    "shaded."));
    body += layerTable(d, flavor);
    body += QStringLiteral("<h2>%1</h2>\n").arg(Report::tr("Worst layers"));
    body += histograms(d, flavor);
    body += QStringLiteral("<h2>%1</h2>\n").arg(Report::tr("Worst samples"));
    body += worstSamples(d, flavor);
    body += QStringLiteral("<h2>%1</h2>\n").arg(Report::tr("Layers kept in fp32"));
    body += fp32Set(d);
    body += QStringLiteral("<h2>%1</h2>\n").arg(Report::tr("How this analysis was made"));
    body += provenance(d);
    if (!browser) {
        // Qt's rich text ignores CSS padding on cells: the headline's columns get it from HTML.
        body.replace(QStringLiteral("<table class=\"headline\">"),
                     QStringLiteral("<table class=\"headline\" cellspacing=\"0\" cellpadding=\"3\">"));
        return QStringLiteral("<html><body>\n") + body + QStringLiteral("</body></html>\n");
    }
    body.replace(QStringLiteral("<!--ql-figure-0-->"),
                 QString::fromUtf8(sqnrChartSvg(d, kChartSvgSize)));
    for (size_t i = 0; i < d.histograms.size(); ++i)
        body.replace(QStringLiteral("<!--ql-figure-%1-->").arg(i + 1),
                     QString::fromUtf8(histogramSvg(d.histograms[i], kHistogramSvgSize)));

    QString json = QString::fromUtf8(QJsonDocument(d.input.project).toJson(QJsonDocument::Compact));
    json.replace(QStringLiteral("</"), QStringLiteral("<\\/"));
    if (!d.input.project.isEmpty())
        body += QStringLiteral("<p class=\"noprint\">%1</p>\n")
                    .arg(Report::tr("This file carries the analysis: <code>quantlens gui %1</code> "
                                    "reopens it (the models and data are found relative to this "
                                    "file).")
                             .arg(Report::tr("REPORT.html")));
    return QStringLiteral(
               "<!DOCTYPE html>\n<html lang=\"%1\">\n<head>\n<meta charset=\"utf-8\">\n"
               "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
               "<title>%2</title>\n<style>\n%3</style>\n</head>\n<body>\n%4"
               "<script type=\"application/json\" id=\"%5\">%6</script>\n"
               "<script>\n%7</script>\n</body>\n</html>\n")
        .arg(QLocale().name().section(QLatin1Char('_'), 0, 0), esc(title),
             QString::fromLatin1(kStyle), body, QLatin1String(kProjectScriptId), json,
             QString::fromLatin1(kSortScript));
}

QJsonObject projectFromReportHtml(const QByteArray &html, QString &error) {
    const QByteArray marker = QByteArray("id=\"") + kProjectScriptId + "\">";
    const int start = html.indexOf(marker);
    const int end = start < 0 ? -1 : html.indexOf("</script>", start);
    if (start < 0 || end < 0) {
        error = Report::tr("not a QuantLens report, or one without its analysis");
        return {};
    }
    QByteArray json = html.mid(start + marker.size(), end - start - marker.size());
    json.replace("<\\/", "</");
    QJsonParseError parseError;
    const QJsonDocument doc = QJsonDocument::fromJson(json, &parseError);
    if (parseError.error != QJsonParseError::NoError || !doc.isObject() || doc.object().isEmpty()) {
        error = Report::tr("the analysis it carries is damaged (%1)").arg(parseError.errorString());
        return {};
    }
    return doc.object();
}

}  // namespace ql::ui
