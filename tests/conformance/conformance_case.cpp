#include "conformance_case.h"

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <sstream>

#include "onnx_io/model_loader.h"
#include "onnx_io/tensor_file.h"
#include "runtime/execution_plan.h"

namespace ql::conformance {

namespace fs = std::filesystem;

namespace {

struct DataSet {
    std::string name;  // "test_data_set_0"
    fs::path dir;
    std::vector<Tensor> inputs;
    std::vector<Tensor> expected;
};

CaseResult failed(Outcome outcome, std::string message) {
    CaseResult r;
    r.outcome = outcome;
    r.message = std::move(message);
    return r;
}

CaseResult fromStatus(const Status &status, const std::string &context) {
    const Outcome outcome =
        status.kind() == ErrorKind::Unsupported ? Outcome::Unsupported : Outcome::Fail;
    return failed(outcome, context + status.message());
}

// Numeric suffix of "test_data_set_12" or "input_3.pb"; -1 when there is none.
int trailingIndex(const std::string &name) {
    const size_t dot = name.find('.');
    const std::string stem = name.substr(0, dot);
    const size_t underscore = stem.rfind('_');
    if (underscore == std::string::npos || underscore + 1 >= stem.size()) return -1;
    const std::string digits = stem.substr(underscore + 1);
    if (!std::all_of(digits.begin(), digits.end(), ::isdigit)) return -1;
    return std::stoi(digits);
}

// Reads prefix_0.pb, prefix_1.pb, ... in index order; the files must be numbered without gaps.
Status readNumbered(const fs::path &dir, const std::string &prefix, std::vector<Tensor> *out) {
    std::map<int, fs::path> files;
    for (const auto &entry : fs::directory_iterator(dir)) {
        const std::string name = entry.path().filename().string();
        if (name.rfind(prefix + "_", 0) == 0 && entry.path().extension() == ".pb")
            files[trailingIndex(name)] = entry.path();
    }
    int expectedIndex = 0;
    for (const auto &[index, path] : files) {
        if (index != expectedIndex++)
            return Status::badInput(dir.filename().string() + ": " + prefix +
                                    " files are not numbered 0..N-1");
        Result<Tensor> tensor = readTensorFile(path.string());
        if (!tensor) return tensor.status();
        out->push_back(tensor.value());
    }
    return Status::ok();
}

Result<std::vector<DataSet>> readDataSets(const fs::path &caseDir) {
    std::map<int, fs::path> dirs;
    for (const auto &entry : fs::directory_iterator(caseDir)) {
        const std::string name = entry.path().filename().string();
        if (entry.is_directory() && name.rfind("test_data_set_", 0) == 0)
            dirs[trailingIndex(name)] = entry.path();
    }
    if (dirs.empty()) return Status::badInput("no test_data_set_N folder");
    std::vector<DataSet> sets;
    for (const auto &[index, dir] : dirs) {
        DataSet set;
        set.name = dir.filename().string();
        set.dir = dir;
        QL_RETURN_IF_ERROR(readNumbered(dir, "input", &set.inputs));
        QL_RETURN_IF_ERROR(readNumbered(dir, "output", &set.expected));
        sets.push_back(std::move(set));
    }
    return sets;
}

// The test data stores float16/bfloat16 tensors as uint16 bit patterns in some cases; view
// them as the type the model declares.
Tensor asDeclaredHalf(const Tensor &t, DataType declared) {
    const bool half = declared == DataType::Float16 || declared == DataType::BFloat16;
    if (!half || t.dtype() != DataType::UInt16) return t;
    return Tensor(declared, t.shape(), t.storage());
}

bool shapeConflicts(const ValueInfo &declared, const Shape &given) {
    if (!declared.hasShape) return false;
    if (declared.shape.size() != given.size()) return true;
    for (size_t i = 0; i < given.size(); ++i)
        if (declared.shape[i] >= 0 && declared.shape[i] != given[i]) return true;
    return false;
}

std::string indexToString(int64_t flat, const Shape &shape) {
    std::vector<int64_t> index(shape.size());
    for (size_t d = shape.size(); d-- > 0;) {
        index[d] = shape[d] ? flat % shape[d] : 0;
        flat = shape[d] ? flat / shape[d] : 0;
    }
    return shapeToString(index);
}

// Empty when `actual` matches `expected`; else the first mismatch and how many differ.
std::string compare(const Tensor &actual, const Tensor &expected) {
    if (actual.dtype() != expected.dtype())
        return "dtype " + dataTypeName(actual.dtype()) + ", expected " +
               dataTypeName(expected.dtype());
    if (actual.shape() != expected.shape())
        return "shape " + shapeToString(actual.shape()) + ", expected " +
               shapeToString(expected.shape());
    const Tensor a = actual.toPlain();
    const bool exact = !isFloatingPoint(expected.dtype());
    int64_t bad = 0, first = -1;
    double worst = 0.0;
    for (int64_t i = 0; i < a.numel(); ++i) {
        const double x = a.valueAsDouble(i), y = expected.valueAsDouble(i);
        bool same;
        if (std::isnan(x) || std::isnan(y))
            same = std::isnan(x) && std::isnan(y);
        else if (std::isinf(x) || std::isinf(y))
            same = x == y;
        else if (exact)
            same = x == y;
        else
            same = std::fabs(x - y) <= kAbsoluteTolerance + kRelativeTolerance * std::fabs(y);
        if (same) continue;
        if (first < 0) first = i;
        ++bad;
        if (std::isfinite(x) && std::isfinite(y)) worst = std::max(worst, std::fabs(x - y));
    }
    if (bad == 0) return {};
    std::ostringstream msg;
    msg.precision(7);
    msg << "at " << indexToString(first, a.shape()) << " got " << a.valueAsDouble(first)
        << ", expected " << expected.valueAsDouble(first) << " (" << bad << " of " << a.numel()
        << " elements differ, max abs diff " << worst << ")";
    return msg.str();
}

// Runs `argv` with stdout and stderr to `log`; the exit code, or -1 when it could not run.
int runLogged(const std::vector<std::string> &argv, const fs::path &log) {
    std::vector<char *> args;
    for (const std::string &arg : argv) args.push_back(const_cast<char *>(arg.c_str()));
    args.push_back(nullptr);
    const pid_t pid = fork();
    if (pid < 0) return -1;
    if (pid == 0) {
        const int fd = open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (fd >= 0) {
            dup2(fd, STDOUT_FILENO);
            dup2(fd, STDERR_FILENO);
        }
        execv(args[0], args.data());
        _exit(127);
    }
    int status = 0;
    if (waitpid(pid, &status, 0) != pid) return -1;
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

std::string firstLine(const fs::path &file) {
    std::ifstream in(file);
    std::string line;
    std::getline(in, line);
    return line;
}

}  // namespace

CaseResult runCase(const std::string &caseDirText, const CaseOptions &caseOptions) {
    const fs::path caseDir(caseDirText);
    LoadOptions options;
    options.foldConstants = caseOptions.foldConstants;
    Result<Graph> loaded = loadModel((caseDir / "model.onnx").string(), options);
    if (!loaded) return fromStatus(loaded.status(), "load: ");
    Graph &graph = loaded.value();

    Result<std::vector<DataSet>> sets = readDataSets(caseDir);
    if (!sets) return fromStatus(sets.status(), "test data: ");

    CaseResult result;
    // Inputs are given in the order of the graph's non-initializer inputs.
    for (DataSet &set : sets.value()) {
        if (set.inputs.size() != graph.inputs.size()) {
            return failed(Outcome::Fail, set.name + ": " + std::to_string(set.inputs.size()) +
                                             " inputs, the model has " +
                                             std::to_string(graph.inputs.size()));
        }
        if (set.expected.size() != graph.outputs.size()) {
            return failed(Outcome::Fail, set.name + ": " + std::to_string(set.expected.size()) +
                                             " outputs, the model has " +
                                             std::to_string(graph.outputs.size()));
        }
        for (size_t i = 0; i < set.inputs.size(); ++i) {
            ValueInfo &declared = graph.inputs[i];
            set.inputs[i] = asDeclaredHalf(set.inputs[i], declared.dtype);
            // A few cases feed a shape the model does not declare (CastLike's 'like', whose
            // values are never read): the data is what the case checks, so drop the declaration.
            if (shapeConflicts(declared, set.inputs[i].shape())) {
                result.notes.push_back(
                    "input '" + declared.name + "' declared with another shape than " +
                    shapeToString(set.inputs[i].shape()) + "; declaration ignored");
                declared.hasShape = false;
            }
        }
        for (size_t k = 0; k < set.expected.size(); ++k)
            set.expected[k] = asDeclaredHalf(set.expected[k], graph.outputs[k].dtype);
    }

    std::vector<std::string> inputNames, outputNames;
    for (const ValueInfo &in : graph.inputs) inputNames.push_back(in.name);
    for (const ValueInfo &out : graph.outputs) outputNames.push_back(out.name);
    // Failures from here on keep the notes about the data.
    auto finish = [&result](CaseResult failure) {
        failure.notes = result.notes;
        return failure;
    };
    PlanOptions planOptions;
    planOptions.fuseOperators = caseOptions.fuse;
    auto plan = ExecutionPlan::create(std::move(graph), planOptions);
    if (!plan) return finish(fromStatus(plan.status(), "plan: "));

    for (const DataSet &set : sets.value()) {
        std::map<std::string, Tensor> feeds;
        for (size_t i = 0; i < set.inputs.size(); ++i) feeds[inputNames[i]] = set.inputs[i];
        std::vector<Tensor> outputs;
        Status status = plan.value()->run(feeds, outputs);
        if (!status) return finish(fromStatus(status, set.name + ": "));
        if (outputs.size() != set.expected.size())
            return finish(failed(Outcome::Fail, set.name + ": engine gave " +
                                                    std::to_string(outputs.size()) + " outputs"));
        for (size_t k = 0; k < outputs.size(); ++k) {
            const std::string mismatch = compare(outputs[k], set.expected[k]);
            if (!mismatch.empty()) {
                return finish(failed(Outcome::Fail, set.name + " output " + std::to_string(k) +
                                                        " '" + outputNames[k] + "': " + mismatch));
            }
        }
    }
    result.outcome = Outcome::Pass;
    return result;
}

CaseResult runCaseThroughCli(const std::string &caseDirText, const std::string &quantlens) {
    const fs::path caseDir(caseDirText);
    Result<std::vector<DataSet>> sets = readDataSets(caseDir);
    if (!sets) return fromStatus(sets.status(), "test data: ");
    std::string scratch = (fs::temp_directory_path() / "ql_conformance_cli_XXXXXX").string();
    if (!mkdtemp(scratch.data())) return failed(Outcome::Fail, "cannot make a temporary folder");
    const fs::path outDir(scratch);
    CaseResult result;
    result.outcome = Outcome::Pass;
    for (const DataSet &set : sets.value()) {
        const fs::path log = outDir / "log.txt";
        const int rc = runLogged({quantlens, "infer", (caseDir / "model.onnx").string(),
                                  "--inputs-dir", set.dir.string(), "--output-dir",
                                  outDir.string(), "--threads", "2"},
                                 log);
        if (rc != 0) {
            result = failed(rc == 3 ? Outcome::Unsupported : Outcome::Fail,
                            set.name + ": quantlens infer exited " + std::to_string(rc) + ": " +
                                firstLine(log));
            break;
        }
        for (size_t k = 0; k < set.expected.size() && result.outcome == Outcome::Pass; ++k) {
            const std::string file = (outDir / ("output_" + std::to_string(k) + ".npy")).string();
            Result<Tensor> actual = readTensorFile(file);
            if (!actual) {
                result = fromStatus(actual.status(), set.name + ": ");
                break;
            }
            const std::string mismatch =
                compare(actual.value(), asDeclaredHalf(set.expected[k], actual->dtype()));
            if (!mismatch.empty())
                result = failed(Outcome::Fail, set.name + " output " + std::to_string(k) + ": " +
                                                   mismatch);
        }
        if (result.outcome != Outcome::Pass) break;
    }
    std::error_code ignored;
    fs::remove_all(outDir, ignored);
    return result;
}

}  // namespace ql::conformance
