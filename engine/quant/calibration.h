#pragma once
// Calibration: run the float model over sample inputs and keep, for every float activation
// (graph inputs and node outputs), enough statistics to derive its range with any RangeMethod
// later: exact min/max, the moving-average min/max and a histogram, all at once. Re-quantizing
// with another method, percentile or plan therefore never runs the model again. Memory per value
// is fixed (one histogram), whatever the number of batches.

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "core/status.h"
#include "ir/graph.h"
#include "ir/tensor.h"
#include "quant/observers.h"
#include "quant/qparams.h"
#include "runtime/execution_plan.h"

namespace ql::quant {

struct CalibrationOptions {
    int histogramBins = 2048;
    // false: no histograms, only what min/max and the moving average need (a quantize with
    // either reads nothing else; the histograms were a fifth of vit_b_16's calibration). The
    // histogram methods then give no range.
    bool histograms = true;
    double averagingConstant = 0.01;  // moving-average min/max, per batch (PyTorch default)
    int threads = 0;                  // of the execution plan; 0: all hardware threads
    // Which values to observe (by value name); every float graph input and node output when empty.
    std::function<bool(const std::string &value)> valueFilter;
};

// Everything observed for one value.
struct ValueStatistics {
    MinMaxObserver minMax;
    MovingAverageMinMaxObserver movingAverage;
    HistogramObserver histogram;
    bool histogramsObserved = true;
    int64_t batches = 0;  // observe() calls that had finite data

    explicit ValueStatistics(const CalibrationOptions &options);
    void observe(const float *data, int64_t n);
    // One batch made of parts that each observed one batch apart (per-sample statistics): the
    // same as observe() on their concatenated data.
    void observeBatchOf(const std::vector<const ValueStatistics *> &parts);
    // The range `query` selects (method, percentile, entropy bins, MSE target grid).
    std::pair<float, float> range(const ObserverOptions &query) const;
};

class CalibrationStatistics {
public:
    explicit CalibrationStatistics(CalibrationOptions options = {});

    // One batch of one value; non-float tensors are ignored. Used by calibrate() and by tests.
    void observe(const std::string &value, const float *data, int64_t n);
    void observe(const std::string &value, const Tensor &tensor);
    // Marks the end of one calibration batch (counts batches and samples for reports).
    void finishBatch(int64_t samples) { ++m_batches, m_samples += samples; }
    // One calibration batch assembled from statistics that each hold exactly one batch (e.g. one
    // per sample, from calibrateEachBatch): equal to calibrating on their data as one batch.
    void addBatchOf(const std::vector<const CalibrationStatistics *> &parts);

    bool has(const std::string &value) const { return m_values.count(value) != 0; }
    const ValueStatistics *find(const std::string &value) const;
    std::vector<std::string> valueNames() const;
    int64_t batchCount() const { return m_batches; }
    int64_t sampleCount() const { return m_samples; }
    const CalibrationOptions &options() const { return m_options; }
    // Values that had NaN or Inf in some batch (they were skipped), with their counts.
    std::map<std::string, int64_t> nonFiniteValues() const;

    // Range of a value by method; {0, 0} for a value never observed. Mse and Entropy target
    // uint8 asymmetric here; use the ObserverOptions overload for another grid.
    std::pair<float, float> range(const std::string &value, RangeMethod method, double percentile = 99.999) const;
    std::pair<float, float> range(const std::string &value, const ObserverOptions &query) const;
    // qparamsFromRange(range(value, query), query.target): the activation's parameters.
    QParams qparams(const std::string &value, const ObserverOptions &query) const;

    void clear();

private:
    CalibrationOptions m_options;
    std::map<std::string, ValueStatistics> m_values;
    int64_t m_batches = 0, m_samples = 0;
};

// Supplies calibration batches one at a time: fills `batch` (tensors by graph input name) and
// returns true, returns false when there are no more, or an error that stops calibration.
using BatchSource = std::function<Result<bool>(std::map<std::string, Tensor> &batch)>;
// Opens the data from its start; for remedies that pass over the calibration data more than once.
using BatchSourceOpener = std::function<Result<BatchSource>()>;
// The batches in memory, in order, each time the opener is called; `batches` must outlive it.
BatchSourceOpener batchesOpener(const std::vector<std::map<std::string, Tensor>> &batches);

// Runs `floatGraph` on every batch and adds what it sees to `out` (which is not cleared, so
// calibrating twice accumulates). progress(done, total) is called after each batch with total
// = expectedBatches (0 when unknown); returning false cancels (ErrorKind::Cancelled).
Status calibrate(const Graph &floatGraph, const BatchSource &source, CalibrationStatistics &out,
                 const ProgressCallback &progress = {}, int expectedBatches = 0);
Status calibrate(const Graph &floatGraph, const std::vector<std::map<std::string, Tensor>> &batches,
                 CalibrationStatistics &out, const ProgressCallback &progress = {});

// The same pass, but every batch gets its own statistics, handed to `sink` after the batch with
// the model's outputs for it (an error of the sink stops the pass): what the calibration lab
// keeps per pool sample. The model's plan is built once for all batches.
using BatchStatisticsSink = std::function<Status(CalibrationStatistics &&batch, const std::vector<Tensor> &outputs)>;
Status calibrateEachBatch(const Graph &floatGraph, const BatchSource &source, const CalibrationOptions &options,
                          const BatchStatisticsSink &sink,
                          const ProgressCallback &progress = {}, int expectedBatches = 0);

}  // namespace ql::quant
