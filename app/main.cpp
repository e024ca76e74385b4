// quantlens: no subcommand (or `gui`) opens the GUI; `infer`, `bench`, ... run headless.

#include <QApplication>
#include <QCoreApplication>
#include <QFileInfo>

#include <malloc.h>

#include <cstdio>
#include <cstring>
#include <optional>

#include "cli_commands.h"
#include "cli_report.h"
#include "cli_support.h"
#include "gui_launcher.h"

namespace {

const char *const kSubcommands[] = {"gui",       "infer",  "bench",  "quantize",
                                    "analyze",   "calib-lab", "search", "report"};

bool isSubcommand(const char *word) {
    for (const char *s : kSubcommands)
        if (std::strcmp(word, s) == 0) return true;
    return false;
}

bool asksForReport(int argc, char *argv[]) {
    for (int i = 2; i < argc; ++i)
        for (const char *option : {"--html", "--pdf"})
            if (std::strncmp(argv[i], option, std::strlen(option)) == 0) return true;
    return false;
}

}  // namespace

int main(int argc, char *argv[]) {
    // Tensors of 1 MiB and more get pages of their own, returned when freed. glibc otherwise
    // raises its mmap threshold after the first large free and serves later tensors from a heap
    // that fragments: analyze's peak RSS grew 488 -> 545 MB from 64 to 512 samples (470 MB flat
    // with this).
    mallopt(M_MMAP_THRESHOLD, 1 << 20);
    QCoreApplication::setOrganizationName("QuantLens");
    QCoreApplication::setApplicationName("QuantLens");
    QCoreApplication::setApplicationVersion(QUANTLENS_VERSION);
    const char *command = argc > 1 ? argv[1] : "";
    // Headless subcommands stop cleanly on Ctrl+C (the GUI never sees it: runGui starts no scope).
    std::optional<cli::InterruptScope> interrupts;
    if (isSubcommand(command) && std::strcmp(command, "gui") != 0) interrupts.emplace();
    if (std::strcmp(command, "infer") == 0 || std::strcmp(command, "bench") == 0) {
        QCoreApplication app(argc, argv);
        QStringList rest = app.arguments().mid(2);
        return std::strcmp(command, "infer") == 0 ? cli::runInfer(rest) : cli::runBench(rest);
    }
    // Reports draw their charts with widgets: a QApplication (offscreen without a display) and
    // the user's language.
    const bool report = std::strcmp(command, "report") == 0;
    if (report || (std::strcmp(command, "analyze") == 0 && asksForReport(argc, argv))) {
        if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM") && qEnvironmentVariableIsEmpty("DISPLAY") &&
            qEnvironmentVariableIsEmpty("WAYLAND_DISPLAY"))
            qputenv("QT_QPA_PLATFORM", "offscreen");
        QApplication app(argc, argv);
        installTranslators(app);
        const QStringList rest = app.arguments().mid(2);
        return report ? cli::runReport(rest) : cli::runAnalyze(rest);
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
    // `quantlens FILE` opens FILE in the GUI; any other word is a mistyped subcommand.
    if (command[0] != '\0' && command[0] != '-' && !isSubcommand(command) &&
        !QFileInfo::exists(QString::fromLocal8Bit(command))) {
        std::fprintf(stderr,
                     "quantlens: '%s' is neither a subcommand (gui, infer, bench, quantize, "
                     "analyze, calib-lab, search, report) nor a file to open\n",
                     command);
        return cli::BadInput;
    }
    return runGui(argc, argv);
}
