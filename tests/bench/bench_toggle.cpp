// Toggle latency of the interactive session (issue 5): on a float / QDQ pair (default torchvision
// resnet18 from /tmp/models_q; QL_BENCH_FLOAT, QL_BENCH_QUANT override) with 32 seeded random
// samples (QL_BENCH_SAMPLES, batches of QL_BENCH_BATCH), it times
//   FullInt8Pass: one pass of the int8 plan over all samples;
//   ToggleEachLayer: every layer toggled to fp32 and back, one at a time; the counters give the
//   median time of a toggle (and of the way back) and its ratio to the full int8 pass.
// Target: median toggle / full pass <= 0.6. The application runs with the launcher's malloc
// tunables and OpenMP spin (app/launcher); to measure as it runs, set them here too:
//   GLIBC_TUNABLES=glibc.malloc.hugetlb=1:glibc.malloc.top_pad=67108864 GOMP_SPINCOUNT=10000
//
// Measured 2026-11-23 on the quiet 2-core machine (nothing else running; full pass 728 ms; each
// toggle against a full pass timed just before it), resnet18 PyTorch FX QDQ, 32 random samples,
// batches of 8: median toggle / full pass 0.39 over all 32 layers (weightless Add/MaxPool/pool/
// Flatten toggles change nothing that runs: 0.01-0.03); 0.64 over the 20 Conv/Gemm layers
// (layer4 0.18-0.39, layer3 0.41-0.74, layer2 0.64-0.90, layer1 1.00-1.29, conv1 1.68); toggling
// back 0.015 (nothing re-runs); cache 548 MiB; peak RSS 1.25 GB; session creation 4.7 s.
//
// Session creation, 2026-11-23, same machine (load 2.7-3.6), QL_BENCH_THREADS=1, before and after
// alternated 3 times: the caches filled by a second float + int8 pass took create_cpu_ms
// 11.4-12.8 s (median 12.0); filled from the suite's own passes 8.7-10.5 s (median 8.8). Peak RSS
// 1.249 -> 1.251 GB.

#include <benchmark/benchmark.h>
#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "analysis/session/analysis_session.h"
#include "analysis/session/keep_layers_fp32.h"
#include "analysis/pairing/layer_matching.h"
#include "analysis/suite/weight_comparison.h"
#include "onnx_io/model_loader.h"
#include "passes/int8_kernel_mode.h"
#include "passes/precision.h"
#include "runtime/execution_plan.h"

#include "bench_support.h"

