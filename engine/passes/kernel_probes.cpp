#include "passes/kernel_probes.h"

#include <mutex>
#include <map>

#include "runtime/execution_plan.h"

namespace ql::probe {

namespace {

// Runs a one-node graph on input "x" and returns the first element of its output, or -1.
int runProbe(Node node, const Tensor &x, std::map<std::string, Tensor> constants) {
    Graph g;
    g.opsetVersion = 13;
    g.domainOpsets["com.microsoft"] = 1;
    ValueInfo in;
    in.name = "x";
    in.dtype = x.dtype();
    in.shape = x.shape();
    in.hasShape = true;
    g.inputs.push_back(in);
    ValueInfo out;
    out.name = "y";
    g.outputs.push_back(out);
    node.name = "probe";
    node.outputs = {"y"};
    g.nodes.push_back(node);
    g.initializers = std::move(constants);
    auto plan = ExecutionPlan::create(g, PlanOptions{1});
    if (!plan) return -1;
    std::vector<Tensor> outputs;
    if (!plan.value()->run({{"x", x}}, outputs).isOk() || outputs.size() != 1 || outputs[0].numel() < 1 ||
        outputs[0].dtype() != DataType::UInt8)
        return -1;
    return outputs[0].toPlain().data<uint8_t>()[0];
}

Attribute ints(std::vector<int64_t> v) {
    Attribute a;
    a.kind = Attribute::Kind::Ints;
    a.ints = std::move(v);
    return a;
}

// x = 1 (scale 1, zp 0) times w = -1 (int8) is -1: quantized with zp 100 that is 99, or 100
// once Relu clamps it.
bool reluProbe(const std::string &opType) {
    Node node;
    node.opType = opType;
    Attribute relu;
    relu.kind = Attribute::Kind::String;
    relu.s = "Relu";
    node.attributes["ql_activation"] = relu;
    std::map<std::string, Tensor> c;
    c["s"] = Tensor::scalar<float>(1.0f);
    c["xz"] = Tensor::scalar<uint8_t>(0);
    c["wz"] = Tensor::scalar<int8_t>(0);
    c["yz"] = Tensor::scalar<uint8_t>(100);
    Tensor x;
    if (opType == "QLinearConv") {
        c["w"] = Tensor::fromVector<int8_t>({1, 1, 1, 1}, {-1});
        node.attributes["kernel_shape"] = ints({1, 1});
        node.inputs = {"x", "s", "xz", "w", "s", "wz", "s", "yz"};
        x = Tensor::fromVector<uint8_t>({1, 1, 1, 1}, {1});
    } else {
        c["w"] = Tensor::fromVector<int8_t>({1, 1}, {-1});
        x = Tensor::fromVector<uint8_t>({1, 1}, {1});
        node.inputs = {"x", "s", "xz", "w", "s", "wz", "s", "yz"};
        if (opType == "QGemm") {
            node.domain = "com.microsoft";
            node.inputs = {"x", "s", "xz", "w", "s", "wz", "", "s", "yz"};
        }
    }
    return runProbe(node, x, c) == 100;
}

}  // namespace

bool maxPoolRunsOnUint8() {
    static const bool runs = [] {
        Node pool;
        pool.opType = "MaxPool";
        pool.inputs = {"x"};
        pool.attributes["kernel_shape"] = ints({2, 2});
        return runProbe(pool, Tensor::fromVector<uint8_t>({1, 1, 2, 2}, {3, 200, 7, 9}), {}) == 200;
    }();
    return runs;
}

bool appliesFusedActivation(const std::string &opType) {
    static std::mutex mutex;
    static std::map<std::string, bool> known;
    std::lock_guard<std::mutex> lock(mutex);
    auto it = known.find(opType);
    if (it != known.end()) return it->second;
    return known[opType] = reluProbe(opType);
}

}  // namespace ql::probe
