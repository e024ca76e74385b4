#pragma once
// Numeric-suite reports filled by hand for the analysis-view tests: the Fashion-MNIST fixture's
// figures (tests/data/fx_fashion_cnn/numeric_suite.json: PyTorch weight and cumulative SQNR;
// isolated, per-sample and kernel figures plausible values a few dB around them), and a
// synthetic mobilenet-sized report with every special case (fp32 layers, +inf, huge finite,
// NaN, missing figures, a kernel mismatch).

#include <cmath>
#include <limits>
#include <memory>
#include <optional>
#include <random>
#include <string>

#include "analysis/suite/numeric_suite.h"

namespace fixture {

using ql::analysis::ComparisonMetrics;
using ql::analysis::LayerReport;
using ql::analysis::NumericSuiteReport;

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// Cumulative (or isolated) metrics consistent with an SQNR: cosine ~ 1 − 10^(−sqnr/10)/2.
inline ComparisonMetrics metrics(double sqnrDb, double p5Db, double rmseOverScale = 0.4,
                                 double saturationPct = 0.1) {
    ComparisonMetrics m;
    m.samples = 64;
    m.elements = 64 * 1000;
    m.sqnrDb = sqnrDb;
    m.cosine = std::isfinite(sqnrDb) ? 1.0 - 0.5 * std::pow(10.0, -sqnrDb / 10.0) : 1.0;
    m.mse = 1e-4;
    m.maxAbsError = 0.05;
    m.rmseOverScale = rmseOverScale;
    m.saturationPct = saturationPct;
    m.sampleSqnr = ql::analysis::SampleSqnrSummary{p5Db - 2.0, p5Db, sqnrDb + 0.5, 64};
    return m;
}

inline LayerReport layer(const std::string &name, const std::string &op,
                         std::optional<double> weight, std::optional<double> cumulative,
                         std::optional<double> isolated, std::optional<double> kernel = {},
                         const std::string &precision = "int8") {
    LayerReport l;
    l.name = name;
    l.quantName = name;
    l.opType = op;
    l.matchedBy = "name";
    l.precision = precision;
    l.precisionReason = precision == "int8" ? "QLinear" + op : "no int8 kernel";
    l.weightSqnrDb = weight;
    if (cumulative) l.cumulative = metrics(*cumulative, *cumulative - 2.5);
    if (isolated) l.isolated = metrics(*isolated, *isolated - 2.0);
    l.kernelVsReferenceSqnrDb = kernel;
    l.kernelMismatch = kernel && *kernel < ql::analysis::kKernelMismatchDb;
    return l;
}

inline std::shared_ptr<NumericSuiteReport> makeFixtureReport() {
    auto r = std::make_shared<NumericSuiteReport>();
    r->samples = 64;
    r->quantPrecision = "int8";
    r->int8Kernels = "exact";
    ql::analysis::OutputReport out;
    out.floatName = "output";
    out.quantName = "output";
    out.sqnrDb = 40.260200387298646;
    out.top1Agreement = 1.0;
    out.floatAccuracy = 0.859375;
    out.quantAccuracy = 0.859375;
    r->outputs.push_back(out);
    r->layers = {
        layer("/conv1/Conv", "Conv", 47.698974609375, 37.0030403137207, 40.2, 61.43),
        layer("/conv2/Conv", "Conv", 43.93027877807617, 32.649044036865234, 36.1, 50.70),
        layer("/Add", "Add", {}, 33.30987548828125, 38.5, 52.14),
        layer("/pool1/MaxPool", "MaxPool", {}, 35.01315689086914, 38.9, 53.90),
        layer("/conv3/Conv", "Conv", 44.064918518066406, 32.81099319458008, 35.9, 46.29),
        layer("/pool2/MaxPool", "MaxPool", {}, 34.30583572387695, 37.6, 47.77),
        layer("/flatten/Flatten", "Flatten", {}, 34.30583572387695, 40.1),
        layer("/fc/Gemm", "Gemm", 38.96370315551758, 40.26018142700195, 43.3, 48.56),
    };
    r->int8Layers = 8;
    r->fp32Layers = 0;
    return r;
}

// mobilenet_v2-like: 150 layers of Conv / Clip / Add ... with seeded figures and special cases.
inline std::shared_ptr<NumericSuiteReport> makeSyntheticReport(int layers = 150) {
    auto r = std::make_shared<NumericSuiteReport>();
    r->samples = 64;
    r->quantPrecision = "int8";
    r->int8Kernels = "exact";
    ql::analysis::OutputReport out;
    out.floatName = out.quantName = "logits";
    out.sqnrDb = 21.7;
    out.top1Agreement = 0.90625;
    r->outputs.push_back(out);
    std::mt19937 rng(1234);
    std::normal_distribution<double> noise(0.0, 2.0);
    for (int i = 0; i < layers; ++i) {
        const int block = i / 8, part = i % 8;
        const char *ops[] = {"Conv", "Clip", "Conv", "Clip", "Conv", "Add", "Conv", "Clip"};
        const std::string op = ops[part];
        const std::string name = "/features/features." + std::to_string(block) + "/conv/conv." +
                                 std::to_string(part) + "/" + op;
        // Cumulative SQNR drifts down with depth; depthwise convs (part 2) are worse.
        const double depthLoss = 7.0 * i / layers;
        double cumulative = 38.0 - depthLoss + noise(rng) - (part == 2 ? 6.0 : 0.0);
        double isolated = cumulative + 3.0 + std::abs(noise(rng));
        std::optional<double> weight;
        if (op == "Conv") weight = 42.0 + noise(rng) - (part == 2 ? 9.0 : 0.0);
        std::optional<double> kernel = 55.0 + noise(rng);
        std::string precision = "int8";
        if (i == 40 || i == 41 || i == 97) precision = "fp32";
        if (i == 5) cumulative = kInf;  // an identity-like layer: identical outputs
        if (i == 6) weight = kInf;      // all-zero-error weights
        if (i == 60) isolated = 120.0;  // finite but far above the scale
        if (i == 70) isolated = kNaN;   // no elements: NaN is not drawn
        if (i == 71) kernel = 31.5;     // a kernel mismatch
        LayerReport l = layer(name, op, weight, cumulative, isolated, kernel, precision);
        if (i == 80) l.isolated.reset();  // input without a float counterpart
        r->layers.push_back(l);
        (precision == "fp32" ? r->fp32Layers : r->int8Layers) += 1;
    }
    return r;
}

}  // namespace fixture
