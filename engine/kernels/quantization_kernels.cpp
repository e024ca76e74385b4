// Exact reference kernels for the ONNX quantization operators: QuantizeLinear,
// DequantizeLinear, DynamicQuantizeLinear here; the integer Conv/MatMul family in
// quantization_linear.cpp. Plain C++, written for exactness against the ONNX reference.

#include <algorithm>
#include <cmath>
#include <sstream>

#include "ir/channel_runs.h"
#include "ir/float8.h"
#include "kernels/elementwise_support.h"
#include "kernels/kernel.h"
#include "kernels/kernel_families.h"
#include "kernels/qlinear_common.h"
#include "kernels/quantization_common.h"
#include "kernels/type_dispatch.h"
#include "quant/finite_summary.h"

namespace ql {
namespace quant {

Status integerRange(DataType type, int64_t &lo, int64_t &hi) {
    switch (type) {
    case DataType::UInt8: lo = 0; hi = 255; return Status::ok();
    case DataType::Int8: lo = -128; hi = 127; return Status::ok();
    case DataType::UInt16: lo = 0; hi = 65535; return Status::ok();
    case DataType::Int16: lo = -32768; hi = 32767; return Status::ok();
    case DataType::UInt4:
        lo = 0;
        hi = 15;
        return Status::ok();
    case DataType::Int4:
        lo = -8;
        hi = 7;
        return Status::ok();
    case DataType::Int32: lo = INT32_MIN; hi = INT32_MAX; return Status::ok();
    default: return Status::unsupported("quantized type " + dataTypeName(type) + " is not supported");
    }
}

static std::string numberText(double v) {
    std::ostringstream s;
    s << v;
    return s.str();
}

Status readScales(const Tensor &scale, std::vector<float> &out) {
    if (scale.dtype() != DataType::Float)
        return Status::unsupported("scale of type " + dataTypeName(scale.dtype()) +
                                   " is not supported (float32 expected)");
    const float *p = scale.data<float>();
    out.assign(p, p + scale.numel());
    for (size_t i = 0; i < out.size(); ++i) {
        if (!(out[i] > 0.0f) || !std::isfinite(out[i]))
            return Status::badInput("scale must be positive and finite, got " + numberText(out[i]) +
                                    " at index " + std::to_string(i));
    }
    if (out.empty()) return Status::badInput("scale is empty");
    return Status::ok();
}

Status readZeroPoints(const Tensor &zp, DataType target, std::vector<int32_t> &out) {
    int64_t lo = 0, hi = 0, zlo = 0, zhi = 0;
    QL_RETURN_IF_ERROR(integerRange(target, lo, hi));
    if (zp.dtype() != DataType::Int64 && !integerRange(zp.dtype(), zlo, zhi).isOk())
        return Status::unsupported("zero point of type " + dataTypeName(zp.dtype()) +
                                   " is not supported");
    out.resize(static_cast<size_t>(zp.numel()));
    for (int64_t i = 0; i < zp.numel(); ++i) {
        const double v = zp.valueAsDouble(i);
        if (v < static_cast<double>(lo) || v > static_cast<double>(hi))
            return Status::badInput("zero point " + numberText(v) + " at index " +
                                    std::to_string(i) + " is outside the " +
                                    dataTypeName(target) + " range [" + std::to_string(lo) +
                                    ", " + std::to_string(hi) + "]");
        out[static_cast<size_t>(i)] = static_cast<int32_t>(v);
    }
    if (out.empty()) return Status::badInput("zero point is empty");
    return Status::ok();
}

Status checkSameShape(const Tensor &scale, const Tensor &zp) {
    if (scale.shape() != zp.shape())
        return Status::badInput("scale shape " + shapeToString(scale.shape()) +
                                " and zero point shape " + shapeToString(zp.shape()) + " differ");
    return Status::ok();
}

Status normalizeAxis(int64_t axis, int rank, int64_t &out) {
    if (axis < -rank || axis >= rank)
        return Status::badInput("axis " + std::to_string(axis) + " is out of range for rank " +
                                std::to_string(rank) + " input");
    out = axis < 0 ? axis + rank : axis;
    return Status::ok();
}

Status resolveLineLayout(const Tensor &param, const Shape &operand, bool rowOperand,
                         const std::string &what, bool &perBatch, bool &perLine, int64_t &lines) {
    const int r = static_cast<int>(operand.size());
    lines = r == 1 ? 1 : (rowOperand ? operand[r - 2] : operand[r - 1]);
    perBatch = perLine = false;
    if (param.numel() == 1) return Status::ok();
    if (param.rank() == 1 && param.dim(0) == lines && r >= 2) {
        perLine = true;
        return Status::ok();
    }
    Shape expected = operand;
    if (r >= 2) expected[rowOperand ? r - 1 : r - 2] = 1;
    if (r >= 2 && param.shape() == expected) {
        perLine = true;
        perBatch = true;
        return Status::ok();
    }
    return Status::badInput(what + " shape " + shapeToString(param.shape()) +
                            " fits neither per-tensor nor per-" +
                            (rowOperand ? "row" : "column") + " use with input " +
                            shapeToString(operand));
}

// Scale and zero point of Q/DQ for data of shape `shape`: per tensor, per `axis` (opset 13+),
// or per block of `blockSize` values along `axis` (opset 21). `zp` may be null (zero).
struct AxisParams {
    std::vector<float> scale;
    std::vector<int32_t> zp;
    int64_t channels = 1;  // 1 per tensor
    int64_t axis = -1;     // normalised; -1 per tensor
    // > 0: blocked; the scale has the data's shape with ceil(dim / blockSize) along axis.
    int64_t blockSize = 0;
};

// Blocked scale (opset 21): the data's rank and dims, but ceil(dim / blockSize) along the axis.
static Status resolveBlocks(const Tensor &scale, const Shape &shape, int64_t axisAttr,
                            int64_t blockSize, AxisParams &p) {
    int64_t axis = 0;
    QL_RETURN_IF_ERROR(normalizeAxis(axisAttr, static_cast<int>(shape.size()), axis));
    Shape expected = shape;
    expected[axis] = (shape[axis] + blockSize - 1) / blockSize;
    if (scale.shape() != expected)
        return Status::badInput("scale shape " + shapeToString(scale.shape()) + " does not fit " +
                                "blocks of " + std::to_string(blockSize) + " along axis " +
                                std::to_string(axis) + " of " + shapeToString(shape) +
                                " (expected " + shapeToString(expected) + ")");
    p.axis = axis;
    p.channels = expected[axis];
    p.blockSize = blockSize;
    return Status::ok();
}

// A float8 zero point must be zero: float8 quantization only scales (ModelOpt and ONNX Runtime
// write 0; a shifted float8 grid has no use).
static Status readFloat8ZeroPoints(const Tensor &zp, std::vector<int32_t> &out) {
    if (!isFloat8(zp.dtype()))
        return Status::badInput("float8 quantization with a zero point of type " +
                                dataTypeName(zp.dtype()));
    for (int64_t i = 0; i < zp.numel(); ++i)
        if (zp.valueAsDouble(i) != 0.0)
            return Status::unsupported("float8 zero point " + numberText(zp.valueAsDouble(i)) +
                                       " at index " + std::to_string(i) +
                                       " is not supported (only 0)");
    out.assign(static_cast<size_t>(zp.numel()), 0);
    if (out.empty()) return Status::badInput("zero point is empty");
    return Status::ok();
}

static Status resolveAxisParams(const KernelContext &ctx, const Shape &shape, DataType qtype,
                                int64_t opset, int64_t axisAttr, int64_t blockSize, AxisParams &p) {
    const Tensor &scale = ctx.input(1);
    QL_RETURN_IF_ERROR(readScales(scale, p.scale));
    if (ctx.hasInput(2)) {
        QL_RETURN_IF_ERROR(checkSameShape(scale, ctx.input(2)));
        if (isFloat8(qtype))
            QL_RETURN_IF_ERROR(readFloat8ZeroPoints(ctx.input(2), p.zp));
        else
            QL_RETURN_IF_ERROR(readZeroPoints(ctx.input(2), qtype, p.zp));
    } else {
        p.zp.assign(p.scale.size(), 0);
    }
    p.channels = 1;
    p.axis = -1;
    p.blockSize = 0;
    if (blockSize < 0)
        return Status::badInput("block_size must be 0 or positive, got " +
                                std::to_string(blockSize));
    if (blockSize > 0) return resolveBlocks(scale, shape, axisAttr, blockSize, p);
    if (scale.numel() == 1 && scale.rank() <= 1) return Status::ok();
    if (opset < 13 || scale.rank() != 1)
        return Status::badInput("scale shape " + shapeToString(scale.shape()) +
                                (opset < 13 ? " must hold one value before opset 13"
                                            : " must be a scalar or 1-D"));
    int64_t axis = 0;
    QL_RETURN_IF_ERROR(normalizeAxis(axisAttr, static_cast<int>(shape.size()), axis));
    if (scale.dim(0) != shape[axis])
        return Status::badInput("scale has " + std::to_string(scale.dim(0)) + " values but axis " +
                                std::to_string(axis) + " has dimension " +
                                std::to_string(shape[axis]));
    p.channels = shape[axis];
    p.axis = axis;
    return Status::ok();
}

// True when input 1 (the scale) is a constant single value: the op is then elementwise and
// layout-agnostic, so a channels-last input may stay channels-last.
static bool hasConstantScalarScale(const KernelBuildInfo &info) {
    const Tensor *scale = info.constantInput(1);
    return scale && scale->numel() == 1;
}

// What QuantizeLinear and DequantizeLinear share: opset and axis, and a channels-last input
// allowed when the scale is one constant value.
class AxisQdqKernel : public Kernel {
public:
    explicit AxisQdqKernel(const KernelBuildInfo &info)
        : m_opset(info.opset),
          m_axis(info.node.attrInt("axis", 1)),
          m_blockSize(info.opset >= 21 ? info.node.attrInt("block_size", 0) : 0),
          m_layoutFree(hasConstantScalarScale(info)) {}

