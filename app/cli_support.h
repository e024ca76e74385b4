#pragma once
// Shared by the subcommands: turning engine statuses into exit codes and one-line messages,
// and reading the model inputs named on the command line.

#include <QString>
#include <QStringList>

#include <chrono>
#include <map>
#include <string>
#include <vector>

#include "core/status.h"
#include "core/stop_token.h"
#include "ir/graph.h"
#include "ir/tensor.h"
#include "passes/precision.h"
#include "runtime/execution_plan.h"

namespace cli {

// Path arguments, each repeatable and comma-separated ("a.npy,b.npy" or a folder), in order.
std::vector<std::string> splitPaths(const QStringList &arguments);

// "quantlens SUBCOMMAND ARG ..." as a POSIX shell reads it back (arguments with characters the
// shell treats specially in single quotes): JSON reports record the command that made them.
QString commandLine(const QString &subcommand, const QStringList &arguments);

// Writes `bytes` to `path`, creating its folder; BadInput naming the path when it cannot.
ql::Status writeTextFile(const QString &path, const QByteArray &bytes);

// Prints "quantlens: <message>" on stderr and returns the exit code for the status' kind.
int reportFailure(const ql::Status &status);
int usageError(const QString &message);

// Progress of a long stage on stderr, "PREFIX: STAGE done/total" at most once a second (in place
// on a terminal, one line each otherwise), with an ETA for `etaStage`; returns false once Ctrl+C
// was pressed (InterruptScope), which cancels the engine work it reports on.
class ProgressPrinter {
public:
    ProgressPrinter(std::string prefix, std::string etaStage);
    bool operator()(const std::string &stage, int done, int total);
    void finish() const;  // ends the line on a terminal

private:
    std::string m_prefix, m_etaStage;
    bool m_tty = false, m_etaStarted = false;
    std::chrono::steady_clock::time_point m_last{}, m_etaStart{};
};

// While it lives, SIGINT (Ctrl+C) stops the engine work of this thread between plan nodes: the
// subcommand then fails with ErrorKind::Cancelled (exit 130) without writing its outputs. A second
// SIGINT ends the process at once.
class InterruptScope {
public:
    InterruptScope();
    ~InterruptScope();

private:
    ql::StopScope m_stop;
};

// Plan options for the subcommands: fused operators unless the user asked otherwise.
ql::PlanOptions planOptions(int threads, bool fuse);

// Applies --precision (fp32|int8|reference; default int8 for a quantized model, fp32 for a float
// one) and --int8-kernels (exact|fast; default exact) to the loaded graph. Usage errors come back
// as BadInput statuses.
ql::Status applyPrecision(ql::Graph &graph, const QString &option, ql::PrecisionReport &report,
                          const QString &int8Kernels = QString());

// The help text of --int8-kernels, shared by infer and bench.
extern const char *const kInt8KernelsHelp;

// --input NAME=FILE pairs, or DIR/input_<i>.pb|.npy mapped in order to the graph inputs.
ql::Status readInputs(const ql::Graph &graph, const QStringList &namedInputs, const QString &inputsDir,
                      std::map<std::string, ql::Tensor> &inputs);

}  // namespace cli
