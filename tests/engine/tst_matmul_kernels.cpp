// Gemm and MatMul against naive loops: every transpose combination, every broadcast form of C,
// alpha/beta, batched and broadcast MatMul, 1-D operands, constant (pre-packed) B, other types.
#include <gtest/gtest.h>

#include "test_support.h"

using namespace ql;
using namespace ql::test;

namespace {

// Y = alpha * op(A) * op(B) + beta * C, in double.
Tensor refGemm(const Tensor &a, const Tensor &b, const Tensor *c, bool transA, bool transB,
               float alpha, float beta) {
    const int64_t m = transA ? a.dim(1) : a.dim(0), k = transA ? a.dim(0) : a.dim(1);
    const int64_t n = transB ? b.dim(0) : b.dim(1);
    Tensor y(DataType::Float, {m, n});
    for (int64_t i = 0; i < m; ++i)
        for (int64_t j = 0; j < n; ++j) {
            double acc = 0.0;
            for (int64_t p = 0; p < k; ++p) {
                const double av = a.valueAsDouble(transA ? p * m + i : i * k + p);
                const double bv = b.valueAsDouble(transB ? j * k + p : p * n + j);
                acc += av * bv;
            }
            double cv = 0.0;
            if (c) {
                const Shape &cs = c->shape();
                const int64_t rows = cs.size() == 2 ? cs[0] : 1, cols = cs.empty() ? 1 : cs.back();
                cv = c->valueAsDouble((rows == 1 ? 0 : i) * cols + (cols == 1 ? 0 : j));
            }
            y.data<float>()[i * n + j] = static_cast<float>(alpha * acc + beta * cv);
        }
    return y;
}

Node gemmNode(bool transA, bool transB, float alpha, float beta) {
    Node n = makeNode("Gemm");
    if (transA) n.attributes["transA"] = intAttr(1);
    if (transB) n.attributes["transB"] = intAttr(1);
    if (alpha != 1.0f) n.attributes["alpha"] = floatAttr(alpha);
    if (beta != 1.0f) n.attributes["beta"] = floatAttr(beta);
    return n;
}

TEST(Gemm, AllTransposesBiasFormsAndScales) {
    const int64_t m = 5, k = 7, n = 6;
    const std::vector<Shape> cShapes = {{}, {1}, {n}, {1, n}, {m, 1}, {m, n}, {1, 1}};
    const std::vector<std::pair<float, float>> scales = {
        {1.0f, 1.0f}, {0.5f, 2.0f}, {2.0f, 0.0f}, {-1.5f, 1.0f}};
    unsigned seed = 100;
    for (bool transA : {false, true})
        for (bool transB : {false, true})
            for (const auto &[alpha, beta] : scales)
                for (int ci = -1; ci < static_cast<int>(cShapes.size()); ++ci)
                    for (bool constant : {false, true}) {
                        const Tensor a = randomTensor(transA ? Shape{k, m} : Shape{m, k}, ++seed);
                        const Tensor b = randomTensor(transB ? Shape{n, k} : Shape{k, n}, ++seed);
                        const Tensor c = ci >= 0 ? randomTensor(cShapes[ci], ++seed) : Tensor();
                        SCOPED_TRACE(testing::Message()
                                     << "transA=" << transA << " transB=" << transB
                                     << " alpha=" << alpha << " beta=" << beta
                                     << " C=" << (ci >= 0 ? shapeToString(cShapes[ci]) : "none")
                                     << " constant=" << constant);
                        auto run = runSingleNode(gemmNode(transA, transB, alpha, beta), {a, b, c},
                                                 1, {false, constant, constant});
                        ASSERT_TRUE(run.status.isOk()) << run.status.message();
                        std::string why;
                        EXPECT_TRUE(allClose(
                            run.outputs[0],
                            refGemm(a, b, ci >= 0 ? &c : nullptr, transA, transB, alpha, beta),
                            1e-4, 1e-5, &why))
                            << why;
                    }
}

TEST(Gemm, FullyConnectedShapeWithPackedWeightsRepeats) {
    // The torchvision classifier: [1,512] x [1000,512]^T + [1000], run twice on one plan.
    const Tensor a = randomTensor({1, 512}, 1), b = randomTensor({1000, 512}, 2),
                 c = randomTensor({1000}, 3);
    auto run = runSingleNode(gemmNode(false, true, 1.0f, 1.0f), {a, b, c}, 1, {false, true, true});
    ASSERT_TRUE(run.status.isOk()) << run.status.message();
    EXPECT_TRUE(allClose(run.outputs[0], refGemm(a, b, &c, false, true, 1.0f, 1.0f), 1e-4, 1e-4));
}

TEST(Gemm, AlphaZeroGivesScaledC) {
    const Tensor a = randomTensor({3, 4}, 1), b = randomTensor({4, 2}, 2),
                 c = randomTensor({3, 2}, 3);
    auto run = runSingleNode(gemmNode(false, false, 0.0f, 3.0f), {a, b, c});
    ASSERT_TRUE(run.status.isOk());
    EXPECT_TRUE(allClose(run.outputs[0], refGemm(a, b, &c, false, false, 0.0f, 3.0f), 1e-5, 1e-6));
}

TEST(Gemm, OldOpsetBroadcastAttribute) {
    Node n = gemmNode(false, false, 1.0f, 1.0f);
    n.attributes["broadcast"] = intAttr(1);
    const Tensor a = randomTensor({3, 4}, 1), b = randomTensor({4, 2}, 2), c = randomTensor({2}, 3);
    auto run = runSingleNode(n, {a, b, c}, 1, {}, 6);
    ASSERT_TRUE(run.status.isOk()) << run.status.message();
    EXPECT_TRUE(allClose(run.outputs[0], refGemm(a, b, &c, false, false, 1.0f, 1.0f), 1e-5, 1e-5));
}

TEST(Gemm, DoubleUsesTheLoop) {
    const Tensor a = Tensor::fromVector<double>({2, 2}, {1, 2, 3, 4});
    const Tensor b = Tensor::fromVector<double>({2, 2}, {5, 6, 7, 8});
    const Tensor c = Tensor::fromVector<double>({2}, {1, -1});
    auto run = runSingleNode(gemmNode(true, false, 2.0f, 1.0f), {a, b, c});
    ASSERT_TRUE(run.status.isOk()) << run.status.message();
    // A^T = [[1,3],[2,4]]; A^T B = [[26,30],[38,44]]; *2 + C.
    EXPECT_TRUE(
        allClose(run.outputs[0], Tensor::fromVector<double>({2, 2}, {53, 59, 77, 87}), 0, 0));
}

TEST(Gemm, RejectsMismatchedShapes) {
    auto inner = runSingleNode(gemmNode(false, false, 1, 1),
                               {randomTensor({3, 4}, 1), randomTensor({5, 2}, 2)});
    EXPECT_EQ(inner.status.kind(), ErrorKind::BadInput);
    auto bias =
        runSingleNode(gemmNode(false, false, 1, 1),
                      {randomTensor({3, 4}, 1), randomTensor({4, 2}, 2), randomTensor({3}, 3)});
    EXPECT_EQ(bias.status.kind(), ErrorKind::BadInput);
    auto rank = runSingleNode(gemmNode(false, false, 1, 1),
                              {randomTensor({3, 4, 1}, 1), randomTensor({4, 2}, 2)});
    EXPECT_EQ(rank.status.kind(), ErrorKind::BadInput);
}

// ----------------------------------------------------------------------------- MatMul

// numpy.matmul semantics, written out with explicit broadcasting.
Tensor refMatMul(const Tensor &aIn, const Tensor &bIn, DataType outType = DataType::Float) {
    Shape a = aIn.shape(), b = bIn.shape();
    const bool vecA = a.size() == 1, vecB = b.size() == 1;
    if (vecA) a.insert(a.begin(), 1);
    if (vecB) b.push_back(1);
    const size_t rank = std::max(a.size(), b.size());
    a.insert(a.begin(), rank - a.size(), 1);
    b.insert(b.begin(), rank - b.size(), 1);
    const int64_t m = a[rank - 2], k = a[rank - 1], n = b[rank - 1];
    Shape batch;
    for (size_t i = 0; i + 2 < rank; ++i) batch.push_back(std::max(a[i], b[i]));
    Shape out = batch;
    if (!vecA) out.push_back(m);
    if (!vecB) out.push_back(n);
    Tensor y(outType, out);
    const int64_t batches = shapeElementCount(batch);
    for (int64_t bi = 0; bi < batches; ++bi) {
        int64_t rest = bi, aBase = 0, bBase = 0, aMul = 1, bMul = 1;
        for (size_t i = batch.size(); i-- > 0;) {
            const int64_t idx = rest % batch[i];
            rest /= batch[i];
            aBase += (a[i] == 1 ? 0 : idx) * aMul;
            bBase += (b[i] == 1 ? 0 : idx) * bMul;
            aMul *= a[i];
            bMul *= b[i];
        }
        for (int64_t i = 0; i < m; ++i)
            for (int64_t j = 0; j < n; ++j) {
                double acc = 0.0;
                for (int64_t p = 0; p < k; ++p)
                    acc += aIn.valueAsDouble(aBase * m * k + i * k + p) *
                           bIn.valueAsDouble(bBase * k * n + p * n + j);
                const int64_t o = (bi * m + i) * n + j;
                if (outType == DataType::Float)
                    y.data<float>()[o] = static_cast<float>(acc);
                else if (outType == DataType::Double)
                    y.data<double>()[o] = acc;
                else
                    y.data<int64_t>()[o] = static_cast<int64_t>(acc);
            }
    }
    return y;
}

TEST(MatMul, ShapesBatchesBroadcastsAndVectors) {
    const std::vector<std::pair<Shape, Shape>> cases = {
        {{3, 4}, {4, 5}},
        {{2, 3, 4}, {2, 4, 5}},
        {{2, 3, 4, 5}, {2, 3, 5, 6}},
        {{2, 1, 4, 5}, {3, 5, 6}},
        {{4, 5}, {3, 5, 6}},
        {{3, 4, 5}, {5, 2}},
        {{4}, {4, 3}},
        {{2, 3, 4}, {4}},
        {{6}, {6}},
        {{5}, {2, 5, 3}},
        {{1, 7, 1, 3, 4}, {2, 1, 5, 4, 2}},
        // One right-hand matrix for every batch: the batches run as rows of one GEMM.
        {{197, 1, 8}, {1, 8, 12}},
        {{2, 3, 4, 5}, {1, 1, 5, 6}},
        {{1, 9, 4}, {4, 3}},
    };
    unsigned seed = 1;
    for (const auto &[sa, sb] : cases)
        for (bool constant : {false, true}) {
            SCOPED_TRACE(shapeToString(sa) + " x " + shapeToString(sb) +
                         (constant ? " constant B" : ""));
            const Tensor a = randomTensor(sa, ++seed), b = randomTensor(sb, ++seed);
            auto run = runSingleNode(makeNode("MatMul"), {a, b}, 1, {false, constant});
            ASSERT_TRUE(run.status.isOk()) << run.status.message();
            std::string why;
            EXPECT_TRUE(allClose(run.outputs[0], refMatMul(a, b), 1e-4, 1e-5, &why)) << why;
        }
}

TEST(MatMul, OtherTypesUseTheLoop) {
    Tensor a(DataType::Int64, {2, 3, 4}), b(DataType::Int64, {4, 2});
    for (int64_t i = 0; i < a.numel(); ++i) a.data<int64_t>()[i] = i % 7 - 3;
    for (int64_t i = 0; i < b.numel(); ++i) b.data<int64_t>()[i] = i % 5 - 2;
    auto run = runSingleNode(makeNode("MatMul"), {a, b});
    ASSERT_TRUE(run.status.isOk()) << run.status.message();
    EXPECT_TRUE(allClose(run.outputs[0], refMatMul(a, b, DataType::Int64), 0, 0));

    const Tensor da = Tensor::fromVector<double>({2, 2}, {1.5, 2, -1, 0.25}),
                 db = Tensor::fromVector<double>({2}, {2, 4});
    auto dRun = runSingleNode(makeNode("MatMul"), {da, db});
    ASSERT_TRUE(dRun.status.isOk());
    EXPECT_TRUE(allClose(dRun.outputs[0], Tensor::fromVector<double>({2}, {11, -1}), 0, 0));
}

TEST(MatMul, RejectsMismatches) {
    auto inner =
        runSingleNode(makeNode("MatMul"), {randomTensor({3, 4}, 1), randomTensor({5, 2}, 2)});
    EXPECT_EQ(inner.status.kind(), ErrorKind::BadInput);
    auto batch =
        runSingleNode(makeNode("MatMul"), {randomTensor({2, 3, 4}, 1), randomTensor({3, 4, 2}, 2)});
    EXPECT_EQ(batch.status.kind(), ErrorKind::BadInput);
    Tensor half(DataType::Float16, {2, 2});
    auto type = runSingleNode(makeNode("MatMul"), {half, half});
    EXPECT_EQ(type.status.kind(), ErrorKind::Unsupported);
}

}  // namespace
