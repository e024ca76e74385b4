// com.microsoft QLinearGlobalAveragePool, QLinearAveragePool and QLinearConcat.
// Global pooling sums integers exactly and requantizes once per channel; windowed average
// pooling (rare in int8 networks) dequantizes, pools in float and quantizes; Concat requantizes
// each input through a 256-entry table, or copies it when its parameters equal the output's.

#include <omp.h>

#include <algorithm>
#include <cstring>
#include <vector>

#include "kernels/elementwise_support.h"
#include "kernels/kernel.h"
#include "kernels/pooling_common.h"
#include "kernels/qlinear_common.h"
#include "kernels/quantization_common.h"
#include "kernels/type_dispatch.h"

namespace ql::quant {

namespace {

template <class T>
constexpr float lowOf() { return std::is_signed<T>::value ? -128.0f : 0.0f; }
template <class T>
constexpr float highOf() { return std::is_signed<T>::value ? 127.0f : 255.0f; }

// Reads X's and Y's parameters of the pooling ops (X, x_scale, x_zero_point, y_scale,
// y_zero_point), checking the types and that X is [N, C, spatial...] (at least 3-D).
Status readPoolParams(const KernelContext &ctx, ScalarQParams &qx, ScalarQParams &qy) {
    if (ctx.inputCount() < 4 || !ctx.hasInput(0))
        return Status::badInput("expects inputs X, x_scale, x_zero_point, y_scale[, y_zero_point]");
    const DataType type = ctx.input(0).dtype();
    QL_RETURN_IF_ERROR(checkEightBit(type, "X"));
    QL_RETURN_IF_ERROR(readScalarQParams(ctx, 1, 2, type, "X", qx));
    QL_RETURN_IF_ERROR(readScalarQParams(ctx, 3, 4, type, "Y", qy));
    if (ctx.input(0).rank() < 3)
        return Status::badInput("expects an input [N, C, spatial...], got " +
                                shapeToString(ctx.input(0).shape()));
    return Status::ok();
}

// y = q(sx/count * (sum - count*zx)) for each of `n` sums.
template <class T>
void requantizeMeans(const int64_t *sums, int64_t n, int64_t count, const ScalarQParams &qx,
                     const ScalarQParams &qy, T *y) {
    const double multiplier = count > 0 ? double(qx.scale) / (double(qy.scale) * double(count)) : 0.0;
    const float zy = static_cast<float>(qy.zeroPoint);
    const float lo = lowOf<T>() - zy, hi = highOf<T>() - zy;
    for (int64_t i = 0; i < n; ++i) {
        const double centred = double(sums[i]) - double(count) * double(qx.zeroPoint);
        const float v = static_cast<float>(centred * multiplier);
        y[i] = static_cast<T>(static_cast<int32_t>(clampRound(v, lo, hi)) + qy.zeroPoint);
    }
}

// Per (batch, channel) integer sums of x stored either [N, C, size] (plain) or [N, size, C].
template <class T>
void channelSums(const T *x, int64_t batch, int64_t channels, int64_t size, bool channelsLast,
                 std::vector<int64_t> &sums) {
    sums.assign(static_cast<size_t>(batch * channels), 0);
    const bool parallel = batch * channels * size > elementwise::kParallelThreshold;
    if (!channelsLast) {
#pragma omp parallel for if (parallel) schedule(static)
        for (int64_t r = 0; r < batch * channels; ++r) {
            const T *row = x + r * size;
            int64_t sum = 0;
            for (int64_t i = 0; i < size; ++i) sum += row[i];
            sums[r] = sum;
        }
        return;
    }
    // Rows of C contiguous values per pixel: accumulate a channel vector in int32 blocks short
    // enough never to overflow (2^23 pixels of at most 255).
    for (int64_t n = 0; n < batch; ++n) {
        int64_t *out = sums.data() + n * channels;
        std::vector<int32_t> acc(static_cast<size_t>(channels));
        const int64_t block = int64_t(1) << 23;
        for (int64_t start = 0; start < size; start += block) {
            std::fill(acc.begin(), acc.end(), 0);
            const int64_t stop = std::min(size, start + block);
            for (int64_t p = start; p < stop; ++p) {
                const T *pixel = x + (n * size + p) * channels;
                int32_t *a = acc.data();
                for (int64_t c = 0; c < channels; ++c) a[c] += pixel[c];
            }
            for (int64_t c = 0; c < channels; ++c) out[c] += acc[c];
        }
    }
}

// X, x_scale, x_zero_point, y_scale, y_zero_point; attribute channels_last says X's logical
// shape is [N, spatial..., C]. Our own channels-last storage of a logical NCHW X is accepted too.
class QLinearGlobalAveragePoolKernel final : public Kernel {
public:
    explicit QLinearGlobalAveragePoolKernel(const KernelBuildInfo &info)
        : m_channelsLastAttr(info.node.attrInt("channels_last", 0) != 0) {}

