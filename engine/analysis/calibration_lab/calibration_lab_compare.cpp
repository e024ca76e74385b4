// The calibration lab's paired comparisons: which pairs, their statistics and verdicts.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>

#include "analysis/calibration_lab/calibration_lab.h"

namespace ql::analysis {

namespace {

constexpr double kSignificance = 0.05;

// Per evaluation row: 1 when the prediction is right (the label, or the float model's top-1
// without labels).
std::vector<double> scores(const std::vector<int64_t> &predictions,
                           const std::vector<int64_t> &reference) {
    std::vector<double> out(predictions.size());
    for (size_t i = 0; i < predictions.size() && i < reference.size(); ++i)
        out[i] = predictions[i] == reference[i] ? 1.0 : 0.0;
    return out;
}

double score(const CalibrationRunResult &run) {
    return run.accuracy ? *run.accuracy : run.top1Agreement;
}

// Better first: higher score, then higher SQNR, then plan order.
bool better(const CalibrationRunResult *a, const CalibrationRunResult *b) {
    if (score(*a) != score(*b)) return score(*a) > score(*b);
    return a->sqnrDb > b->sqnrDb;
}

std::string points(double fraction) {
    char text[32];
    std::snprintf(text, sizeof text, "%.1f", 100.0 * fraction);
    return text;
}

std::string pValue(double p) {
    char text[32];
    std::snprintf(text, sizeof text, p < 0.001 ? "%.1e" : "%.3f", p);
    return text;
}

class Comparer {
public:
    Comparer(const CalibrationLabResult &lab, uint64_t seed, int resamples)
        : m_lab(lab),
          m_seed(seed),
          m_resamples(resamples),
          m_reference(lab.labelled ? lab.labels : lab.floatModel.predictions) {}

