// Layer inspector latency (issue 5): what selecting a layer costs with a LayerCaptureRunner
// (models prepared once per analysis context) against the one-shot captureLayer (everything
// prepared on every selection). Float / QDQ pair: torchvision resnet18 from /tmp/models_q
// (QL_BENCH_FLOAT, QL_BENCH_QUANT override; skipped when missing), one batch of
// QL_BENCH_SAMPLES (8) seeded random inputs, QL_BENCH_THREADS (1: what the app's inspector
// uses) threads, 5 matched layers spread over the model.
//   OneShotCapture: captureLayer of each of the 5 layers (the inspector before the runner).
//   RunnerCaptures/M: runner creation alone, the first capture (creation + capture, runs
//                   stopping at the layer), keepValues (the inspector runs it in the background
//                   after the first capture) and each next capture of the 5 layers, plus the
//                   inspection on top; M: LayerCaptureOptions::valueCacheBytes in MiB (0: nothing
//                   kept, every capture runs both models up to the layer).
//   RunnerEqualsOneShot: not a timing; counts the 5 layers whose runner capture (values kept)
//                   differs from captureLayer (runs stopping at the layer) in any byte (0).
//   RunnerAfterToggle: a middle layer kept fp32 in a new quantized graph, the float values of
//                   the batch kept: withQuantGraph (float half shared) + capture of a later
//                   layer against create + capture, and keepValues of the new runner.
// Every figure is given as wall time and as process CPU time (all threads): on a loaded machine
// the CPU time is the steadier one.
//
// Measured 2026-11-23 on the 2-core build machine shared with two builders (load average 2.2 to
// 5.5), resnet18 PyTorch FX QDQ, 8 random samples, 1 thread; wall / CPU ms:
//   before (captureLayer preparing everything and running both models to the end, as on main):
//     0.85-1.40 s / 0.83-1.37 s per selection whatever the layer (load 2.3).
//   one-shot captureLayer now (runs stop at the layer): conv1 274 / 250, layer1.1 Add 523 / 475,
//     layer3.0 conv1 685 / 586, layer4.0 conv2 975 / 858, fc 1082 / 1013 (load 3.5).
//   runner: create 7-12 / 6-8; first capture (conv1, create included) 137 / 124; keepValues
//     (the inspector's background job) 1197 / 1082, keeping 203 MiB (22 MiB float + 3.5 MiB
//     int8 per sample; 406 MiB at 16 samples); then each next capture 1-95 / 1-91 (median
//     9 / 7) plus inspectCapture 14-82 / 13-81. Without kept values (budget 0) next captures
//     cost as much as the one-shot ones. Freeing a runner with its values: 3-53 ms (on a worker
//     in the inspector).
//   after a toggle (layer3.0 conv1 fp32, float values kept): withQuantGraph + capture of layer4.0
//   conv2
//     402 / 358 against 890 / 769 with everything prepared again; keepValues then runs only the
//     int8 model: 444 / 364.
//   RunnerEqualsOneShot: 5 of 5 layers bit-identical.
//   In the main window (bench_gui_thread, 32 samples in batches of 8, load 2.6-4.7): the first
//   inspection after the analysis 317 ms, the five next selections 5-45 ms each (request to
//   shown); GUI thread CPU per gap at most 43 ms over the whole run.

#include <benchmark/benchmark.h>
#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "analysis/session/analysis_session.h"
#include "analysis/session/keep_layers_fp32.h"
#include "analysis/explain/layer_capture.h"
#include "analysis/explain/layer_inspection.h"
#include "analysis/pairing/layer_matching.h"
#include "onnx_io/model_loader.h"

#include "bench_support.h"