    bool acceptsChannelsLast(size_t i) const override { return i == 0 && m_layoutFree; }

protected:
    Status resolve(const KernelContext &ctx, const Shape &shape, DataType qtype,
                   AxisParams &p) const {
        return resolveAxisParams(ctx, shape, qtype, m_opset, m_axis, m_blockSize, p);
    }

    int64_t m_opset, m_axis, m_blockSize;

private:
    bool m_layoutFree;
};

// The integer types Q/DQ carry (16- and 4-bit since opset 21; 4-bit held a byte each).
static bool isQdqInteger(DataType t) {
    return t == DataType::UInt8 || t == DataType::Int8 || t == DataType::UInt16 ||
           t == DataType::Int16 || isFourBit(t);
}

static Status unsupportedQdqType(const std::string &op, const std::string &what, DataType type) {
    return Status::unsupported(op + " " + what + " " + dataTypeName(type) +
                               " is not supported (8-, 16- or 4-bit integers, float8)");
}

namespace {

// fn(begin, end, param) over runs of x's elements that share one scale: per tensor, per
// channel of p.axis or per block, in threads.
template <class Fn>
void forEachParamRun(const Shape &shape, int64_t numel, const AxisParams &p, const Fn &fn) {
    if (p.blockSize > 0) {
        const BlockScaleIndex at(shape, p.axis, p.blockSize);
        elementwise::parallelRange(numel, [&](int64_t begin, int64_t end) {
            for (int64_t i = begin; i < end; ++i) fn(i, i + 1, static_cast<size_t>(at(i)));
        });
    } else if (p.channels == 1) {
        elementwise::parallelRange(numel, [&](int64_t begin, int64_t end) { fn(begin, end, 0); });
    } else {
        forEachChannelRun(shape, p.axis, [&](int64_t start, int64_t count, int64_t c) {
            fn(start, start + count, static_cast<size_t>(c));
        });
    }
}

}  // namespace

class QuantizeLinearKernel : public AxisQdqKernel {
public:
    explicit QuantizeLinearKernel(const KernelBuildInfo &info)
        : AxisQdqKernel(info),
          m_outputType(info.opset >= 21 ? info.node.attrInt("output_dtype", 0) : 0),
          m_saturate(info.opset < 19 || info.node.attrInt("saturate", 1) != 0) {}

