// The unary ops that are more than a lambda: Cast/CastLike (every numeric pair), Clip (bounds
// as attributes or inputs, integer types), Dropout (inference only), Identity and Not.

#include <cmath>
#include <limits>
#include <type_traits>

#include "ir/float8.h"
#include "kernels/elementwise_unary.h"
#include "kernels/shape_common.h"

namespace ql::elementwise {

namespace {

// Storage stand-ins so one template converts between every pair of element types.
struct Bool8 {
    uint8_t v;
};
struct Half16 {
    uint16_t v;
};
struct BFloat16Bits {
    uint16_t v;
};

template <class To, class From>
To convertValue(From v) {
    if constexpr (std::is_same_v<From, Bool8>) {
        return convertValue<To>(static_cast<uint8_t>(v.v != 0));
    } else if constexpr (std::is_same_v<From, Half16>) {
        return convertValue<To>(halfToFloat(v.v));
    } else if constexpr (std::is_same_v<From, BFloat16Bits>) {
        return convertValue<To>(bfloat16ToFloat(v.v));
    } else if constexpr (std::is_same_v<To, Bool8>) {
        return Bool8{static_cast<uint8_t>(v != From(0))};
    } else if constexpr (std::is_same_v<To, Half16>) {
        return Half16{floatToHalf(static_cast<float>(v))};
    } else if constexpr (std::is_same_v<To, BFloat16Bits>) {
        return BFloat16Bits{floatToBfloat16(static_cast<float>(v))};
    } else {
        return static_cast<To>(v);
    }
}

// Like dispatchNumeric, plus bool and the 16-bit float types as storage stand-ins.
template <class Fn>
bool dispatchCastable(DataType type, Fn &&fn) {
    switch (type) {
        case DataType::Bool:
            fn(Bool8{});
            return true;
        case DataType::Float16:
            fn(Half16{});
            return true;
        case DataType::BFloat16:
            fn(BFloat16Bits{});
            return true;
        default:
            return dispatchNumeric(type, fn);
    }
}

// The upper half of the float's bits; NaN stays NaN (a quiet bit is kept in the upper half).
uint16_t truncateToBfloat16(float value) {
    uint32_t bits;
    std::memcpy(&bits, &value, 4);
    const uint16_t upper = static_cast<uint16_t>(bits >> 16);
    return std::isnan(value) ? static_cast<uint16_t>(upper | 0x40u) : upper;
}

bool isCastable(DataType type) {
    return type == DataType::Bool || isFloatingPoint(type) || isInteger(type) || isFloat8(type) ||
           isFourBit(type);
}

// Casts from or to float8 and from 4-bit integers, through each value as a double (exact for
// these types): float8 targets round to nearest even, saturating or not as Cast-19 says.
Status castThroughDouble(const Tensor &input, Tensor &output, bool saturate) {
    const DataType from = input.dtype(), to = output.dtype();
    if (isFourBit(to))
        return Status::unsupported("cast from " + dataTypeName(from) + " to " + dataTypeName(to) +
                                   " is not supported");
    const void *in = input.rawData();
    auto *out = static_cast<uint8_t *>(output.rawData());
    const size_t size = dataTypeSize(to);
    parallelRange(input.numel(), [&](int64_t begin, int64_t end) {
        for (int64_t i = begin; i < end; ++i) {
            const double v = elementAsDouble(from, in, i);
            if (isFloat8(to))
                out[i] = floatToFloat8(static_cast<float>(v), to, saturate);
            else
                shape::encodeScalar(to, v, out + static_cast<size_t>(i) * size);
        }
    });
    return Status::ok();
}

}  // namespace

Status castInto(const Tensor &input, Tensor &output, BFloat16Rounding rounding,
                bool saturateFloat8) {
    if (!isCastable(input.dtype()) || !isCastable(output.dtype())) {
        return Status::unsupported("cast from " + dataTypeName(input.dtype()) + " to " +
                                   dataTypeName(output.dtype()) + " is not supported");
    }
    const int64_t n = input.numel();
    if (input.dtype() == output.dtype()) {
        if (n) std::memcpy(output.rawData(), input.rawData(), input.byteSize());
        return Status::ok();
    }
    if (isFloat8(input.dtype()) || isFloat8(output.dtype()) || isFourBit(input.dtype()) ||
        isFourBit(output.dtype()))
        return castThroughDouble(input, output, saturateFloat8);
    if (output.dtype() == DataType::BFloat16 && rounding == BFloat16Rounding::Truncate) {
        dispatchCastable(input.dtype(), [&](auto fromTag) {
            using From = decltype(fromTag);
            const From *in = static_cast<const From *>(input.rawData());
            uint16_t *out = static_cast<uint16_t *>(output.rawData());
            parallelRange(n, [&](int64_t begin, int64_t end) {
                for (int64_t i = begin; i < end; ++i) out[i] = truncateToBfloat16(convertValue<float>(in[i]));
            });
        });
        return Status::ok();
    }
    dispatchCastable(input.dtype(), [&](auto fromTag) {
        using From = decltype(fromTag);
        dispatchCastable(output.dtype(), [&](auto toTag) {
            using To = decltype(toTag);
            const From *in = static_cast<const From *>(input.rawData());
            To *out = static_cast<To *>(output.rawData());
            parallelRange(n, [&](int64_t begin, int64_t end) {
                for (int64_t i = begin; i < end; ++i) out[i] = convertValue<To>(in[i]);
            });
        });
    });
    return Status::ok();
}

Result<Tensor> castTensor(const Tensor &input, DataType to) {
    if (!isCastable(to))
        return Status::unsupported("cast to " + dataTypeName(to) + " is not supported");
    Tensor out(to, input.shape(), input.layout());
    QL_RETURN_IF_ERROR(castInto(input, out));
    return out;
}

namespace {

class CastKernel final : public Kernel {
public:
    // like: CastLike takes the target type from input 1.
    // ONNX specified round-to-nearest-even for bfloat16 only in Cast-19; the reference of
    // earlier opsets (and their conformance data) truncates.
    CastKernel(DataType to, bool like, int64_t opset, bool saturate)
        : m_to(to),
          m_like(like),
          m_rounding(opset >= 19 ? BFloat16Rounding::NearestEven : BFloat16Rounding::Truncate),
          m_saturate(saturate) {}
    bool acceptsChannelsLast(size_t i) const override { return i == 0; }
    Status run(KernelContext &ctx) override {
        const Tensor &x = ctx.input(0);
        const DataType to = m_like ? ctx.input(1).dtype() : m_to;
        if (x.dtype() == to) {
            ctx.setOutput(0, x);
            return Status::ok();
        }
        if (!isCastable(x.dtype()) || !isCastable(to)) {
            return Status::unsupported("cast from " + dataTypeName(x.dtype()) + " to " +
                                       dataTypeName(to) + " is not supported");
        }
        Tensor &y = ctx.allocateOutput(0, to, x.shape(), x.layout());
        return castInto(x, y, m_rounding, m_saturate);
    }

private:
    DataType m_to;
    bool m_like;
    BFloat16Rounding m_rounding;
    bool m_saturate;  // Cast-19: float8 targets saturate (default) or overflow to NaN / Inf
};

bool saturateAttribute(const KernelBuildInfo &info) {
    return info.opset < 19 || info.node.attrInt("saturate", 1) != 0;
}

Result<KernelPtr> makeCast(const KernelBuildInfo &info) {
    const Attribute *to = info.node.hasAttribute("to") ? &info.node.attributes.at("to") : nullptr;
    if (!to) return Status::badInput("missing attribute 'to'");
    if (to->kind != Attribute::Kind::Int)
        return Status::unsupported("attribute 'to' must be an integer type code");
    const DataType type = static_cast<DataType>(to->i);
    if (!isCastable(type))
        return Status::unsupported("cast to " + dataTypeName(type) + " (type code " +
                                   std::to_string(to->i) + ") is not supported");
    return KernelPtr(new CastKernel(type, false, info.opset, saturateAttribute(info)));
}

class IdentityKernel final : public Kernel {
public:
    bool acceptsChannelsLast(size_t) const override { return true; }
    Status run(KernelContext &ctx) override {
        ctx.setOutput(0, ctx.input(0));
        return Status::ok();
    }
};

class NotKernel final : public Kernel {
public:
    bool acceptsChannelsLast(size_t) const override { return true; }
    Status run(KernelContext &ctx) override {
        const Tensor &x = ctx.input(0);
        if (x.dtype() != DataType::Bool)
            return Status::unsupported("input type " + dataTypeName(x.dtype()) +
                                       " is not supported (bool only)");
        Tensor &y = ctx.allocateOutput(0, DataType::Bool, x.shape(), x.layout());
        const uint8_t *in = x.data<uint8_t>();
        uint8_t *out = y.data<uint8_t>();
        parallelRange(x.numel(), [&](int64_t begin, int64_t end) {
            for (int64_t i = begin; i < end; ++i) out[i] = in[i] == 0;
        });
        return Status::ok();
    }
};

// Clip: bounds from attributes (opset < 11) or optional scalar inputs 1 and 2.
class ClipKernel final : public Kernel {
public:
    explicit ClipKernel(const KernelBuildInfo &info) : m_boundsAreInputs(info.opset >= 11) {
        m_attrMin = info.node.attrFloat("min", -std::numeric_limits<float>::infinity());
        m_attrMax = info.node.attrFloat("max", std::numeric_limits<float>::infinity());
    }
    bool acceptsChannelsLast(size_t i) const override { return i == 0; }

