#include "report_export.h"

#include <QFileInfo>
#include <QJsonArray>
#include <QtConcurrent/QtConcurrentRun>

#include "report_html.h"
#include "report_pdf.h"
#include "save_file.h"

namespace ql::ui {

bool isPdfReportPath(const QString &path) {
    return QFileInfo(path).suffix().compare(QLatin1String("pdf"), Qt::CaseInsensitive) == 0;
}

Status writeReportFile(const ReportData &data, const QString &path) {
    if (isPdfReportPath(path)) return writeReportPdf(data, path);
    return saveFile(path, reportHtml(data, ReportFlavor::Browser).toUtf8());
}

QJsonObject skipListObject(const QString &floatModel, const std::set<std::string> &fp32Layers) {
    QJsonArray nodes;
    for (const std::string &name : fp32Layers) nodes.append(QString::fromStdString(name));
    return QJsonObject{{QStringLiteral("model"), QFileInfo(floatModel).fileName()},
                       {QStringLiteral("fp32_nodes"), nodes}};
}

ReportExport::ReportExport(QObject *parent) : QObject(parent) {
    connect(&m_watcher, &QFutureWatcher<ReportData>::finished, this, &ReportExport::onPrepared);
}

ReportExport::~ReportExport() {
    // prepareReport works on its own copies; waiting keeps the worker from outliving the app.
    m_watcher.waitForFinished();
}

void ReportExport::start(ReportInput input, const QString &path) {
    if (isBusy()) return;
    m_path = path;
    m_cancelled = false;
    m_watcher.setFuture(QtConcurrent::run(
        [input = std::move(input)]() mutable { return prepareReport(std::move(input)); }));
    emit busyChanged(true);
}

void ReportExport::cancel() {
    if (!isBusy()) return;
    m_cancelled = true;
}

void ReportExport::onPrepared() {
    emit busyChanged(false);
    if (m_cancelled) return;
    const Status status = writeReportFile(m_watcher.result(), m_path);
    if (!status) {
        emit failed(QString::fromStdString(status.message()));
        return;
    }
    emit written(m_path);
}

}  // namespace ql::ui
