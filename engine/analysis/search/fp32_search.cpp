#include "analysis/search/fp32_search.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <map>
#include <set>

namespace ql::analysis {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// The first output's totals over all the session's data, learned from the first evaluation that
// runs to the end: the float side does not depend on the set (its signal, its correct rows).
struct OutputTotals {
    bool known = false;
    double signal = 0.0;
    int64_t rows = 0, floatCorrect = 0;
};

// The best figure the whole evaluation can still give after `sofar`: the batches not yet run add
// noise (never less than none), agree on every row and classify every row correctly at best.
double bestReachable(const OutputTally &sofar, const OutputTotals &totals, SearchMetric metric) {
    const int64_t rest = totals.rows - sofar.rows;
    switch (metric) {
        case SearchMetric::Sqnr:
            return sqnrDb(totals.signal, sofar.noise);
        case SearchMetric::Agreement:
            return totals.rows > 0 ? 100.0 * double(sofar.agreements + rest) / double(totals.rows)
                                   : kNaN;
        case SearchMetric::AccuracyDrop:
            return totals.rows > 0 ? 100.0 * double(totals.floatCorrect -
                                                   (sofar.quantCorrect + rest)) /
                                         double(totals.rows)
                                   : kNaN;
    }
    return kNaN;
}

// Measures sets of layers raised to one precision on the session, each set once, within the
// budget.
class Evaluator {
public:
    Evaluator(AnalysisSession &session, const SearchOptions &options, SearchResult &result,
              SearchPrecision precision, const LayerRemedies &base)
        : m_session(session),
          m_options(options),
          m_result(result),
          m_precision(precision),
          m_base(base) {}

    SearchPrecision precision() const { return m_precision; }
    const std::vector<std::string> &candidates() const { return m_result.candidates; }
    bool budgetExhausted() const { return m_result.budgetExhausted; }

    // The figure of `set` (indices into the candidates), measured once. Past the budget it sets
    // result.budgetExhausted and fails with Cancelled; the search keeps its best set so far.
    Result<double> figure(const std::vector<size_t> &set) {
        auto measured = measure(set, false);
        if (!measured) return measured.status();
        return **measured;
    }

    // The figure of `set` when it meets the target, else nullopt. The evaluation stops at the
    // first batch after which even the best outcome of the rest would miss the target (with
    // SearchOptions::earlyStop), and a set stopped so is measured in full if its figure is asked
    // for later.
    Result<std::optional<double>> figureIfMet(const std::vector<size_t> &set) {
        auto measured = measure(set, m_options.earlyStop);
        if (!measured) return measured.status();
        if (!*measured || !meets(**measured)) return std::optional<double>();
        return *measured;
    }

    bool meets(double value) const { return meetsTarget(value, m_options.target); }
    bool better(double a, double b) const { return betterFigure(a, b, m_options.target.metric); }

private:
    // nullopt: stopped early (only when `mayStop`).
    Result<std::optional<double>> measure(const std::vector<size_t> &set, bool mayStop) {
        std::vector<size_t> key = set;
        std::sort(key.begin(), key.end());
        auto known = m_known.find(key);
        if (known != m_known.end()) return std::optional<double>(known->second);
        if (mayStop && m_missed.count(key)) return std::optional<double>();
        if (static_cast<int>(m_result.evaluations.size()) >= m_options.maxEvaluations) {
            m_result.budgetExhausted = true;
            return Status::error(ErrorKind::Cancelled, "evaluation budget");
        }
        SearchEvaluation e;
        e.precision = m_precision;
        for (size_t i : key) e.layers.push_back(m_result.candidates[i]);
        const auto [fp32, remedies] = raisedLayers(m_base, m_precision, e.layers);
        const auto start = std::chrono::steady_clock::now();
        double bound = kNaN;
        auto report =
            m_session.tryLayers(fp32, remedies, [&](const OutputTally &sofar, int done, int total) {
                if (done == total && !m_totals.known)
                    m_totals = {true, sofar.signal, sofar.rows, sofar.floatCorrect};
                if (!mayStop || !m_totals.known || done == total) return true;
                bound = bestReachable(sofar, m_totals, m_options.target.metric);
                // A margin for rounding: the totals and the bound are the same sums.
                const double margin = 1e-9 * (1.0 + std::fabs(m_options.target.value));
                return m_options.target.metric == SearchMetric::AccuracyDrop
                           ? !(bound > m_options.target.value + margin)
                           : !(bound < m_options.target.value - margin);
            });
        if (!report) return report.status();
        e.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        std::optional<double> value;
        if (*report) {
            value = searchMetricValue(**report, m_options.target.metric);
            e.figure = *value;
            m_known.emplace(key, *value);
        } else {
            e.figure = kNaN;
            e.stoppedEarly = true;
            e.bound = bound;
            m_missed.insert(key);
            ++m_result.stoppedEarly;
        }
        m_result.evaluations.push_back(std::move(e));
        if (value && meets(*value) &&
            (std::isnan(m_bestMeeting) || better(*value, m_bestMeeting)))
            m_bestMeeting = *value;
        if (m_options.progress &&
            !m_options.progress(static_cast<int>(m_result.evaluations.size()), m_bestMeeting))
            return Status::error(ErrorKind::Cancelled, "fp32 search cancelled");
        return value;
    }

