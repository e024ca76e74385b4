// MaxPool, AveragePool, GlobalAveragePool and GlobalMaxPool against naive loops written here:
// every window tap visited one by one, plain and channels-last inputs, ceil_mode, pads,
// dilations, auto_pad, 1-D/2-D/3-D, integer types, the Indices output, and the errors.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "direct_kernel_run.h"
#include "test_support.h"

using namespace ql;
using test::runSingleNode;

namespace {

struct PoolCase {
    std::string op;  // MaxPool or AveragePool
    std::vector<int64_t> kernel, strides, pads, dilations;
    std::string autoPad = "NOTSET";
    bool ceil = false;
    bool countIncludePad = false;
    int64_t storageOrder = 0;

    Node node() const {
        Node n = test::makeNode(op);
        n.attributes["kernel_shape"] = test::intsAttr(kernel);
        if (!strides.empty()) n.attributes["strides"] = test::intsAttr(strides);
        if (!pads.empty()) n.attributes["pads"] = test::intsAttr(pads);
        if (!dilations.empty()) n.attributes["dilations"] = test::intsAttr(dilations);
        if (autoPad != "NOTSET") n.attributes["auto_pad"] = test::stringAttr(autoPad);
        if (ceil) n.attributes["ceil_mode"] = test::intAttr(1);
        if (countIncludePad) n.attributes["count_include_pad"] = test::intAttr(1);
        if (storageOrder) n.attributes["storage_order"] = test::intAttr(storageOrder);
        return n;
    }
    std::string describe() const {
        return op + " k" + shapeToString(kernel) + " s" + shapeToString(strides) + " p" +
               shapeToString(pads) + " d" + shapeToString(dilations) + " " + autoPad +
               (ceil ? " ceil" : "") + (countIncludePad ? " incl_pad" : "");
    }
};

struct NaivePool {
    Tensor y;
    Tensor indices;  // MaxPool only
};

// Straight from the ONNX definition: output size per dim, then every tap of every window.
NaivePool naivePool(const Tensor &x, const PoolCase &pc) {
    const int spatial = x.rank() - 2;
    std::vector<int64_t> in(spatial), k(spatial), s(spatial), dil(spatial), pb(spatial),
        pe(spatial), out(spatial);
    Shape outShape{x.shape()[0], x.shape()[1]};
    for (int d = 0; d < spatial; ++d) {
        in[d] = x.shape()[2 + d];
        k[d] = pc.kernel[d];
        s[d] = pc.strides.empty() ? 1 : pc.strides[d];
        dil[d] = pc.dilations.empty() ? 1 : pc.dilations[d];
        const int64_t ek = (k[d] - 1) * dil[d] + 1;
        pb[d] = pc.pads.empty() ? 0 : pc.pads[d];
        pe[d] = pc.pads.empty() ? 0 : pc.pads[d + spatial];
        if (pc.autoPad == "SAME_UPPER" || pc.autoPad == "SAME_LOWER") {
            out[d] = static_cast<int64_t>(std::ceil(double(in[d]) / double(s[d])));
            const int64_t total = std::max<int64_t>(0, (out[d] - 1) * s[d] + ek - in[d]);
            pb[d] = pc.autoPad == "SAME_UPPER" ? total / 2 : (total + 1) / 2;
            pe[d] = total - pb[d];
        } else if (pc.autoPad == "VALID") {
            pb[d] = pe[d] = 0;
            out[d] = static_cast<int64_t>(std::floor(double(in[d] - ek) / double(s[d]))) + 1;
        } else {
            const double steps = double(in[d] + pb[d] + pe[d] - ek) / double(s[d]);
            out[d] = static_cast<int64_t>(pc.ceil ? std::ceil(steps) : std::floor(steps)) + 1;
            if (pc.ceil && (out[d] - 1) * s[d] >= in[d] + pb[d])
                --out[d];  // no window starts in the end pad
        }
        outShape.push_back(out[d]);
    }
    NaivePool r{Tensor(x.dtype(), outShape), Tensor(DataType::Int64, outShape)};
    const int64_t planes = x.shape()[0] * x.shape()[1];
    int64_t inPlane = 1, outPlane = 1, taps = 1;
    for (int d = 0; d < spatial; ++d) {
        inPlane *= in[d];
        outPlane *= out[d];
        taps *= k[d];
    }
    for (int64_t p = 0; p < planes; ++p) {
        for (int64_t o = 0; o < outPlane; ++o) {
            std::vector<int64_t> oc(spatial);
            int64_t rest = o;
            for (int d = spatial - 1; d >= 0; --d) {
                oc[d] = rest % out[d];
                rest /= out[d];
            }
            double best = -INFINITY, sum = 0.0;
            int64_t bestIndex = -1, inside = 0, padded = 0;
            for (int64_t t = 0; t < taps; ++t) {
                int64_t tr = t, rowMajor = 0, colMajor = 0, colStride = 1;
                bool isInside = true, isPadded = true;
                std::vector<int64_t> ic(spatial);
                for (int d = spatial - 1; d >= 0; --d) {
                    const int64_t j = tr % k[d];
                    tr /= k[d];
                    ic[d] = oc[d] * s[d] - pb[d] + j * dil[d];
                    isInside = isInside && ic[d] >= 0 && ic[d] < in[d];
                    isPadded = isPadded && ic[d] >= -pb[d] && ic[d] < in[d] + pe[d];
                }
                padded += isPadded;
                if (!isInside) continue;
                ++inside;
                for (int d = 0; d < spatial; ++d) rowMajor = rowMajor * in[d] + ic[d];
                for (int d = 0; d < spatial; ++d) {
                    colMajor += ic[d] * colStride;
                    colStride *= in[d];
                }
                const double v = x.valueAsDouble(p * inPlane + rowMajor);
                sum += v;
                if (v > best || bestIndex < 0) {
                    best = v;
                    bestIndex = p * inPlane + (pc.storageOrder == 1 ? colMajor : rowMajor);
                }
            }
            const int64_t at = p * outPlane + o;
            const double value =
                pc.op == "MaxPool" ? best : sum / double(pc.countIncludePad ? padded : inside);
            switch (x.dtype()) {
                case DataType::Float:
                    r.y.data<float>()[at] = static_cast<float>(value);
                    break;
                case DataType::Double:
                    r.y.data<double>()[at] = value;
                    break;
                case DataType::UInt8:
                    r.y.data<uint8_t>()[at] = static_cast<uint8_t>(value);
                    break;
                case DataType::Int8:
                    r.y.data<int8_t>()[at] = static_cast<int8_t>(value);
                    break;
                default:
                    ADD_FAILURE() << "naivePool: dtype";
            }
            r.indices.data<int64_t>()[at] = bestIndex;
        }
    }
    return r;
}

Tensor castTensor(const Tensor &f, DataType type, double scale) {
    Tensor t(type, f.shape());
    for (int64_t i = 0; i < f.numel(); ++i) {
        const double v = std::round(f.valueAsDouble(i) * scale);
        if (type == DataType::Double) t.data<double>()[i] = f.valueAsDouble(i);
        if (type == DataType::UInt8) t.data<uint8_t>()[i] = static_cast<uint8_t>(std::fabs(v));
        if (type == DataType::Int8) t.data<int8_t>()[i] = static_cast<int8_t>(v);
    }
    return t;
}

// Runs through the plan (plain input) and directly with a channels-last input when rank 4;
// both must match the naive loops, and a channels-last input must give a channels-last output
// whenever the kernel took the oneDNN path (float, 2-D).
void expectPoolMatches(const Tensor &x, const PoolCase &pc, int64_t opset = 13) {
    SCOPED_TRACE(pc.describe() + " on " + shapeToString(x.shape()) + " " + dataTypeName(x.dtype()));
    const NaivePool expected = naivePool(x, pc);
    auto run = runSingleNode(pc.node(), {x}, 1, {}, opset);
    ASSERT_TRUE(run.status.isOk()) << run.status.message();
    std::string why;
    EXPECT_TRUE(test::allClose(run.outputs[0], expected.y, 1e-5, 1e-6, &why)) << why;
    if (x.rank() != 4) return;
    test::DirectKernel direct(pc.node(), {x}, {}, 1, opset);
    ASSERT_TRUE(direct.status.isOk()) << direct.status.message();
    ASSERT_TRUE(direct.kernel->acceptsChannelsLast(0));
    std::vector<Tensor> outputs;
    ASSERT_TRUE(direct.run({x.toChannelsLast()}, outputs).isOk());
    EXPECT_TRUE(test::allClose(outputs[0].toPlain(), expected.y, 1e-5, 1e-6, &why))
        << "channels-last: " << why;
    const bool overhangInclPad = pc.op == "AveragePool" && pc.countIncludePad && pc.ceil;
    if (x.dtype() == DataType::Float && !overhangInclPad)
        EXPECT_EQ(outputs[0].layout(), Layout::ChannelsLast);
}

std::vector<PoolCase> cases2d(const std::string &op) {
    std::vector<PoolCase> c;
    c.push_back({op, {2, 2}, {2, 2}, {}, {}});
    c.push_back({op, {3, 3}, {1, 1}, {1, 1, 1, 1}, {}});
    c.push_back({op, {3, 3}, {2, 2}, {1, 1, 1, 1}, {}});  // ResNet stem MaxPool
    c.push_back({op, {3, 2}, {2, 3}, {0, 1, 2, 0}, {}});
    c.push_back({op, {3, 3}, {2, 2}, {}, {}, "NOTSET", true});
    c.push_back({op, {3, 3}, {2, 2}, {1, 1, 1, 1}, {}, "NOTSET", true});
    c.push_back({op, {2, 2}, {2, 2}, {0, 0, 1, 1}, {}, "NOTSET", true});  // last window would start
                                                                          // in the pad
    c.push_back({op, {3, 3}, {2, 2}, {}, {}, "SAME_UPPER"});
    c.push_back({op, {4, 3}, {3, 2}, {}, {}, "SAME_LOWER"});
    c.push_back({op, {3, 3}, {2, 2}, {}, {}, "VALID"});
    c.push_back({op, {5, 5}, {1, 1}, {2, 2, 2, 2}, {}});
    if (op == "MaxPool") {
        c.push_back({op, {3, 3}, {1, 1}, {}, {2, 2}});
        c.push_back({op, {3, 2}, {2, 1}, {2, 1, 1, 0}, {2, 3}, "NOTSET", true});
        c.push_back({op, {2, 3}, {1, 2}, {}, {3, 2}, "SAME_UPPER"});
    }
    return c;
}

}  // namespace

