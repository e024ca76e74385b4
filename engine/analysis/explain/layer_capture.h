#pragma once
// One batch through both models with taps around one matched layer: the float layer's output and
// inputs, the quantized model's value for the layer (dequantized), and, in the quantized graph as
// it ran (after the int8 lowering), the layer node's inputs and outputs in their own types (the
// uint8/int8 tensors the int8 kernel read and wrote), the quantized tensors behind
// DequantizeLinear inputs, and the values of the quantized nodes folded into the layer.
// The layer inspector and the element explanation read their numbers from this capture.
//
// Running both models on the batch is most of a capture's cost (resnet18, 8 samples at
// 224x224: ~1 s of CPU; folding, lowering and plan creation: ~6 ms). A LayerCaptureRunner
// prepares the models once and stops each run after the layer's last value; once asked to
// (keepValues) it keeps every value of one run on a batch (within a budget) so that captures
// on that batch run nothing. captureLayer() is a one-shot runner.

#include <cstddef>
#include <functional>
#include <map>
#include <memory>
#include <string>

#include "analysis/pairing/layer_matching.h"
#include "analysis/pairing/quant_value.h"
#include "core/status.h"
#include "ir/graph.h"
#include "ir/tensor.h"
#include "passes/int8_kernel_mode.h"
#include "passes/precision.h"

namespace ql::analysis {

struct LayerCaptureOptions {
    Precision precision = Precision::Int8;  // how the quantized model runs
    Int8Kernels int8Kernels = Int8Kernels::Exact;
    int threads = 0;
    // LayerCaptureRunner::keepValues keeps up to this many bytes per model (every value of one
    // run on the batch); a model whose values take more keeps nothing. 0: nothing kept.
    // resnet18 at 224x224 keeps about 22 MiB (float) + 3.5 MiB (int8) per sample.
    size_t valueCacheBytes = size_t(512) << 20;
};

struct LayerCapture {
    LayerMatch match;
    Graph floatFolded;           // the float graph with constants folded
    Graph quantFolded;           // the loaded quantized graph with constants folded
    Graph quantRun;              // the quantized graph as it ran (int8 lowering applied)
    int quantRunNode = -1;       // index of the layer's node in quantRun (the lowering keeps names)
    std::string quantRunReason;  // the lowering's decision for the node ("QLinearConv", "no int8
                                 // kernel: ...")
    QuantTarget target;          // the quantized layer's output value in quantFolded
    Tensor floatOutput;          // float model's layer output, float, plain
    Tensor quantOutput;          // quantized model's layer output, dequantized, float, plain
    Tensor quantOutputInt;  // the uint8/int8 tensor behind quantOutput when seen (else undefined)
    std::map<std::string, Tensor> floatValues;  // float node inputs (non-constant), plain, own type
    std::map<std::string, Tensor> quantValues;  // quantRun values around the node, plain, own type
};

// Both models prepared once for captures of any of their layers. A capture copies the layer's
// values from those kept for the batch (keepValues), or else runs both plans on the whole
// batch up to the layer; either way the numbers equal a fresh captureLayer bit for bit.
// Thread safety: capture() may be called from any thread; captures are serialized (a plan runs
// on one thread at a time), also between runners that share the float half.
// Memory: the runner keeps both plans and their buffer pools, which hold the kept values too.
class LayerCaptureRunner {
public:
    // Both graphs as loaded (topologically sorted). Errors: constant folding, the int8 lowering
    // or a plan that cannot be built.
    static Result<std::unique_ptr<LayerCaptureRunner>> create(
        const Graph &floatGraph, const Graph &quantGraph, const LayerCaptureOptions &options = {});
    ~LayerCaptureRunner();
    LayerCaptureRunner(const LayerCaptureRunner &) = delete;
    LayerCaptureRunner &operator=(const LayerCaptureRunner &) = delete;

    // The same float model with another quantized model (e.g. after a layer was toggled to
    // fp32): shares this runner's float half (folded graph, plan, kept values and their budget)
    // when options.threads is unchanged and prepares only the quantized half.
    Result<std::unique_ptr<LayerCaptureRunner>> withQuantGraph(
        const Graph &quantGraph, const LayerCaptureOptions &options) const;
    bool sharesFloatHalfWith(const LayerCaptureRunner &other) const;

    // `batch`: graph input name -> tensor. Errors: unknown nodes, a plan that cannot run, a
    // layer value that neither model produced.
    Result<LayerCapture> capture(const LayerMatch &match,
                                 const std::map<std::string, Tensor> &batch) const;
    // Runs each model once on `batch` and keeps all its values (up to
    // LayerCaptureOptions::valueCacheBytes per model; the values of another batch are dropped)
    // unless they are kept already. Kept values are found again by the batch's tensors (same
    // storage, shape and type): do not write a batch tensor in place after using it.
    // `cancelled` is asked between nodes: true stops the run, keeps nothing and returns
    // ErrorKind::Cancelled.
    Status keepValues(const std::map<std::string, Tensor> &batch,
                      const std::function<bool()> &cancelled = {}) const;

    const LayerCaptureOptions &options() const { return m_options; }
    // Bytes the two plans keep in their buffer pools, and the values kept for later captures.
    size_t pooledBytes() const;
    size_t cachedBytes() const;
    // Plan runs so far (float and quantized; a shared float half counts for both runners).
    int modelRuns() const;

private:
    struct FloatHalf;
    struct QuantHalf;
    LayerCaptureRunner() = default;
    LayerCaptureOptions m_options;
    std::shared_ptr<FloatHalf> m_float;
    std::shared_ptr<QuantHalf> m_quant;
};

// A one-shot runner: both graphs prepared, one layer captured.
Result<LayerCapture> captureLayer(const Graph &floatGraph, const Graph &quantGraph,
                                  const LayerMatch &match,
                                  const std::map<std::string, Tensor> &batch,
                                  const LayerCaptureOptions &options = {});

}  // namespace ql::analysis