namespace {

using namespace ql;
using namespace ql::analysis;
using namespace ql::bench;

// Wall and process CPU (all threads) milliseconds since construction.
class Stopwatch {
public:
    Stopwatch() : m_wall(std::chrono::steady_clock::now()), m_cpu(processCpuMs()) {}
    double wallMs() const {
        return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - m_wall)
            .count();
    }
    double cpuMs() const { return processCpuMs() - m_cpu; }

private:
    static double processCpuMs() {
        rusage u{};
        getrusage(RUSAGE_SELF, &u);
        return static_cast<double>(u.ru_utime.tv_sec + u.ru_stime.tv_sec) * 1e3 +
               static_cast<double>(u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1e3;
    }
    std::chrono::steady_clock::time_point m_wall;
    double m_cpu;
};

struct Setup {
    bool ok = false;
    std::string error;
    Graph floatGraph, quantGraph;
    std::map<std::string, Tensor> batch;
    std::vector<LayerMatch> layers;  // 5 spread over the model
    std::vector<LayerMatch> all;
    LayerCaptureOptions options;
};

Setup &setup() {
    static std::unique_ptr<Setup> s;
    if (s) return *s;
    s = std::make_unique<Setup>();
    auto f = loadModel(env("QL_BENCH_FLOAT", "/tmp/models_q/resnet18.onnx"));
    auto q = loadModel(env("QL_BENCH_QUANT", "/tmp/models_q/resnet18_qdq.onnx"));
    if (!f || !q) {
        s->error = "cannot load the models: " + f.status().message() + " " + q.status().message();
        return *s;
    }
    s->floatGraph = std::move(*f);
    s->quantGraph = std::move(*q);
    const int64_t samples = std::stoll(env("QL_BENCH_SAMPLES", "8"));
    auto data = randomEvaluationData(s->floatGraph, samples, 1, samples);
    auto matching = matchLayers(s->floatGraph, s->quantGraph);
    if (!data || !matching) {
        s->error = !data ? data.status().message() : matching.status().message();
        return *s;
    }
    s->batch = data->batches.at(0);
    s->all = matching->matches;
    const size_t n = s->all.size();
    for (size_t i = 0; i < 5 && n > 0; ++i) s->layers.push_back(s->all[i * (n - 1) / 4]);
    s->options.threads = std::stoi(env("QL_BENCH_THREADS", "1"));
    s->ok = true;
    return *s;
}

void report(const char *what, const std::string &layer, double wall, double cpu) {
    std::fprintf(stderr, "%-22s %-44s wall %8.1f ms  cpu %8.1f ms\n", what, layer.c_str(), wall,
                 cpu);
}

bool ready(benchmark::State &state) {
    if (!setup().ok) state.SkipWithError(setup().error.c_str());
    return setup().ok;
}

void OneShotCapture(benchmark::State &state) {
    if (!ready(state)) return;
    Setup &s = setup();
    std::vector<double> wall, cpu;
    for (auto _ : state)
        for (const auto &m : s.layers) {
            Stopwatch t;
            auto c = captureLayer(s.floatGraph, s.quantGraph, m, s.batch, s.options);
            wall.push_back(t.wallMs());
            cpu.push_back(t.cpuMs());
            if (!c) {
                state.SkipWithError(c.status().message().c_str());
                return;
            }
            report("one-shot captureLayer", m.floatNode, wall.back(), cpu.back());
        }
    state.counters["median_wall_ms"] = median(wall);
    state.counters["median_cpu_ms"] = median(cpu);
}

void RunnerCaptures(benchmark::State &state) {
    if (!ready(state)) return;
    Setup &s = setup();
    LayerCaptureOptions options = s.options;
    options.valueCacheBytes = static_cast<size_t>(state.range(0)) << 20;
    std::fprintf(stderr, "value cache budget %lld MiB\n", static_cast<long long>(state.range(0)));
    double cached = 0, destroyWall = 0, dropWall = 0, keepWall = 0, keepCpu = 0;
    int runs = 0;
    std::vector<double> nextWall, nextCpu, inspectWall, inspectCpu;
    double createWall = 0, createCpu = 0, firstWall = 0, firstCpu = 0, pooled = 0;
    for (auto _ : state) {
        Stopwatch first;
        auto runner = LayerCaptureRunner::create(s.floatGraph, s.quantGraph, options);
        createWall = first.wallMs();
        createCpu = first.cpuMs();
        if (!runner) {
            state.SkipWithError(runner.status().message().c_str());
            return;
        }
        auto c = (*runner)->capture(s.layers[0], s.batch);
        firstWall = first.wallMs();
        firstCpu = first.cpuMs();
        if (!c) {
            state.SkipWithError(c.status().message().c_str());
            return;
        }
        report("runner create", "", createWall, createCpu);
        report("first capture (+create)", s.layers[0].floatNode, firstWall, firstCpu);
        Stopwatch keep;
        if (Status kept = (*runner)->keepValues(s.batch); !kept.isOk()) {
            state.SkipWithError(kept.message().c_str());
            return;
        }
        keepWall = keep.wallMs();
        keepCpu = keep.cpuMs();
        report("keepValues", "", keepWall, keepCpu);
        // Each next selection: the other layers, then the first one again.
        std::vector<LayerMatch> next(s.layers.begin() + 1, s.layers.end());
        next.push_back(s.layers[0]);
        for (const auto &m : next) {
            Stopwatch t;
            auto capture = (*runner)->capture(m, s.batch);
            nextWall.push_back(t.wallMs());
            nextCpu.push_back(t.cpuMs());
            if (!capture) {
                state.SkipWithError(capture.status().message().c_str());
                return;
            }
            report("next capture", m.floatNode, nextWall.back(), nextCpu.back());
            Stopwatch i;
            auto inspection = inspectCapture(*capture);
            inspectWall.push_back(i.wallMs());
            inspectCpu.push_back(i.cpuMs());
            report("  + inspectCapture", m.floatNode, inspectWall.back(), inspectCpu.back());
            Stopwatch drop;  // the inspector drops the previous layer's capture on the GUI thread
            capture = LayerCapture();
            dropWall = std::max(dropWall, drop.wallMs());
        }
        pooled = static_cast<double>((*runner)->pooledBytes()) / (1 << 20);
        cached = static_cast<double>((*runner)->cachedBytes()) / (1 << 20);
        runs = (*runner)->modelRuns();
        Stopwatch destroy;  // where the inspector drops a runner: on the GUI thread
        runner->reset();
        destroyWall = destroy.wallMs();
        report("runner destroyed", "", destroyWall, destroy.cpuMs());
    }
    state.counters["destroy_wall_ms"] = destroyWall;
    state.counters["capture_free_max_wall_ms"] = dropWall;
    state.counters["cached_mib"] = cached;
    state.counters["model_runs"] = runs;
    state.counters["create_wall_ms"] = createWall;
    state.counters["create_cpu_ms"] = createCpu;
    state.counters["first_wall_ms"] = firstWall;
    state.counters["first_cpu_ms"] = firstCpu;
    state.counters["keep_wall_ms"] = keepWall;
    state.counters["keep_cpu_ms"] = keepCpu;
    state.counters["next_median_wall_ms"] = median(nextWall);
    state.counters["next_median_cpu_ms"] = median(nextCpu);
    state.counters["inspect_median_wall_ms"] = median(inspectWall);
    state.counters["inspect_median_cpu_ms"] = median(inspectCpu);
    state.counters["pooled_mib"] = pooled;
}

bool sameBytes(const Tensor &a, const Tensor &b) {
    if (a.defined() != b.defined()) return false;
    if (!a.defined()) return true;
    return a.dtype() == b.dtype() && a.shape() == b.shape() && a.layout() == b.layout() &&
           std::memcmp(a.rawData(), b.rawData(), a.byteSize()) == 0;
}

bool sameValues(const std::map<std::string, Tensor> &a, const std::map<std::string, Tensor> &b) {
    if (a.size() != b.size()) return false;
    for (const auto &[name, t] : a) {
        auto it = b.find(name);
        if (it == b.end() || !sameBytes(t, it->second)) return false;
    }
    return true;
}

void RunnerEqualsOneShot(benchmark::State &state) {
    if (!ready(state)) return;
    Setup &s = setup();
    int differing = 0, compared = 0;
    for (auto _ : state) {
        auto runner = LayerCaptureRunner::create(s.floatGraph, s.quantGraph, s.options);
        if (!runner || !(*runner)->keepValues(s.batch).isOk()) {
            state.SkipWithError("runner failed");
            return;
        }
        for (const auto &m : s.layers) {
            auto kept = (*runner)->capture(m, s.batch);
            auto fresh = captureLayer(s.floatGraph, s.quantGraph, m, s.batch, s.options);
            if (!kept || !fresh) {
                state.SkipWithError("capture failed");
                return;
            }
            const bool same = sameBytes(kept->floatOutput, fresh->floatOutput) &&
                              sameBytes(kept->quantOutput, fresh->quantOutput) &&
                              sameBytes(kept->quantOutputInt, fresh->quantOutputInt) &&
                              sameValues(kept->floatValues, fresh->floatValues) &&
                              sameValues(kept->quantValues, fresh->quantValues);
            ++compared;
            differing += same ? 0 : 1;
            std::fprintf(stderr, "%-44s %s\n", m.floatNode.c_str(), same ? "identical" : "DIFFERS");
        }
    }
    state.counters["layers_compared"] = compared;
    state.counters["layers_differing"] = differing;
}

void RunnerAfterToggle(benchmark::State &state) {
    if (!ready(state)) return;
    Setup &s = setup();
    auto runner = LayerCaptureRunner::create(s.floatGraph, s.quantGraph, s.options);
    if (!runner) {
        state.SkipWithError(runner.status().message().c_str());
        return;
    }
    (void)(*runner)->keepValues(s.batch);  // as the inspector does after the first capture
    Graph toggled = s.quantGraph;
    if (!keepLayersFp32(toggled, s.floatGraph, {s.layers[2]}).isOk()) {
        state.SkipWithError("keepLayersFp32 failed");
        return;
    }
    auto matching = matchLayers(s.floatGraph, toggled);
    if (!matching) {
        state.SkipWithError(matching.status().message().c_str());
        return;
    }
    const LayerMatch *layer = nullptr;
    for (const auto &m : matching->matches)
        if (m.floatNode == s.layers[3].floatNode) layer = &m;
    if (!layer) {
        state.SkipWithError("layer lost by the toggle");
        return;
    }
    double sharedWall = 0, sharedCpu = 0, freshWall = 0, freshCpu = 0, keepWall = 0, keepCpu = 0;
    for (auto _ : state) {
        Stopwatch shared;
        auto next = (*runner)->withQuantGraph(toggled, s.options);
        if (!next || !(*next)->capture(*layer, s.batch)) {
            state.SkipWithError("capture after the toggle failed");
            return;
        }
        sharedWall = shared.wallMs();
        sharedCpu = shared.cpuMs();
        report("toggle: float shared", layer->floatNode, sharedWall, sharedCpu);
        Stopwatch keep;
        (void)(*next)->keepValues(s.batch);
        keepWall = keep.wallMs();
        keepCpu = keep.cpuMs();
        report("toggle: keepValues", "", keepWall, keepCpu);
        next->reset();
        Stopwatch fresh;
        auto created = LayerCaptureRunner::create(s.floatGraph, toggled, s.options);
        if (!created || !(*created)->capture(*layer, s.batch)) {
            state.SkipWithError("capture after the toggle failed");
            return;
        }
        freshWall = fresh.wallMs();
        freshCpu = fresh.cpuMs();
        report("toggle: all prepared", layer->floatNode, freshWall, freshCpu);
    }
    state.counters["shared_float_wall_ms"] = sharedWall;
    state.counters["shared_float_cpu_ms"] = sharedCpu;
    state.counters["all_prepared_wall_ms"] = freshWall;
    state.counters["all_prepared_cpu_ms"] = freshCpu;
    state.counters["keep_after_toggle_wall_ms"] = keepWall;
    state.counters["keep_after_toggle_cpu_ms"] = keepCpu;
}

}  // namespace

BENCHMARK(OneShotCapture)->Unit(benchmark::kMillisecond)->Iterations(1)->UseRealTime();
BENCHMARK(RunnerCaptures)
    ->Unit(benchmark::kMillisecond)
    ->Iterations(1)
    ->UseRealTime()
    ->Arg(0)
    ->Arg(512);
BENCHMARK(RunnerEqualsOneShot)->Unit(benchmark::kMillisecond)->Iterations(1)->UseRealTime();
BENCHMARK(RunnerAfterToggle)->Unit(benchmark::kMillisecond)->Iterations(1)->UseRealTime();
BENCHMARK_MAIN();
