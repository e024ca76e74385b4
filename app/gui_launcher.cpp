#include "gui_launcher.h"

#include <QApplication>
#include <QCommandLineParser>
#include <QIcon>
#include <QLibraryInfo>
#include <QLocale>
#include <QMenu>
#include <QPainter>
#include <QPalette>
#include <QSplitter>
#include <QStyle>
#include <QStyleFactory>
#include <QTabWidget>
#include <QTableView>
#include <QTimer>
#include <QTranslator>

#include <cstdio>
#include <memory>
#include <optional>

#include "analysis_controller.h"
#include "analysis_panel.h"
#include "analysis_proxy_model.h"
#include "analysis_table_model.h"
#include "cli_commands.h"
#include "document_controller.h"
#include "graph_view.h"
#include "layer_inspector.h"
#include "main_window.h"
#include "readable_style.h"

// Qt's own strings (dialog buttons) and ours, in the first of the user's languages we have.
void installTranslators(QCoreApplication &app) {
    auto *qt = new QTranslator(&app);
    if (qt->load(QLocale(), QStringLiteral("qtbase"), QStringLiteral("_"),
                 QLibraryInfo::path(QLibraryInfo::TranslationsPath)))
        QCoreApplication::installTranslator(qt);
    auto *own = new QTranslator(&app);
    if (own->load(QLocale(), QStringLiteral("quantlens"), QStringLiteral("_"),
                  QStringLiteral(":/i18n")))
        QCoreApplication::installTranslator(own);
}

