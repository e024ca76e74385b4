// The project reader: a .qlproj (JSON), or the project an HTML report embeds when the bytes look
// like HTML; then its setup as the analysis would start from it.
#include <QDir>
#include <QJsonObject>

#include <cstring>

#include "analysis_setup.h"
#include "fuzz_support.h"
#include "project_controller.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    const bool html = size >= 1 && data[0] == '<';
    const std::string path = ql::fuzz::writeScratch(data, size, html ? ".html" : ".qlproj");
    QJsonObject project;
    QString error;
    if (ProjectController::readProject(QString::fromStdString(path), project, error)) {
        AnalysisSetup setup;
        std::set<std::string> fp32;
        double thresholdDb = 0.0;
        ProjectController::unpackProject(project, QDir(QStringLiteral("/nonexistent")), setup,
                                         fp32, thresholdDb);
        ql::ui::AnalysisRequest request;
        setup.toRequest(request, error);
    }
    std::remove(path.c_str());
    return 0;
}