    AnalysisSession &m_session;
    const SearchOptions &m_options;
    SearchResult &m_result;
    const SearchPrecision m_precision;
    const LayerRemedies &m_base;
    std::map<std::vector<size_t>, double> m_known;
    std::set<std::vector<size_t>> m_missed;  // stopped early: cannot meet the target
    OutputTotals m_totals;
    double m_bestMeeting = kNaN;
};

void keep(const Evaluator &evaluate, PrecisionOutcome &result, const std::vector<size_t> &set,
          double figure) {
    std::vector<size_t> sorted = set;
    std::sort(sorted.begin(), sorted.end());  // candidates are in report (execution) order
    result.layers.clear();
    for (size_t i : sorted) result.layers.push_back(evaluate.candidates()[i]);
    result.figure = figure;
}

// Every set by increasing size; the first size with a set meeting the target is minimal, and
// the best of that size wins.
Status searchExhaustively(Evaluator &evaluate, size_t n, PrecisionOutcome &result) {
    for (size_t k = 1; k < n; ++k) {
        std::vector<bool> chosen(n, false);
        std::fill(chosen.end() - static_cast<std::ptrdiff_t>(k), chosen.end(), true);
        bool found = false;
        do {
            std::vector<size_t> set;
            for (size_t i = 0; i < n; ++i)
                if (chosen[i]) set.push_back(i);
            auto f = evaluate.figureIfMet(set);
            if (!f) return f.status();
            if (*f && (!found || evaluate.better(**f, result.figure))) {
                keep(evaluate, result, set, **f);
                found = true;
            }
        } while (std::next_permutation(chosen.begin(), chosen.end()));
        if (found) return Status::ok();
    }
    return Status::ok();  // only all-fp32 meets the target (kept by the caller)
}

Status searchGreedily(Evaluator &evaluate, size_t n, int rerank, PrecisionOutcome &result) {
    // Sensitivity: each layer alone.
    std::vector<double> known(n);
    for (size_t i = 0; i < n; ++i) {
        auto f = evaluate.figure({i});
        if (!f) return f.status();
        known[i] = *f;
    }
    std::vector<double> single = known;
    std::vector<size_t> current;
    double figure = kNaN;
    while (current.empty() || !evaluate.meets(figure)) {
        std::vector<size_t> remaining;
        for (size_t i = 0; i < n; ++i)
            if (std::find(current.begin(), current.end(), i) == current.end())
                remaining.push_back(i);
        if (remaining.empty()) break;
        std::stable_sort(remaining.begin(), remaining.end(),
                         [&](size_t a, size_t b) { return evaluate.better(known[a], known[b]); });
        size_t best = remaining.front();
        double bestFigure = kNaN;
        for (size_t r = 0; r < remaining.size() && r < static_cast<size_t>(std::max(rerank, 1));
             ++r) {
            std::vector<size_t> tried = current;
            tried.push_back(remaining[r]);
            auto f = evaluate.figure(tried);
            if (!f) return f.status();
            known[remaining[r]] = *f;
            if (std::isnan(bestFigure) || evaluate.better(*f, bestFigure))
                best = remaining[r], bestFigure = *f;
        }
        current.push_back(best);
        figure = bestFigure;
    }
    // Pruning: the least useful alone first.
    std::vector<size_t> order = current;
    std::stable_sort(order.begin(), order.end(),
                     [&](size_t a, size_t b) { return evaluate.better(single[b], single[a]); });
    for (size_t layer : order) {
        if (current.size() <= 1) break;
        std::vector<size_t> without;
        for (size_t i : current)
            if (i != layer) without.push_back(i);
        auto f = evaluate.figureIfMet(without);
        if (!f) return f.status();
        if (*f) current = without, figure = **f;
    }
    if (evaluate.meets(figure)) keep(evaluate, result, current, figure);
    return Status::ok();
}

// The search for one precision: no layer raised, all raised, then exhaustive or greedy.
Status searchOnePrecision(Evaluator &evaluate, size_t n, const SearchOptions &options,
                          PrecisionOutcome &outcome) {
    outcome.precision = evaluate.precision();
    std::vector<size_t> all(n);
    for (size_t i = 0; i < n; ++i) all[i] = i;
    auto none = evaluate.figure({});
    if (!none) return none.status();
    keep(evaluate, outcome, {}, *none);
    if (evaluate.meets(*none) || n == 0) {
        outcome.reached = evaluate.meets(*none);
        outcome.exhaustive = true;
        outcome.allRaisedFigure = kNaN;  // not needed
        return Status::ok();
    }
    auto allRaised = evaluate.figure(all);
    if (!allRaised) return allRaised.status();
    outcome.allRaisedFigure = *allRaised;
    keep(evaluate, outcome, all, *allRaised);  // unreached: the best reachable
    if (!evaluate.meets(*allRaised)) return Status::ok();
    const bool exhaustive = static_cast<int>(n) <= options.exhaustiveUpTo;
    Status searched = exhaustive ? searchExhaustively(evaluate, n, outcome)
                                 : searchGreedily(evaluate, n, options.rerank, outcome);
    if (!searched && !evaluate.budgetExhausted()) return searched;
    outcome.reached = evaluate.meets(outcome.figure);
    outcome.exhaustive = exhaustive && !evaluate.budgetExhausted();
    return Status::ok();
}

// The answer among the precisions' outcomes: one that reached the target with the fewest layers
// (16 bits on a tie), else the best figure.
const PrecisionOutcome &chooseOutcome(const std::vector<PrecisionOutcome> &outcomes,
                                      SearchMetric metric) {
    const PrecisionOutcome *chosen = &outcomes.front();
    for (const PrecisionOutcome &o : outcomes) {
        if (o.reached != chosen->reached) {
            if (o.reached) chosen = &o;
        } else if (o.reached) {
            if (o.layers.size() < chosen->layers.size() ||
                (o.layers.size() == chosen->layers.size() && o.precision == SearchPrecision::Int16))
                chosen = &o;
        } else if (betterFigure(o.figure, chosen->figure, metric)) {
            chosen = &o;
        }
    }
    return *chosen;
}

// The same set: no layer raised is the same model whatever the precision.
template <class A, class B>
bool sameSet(const A &a, const B &b) {
    return a.layers == b.layers && (a.layers.empty() || a.precision == b.precision);
}

Status applySet(AnalysisSession &session, const LayerRemedies &base, SearchPrecision precision,
                const std::vector<std::string> &layers) {
    const auto [fp32, remedies] = raisedLayers(base, precision, layers);
    return session.setLayers(fp32, remedies).status();
}

// Whether a is at least as good as b in every respect and better in one.
bool dominates(const ParetoPoint &a, const ParetoPoint &b, SearchMetric metric) {
    const bool noWorse = a.layers.size() <= b.layers.size() && a.latencyMs <= b.latencyMs &&
                         !betterFigure(b.figure, a.figure, metric);
    const bool better = a.layers.size() < b.layers.size() || a.latencyMs < b.latencyMs ||
                        betterFigure(a.figure, b.figure, metric);
    return noWorse && better;
}

// The measured sets whose int8 plans are timed (see the header), each once.
std::vector<const SearchEvaluation *> setsToTime(const SearchOptions &options,
                                                 const SearchResult &result) {
    const SearchMetric metric = options.target.metric;
    std::vector<const SearchEvaluation *> sets;
    auto add = [&](const SearchEvaluation *e) {
        for (const SearchEvaluation *s : sets)
            if (sameSet(*s, *e)) return;
        sets.push_back(e);
    };
    for (const PrecisionOutcome &outcome : result.byPrecision) {
        std::map<size_t, const SearchEvaluation *> bestOfSize;
        for (const SearchEvaluation &e : result.evaluations) {
            if (e.stoppedEarly || e.precision != outcome.precision) continue;  // stopped: missed
            const SearchEvaluation *&best = bestOfSize[e.layers.size()];
            if (!best || betterFigure(e.figure, best->figure, metric)) best = &e;
        }
        double bestSmaller = kNaN;
        for (const auto &[size, e] : bestOfSize)
            if (std::isnan(bestSmaller) || betterFigure(e->figure, bestSmaller, metric)) {
                add(e);
                bestSmaller = e->figure;
            }
    }
    for (const SearchEvaluation &e : result.evaluations)
        if (sameSet(e, result)) add(&e);
    if (options.objective != SearchObjective::Latency) return sets;
    std::vector<const SearchEvaluation *> meeting;
    for (const SearchEvaluation &e : result.evaluations)
        if (meetsTarget(e.figure, options.target)) meeting.push_back(&e);
    std::stable_sort(meeting.begin(), meeting.end(), [&](const auto *a, const auto *b) {
        if (a->layers.size() != b->layers.size()) return a->layers.size() < b->layers.size();
        return betterFigure(a->figure, b->figure, metric);
    });
    for (const SearchEvaluation *e : meeting) {
        if (static_cast<int>(sets.size()) >= options.latencyCandidates) break;
        add(e);
    }
    return sets;
}

// Times the int8 plans of setsToTime, keeps their Pareto front and, with the latency objective,
// makes the fastest set meeting the target the result. Leaves the session on the result's set.
Status timeSets(AnalysisSession &session, const SearchOptions &options, const LayerRemedies &base,
                SearchResult &result) {
    const SearchMetric metric = options.target.metric;
    std::vector<ParetoPoint> points;
    for (const SearchEvaluation *e : setsToTime(options, result)) {
        QL_RETURN_IF_ERROR(applySet(session, base, e->precision, e->layers));
        auto ms = session.measureInt8BatchLatencyMs(options.latencyRuns, options.latencyBatches);
        if (!ms) return ms.status();
        points.push_back(
            {e->precision, e->layers, e->figure, *ms, meetsTarget(e->figure, options.target)});
        if (options.progress && !options.progress(static_cast<int>(result.evaluations.size()),
                                                  result.reached ? result.figure : kNaN))
            return Status::error(ErrorKind::Cancelled, "fp32 search cancelled");
    }
    if (options.objective == SearchObjective::Latency) {
        double fastest = kNaN;
        for (const ParetoPoint &p : points)
            if (p.meetsTarget && !(p.latencyMs >= fastest)) fastest = p.latencyMs;
        const ParetoPoint *pick = nullptr;
        for (const ParetoPoint &p : points) {
            if (!p.meetsTarget || p.latencyMs > fastest * (1.0 + options.latencyTies)) continue;
            if (!pick || p.layers.size() < pick->layers.size() ||
                (p.layers.size() == pick->layers.size() &&
                 betterFigure(p.figure, pick->figure, metric)))
                pick = &p;
        }
        if (pick) {
            for (const PrecisionOutcome &o : result.byPrecision)
                if (o.precision == pick->precision) static_cast<PrecisionOutcome &>(result) = o;
            result.reached = true;
            result.layers = pick->layers;
            result.figure = pick->figure;
        }
    }
    for (const ParetoPoint &p : points) {
        if (sameSet(p, result)) result.latencyMs = p.latencyMs;
        bool dominated = false;
        for (const ParetoPoint &q : points) dominated = dominated || dominates(q, p, metric);
        if (!dominated) result.pareto.push_back(p);
    }
    std::stable_sort(result.pareto.begin(), result.pareto.end(), [](const auto &a, const auto &b) {
        if (a.layers.size() != b.layers.size()) return a.layers.size() < b.layers.size();
        return a.latencyMs < b.latencyMs;
    });
    const auto &batch = session.data().batches.front();
    result.latencyBatchSamples = batch.empty() || batch.begin()->second.rank() == 0
                                     ? 0
                                     : static_cast<int>(batch.begin()->second.dim(0));
    return applySet(session, base, result.precision, result.layers);
}

}  // namespace

