// onnx_conformance: runs every ONNX backend test case (node, pytorch-converted, pytorch-operator,
// simple) whose ops are all in listed_ops.txt and compares with the reference outputs.
// Each case runs in a forked child so a crash or hang in one kernel is reported as that case's
// failure instead of ending the whole run.
//
// usage: onnx_conformance [--filter SUBSTRING] [--verbose] [--ops FILE] [--timeout SECONDS]
//                         [--fuse] [--no-fold] [--no-fork] [--max-opset N] [--cli QUANTLENS]
//                         [DATA_DIR]
// --fuse builds plans with operator fusion; --no-fold loads without constant folding, so the
// Constant and Shape kernels run too; --no-fork runs cases in-process (for a debugger);
// --max-opset takes only cases whose model imports default opset N or lower; --cli also runs
// every case that passes through `QUANTLENS infer`, and fails the case when the command line
// does not pass it too (what users get must be what this runner checks).

#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <limits>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <onnx/onnx_pb.h>

#include "conformance_case.h"

namespace fs = std::filesystem;
using ql::conformance::CaseResult;
using ql::conformance::Outcome;

namespace {

constexpr double kRequiredPassPercent = 95.0;
const char *const kSuites[] = {"node", "pytorch-converted", "pytorch-operator", "simple"};

struct Options {
    std::string dataDir = "/usr/share/libonnx-testdata/data";
    std::string opsFile = QL_CONFORMANCE_OPS_FILE;
    std::string filter;
    std::string cli;  // quantlens binary; empty: in-process only
    int64_t maxOpset = std::numeric_limits<int64_t>::max();
    bool verbose = false;
    bool fork = true;
    ql::conformance::CaseOptions caseOptions;
    int timeoutSeconds = 120;
};

struct Case {
    std::string id;  // "node/test_abs"
    fs::path dir;
    int64_t opset = 0;             // default-domain opset the model imports
    std::vector<std::string> ops;  // distinct op types in first-use order
    std::string unlistedOp;        // first op not in the list, if any
    std::string skipReason;        // why a listed case was left out
    CaseResult result;
    double seconds = 0.0;
};

bool parseArgs(int argc, char **argv, Options *options) {
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        auto value = [&](std::string *out) {
            if (i + 1 >= argc) return false;
            *out = argv[++i];
            return true;
        };
        std::string number;
        if (arg == "--verbose" || arg == "-v")
            options->verbose = true;
        else if (arg == "--fuse")
            options->caseOptions.fuse = true;
        else if (arg == "--no-fold")
            options->caseOptions.foldConstants = false;
        else if (arg == "--no-fork")
            options->fork = false;
        else if (arg == "--filter") {
            if (!value(&options->filter)) return false;
        } else if (arg == "--cli") {
            if (!value(&options->cli)) return false;
        } else if (arg == "--max-opset") {
            if (!value(&number)) return false;
            options->maxOpset = std::atoll(number.c_str());
        } else if (arg == "--ops") {
            if (!value(&options->opsFile)) return false;
        } else if (arg == "--timeout") {
            if (!value(&number)) return false;
            options->timeoutSeconds = std::max(1, std::atoi(number.c_str()));
        } else if (!arg.empty() && arg[0] != '-')
            options->dataDir = arg;
        else
            return false;
    }
    return true;
}

bool readOpList(const std::string &path, std::set<std::string> *ops) {
    std::ifstream in(path);
    if (!in) return false;
    std::string line;
    while (std::getline(in, line)) {
        line = line.substr(0, line.find('#'));
        line.erase(std::remove_if(line.begin(), line.end(), ::isspace), line.end());
        if (!line.empty()) ops->insert(line);
    }
    return !ops->empty();
}

// Op types of a graph and its subgraphs (If/Loop bodies); other domains are spelled "domain:Op".
void collectOps(const onnx::GraphProto &graph, std::vector<std::string> *ops) {
    for (const auto &node : graph.node()) {
        const bool standard = node.domain().empty() || node.domain() == "ai.onnx";
        const std::string op = standard ? node.op_type() : node.domain() + ":" + node.op_type();
        if (std::find(ops->begin(), ops->end(), op) == ops->end()) ops->push_back(op);
        for (const auto &attr : node.attribute()) {
            if (attr.has_g()) collectOps(attr.g(), ops);
            for (const auto &sub : attr.graphs()) collectOps(sub, ops);
        }
    }
}

bool readCaseOps(Case *c, const std::set<std::string> &listed) {
    std::ifstream in(c->dir / "model.onnx", std::ios::binary);
    onnx::ModelProto model;
    if (!in || !model.ParseFromIstream(&in)) return false;
    for (const auto &imp : model.opset_import())
        if (imp.domain().empty() || imp.domain() == "ai.onnx") c->opset = imp.version();
    collectOps(model.graph(), &c->ops);
    for (const std::string &op : c->ops) {
        if (!listed.count(op)) {
            c->unlistedOp = op;
            break;
        }
    }
    return true;
}

