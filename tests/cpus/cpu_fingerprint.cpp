// Prints, one line each, the results of the engine's own vectorised code that promises the same
// bits on every CPU: the comparison sums (SQNR and the rest), the quantization that rides on them,
// weight correlations, QLinearAdd / QLinearMul and (de)quantization. Each of these is compiled
// several times (AVX-512, AVX2, baseline) and picked at load time by the CPU; the check script
// runs this program natively and on emulated CPUs and wants the same output from all of them.
// Floats print in hexadecimal so that one bit of difference shows.
#include <cinttypes>
#include <cstdio>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "analysis/metrics/comparison_metrics.h"
#include "analysis/pairing/weight_evidence.h"
#include "core/fnv_hash.h"
#include "ir/channel_runs.h"
#include "qlinear_test_support.h"

using namespace ql;
using namespace ql::analysis;
using namespace ql::test;

namespace {

// Lengths with full vectors, a scalar tail, and several blocks.
const std::vector<int64_t> kSampleSizes = {1, 37, 4099, 70001};

std::vector<float> normalValues(size_t n, unsigned seed, float sigma) {
    std::mt19937 rng(seed);
    std::normal_distribution<float> normal(0.0f, sigma);
    std::vector<float> v(n);
    for (float &x : v) x = normal(rng);
    return v;
}

template <class T>
Tensor randomIntegers(const Shape &shape, unsigned seed) {
    std::mt19937 rng(seed);
    std::uniform_int_distribution<int> uniform(std::numeric_limits<T>::min(),
                                               std::numeric_limits<T>::max());
    std::vector<T> v(size_t(shapeElementCount(shape)));
    for (T &x : v) x = static_cast<T>(uniform(rng));
    return Tensor::fromVector<T>(shape, v);
}

void printMetrics(const std::string &label, const ComparisonAccumulator &acc) {
    const ComparisonMetrics m = acc.result();
    std::printf("%s: sqnr %a cosine %a mse %a maxabs %a saturation %a", label.c_str(), m.sqnrDb,
                m.cosine, m.mse, m.maxAbsError, m.saturationPct.value_or(-1.0));
    for (double s : m.sampleSqnrValues) std::printf(" %a", s);
    std::printf("\n");
}

// x against a noisy float copy, and against two 8-bit quantizations of it (one off by a step
// here and there) in one sweep that also quantizes x: every summing clone takes part.
template <class Q>
void comparisons(int64_t size, const char *typeName, DataType type, int32_t zeroPoint) {
    const int64_t samples = 3;
    const std::vector<float> x = normalValues(size_t(samples * size), unsigned(size), 1.0f);
    const std::vector<float> noise = normalValues(x.size(), unsigned(size) + 1, 0.01f);
    std::vector<float> y(x.size());
    for (size_t i = 0; i < x.size(); ++i) y[i] = x[i] + noise[i];
    const float scale = 0.02f;
    std::vector<Q> a(x.size()), b(x.size());
    quantizeValues(x.data(), a.data(), int64_t(x.size()), scale, zeroPoint);
    for (size_t i = 0; i < x.size(); ++i)
        b[i] = static_cast<Q>(a[i] + (i % 7 == 0 && a[i] < std::numeric_limits<Q>::max() ? 1 : 0));

    ComparisonAccumulator floatAcc, quantAcc, first, second;
    for (ComparisonAccumulator *acc : {&quantAcc, &first, &second})
        acc->setQuantizer(scale, zeroPoint, std::numeric_limits<Q>::min(),
                          std::numeric_limits<Q>::max());
    const int64_t n = int64_t(x.size());
    if (!floatAcc.add(x.data(), y.data(), n, samples).isOk() ||
        !quantAcc.addDequantized(x.data(), a.data(), n, samples, scale, zeroPoint).isOk())
        std::printf("add failed\n");
    std::vector<Q> riding(x.size());
    if (!sweepValue(x.data(), n, samples,
                    {{&first, type, a.data(), scale, zeroPoint},
                     {&second, type, b.data(), scale, zeroPoint}},
                    {{type, riding.data(), 0.0173f, zeroPoint}})
             .isOk())
        std::printf("sweep failed\n");
    const std::string label = std::string(typeName) + " " + std::to_string(size);
    if (type == DataType::UInt8) printMetrics("float " + std::to_string(size), floatAcc);
    printMetrics(label + " single", quantAcc);
    printMetrics(label + " pair first", first);
    printMetrics(label + " pair second", second);
    std::printf("%s quantized by the sweep: %016" PRIx64 "\n", label.c_str(),
                fnv1a(riding.data(), riding.size()));
}

// A float conv weight against its per-channel int8 quantization, with a BatchNorm-like factor
// per channel, and a MatMul weight whose channels are columns (strided).
void weightCorrelations() {
    for (const Shape &shape : {Shape{64, 32, 3, 3}, Shape{77, 130}}) {
        const bool columns = shape.size() == 2;
        const int64_t channels = columns ? shape[1] : shape[0];
        const int64_t axis = columns ? 1 : 0;
        int64_t total = 1;
        for (int64_t d : shape) total *= d;
        const std::vector<float> w = normalValues(size_t(total), unsigned(total), 0.1f);
        quant::QParams qp;
        qp.type = DataType::Int8;
        qp.axis = axis;
        qp.scale.resize(size_t(channels));
        qp.zeroPoint.assign(size_t(channels), 0);
        for (int64_t c = 0; c < channels; ++c) qp.scale[size_t(c)] = 0.001f * float(1 + c % 5);
        std::vector<int8_t> q(static_cast<size_t>(total));
        std::vector<float> folded(static_cast<size_t>(total));
        forEachChannelRun(shape, axis, [&](int64_t start, int64_t count, int64_t c) {
            quantizeValues(w.data() + start, q.data() + start, count, qp.scale[size_t(c)], 0);
            for (int64_t i = start; i < start + count; ++i)
                folded[size_t(i)] = w[size_t(i)] * (c % 3 == 0 ? -1.7f : 0.6f);
        });
        const WeightEvidence floatSide{Tensor::fromVector<float>(shape, folded), std::nullopt,
                                       axis};
        const WeightEvidence quantSide{Tensor::fromVector<int8_t>(shape, q), qp, axis};
        std::printf("weight correlation %s: %a screened %a\n", shapeToString(shape).c_str(),
                    weightCorrelation(floatSide, quantSide).value_or(-1.0),
                    weightCorrelation(floatSide, quantSide, 8).value_or(-1.0));
    }
}

// QLinearAdd and QLinearMul, same shapes and a broadcast scalar, uint8 and int8.
template <class T>
void qlinearBinary(const char *typeName) {
    for (const char *op : {"QLinearAdd", "QLinearMul"}) {
        for (const Shape &bShape : {Shape{2, 37, 53}, Shape{1}}) {
            const Shape aShape{2, 37, 53};
            const Tensor a = randomIntegers<T>(aShape, 11), b = randomIntegers<T>(bShape, 12);
            const SingleNodeRun run =
                runSingleNode(msNode(op), {a, fscalar(0.037f), zscalar<T>(3), b, fscalar(0.051f),
                                           zscalar<T>(7), fscalar(0.09f), zscalar<T>(5)});
            if (!run.status.isOk()) {
                std::printf("%s %s failed: %s\n", op, typeName, run.status.message().c_str());
                continue;
            }
            const Tensor &y = run.outputs[0];
            std::printf("%s %s b %s: %016" PRIx64 "\n", op, typeName, shapeToString(bShape).c_str(),
                        fnv1a(y.rawData(), size_t(y.byteSize())));
        }
    }
}

void dequantization() {
    const std::vector<float> x = normalValues(70001, 5, 2.0f);
    std::vector<uint8_t> u(x.size());
    std::vector<int8_t> s(x.size());
    quantizeValues(x.data(), u.data(), int64_t(x.size()), 0.0173f, 117);
    quantizeValues(x.data(), s.data(), int64_t(x.size()), 0.0173f, -3);
    std::vector<float> du(x.size()), ds(x.size());
    dequantizeValues(u.data(), du.data(), int64_t(x.size()), 0.0173f, 117);
    dequantizeValues(s.data(), ds.data(), int64_t(x.size()), 0.0173f, -3);
    std::printf("quantize uint8 %016" PRIx64 " int8 %016" PRIx64 "\n", fnv1a(u.data(), u.size()),
                fnv1a(s.data(), s.size()));
    std::printf("dequantize uint8 %016" PRIx64 " int8 %016" PRIx64 "\n",
                fnv1a(du.data(), du.size() * sizeof(float)),
                fnv1a(ds.data(), ds.size() * sizeof(float)));
}

}  // namespace

int main() {
    for (int64_t size : kSampleSizes) {
        comparisons<uint8_t>(size, "uint8", DataType::UInt8, 120);
        comparisons<int8_t>(size, "int8", DataType::Int8, -4);
    }
    weightCorrelations();
    qlinearBinary<uint8_t>("uint8");
    qlinearBinary<int8_t>("int8");
    dequantization();
    return 0;
}
