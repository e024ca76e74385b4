#pragma once
// The analysis report as a PDF with Qt's own writer (QPdfWriter + QTextDocument, no browser): the
// QtRichText flavour of report_html.h laid out on A4 pages, real text (searchable, extractable
// with pdftotext), the layer table split across pages with its header repeated, page numbers,
// and the figures drawn as vectors by report_figures.h. GUI thread only.

#include <QString>

#include "core/status.h"
#include "report_data.h"

namespace ql::ui {

// Writes through a temporary file renamed over `path`: a failure leaves no partial file.
Status writeReportPdf(const ReportData &data, const QString &path);
// The number of pages writeReportPdf lays out (tests).
int reportPdfPageCount(const ReportData &data);

}  // namespace ql::ui
