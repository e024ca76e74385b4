// The calibration lab's plan: method names, selections and the runs with their seeded indices.
#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <numeric>

#include "analysis/calibration_lab/calibration_lab.h"

namespace ql::analysis {

namespace {

std::string lower(const std::string &text) {
    std::string out;
    for (char c : text) out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return out;
}

// The draws of one (size, repeat): their own stream, so adding a method or a size to the lab does
// not change the other runs' samples.
SplitMix64 drawStream(uint64_t seed, int64_t size, int repeat) {
    SplitMix64 mix{seed};
    SplitMix64 stream{mix.next() ^ (static_cast<uint64_t>(size) * 0x9e3779b97f4a7c15ULL) ^
                      (static_cast<uint64_t>(repeat) << 40)};
    stream.next();
    return stream;
}

void shuffle(std::vector<int64_t> &values, SplitMix64 &rng) {
    for (size_t i = values.size(); i > 1; --i) std::swap(values[i - 1], values[rng.below(i)]);
}

std::vector<int64_t> randomIndices(int64_t pool, int64_t size, SplitMix64 &rng) {
    std::vector<int64_t> all(static_cast<size_t>(pool));
    std::iota(all.begin(), all.end(), 0);
    shuffle(all, rng);
    all.resize(static_cast<size_t>(size));
    return all;
}

// As even as possible over the predicted classes: round robin over the classes (in a seeded
// order), each class's files in a seeded order.
std::vector<int64_t> stratifiedIndices(const std::vector<int64_t> &classes, int64_t size,
                                       SplitMix64 &rng) {
    std::map<int64_t, std::vector<int64_t>> byClass;
    for (size_t i = 0; i < classes.size(); ++i)
        byClass[classes[i]].push_back(static_cast<int64_t>(i));
    std::vector<std::vector<int64_t>> groups;
    for (auto &[cls, files] : byClass) {
        shuffle(files, rng);
        groups.push_back(files);
    }
    std::vector<int64_t> order(groups.size());
    std::iota(order.begin(), order.end(), 0);
    shuffle(order, rng);
    std::vector<int64_t> out;
    for (size_t round = 0; static_cast<int64_t>(out.size()) < size; ++round)
        for (int64_t g : order)
            if (round < groups[static_cast<size_t>(g)].size() &&
                static_cast<int64_t>(out.size()) < size)
                out.push_back(groups[static_cast<size_t>(g)][round]);
    return out;
}

}  // namespace

const char *calibrationSelectionName(CalibrationSelection selection) {
    switch (selection) {
        case CalibrationSelection::Random:
            return "random";
        case CalibrationSelection::Stratified:
            return "stratified";
        case CalibrationSelection::First:
            return "first";
    }
    return "random";
}

bool parseCalibrationSelection(const std::string &text, CalibrationSelection &out) {
    for (auto s : {CalibrationSelection::Random, CalibrationSelection::Stratified,
                   CalibrationSelection::First})
        if (lower(text) == calibrationSelectionName(s)) {
            out = s;
            return true;
        }
    return false;
}

bool CalibrationMethod::operator==(const CalibrationMethod &o) const {
    return method == o.method &&
           (method != quant::RangeMethod::Percentile || percentile == o.percentile);
}

Result<CalibrationMethod> parseCalibrationMethod(const std::string &text) {
    const size_t colon = text.find(':');
    const std::string name = text.substr(0, colon);
    CalibrationMethod out;
    if (!quant::parseRangeMethod(name, out.method))
        return Status::badInput(
            "unknown calibration method '" + text +
            "' (expected minmax, percentile:P, entropy, mse or moving-average)");
    if (colon == std::string::npos) return out;
    if (out.method != quant::RangeMethod::Percentile)
        return Status::badInput("calibration method '" + text + "': only percentile takes a value");
    const std::string value = text.substr(colon + 1);
    char *end = nullptr;
    out.percentile = std::strtod(value.c_str(), &end);
    if (value.empty() || *end != '\0' || !(out.percentile > 0.0 && out.percentile <= 100.0))
        return Status::badInput("calibration method '" + text +
                                "': the percentile must be a number in (0, 100]");
    return out;
}

std::string calibrationMethodName(const CalibrationMethod &method) {
    if (method.method == quant::RangeMethod::MovingAverageMinMax) return "moving-average";
    if (method.method != quant::RangeMethod::Percentile)
        return quant::rangeMethodName(method.method);
    char text[64];
    std::snprintf(text, sizeof text, "percentile:%.10g", method.percentile);
    return text;
}

Result<LabRemedies> parseLabRemedies(const std::string &text) {
    LabRemedies out;
    if (lower(text) == "none") return out;
    size_t start = 0;
    while (start <= text.size()) {
        const size_t plus = std::min(text.find('+', start), text.size());
        const std::string part = lower(text.substr(start, plus - start));
        if (part == "adaround")
            out.adaRound = true;
        else if (part == "bias-correction")
            out.biasCorrection = true;
        else if (part == "cle" || part.rfind("smoothquant", 0) == 0)
            return Status::badInput(
                "calib-lab remedies '" + text + "': " + part +
                " rescales the float model before calibration, and the lab's pool statistics "
                "are of one float model; compare it with `analyze --calib ... --remedy " +
                part + "`");
        else
            return Status::badInput("calib-lab remedies '" + text +
                                    "': expected none, adaround, bias-correction or "
                                    "adaround+bias-correction");
        start = plus + 1;
    }
    return out;
}

std::string labRemediesName(const LabRemedies &remedies) {
    if (!remedies.any()) return "none";
    if (remedies.adaRound && remedies.biasCorrection) return "adaround+bias-correction";
    return remedies.adaRound ? "adaround" : "bias-correction";
}

std::vector<CalibrationRunSpec> planCalibrationRuns(const CalibrationLabOptions &options,
                                                    const std::vector<int64_t> &poolClasses) {
    const int64_t pool = static_cast<int64_t>(options.poolFiles.size());
    // Indices per (size, repeat), shared by every method and calibration batch.
    std::map<std::pair<int64_t, int>, std::vector<int64_t>> indices;
    for (int64_t size : options.sizes)
        for (int repeat = 1; repeat <= options.repeats; ++repeat) {
            SplitMix64 rng = drawStream(options.seed, size, repeat);
            std::vector<int64_t> drawn;
            switch (options.selection) {
                case CalibrationSelection::Random:
                    drawn = randomIndices(pool, size, rng);
                    break;
                case CalibrationSelection::Stratified:
                    drawn = stratifiedIndices(poolClasses, size, rng);
                    break;
                case CalibrationSelection::First:
                    drawn.resize(static_cast<size_t>(size));
                    std::iota(drawn.begin(), drawn.end(), 0);
                    break;
            }
            std::sort(drawn.begin(), drawn.end());
            indices[{size, repeat}] = std::move(drawn);
        }
    std::vector<CalibrationRunSpec> runs;
    for (const CalibrationMethod &method : options.methods)
        for (int64_t size : options.sizes)
            for (int repeat = 1; repeat <= options.repeats; ++repeat)
                for (int64_t batch : options.calibBatches)
                    for (const LabRemedies &remedies : options.remedies) {
                        CalibrationRunSpec spec;
                        spec.method = method;
                        spec.size = size;
                        spec.repeat = repeat;
                        spec.selection = options.selection;
                        spec.calibBatch = batch;
                        spec.calibIndices = indices[{size, repeat}];
                        spec.remedies = remedies;
                        spec.id = calibrationMethodName(method) + "-n" + std::to_string(size) +
                                  "-r" + std::to_string(repeat) + "-b" + std::to_string(batch);
                        if (remedies.any()) spec.id += "+" + labRemediesName(remedies);
                        runs.push_back(std::move(spec));
                    }
    return runs;
}

std::string calibrationKey(const CalibrationRunSpec &spec) {
    std::string key = calibrationMethodName(spec.method);
    // Only the moving average sees batches; every other method sees the union of the samples.
    if (spec.method.method == quant::RangeMethod::MovingAverageMinMax)
        key += "/b" + std::to_string(spec.calibBatch);
    for (int64_t i : spec.calibIndices) key += "," + std::to_string(i);
    // Remedies read their calibration data in batches of the run's size (all methods).
    if (spec.remedies.any())
        key += "+" + labRemediesName(spec.remedies) + "/b" + std::to_string(spec.calibBatch);
    return key;
}

}  // namespace ql::analysis
