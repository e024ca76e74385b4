#pragma once
// The fp32 search: the smallest set of layers to keep in fp32 so that the quantized model
// reaches a target (output SQNR, top-1 agreement with the float model, or accuracy drop), every
// candidate set measured on the session's data (never estimated), re-quantized incrementally by
// the interactive session (only what a toggle affects re-runs).
//
// Candidates are the layers of the session's report that run int8. With at most
// `exhaustiveUpTo` of them the search tries every set by increasing size, so the answer is
// provably minimal (and, among the minimal sets, the one with the best figure). Above that:
//   1. sensitivity: every single-layer toggle is measured;
//   2. build-up: the layer whose addition gives the best measured figure joins the set, trying
//      the `rerank` best-ranked candidates (by their last measured figure) at each step, until
//      the target is met;
//   3. pruning: every layer whose removal still meets the target leaves the set (least useful
//      first).
// All-fp32 is measured first: when even that misses the target the search stops at once.
//
// 16 bits instead of fp32: with SearchPrecision::Int16 the chosen layers are quantized with 16
// bits (uint16 activations, int16 weights; in-app quantization only) instead of kept in fp32.
// With both precisions the search runs once for each (same candidates, same data) and answers
// with the set that needs the fewest layers (16 bits on a tie: the model stays integer); the
// Pareto front holds the timed sets of both.
//
// Latency: after the search, the int8 plan of a few measured sets is timed (the median of
// `latencyRuns` passes over the first `latencyBatches` batches, per batch) and the Pareto front
// of (fp32 layer count, latency, figure) is kept. The timed sets are the best measured set of
// each size that beats every smaller size (the layer-count front), the set found and, with the
// latency objective, the measured sets meeting the target (fewest layers first, up to
// `latencyCandidates`); with that objective the fastest of them meeting the target wins (sets
// within `latencyTies` of the fastest count as equally fast: then fewer layers, then the better
// figure).

#include <cstdint>
#include <functional>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "analysis/session/analysis_session.h"
#include "core/status.h"

