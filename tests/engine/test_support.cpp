#include "test_support.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <sstream>

#include "kernels/dnnl_scratchpad.h"
#include "runtime/execution_plan.h"

namespace ql::test {

namespace {

// Every oneDNN primitive takes its scratchpad from the thread running it
// (kernels/dnnl_scratchpad.h); one run with the library's fails the test program.
class ScratchpadModeCheck : public ::testing::Environment {
    void TearDown() override {
        EXPECT_EQ(dnnl_support::libraryScratchpadRuns(), 0)
            << "oneDNN primitives ran with the library's scratchpad, which crashes on a thread "
               "other than the one that created them";
    }
};
[[maybe_unused]] ::testing::Environment *const kScratchpadModeCheck =
    ::testing::AddGlobalTestEnvironment(new ScratchpadModeCheck);

}  // namespace

SingleNodeRun runSingleNode(const Node &node, const std::vector<Tensor> &inputs, size_t outputCount,
                            const std::vector<bool> &constants, int64_t opset) {
    Graph graph;
    graph.opsetVersion = opset;
    Node n = node;
    if (n.name.empty()) n.name = n.opType + "_under_test";
    n.inputs.clear();
    n.outputs.clear();
    std::map<std::string, Tensor> feeds;
    for (size_t i = 0; i < inputs.size(); ++i) {
        if (!inputs[i].defined()) {
            n.inputs.push_back("");
            continue;
        }
        const std::string name = "in" + std::to_string(i);
        n.inputs.push_back(name);
        if (i < constants.size() && constants[i]) {
            graph.initializers[name] = inputs[i];
        } else {
            ValueInfo info;
            info.name = name;
            info.dtype = inputs[i].dtype();
            graph.inputs.push_back(info);
            feeds[name] = inputs[i];
        }
    }
    for (size_t o = 0; o < outputCount; ++o) {
        n.outputs.push_back("out" + std::to_string(o));
        ValueInfo info;
        info.name = n.outputs.back();
        graph.outputs.push_back(info);
    }
    graph.nodes.push_back(n);
    SingleNodeRun result;
    auto plan = ExecutionPlan::create(graph);
    if (!plan) {
        result.status = plan.status();
        return result;
    }
    result.status = plan.value()->run(feeds, result.outputs);
    return result;
}

Node makeNode(const std::string &op, std::map<std::string, Attribute> attributes) {
    Node n;
    n.opType = op;
    n.attributes = std::move(attributes);
    return n;
}

void addNode(Graph &g, const std::string &op, const std::string &name,
             std::vector<std::string> inputs, std::vector<std::string> outputs,
             std::map<std::string, Attribute> attributes) {
    Node n = makeNode(op, std::move(attributes));
    n.name = name;
    n.inputs = std::move(inputs);
    n.outputs = std::move(outputs);
    g.nodes.push_back(std::move(n));
}

Attribute intAttr(int64_t v) { Attribute a; a.kind = Attribute::Kind::Int; a.i = v; return a; }
Attribute floatAttr(float v) { Attribute a; a.kind = Attribute::Kind::Float; a.f = v; return a; }
Attribute intsAttr(std::vector<int64_t> v) { Attribute a; a.kind = Attribute::Kind::Ints; a.ints = std::move(v); return a; }
Attribute floatsAttr(std::vector<float> v) { Attribute a; a.kind = Attribute::Kind::Floats; a.floats = std::move(v); return a; }
Attribute stringAttr(std::string v) { Attribute a; a.kind = Attribute::Kind::String; a.s = std::move(v); return a; }

Tensor randomTensor(const Shape &shape, unsigned seed, float lo, float hi) {
    Tensor t(DataType::Float, shape);
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> dist(lo, hi);
    float *p = t.data<float>();
    for (int64_t i = 0; i < t.numel(); ++i) p[i] = dist(rng);
    return t;
}

Tensor ints(const std::vector<int64_t> &values) {
    return Tensor::fromVector<int64_t>({int64_t(values.size())}, values);
}

Tensor floats(const std::vector<float> &values) {
    return Tensor::fromVector<float>({int64_t(values.size())}, values);
}

std::vector<int64_t> unravelIndex(int64_t index, const Shape &shape) {
    std::vector<int64_t> coords(shape.size());
    for (size_t d = shape.size(); d-- > 0;) {
        coords[d] = index % shape[d];
        index /= shape[d];
    }
    return coords;
}

int64_t ravelIndex(const std::vector<int64_t> &coords, const Shape &shape) {
    int64_t index = 0;
    for (size_t d = 0; d < shape.size(); ++d) index = index * shape[d] + coords[d];
    return index;
}

double maxAbsDiff(const Tensor &a, const Tensor &b) {
    double worst = 0.0;
    for (int64_t i = 0; i < a.numel() && i < b.numel(); ++i)
        worst = std::max(worst, std::fabs(a.valueAsDouble(i) - b.valueAsDouble(i)));
    return worst;
}

bool allClose(const Tensor &a, const Tensor &b, double rtol, double atol, std::string *why) {
    std::ostringstream msg;
    if (a.dtype() != b.dtype()) {
        msg << "dtype " << dataTypeName(a.dtype()) << " vs " << dataTypeName(b.dtype());
    } else if (a.shape() != b.shape()) {
        msg << "shape " << shapeToString(a.shape()) << " vs " << shapeToString(b.shape());
    } else {
        const Tensor pa = a.toPlain(), pb = b.toPlain();
        for (int64_t i = 0; i < pa.numel(); ++i) {
            const double x = pa.valueAsDouble(i), y = pb.valueAsDouble(i);
            if (std::isnan(x) && std::isnan(y)) continue;
            if (std::isinf(x) && x == y) continue;
            if (!(std::fabs(x - y) <= atol + rtol * std::fabs(y))) {
                msg << "element " << i << ": " << x << " vs expected " << y;
                break;
            }
        }
    }
    if (why) *why = msg.str();
    return msg.str().empty();
}

int countOps(const Graph &graph, const std::string &op) {
    int n = 0;
    for (const Node &node : graph.nodes) n += node.opType == op ? 1 : 0;
    return n;
}

ValueInfo floatValueInfo(const std::string &name, const Shape &shape) {
    ValueInfo v;
    v.name = name;
    v.dtype = DataType::Float;
    v.shape = shape;
    v.hasShape = true;
    v.dimNames.assign(v.shape.size(), "");
    return v;
}

}  // namespace ql::test