    Status run(KernelContext &ctx) override {
        const Tensor &x = ctx.input(0);
        for (size_t i = 1; m_boundsAreInputs && i < 3; ++i) {
            if (!bound(ctx, i)) continue;
            const Tensor &b = ctx.input(i);
            if (b.dtype() != x.dtype())
                return Status::badInput("bound " + std::to_string(i) + " has type " +
                                        dataTypeName(b.dtype()) + ", input has " +
                                        dataTypeName(x.dtype()));
            if (b.numel() != 1)
                return Status::badInput("bound " + std::to_string(i) +
                                        " must be a scalar, got shape " + shapeToString(b.shape()));
        }
        if (isHalfType(x.dtype())) {
            // Rare: clip in float and convert back.
            Result<Tensor> wide = castTensor(x, DataType::Float);
            if (!wide) return wide.status();
            Tensor clipped(DataType::Float, x.shape(), x.layout());
            float lo = m_attrMin, hi = m_attrMax;
            if (m_boundsAreInputs) {
                lo = bound(ctx, 1) ? static_cast<float>(ctx.input(1).valueAsDouble(0)) : -INFINITY;
                hi = bound(ctx, 2) ? static_cast<float>(ctx.input(2).valueAsDouble(0)) : INFINITY;
            }
            clip(wide.value().data<float>(), clipped.data<float>(), x.numel(), lo, hi);
            Tensor &y = ctx.allocateOutput(0, x.dtype(), x.shape(), x.layout());
            return castInto(clipped, y);
        }
        bool supported = false;
        dispatchNumeric(x.dtype(), [&](auto tag) {
            using T = decltype(tag);
            if (!m_boundsAreInputs && !std::is_floating_point_v<T>) return;
            supported = true;
            T lo, hi;
            if constexpr (std::is_floating_point_v<T>) {
                lo = -std::numeric_limits<T>::infinity();
                hi = std::numeric_limits<T>::infinity();
            } else {
                lo = std::numeric_limits<T>::lowest();
                hi = std::numeric_limits<T>::max();
            }
            if (!m_boundsAreInputs) {
                lo = static_cast<T>(m_attrMin);
                hi = static_cast<T>(m_attrMax);
            }
            if (m_boundsAreInputs && bound(ctx, 1)) lo = ctx.input(1).data<T>()[0];
            if (m_boundsAreInputs && bound(ctx, 2)) hi = ctx.input(2).data<T>()[0];
            Tensor &y = ctx.allocateOutput(0, x.dtype(), x.shape(), x.layout());
            clip(x.data<T>(), y.data<T>(), x.numel(), lo, hi);
        });
        if (!supported)
            return Status::unsupported("input type " + dataTypeName(x.dtype()) +
                                       " is not supported");
        return Status::ok();
    }

private:
    // An empty bound tensor counts as absent, as in ONNX Runtime.
    static bool bound(const KernelContext &ctx, size_t i) {
        return ctx.hasInput(i) && ctx.input(i).numel() > 0;
    }
    template <class T>
    static void clip(const T *in, T *out, int64_t n, T lo, T hi) {
        // min(max(x, lo), hi): NaN stays NaN, and lo > hi gives hi as numpy.clip does.
        applyUnary(in, out, n, [lo, hi](T x) {
            const T v = x < lo ? lo : x;
            return v > hi ? hi : v;
        });
    }