    bool acceptsChannelsLast(size_t i) const override { return i == 0 && !m_channelsLastAttr; }

    Status run(KernelContext &ctx) override {
        ScalarQParams qx, qy;
        QL_RETURN_IF_ERROR(readPoolParams(ctx, qx, qy));
        const Tensor &x = ctx.input(0);
        const Shape &s = x.shape();
        const int64_t batch = s[0];
        const int64_t channels = m_channelsLastAttr ? s.back() : s[1];
        const int64_t size = x.numel() / std::max<int64_t>(1, batch * channels);
        Shape outShape(s.size(), 1);
        outShape[0] = batch;
        outShape[m_channelsLastAttr ? s.size() - 1 : 1] = channels;
        const bool storedChannelsLast = m_channelsLastAttr || x.layout() == Layout::ChannelsLast;
        // [N, C, 1, 1] is the same bytes in either layout: emit it plain.
        Tensor &y = ctx.allocateOutput(0, x.dtype(), outShape);
        dispatchAmong<uint8_t, int8_t>(x.dtype(), [&](auto tag) {
            using T = decltype(tag);
            channelSums(x.data<T>(), batch, channels, size, storedChannelsLast, m_sums);
            requantizeMeans(m_sums.data(), batch * channels, size, qx, qy, y.data<T>());
        });
        return Status::ok();
    }

private:
    bool m_channelsLastAttr;
    std::vector<int64_t> m_sums;
};

// Moves the last axis of [N, spatial..., C] to position 1 (to = true) or back.
void permuteChannels(const float *src, float *dst, const Shape &channelsFirst, bool toFirst) {
    const int64_t batch = channelsFirst[0], channels = channelsFirst[1];
    const int64_t size = shapeElementCount(channelsFirst) / std::max<int64_t>(1, batch * channels);
    for (int64_t n = 0; n < batch; ++n)
        for (int64_t p = 0; p < size; ++p)
            for (int64_t c = 0; c < channels; ++c) {
                const int64_t first = (n * channels + c) * size + p;
                const int64_t last = (n * size + p) * channels + c;
                if (toFirst)
                    dst[first] = src[last];
                else
                    dst[last] = src[first];
            }
}

class QLinearAveragePoolKernel final : public Kernel {
public:
    QLinearAveragePoolKernel(const KernelBuildInfo &info, pooling::PoolAttributes attrs)
        : m_attrs(std::move(attrs)),
          m_channelsLastAttr(info.node.attrInt("channels_last", 0) != 0) {}

