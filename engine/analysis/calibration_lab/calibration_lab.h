#pragma once
// The calibration lab: many calibrations of one float model (methods x sizes x repeats x
// calibration batch sizes), each quantized exactly as `quantlens quantize` would and evaluated on
// the same evaluation samples, with the statistics that tell a real difference from noise.
//
// Fast by design: the float model runs once per pool sample (per-sample statistics of every
// activation: min/max and a histogram on a power-of-two grid, so that merging them equals
// calibrating on their union, quant/histogram.h) and once over the evaluation set (its outputs
// and, with `layers`, the compared activations are cached). A run then costs one merge, one plan
// and one int8 pass. Runs whose calibration is provably identical (same method and samples; the
// calibration batch size matters only for the moving average) are evaluated once and point to
// the first (`identicalTo`).
//
// Calibration indices depend on (size, repeat, selection) and the seed, not on the method, so
// methods are compared on the same subsets. Indices are sorted ascending, the order in which
// they are calibrated (and in which `quantize --calib f1,f2,...` reads them).

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "analysis/data/data_reader.h"
#include "analysis/metrics/statistics.h"
#include "core/status.h"
#include "ir/graph.h"
#include "ir/tensor.h"
#include "passes/int8_kernel_mode.h"
#include "quant/qdq_builder.h"
#include "quant/quantization_plan.h"

