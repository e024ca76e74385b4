#include "kernels/quantized_dnnl_common.h"

#include <algorithm>
#include <cmath>

#include "kernels/dnnl_scratchpad.h"
#include "kernels/quantized_conv_fixups.h"

namespace ql::quant {

bool cpuHasExactInt8Dot() {
    using isa = dnnl::cpu_isa;
    static const bool exact = [] {
        const isa effective = dnnl::get_effective_cpu_isa();
        return effective == isa::avx512_core_vnni || effective == isa::avx512_core_bf16 ||
               effective == isa::avx512_core_amx || effective == isa::avx2_vnni;
    }();
    return exact;
}

dnnl::memory::data_type dnnlType(DataType type) {
    using dt = dnnl::memory::data_type;
    switch (type) {
        case DataType::UInt8:
            return dt::u8;
        case DataType::Int8:
            return dt::s8;
        case DataType::Int32:
            return dt::s32;
        case DataType::Float:
            return dt::f32;
        default:
            return dt::undef;
    }
}

bool adjacentPairsMayOverflow(const int8_t *w, int64_t rows, int64_t depth, int64_t inner) {
    for (int64_t r = 0; r < rows; ++r) {
        const int8_t *row = w + r * depth * inner;
        for (int64_t d = 0; d + 1 < depth; d += 2) {
            for (int64_t i = 0; i < inner; ++i) {
                const int v0 = row[d * inner + i], v1 = row[(d + 1) * inner + i];
                const int pos = std::max(v0, 0) + std::max(v1, 0);
                const int neg = std::max(-v0, 0) + std::max(-v1, 0);
                if (pos > 128 || neg > 128) return true;
            }
        }
    }
    return false;
}

void splitWeights(const int8_t *w, int64_t count, int8_t *a, int8_t *b) {
    for (int64_t i = 0; i < count; ++i) {
        const int v = w[i];
        const int lowPart = std::min(64, std::max(-64, v));
        a[i] = static_cast<int8_t>(lowPart);
        b[i] = static_cast<int8_t>(v - lowPart);
    }
}

void flipSignBit(const int8_t *x, uint8_t *dst, int64_t count) {
    const auto *src = reinterpret_cast<const uint8_t *>(x);
#pragma omp parallel for if (count > (1 << 16))
    for (int64_t i = 0; i < count; ++i) dst[i] = static_cast<uint8_t>(src[i] ^ 0x80u);
}

void Requantizer::run(const int32_t *acc, int64_t outer, int64_t channels, DataType outType,
                      void *y, int64_t outerStride, int64_t channelStride) const {
    const float flo = static_cast<float>(lo), fhi = static_cast<float>(hi);
    std::vector<float> expanded;
    const float *mult = multiplier.data();
    if (multiplier.size() != static_cast<size_t>(channels)) {
        expanded.assign(static_cast<size_t>(channels), multiplier[0]);
        mult = expanded.data();
    }
    const size_t elementSize = 1;  // uint8 or int8
    if (channelStride == 1) {  // rows of y are contiguous: the vectorised row loop
#pragma omp parallel for if (outer * channels > (1 << 15))
        for (int64_t o = 0; o < outer; ++o)
            requantizeRow(acc + o * channels, channels, mult, zeroPoint, flo, fhi, outType,
                          static_cast<uint8_t *>(y) + o * outerStride * elementSize);
        return;
    }
#pragma omp parallel for if (outer * channels > (1 << 15))
    for (int64_t o = 0; o < outer; ++o) {
        const int32_t *row = acc + o * channels;
        for (int64_t c = 0; c < channels; ++c) {
            float v = roundHalfEven(static_cast<float>(row[c]) * mult[c]) + zeroPoint;
            v = std::min(std::max(v, flo), fhi);  // NaN cannot occur: acc and mult are finite
            const int64_t at = o * outerStride + c * channelStride;
            if (outType == DataType::UInt8)
                static_cast<uint8_t *>(y)[at] = static_cast<uint8_t>(v);
            else
                static_cast<int8_t *>(y)[at] = static_cast<int8_t>(v);
        }
    }
}

SplitPassAttributes makeSplitPassAttributes(bool hasSrcZeroPoint) {
    SplitPassAttributes attrs{dnnl_support::ownScratchpad(), dnnl_support::ownScratchpad()};
    if (hasSrcZeroPoint) {
        attrs.first.set_zero_points(DNNL_ARG_SRC, 0, {DNNL_RUNTIME_S32_VAL});
        attrs.second.set_zero_points(DNNL_ARG_SRC, 0, {DNNL_RUNTIME_S32_VAL});
    }
    dnnl::post_ops sum;
    sum.append_sum(1.0f);
    attrs.second.set_post_ops(sum);
    return attrs;
}

void appendActivation(dnnl::post_ops &ops, const QuantActivation &act, float yScale) {
    using alg = dnnl::algorithm;
    if (act.kind == QuantActivation::Kind::Relu) {
        ops.append_eltwise(1.0f, alg::eltwise_relu, 0.0f, 0.0f);
    } else if (act.kind == QuantActivation::Kind::Clip) {
        // Infinite bounds mean "no bound"; the saturation to the output type does the rest.
        const float lo = std::isfinite(act.clipMin) ? act.clipMin / yScale : -1e30f;
        const float hi = std::isfinite(act.clipMax) ? act.clipMax / yScale : 1e30f;
        ops.append_eltwise(1.0f, alg::eltwise_clip, lo, hi);
    }
}

Status runReferenceOnPlain(Kernel &reference, KernelContext &ctx) {
    std::vector<Tensor> plain(ctx.inputCount());
    bool any = false;
    for (size_t i = 0; i < ctx.inputCount(); ++i) {
        if (ctx.hasInput(i) && ctx.input(i).layout() != Layout::Plain) {
            plain[i] = ctx.input(i).toPlain();
            any = true;
        }
    }
    if (!any) return reference.run(ctx);
    SubstitutedInputs substituted(ctx, std::move(plain));
    return reference.run(substituted);
}

}  // namespace ql::quant