    Status run(KernelContext &ctx) override {
        ScalarQParams qx, qy;
        QL_RETURN_IF_ERROR(readPoolParams(ctx, qx, qy));
        const Tensor &x = ctx.input(0);
        // Work in the [N, C, spatial...] order the pooling geometry expects.
        Shape nc = x.shape();
        if (m_channelsLastAttr) {
            nc.pop_back();
            nc.insert(nc.begin() + 1, x.shape().back());
        }
        Tensor real(DataType::Float, nc);
        dequantizeInto(x, qx, real);
        pooling::PoolGeometry g;
        QL_RETURN_IF_ERROR(pooling::computePoolGeometry(m_attrs, nc, g));
        const Shape pooledShape = g.outputShape();
        Tensor pooled(DataType::Float, pooledShape);
        QL_RETURN_IF_ERROR(pooling::poolReference(real, pooled, nullptr, g, false, m_attrs));
        Shape outShape = pooledShape;
        if (m_channelsLastAttr) {
            outShape.erase(outShape.begin() + 1);
            outShape.push_back(pooledShape[1]);
            Tensor back(DataType::Float, outShape);
            permuteChannels(pooled.data<float>(), back.data<float>(), pooledShape, false);
            pooled = back;
        }
        Tensor &y = ctx.allocateOutput(0, x.dtype(), outShape);
        const float zy = static_cast<float>(qy.zeroPoint);
        dispatchAmong<uint8_t, int8_t>(x.dtype(), [&](auto tag) {
            using T = decltype(tag);
            const float *src = pooled.data<float>();
            T *dst = y.data<T>();
            const float lo = lowOf<T>() - zy, hi = highOf<T>() - zy;
            for (int64_t i = 0; i < y.numel(); ++i)
                dst[i] = static_cast<T>(
                    static_cast<int32_t>(clampRound(src[i] / qy.scale, lo, hi)) + qy.zeroPoint);
        });
        return Status::ok();
    }

private:
    // real = x_scale * (x - x_zero_point), stored [N, C, spatial...].
    void dequantizeInto(const Tensor &x, const ScalarQParams &qx, Tensor &real) const {
        std::vector<float> flat(static_cast<size_t>(x.numel()));
        dispatchAmong<uint8_t, int8_t>(x.dtype(), [&](auto tag) {
            using T = decltype(tag);
            const T *src = x.data<T>();
            for (int64_t i = 0; i < x.numel(); ++i)
                flat[i] = qx.scale * static_cast<float>(static_cast<int32_t>(src[i]) - qx.zeroPoint);
        });
        if (m_channelsLastAttr)
            permuteChannels(flat.data(), real.data<float>(), real.shape(), true);
        else
            std::memcpy(real.data<float>(), flat.data(), flat.size() * sizeof(float));
    }

    pooling::PoolAttributes m_attrs;
    bool m_channelsLastAttr;
};

// Y_scale, Y_zero_point, then (X, X_scale, X_zero_point) per input; attribute axis.
class QLinearConcatKernel final : public Kernel {
public:
    explicit QLinearConcatKernel(const KernelBuildInfo &info)
        : m_axis(info.node.attrInt("axis", 0)) {}

    // Along the channel axis of rank-4 data, channels-last inputs concatenate in place.
    bool acceptsChannelsLast(size_t i) const override {
        return i >= 2 && (i - 2) % 3 == 0 && (m_axis == 1 || m_axis == -3);
    }