TEST(PoolingKernels, MaxPool2DMatchesNaiveLoopsPlainAndChannelsLast) {
    const Tensor x = test::randomTensor({2, 3, 9, 10}, 1);
    for (const PoolCase &pc : cases2d("MaxPool")) expectPoolMatches(x, pc);
}

TEST(PoolingKernels, AveragePool2DMatchesNaiveLoopsWithAndWithoutPadCounting) {
    const Tensor x = test::randomTensor({2, 3, 9, 10}, 2);
    for (PoolCase pc : cases2d("AveragePool")) {
        expectPoolMatches(x, pc);
        pc.countIncludePad = true;  // the ceil_mode overhang must still not be counted
        expectPoolMatches(x, pc);
    }
}

TEST(PoolingKernels, OneAndThreeDimensionalPooling) {
    const Tensor x1 = test::randomTensor({2, 3, 17}, 3);
    const Tensor x3 = test::randomTensor({1, 2, 6, 7, 8}, 4);
    for (const std::string op : {"MaxPool", "AveragePool"}) {
        for (bool incl : {false, true}) {
            PoolCase a{op, {3}, {2}, {1, 1}, {}, "NOTSET", true, incl};
            expectPoolMatches(x1, a);
            PoolCase b{op, {4}, {3}, {}, {}, "SAME_LOWER", false, incl};
            expectPoolMatches(x1, b);
            PoolCase c{op, {2, 3, 3}, {2, 2, 2}, {0, 1, 1, 1, 1, 0}, {}, "NOTSET", true, incl};
            expectPoolMatches(x3, c);
            PoolCase d{op, {3, 3, 3}, {1, 2, 2}, {}, {}, "SAME_UPPER", false, incl};
            expectPoolMatches(x3, d);
        }
        expectPoolMatches(x1, PoolCase{op, {3}, {1}, {}, {}});
    }
    expectPoolMatches(x3, PoolCase{"MaxPool", {2, 2, 2}, {1, 2, 1}, {1, 0, 0, 0, 1, 1}, {2, 2, 3}});
}