    Status run(KernelContext &ctx) override {
        Tensor x = ctx.input(0);
        DataType out = DataType::UInt8;
        if (ctx.hasInput(2))
            out = ctx.input(2).dtype();
        else if (m_outputType != 0)
            out = static_cast<DataType>(m_outputType);
        if (m_outputType != 0 && static_cast<int>(out) != m_outputType)
            return Status::badInput("output_dtype " +
                                    dataTypeName(static_cast<DataType>(m_outputType)) +
                                    " differs from the zero point's type " + dataTypeName(out));
        if (!isQdqInteger(out) && !isFloat8(out))
            return unsupportedQdqType("QuantizeLinear", "to", out);
        if (x.dtype() != DataType::Float && x.dtype() != DataType::Int32)
            return Status::unsupported("QuantizeLinear on " + dataTypeName(x.dtype()) +
                                       " is not supported");
        AxisParams p;
        QL_RETURN_IF_ERROR(resolve(ctx, x.shape(), out, p));
        if (p.channels != 1 || p.blockSize > 0) x = x.toPlain();
        Tensor &y = ctx.allocateOutput(0, out, x.shape(), x.layout());
        auto value = [&x](int64_t i) {
            return x.dtype() == DataType::Float ? x.data<float>()[i]
                                                : static_cast<float>(x.data<int32_t>()[i]);
        };
        if (isFloat8(out)) {  // the zero point is 0 (readFloat8ZeroPoints)
            uint8_t *dst = y.data<uint8_t>();
            forEachParamRun(x.shape(), x.numel(), p, [&](int64_t begin, int64_t end, size_t k) {
                for (int64_t i = begin; i < end; ++i)
                    dst[i] = floatToFloat8(value(i) / p.scale[k], out, m_saturate);
            });
            return Status::ok();
        }
        int64_t lo = 0, hi = 0;
        QL_RETURN_IF_ERROR(integerRange(out, lo, hi));
        dispatchAmong<uint8_t, int8_t, uint16_t, int16_t>(storageType(out), [&](auto tag) {
            using Q = decltype(tag);
            Q *dst = y.data<Q>();
            // quantizeValues saturates to the whole type: not for 4-bit values held in a byte.
            if (p.channels == 1 && p.blockSize == 0 && x.dtype() == DataType::Float &&
                !isFourBit(out)) {
                const float *src = x.data<float>();
                elementwise::parallelRange(x.numel(), [&](int64_t begin, int64_t end) {
                    quantizeValues(src + begin, dst + begin, end - begin, p.scale[0], p.zp[0]);
                });
                return;
            }
            forEachParamRun(x.shape(), x.numel(), p, [&](int64_t begin, int64_t end, size_t k) {
                for (int64_t i = begin; i < end; ++i)
                    dst[i] = saturateTo<Q>(
                        roundHalfEven(value(i) / p.scale[k]) + static_cast<float>(p.zp[k]), lo, hi);
            });
        });
        return Status::ok();
    }

private:
    int64_t m_outputType;  // opset 21's output_dtype; 0: the zero point's type, else uint8
    bool m_saturate;       // opset 19's saturate, for float8 outputs
};

class DequantizeLinearKernel : public AxisQdqKernel {
public:
    explicit DequantizeLinearKernel(const KernelBuildInfo &info) : AxisQdqKernel(info) {}

