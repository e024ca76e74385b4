// `quantlens report` and the --html / --pdf options of `analyze` (cli_report.h).
#include "cli_report.h"

#include <QDir>
#include <QFileInfo>

#include <cstdio>

#include "analysis_setup.h"
#include "cli_commands.h"
#include "cli_support.h"
#include "project_controller.h"
#include "report_export.h"

namespace cli {

namespace {

int writeFailure(const ql::Status &status) {
    std::fprintf(stderr, "quantlens: %s\n", status.message().c_str());
    return CannotWrite;
}

// A folder to write into must exist: QSaveFile would fail with a less clear message.
ql::Status checkFolder(const QString &path) {
    const QFileInfo folder(QFileInfo(path).absolutePath());
    if (!folder.isDir())
        return ql::Status::error(
            ql::ErrorKind::Io,
            QDir::toNativeSeparators(path).toStdString() + ": cannot write (no folder " +
                QDir::toNativeSeparators(folder.filePath()).toStdString() + ")");
    return ql::Status::ok();
}

}  // namespace

void addReportOptions(QCommandLineParser &parser) {
    parser.addOption({"html",
                      "Write a self-contained HTML report (reopen it with `quantlens gui R.html`).",
                      "R.html"});
    parser.addOption({"pdf", "Write a PDF report.", "R.pdf"});
    parser.addOption(
        {"no-latency", "Do not measure the latency of the two models for the report."});
}

bool wantsReport(const QCommandLineParser &parser) {
    return parser.isSet("html") || parser.isSet("pdf");
}

QString commandLineText(const QString &subcommand, const QStringList &arguments) {
    QStringList words{QStringLiteral("quantlens"), subcommand};
    for (const QString &a : arguments)
        words << (a.contains(QLatin1Char(' ')) ? QLatin1Char('\'') + a + QLatin1Char('\'') : a);
    return words.join(QLatin1Char(' '));
}

QString reportFolder(const QCommandLineParser &parser) {
    const QString anchor = parser.isSet("html") ? parser.value("html") : parser.value("pdf");
    return QFileInfo(anchor).absolutePath();
}

int writeReports(const QCommandLineParser &parser, ql::ui::ReportInput input) {
    for (const char *option : {"html", "pdf"})
        if (parser.isSet(option))
            if (ql::Status s = checkFolder(parser.value(option)); !s) return writeFailure(s);
    const ql::ui::ReportData data = ql::ui::prepareReport(std::move(input));
    for (const char *option : {"html", "pdf"}) {
        if (!parser.isSet(option)) continue;
        if (ql::Status s = ql::ui::writeReportFile(data, parser.value(option)); !s)
            return writeFailure(s);
        std::printf("report: %s\n", qPrintable(parser.value(option)));
    }
    return Success;
}

int runReport(const QStringList &arguments) {
    QCommandLineParser parser;
    parser.setApplicationDescription(
        "Re-run the analysis of a project (or of the analysis an HTML report carries), with its "
        "fp32 layers and latency, and write it as an HTML and/or PDF report.");
    parser.addHelpOption();
    parser.addPositionalArgument("project", "The project (.qlproj) or an HTML report.",
                                 "PROJECT.qlproj");
    addReportOptions(parser);
    parser.addOption({"threads", "Threads (default: all cores).", "N"});
    if (!parser.parse(QStringList{"quantlens report"} + arguments))
        return usageError(parser.errorText());
    if (parser.isSet("help")) {
        std::fputs(qPrintable(parser.helpText()), stdout);
        return Success;
    }
    if (parser.positionalArguments().size() != 1)
        return usageError("report: give one PROJECT.qlproj (or REPORT.html)");
    if (!wantsReport(parser)) return usageError("report: give --html R.html and/or --pdf R.pdf");
    bool ok = true;
    const int threads = parser.isSet("threads") ? parser.value("threads").toInt(&ok) : 0;
    if (!ok || threads < 0) return usageError("report: --threads expects a positive number");

    const QString projectPath = parser.positionalArguments().first();
    QJsonObject project;
    QString error;
    if (!ProjectController::readProject(projectPath, project, error))
        return reportFailure(ql::Status::badInput(error.toStdString()));
    AnalysisSetup setup;
    std::set<std::string> fp32;
    std::optional<ql::analysis::LayerRemedies> remedies;
    double thresholdDb = 30.0;
    ProjectController::unpackProject(project, QFileInfo(projectPath).absoluteDir(), setup, fp32,
                                     thresholdDb, &remedies);
    ql::ui::AnalysisRequest request;
    if (!setup.toRequest(request, error))
        return reportFailure(
            ql::Status::badInput(projectPath.toStdString() + ": " + error.toStdString()));
    request.threads = threads;
    request.fp32Layers = fp32;
    request.layerRemedies = remedies;
    auto session = ql::ui::createAnalysisSession(request);
    if (!session) return reportFailure(session.status().withContext(projectPath.toStdString()));
    auto report = (*session)->report();

    ql::ui::ReportInput input;
    input.report = std::make_shared<const ql::analysis::NumericSuiteReport>(std::move(report));
    input.models = setup.analysisModels();
    input.data = setup.dataText((*session)->data().reading);
    if (!parser.isSet("no-latency")) {
        auto latency = (*session)->measureLatencyMs(3);
        if (!latency) return reportFailure(latency.status());
        input.latencyMs = *latency;
        input.latencySamples = int(input.report->samples);
    }
    input.worstSamples = ql::ui::worstSampleData(**session);
    input.floatGraph = std::make_shared<const ql::Graph>((*session)->floatGraph());
    input.quantGraph = std::make_shared<const ql::Graph>((*session)->quantGraph());
    input.batch = std::make_shared<const std::map<std::string, ql::Tensor>>(
        (*session)->data().batches.front());
    input.fp32Layers = fp32;
    input.skipList = ql::ui::skipListObject(setup.floatModel, fp32);
    input.thresholdDb = thresholdDb;
    input.howMade = commandLineText("report", arguments);
    input.project = ProjectController::projectJson(
        setup, fp32, thresholdDb, QDir(reportFolder(parser)),
        setup.quantizeInApp ? std::optional((*session)->layerRemedies()) : std::nullopt);
    return writeReports(parser, std::move(input));
}

}  // namespace cli