TEST(PoolingKernels, IntegerAndDoubleInputs) {
    const Tensor f = test::randomTensor({1, 2, 8, 9}, 5, -1.0f, 1.0f);
    for (DataType type : {DataType::UInt8, DataType::Int8, DataType::Double}) {
        const Tensor x = castTensor(f, type, 120.0);
        expectPoolMatches(x, PoolCase{"MaxPool", {3, 3}, {2, 2}, {1, 1, 1, 1}, {}, "NOTSET", true});
        expectPoolMatches(x, PoolCase{"MaxPool", {2, 2}, {1, 1}, {}, {}, "SAME_LOWER"});
    }
    const Tensor d = castTensor(f, DataType::Double, 1.0);
    expectPoolMatches(
        d, PoolCase{"AveragePool", {3, 3}, {2, 2}, {1, 1, 1, 1}, {}, "NOTSET", true, true});
    auto intAverage = runSingleNode(PoolCase{"AveragePool", {2, 2}}.node(),
                                    {castTensor(f, DataType::Int8, 100.0)});
    EXPECT_EQ(intAverage.status.kind(), ErrorKind::Unsupported);
    EXPECT_NE(intAverage.status.message().find("int8"), std::string::npos)
        << intAverage.status.message();
}

TEST(PoolingKernels, MaxPoolIndicesRowAndColumnMajor) {
    const Tensor x = test::randomTensor({2, 3, 7, 8}, 6);
    for (int64_t order : {0, 1}) {
        PoolCase pc{"MaxPool", {3, 3}, {2, 2}, {1, 1, 1, 1}, {}, "NOTSET", true};
        pc.storageOrder = order;
        const NaivePool expected = naivePool(x, pc);
        auto run = runSingleNode(pc.node(), {x}, 2, {}, 12);
        ASSERT_TRUE(run.status.isOk()) << run.status.message();
        std::string why;
        EXPECT_TRUE(test::allClose(run.outputs[0], expected.y, 0, 0, &why)) << why;
        EXPECT_TRUE(test::allClose(run.outputs[1], expected.indices, 0, 0, &why))
            << "storage_order " << order << ": " << why;
    }
    // Column-major differs from row-major somewhere (the test would not notice a swap otherwise).
    PoolCase rowMajor{"MaxPool", {2, 2}, {2, 2}};
    PoolCase colMajor = rowMajor;
    colMajor.storageOrder = 1;
    EXPECT_FALSE(
        test::allClose(naivePool(x, rowMajor).indices, naivePool(x, colMajor).indices, 0, 0));
    // The Indices output means the kernel takes plain inputs only.
    test::DirectKernel direct(rowMajor.node(), {x}, {}, 2, 12);
    ASSERT_TRUE(direct.status.isOk());
    EXPECT_FALSE(direct.kernel->acceptsChannelsLast(0));
}