Result<SearchTarget> parseSearchTarget(const std::string &text) {
    const size_t colon = text.find(':');
    const std::string name = text.substr(0, colon),
                      value = colon == std::string::npos ? "" : text.substr(colon + 1);
    SearchTarget target;
    if (name == "sqnr")
        target.metric = SearchMetric::Sqnr;
    else if (name == "agreement")
        target.metric = SearchMetric::Agreement;
    else if (name == "accuracy-drop")
        target.metric = SearchMetric::AccuracyDrop;
    else
        return Status::badInput("unknown target '" + text +
                                "' (expected sqnr:DB, agreement:PERCENT or accuracy-drop:POINTS)");
    char *end = nullptr;
    target.value = std::strtod(value.c_str(), &end);
    if (value.empty() || *end != '\0' || !std::isfinite(target.value))
        return Status::badInput("target '" + text + "': '" + value + "' is not a number");
    if (target.metric == SearchMetric::Agreement && !(target.value >= 0.0 && target.value <= 100.0))
        return Status::badInput("target '" + text + "': agreement is a percentage in [0, 100]");
    if (target.metric == SearchMetric::AccuracyDrop && target.value < 0.0)
        return Status::badInput("target '" + text + "': the accuracy drop must be >= 0 points");
    return target;
}

bool parseSearchObjective(const std::string &text, SearchObjective &objective) {
    if (text == "layers")
        objective = SearchObjective::Layers;
    else if (text == "latency")
        objective = SearchObjective::Latency;
    else
        return false;
    return true;
}

