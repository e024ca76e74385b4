#pragma once
// Small hand-built QDQ / QOperator graphs for the precision-pass tests, and helpers to run and
// inspect them.

#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "kernels/kernel.h"
#include "passes/precision_report.h"
#include "runtime/execution_plan.h"
#include "test_support.h"

namespace ql::test {

struct QdqBuilder {
    Graph g;
    std::map<std::string, Tensor> feeds;

    QdqBuilder() {
        g.opsetVersion = 13;
        g.name = "qdq";
    }
    void input(const std::string &name, const Tensor &t) {
        ValueInfo v;
        v.name = name;
        v.dtype = t.dtype();
        v.shape = t.shape();
        v.hasShape = true;
        g.inputs.push_back(v);
        feeds[name] = t;
    }
    void output(const std::string &name) {
        ValueInfo v;
        v.name = name;
        g.outputs.push_back(v);
    }
    Node &node(const std::string &op, const std::string &name, std::vector<std::string> ins,
               std::vector<std::string> outs) {
        Node n;
        n.opType = op;
        n.name = name;
        n.inputs = std::move(ins);
        n.outputs = std::move(outs);
        g.nodes.push_back(n);
        return g.nodes.back();
    }
    std::string init(const std::string &name, const Tensor &t) {
        g.initializers[name] = t;
        return name;
    }
    // QuantizeLinear(x) -> DequantizeLinear with per-tensor uint8 (or int8) parameters.
    std::string qdq(const std::string &x, float scale, int zp, bool int8 = false) {
        const std::string s = init(x + "_scale", Tensor::scalar<float>(scale));
        const std::string z = int8 ? init(x + "_zp", Tensor::scalar<int8_t>(int8_t(zp)))
                                   : init(x + "_zp", Tensor::scalar<uint8_t>(uint8_t(zp)));
        node("QuantizeLinear", "q_" + x, {x, s, z}, {x + "_q"});
        node("DequantizeLinear", "dq_" + x, {x + "_q", s, z}, {x + "_dq"});
        return x + "_dq";
    }
    std::string quantize(const std::string &x, const std::string &y, float scale, int zp, bool int8 = false) {
        const std::string s = init(y + "_scale", Tensor::scalar<float>(scale));
        const std::string z = int8 ? init(y + "_zp", Tensor::scalar<int8_t>(int8_t(zp)))
                                   : init(y + "_zp", Tensor::scalar<uint8_t>(uint8_t(zp)));
        node("QuantizeLinear", "q_" + y, {x, s, z}, {y});
        return y;
    }
    // Constant int8 weight behind a DequantizeLinear (per channel along axis 0 when several scales).
    std::string weight(const std::string &name, const Shape &shape, const std::vector<float> &scales,
                       unsigned seed) {
        Tensor w(DataType::Int8, shape);
        Tensor r = randomTensor(shape, seed, -127.0f, 127.0f);
        for (int64_t i = 0; i < w.numel(); ++i) w.data<int8_t>()[i] = int8_t(std::lround(r.data<float>()[i]));
        init(name + "_q", w);
        const int64_t n = int64_t(scales.size());
        init(name + "_scale", n == 1 ? Tensor::scalar<float>(scales[0]) : Tensor::fromVector<float>({n}, scales));
        init(name + "_zp", n == 1 ? Tensor::scalar<int8_t>(0) : Tensor::fromVector<int8_t>({n}, std::vector<int8_t>(size_t(n), 0)));
        Node &dq = node("DequantizeLinear", "dq_" + name, {name + "_q", name + "_scale", name + "_zp"}, {name});
        if (n > 1) dq.attributes["axis"] = intAttr(0);
        return name;
    }
};

inline std::vector<Tensor> run(Graph g, const std::map<std::string, Tensor> &feeds,
                               const PlanOptions &options = PlanOptions{1}) {
    auto plan = ExecutionPlan::create(std::move(g), options);
    EXPECT_TRUE(plan.isOk()) << plan.status().message();
    std::vector<Tensor> outputs;
    if (!plan) return outputs;
    Status s = plan.value()->run(feeds, outputs);
    EXPECT_TRUE(s.isOk()) << s.message();
    return outputs;
}

inline Node &mutableNode(Graph &g, const std::string &name) {
    for (Node &node : g.nodes)
        if (node.name == name) return node;
    ADD_FAILURE() << "no node " << name;
    return g.nodes.front();
}

inline const NodePrecision *entry(const PrecisionReport &r, const std::string &name) {
    for (const NodePrecision &p : r.nodes)
        if (p.node == name) return &p;
    return nullptr;
}

inline bool hasKernel(const std::string &domain, const std::string &op) {
    return KernelRegistry::instance().find(domain, op) != nullptr;
}

}  // namespace ql::test
