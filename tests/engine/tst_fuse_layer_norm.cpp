// The LayerNorm fusion pass: the nine-node chain exporters write before opset 17 becomes one
// LayerNormalization that computes what the chain does, and near misses stay unfused.
#include <gtest/gtest.h>

#include <cmath>

#include "passes/fuse_layer_norm.h"
#include "qdq_test_graphs.h"
#include "runtime/execution_plan.h"
#include "test_support.h"

using namespace ql;
using namespace ql::test;

namespace {

const Shape kX{2, 5, 16};

Tensor floatScalar(float v) {
    Tensor t(DataType::Float, {});
    t.data<float>()[0] = v;
    return t;
}

struct Options {
    int opset = 13;
    std::vector<int64_t> axes{-1};
    bool gammaIsInput = false;  // gamma fed at run time instead of a constant
};

// x -> ReduceMean -> Sub -> Pow 2 -> ReduceMean -> Add eps -> Sqrt -> Div -> Mul gamma -> Add beta.
Graph layerNormChain(const Options &o) {
    Graph g;
    g.opsetVersion = o.opset;
    ValueInfo x;
    x.name = "x";
    x.dtype = DataType::Float;
    x.shape = kX;
    x.hasShape = true;
    g.inputs.push_back(x);
    g.valueInfo["x"] = x;
    if (o.gammaIsInput) {
        ValueInfo gamma = x;
        gamma.name = "gamma";
        gamma.shape = {kX.back()};
        g.inputs.push_back(gamma);
    } else {
        g.initializers["gamma"] = randomTensor({kX.back()}, 3);
    }
    g.initializers["beta"] = randomTensor({kX.back()}, 4);
    g.initializers["two"] = floatScalar(2.0f);
    g.initializers["eps"] = floatScalar(1e-5f);
    auto add = [&](const std::string &op, std::vector<std::string> ins, const std::string &out) {
        Node n;
        n.opType = op;
        n.name = "/norm/" + op + "_" + std::to_string(g.nodes.size());
        n.inputs = std::move(ins);
        n.outputs = {out};
        g.nodes.push_back(n);
        return g.nodes.size() - 1;
    };
    auto mean = [&](const std::string &in, const std::string &out) {
        if (o.opset >= 18) {
            Tensor axes(DataType::Int64, {int64_t(o.axes.size())});
            for (size_t i = 0; i < o.axes.size(); ++i) axes.data<int64_t>()[i] = o.axes[i];
            g.initializers[out + "_axes"] = axes;
            add("ReduceMean", {in, out + "_axes"}, out);
        } else {
            g.nodes[add("ReduceMean", {in}, out)].attributes["axes"] = intsAttr(o.axes);
        }
    };
    mean("x", "m");
    add("Sub", {"x", "m"}, "d");
    add("Pow", {"d", "two"}, "p");
    mean("p", "v");
    add("Add", {"v", "eps"}, "ve");
    add("Sqrt", {"ve"}, "s");
    add("Div", {"d", "s"}, "n");
    add("Mul", {"n", "gamma"}, "ng");
    add("Add", {"ng", "beta"}, "y");
    ValueInfo y;
    y.name = "y";
    g.outputs.push_back(y);
    // As shape inference gives them: full-size values and the per-row statistics.
    for (const std::string &name : {"d", "p", "n", "ng", "y", "m", "v", "ve", "s"}) {
        ValueInfo v = x;
        v.name = name;
        const bool statistic = name == "m" || name == "v" || name == "ve" || name == "s";
        if (statistic) v.shape.back() = 1;
        g.valueInfo[name] = v;
    }
    return g;
}

std::vector<Tensor> run(const Graph &g, bool fuse, const std::map<std::string, Tensor> &feeds) {
    return ql::test::run(g, feeds, PlanOptions{2, fuse});
}

void expectFusedAndEqual(const Options &o) {
    const Graph g = layerNormChain(o);
    Graph fused = g;
    ASSERT_EQ(fuseLayerNorms(fused), 1);
    ASSERT_EQ(fused.nodes.size(), 1u);
    EXPECT_EQ(fused.nodes[0].opType, "LayerNormalization");
    EXPECT_EQ(fused.nodes[0].name, g.nodes.back().name);  // the chain's last node names it
    EXPECT_FLOAT_EQ(fused.nodes[0].attrFloat("epsilon", 0.0f), 1e-5f);

    const Tensor x = randomTensor(kX, 7);
    const std::vector<Tensor> a = run(g, true, {{"x", x}}), b = run(g, false, {{"x", x}});
    ASSERT_EQ(a.size(), 1u);
    ASSERT_EQ(b.size(), 1u);
    const Tensor &gamma = g.initializers.at("gamma"), &beta = g.initializers.at("beta");
    const int64_t c = kX.back();
    for (int64_t row = 0; row < x.numel() / c; ++row) {
        double mean = 0, var = 0;
        for (int64_t j = 0; j < c; ++j) mean += x.data<float>()[row * c + j];
        mean /= double(c);
        for (int64_t j = 0; j < c; ++j) var += std::pow(x.data<float>()[row * c + j] - mean, 2);
        var /= double(c);
        for (int64_t j = 0; j < c; ++j) {
            const int64_t i = row * c + j;
            const double want = (x.data<float>()[i] - mean) / std::sqrt(var + 1e-5) *
                                    gamma.data<float>()[j] + beta.data<float>()[j];
            EXPECT_NEAR(a[0].data<float>()[i], want, 1e-5 * (1 + std::fabs(want)));
            EXPECT_NEAR(b[0].data<float>()[i], want, 1e-5 * (1 + std::fabs(want)));
        }
    }
}

TEST(FuseLayerNorm, ChainBecomesOneLayerNormalization) { expectFusedAndEqual({}); }

TEST(FuseLayerNorm, Opset18AxesInputAndPositiveLastAxis) {
    Options o;
    o.opset = 18;
    expectFusedAndEqual(o);
    Options positive;
    positive.axes = {2};  // the last axis of the rank-3 input, named by its index
    expectFusedAndEqual(positive);
}

TEST(FuseLayerNorm, NearMissesStayUnfused) {
    Options notLast;
    notLast.axes = {1};
    Graph g = layerNormChain(notLast);
    EXPECT_EQ(fuseLayerNorms(g), 0);

    Options runtimeGamma;
    runtimeGamma.gammaIsInput = true;
    g = layerNormChain(runtimeGamma);
    EXPECT_EQ(fuseLayerNorms(g), 0);

    g = layerNormChain({});
    EXPECT_EQ(fuseLayerNorms(g, {"n"}), 0);  // a tapped value inside the chain
    EXPECT_EQ(g.nodes.size(), 9u);

    g = layerNormChain({});
    ValueInfo d;
    d.name = "d";
    g.outputs.push_back(d);  // the centred value is also a model output
    EXPECT_EQ(fuseLayerNorms(g), 0);

    g = layerNormChain({});
    g.initializers["two"] = floatScalar(3.0f);  // not a variance
    EXPECT_EQ(fuseLayerNorms(g), 0);
}

}  // namespace
