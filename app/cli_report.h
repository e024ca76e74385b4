#pragma once
// Reports from the command line: `analyze … --html R.html --pdf R.pdf` and
// `quantlens report PROJECT.qlproj --html R.html --pdf R.pdf`. Both need a QApplication (the
// charts are widgets); main() makes one, offscreen when there is no display.

#include <QCommandLineParser>
#include <QStringList>

#include "report_data.h"

namespace cli {

void addReportOptions(QCommandLineParser &parser);
bool wantsReport(const QCommandLineParser &parser);
// "quantlens SUBCOMMAND ARGS…", arguments with spaces quoted: the report's "Made with".
QString commandLineText(const QString &subcommand, const QStringList &arguments);
// Writes the --html and --pdf reports of `input`; 0, or 3 with one line naming the file when a
// report cannot be written (nothing partial is left).
int writeReports(const QCommandLineParser &parser, ql::ui::ReportInput input);
// The folder the project embedded in an HTML report is relative to (the --html file's).
QString reportFolder(const QCommandLineParser &parser);

int runReport(const QStringList &arguments);

}  // namespace cli