namespace {

int exitCodeFor(ql::ErrorKind kind) {
    switch (kind) {
        case ql::ErrorKind::BadInput:
            return cli::BadInput;
        case ql::ErrorKind::Unsupported:
            return cli::Unsupported;
        case ql::ErrorKind::Io:
            return cli::CannotWrite;
        default:
            return cli::Failure;
    }
}

// A dark Fusion palette: for checking (and showing) that every view reads well on dark.
void applyDarkPalette() {
    QApplication::setStyle(
        new ql::ui::ReadableStyle(QStyleFactory::create(QStringLiteral("Fusion"))));
    QPalette p;
    const QColor window(45, 45, 48), base(30, 30, 32), text(220, 220, 220), disabled(120, 120, 120);
    p.setColor(QPalette::Window, window);
    p.setColor(QPalette::WindowText, text);
    p.setColor(QPalette::Base, base);
    p.setColor(QPalette::AlternateBase, window);
    p.setColor(QPalette::ToolTipBase, base);
    p.setColor(QPalette::ToolTipText, text);
    p.setColor(QPalette::Text, text);
    p.setColor(QPalette::Button, window);
    p.setColor(QPalette::ButtonText, text);
    p.setColor(QPalette::BrightText, Qt::red);
    p.setColor(QPalette::Highlight, QColor(42, 130, 218));
    p.setColor(QPalette::HighlightedText, Qt::white);
    p.setColor(QPalette::Link, QColor(90, 160, 240));
    p.setColor(QPalette::Mid, QColor(70, 70, 74));
    p.setColor(QPalette::Dark, QColor(25, 25, 27));
    p.setColor(QPalette::PlaceholderText, disabled);
    for (auto role : {QPalette::WindowText, QPalette::Text, QPalette::ButtonText})
        p.setColor(QPalette::Disabled, role, disabled);
    QApplication::setPalette(p);
}

// The current layer's menu (chart, table and graph share it), drawn beside the layer's table row
// of a grab of the window: a popup is a window of its own, which a grab does not include.
void drawLayerMenu(MainWindow &window, QPixmap &picture) {
    ql::ui::AnalysisPanel *panel = window.analysisPanel();
    const int layer = panel->currentLayer();
    if (layer < 0) return;
    std::unique_ptr<QMenu> menu(panel->createLayerMenu(layer, nullptr));
    menu->adjustSize();
    const QPixmap drawn = menu->grab();
    QTableView *table = panel->tableView();
    const QModelIndex row = panel->proxyModel()->mapFromSource(
        panel->tableModel()->index(layer, ql::ui::AnalysisTableModel::PrecisionColumn));
    const QRect cell = table->visualRect(row);
    QPoint at = table->viewport()->mapTo(&window, cell.center());
    at.setY(std::min(at.y(), picture.height() - drawn.height()));
    QPainter painter(&picture);
    painter.drawPixmap(at, drawn);
}

// The inspector tab named on the command line (LayerInspector::Tab), or -1.
int inspectorTabIndex(const QString &name) {
    static const QStringList names = {QStringLiteral("parameters"),  QStringLiteral("weights"),
                                      QStringLiteral("activations"), QStringLiteral("scatter"),
                                      QStringLiteral("channels"),    QStringLiteral("samples"),
                                      QStringLiteral("explain")};
    return int(names.indexOf(name.toLower()));
}

int fail(const QString &message, int code) {
    std::fprintf(stderr, "quantlens: %s\n", qPrintable(message));
    return code;
}

void addGuiOptions(QCommandLineParser &parser) {
    parser.setApplicationDescription(QApplication::translate(
        "main",
        "QuantLens: find and fix int8 quantization accuracy loss.\n"
        "Subcommands: gui (default), infer, bench, quantize, analyze, calib-lab, search, report; "
        "`quantlens SUBCOMMAND --help`."));
    parser.addHelpOption();
    parser.addVersionOption();
    parser.addPositionalArgument(
        QStringLiteral("model"),
        QApplication::translate("main", "ONNX model or QuantLens project to open."),
        QStringLiteral("[MODEL.onnx | PROJECT.qlproj | REPORT.html]"));
    parser.addOption({QStringLiteral("demo"),
                      QApplication::translate("main", "Open the embedded Fashion-MNIST demo.")});
    parser.addOption(
        {QStringLiteral("screenshot"),
         QApplication::translate("main",
                                 "Load (and analyse a project or the demo), save a PNG of the "
                                 "window to FILE, exit. Needs no display."),
         QStringLiteral("FILE")});
    parser.addOption({QStringLiteral("layer"),
                      QApplication::translate("main", "Select this layer once the analysis is in."),
                      QStringLiteral("NAME")});
    parser.addOption(
        {QStringLiteral("inspector-tab"),
         QApplication::translate("main",
                                 "Layer inspector tab to show: parameters, weights, activations, "
                                 "scatter, channels, samples or explain."),
         QStringLiteral("TAB")});
    parser.addOption(
        {QStringLiteral("view"),
         QApplication::translate("main",
                                 "View to show: chart (default) or graph (the model laid out, "
                                 "boxes filled by SQNR)."),
         QStringLiteral("VIEW"), QStringLiteral("chart")});
    parser.addOption(
        {QStringLiteral("grab"),
         QApplication::translate("main",
                                 "What --screenshot saves: window (default), inspector, or "
                                 "layer-menu (the window with the --layer's menu open beside its "
                                 "table row)."),
         QStringLiteral("PART"), QStringLiteral("window")});
    parser.addOption(
        {QStringLiteral("sample"),
         QApplication::translate("main",
                                 "Show evaluation sample N alone (its own per-layer analysis) "
                                 "once the analysis is in."),
         QStringLiteral("N")});
    parser.addOption({QStringLiteral("palette"),
                      QApplication::translate("main", "Colour palette: system (default) or dark."),
                      QStringLiteral("NAME"), QStringLiteral("system")});
}

// The offscreen platform warns that it cannot size windows to their hints: noise on stderr, where
// a screenshot run's one-line errors go.
QtMessageHandler g_standardMessages = nullptr;

void quietOffscreenWarnings(QtMsgType type, const QMessageLogContext &context,
                            const QString &message) {
    if (message.contains(QLatin1String("propagateSizeHints"))) return;
    if (g_standardMessages) g_standardMessages(type, context, message);
}

bool hasDisplay() {
    return !qEnvironmentVariableIsEmpty("DISPLAY") ||
           !qEnvironmentVariableIsEmpty("WAYLAND_DISPLAY") ||
           !qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM");
}

// What can be decided before a QApplication exists (which aborts without a display): usage
// errors, --help and --version, and where the window can go. -1: go on with the GUI.
int checkBeforeTheWindow(int argc, char *argv[], int firstArgument) {
    QStringList arguments;
    for (int i = 0; i < argc; ++i)
        if (i == 0 || i >= firstArgument) arguments << QString::fromLocal8Bit(argv[i]);
    QCommandLineParser parser;
    addGuiOptions(parser);
    if (!parser.parse(arguments)) {
        std::fprintf(stderr, "quantlens: %s (quantlens --help lists the options)\n",
                     qPrintable(parser.errorText()));
        return cli::BadInput;
    }
    if (parser.isSet(QStringLiteral("help")) || parser.isSet(QStringLiteral("version"))) {
        QCoreApplication app(argc, argv);
        installTranslators(app);
        QCommandLineParser translated;
        addGuiOptions(translated);
        translated.process(arguments);  // prints help or version and exits 0
        return cli::Success;
    }
    if (hasDisplay()) return -1;
    if (parser.isSet(QStringLiteral("screenshot"))) {
        qputenv("QT_QPA_PLATFORM", "offscreen");
        return -1;
    }
    std::fprintf(stderr,
                 "quantlens: no display (DISPLAY and WAYLAND_DISPLAY are unset): open the GUI in a "
                 "desktop session, render it with --screenshot FILE.png, or use a subcommand "
                 "(quantlens --help)\n");
    return cli::BadInput;
}

}  // namespace