namespace {

using namespace ql;
using namespace ql::analysis;
using namespace ql::bench;

struct Setup {
    Graph floatGraph, quantGraph;
    EvaluationData data;
    double fullPassMs = 0.0;  // median of the FullInt8Pass runs, for the ratio
};

Setup &setup() {
    static std::unique_ptr<Setup> s;
    if (s) return *s;
    s = std::make_unique<Setup>();
    auto f = loadModel(env("QL_BENCH_FLOAT", "/tmp/models_q/resnet18.onnx"));
    auto q = loadModel(env("QL_BENCH_QUANT", "/tmp/models_q/resnet18_qdq.onnx"));
    if (!f || !q) {
        std::fprintf(stderr, "cannot load the models: %s %s\n", f.status().message().c_str(),
                     q.status().message().c_str());
        std::exit(1);
    }
    s->floatGraph = std::move(*f);
    s->quantGraph = std::move(*q);
    auto data = randomEvaluationData(s->floatGraph, std::stoll(env("QL_BENCH_SAMPLES", "32")), 1,
                                     std::stoll(env("QL_BENCH_BATCH", "8")));
    if (!data) {
        std::fprintf(stderr, "%s\n", data.status().message().c_str());
        std::exit(1);
    }
    s->data = std::move(*data);
    return *s;
}

// User + system CPU time of the whole process so far.
double processCpuMs() {
    rusage usage{};
    getrusage(RUSAGE_SELF, &usage);
    auto ms = [](const timeval &t) { return double(t.tv_sec) * 1e3 + double(t.tv_usec) / 1e3; };
    return ms(usage.ru_utime) + ms(usage.ru_stime);
}

// The quantized model lowered to int8 (exact kernels) as one plan; null (and the benchmark
// skipped) when that fails.
std::unique_ptr<ExecutionPlan> int8Plan(const Setup &s, benchmark::State &state) {
    Graph g = s.quantGraph;
    if (Status lowered = preparePrecision(g, Precision::Int8); !lowered.isOk()) {
        state.SkipWithError(lowered.message().c_str());
        return nullptr;
    }
    applyInt8Kernels(g, Int8Kernels::Exact);
    auto plan = ExecutionPlan::create(std::move(g));
    if (!plan) {
        state.SkipWithError(plan.status().message().c_str());
        return nullptr;
    }
    return std::move(*plan);
}

void FullInt8Pass(benchmark::State &state) {
    Setup &s = setup();
    auto plan = int8Plan(s, state);
    if (!plan) return;
    std::vector<Tensor> outputs;
    for (const auto &batch : s.data.batches) (void)plan->run(batch, outputs);  // primitives
    std::vector<double> times;
    for (auto _ : state) {
        const auto start = Clock::now();
        for (const auto &batch : s.data.batches) (void)plan->run(batch, outputs);
        times.push_back(msSince(start));
    }
    s.fullPassMs = median(times);
    state.counters["median_ms"] = s.fullPassMs;
}

// The same pass with every value tapped and copied (what the session's cache costs).
void FullInt8PassTapped(benchmark::State &state) {
    Setup &s = setup();
    auto plan = int8Plan(s, state);
    if (!plan) return;
    std::vector<Tensor> outputs;
    std::map<std::string, Tensor> kept;
    RunOptions run;
    run.tap = [&](const Node &node, size_t index, const Tensor &value) {
        kept[node.outputs[index]] = value.clone();
    };
    for (auto _ : state)
        for (const auto &batch : s.data.batches) (void)plan->run(batch, outputs, run);
}

void ToggleEachLayer(benchmark::State &state) {
    Setup &s = setup();
    SessionOptions options;
    // QL_BENCH_THREADS=n: plan threads (default all); 1 makes the CPU time a measure of the work
    // on a loaded machine (no threads spinning while waiting for a core).
    options.suite.threads = std::stoi(env("QL_BENCH_THREADS", "0"));
    const double createCpuStart = processCpuMs();
    const auto createStart = Clock::now();
    // QL_BENCH_IN_APP=1: quantize the float model in the app (calibrated on the samples) instead.
    std::optional<Graph> quant = s.quantGraph;
    if (std::getenv("QL_BENCH_IN_APP")) quant.reset();
    auto session = AnalysisSession::create(s.floatGraph, quant, s.data, options);
    if (!session) {
        state.SkipWithError(session.status().message().c_str());
        return;
    }
    const double createMs = msSince(createStart);
    const double createCpuMs = processCpuMs() - createCpuStart;
    std::vector<std::string> layers;
    // QL_BENCH_LAYER_STEP=k toggles every k-th layer only, from QL_BENCH_FIRST_LAYER (quick looks;
    // the figure is over all).
    const size_t step = std::max<size_t>(1, std::stoul(env("QL_BENCH_LAYER_STEP", "1")));
    const auto &rows = (*session)->report().layers;
    for (size_t i = std::stoul(env("QL_BENCH_FIRST_LAYER", "0")); i < rows.size(); i += step)
        layers.push_back(rows[i].name);
    // The machine's load drifts: each toggle is compared with a full int8 pass timed just before
    // it.
    auto plan = int8Plan(s, state);
    if (!plan) return;
    std::vector<Tensor> outputs;
    auto fullPass = [&]() {
        const auto start = Clock::now();
        for (const auto &batch : s.data.batches) (void)plan->run(batch, outputs);
        return msSince(start);
    };
    fullPass();  // primitives
    std::vector<double> on, off, full, onRatio, offRatio, weightedRatio;
    for (auto _ : state) {
        for (const auto &layer : layers) {
            full.push_back(fullPass());
            auto start = Clock::now();
            auto r = (*session)->setFp32Layers({layer});
            on.push_back(msSince(start));
            if (!r) {
                state.SkipWithError(r.status().message().c_str());
                return;
            }
            start = Clock::now();
            r = (*session)->setFp32Layers({});
            off.push_back(msSince(start));
            onRatio.push_back(on.back() / full.back());
            offRatio.push_back(off.back() / full.back());
            for (const auto &row : rows)
                if (row.name == layer && !row.weightChannelSqnrDb.empty())
                    weightedRatio.push_back(onRatio.back());
            if (std::getenv("QL_BENCH_VERBOSE"))
                std::fprintf(stderr, "%-46s full %7.1f ms  on %7.1f ms (%.2f)  back %6.1f ms\n",
                             layer.c_str(), full.back(), on.back(), onRatio.back(), off.back());
        }
    }
    state.counters["layers"] = static_cast<double>(layers.size());
    state.counters["create_ms"] = createMs;
    // CPU time of every thread of the process during creation: less sensitive to the machine's
    // load than the wall time.
    state.counters["create_cpu_ms"] = createCpuMs;
    state.counters["cache_mib"] = static_cast<double>((*session)->cachedBytes()) / (1 << 20);
    state.counters["median_full_pass_ms"] = median(full);
    state.counters["median_toggle_ms"] = median(on);
    state.counters["median_back_ms"] = median(off);
    // The figure: median over all layers of toggle time / full int8 pass time.
    state.counters["toggle_over_full_pass"] = median(onRatio);
    state.counters["back_over_full_pass"] = median(offRatio);
    // Layers with weights (Conv, Gemm): toggles that change what runs, not only plumbing.
    state.counters["weighted_toggle_over_full_pass"] = median(weightedRatio);
}

// Fixed costs a toggle may pay: graph rewrites, matching, weights, lowering, plan creation.
void ToggleOverheads(benchmark::State &state) {
    Setup &s = setup();
    auto matching = matchLayers(s.floatGraph, s.quantGraph);
    if (!matching) {
        state.SkipWithError(matching.status().message().c_str());
        return;
    }
    std::vector<double> copy, keep, match, weights, lower, plan;
    for (auto _ : state) {
        auto start = Clock::now();
        Graph g = s.quantGraph;
        copy.push_back(msSince(start));
        start = Clock::now();
        (void)keepLayersFp32(g, s.floatGraph, {matching->matches[matching->matches.size() / 2]});
        keep.push_back(msSince(start));
        start = Clock::now();
        auto m = matchLayers(s.floatGraph, g);
        match.push_back(msSince(start));
        start = Clock::now();
        (void)compareWeights(s.floatGraph, g, *m);
        weights.push_back(msSince(start));
        start = Clock::now();
        (void)preparePrecision(g, Precision::Int8);
        lower.push_back(msSince(start));
        start = Clock::now();
        auto p = ExecutionPlan::create(std::move(g));
        plan.push_back(msSince(start));
    }
    state.counters["copy_ms"] = median(copy);
    state.counters["keep_fp32_ms"] = median(keep);
    state.counters["match_ms"] = median(match);
    state.counters["weights_ms"] = median(weights);
    state.counters["lower_ms"] = median(lower);
    state.counters["plan_ms"] = median(plan);
}

}  // namespace

BENCHMARK(ToggleOverheads)->Unit(benchmark::kMillisecond)->Iterations(3)->UseRealTime();
BENCHMARK(FullInt8Pass)->Unit(benchmark::kMillisecond)->Iterations(5)->UseRealTime();
BENCHMARK(FullInt8PassTapped)->Unit(benchmark::kMillisecond)->Iterations(3)->UseRealTime();
BENCHMARK(ToggleEachLayer)->Unit(benchmark::kMillisecond)->Iterations(1)->UseRealTime();
BENCHMARK_MAIN();
