#include "cli_support.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QRegularExpression>

#include <unistd.h>
#include <atomic>
#include <cmath>
#include <csignal>
#include <cstdio>

#include "cli_commands.h"
#include "ir/tensor_checks.h"
#include "onnx_io/tensor_file.h"
#include "passes/int8_kernel_mode.h"
#include "save_file.h"

namespace cli {

QString commandLine(const QString &subcommand, const QStringList &arguments) {
    static const QRegularExpression plain(QStringLiteral("^[A-Za-z0-9_@%+=:,./-]+$"));
    QStringList words{QStringLiteral("quantlens"), subcommand};
    for (QString argument : arguments) {
        if (!plain.match(argument).hasMatch())
            argument = "'" + argument.replace("'", "'\\''") + "'";
        words << argument;
    }
    return words.join(' ');
}

std::vector<std::string> splitPaths(const QStringList &arguments) {
    std::vector<std::string> paths;
    for (const QString &argument : arguments)
        for (const QString &part : argument.split(',', Qt::SkipEmptyParts)) paths.push_back(part.toStdString());
    return paths;
}

namespace {
std::atomic<bool> g_interrupted{false};
extern "C" void onInterrupt(int) {
    g_interrupted = true;
    std::signal(SIGINT, SIG_DFL);
}
}  // namespace

InterruptScope::InterruptScope() : m_stop(&g_interrupted) {
    std::signal(SIGINT, onInterrupt);
}

InterruptScope::~InterruptScope() {
    std::signal(SIGINT, SIG_DFL);
}

int reportFailure(const ql::Status &status) {
    if (status.kind() == ql::ErrorKind::Cancelled)
        std::fprintf(stderr, "quantlens: interrupted (%s); nothing written\n", status.message().c_str());
    else
        std::fprintf(stderr, "quantlens: %s\n", status.message().c_str());
    switch (status.kind()) {
        case ql::ErrorKind::BadInput: return BadInput;
        case ql::ErrorKind::Unsupported: return Unsupported;
        case ql::ErrorKind::Io: return CannotWrite;
        case ql::ErrorKind::Cancelled: return Cancelled;
        default: return Failure;
    }
}

ql::Status writeTextFile(const QString &path, const QByteArray &bytes) {
    const QString dir = QFileInfo(path).absolutePath();
    if (!QDir().mkpath(dir)) return ql::Status::io(dir.toStdString() + ": cannot create folder");
    return ql::ui::saveFile(path, bytes);
}

int usageError(const QString &message) {
    std::fprintf(stderr, "quantlens: %s\n", qPrintable(message));
    return BadInput;
}

ql::PlanOptions planOptions(int threads, bool fuse) {
    ql::PlanOptions options;
    options.threads = threads;
    options.fuseOperators = fuse;
    options.foldBatchNorms = fuse;
    return options;
}

const char *const kInt8KernelsHelp =
    "exact (default: exact integer arithmetic) or fast (one oneDNN primitive per node; on CPUs without VNNI it may "
    "saturate int16 pair sums like ONNX Runtime; identical to exact with VNNI).";

ql::Status applyPrecision(ql::Graph &graph, const QString &option, ql::PrecisionReport &report,
                          const QString &int8Kernels) {
    ql::Int8Kernels kernels = ql::Int8Kernels::Exact;
    if (!int8Kernels.isEmpty() && !ql::parseInt8Kernels(int8Kernels.toStdString(), kernels))
        return ql::Status::badInput("--int8-kernels expects exact or fast, got '" + int8Kernels.toStdString() + "'");
    ql::Precision precision = ql::defaultPrecision(graph);
    if (!option.isEmpty() && !ql::parsePrecision(option.toStdString(), precision))
        return ql::Status::badInput("--precision expects fp32, int8 or reference, got '" + option.toStdString() + "'");
    if (!option.isEmpty() && precision != ql::Precision::Fp32 && !ql::isQuantizedModel(graph))
        std::fprintf(stderr, "quantlens: %s has no quantized nodes; it runs in fp32\n", graph.sourcePath.c_str());
    ql::Status prepared = ql::preparePrecision(graph, precision, &report);
    if (!prepared) return prepared.withContext(graph.sourcePath);
    ql::applyInt8Kernels(graph, kernels);
    return ql::Status::ok();
}

ql::Status readInputs(const ql::Graph &graph, const QStringList &namedInputs, const QString &inputsDir,
                      std::map<std::string, ql::Tensor> &inputs) {
    for (const QString &pair : namedInputs) {
        const int eq = pair.indexOf('=');
        if (eq <= 0) return ql::Status::badInput("--input expects NAME=FILE, got '" + pair.toStdString() + "'");
        const std::string name = pair.left(eq).toStdString();
        bool known = false;
        for (const ql::ValueInfo &in : graph.inputs) known = known || in.name == name;
        if (!known) return ql::Status::badInput(graph.sourcePath + ": model has no input named '" + name + "'");
        const std::string file = pair.mid(eq + 1).toStdString();
        auto tensor = ql::readTensorFile(file);
        if (!tensor) return tensor.status();
        QL_RETURN_IF_ERROR(ql::checkFinite(tensor.value(), file + " (input '" + name + "')"));
        inputs[name] = tensor.value();
    }
    if (!inputsDir.isEmpty()) {
        const QDir dir(inputsDir);
        if (!dir.exists()) return ql::Status::badInput(inputsDir.toStdString() + ": no such folder");
        for (size_t i = 0; i < graph.inputs.size(); ++i) {
            const QString stem = QStringLiteral("input_%1").arg(i);
            QString file = dir.filePath(stem + ".pb");
            if (!QFileInfo::exists(file)) file = dir.filePath(stem + ".npy");
            if (!QFileInfo::exists(file)) {
                return ql::Status::badInput(dir.filePath(stem).toStdString() + ".pb/.npy: missing, needed for input '" +
                                            graph.inputs[i].name + "'");
            }
            auto tensor = ql::readTensorFile(file.toStdString());
            if (!tensor) return tensor.status();
            QL_RETURN_IF_ERROR(ql::checkFinite(tensor.value(), file.toStdString() + " (input '" + graph.inputs[i].name + "')"));
            inputs[graph.inputs[i].name] = tensor.value();
        }
    }
    for (const ql::ValueInfo &in : graph.inputs)
        if (!inputs.count(in.name)) return ql::Status::badInput("no value given for model input '" + in.name + "'");
    return ql::Status::ok();
}

ProgressPrinter::ProgressPrinter(std::string prefix, std::string etaStage)
    : m_prefix(std::move(prefix)), m_etaStage(std::move(etaStage)), m_tty(isatty(fileno(stderr))) {}

bool ProgressPrinter::operator()(const std::string &stage, int done, int total) {
    if (ql::stopRequested()) return false;  // Ctrl+C (main's InterruptScope)
    const auto now = std::chrono::steady_clock::now();
    if (stage == m_etaStage && !m_etaStarted) m_etaStarted = true, m_etaStart = now;
    if (now - m_last < std::chrono::seconds(1) && done != total) return true;
    m_last = now;
    std::string eta;
    if (stage == m_etaStage && done > 0 && done < total) {
        const double elapsed = std::chrono::duration<double>(now - m_etaStart).count();
        eta = ", ETA " +
              std::to_string(static_cast<int>(std::lround(elapsed / done * (total - done)))) + " s";
    }
    std::fprintf(stderr, "%s%s: %s %d/%d%s%s", m_tty ? "\r" : "", m_prefix.c_str(), stage.c_str(),
                 done, total, eta.c_str(), m_tty ? "\033[K" : "\n");
    return true;
}

void ProgressPrinter::finish() const {
    if (m_tty) std::fputc('\n', stderr);
}

}  // namespace cli