std::string oneLine(std::string text) {
    std::replace(text.begin(), text.end(), '\n', ' ');
    return text;
}

// Runs the case in a child process; crashes, hangs and exceptions become failures.
CaseResult runIsolated(const Case &c, const Options &options) {
    if (!options.fork) return ql::conformance::runCase(c.dir.string(), options.caseOptions);
    int fds[2];
    if (pipe(fds) != 0) return {Outcome::Fail, "pipe() failed", {}};
    std::fflush(nullptr);
    const pid_t pid = fork();
    if (pid < 0) return {Outcome::Fail, "fork() failed", {}};
    if (pid == 0) {
        close(fds[0]);
        CaseResult r;
        try {
            r = ql::conformance::runCase(c.dir.string(), options.caseOptions);
        } catch (const std::exception &e) {
            r = {Outcome::Fail, std::string("exception: ") + e.what(), {}};
        }
        std::string text =
            std::to_string(static_cast<int>(r.outcome)) + "\n" + oneLine(r.message) + "\n";
        for (const std::string &note : r.notes) text += oneLine(note) + "\n";
        for (size_t done = 0; done < text.size();) {
            const ssize_t n = write(fds[1], text.data() + done, text.size() - done);
            if (n <= 0) break;
            done += static_cast<size_t>(n);
        }
        close(fds[1]);
        _exit(0);
    }
    close(fds[1]);
    std::string text;
    bool timedOut = false;
    const auto deadline =
        std::chrono::steady_clock::now() + std::chrono::seconds(options.timeoutSeconds);
    char buffer[4096];
    for (;;) {
        const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
                              deadline - std::chrono::steady_clock::now())
                              .count();
        if (left <= 0) {
            timedOut = true;
            break;
        }
        pollfd p{fds[0], POLLIN, 0};
        if (poll(&p, 1, static_cast<int>(left)) <= 0) continue;
        const ssize_t n = read(fds[0], buffer, sizeof buffer);
        if (n <= 0) break;
        text.append(buffer, static_cast<size_t>(n));
    }
    close(fds[0]);
    if (timedOut) kill(pid, SIGKILL);
    int status = 0;
    waitpid(pid, &status, 0);
    if (timedOut)
        return {
            Outcome::Fail, "timed out after " + std::to_string(options.timeoutSeconds) + " s", {}};
    if (WIFSIGNALED(status)) {
        return {Outcome::Fail, std::string("crashed: ") + strsignal(WTERMSIG(status)), {}};
    }
    std::istringstream lines(text);
    std::string outcome, message, note;
    if (!std::getline(lines, outcome) || !std::getline(lines, message))
        return {Outcome::Fail, "the case's process exited without a result", {}};
    CaseResult r{static_cast<Outcome>(std::atoi(outcome.c_str())), message, {}};
    while (std::getline(lines, note)) r.notes.push_back(note);
    return r;
}

// Groups failures by the ops of the case (Constant and Identity only count when alone).
std::string groupKey(const Case &c) {
    std::vector<std::string> ops;
    for (const std::string &op : c.ops)
        if (op != "Constant" && op != "Identity") ops.push_back(op);
    if (ops.empty()) ops = c.ops;
    std::sort(ops.begin(), ops.end());
    std::string key;
    for (const std::string &op : ops) key += (key.empty() ? "" : "+") + op;
    return key;
}

std::string stripDir(std::string text, const std::string &dir) {
    for (size_t at; !dir.empty() && (at = text.find(dir)) != std::string::npos;)
        text.erase(at, dir.size());
    return text;
}

}  // namespace