    Status run(KernelContext &ctx) override {
        const size_t count = ctx.inputCount();
        if (count < 5 || (count - 2) % 3 != 0)
            return Status::badInput("expects Y_scale, Y_zero_point and then (X, X_scale, "
                                    "X_zero_point) triples, got " + std::to_string(count) +
                                    " inputs");
        const size_t inputs = (count - 2) / 3;
        if (!ctx.hasInput(2)) return Status::badInput("input 0 is missing");
        const Tensor &first = ctx.input(2);
        const DataType type = first.dtype();
        QL_RETURN_IF_ERROR(checkEightBit(type, "input 0"));
        ScalarQParams qy;
        QL_RETURN_IF_ERROR(readScalarQParams(ctx, 0, 1, type, "Y", qy));
        const int rank = first.rank();
        int64_t axis = 0;
        QL_RETURN_IF_ERROR(normalizeAxis(m_axis, rank, axis));

        std::vector<Tensor> xs(inputs);
        std::vector<ScalarQParams> qs(inputs);
        bool anyChannelsLast = false;
        Shape outShape = first.shape();
        outShape[axis] = 0;
        for (size_t k = 0; k < inputs; ++k) {
            const size_t i = 2 + 3 * k;
            const std::string name = "input " + std::to_string(k);
            if (!ctx.hasInput(i)) return Status::badInput(name + " is missing");
            xs[k] = ctx.input(i);
            if (xs[k].dtype() != type)
                return Status::badInput(name + " is " + dataTypeName(xs[k].dtype()) +
                                        " but input 0 is " + dataTypeName(type));
            QL_RETURN_IF_ERROR(readScalarQParams(ctx, i + 1, i + 2, type, name, qs[k]));
            if (xs[k].rank() != rank)
                return Status::badInput(name + " has rank " + std::to_string(xs[k].rank()) +
                                        " but input 0 has rank " + std::to_string(rank));
            for (int d = 0; d < rank; ++d)
                if (d != axis && xs[k].dim(d) != first.dim(d))
                    return Status::badInput(name + " shape " + shapeToString(xs[k].shape()) +
                                            " does not match " + shapeToString(first.shape()) +
                                            " outside axis " + std::to_string(axis));
            outShape[axis] += xs[k].dim(static_cast<int>(axis));
            anyChannelsLast = anyChannelsLast || xs[k].layout() == Layout::ChannelsLast;
        }
        const bool channelsLast = anyChannelsLast && rank == 4 && axis == 1;
        // Physical (storage-order) shapes and axis.
        int64_t physicalAxis = axis;
        for (Tensor &t : xs) {
            if (channelsLast && t.layout() != Layout::ChannelsLast) t = t.toChannelsLast();
            if (!channelsLast) t = t.toPlain();
        }
        if (channelsLast) physicalAxis = 3;
        Tensor &y = ctx.allocateOutput(0, type, outShape,
                                       channelsLast ? Layout::ChannelsLast : Layout::Plain);
        auto physical = [&](const Shape &s) {
            return channelsLast ? Shape{s[0], s[2], s[3], s[1]} : s;
        };
        const Shape physOut = physical(outShape);
        int64_t outer = 1;
        for (int64_t d = 0; d < physicalAxis; ++d) outer *= physOut[d];
        const int64_t outRow = outer > 0 ? y.numel() / outer : 0;

        dispatchAmong<uint8_t, int8_t>(type, [&](auto tag) {
            using T = decltype(tag);
            T *dst = y.data<T>();
            int64_t offset = 0;
            for (size_t k = 0; k < inputs; ++k) {
                const int64_t inner = outer > 0 ? xs[k].numel() / outer : 0;
                const T *src = xs[k].data<T>();
                const bool copy = qs[k].scale == qy.scale && qs[k].zeroPoint == qy.zeroPoint;
                T table[256];
                if (!copy) buildLookupTable<T>(qs[k], qy, [](float r) { return r; }, table);
                const bool parallel = outer * inner > elementwise::kParallelThreshold;
#pragma omp parallel for if (parallel) schedule(static)
                for (int64_t o = 0; o < outer; ++o) {
                    const T *in = src + o * inner;
                    T *out = dst + o * outRow + offset;
                    if (copy) {
                        std::memcpy(out, in, static_cast<size_t>(inner) * sizeof(T));
                    } else {
                        for (int64_t j = 0; j < inner; ++j)
                            out[j] = table[static_cast<uint8_t>(in[j])];
                    }
                }
                offset += inner;
            }
        });
        return Status::ok();
    }

private:
    int64_t m_axis;
};

}  // namespace

void registerQLinearPoolingKernels(KernelRegistry &registry) {
    const std::string ms = "com.microsoft";
    registry.add("QLinearGlobalAveragePool", makeFactory<QLinearGlobalAveragePoolKernel>(), ms);
    registry.add("QLinearAveragePool", [](const KernelBuildInfo &info) -> Result<KernelPtr> {
        pooling::PoolAttributes attrs;
        Status parsed = pooling::parsePoolAttributes(info.node, attrs);
        if (!parsed) return parsed.withContext(info.node.describe());
        return KernelPtr(new QLinearAveragePoolKernel(info, std::move(attrs)));
    }, ms);
    registry.add("QLinearConcat", makeFactory<QLinearConcatKernel>(), ms);
}

}  // namespace ql::quant