    bool m_boundsAreInputs;
    float m_attrMin, m_attrMax;
};

// Inference-mode Dropout: the output is the input; the optional mask is all true (all ones of
// the input type before opset 10). Training mode is only accepted when the ratio is zero.
class DropoutKernel final : public Kernel {
public:
    explicit DropoutKernel(const KernelBuildInfo &info) : m_opset(info.opset) {
        m_trainingAttr = info.opset < 7 && info.node.attrInt("is_test", 0) == 0 &&
                         info.node.hasAttribute("is_test");
    }
    bool acceptsChannelsLast(size_t i) const override { return i == 0; }

    Status run(KernelContext &ctx) override {
        const Tensor &x = ctx.input(0);
        if (m_trainingAttr)
            return Status::unsupported("training mode (is_test = 0) is not supported");
        if (m_opset >= 12 && ctx.hasInput(2) && ctx.input(2).numel() > 0 &&
            ctx.input(2).valueAsDouble(0) != 0.0) {
            const double ratio =
                ctx.hasInput(1) && ctx.input(1).numel() > 0 ? ctx.input(1).valueAsDouble(0) : 0.5;
            if (ratio != 0.0)
                return Status::unsupported(
                    "training_mode = true with a non-zero ratio (random dropout) "
                    "is not supported");
        }
        ctx.setOutput(0, x);
        if (ctx.outputCount() > 1) {
            const DataType maskType = m_opset < 10 ? x.dtype() : DataType::Bool;
            Tensor &mask = ctx.allocateOutput(1, maskType, x.shape(), x.layout());
            if (maskType == DataType::Bool) {
                std::memset(mask.rawData(), 1, mask.byteSize());
            } else {
                Tensor one(DataType::Bool, {1});
                one.data<uint8_t>()[0] = 1;
                Result<Tensor> typed = castTensor(one, maskType);
                if (!typed) return typed.status();
                const size_t size = dataTypeSize(maskType);
                auto *out = static_cast<uint8_t *>(mask.rawData());
                for (int64_t i = 0; i < mask.numel(); ++i)
                    std::memcpy(out + i * size, typed.value().rawData(), size);
            }
        }
        return Status::ok();
    }

private:
    int64_t m_opset;
    bool m_trainingAttr = false;
};

}  // namespace

void registerElementwiseMiscKernels(KernelRegistry &r) {
    r.add("Cast", makeCast);
    r.add("CastLike", [](const KernelBuildInfo &info) -> Result<KernelPtr> {
        return KernelPtr(
            new CastKernel(DataType::Undefined, true, info.opset, saturateAttribute(info)));
    });
    r.add("Identity", [](const KernelBuildInfo &) -> Result<KernelPtr> {
        return KernelPtr(new IdentityKernel());
    });
    r.add("Not",
          [](const KernelBuildInfo &) -> Result<KernelPtr> { return KernelPtr(new NotKernel()); });
    r.add("Clip", makeFactory<ClipKernel>());
    r.add("Dropout", makeFactory<DropoutKernel>());
}

}  // namespace ql::elementwise