    Status run(KernelContext &ctx) override {
        Tensor x = ctx.input(0);
        if (!isQdqInteger(x.dtype()) && !isFloat8(x.dtype()) && x.dtype() != DataType::Int32)
            return unsupportedQdqType("DequantizeLinear", "of", x.dtype());
        AxisParams p;
        QL_RETURN_IF_ERROR(resolve(ctx, x.shape(), x.dtype(), p));
        if (p.channels != 1 || p.blockSize > 0) x = x.toPlain();
        Tensor &y = ctx.allocateOutput(0, DataType::Float, x.shape(), x.layout());
        float *dst = y.data<float>();
        if (p.blockSize > 0 || isFloat8(x.dtype())) {
            // Every type read exactly (float8 decoded; float8 zero points are 0), in storage
            // order: a per-tensor input may be channels-last.
            const void *raw = x.rawData();
            forEachParamRun(x.shape(), x.numel(), p, [&](int64_t begin, int64_t end, size_t k) {
                for (int64_t i = begin; i < end; ++i)
                    dst[i] = static_cast<float>(elementAsDouble(x.dtype(), raw, i) - p.zp[k]) *
                             p.scale[k];
            });
            return Status::ok();
        }
        // Per channel too in threads and in vectorised rows (a MatMul weight's channels are its
        // innermost axis: one value per channel run).
        const int64_t axis = p.channels == 1 ? -1 : p.axis;
        elementwise::parallelRange(x.numel(), [&](int64_t begin, int64_t end) {
            dequantizeSpan(x, p.scale, p.zp, axis, begin, end - begin, dst + begin);
        });
        return Status::ok();
    }
};

class DynamicQuantizeLinearKernel : public Kernel {
public:
    explicit DynamicQuantizeLinearKernel(const KernelBuildInfo &) {}

