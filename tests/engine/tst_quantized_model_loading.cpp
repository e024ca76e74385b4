// A QOperator-form model with com.microsoft contrib nodes passes the loader (onnx::checker does
// not know those schemas and must not reject them) and runs end to end.

#include <gtest/gtest.h>

#include <string>
#include <vector>

#ifndef ONNX_ML
#define ONNX_ML 1
#endif
#include <onnx/onnx_pb.h>

#include "onnx_io/model_loader.h"
#include "runtime/execution_plan.h"

namespace ql {
namespace {

void addScalar(onnx::GraphProto *g, const std::string &name, float value) {
    auto *t = g->add_initializer();
    t->set_name(name);
    t->set_data_type(onnx::TensorProto::FLOAT);
    t->set_raw_data(&value, sizeof value);
}

void addZeroPoint(onnx::GraphProto *g, const std::string &name, uint8_t value) {
    auto *t = g->add_initializer();
    t->set_name(name);
    t->set_data_type(onnx::TensorProto::UINT8);
    t->set_raw_data(&value, 1);
}

void addValueInfo(onnx::ValueInfoProto *v, const std::string &name, std::vector<int64_t> dims) {
    v->set_name(name);
    auto *tt = v->mutable_type()->mutable_tensor_type();
    tt->set_elem_type(onnx::TensorProto::UINT8);
    for (int64_t d : dims) tt->mutable_shape()->add_dim()->set_dim_value(d);
}

onnx::NodeProto *addNode(onnx::GraphProto *g, const std::string &op, const std::string &domain,
                         std::vector<std::string> inputs, const std::string &output) {
    auto *n = g->add_node();
    n->set_op_type(op);
    n->set_domain(domain);
    n->set_name(op + "_node");
    for (const auto &i : inputs) n->add_input(i);
    n->add_output(output);
    return n;
}

TEST(QuantizedModelLoading, ContribDomainNodesLoadAndRun) {
    onnx::ModelProto model;
    model.set_ir_version(7);
    auto *def = model.add_opset_import();
    def->set_version(13);
    auto *ms = model.add_opset_import();
    ms->set_domain("com.microsoft");
    ms->set_version(1);
    auto *g = model.mutable_graph();
    g->set_name("qoperator");
    addValueInfo(g->add_input(), "x", {1, 2, 1, 2});
    addValueInfo(g->add_output(), "z", {1, 2, 1, 1});
    addScalar(g, "xs", 0.01f);
    addZeroPoint(g, "xz", 128);
    addScalar(g, "ys", 1.0f / 256);
    addZeroPoint(g, "yz", 0);
    addNode(g, "QLinearSigmoid", "com.microsoft", {"x", "xs", "xz", "ys", "yz"}, "s");
    auto *pool = addNode(g, "MaxPool", "", {"s"}, "m");  // plain ONNX op on uint8 data
    auto *k = pool->add_attribute();
    k->set_name("kernel_shape");
    k->set_type(onnx::AttributeProto::INTS);
    k->add_ints(1);
    k->add_ints(1);
    addNode(g, "QLinearGlobalAveragePool", "com.microsoft", {"m", "ys", "yz", "ys", "yz"}, "z");

    std::string bytes;
    ASSERT_TRUE(model.SerializeToString(&bytes));
    Result<Graph> graph = loadModelFromBytes(bytes, "qoperator.onnx", "");
    ASSERT_TRUE(graph.isOk()) << graph.status().message();
    auto plan = ExecutionPlan::create(std::move(graph.value()));
    ASSERT_TRUE(plan.isOk()) << plan.status().message();

    // x per channel [128, 228] and [28, 128] -> real [0, 1] and [-1, 0]; sigmoid * 256 rounds
    // to [128, 187] and [69, 128]; channel means 157.5 -> 158 and 98.5 -> 98 (half to even).
    Tensor x = Tensor::fromVector<uint8_t>({1, 2, 1, 2}, {128, 228, 28, 128});
    std::vector<Tensor> outputs;
    Status s = plan.value()->run({{"x", x}}, outputs);
    ASSERT_TRUE(s.isOk()) << s.message();
    ASSERT_EQ(outputs.size(), 1u);
    const Tensor z = outputs[0].toPlain();
    ASSERT_EQ(z.shape(), (Shape{1, 2, 1, 1}));
    EXPECT_EQ(z.data<uint8_t>()[0], 158);
    EXPECT_EQ(z.data<uint8_t>()[1], 98);
}

}  // namespace
}  // namespace ql