namespace ql::analysis {

// How a run draws its calibration samples from the pool.
//  * Random: `size` distinct files, uniformly, seeded.
//  * Stratified: as even as possible over the classes the float model predicts for the pool
//    files (the pool has no labels), seeded within each class.
//  * First: the first `size` files (every repeat is the same run).
enum class CalibrationSelection { Random, Stratified, First };
const char *calibrationSelectionName(CalibrationSelection selection);  // "random", ...
bool parseCalibrationSelection(const std::string &text, CalibrationSelection &out);

// A range method, with its percentile for Percentile.
struct CalibrationMethod {
    quant::RangeMethod method = quant::RangeMethod::MinMax;
    double percentile = 99.999;
    bool operator==(const CalibrationMethod &o) const;
};
// "minmax", "percentile:99.99" (percentile alone: 99.999), "entropy", "mse", "moving-average".
// BadInput naming the text for an unknown method or a percentile outside (0, 100].
Result<CalibrationMethod> parseCalibrationMethod(const std::string &text);
// The inverse: "minmax", "percentile:99.99", "entropy", "mse", "moving-average".
std::string calibrationMethodName(const CalibrationMethod &method);

// The remedies a lab run applies after quantizing (quant/remedies: AdaRound, then bias
// correction), on the run's own calibration files: a lab axis, so that "does bias correction
// matter here, or is it noise" gets its paired comparison. Cross-layer equalization and
// SmoothQuant rescale the float model before calibration, which the lab's per-sample pool
// statistics (of one float model) cannot serve; they are refused.
struct LabRemedies {
    bool adaRound = false, biasCorrection = false;
    bool any() const { return adaRound || biasCorrection; }
    bool operator==(const LabRemedies &o) const {
        return adaRound == o.adaRound && biasCorrection == o.biasCorrection;
    }
};
// "none", "bias-correction", "adaround", "adaround+bias-correction" (either order); BadInput
// naming the text otherwise.
Result<LabRemedies> parseLabRemedies(const std::string &text);
std::string labRemediesName(const LabRemedies &remedies);  // "none", "adaround+bias-correction"

struct CalibrationLabOptions {
    std::vector<std::string> poolFiles;  // one calibration item per file, in this order
    std::vector<std::string> evalFiles;
    std::shared_ptr<const DataReader> reader;  // how the files are read; null: tensor files
    // Class ids, one per evaluation row (of the first output's argmax, usually one per sample);
    // empty: every figure is the top-1 agreement with the float model instead of accuracy.
    std::vector<int64_t> labels;
    std::vector<CalibrationMethod> methods;
    std::vector<int64_t> sizes;  // files per calibration, each <= poolFiles.size()
    int repeats = 3;
    CalibrationSelection selection = CalibrationSelection::Random;
    std::vector<int64_t> calibBatches{1};  // samples per calibration batch
    std::vector<LabRemedies> remedies{LabRemedies{}};  // per run, after quantizing
    uint64_t seed = 0;
    bool layers = false;  // per-run cumulative SQNR of every matched layer
    // Per-channel, symmetric, reduce range, BN folding, excluded nodes; method and percentile
    // are set per run.
    quant::QuantizationOptions quantizer;
    int64_t evalBatch = 32;  // evaluation samples per int8 batch (a fixed batch dim wins)
    int threads = 0;
    Int8Kernels int8Kernels = Int8Kernels::Exact;
    int bootstrapResamples = 2000;
};

struct CalibrationRunSpec {
    // "<method>-n<size>-r<repeat>-b<batch>", e.g. "percentile:99.99-n16-r2-b1", then
    // "+<remedies>" when the run applies any ("minmax-n16-r1-b1+bias-correction").
    std::string id;
    CalibrationMethod method;
    int64_t size = 0;
    int repeat = 1;  // 1-based
    CalibrationSelection selection = CalibrationSelection::Random;
    int64_t calibBatch = 1;
    std::vector<int64_t> calibIndices;  // into poolFiles, ascending
    LabRemedies remedies;
};

// The lab's runs in order (method, size, repeat, calibration batch), with their calibration
// indices drawn from the seed. poolClasses: the float model's top-1 class per pool file (for
// Stratified; may be empty otherwise). The options must be valid (CalibrationLab::create checks).
std::vector<CalibrationRunSpec> planCalibrationRuns(const CalibrationLabOptions &options,
                                                    const std::vector<int64_t> &poolClasses);
// The run whose calibration is provably the same as `spec`'s (same method and indices, and the
// same calibration batch for the moving average), as a key: equal keys, equal models.
std::string calibrationKey(const CalibrationRunSpec &spec);

struct LayerSqnr {
    std::string name;  // float node name
    double cumulativeSqnrDb = 0.0;
};

struct CalibrationRunResult {
    CalibrationRunSpec spec;
    std::string identicalTo;  // id of the earlier run with the same calibration, or ""
    double sqnrDb = 0.0;      // first output, over all evaluation samples (as `analyze`)
    double top1Agreement = 0.0;
    Interval top1AgreementCi95;
    std::optional<double> accuracy;  // with labels
    std::optional<Interval> accuracyCi95;
    std::vector<int64_t> predictions;  // top-1 class per evaluation row
    std::vector<LayerSqnr> layers;     // with CalibrationLabOptions::layers
    double seconds = 0.0;              // wall time of this run (0 when identicalTo is set)
};

struct FloatModelResult {
    std::optional<double> accuracy;  // with labels
    std::optional<Interval> accuracyCi95;
    std::vector<int64_t> predictions;
};

// A paired comparison of two runs (or a run and "float") on the same evaluation rows. The score
// is accuracy with labels, else top-1 agreement with the float model.
//   n01: rows a gets wrong and b gets right; n10: a right, b wrong.
//   diff = score(a) - score(b) = (n10 - n01) / rows; diffCi95: paired bootstrap;
//   mcnemarP: exact McNemar on (n01, n10).
struct RunComparison {
    // "best_vs_worst", "method_vs_float", "size_step", "batch_step", "remedy_vs_none"
    std::string kind;
    std::string a, b;  // run ids or "float"
    double diff = 0.0;
    Interval diffCi95;
    double mcnemarP = 1.0;
    int64_t n01 = 0, n10 = 0;
    std::string verdict;  // plain words
};

struct CalibrationLabResult {
    bool labelled = false;  // score = accuracy (else top-1 agreement with the float model)
    int64_t poolSamples = 0, evalRows = 0;
    FloatModelResult floatModel;
    std::vector<CalibrationRunResult> runs;  // finished runs, in plan order
    int runsPlanned = 0;
    bool complete = false;  // false when cancelled
    std::vector<RunComparison> comparisons;
    std::vector<int64_t> labels;
    double poolSeconds = 0.0, evaluationSeconds = 0.0, runsSeconds = 0.0;
};

// stage: "pool" (float pass over the pool, per file), "evaluation" (float pass over the
// evaluation set, per batch), "runs" (runs finished so far, at least every 50 ms from the thread
// that called run(), while workers evaluate the runs). Return false to cancel.
using LabProgress = std::function<bool(const std::string &stage, int done, int total)>;

// The paired comparisons of a set of finished runs: best vs worst (by score, then SQNR), each
// method's best vs the float model, each size vs the next larger size of the same method and
// calibration batch (the median repeat of each), each calibration batch vs the next larger one
// for the same method and size (repeat 1), and each remedied run vs the same calibration without
// remedies (the median repeat of each method, size and remedies; calibration batch as planned
// first). Best vs worst, method vs float and the steps compare runs without remedies when the lab
// has any.
std::vector<RunComparison> compareCalibrationRuns(const CalibrationLabResult &lab, uint64_t seed,
                                                  int bootstrapResamples);
// "no evidence of a difference at n=64 (p = 0.48)" / "a is better by 6.3 points (p = 0.004, n=64)".
std::string comparisonVerdict(const RunComparison &comparison, int64_t rows, bool labelled);

class CalibrationLab {
public:
    // Validates the options (sizes against the pool, labels against the evaluation rows,
    // methods, input shapes), runs the float model over the pool and the evaluation set. BadInput
    // naming the offending value; Cancelled when progress says so.
    static Result<std::unique_ptr<CalibrationLab>> create(const Graph &floatGraph,
                                                          CalibrationLabOptions options,
                                                          const LabProgress &progress = {});
    ~CalibrationLab();

    const CalibrationLabOptions &options() const;
    const std::vector<CalibrationRunSpec> &plannedRuns() const;
    const CalibrationRunSpec *findRun(const std::string &id) const;

    // Evaluates every planned run, several side by side (one thread each) when there are cores
    // to spare; results come in plan order. On cancel the result holds the finished runs (and
    // their comparisons) with complete = false; errors of a run stop the lab.
    Result<CalibrationLabResult> run(const LabProgress &progress = {});

    // A run's quantized model, as `quantize --calib <its files> --method M --calib-batch B
    // [--remedy adaround] [--remedy bias-correction]` writes it.
    Result<quant::QuantizeResult> quantizeRun(const CalibrationRunSpec &spec) const;
    // A run's quantizer options (method, percentile and the lab's other quantizer options).
    quant::QuantizationOptions quantizerOptions(const CalibrationRunSpec &spec) const;
    // A run's calibration batches, as read from its files and grouped by its calibration batch
    // size (for an in-app analysis session that calibrates on them).
    Result<std::vector<std::map<std::string, Tensor>>> calibrationBatches(
        const CalibrationRunSpec &spec) const;

private:
    CalibrationLab();
    struct Impl;
    std::unique_ptr<Impl> m_impl;
};

}  // namespace ql::analysis
