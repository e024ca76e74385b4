#include "gui_launcher.h"

#include <QApplication>
#include <QCommandLineParser>
#include <QIcon>
#include <QLibraryInfo>
#include <QLocale>
#include <QTimer>
#include <QTranslator>

#include <cstdio>

#include "cli_commands.h"
#include "analysis_controller.h"
#include "document_controller.h"
#include "main_window.h"
#include "project_controller.h"

namespace {

// Qt's own strings (dialog buttons) and ours, in the first of the user's languages we have.
void installTranslators(QApplication &app) {
    auto *qt = new QTranslator(&app);
    if (qt->load(QLocale(), QStringLiteral("qtbase"), QStringLiteral("_"),
                 QLibraryInfo::path(QLibraryInfo::TranslationsPath)))
        QCoreApplication::installTranslator(qt);
    auto *own = new QTranslator(&app);
    if (own->load(QLocale(), QStringLiteral("quantlens"), QStringLiteral("_"),
                  QStringLiteral(":/i18n")))
        QCoreApplication::installTranslator(own);
}

int exitCodeFor(ql::ErrorKind kind) {
    switch (kind) {
        case ql::ErrorKind::BadInput:
            return cli::BadInput;
        case ql::ErrorKind::Unsupported:
            return cli::Unsupported;
        default:
            return cli::Failure;
    }
}

int fail(const QString &message, int code) {
    std::fprintf(stderr, "quantlens: %s\n", qPrintable(message));
    return code;
}

}  // namespace

int runGui(int argc, char *argv[], int firstArgument) {
    QApplication app(argc, argv);
    QApplication::setWindowIcon(QIcon(QStringLiteral(":/icons/quantlens.svg")));
    QGuiApplication::setDesktopFileName(QStringLiteral("io.github.quantlens.QuantLens"));
    installTranslators(app);

    QStringList arguments = QApplication::arguments();
    arguments.erase(arguments.begin() + 1,
                    arguments.begin() + qMin(firstArgument, int(arguments.size())));
    QCommandLineParser parser;
    parser.setApplicationDescription(QApplication::translate(
        "main",
        "QuantLens: find and fix int8 quantization accuracy loss.\n"
        "Subcommands: gui (default), infer, bench, quantize, analyze; `quantlens SUBCOMMAND --help`."));
    parser.addHelpOption();
    parser.addVersionOption();
    parser.addPositionalArgument(QStringLiteral("model"),
                                 QApplication::translate("main", "ONNX model or QuantLens project to open."),
                                 QStringLiteral("[MODEL.onnx | PROJECT.qlproj]"));
    parser.addOption({QStringLiteral("demo"),
                      QApplication::translate("main", "Open the embedded Fashion-MNIST demo.")});
    parser.addOption(
        {QStringLiteral("screenshot"),
         QApplication::translate("main", "Load (and analyse a project or the demo), save a PNG of the "
                                                 "window to FILE, exit."),
         QStringLiteral("FILE")});
    parser.process(arguments);  // exits on --help, --version and unknown options

    const QStringList models = parser.positionalArguments();
    if (models.size() > 1 || (parser.isSet("demo") && !models.isEmpty()))
        return fail(QApplication::translate("main", "give either --demo or one MODEL.onnx or PROJECT.qlproj"),
                    cli::BadInput);
    const QString screenshot = parser.value("screenshot");
    const bool capture = !screenshot.isEmpty();

    // A screenshot run leaves the user's settings alone and reports errors on stderr.
    MainWindow window(MainWindow::Options{!capture, !capture, !capture});
    const bool analyses = parser.isSet("demo") ||
                          (!models.isEmpty() && models.first().endsWith(QLatin1String(".qlproj"), Qt::CaseInsensitive));
    int exitCode = cli::Success;
    if (capture) {
        window.resize(1280, 800);  // the same picture whatever the (virtual) screen size
        auto grabAndQuit = [&window, &screenshot, &exitCode] {
            // Let posted layout requests run before painting.
            QTimer::singleShot(50, &window, [&window, &screenshot, &exitCode] {
                if (!window.grab().save(screenshot)) {
                    exitCode = fail(
                        QApplication::translate("main", "%1: cannot write the PNG").arg(screenshot),
                        cli::Failure);
                }
                QApplication::exit(exitCode);
            });
        };
        auto failAndQuit = [&exitCode](const QString &message, ql::ErrorKind kind) {
            exitCode = fail(message, exitCodeFor(kind));
            QApplication::exit(exitCode);
        };
        if (analyses) {
            // The analysis (and its latency) to completion, then the picture.
            QObject::connect(window.analysis(), &AnalysisController::busyChanged, &window,
                             [&window, grabAndQuit](bool busy) {
                                 if (!busy && window.analysis()->report()) grabAndQuit();
                             });
            QObject::connect(window.analysis(), &AnalysisController::failed, &window, failAndQuit);
        } else {
            QObject::connect(window.documents(), &DocumentController::modelLoaded, &window, grabAndQuit);
        }
        QObject::connect(window.documents(), &DocumentController::loadFailed, &window,
                         [failAndQuit](const QString &, const QString &message, ql::ErrorKind kind) {
                             failAndQuit(message, kind);
                         });
        if (models.isEmpty() && !parser.isSet("demo")) grabAndQuit();
    }
    window.show();
    if (parser.isSet("demo"))
        window.openDemo();
    else if (!models.isEmpty())
        window.openPath(models.first());
    else if (!capture)
        // An untitled analysis autosaved before a crash: offer it back.
        QTimer::singleShot(0, &window, [&window] { window.project()->offerRecovery(); });
    const int code = app.exec();
    return capture ? exitCode : code;
}
