// Unary kernels against naive references written here (double precision std:: math).

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <functional>

#include "direct_kernel_run.h"
#include "kernels/elementwise_vector.h"
#include "kernels/kernel.h"
#include "test_support.h"

namespace ql {
namespace {

using test::allClose;
using test::floatAttr;
using test::intAttr;
using test::makeNode;
using test::randomTensor;
using test::runDirect;
using test::runSingleNode;
using test::stringAttr;

Tensor mapReference(const Tensor &x, const std::function<double(double)> &f) {
    Tensor plain = x.toPlain();
    Tensor out(x.dtype(), x.shape());
    for (int64_t i = 0; i < x.numel(); ++i) {
        const double v = f(plain.valueAsDouble(i));
        if (x.dtype() == DataType::Float)
            out.data<float>()[i] = static_cast<float>(v);
        else if (x.dtype() == DataType::Double)
            out.data<double>()[i] = v;
    }
    return out;
}

struct UnaryCase {
    std::string op;
    std::map<std::string, Attribute> attrs;
    float lo, hi;
    std::function<double(double)> ref;
};

std::vector<UnaryCase> unaryCases() {
    // Attributes are float32, so the references use the float-rounded constants.
    const double gamma = 1.05070102214813232421875, selu = gamma * 1.67326319217681884765625;
    return {
        {"Relu", {}, -3, 3, [](double x) { return x > 0 ? x : 0; }},
        {"LeakyRelu",
         {{"alpha", floatAttr(0.2f)}},
         -3,
         3,
         [](double x) { return x < 0 ? double(0.2f) * x : x; }},
        {"LeakyRelu", {}, -3, 3, [](double x) { return x < 0 ? double(0.01f) * x : x; }},
        {"Sigmoid", {}, -8, 8, [](double x) { return 1 / (1 + std::exp(-x)); }},
        {"Tanh", {}, -4, 4, [](double x) { return std::tanh(x); }},
        {"HardSigmoid",
         {{"alpha", floatAttr(0.3f)}, {"beta", floatAttr(0.4f)}},
         -4,
         4,
         [](double x) { return std::max(0.0, std::min(1.0, double(0.3f) * x + double(0.4f))); }},
        {"HardSwish",
         {},
         -5,
         5,
         [](double x) { return x * std::max(0.0, std::min(1.0, x / 6 + 0.5)); }},
        {"Erf", {}, -4, 4, [](double x) { return std::erf(x); }},
        {"Gelu", {}, -5, 5, [](double x) { return 0.5 * x * (1 + std::erf(x / std::sqrt(2.0))); }},
        {"Gelu",
         {{"approximate", stringAttr("tanh")}},
         -5,
         5,
         [](double x) {
             return 0.5 * x * (1 + std::tanh(std::sqrt(2 / M_PI) * (x + 0.044715 * x * x * x)));
         }},
        {"Sqrt", {}, 0, 9, [](double x) { return std::sqrt(x); }},
        {"Exp", {}, -10, 10, [](double x) { return std::exp(x); }},
        {"Log", {}, 0.01f, 50, [](double x) { return std::log(x); }},
        {"Neg", {}, -3, 3, [](double x) { return -x; }},
        {"Abs", {}, -3, 3, [](double x) { return std::fabs(x); }},
        {"Reciprocal", {}, 0.5f, 4, [](double x) { return 1 / x; }},
        {"Floor", {}, -5, 5, [](double x) { return std::floor(x); }},
        {"Ceil", {}, -5, 5, [](double x) { return std::ceil(x); }},
        {"Round", {}, -5, 5, [](double x) { return std::nearbyint(x); }},
        {"Softplus", {}, -30, 30, [](double x) { return std::log(1 + std::exp(x)); }},
        {"Softsign", {}, -5, 5, [](double x) { return x / (1 + std::fabs(x)); }},
        {"Elu",
         {{"alpha", floatAttr(0.5f)}},
         -4,
         4,
         [](double x) { return x < 0 ? 0.5 * (std::exp(x) - 1) : x; }},
        {"Selu",
         {},
         -4,
         4,
         [=](double x) { return x <= 0 ? selu * (std::exp(x) - 1) : gamma * x; }},
        {"Celu",
         {{"alpha", floatAttr(2.0f)}},
         -4,
         4,
         [](double x) { return std::max(0.0, x) + std::min(0.0, 2 * (std::exp(x / 2) - 1)); }},
        {"ThresholdedRelu",
         {{"alpha", floatAttr(0.5f)}},
         -2,
         2,
         [](double x) { return x > 0.5 ? x : 0; }},
        {"Sign", {}, -2, 2, [](double x) { return x > 0 ? 1 : (x < 0 ? -1 : 0); }},
        {"Sin", {}, -6, 6, [](double x) { return std::sin(x); }},
        {"Cos", {}, -6, 6, [](double x) { return std::cos(x); }},
        {"Tan", {}, -1.4f, 1.4f, [](double x) { return std::tan(x); }},
        {"Atan", {}, -6, 6, [](double x) { return std::atan(x); }},
        {"Asin", {}, -0.99f, 0.99f, [](double x) { return std::asin(x); }},
        {"Acosh", {}, 1, 9, [](double x) { return std::acosh(x); }},
        {"Mish", {}, -6, 6, [](double x) { return x * std::tanh(std::log(1 + std::exp(x))); }},
        {"Shrink",
         {{"lambd", floatAttr(1.0f)}, {"bias", floatAttr(0.25f)}},
         -3,
         3,
         [](double x) { return x < -1 ? x + 0.25 : (x > 1 ? x - 0.25 : 0); }},
    };
}

// Small tensors take the plain loop, large ones the oneDNN / OpenMP path; both must agree.
TEST(ElementwiseKernels, FloatOpsMatchReferenceSmallAndLarge) {
    unsigned seed = 1;
    for (const UnaryCase &c : unaryCases()) {
        for (const Shape &shape : {Shape{2, 3, 4, 5}, Shape{2, 16, 48, 48}}) {
            Tensor x = randomTensor(shape, seed++, c.lo, c.hi);
            auto run = runSingleNode(makeNode(c.op, c.attrs), {x});
            ASSERT_TRUE(run.status.isOk()) << c.op << ": " << run.status.message();
            std::string why;
            EXPECT_TRUE(allClose(run.outputs[0], mapReference(x, c.ref), 1e-4, 1e-5, &why))
                << c.op << " " << shapeToString(shape) << ": " << why;
        }
    }
}

TEST(ElementwiseKernels, DoubleInputsComputeInDouble) {
    for (const UnaryCase &c : unaryCases()) {
        Tensor x = randomTensor({3, 7}, 99, c.lo, c.hi);
        Tensor xd(DataType::Double, x.shape());
        for (int64_t i = 0; i < x.numel(); ++i) xd.data<double>()[i] = x.data<float>()[i];
        auto run = runSingleNode(makeNode(c.op, c.attrs), {xd});
        ASSERT_TRUE(run.status.isOk()) << c.op << ": " << run.status.message();
        std::string why;
        EXPECT_TRUE(allClose(run.outputs[0], mapReference(xd, c.ref), 1e-9, 1e-9, &why))
            << c.op << ": " << why;
    }
}

TEST(ElementwiseKernels, ChannelsLastInputKeepsLayout) {
    for (const UnaryCase &c : unaryCases()) {
        for (const Shape &shape : {Shape{1, 5, 3, 4}, Shape{2, 8, 16, 20}}) {
            Tensor x = randomTensor(shape, 5, c.lo, c.hi);
            auto run = runDirect(makeNode(c.op, c.attrs), {x.toChannelsLast()});
            ASSERT_TRUE(run.status.isOk()) << c.op << ": " << run.status.message();
            EXPECT_EQ(run.outputs[0].layout(), Layout::ChannelsLast) << c.op;
            std::string why;
            EXPECT_TRUE(
                allClose(run.outputs[0].toPlain(), mapReference(x, c.ref), 1e-4, 1e-5, &why))
                << c.op << ": " << why;
        }
    }
}

// The vectorised float loops over a dense grid; odd lengths exercise the padded tail.
TEST(ElementwiseKernels, VectorisedFloatFunctionsAreAccurate) {
    struct Case {
        const char *name;
        elementwise::FloatBulkFn fn;
        double (*ref)(double);
        float lo, hi;
        double absTol, relTol;
    };
    const Case cases[] = {
        {"erf", elementwise::erfFloat, [](double x) { return std::erf(x); }, -6, 6, 5e-7, 0},
        {"exp", elementwise::expFloat, [](double x) { return std::exp(x); }, -87, 88, 0, 5e-7},
        {"sigmoid", elementwise::sigmoidFloat, [](double x) { return 1 / (1 + std::exp(-x)); }, -80,
         80, 0, 5e-7},
        {"tanh", elementwise::tanhFloat, [](double x) { return std::tanh(x); }, -12, 12, 0, 5e-7},
    };
    for (const Case &c : cases) {
        const int64_t n = 200003;
        std::vector<float> x(n), y(n);
        for (int64_t i = 0; i < n; ++i)
            x[i] = c.lo + (c.hi - c.lo) * static_cast<float>(i) / (n - 1);
        c.fn(x.data(), y.data(), n);
        for (int64_t i = 0; i < n; ++i) {
            const double expected = c.ref(x[i]);
            ASSERT_LE(std::fabs(y[i] - expected), c.absTol + c.relTol * std::fabs(expected))
                << c.name << "(" << x[i] << ") = " << y[i] << ", expected " << expected;
        }
    }
    // Relative accuracy of erf and tanh near zero, where both are ~linear.
    const float tiny[] = {1e-6f, -3e-5f, 1e-3f};
    float out[3];
    elementwise::erfFloat(tiny, out, 3);
    for (int i = 0; i < 3; ++i)
        EXPECT_NEAR(out[i], std::erf(double(tiny[i])), 1e-6 * std::fabs(tiny[i]));
    elementwise::tanhFloat(tiny, out, 3);
    for (int i = 0; i < 3; ++i)
        EXPECT_NEAR(out[i], std::tanh(double(tiny[i])), 1e-6 * std::fabs(tiny[i]));
}

TEST(ElementwiseKernels, IntegerOps) {
    Tensor x = Tensor::fromVector<int32_t>({6}, {-5, -1, 0, 1, 7, -2147483647 - 1});
    auto relu = runSingleNode(makeNode("Relu"), {x});
    ASSERT_TRUE(relu.status.isOk()) << relu.status.message();
    EXPECT_EQ(relu.outputs[0].toInt64Vector(), (std::vector<int64_t>{0, 0, 0, 1, 7, 0}));
    auto neg = runSingleNode(makeNode("Neg"), {x});
    ASSERT_TRUE(neg.status.isOk());
    EXPECT_EQ(neg.outputs[0].toInt64Vector(),
              (std::vector<int64_t>{5, 1, 0, -1, -7, -2147483647 - 1}));
    auto abs = runSingleNode(makeNode("Abs"), {Tensor::fromVector<int8_t>({3}, {-5, 3, -128})});
    ASSERT_TRUE(abs.status.isOk());
    EXPECT_EQ(abs.outputs[0].dtype(), DataType::Int8);
    EXPECT_EQ(abs.outputs[0].toInt64Vector(), (std::vector<int64_t>{5, 3, -128}));
    auto sign = runSingleNode(makeNode("Sign"), {Tensor::fromVector<int64_t>({3}, {-9, 0, 4})});
    ASSERT_TRUE(sign.status.isOk());
    EXPECT_EQ(sign.outputs[0].toInt64Vector(), (std::vector<int64_t>{-1, 0, 1}));
    auto usign = runSingleNode(makeNode("Sign"), {Tensor::fromVector<uint8_t>({2}, {0, 200})});
    ASSERT_TRUE(usign.status.isOk());
    EXPECT_EQ(usign.outputs[0].toInt64Vector(), (std::vector<int64_t>{0, 1}));
}

TEST(ElementwiseKernels, UnsupportedTypesAreReported) {
    auto sigmoid = runSingleNode(makeNode("Sigmoid"), {Tensor::fromVector<int32_t>({2}, {1, 2})});
    EXPECT_EQ(sigmoid.status.kind(), ErrorKind::Unsupported);
    EXPECT_NE(sigmoid.status.message().find("int32"), std::string::npos)
        << sigmoid.status.message();
    auto neg = runSingleNode(makeNode("Neg"), {Tensor::fromVector<uint8_t>({1}, {1})});
    EXPECT_EQ(neg.status.kind(), ErrorKind::Unsupported);
    auto notFloat = runSingleNode(makeNode("Not"), {Tensor::fromVector<float>({1}, {1})});
    EXPECT_EQ(notFloat.status.kind(), ErrorKind::Unsupported);
    auto gelu = runSingleNode(makeNode("Gelu", {{"approximate", stringAttr("fast")}}),
                              {randomTensor({2}, 1)});
    EXPECT_EQ(gelu.status.kind(), ErrorKind::BadInput);
    EXPECT_NE(gelu.status.message().find("fast"), std::string::npos);
}

TEST(ElementwiseKernels, HalfInputsRoundTrip) {
    const std::vector<float> values = {-2.5f, -0.5f, 0.0f, 0.75f, 3.0f};
    for (DataType type : {DataType::Float16, DataType::BFloat16}) {
        Tensor x(type, {5});
        for (size_t i = 0; i < values.size(); ++i)
            x.data<uint16_t>()[i] =
                type == DataType::Float16 ? floatToHalf(values[i]) : floatToBfloat16(values[i]);
        auto run = runSingleNode(makeNode("Relu"), {x});
        ASSERT_TRUE(run.status.isOk()) << run.status.message();
        EXPECT_EQ(run.outputs[0].dtype(), type);
        EXPECT_EQ(run.outputs[0].toFloatVector(), (std::vector<float>{0, 0, 0, 0.75f, 3.0f}));
    }
}

TEST(ElementwiseKernels, ClipAttributeFormBeforeOpset11) {
    Tensor x = Tensor::fromVector<float>({5}, {-2, -0.5f, 0, 0.7f, 3});
    auto run = runSingleNode(makeNode("Clip", {{"min", floatAttr(-1)}, {"max", floatAttr(0.5f)}}),
                             {x}, 1, {}, 6);
    ASSERT_TRUE(run.status.isOk()) << run.status.message();
    EXPECT_EQ(run.outputs[0].toFloatVector(), (std::vector<float>{-1, -0.5f, 0, 0.5f, 0.5f}));
    auto noMax = runSingleNode(makeNode("Clip", {{"min", floatAttr(0)}}), {x}, 1, {}, 6);
    ASSERT_TRUE(noMax.status.isOk());
    EXPECT_EQ(noMax.outputs[0].toFloatVector(), (std::vector<float>{0, 0, 0, 0.7f, 3}));
}

TEST(ElementwiseKernels, ClipInputFormWithOptionalBounds) {
    Tensor x = Tensor::fromVector<float>({5}, {-2, -0.5f, 0, 0.7f, INFINITY});
    auto both = runSingleNode(makeNode("Clip"), {x, Tensor::scalar(-1.0f), Tensor::scalar(0.5f)}, 1,
                              {false, true, true}, 13);
    ASSERT_TRUE(both.status.isOk()) << both.status.message();
    EXPECT_EQ(both.outputs[0].toFloatVector(), (std::vector<float>{-1, -0.5f, 0, 0.5f, 0.5f}));
    auto maxOnly = runSingleNode(makeNode("Clip"), {x, Tensor(), Tensor::scalar(0.0f)}, 1, {}, 13);
    ASSERT_TRUE(maxOnly.status.isOk()) << maxOnly.status.message();
    EXPECT_EQ(maxOnly.outputs[0].toFloatVector(), (std::vector<float>{-2, -0.5f, 0, 0, 0}));
    auto none = runSingleNode(makeNode("Clip"), {x}, 1, {}, 13);
    ASSERT_TRUE(none.status.isOk());
    EXPECT_EQ(none.outputs[0].toFloatVector(), x.toFloatVector());  // infinity is not clipped
    // min > max gives max everywhere, as numpy.clip.
    auto crossed =
        runSingleNode(makeNode("Clip"), {x, Tensor::scalar(2.0f), Tensor::scalar(1.0f)}, 1, {}, 13);
    ASSERT_TRUE(crossed.status.isOk());
    EXPECT_EQ(crossed.outputs[0].toFloatVector(), (std::vector<float>(5, 1.0f)));
    auto bad =
        runSingleNode(makeNode("Clip"), {x, Tensor::fromVector<float>({2}, {0, 1})}, 1, {}, 13);
    EXPECT_EQ(bad.status.kind(), ErrorKind::BadInput);
}

TEST(ElementwiseKernels, ClipIntegerTypes) {
    Tensor x = Tensor::fromVector<int8_t>({5}, {-128, -3, 0, 5, 127});
    auto run = runSingleNode(makeNode("Clip"),
                             {x, Tensor::scalar<int8_t>(-4), Tensor::scalar<int8_t>(4)}, 1, {}, 13);
    ASSERT_TRUE(run.status.isOk()) << run.status.message();
    EXPECT_EQ(run.outputs[0].dtype(), DataType::Int8);
    EXPECT_EQ(run.outputs[0].toInt64Vector(), (std::vector<int64_t>{-4, -3, 0, 4, 4}));
    auto minOnly = runSingleNode(
        makeNode("Clip"),
        {Tensor::fromVector<int64_t>({3}, {-9, 2, 9}), Tensor::scalar<int64_t>(0)}, 1, {}, 13);
    ASSERT_TRUE(minOnly.status.isOk());
    EXPECT_EQ(minOnly.outputs[0].toInt64Vector(), (std::vector<int64_t>{0, 2, 9}));
}

TEST(ElementwiseKernels, ClipLargeChannelsLast) {
    Tensor x = randomTensor({1, 32, 40, 40}, 3, -8, 8);
    auto run = runDirect(makeNode("Clip"),
                         {x.toChannelsLast(), Tensor::scalar(0.0f), Tensor::scalar(6.0f)}, 1, 13);
    ASSERT_TRUE(run.status.isOk()) << run.status.message();
    EXPECT_EQ(run.outputs[0].layout(), Layout::ChannelsLast);
    std::string why;
    EXPECT_TRUE(allClose(run.outputs[0].toPlain(),
                         mapReference(x, [](double v) { return std::min(6.0, std::max(0.0, v)); }),
                         0, 0, &why))
        << why;
}

TEST(ElementwiseKernels, CastBetweenTypes) {
    Tensor x = Tensor::fromVector<float>({6}, {-2.7f, -0.5f, 0.0f, 0.4f, 3.9f, 300.25f});
    auto toInt = runSingleNode(makeNode("Cast", {{"to", intAttr(int64_t(DataType::Int32))}}), {x});
    ASSERT_TRUE(toInt.status.isOk()) << toInt.status.message();
    EXPECT_EQ(toInt.outputs[0].dtype(), DataType::Int32);
    EXPECT_EQ(toInt.outputs[0].toInt64Vector(),
              (std::vector<int64_t>{-2, 0, 0, 0, 3, 300}));  // truncation
    auto toBool = runSingleNode(makeNode("Cast", {{"to", intAttr(int64_t(DataType::Bool))}}), {x});
    ASSERT_TRUE(toBool.status.isOk());
    EXPECT_EQ(toBool.outputs[0].toInt64Vector(), (std::vector<int64_t>{1, 1, 0, 1, 1, 1}));
    auto toDouble =
        runSingleNode(makeNode("Cast", {{"to", intAttr(int64_t(DataType::Double))}}), {x});
    ASSERT_TRUE(toDouble.status.isOk());
    EXPECT_EQ(toDouble.outputs[0].data<double>()[5], 300.25);
    auto toHalf =
        runSingleNode(makeNode("Cast", {{"to", intAttr(int64_t(DataType::Float16))}}), {x});
    ASSERT_TRUE(toHalf.status.isOk());
    EXPECT_EQ(toHalf.outputs[0].dtype(), DataType::Float16);
    for (int64_t i = 0; i < 6; ++i)
        EXPECT_EQ(toHalf.outputs[0].data<uint16_t>()[i], floatToHalf(x.data<float>()[i])) << i;
    auto back = runSingleNode(makeNode("Cast", {{"to", intAttr(int64_t(DataType::Float))}}),
                              {toHalf.outputs[0]});
    ASSERT_TRUE(back.status.isOk());
    EXPECT_EQ(back.outputs[0].toFloatVector()[0], halfToFloat(floatToHalf(-2.7f)));
    auto fromBool = runSingleNode(makeNode("Cast", {{"to", intAttr(int64_t(DataType::Float))}}),
                                  {toBool.outputs[0]});
    ASSERT_TRUE(fromBool.status.isOk());
    EXPECT_EQ(fromBool.outputs[0].toFloatVector(), (std::vector<float>{1, 1, 0, 1, 1, 1}));
    auto wrap = runSingleNode(makeNode("Cast", {{"to", intAttr(int64_t(DataType::Int8))}}),
                              {Tensor::fromVector<int64_t>({3}, {127, 128, -129})});
    ASSERT_TRUE(wrap.status.isOk());
    EXPECT_EQ(wrap.outputs[0].toInt64Vector(), (std::vector<int64_t>{127, -128, 127}));
    auto same = runSingleNode(makeNode("Cast", {{"to", intAttr(int64_t(DataType::Float))}}), {x});
    ASSERT_TRUE(same.status.isOk());
    EXPECT_EQ(same.outputs[0].toFloatVector(), x.toFloatVector());
}

TEST(ElementwiseKernels, CastToStringIsUnsupported) {
    auto run = runSingleNode(makeNode("Cast", {{"to", intAttr(int64_t(DataType::String))}}),
                             {randomTensor({2}, 1)});
    EXPECT_EQ(run.status.kind(), ErrorKind::Unsupported);
    EXPECT_NE(run.status.message().find("string"), std::string::npos) << run.status.message();
    auto missing = runSingleNode(makeNode("Cast"), {randomTensor({2}, 1)});
    EXPECT_EQ(missing.status.kind(), ErrorKind::BadInput);
}

TEST(ElementwiseKernels, CastLikeTakesTypeFromSecondInput) {
    auto run = runSingleNode(makeNode("CastLike"), {Tensor::fromVector<float>({2}, {1.5f, -2.5f}),
                                                    Tensor::fromVector<int64_t>({1}, {0})});
    ASSERT_TRUE(run.status.isOk()) << run.status.message();
    EXPECT_EQ(run.outputs[0].dtype(), DataType::Int64);
    EXPECT_EQ(run.outputs[0].toInt64Vector(), (std::vector<int64_t>{1, -2}));
}

TEST(ElementwiseKernels, CastKeepsChannelsLast) {
    Tensor x = randomTensor({1, 3, 4, 5}, 8, -100, 100);
    auto run = runDirect(makeNode("Cast", {{"to", intAttr(int64_t(DataType::Int32))}}),
                         {x.toChannelsLast()});
    ASSERT_TRUE(run.status.isOk());
    EXPECT_EQ(run.outputs[0].layout(), Layout::ChannelsLast);
    const std::vector<int64_t> got = run.outputs[0].toPlain().toInt64Vector();
    for (int64_t i = 0; i < x.numel(); ++i)
        EXPECT_EQ(got[i], static_cast<int64_t>(x.data<float>()[i]));
}

TEST(ElementwiseKernels, DropoutInferenceIsIdentity) {
    Tensor x = randomTensor({3, 4}, 2);
    auto old = runSingleNode(makeNode("Dropout", {{"ratio", floatAttr(0.3f)}}), {x}, 2, {}, 10);
    ASSERT_TRUE(old.status.isOk()) << old.status.message();
    EXPECT_EQ(old.outputs[0].toFloatVector(), x.toFloatVector());
    EXPECT_EQ(old.outputs[1].dtype(), DataType::Bool);
    EXPECT_EQ(old.outputs[1].toInt64Vector(), std::vector<int64_t>(12, 1));
    auto opset7 = runSingleNode(makeNode("Dropout"), {x}, 2, {}, 7);
    ASSERT_TRUE(opset7.status.isOk());
    EXPECT_EQ(opset7.outputs[1].dtype(), DataType::Float);  // mask had the input's type then
    auto modern = runSingleNode(makeNode("Dropout"),
                                {x, Tensor::scalar(0.5f), Tensor::scalar<bool>(false)}, 2, {}, 13);
    ASSERT_TRUE(modern.status.isOk()) << modern.status.message();
    EXPECT_EQ(modern.outputs[0].toFloatVector(), x.toFloatVector());
    EXPECT_EQ(modern.outputs[1].toInt64Vector(), std::vector<int64_t>(12, 1));
    auto zeroRatio = runSingleNode(
        makeNode("Dropout"), {x, Tensor::scalar(0.0f), Tensor::scalar<bool>(true)}, 1, {}, 13);
    ASSERT_TRUE(zeroRatio.status.isOk());
    EXPECT_EQ(zeroRatio.outputs[0].toFloatVector(), x.toFloatVector());
}

TEST(ElementwiseKernels, DropoutTrainingIsUnsupported) {
    auto run = runSingleNode(
        makeNode("Dropout"),
        {randomTensor({4}, 1), Tensor::scalar(0.5f), Tensor::scalar<bool>(true)}, 1, {}, 13);
    EXPECT_EQ(run.status.kind(), ErrorKind::Unsupported);
    EXPECT_NE(run.status.message().find("training"), std::string::npos);
    auto old = runSingleNode(makeNode("Dropout", {{"is_test", intAttr(0)}}), {randomTensor({4}, 1)},
                             1, {}, 6);
    EXPECT_EQ(old.status.kind(), ErrorKind::Unsupported);
}

TEST(ElementwiseKernels, IdentityAndNot) {
    Tensor x = randomTensor({2, 3, 4, 5}, 4);
    auto id = runDirect(makeNode("Identity"), {x.toChannelsLast()});
    ASSERT_TRUE(id.status.isOk());
    EXPECT_EQ(id.outputs[0].layout(), Layout::ChannelsLast);
    EXPECT_EQ(id.outputs[0].toPlain().toFloatVector(), x.toFloatVector());
    auto notRun =
        runSingleNode(makeNode("Not"), {Tensor::fromVector<bool>({3}, {true, false, true})});
    ASSERT_TRUE(notRun.status.isOk());
    EXPECT_EQ(notRun.outputs[0].dtype(), DataType::Bool);
    EXPECT_EQ(notRun.outputs[0].toInt64Vector(), (std::vector<int64_t>{0, 1, 0}));
}

TEST(ElementwiseKernels, GeluInMicrosoftDomain) {
    Node node = makeNode("Gelu");
    node.domain = "com.microsoft";
    Tensor x = randomTensor({64}, 7, -3, 3);
    auto run = runSingleNode(node, {x});
    ASSERT_TRUE(run.status.isOk()) << run.status.message();
    std::string why;
    EXPECT_TRUE(allClose(
        run.outputs[0],
        mapReference(x, [](double v) { return 0.5 * v * (1 + std::erf(v / std::sqrt(2.0))); }),
        1e-5, 1e-6, &why))
        << why;
}

TEST(ElementwiseKernels, CastToBfloat16TruncatesBeforeOpset19AndRoundsFrom19) {
    // 0.48046875 is bfloat16 0x3EF6 exactly; the float just below rounds up to it but
    // truncates to 0x3EF5 (0.478515625), which is what the ONNX 1.12 reference data expects.
    float below;
    const uint32_t bits = 0x3EF5C000u;  // 0x3EF5 plus three quarters of one bfloat16 step
    std::memcpy(&below, &bits, 4);
    Node cast = test::makeNode("Cast");
    cast.attributes["to"] = intAttr(static_cast<int64_t>(DataType::BFloat16));
    const Tensor x = Tensor::fromVector<float>({2}, {below, -below});
    for (int64_t opset : {13, 19}) {
        auto r = test::runSingleNode(cast, {x}, 1, {}, opset);
        ASSERT_TRUE(r.status.isOk()) << r.status.message();
        const uint16_t *out = r.outputs[0].data<uint16_t>();
        EXPECT_EQ(out[0], opset < 19 ? 0x3EF5 : 0x3EF6) << "opset " << opset;
        EXPECT_EQ(out[1], opset < 19 ? 0xBEF5 : 0xBEF6) << "opset " << opset;
    }
}

}  // namespace
}  // namespace ql
