// quantlens: no subcommand (or `gui`) opens the GUI; `infer`, `bench`, ... run headless.

#include <QApplication>
#include <QCoreApplication>

#include <cstdio>
#include <cstring>

#include "cli_commands.h"
#include "gui_launcher.h"

int main(int argc, char *argv[]) {
    QCoreApplication::setOrganizationName("QuantLens");
    QCoreApplication::setApplicationName("QuantLens");
    QCoreApplication::setApplicationVersion(QUANTLENS_VERSION);
    const char *command = argc > 1 ? argv[1] : "";
    if (std::strcmp(command, "infer") == 0 || std::strcmp(command, "bench") == 0) {
        QCoreApplication app(argc, argv);
        QStringList rest = app.arguments().mid(2);
        return std::strcmp(command, "infer") == 0 ? cli::runInfer(rest) : cli::runBench(rest);
    }
    if (std::strcmp(command, "quantize") == 0 || std::strcmp(command, "analyze") == 0) {
        QCoreApplication app(argc, argv);
        QStringList rest = app.arguments().mid(2);
        return std::strcmp(command, "quantize") == 0 ? cli::runQuantize(rest) : cli::runAnalyze(rest);
    }
    if (std::strcmp(command, "calib-lab") == 0 || std::strcmp(command, "search") == 0) {
        QCoreApplication app(argc, argv);
        const QStringList rest = app.arguments().mid(2);
        return std::strcmp(command, "search") == 0 ? cli::runSearch(rest) : cli::runCalibLab(rest);
    }
    if (std::strcmp(command, "gui") == 0) return runGui(argc, argv, 2);
    return runGui(argc, argv);
}