    Status run(KernelContext &ctx) override {
        const Tensor &x = ctx.input(0);
        if (x.dtype() != DataType::Float)
            return Status::unsupported("DynamicQuantizeLinear on " + dataTypeName(x.dtype()) +
                                       " is not supported");
        const float *src = x.data<float>();
        const int64_t n = x.numel();
        // The range always includes 0 so that 0 is exactly representable. One vectorised pass
        // over the threads (quant/finite_summary.h); a NaN or an infinity is then looked for.
        const quant::FiniteSummary summary = quant::summarizeFinite(src, n);
        if (summary.finite < n) {
            const float *nan = std::find_if(src, src + n, [](float v) { return std::isnan(v); });
            if (nan != src + n)
                return Status::badInput("input holds NaN at index " + std::to_string(nan - src));
            return Status::badInput("input holds an infinite value");
        }
        const float lo = std::min(0.0f, summary.lo), hi = std::max(0.0f, summary.hi);
        const float scale = (hi - lo) / 255.0f;
        // All zeros: any scale works; 0 keeps y == 0 and matches ONNX Runtime.
        const float zp = scale > 0.0f ? saturateTo<float>(roundHalfEven((0.0f - lo) / scale), 0, 255)
                                      : 0.0f;
        Tensor &y = ctx.allocateOutput(0, DataType::UInt8, x.shape());
        uint8_t *dst = y.data<uint8_t>();
        if (scale > 0.0f) {
            elementwise::parallelRange(n, [&](int64_t begin, int64_t end) {
                quantizeValues(src + begin, dst + begin, end - begin, scale, static_cast<int32_t>(zp));
            });
        } else {
            std::fill(dst, dst + n, static_cast<uint8_t>(zp));
        }
        if (ctx.outputCount() > 1) ctx.allocateOutput(1, DataType::Float, {}).data<float>()[0] = scale;
        if (ctx.outputCount() > 2)
            ctx.allocateOutput(2, DataType::UInt8, {}).data<uint8_t>()[0] = static_cast<uint8_t>(zp);
        return Status::ok();
    }
};

}  // namespace quant

void registerQuantizationKernels(KernelRegistry &registry) {
    registry.add("QuantizeLinear", makeFactory<quant::QuantizeLinearKernel>());
    registry.add("DequantizeLinear", makeFactory<quant::DequantizeLinearKernel>());
    registry.add("DynamicQuantizeLinear", makeFactory<quant::DynamicQuantizeLinearKernel>());
    registry.add("QLinearConv", quant::makeQLinearConv);
    registry.add("ConvInteger", quant::makeConvInteger);
    registry.add("QLinearMatMul", quant::makeQLinearMatMul);
    registry.add("MatMulInteger", quant::makeMatMulInteger);
    registry.add("QGemm", quant::makeQGemm, "com.microsoft");
    registry.add("MatMulIntegerToFloat", quant::makeMatMulIntegerToFloat, "com.microsoft");
}

}  // namespace ql