std::string searchTargetName(const SearchTarget &target) {
    const char *name = target.metric == SearchMetric::Sqnr        ? "sqnr"
                       : target.metric == SearchMetric::Agreement ? "agreement"
                                                                  : "accuracy-drop";
    char text[64];
    std::snprintf(text, sizeof text, "%s:%g", name, target.value);
    return text;
}

double searchMetricValue(const NumericSuiteReport &report, SearchMetric metric) {
    if (report.outputs.empty()) return kNaN;
    const OutputReport &out = report.outputs.front();
    switch (metric) {
        case SearchMetric::Sqnr:
            return out.sqnrDb;
        case SearchMetric::Agreement:
            return 100.0 * out.top1Agreement;
        case SearchMetric::AccuracyDrop:
            return out.floatAccuracy && out.quantAccuracy
                       ? 100.0 * (*out.floatAccuracy - *out.quantAccuracy)
                       : kNaN;
    }
    return kNaN;
}

bool meetsTarget(double value, const SearchTarget &target) {
    if (std::isnan(value)) return false;
    return target.metric == SearchMetric::AccuracyDrop ? value <= target.value
                                                       : value >= target.value;
}

bool betterFigure(double a, double b, SearchMetric metric) {
    if (std::isnan(b)) return !std::isnan(a);
    if (std::isnan(a)) return false;
    return metric == SearchMetric::AccuracyDrop ? a < b : a > b;
}