int runGui(int argc, char *argv[], int firstArgument) {
    if (const int early = checkBeforeTheWindow(argc, argv, firstArgument); early >= 0)
        return early;
    if (qgetenv("QT_QPA_PLATFORM") == "offscreen")
        g_standardMessages = qInstallMessageHandler(quietOffscreenWarnings);
    QApplication app(argc, argv);
    QApplication::setStyle(new ql::ui::ReadableStyle);
    QApplication::setWindowIcon(QIcon(QStringLiteral(":/icons/quantlens.svg")));
    QGuiApplication::setDesktopFileName(QStringLiteral("io.github.quantlens.QuantLens"));
    installTranslators(app);

    QStringList arguments = QApplication::arguments();
    arguments.erase(arguments.begin() + 1,
                    arguments.begin() + qMin(firstArgument, int(arguments.size())));
    QCommandLineParser parser;
    addGuiOptions(parser);
    parser.process(arguments);
    if (parser.value("palette") == QLatin1String("dark"))
        applyDarkPalette();
    else if (parser.value("palette") != QLatin1String("system"))
        return fail(QApplication::translate("main", "--palette expects system or dark"),
                    cli::BadInput);  // exits on --help, --version and unknown options

    const QStringList models = parser.positionalArguments();
    if (models.size() > 1 || (parser.isSet("demo") && !models.isEmpty()))
        return fail(QApplication::translate(
                        "main", "give either --demo or one MODEL.onnx or PROJECT.qlproj"),
                    cli::BadInput);
    const QString screenshot = parser.value("screenshot");
    const bool capture = !screenshot.isEmpty();
    const int inspectorTab =
        parser.isSet("inspector-tab") ? inspectorTabIndex(parser.value("inspector-tab")) : -1;
    if (parser.isSet("inspector-tab") && inspectorTab < 0)
        return fail(QApplication::translate("main", "--inspector-tab: unknown tab '%1'")
                        .arg(parser.value("inspector-tab")),
                    cli::BadInput);
    const bool grabInspector = parser.value("grab") == QLatin1String("inspector");
    const bool grabMenu = parser.value("grab") == QLatin1String("layer-menu");
    if (!grabInspector && !grabMenu && parser.value("grab") != QLatin1String("window"))
        return fail(
            QApplication::translate("main", "--grab expects window, inspector or layer-menu"),
            cli::BadInput);

    const bool graphView = parser.value("view") == QLatin1String("graph");
    if (!graphView && parser.value("view") != QLatin1String("chart"))
        return fail(QApplication::translate("main", "--view expects chart or graph"),
                    cli::BadInput);

    // A screenshot run leaves the user's settings alone and reports errors on stderr.
    MainWindow window(MainWindow::Options{!capture, !capture, !capture});
    const QString opened = models.isEmpty() ? QString() : models.first();
    const bool analyses = parser.isSet("demo") ||
                          opened.endsWith(QLatin1String(".qlproj"), Qt::CaseInsensitive) ||
                          opened.endsWith(QLatin1String(".html"), Qt::CaseInsensitive) ||
                          opened.endsWith(QLatin1String(".htm"), Qt::CaseInsensitive);
    int exitCode = cli::Success;
    if (inspectorTab >= 0) window.inspector()->tabs()->setCurrentIndex(inspectorTab);
    // Set once the wanted layer is selected (or when none is wanted).
    bool layerSelected = !parser.isSet("layer");
    if (!layerSelected)
        QObject::connect(window.analysis(), &AnalysisController::reportReady, &window,
                         [&window, &layerSelected, &exitCode,
                          name = parser.value("layer")](const ql::ui::ReportPtr &report) {
                             if (layerSelected) return;
                             layerSelected = true;
                             for (size_t i = 0; i < report->layers.size(); ++i)
                                 if (QString::fromStdString(report->layers[i].name) == name) {
                                     window.analysisPanel()->selectLayer(int(i));
                                     return;
                                 }
                             exitCode = fail(QApplication::translate(
                                                 "main", "--layer: no layer '%1' in the analysis")
                                                 .arg(name),
                                             cli::BadInput);
                             QApplication::exit(exitCode);
                         });
    std::optional<int64_t> sample;
    if (parser.isSet("sample")) {
        bool ok = false;
        sample = parser.value("sample").toLongLong(&ok);
        if (!ok || *sample < 0)
            return fail(QApplication::translate("main", "--sample expects a sample index"),
                        cli::BadInput);
        auto asked = std::make_shared<bool>(false);
        QObject::connect(window.analysis(), &AnalysisController::reportReady, &window,
                         [&window, asked, index = *sample] {
                             if (*asked) return;
                             *asked = true;
                             window.showSample(index);
                         });
    }
    if (graphView) {
        QObject::connect(window.documents(), &DocumentController::modelLoaded, &window,
                         [&window] { window.showGraph(); });
        QObject::connect(window.analysis(), &AnalysisController::reportReady, &window,
                         [&window] { window.showGraph(); });
    }
    // The view the picture shows is drawn: a graph's layout is in.
    auto viewReady = [&window, graphView, sample] {
        if (sample && window.shownSample() != sample) return false;
        if (!graphView) return true;
        return window.analysis()->report() ? window.analysisPanel()->graphView()->isLaidOut()
                                           : window.modelGraph()->isLaidOut();
    };
    if (capture) {
        // The same picture whatever the (virtual) screen size; an analysis shows the inspector too.
        window.resize(analyses ? QSize(1800, 1000) : QSize(1280, 800));
        auto grabAndQuit = [&window, &screenshot, &exitCode, grabInspector, grabMenu, graphView] {
            // The inspector alone gets most of the width (its explanation columns are wide).
            if (auto *page = window.findChild<QSplitter *>(QStringLiteral("analysisPage"));
                page && grabInspector)
                page->setSizes({700, 1100});
            // A graph gets most of the height over the table.
            if (auto *panel = window.findChild<QSplitter *>(QStringLiteral("analysisSplitter"));
                panel && graphView)
                panel->setSizes({700, 250});
            // Let posted layout requests run before painting.
            QTimer::singleShot(50, &window, [&window, &screenshot, &exitCode, grabInspector,
                                             grabMenu] {
                QWidget *part = grabInspector ? static_cast<QWidget *>(window.inspector())
                                              : static_cast<QWidget *>(&window);
                QPixmap picture = part->grab();
                if (grabMenu) drawLayerMenu(window, picture);
                if (!picture.save(screenshot)) {
                    exitCode = fail(
                        QApplication::translate("main", "%1: cannot write the PNG").arg(screenshot),
                        cli::CannotWrite);
                }
                QApplication::exit(exitCode);
            });
        };
        // Queued: an error while opening comes before the event loop runs (exit() would be lost).
        auto failAndQuit = [&exitCode](const QString &message, ql::ErrorKind kind) {
            if (exitCode != cli::Success) return;  // the first error is the one to tell
            exitCode = fail(message, exitCodeFor(kind));
            QTimer::singleShot(0, qApp, [code = exitCode] { QApplication::exit(code); });
        };
        if (analyses) {
            // The analysis (its latency, and the inspector's first layer) to completion, then the
            // picture.
            auto *poll = new QTimer(&window);
            poll->setInterval(50);
            QObject::connect(poll, &QTimer::timeout, &window,
                             [&window, poll, grabAndQuit, &layerSelected, viewReady] {
                                 if (window.analysis()->isBusy() || !window.analysis()->report() ||
                                     !layerSelected || window.inspector()->isBusy() || !viewReady())
                                     return;
                                 poll->stop();
                                 grabAndQuit();
                             });
            poll->start();
            QObject::connect(window.analysis(), &AnalysisController::failed, &window, failAndQuit);
        } else {
            // Queued after the model page (and the graph's layout request) is up.
            QObject::connect(
                window.documents(), &DocumentController::modelLoaded, &window,
                [&window, grabAndQuit, viewReady] {
                    auto *poll = new QTimer(&window);
                    poll->setInterval(50);
                    QObject::connect(poll, &QTimer::timeout, &window,
                                     [poll, grabAndQuit, viewReady] {
                                         if (!viewReady()) return;
                                         poll->stop();
                                         grabAndQuit();
                                     });
                    poll->start();
                },
                Qt::QueuedConnection);
        }
        QObject::connect(window.documents(), &DocumentController::loadFailed, &window,
                         [failAndQuit](const QString &, const QString &message,
                                       ql::ErrorKind kind) { failAndQuit(message, kind); });
        // A project that cannot be opened, an export that fails, ...: no one is there to read a
        // message box, so the message goes to stderr.
        QObject::connect(&window, &MainWindow::errorShown, &window,
                         [failAndQuit](const QString &message) {
                             failAndQuit(message, ql::ErrorKind::BadInput);
                         });
        if (models.isEmpty() && !parser.isSet("demo")) grabAndQuit();
    }
    window.show();
    if (parser.isSet("demo"))
        window.openDemo();
    else if (!models.isEmpty())
        window.openPath(models.first());
    // A project whose setup cannot run (a model or data file missing) starts no analysis.
    if (capture && analyses)
        QTimer::singleShot(0, &window, [&window, &exitCode] {
            if (exitCode != cli::Success || window.analysis()->isBusy() || window.analysis()->report() ||
                window.analysis()->setup().isComplete())
                return;
            const QString missing = window.analysis()->setup().missingText();
            exitCode = fail(missing.isEmpty() ? window.statusText() : missing, cli::BadInput);
            QApplication::exit(exitCode);
        });
    else if (!capture)
        // An untitled analysis autosaved before a crash: offer it back.
        QTimer::singleShot(0, &window, [&window] { window.recoverAutosave(); });
    const int code = app.exec();
    return capture ? exitCode : code;
}