TEST(PoolingKernels, PrimitiveCacheFollowsShapeAndLayout) {
    const PoolCase pc{"AveragePool", {3, 3}, {2, 2}, {1, 1, 1, 1}, {}, "NOTSET", true};
    test::DirectKernel direct(pc.node(), {test::randomTensor({1, 1, 5, 5}, 0)}, {}, 1, 13);
    ASSERT_TRUE(direct.status.isOk());
    const Tensor a = test::randomTensor({1, 4, 11, 12}, 7), b = test::randomTensor({2, 3, 6, 5}, 8);
    for (const Tensor &x : {a, b, a.toChannelsLast(), a, b.toChannelsLast()}) {
        std::vector<Tensor> outputs;
        ASSERT_TRUE(direct.run({x}, outputs).isOk());
        std::string why;
        EXPECT_TRUE(
            test::allClose(outputs[0].toPlain(), naivePool(x.toPlain(), pc).y, 1e-5, 1e-6, &why))
            << shapeToString(x.shape()) << ": " << why;
        EXPECT_EQ(outputs[0].layout(), x.layout());
    }
}

TEST(PoolingKernels, GlobalPoolsPlainChannelsLastAndAnyRank) {
    // The large ones take the threaded paths; 37 channels split unevenly over cache lines.
    for (const Shape &shape : {Shape{2, 5, 6, 7}, Shape{1, 2048, 7, 7}, Shape{2, 37, 40, 30},
                               Shape{2, 3, 11}, Shape{1, 2, 3, 4, 5}}) {
        const Tensor x = test::randomTensor(shape, 9);
        const int64_t planes = shape[0] * shape[1], size = x.numel() / planes;
        Shape outShape(shape.size(), 1);
        outShape[0] = shape[0];
        outShape[1] = shape[1];
        Tensor avg(DataType::Float, outShape), max(DataType::Float, outShape);
        for (int64_t p = 0; p < planes; ++p) {
            double sum = 0.0, best = -INFINITY;
            for (int64_t i = 0; i < size; ++i) {
                sum += x.valueAsDouble(p * size + i);
                best = std::max(best, x.valueAsDouble(p * size + i));
            }
            avg.data<float>()[p] = static_cast<float>(sum / double(size));
            max.data<float>()[p] = static_cast<float>(best);
        }
        for (const char *op : {"GlobalAveragePool", "GlobalMaxPool"}) {
            const Tensor &expected = std::string(op) == "GlobalMaxPool" ? max : avg;
            Node n = test::makeNode(op);
            auto run = runSingleNode(n, {x}, 1, {}, 1);
            ASSERT_TRUE(run.status.isOk()) << run.status.message();
            std::string why;
            EXPECT_TRUE(test::allClose(run.outputs[0], expected, 1e-5, 1e-6, &why))
                << op << shapeToString(shape) << why;
            if (shape.size() != 4) continue;
            test::DirectKernel direct(n, {x}, {}, 1, 13);
            ASSERT_TRUE(direct.status.isOk());
            std::vector<Tensor> outputs;
            ASSERT_TRUE(direct.run({x.toChannelsLast()}, outputs).isOk());
            EXPECT_EQ(outputs[0].layout(), Layout::Plain);  // [N, C, 1, 1] is emitted plain
            EXPECT_TRUE(test::allClose(outputs[0], expected, 1e-5, 1e-6, &why))
                << op << " channels-last: " << why;
        }
    }
    Node n = test::makeNode("GlobalAveragePool");
    auto rank2 = runSingleNode(n, {test::randomTensor({2, 3}, 1)});
    EXPECT_EQ(rank2.status.kind(), ErrorKind::BadInput);
}