const char *searchPrecisionName(SearchPrecision precision) {
    return precision == SearchPrecision::Int16 ? "int16" : "fp32";
}

bool parseSearchPrecisions(const std::string &text, std::vector<SearchPrecision> &out) {
    std::vector<SearchPrecision> precisions;
    size_t begin = 0;
    while (begin <= text.size()) {
        const size_t comma = std::min(text.find(',', begin), text.size());
        const std::string name = text.substr(begin, comma - begin);
        SearchPrecision p = SearchPrecision::Fp32;
        if (name == "int16")
            p = SearchPrecision::Int16;
        else if (name != "fp32")
            return false;
        if (std::find(precisions.begin(), precisions.end(), p) != precisions.end()) return false;
        precisions.push_back(p);
        begin = comma + 1;
    }
    out = std::move(precisions);
    return true;
}

std::pair<std::set<std::string>, LayerRemedies> raisedLayers(
    const LayerRemedies &base, SearchPrecision precision, const std::vector<std::string> &layers) {
    LayerRemedies remedies = base;
    remedies.int16.clear();
    if (precision == SearchPrecision::Int16) {
        remedies.int16.insert(layers.begin(), layers.end());
        return {{}, remedies};
    }
    return {{layers.begin(), layers.end()}, remedies};
}

