#pragma once
// Build once, run many: the plan orders the graph, instantiates one kernel per node, and
// reuses value buffers across nodes and runs. Kernels cache their oneDNN primitives, so a
// second run with the same input shapes costs only the kernels.
// A plan runs on one thread at a time (kernels keep per-shape caches), not necessarily the one
// that built it; plans on different threads are independent (oneDNN primitives take their
// scratchpad from the thread running them: kernels/dnnl_scratchpad.h).

#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "core/status.h"
#include "ir/graph.h"
#include "ir/tensor.h"

namespace ql {

class BufferPool;

// Sees a node's output right after the node ran. The tensor is plain (ONNX order) unless
// RunOptions::tapStoredLayout. Its buffer is not reused while a reference to it is kept (the pool
// hands out only unreferenced storage), so keeping the Tensor is safe but holds the memory; its
// contents never change. The plan never keeps values alive for taps.
using TapCallback = std::function<void(const Node &node, size_t outputIndex, const Tensor &value)>;
// Called between nodes; return false to cancel the run.
using ProgressCallback = std::function<bool(int done, int total)>;

struct PlanOptions {
    int threads = 0;  // 0: all hardware threads
    // Fuse Conv + activation / residual Add chains into oneDNN post-ops
    // (passes/fuse_activations.h). Faster, but the fused intermediate values are no longer seen by
    // taps.
    bool fuseOperators = false;
    // With fuseOperators: values that must stay visible to taps (fusion stops at them).
    std::set<std::string> keepVisible;
    // With fuseOperators: first fold inference BatchNormalization into the Conv, ConvTranspose or
    // Gemm before it (passes/fold_batchnorm.h), as ONNX Runtime does; exports in PyTorch's
    // training or PRESERVE mode leave BN unfused, and the fold lets the activation after it fuse
    // too. It changes results by rounding, so the analyses, which compare against the model's own
    // arithmetic, leave it off; deployment-style runs (bench, infer, latency) turn it on.
    bool foldBatchNorms = false;
    // Buffers for the plan's values. Plans that never run at the same time (e.g. many small
    // plans run one after the other on one thread) can share one pool so that their buffers are
    // reused across plans; nullptr: the plan's own pool.
    std::shared_ptr<BufferPool> bufferPool;
};

struct RunOptions {
    TapCallback tap;                              // optional
    std::function<bool(const Node &)> tapFilter;  // which nodes to tap; all when empty
    ProgressCallback progress;                    // optional
    // The tap sees each value as stored (a rank-4 value may be channels-last: Tensor::layout())
    // instead of a plain copy; saves a transpose per tapped value for callers that handle both.
    bool tapStoredLayout = false;
    // run() hands out the plan's own output tensors as stored (maybe channels-last), without a
    // copy: read them, do not write them (an output may be an initializer). Their buffers stay
    // out of the pool's reach while referenced.
    bool outputsAsStored = false;
};

// A tapFilter for the nodes that produce any of `names` (which must outlive the filter).
inline std::function<bool(const Node &)> tapNodesProducing(const std::set<std::string> &names) {
    return [&names](const Node &node) {
        for (const auto &o : node.outputs)
            if (names.count(o)) return true;
        return false;
    };
}

struct NodeTiming {
    std::string nodeName;
    std::string opType;
    double milliseconds = 0.0;
};

class ExecutionPlan {
public:
    // Fails with ErrorKind::Unsupported naming op type, node and opset for unknown ops.
    static Result<std::unique_ptr<ExecutionPlan>> create(Graph graph,
                                                         const PlanOptions &options = {});
    ~ExecutionPlan();
    ExecutionPlan(const ExecutionPlan &) = delete;
    ExecutionPlan &operator=(const ExecutionPlan &) = delete;

    // inputs: by graph input name. outputs: one plain tensor per graph output, in order (or the
    // stored tensors with RunOptions::outputsAsStored).
    Status run(const std::map<std::string, Tensor> &inputs, std::vector<Tensor> &outputs,
               const RunOptions &options = {});

    // The same run node by node, so that two plans on one thread can advance in lockstep (the
    // analysis runs the quantized plan just far enough to make the value it compares next):
    // start() (it abandons a run still open), step() until it returns false, finish(). A failed
    // step ends the run. run() is start() and finish().
    Status start(const std::map<std::string, Tensor> &inputs, const RunOptions &options = {});
    Result<bool> step();  // ran the next node; false when none is left or no run is open
    Status finish(std::vector<Tensor> &outputs);  // runs the nodes left, hands out the outputs

    const Graph &graph() const;
    // Per-node wall time of the last run when timing is enabled.
    void setTimingEnabled(bool enabled);
    const std::vector<NodeTiming> &lastTimings() const;
    // Bytes of buffers the plan currently keeps for reuse.
    size_t pooledBytes() const;

private:
    ExecutionPlan();
    struct Impl;
    std::unique_ptr<Impl> m_impl;
};

// Checks an input tensor against the graph's declared input; BadInput with a clear message.
Status checkInputMatches(const ValueInfo &declared, const Tensor &given);

}  // namespace ql