    void add(const std::string &kind, const std::string &a,
             const std::vector<int64_t> &predictionsA, const std::string &b,
             const std::vector<int64_t> &predictionsB) {
        RunComparison c;
        c.kind = kind;
        c.a = a;
        c.b = b;
        const std::vector<double> sa = scores(predictionsA, m_reference),
                                  sb = scores(predictionsB, m_reference);
        for (size_t i = 0; i < sa.size() && i < sb.size(); ++i) {
            c.n01 += sa[i] < sb[i];
            c.n10 += sa[i] > sb[i];
        }
        const double rows = static_cast<double>(std::min(sa.size(), sb.size()));
        c.diff = rows > 0 ? static_cast<double>(c.n10 - c.n01) / rows : 0.0;
        // Each comparison its own bootstrap stream, fixed by the lab's seed and its position.
        c.diffCi95 =
            pairedBootstrapDiff(sa, sb, m_seed + 0x51ed27ULL * (m_out.size() + 1), m_resamples);
        c.mcnemarP = mcnemarExactP(c.n01, c.n10);
        c.verdict = comparisonVerdict(c, static_cast<int64_t>(rows), m_lab.labelled);
        m_out.push_back(std::move(c));
    }
    void add(const std::string &kind, const CalibrationRunResult &a,
             const CalibrationRunResult &b) {
        add(kind, a.spec.id, a.predictions, b.spec.id, b.predictions);
    }
    std::vector<RunComparison> take() { return std::move(m_out); }

private:
    const CalibrationLabResult &m_lab;
    uint64_t m_seed;
    int m_resamples;
    std::vector<int64_t> m_reference;
    std::vector<RunComparison> m_out;
};

// The median of a group by (score, SQNR): the representative of a configuration's repeats.
const CalibrationRunResult *median(std::vector<const CalibrationRunResult *> group) {
    std::sort(group.begin(), group.end(), better);
    return group[(group.size() - 1) / 2];
}

}  // namespace

std::string comparisonVerdict(const RunComparison &c, int64_t rows, bool labelled) {
    const std::string n = "n=" + std::to_string(rows);
    if (c.n01 == 0 && c.n10 == 0)
        return "same predictions on all " + std::to_string(rows) + " rows";
    const std::string what = labelled ? "accuracy" : "agreement with float";
    if (c.mcnemarP < kSignificance) {
        const bool aBetter = c.diff > 0;
        return (aBetter ? c.a : c.b) + " is better: " + what + " +" + points(std::fabs(c.diff)) +
               " points (p = " + pValue(c.mcnemarP) + ", " + n + ")";
    }
    return "no evidence of a difference at " + n + " (p = " + pValue(c.mcnemarP) +
           "; 95% CI of the " + what + " difference " + points(c.diffCi95.low) + " to " +
           points(c.diffCi95.high) + " points)";
}

std::vector<RunComparison> compareCalibrationRuns(const CalibrationLabResult &lab, uint64_t seed,
                                                  int bootstrapResamples) {
    Comparer compare(lab, seed, bootstrapResamples);
    std::vector<const CalibrationRunResult *> distinct;
    for (const auto &run : lab.runs)
        if (run.identicalTo.empty()) distinct.push_back(&run);
    if (distinct.empty()) return {};

    if (distinct.size() > 1) {
        const auto [worst, best] = std::minmax_element(
            distinct.begin(), distinct.end(), [](auto *a, auto *b) { return better(b, a); });
        compare.add("best_vs_worst", **best, **worst);
    }

    // The steps compare calibrations: runs without remedies when the lab has any.
    const bool someWithout = std::any_of(lab.runs.begin(), lab.runs.end(),
                                         [](const auto &run) { return !run.spec.remedies.any(); });
    // Per method: the best run against the float model; sizes and batches in steps.
    std::vector<std::string> methods;
    std::map<std::string, std::vector<const CalibrationRunResult *>> byMethod;
    for (const auto &run : lab.runs) {
        if (someWithout && run.spec.remedies.any()) continue;
        const std::string m = calibrationMethodName(run.spec.method);
        if (!byMethod.count(m)) methods.push_back(m);
        byMethod[m].push_back(&run);
    }
    for (const std::string &m : methods) {
        const auto &runs = byMethod[m];
        const CalibrationRunResult *best = *std::min_element(runs.begin(), runs.end(), better);
        compare.add("method_vs_float", best->spec.id, best->predictions, "float",
                    lab.floatModel.predictions);
    }
    for (const std::string &m : methods) {
        std::map<int64_t, std::map<int64_t, std::vector<const CalibrationRunResult *>>> byBatchSize;
        std::map<int64_t, std::map<int64_t, const CalibrationRunResult *>>
            firstRepeat;  // size -> batch -> run
        for (const CalibrationRunResult *run : byMethod[m]) {
            byBatchSize[run->spec.calibBatch][run->spec.size].push_back(run);
            if (run->spec.repeat == 1) firstRepeat[run->spec.size][run->spec.calibBatch] = run;
        }
        for (const auto &[batch, bySize] : byBatchSize)
            for (auto it = bySize.begin(); std::next(it) != bySize.end(); ++it)
                compare.add("size_step", *median(std::next(it)->second), *median(it->second));
        for (const auto &[size, byBatch] : firstRepeat)
            for (auto it = byBatch.begin(); std::next(it) != byBatch.end(); ++it)
                compare.add("batch_step", *std::next(it)->second, *it->second);
    }
    // Remedies: on the median repeat of each method and size (its calibration batch planned
    // first), the remedied runs against the same calibration without remedies.
    if (someWithout) {
        const auto twin = [](const CalibrationRunSpec &s) {
            return calibrationMethodName(s.method) + "/" + std::to_string(s.size) + "/" +
                   std::to_string(s.repeat) + "/" + std::to_string(s.calibBatch);
        };
        std::map<std::string, const CalibrationRunResult *> plain;
        std::map<std::pair<std::string, int64_t>, std::vector<const CalibrationRunResult *>>
            repeats;  // (method, size) -> plain runs of the first calibration batch
        for (const auto &run : lab.runs) {
            if (run.spec.remedies.any()) continue;
            plain[twin(run.spec)] = &run;
            auto &group = repeats[{calibrationMethodName(run.spec.method), run.spec.size}];
            if (group.empty() || group.front()->spec.calibBatch == run.spec.calibBatch)
                group.push_back(&run);
        }
        for (const auto &[key, group] : repeats) {
            const CalibrationRunSpec &representative = median(group)->spec;
            for (const auto &run : lab.runs)
                if (run.spec.remedies.any() && twin(run.spec) == twin(representative))
                    compare.add("remedy_vs_none", run, *plain[twin(representative)]);
        }
    }
    return compare.take();
}

}  // namespace ql::analysis
