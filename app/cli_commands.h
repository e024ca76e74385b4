#pragma once
// Command-line subcommands. Each takes the arguments after the subcommand name and returns
// the process exit code: 0 success, 2 bad usage or input, 3 a model the engine cannot run, 4 a
// search target not reached.

#include <QStringList>

namespace cli {

// 3 covers both a model QuantLens cannot run and a file it cannot write.
enum ExitCode { Success = 0, Failure = 1, BadInput = 2, Unsupported = 3, CannotWrite = 3,
                TargetNotReached = 4, Cancelled = 130 };

int runInfer(const QStringList &arguments);
int runBench(const QStringList &arguments);
int runQuantize(const QStringList &arguments);
int runAnalyze(const QStringList &arguments);
int runCalibLab(const QStringList &arguments);
int runSearch(const QStringList &arguments);

}  // namespace cli
