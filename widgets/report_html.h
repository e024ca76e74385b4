#pragma once
// The analysis report as HTML. Two flavours of one document, so the HTML and the PDF say the
// same things in the same order (headline, SQNR chart, findings, layer table, histograms of the
// worst layers, fp32 set and skip-list, how it was made):
//  * Browser: one self-contained file (CSS and a few lines of sorting script inline, figures as
//    inline SVG, nothing fetched), readable and printable without the script, carrying the
//    project as <script type="application/json" id="quantlens-project"> so that
//    `quantlens gui REPORT.html` reopens the analysis;
//  * QtRichText: the subset QTextDocument lays out for the PDF (report_pdf.h), figures as
//    <img src="ql-figure:N"> placeholders the PDF writer replaces by vector drawings
//    (N: 0 the SQNR chart, 1.. the histograms).
// Text follows the UI language. With SOURCE_DATE_EPOCH set, the same analysis gives the same
// bytes.

#include <QByteArray>
#include <QJsonObject>
#include <QString>

#include "report_data.h"

namespace ql::ui {

enum class ReportFlavor { Browser, QtRichText };

QString reportHtml(const ReportData &data, ReportFlavor flavor);

// The project a report carries (Browser flavour), or an empty object with `error` set when the
// file holds none.
QJsonObject projectFromReportHtml(const QByteArray &html, QString &error);

}  // namespace ql::ui