TEST(PoolingKernels, ClearErrorsForBadWindowsAndAttributes) {
    const Tensor x = test::randomTensor({1, 1, 3, 3}, 10);
    auto tooBig = runSingleNode(PoolCase{"MaxPool", {5, 5}}.node(), {x});
    EXPECT_EQ(tooBig.status.kind(), ErrorKind::BadInput);
    EXPECT_NE(tooBig.status.message().find("larger than padded input"), std::string::npos)
        << tooBig.status.message();
    auto dilatedTooBig =
        runSingleNode(PoolCase{"MaxPool", {2, 2}, {}, {}, {3, 3}, "VALID"}.node(), {x});
    EXPECT_EQ(dilatedTooBig.status.kind(), ErrorKind::BadInput);
    auto paddedFits = runSingleNode(PoolCase{"AveragePool", {5, 5}, {}, {1, 1, 1, 1}}.node(), {x});
    EXPECT_TRUE(paddedFits.status.isOk()) << paddedFits.status.message();

    Node noKernel = test::makeNode("MaxPool");
    auto missing = runSingleNode(noKernel, {x});
    EXPECT_EQ(missing.status.kind(), ErrorKind::BadInput);
    EXPECT_NE(missing.status.message().find("kernel_shape"), std::string::npos)
        << missing.status.message();

    PoolCase badPad{"AveragePool", {2, 2}};
    badPad.autoPad = "SAME";
    EXPECT_EQ(runSingleNode(badPad.node(), {x}).status.kind(), ErrorKind::BadInput);
    auto wrongRank = runSingleNode(PoolCase{"MaxPool", {2}}.node(), {x});
    EXPECT_EQ(wrongRank.status.kind(), ErrorKind::BadInput);
    EXPECT_NE(wrongRank.status.message().find("spatial"), std::string::npos)
        << wrongRank.status.message();
    auto wrongPads = runSingleNode(PoolCase{"MaxPool", {2, 2}, {}, {1, 1}}.node(), {x});
    EXPECT_EQ(wrongPads.status.kind(), ErrorKind::BadInput);
    auto zeroStride = runSingleNode(PoolCase{"MaxPool", {2, 2}, {0, 1}}.node(), {x});
    EXPECT_EQ(zeroStride.status.kind(), ErrorKind::BadInput);
}