namespace ql::analysis {

enum class SearchMetric { Sqnr, Agreement, AccuracyDrop };

struct SearchTarget {
    SearchMetric metric = SearchMetric::Sqnr;
    double value = 0.0;  // dB; percent agreement; accuracy points lost
};

// "sqnr:35", "agreement:99.0", "accuracy-drop:0.5"; BadInput naming the text otherwise.
Result<SearchTarget> parseSearchTarget(const std::string &text);
std::string searchTargetName(const SearchTarget &target);

// The report's figure for a metric (first output): SQNR dB, agreement %, accuracy drop in
// points (NaN without labels).
double searchMetricValue(const NumericSuiteReport &report, SearchMetric metric);
bool meetsTarget(double value, const SearchTarget &target);
// Whether figure a is better than b for the metric (higher SQNR / agreement, smaller drop).
bool betterFigure(double a, double b, SearchMetric metric);

// What the layers the search chooses become.
enum class SearchPrecision { Fp32, Int16 };
const char *searchPrecisionName(SearchPrecision precision);  // "fp32", "int16"
// "fp32", "int16" or both, comma-separated, each once; false otherwise.
bool parseSearchPrecisions(const std::string &text, std::vector<SearchPrecision> &out);

enum class SearchObjective { Layers, Latency };
// "layers", "latency"; false otherwise.
bool parseSearchObjective(const std::string &text, SearchObjective &objective);

struct SearchOptions {
    SearchTarget target;
    SearchObjective objective = SearchObjective::Layers;
    std::vector<SearchPrecision> precisions = {SearchPrecision::Fp32};  // searched in this order
    int maxEvaluations = 2000;                                          // over all precisions
    int exhaustiveUpTo = 14;
    int rerank = 6;
    int latencyRuns = 5;
    int latencyBatches = 2;
    int latencyCandidates = 48;
    double latencyTies = 0.03;  // relative
    // Where only "does this set meet the target" matters (the exhaustive sizes, the pruning), an
    // evaluation stops at the first batch after which the target is out of reach: SQNR with the
    // output's whole signal and the noise so far, agreement and accuracy with every remaining row
    // right.
    bool earlyStop = true;
    // After each evaluation: evaluations so far and the best figure of a set meeting the target
    // (NaN while none does). Return false to cancel (ErrorKind::Cancelled).
    std::function<bool(int evaluations, double bestFigure)> progress;
};

struct SearchEvaluation {
    SearchPrecision precision = SearchPrecision::Fp32;
    std::vector<std::string> layers;  // float node names raised to `precision`, in report order
    double figure = 0.0;              // NaN when stopped early
    double seconds = 0.0;
    // Stopped after the batch where even the best outcome of the rest missed the target; `bound`
    // is that best outcome (SearchOptions::earlyStop).
    bool stoppedEarly = false;
    double bound = 0.0;
};

struct ParetoPoint {
    SearchPrecision precision = SearchPrecision::Fp32;
    std::vector<std::string> layers;
    double figure = 0.0;
    double latencyMs = 0.0;  // one batch through the int8 plan
    bool meetsTarget = false;
};

// What the search found for one precision.
struct PrecisionOutcome {
    SearchPrecision precision = SearchPrecision::Fp32;
    bool reached = false;             // a set meeting the target was found
    std::vector<std::string> layers;  // the set found (the best set tried when not reached)
    double figure = 0.0;              // its figure
    double allRaisedFigure = 0.0;     // every candidate raised; NaN: not measured (int8 met it)
    bool exhaustive = false;          // every smaller set was measured: the size is minimal
};

// The answer (the PrecisionOutcome fields: the chosen precision's) and how it was found.
struct SearchResult : PrecisionOutcome {
    std::vector<PrecisionOutcome> byPrecision;  // one per searched precision, in order
    bool budgetExhausted = false;               // stopped by maxEvaluations
    int stoppedEarly = 0;                 // evaluations stopped once the target was out of reach
    std::vector<std::string> candidates;  // the int8 layers the search chose from
    std::vector<SearchEvaluation> evaluations;
    double latencyMs = 0.0;           // of the set found (one batch through its int8 plan)
    int latencyBatchSamples = 0;      // samples in the timed batches
    std::vector<ParetoPoint> pareto;  // non-dominated timed sets, by layer count then latency
};

// Runs the search on `session` (which it leaves with the found set raised). BadInput for an
// accuracy-drop target without labels, or 16 bits on a quantized model file.
Result<SearchResult> searchFp32Layers(AnalysisSession &session, const SearchOptions &options);

// The search reads only the output figures: a session made for it alone compares the outputs
// only, without the layers' cumulative and isolated figures and the kernel check (these cost
// about as much again per evaluation, and the float activations a layer comparison reads would
// fill the session's cache).
SessionOptions searchSessionOptions(SessionOptions options);

struct HoldoutFigure {
    int64_t samples = 0;
    double figure = 0.0;
    bool met = false;
};

// The session's fp32 layers and remedies with `layers` raised to `precision` (`base`: the other
// remedies, whose 16-bit layers give way).
std::pair<std::set<std::string>, LayerRemedies> raisedLayers(
    const LayerRemedies &base, SearchPrecision precision, const std::vector<std::string> &layers);

// The target's figure of `layers` raised to `precision` on held-out data, in a session of its
// own made like the search's (same models and options).
Result<HoldoutFigure> measureOnHoldout(const Graph &floatGraph,
                                       const std::optional<Graph> &quantGraph, EvaluationData held,
                                       const SessionOptions &options, SearchPrecision precision,
                                       const std::vector<std::string> &layers,
                                       const SearchTarget &target,
                                       const SessionProgress &progress = {});

}  // namespace ql::analysis
