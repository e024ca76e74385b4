// Broadcasting binary kernels against a naive per-element numpy-rules reference written here.

#include <gtest/gtest.h>

#include <cmath>
#include <functional>

#include "direct_kernel_run.h"
#include "kernels/kernel.h"
#include "test_support.h"

namespace ql {
namespace {

using test::allClose;
using test::intAttr;
using test::makeNode;
using test::randomTensor;
using test::runDirect;
using test::runSingleNode;

// Numpy broadcasting by explicit index arithmetic per output element.
Shape referenceShape(const std::vector<Shape> &shapes) {
    size_t rank = 0;
    for (const Shape &s : shapes) rank = std::max(rank, s.size());
    Shape out(rank, 1);
    for (const Shape &s : shapes)
        for (size_t i = 0; i < s.size(); ++i) {
            const size_t d = rank - s.size() + i;
            if (s[i] != 1) out[d] = s[i];
        }
    return out;
}

int64_t sourceIndex(const Shape &out, int64_t flat, const Shape &in) {
    int64_t index = 0, stride = 1;
    for (size_t k = 0; k < in.size(); ++k) {
        const size_t d = out.size() - 1 - k;
        const int64_t coord = (flat /
                               [&] {
                                   int64_t s = 1;
                                   for (size_t j = d + 1; j < out.size(); ++j) s *= out[j];
                                   return s;
                               }()) %
                              out[d];
        const size_t inAxis = in.size() - 1 - k;
        if (in[inAxis] != 1) index += coord * stride;
        stride *= in[inAxis];
    }
    return index;
}

// out[i] = f(values of each input at the broadcast position), stored as `type`.
Tensor reference(const std::vector<Tensor> &inputs, DataType type,
                 const std::function<double(const std::vector<double> &)> &f) {
    std::vector<Shape> shapes;
    std::vector<Tensor> plain;
    for (const Tensor &t : inputs) {
        shapes.push_back(t.shape());
        plain.push_back(t.toPlain());
    }
    const Shape out = referenceShape(shapes);
    Tensor result(type, out);
    for (int64_t i = 0; i < result.numel(); ++i) {
        std::vector<double> args;
        for (const Tensor &t : plain)
            args.push_back(t.valueAsDouble(sourceIndex(out, i, t.shape())));
        const double v = f(args);
        switch (type) {
            case DataType::Float:
                result.data<float>()[i] = static_cast<float>(v);
                break;
            case DataType::Double:
                result.data<double>()[i] = v;
                break;
            case DataType::Int32:
                result.data<int32_t>()[i] = static_cast<int32_t>(v);
                break;
            case DataType::Int64:
                result.data<int64_t>()[i] = static_cast<int64_t>(v);
                break;
            case DataType::Bool:
                result.data<uint8_t>()[i] = v != 0;
                break;
            default:
                ADD_FAILURE() << "reference type";
        }
    }
    return result;
}

Tensor intTensor(const Shape &shape, unsigned seed, int lo, int hi,
                 DataType type = DataType::Int32) {
    Tensor f = randomTensor(shape, seed, static_cast<float>(lo), static_cast<float>(hi));
    Tensor t(type, shape);
    for (int64_t i = 0; i < t.numel(); ++i) {
        const auto v = static_cast<int64_t>(std::floor(f.data<float>()[i]));
        if (type == DataType::Int32)
            t.data<int32_t>()[i] = static_cast<int32_t>(v);
        else
            t.data<int64_t>()[i] = v;
    }
    return t;
}

const std::vector<std::pair<Shape, Shape>> &shapePairs() {
    static const std::vector<std::pair<Shape, Shape>> pairs = {
        {{2, 3, 4, 5}, {2, 3, 4, 5}},
        {{2, 3, 4, 5}, {}},
        {{}, {2, 3}},
        {{2, 3, 4, 5}, {3, 1, 1}},
        {{1, 3, 1, 5}, {2, 1, 4, 1}},
        {{3, 1, 5}, {4, 1}},
        {{5}, {2, 3, 5}},
        {{2, 1}, {1, 7}},
        {{1}, {1}},
        {{2, 0, 3}, {3}},
        {{1, 64, 56, 56}, {1, 64, 1, 1}},
        {{4, 1, 130, 130}, {130}},
    };
    return pairs;
}

struct ArithCase {
    std::string op;
    std::function<double(double, double)> f;
};

TEST(BinaryKernels, FloatArithmeticBroadcasts) {
    const std::vector<ArithCase> cases = {
        {"Add", [](double a, double b) { return a + b; }},
        {"Sub", [](double a, double b) { return a - b; }},
        {"Mul", [](double a, double b) { return a * b; }},
        {"Div", [](double a, double b) { return a / b; }},
        {"Max", [](double a, double b) { return std::max(a, b); }},
        {"Min", [](double a, double b) { return std::min(a, b); }},
        {"Pow", [](double a, double b) { return std::pow(a, b); }},
    };
    unsigned seed = 10;
    for (const ArithCase &c : cases) {
        for (const auto &[sa, sb] : shapePairs()) {
            Tensor a = randomTensor(sa, seed++, 0.5f, 2.0f);
            Tensor b = randomTensor(sb, seed++, 0.5f, 2.0f);
            auto run = runSingleNode(makeNode(c.op), {a, b});
            ASSERT_TRUE(run.status.isOk()) << c.op << ": " << run.status.message();
            Tensor expected = reference({a, b}, DataType::Float, [&](const std::vector<double> &v) {
                return c.f(v[0], v[1]);
            });
            std::string why;
            EXPECT_TRUE(allClose(run.outputs[0], expected, 1e-6, 1e-6, &why))
                << c.op << " " << shapeToString(sa) << " " << shapeToString(sb) << ": " << why;
        }
    }
}

TEST(BinaryKernels, PowScalarExponentShortcuts) {
    Tensor a = randomTensor({3, 50}, 4, -2, 2);
    for (float e : {2.0f, 0.5f, 1.0f, 3.0f}) {
        Tensor base = e == 0.5f ? randomTensor({3, 50}, 4, 0, 2) : a;
        auto run = runSingleNode(makeNode("Pow"), {base, Tensor::scalar(e)});
        ASSERT_TRUE(run.status.isOk()) << run.status.message();
        Tensor expected = reference({base}, DataType::Float, [e](const std::vector<double> &v) {
            return std::pow(v[0], double(e));
        });
        std::string why;
        EXPECT_TRUE(allClose(run.outputs[0], expected, 1e-6, 1e-6, &why)) << e << ": " << why;
    }
}

TEST(BinaryKernels, PowMixedTypes) {
    auto intBase = runSingleNode(makeNode("Pow"), {Tensor::fromVector<int32_t>({3}, {1, 2, 3}),
                                                   Tensor::fromVector<float>({3}, {4, 5, 0.5f})});
    ASSERT_TRUE(intBase.status.isOk()) << intBase.status.message();
    EXPECT_EQ(intBase.outputs[0].dtype(), DataType::Int32);
    EXPECT_EQ(intBase.outputs[0].toInt64Vector(),
              (std::vector<int64_t>{1, 32, 1}));  // 3^0.5 truncates
    auto intExp = runSingleNode(makeNode("Pow"), {Tensor::fromVector<float>({3}, {1.5f, 2, -3}),
                                                  Tensor::fromVector<int64_t>({3}, {2, 10, 3})});
    ASSERT_TRUE(intExp.status.isOk());
    EXPECT_EQ(intExp.outputs[0].dtype(), DataType::Float);
    EXPECT_EQ(intExp.outputs[0].toFloatVector(), (std::vector<float>{2.25f, 1024, -27}));
    auto ints = runSingleNode(makeNode("Pow"), {Tensor::fromVector<int64_t>({2}, {3, -2}),
                                                Tensor::fromVector<int64_t>({1}, {3})});
    ASSERT_TRUE(ints.status.isOk());
    EXPECT_EQ(ints.outputs[0].toInt64Vector(), (std::vector<int64_t>{27, -8}));
}

TEST(BinaryKernels, IntegerArithmetic) {
    Tensor a = Tensor::fromVector<int32_t>({6}, {7, -7, 7, -7, 5, -2147483647 - 1});
    Tensor b = Tensor::fromVector<int32_t>({6}, {2, 2, -2, -2, 0, -1});
    auto div = runSingleNode(makeNode("Div"), {a, b});
    ASSERT_TRUE(div.status.isOk()) << div.status.message();
    // Truncation toward zero; division by zero gives 0 instead of trapping; INT_MIN / -1 wraps.
    EXPECT_EQ(div.outputs[0].toInt64Vector(),
              (std::vector<int64_t>{3, -3, -3, 3, 0, -2147483647 - 1}));
    auto mod = runSingleNode(makeNode("Mod"), {a, b});
    ASSERT_TRUE(mod.status.isOk());
    EXPECT_EQ(mod.outputs[0].toInt64Vector(),
              (std::vector<int64_t>{1, 1, -1, -1, 0, 0}));  // sign of divisor
    auto fmod = runSingleNode(makeNode("Mod", {{"fmod", intAttr(1)}}), {a, b});
    ASSERT_TRUE(fmod.status.isOk());
    EXPECT_EQ(fmod.outputs[0].toInt64Vector(),
              (std::vector<int64_t>{1, -1, 1, -1, 0, 0}));  // sign of dividend
    auto add = runSingleNode(makeNode("Add"), {Tensor::fromVector<uint8_t>({2}, {250, 3}),
                                               Tensor::fromVector<uint8_t>({2}, {10, 4})});
    ASSERT_TRUE(add.status.isOk());
    EXPECT_EQ(add.outputs[0].dtype(), DataType::UInt8);
    EXPECT_EQ(add.outputs[0].toInt64Vector(), (std::vector<int64_t>{4, 7}));  // wraps like numpy
    auto sub = runSingleNode(makeNode("Sub"), {Tensor::fromVector<int8_t>({2}, {-128, 5}),
                                               Tensor::fromVector<int8_t>({2}, {1, 9})});
    ASSERT_TRUE(sub.status.isOk());
    EXPECT_EQ(sub.outputs[0].toInt64Vector(), (std::vector<int64_t>{127, -4}));
}

TEST(BinaryKernels, IntegerBroadcastMatchesReference) {
    for (const auto &[sa, sb] : shapePairs()) {
        Tensor a = intTensor(sa, 1, -50, 50, DataType::Int64);
        Tensor b = intTensor(sb, 2, 1, 9, DataType::Int64);
        auto mul = runSingleNode(makeNode("Mul"), {a, b});
        ASSERT_TRUE(mul.status.isOk()) << mul.status.message();
        std::string why;
        EXPECT_TRUE(allClose(mul.outputs[0],
                             reference({a, b}, DataType::Int64,
                                       [](const std::vector<double> &v) { return v[0] * v[1]; }),
                             0, 0, &why))
            << why;
        auto mod = runSingleNode(makeNode("Mod"), {a, b});
        ASSERT_TRUE(mod.status.isOk());
        EXPECT_TRUE(allClose(mod.outputs[0],
                             reference({a, b}, DataType::Int64,
                                       [](const std::vector<double> &v) {
                                           const double r = std::fmod(v[0], v[1]);
                                           return (r != 0 && (r < 0) != (v[1] < 0)) ? r + v[1] : r;
                                       }),
                             0, 0, &why))
            << why;
    }
}

TEST(BinaryKernels, FloatMod) {
    Tensor a = Tensor::fromVector<float>({4}, {5.5f, -5.5f, 5.5f, -5.5f});
    Tensor b = Tensor::fromVector<float>({4}, {2, 2, -2, -2});
    auto fmod = runSingleNode(makeNode("Mod", {{"fmod", intAttr(1)}}), {a, b});
    ASSERT_TRUE(fmod.status.isOk());
    EXPECT_EQ(fmod.outputs[0].toFloatVector(), (std::vector<float>{1.5f, -1.5f, 1.5f, -1.5f}));
    auto pymod = runSingleNode(makeNode("Mod"), {a, b});
    ASSERT_TRUE(pymod.status.isOk());
    EXPECT_EQ(pymod.outputs[0].toFloatVector(), (std::vector<float>{1.5f, 0.5f, -0.5f, -1.5f}));
}

TEST(BinaryKernels, ComparisonsGiveBool) {
    const std::vector<std::pair<std::string, std::function<bool(double, double)>>> cases = {
        {"Equal", [](double a, double b) { return a == b; }},
        {"Less", [](double a, double b) { return a < b; }},
        {"Greater", [](double a, double b) { return a > b; }},
        {"LessOrEqual", [](double a, double b) { return a <= b; }},
        {"GreaterOrEqual", [](double a, double b) { return a >= b; }},
    };
    for (const auto &[op, f] : cases) {
        for (const auto &[sa, sb] : shapePairs()) {
            for (DataType type : {DataType::Int32, DataType::Float}) {
                Tensor a = intTensor(sa, 3, -3, 3), b = intTensor(sb, 4, -3, 3);
                if (type == DataType::Float) {
                    a = reference({a}, DataType::Float,
                                  [](const std::vector<double> &v) { return v[0] * 0.5; });
                    b = reference({b}, DataType::Float,
                                  [](const std::vector<double> &v) { return v[0] * 0.5; });
                }
                auto run = runSingleNode(makeNode(op), {a, b});
                ASSERT_TRUE(run.status.isOk()) << op << ": " << run.status.message();
                std::string why;
                EXPECT_TRUE(allClose(run.outputs[0],
                                     reference({a, b}, DataType::Bool,
                                               [&compare = f](const std::vector<double> &v) {
                                                   return compare(v[0], v[1]) ? 1.0 : 0.0;
                                               }),
                                     0, 0, &why))
                    << op << " " << shapeToString(sa) << " " << shapeToString(sb) << ": " << why;
            }
        }
    }
}

TEST(BinaryKernels, LogicOpsOnBool) {
    Tensor a = Tensor::fromVector<bool>({2, 2}, {true, true, false, false});
    Tensor b = Tensor::fromVector<bool>({2}, {true, false});
    const std::vector<std::pair<std::string, std::vector<int64_t>>> cases = {
        {"And", {1, 0, 0, 0}},
        {"Or", {1, 1, 1, 0}},
        {"Xor", {0, 1, 1, 0}},
        {"Equal", {1, 0, 0, 1}}};
    for (const auto &[op, expected] : cases) {
        auto run = runSingleNode(makeNode(op), {a, b});
        ASSERT_TRUE(run.status.isOk()) << op << ": " << run.status.message();
        EXPECT_EQ(run.outputs[0].dtype(), DataType::Bool);
        EXPECT_EQ(run.outputs[0].toInt64Vector(), expected) << op;
    }
    auto floats = runSingleNode(makeNode("And"), {randomTensor({2}, 1), randomTensor({2}, 2)});
    EXPECT_EQ(floats.status.kind(), ErrorKind::Unsupported);
    auto boolLess = runSingleNode(makeNode("Less"), {a, b});
    EXPECT_EQ(boolLess.status.kind(), ErrorKind::Unsupported);
}

TEST(BinaryKernels, WhereBroadcastsThreeWays) {
    Tensor cond(DataType::Bool, {2, 1, 4});
    for (int64_t i = 0; i < cond.numel(); ++i) cond.data<uint8_t>()[i] = (i * 7) % 3 == 0;
    for (DataType type : {DataType::Float, DataType::Int64}) {
        Tensor x = type == DataType::Float ? randomTensor({3, 1}, 5)
                                           : intTensor({3, 1}, 5, -9, 9, DataType::Int64);
        Tensor y = type == DataType::Float ? randomTensor({4}, 6)
                                           : intTensor({4}, 6, -9, 9, DataType::Int64);
        auto run = runSingleNode(makeNode("Where"), {cond, x, y});
        ASSERT_TRUE(run.status.isOk()) << run.status.message();
        std::string why;
        EXPECT_TRUE(allClose(
            run.outputs[0],
            reference({cond, x, y}, type,
                      [](const std::vector<double> &v) { return v[0] != 0 ? v[1] : v[2]; }),
            0, 0, &why))
            << why;
    }
    auto big =
        runSingleNode(makeNode("Where"), {Tensor::fromVector<bool>({1}, {true}),
                                          randomTensor({300, 300}, 1), randomTensor({300}, 2)});
    ASSERT_TRUE(big.status.isOk());
    EXPECT_EQ(big.outputs[0].shape(), (Shape{300, 300}));
    auto badCond = runSingleNode(
        makeNode("Where"), {randomTensor({2}, 1), randomTensor({2}, 2), randomTensor({2}, 3)});
    EXPECT_EQ(badCond.status.kind(), ErrorKind::BadInput);
}

TEST(BinaryKernels, VariadicOps) {
    Tensor a = randomTensor({2, 3, 4}, 1), b = randomTensor({3, 1}, 2), c = randomTensor({4}, 3);
    const std::vector<std::pair<std::string, std::function<double(const std::vector<double> &)>>>
        cases = {
            {"Sum", [](const std::vector<double> &v) { return v[0] + v[1] + v[2]; }},
            {"Mean", [](const std::vector<double> &v) { return (v[0] + v[1] + v[2]) / 3; }},
            {"Max",
             [](const std::vector<double> &v) { return std::max(v[0], std::max(v[1], v[2])); }},
            {"Min",
             [](const std::vector<double> &v) { return std::min(v[0], std::min(v[1], v[2])); }},
        };
    for (const auto &[op, f] : cases) {
        // The largest input last and first: the fold must broadcast either way.
        for (const std::vector<Tensor> &inputs :
             {std::vector<Tensor>{a, b, c}, std::vector<Tensor>{c, b, a}}) {
            auto run = runSingleNode(makeNode(op), inputs);
            ASSERT_TRUE(run.status.isOk()) << op << ": " << run.status.message();
            std::string why;
            EXPECT_TRUE(
                allClose(run.outputs[0], reference(inputs, DataType::Float, f), 1e-6, 1e-6, &why))
                << op << ": " << why;
        }
        auto single = runSingleNode(makeNode(op), {a});
        ASSERT_TRUE(single.status.isOk());
        EXPECT_EQ(single.outputs[0].toFloatVector(), a.toFloatVector());
    }
    auto intMean =
        runSingleNode(makeNode("Mean"), {intTensor({2}, 1, 0, 5), intTensor({2}, 2, 0, 5)});
    EXPECT_EQ(intMean.status.kind(), ErrorKind::Unsupported);
}

TEST(BinaryKernels, Float16MaxComputesInFloat) {
    Tensor a(DataType::Float16, {3}), b(DataType::Float16, {3});
    const float av[] = {1.5f, -2.0f, 0.25f}, bv[] = {0.5f, -1.0f, 0.75f};
    for (int i = 0; i < 3; ++i) {
        a.data<uint16_t>()[i] = floatToHalf(av[i]);
        b.data<uint16_t>()[i] = floatToHalf(bv[i]);
    }
    auto run = runSingleNode(makeNode("Max"), {a, b});
    ASSERT_TRUE(run.status.isOk()) << run.status.message();
    EXPECT_EQ(run.outputs[0].dtype(), DataType::Float16);
    EXPECT_EQ(run.outputs[0].toFloatVector(), (std::vector<float>{1.5f, -1.0f, 0.75f}));
    auto less = runSingleNode(makeNode("Less"), {a, b});
    ASSERT_TRUE(less.status.isOk());
    EXPECT_EQ(less.outputs[0].toInt64Vector(), (std::vector<int64_t>{0, 1, 1}));
}

TEST(BinaryKernels, PReluForms) {
    auto prelu = [](const std::vector<double> &v) { return v[0] < 0 ? v[0] * v[1] : v[0]; };
    Tensor x = randomTensor({2, 3, 4, 5}, 1, -2, 2);
    Tensor slope = randomTensor({3, 1, 1}, 2);
    auto numpyForm = runSingleNode(makeNode("PRelu"), {x, slope});
    ASSERT_TRUE(numpyForm.status.isOk()) << numpyForm.status.message();
    std::string why;
    EXPECT_TRUE(allClose(numpyForm.outputs[0], reference({x, slope}, DataType::Float, prelu), 1e-6,
                         1e-6, &why))
        << why;
    // Before opset 7 a 1-D slope is per channel; later opsets read it so only when numpy fails.
    Tensor channel = randomTensor({3}, 3);
    for (int64_t opset : {6, 16}) {
        auto run = runSingleNode(makeNode("PRelu"), {x, channel}, 1, {false, true}, opset);
        ASSERT_TRUE(run.status.isOk()) << run.status.message();
        EXPECT_TRUE(allClose(run.outputs[0],
                             reference({x, channel.reshaped({3, 1, 1})}, DataType::Float, prelu),
                             1e-6, 1e-6, &why))
            << opset << ": " << why;
    }
    Tensor x3 = randomTensor({2, 3, 3}, 4, -2, 2);
    auto trailing =
        runSingleNode(makeNode("PRelu"), {x3, channel}, 1, {}, 16);  // numpy reading: last axis
    ASSERT_TRUE(trailing.status.isOk());
    EXPECT_TRUE(allClose(trailing.outputs[0], reference({x3, channel}, DataType::Float, prelu),
                         1e-6, 1e-6, &why))
        << why;
    auto oldChannel = runSingleNode(makeNode("PRelu"), {x3, channel}, 1, {}, 6);  // opset 6: axis 1
    ASSERT_TRUE(oldChannel.status.isOk());
    EXPECT_TRUE(allClose(oldChannel.outputs[0],
                         reference({x3, channel.reshaped({3, 1})}, DataType::Float, prelu), 1e-6,
                         1e-6, &why))
        << why;
    auto grows = runSingleNode(makeNode("PRelu"), {randomTensor({3}, 1), randomTensor({2, 3}, 2)});
    EXPECT_EQ(grows.status.kind(), ErrorKind::BadInput);
}

TEST(BinaryKernels, LegacyBroadcastAttributes) {
    Tensor a = randomTensor({2, 3, 4}, 1);
    Tensor b = randomTensor({3}, 2);
    auto run = runSingleNode(makeNode("Add", {{"broadcast", intAttr(1)}, {"axis", intAttr(1)}}),
                             {a, b}, 1, {}, 6);
    ASSERT_TRUE(run.status.isOk()) << run.status.message();
    std::string why;
    EXPECT_TRUE(allClose(run.outputs[0],
                         reference({a, b.reshaped({3, 1})}, DataType::Float,
                                   [](const std::vector<double> &v) { return v[0] + v[1]; }),
                         1e-6, 1e-6, &why))
        << why;
    Tensor c = randomTensor({3, 4}, 3);
    auto suffix = runSingleNode(makeNode("Mul", {{"broadcast", intAttr(1)}}), {a, c}, 1, {}, 6);
    ASSERT_TRUE(suffix.status.isOk());
    EXPECT_TRUE(allClose(suffix.outputs[0],
                         reference({a, c}, DataType::Float,
                                   [](const std::vector<double> &v) { return v[0] * v[1]; }),
                         1e-6, 1e-6, &why))
        << why;
    auto bad = runSingleNode(makeNode("Add", {{"broadcast", intAttr(1)}, {"axis", intAttr(2)}}),
                             {a, c}, 1, {}, 6);
    EXPECT_EQ(bad.status.kind(), ErrorKind::BadInput);
    // From opset 7 on the attributes are gone and numpy rules apply.
    auto modern = runSingleNode(makeNode("Add", {{"broadcast", intAttr(1)}, {"axis", intAttr(1)}}),
                                {a, b}, 1, {}, 7);
    EXPECT_EQ(modern.status.kind(), ErrorKind::BadInput);
}

TEST(BinaryKernels, ErrorsNameShapesAndTypes) {
    auto run = runSingleNode(makeNode("Add"), {randomTensor({2, 3}, 1), randomTensor({4}, 2)});
    EXPECT_EQ(run.status.kind(), ErrorKind::BadInput);
    EXPECT_NE(run.status.message().find("[2,3]"), std::string::npos) << run.status.message();
    EXPECT_NE(run.status.message().find("[4]"), std::string::npos) << run.status.message();
    auto types = runSingleNode(makeNode("Mul"), {randomTensor({2}, 1), intTensor({2}, 2, 0, 3)});
    EXPECT_EQ(types.status.kind(), ErrorKind::BadInput);
    EXPECT_NE(types.status.message().find("int32"), std::string::npos) << types.status.message();
    auto boolAdd = runSingleNode(makeNode("Add"), {Tensor::fromVector<bool>({1}, {true}),
                                                   Tensor::fromVector<bool>({1}, {true})});
    EXPECT_EQ(boolAdd.status.kind(), ErrorKind::Unsupported);
}

TEST(BinaryKernels, ChannelsLastPhysicalPaths) {
    auto add = [](const std::vector<double> &v) { return v[0] + v[1]; };
    auto mul = [](const std::vector<double> &v) { return v[0] * v[1]; };
    Tensor x = randomTensor({2, 16, 9, 7}, 1);
    struct Case {
        std::string op;
        Tensor a, b;
        bool aCl, bCl;
        Layout expected;
    };
    const std::vector<Case> cases = {
        {"Add", x, randomTensor({2, 16, 9, 7}, 2), true, true,
         Layout::ChannelsLast},  // residual add
        {"Mul", x, randomTensor({2, 16, 1, 1}, 3), true, false, Layout::ChannelsLast},  // SE block
        {"Mul", randomTensor({1, 16, 1, 1}, 4), x, false, true, Layout::ChannelsLast},
        {"Add", x, randomTensor({16, 1, 1}, 5), true, false, Layout::ChannelsLast},  // bias-like
        {"Add", x, Tensor::scalar(0.5f), true, false, Layout::ChannelsLast},
        {"Add", x, randomTensor({2, 1, 9, 7}, 6), true, false, Layout::ChannelsLast},  // C == 1
        {"Add", x, randomTensor({2, 16, 1, 1}, 7), true, true, Layout::ChannelsLast},
        {"Add", x, randomTensor({2, 16, 9, 7}, 8), true, false, Layout::Plain},  // falls back
        {"Mul", x, randomTensor({7}, 9), true, false, Layout::ChannelsLast},  // [1,1,1,7]: C == 1
        {"Mul", x, randomTensor({16, 9, 1}, 12), true, false, Layout::Plain},
        {"Add", x, randomTensor({3, 2, 16, 9, 7}, 10), true, false,
         Layout::Plain},  // rank 5 output
    };
    for (const Case &c : cases) {
        Tensor a = c.aCl ? c.a.toChannelsLast() : c.a;
        Tensor b = c.bCl ? c.b.toChannelsLast() : c.b;
        auto run = runDirect(makeNode(c.op), {a, b});
        ASSERT_TRUE(run.status.isOk()) << run.status.message();
        EXPECT_EQ(run.outputs[0].layout(), c.expected) << c.op << " " << shapeToString(c.b.shape());
        std::string why;
        EXPECT_TRUE(allClose(run.outputs[0].toPlain(),
                             reference({c.a, c.b}, DataType::Float, c.op == "Add" ? add : mul),
                             1e-6, 1e-6, &why))
            << c.op << " " << shapeToString(c.b.shape()) << ": " << why;
    }
    Tensor slope = randomTensor({16, 1, 1}, 11);
    auto prelu = runDirect(makeNode("PRelu"), {x.toChannelsLast(), slope});
    ASSERT_TRUE(prelu.status.isOk());
    EXPECT_EQ(prelu.outputs[0].layout(), Layout::ChannelsLast);
    std::string why;
    EXPECT_TRUE(allClose(
        prelu.outputs[0].toPlain(),
        reference({x, slope}, DataType::Float,
                  [](const std::vector<double> &v) { return v[0] < 0 ? v[0] * v[1] : v[0]; }),
        1e-6, 1e-6, &why))
        << why;
    // Comparisons and Where take plain inputs only.
    auto less = runDirect(makeNode("Less"), {x.toChannelsLast(), Tensor::scalar(0.0f)});
    ASSERT_TRUE(less.status.isOk());
    EXPECT_EQ(less.outputs[0].layout(), Layout::Plain);
}

TEST(BinaryKernels, LargeBroadcastsUseAllPaths) {
    // Big enough for the parallel split, which starts threads in the middle of rows.
    const std::vector<std::pair<Shape, Shape>> pairs = {{{1, 64, 56, 56}, {1, 64, 56, 56}},
                                                        {{1, 64, 56, 56}, {1, 64, 1, 1}},
                                                        {{1, 64, 56, 56}, {56}},
                                                        {{3, 1, 200, 1}, {1, 77, 1, 13}},
                                                        {{130000}, {}},
                                                        {{}, {130001}},
                                                        // short rows: row strides n, 0 and 1
                                                        {{4000, 24}, {24}},
                                                        {{4000, 24}, {4000, 1}},
                                                        {{4000, 1}, {1, 24}},
                                                        {{0, 24}, {24}},
                                                        {{24, 0}, {1, 0}}};
    for (const auto &[sa, sb] : pairs) {
        Tensor a = randomTensor(sa, 1), b = randomTensor(sb, 2);
        auto run = runSingleNode(makeNode("Sub"), {a, b});
        ASSERT_TRUE(run.status.isOk()) << run.status.message();
        std::string why;
        EXPECT_TRUE(allClose(run.outputs[0],
                             reference({a, b}, DataType::Float,
                                       [](const std::vector<double> &v) { return v[0] - v[1]; }),
                             1e-6, 1e-6, &why))
            << shapeToString(sa) << " " << shapeToString(sb) << ": " << why;
    }
}

}  // namespace
}  // namespace ql
