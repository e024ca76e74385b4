#pragma once
// Writing a report file, by its extension (.pdf: PDF, anything else: HTML), and ReportExport, which
// does it for the GUI: prepareReport() (hashes, histogram captures) on a worker thread, then the
// writing on the GUI thread (the PDF and the figures paint with widgets).

#include <QFutureWatcher>
#include <QJsonObject>
#include <QObject>
#include <QString>

#include <set>
#include <string>

#include "core/status.h"
#include "report_data.h"

namespace ql::ui {

bool isPdfReportPath(const QString &path);

// HTML or PDF by the extension of `path`, written atomically (no partial file on failure).
Status writeReportFile(const ReportData &data, const QString &path);

// The fp32 set as a QuantLens skip-list (the JSON analyze/quantize --skip-list read).
QJsonObject skipListObject(const QString &floatModel, const std::set<std::string> &fp32Layers);

class ReportExport : public QObject {
    Q_OBJECT
public:
    explicit ReportExport(QObject *parent = nullptr);
    ~ReportExport() override;
    void start(ReportInput input, const QString &path);
    // The report being prepared is dropped: nothing is written.
    void cancel();
    bool isBusy() const { return m_watcher.isRunning(); }

signals:
    void busyChanged(bool busy);
    void written(const QString &path);
    void failed(const QString &message);

private:
    void onPrepared();
    QFutureWatcher<ReportData> m_watcher;
    QString m_path;
    bool m_cancelled = false;
};

}  // namespace ql::ui