Result<SearchResult> searchFp32Layers(AnalysisSession &session, const SearchOptions &options) {
    if (options.target.metric == SearchMetric::AccuracyDrop && session.data().labels.empty())
        return Status::badInput("fp32 search: an accuracy-drop target needs labels");
    if (options.precisions.empty())
        return Status::badInput("fp32 search: no precision to raise to");
    const bool sixteen = std::find(options.precisions.begin(), options.precisions.end(),
                                   SearchPrecision::Int16) != options.precisions.end();
    if (sixteen && !session.quantizedInApp())
        return Status::badInput(
            "search with 16-bit layers: it re-quantizes layers from the calibration statistics, "
            "so it needs the float model quantized in the app (--calib), not a quantized model "
            "file");
    // The user's remedies stay; their 16-bit layers give way to the search's sets.
    LayerRemedies base = session.layerRemedies();
    base.int16.clear();
    SearchResult result;
    auto start = session.setLayers({}, base);
    if (!start) return start.status();
    for (const LayerReport &layer : start->layers)
        if (layer.precision == "int8") result.candidates.push_back(layer.name);
    for (SearchPrecision precision : options.precisions) {
        Evaluator evaluate(session, options, result, precision, base);
        PrecisionOutcome outcome;
        const size_t before = result.evaluations.size();
        Status searched = searchOnePrecision(evaluate, result.candidates.size(), options, outcome);
        if (!searched && !result.budgetExhausted) return searched;
        if (result.evaluations.size() > before) result.byPrecision.push_back(std::move(outcome));
        if (result.budgetExhausted) break;
    }
    if (result.byPrecision.empty())
        return Status::error(ErrorKind::Cancelled, "fp32 search: the evaluation budget is 0");
    static_cast<PrecisionOutcome &>(result) =
        chooseOutcome(result.byPrecision, options.target.metric);
    QL_RETURN_IF_ERROR(timeSets(session, options, base, result));
    return result;
}

SessionOptions searchSessionOptions(SessionOptions options) {
    options.suite.isolated = false;
    options.suite.kernelCheck = false;
    options.suite.compareLayers = false;
    return options;
}

Result<HoldoutFigure> measureOnHoldout(const Graph &floatGraph,
                                       const std::optional<Graph> &quantGraph, EvaluationData held,
                                       const SessionOptions &options, SearchPrecision precision,
                                       const std::vector<std::string> &layers,
                                       const SearchTarget &target,
                                       const SessionProgress &progress) {
    HoldoutFigure out;
    out.samples = held.samples;
    auto session =
        AnalysisSession::create(floatGraph, quantGraph, std::move(held), options, progress);
    if (!session) return session.status();
    const auto [fp32, remedies] = raisedLayers((*session)->layerRemedies(), precision, layers);
    auto report = (*session)->setLayers(fp32, remedies, progress);
    if (!report) return report.status();
    out.figure = searchMetricValue(*report, target.metric);
    out.met = meetsTarget(out.figure, target);
    return out;
}

}  // namespace ql::analysis