int main(int argc, char **argv) {
    Options options;
    if (!parseArgs(argc, argv, &options)) {
        std::cerr << "usage: " << argv[0]
                  << " [--filter SUBSTRING] [--verbose] [--ops FILE] [--timeout SECONDS]\n"
                     "       [--fuse] [--no-fold] [--no-fork] [DATA_DIR]\n";
        return 2;
    }
    std::error_code ec;
    if (!fs::is_directory(options.dataDir, ec)) {
        std::cerr << "onnx_conformance: ONNX backend test data not found at " << options.dataDir
                  << ".\nInstall the libonnx-testdata package (apt-get install libonnx-testdata) "
                     "or pass the data folder as an argument.\nconformance: 0 passed, 1 failed\n";
        return 1;
    }
    std::set<std::string> listed;
    if (!readOpList(options.opsFile, &listed)) {
        std::cerr << "onnx_conformance: cannot read the op list " << options.opsFile << "\n";
        return 1;
    }

    std::vector<Case> cases;
    for (const char *suite : kSuites) {
        const fs::path suiteDir = fs::path(options.dataDir) / suite;
        if (!fs::is_directory(suiteDir, ec)) {
            std::cerr << "onnx_conformance: missing suite folder " << suiteDir.string()
                      << "; reinstall libonnx-testdata\nconformance: 0 passed, 1 failed\n";
            return 1;
        }
        std::vector<fs::path> dirs;
        for (const auto &entry : fs::directory_iterator(suiteDir))
            if (entry.is_directory() && fs::exists(entry.path() / "model.onnx"))
                dirs.push_back(entry.path());
        std::sort(dirs.begin(), dirs.end());
        for (const fs::path &dir : dirs) {
            Case c;
            c.id = std::string(suite) + "/" + dir.filename().string();
            c.dir = dir;
            if (c.id.find(options.filter) != std::string::npos) cases.push_back(std::move(c));
        }
    }

    const auto start = std::chrono::steady_clock::now();
    int passed = 0, unsupported = 0, failed = 0, skipped = 0;
    for (Case &c : cases) {
        if (!readCaseOps(&c, listed)) {
            c.result = {Outcome::Fail, "cannot parse model.onnx", {}};
        } else if (!c.unlistedOp.empty()) {
            c.skipReason = "unlisted op " + c.unlistedOp;
            ++skipped;
            continue;
        } else if (c.opset > options.maxOpset) {
            c.skipReason = "opset " + std::to_string(c.opset) + " above --max-opset";
            ++skipped;
            continue;
        } else {
            const auto caseStart = std::chrono::steady_clock::now();
            c.result = runIsolated(c, options);
            if (!options.cli.empty() && c.result.outcome == Outcome::Pass) {
                CaseResult viaCli = ql::conformance::runCaseThroughCli(c.dir.string(), options.cli);
                if (viaCli.outcome != Outcome::Pass)
                    c.result = {Outcome::Fail, "passes in-process, not through the command line: " +
                                                   viaCli.message, c.result.notes};
            }
            c.seconds =
                std::chrono::duration<double>(std::chrono::steady_clock::now() - caseStart).count();
        }
        c.result.message = stripDir(c.result.message, c.dir.string() + "/");
        switch (c.result.outcome) {
            case Outcome::Pass:
                ++passed;
                break;
            case Outcome::Unsupported:
                ++unsupported;
                break;
            case Outcome::Fail:
                ++failed;
                break;
        }
        if (options.verbose) {
            std::cout << (c.result.outcome == Outcome::Pass ? "pass " : "     ") << c.id << " ("
                      << static_cast<int>(c.seconds * 1000) << " ms)\n";
            for (const std::string &note : c.result.notes)
                std::cout << "     note: " << note << "\n";
        }
    }
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

    for (const Case &c : cases)
        if (!c.skipReason.empty()) std::cout << "skip " << c.id << ": " << c.skipReason << "\n";
    for (const Case &c : cases)
        if (c.skipReason.empty() && c.result.outcome == Outcome::Unsupported)
            std::cout << "unsupported " << c.id << ": " << c.result.message << "\n";
    std::map<std::string, std::vector<const Case *>> failuresByOps;
    for (const Case &c : cases)
        if (c.skipReason.empty() && c.result.outcome == Outcome::Fail)
            failuresByOps[groupKey(c)].push_back(&c);
    if (!failuresByOps.empty()) std::cout << "\nFailures by op:\n";
    for (const auto &[key, group] : failuresByOps) {
        std::cout << key << " (" << group.size() << ")\n";
        for (const Case *c : group)
            std::cout << "  FAIL " << c->id << ": " << c->result.message << "\n";
    }

    const int listedCases = passed + unsupported + failed;
    const bool subset =
        !options.filter.empty() || options.maxOpset != std::numeric_limits<int64_t>::max();
    const double percent = listedCases ? 100.0 * passed / listedCases : 0.0;
    char percentText[32];
    std::snprintf(percentText, sizeof percentText, "%.1f%%", percent);
    std::cout << "\n"
              << listedCases << " listed cases: " << passed << " passed, " << unsupported
              << " unsupported, " << failed << " failed, " << skipped
              << " skipped (unlisted ops" << (options.maxOpset != std::numeric_limits<int64_t>::max() ? ", newer opsets" : "") << ")\n";
    std::cout << "pass rate: " << percentText << " of listed cases (required "
              << kRequiredPassPercent << "%"
              << (subset ? ", not applied to a subset" : "") << "), "
              << static_cast<int>(seconds) << " s\n";
    std::cout << "conformance: " << passed << " passed, " << failed << " failed\n";

    const bool rateOk = subset || percent >= kRequiredPassPercent;
    return failed == 0 && rateOk && listedCases > 0 ? 0 : 1;
}
