// Broadcasting arithmetic (Add, Sub, Mul, Div, Mod, Pow, PRelu, variadic Max/Min/Sum/Mean),
// comparisons, logic and Where. Channels-last inputs are computed in physical NHWC order when
// every operand's plain memory order matches it (see prepareBroadcast).

#include <type_traits>

#include "kernels/binary_ops.h"
#include "kernels/kernel_families.h"

namespace ql {

namespace binary {

namespace {

using elementwise::castInto;
using elementwise::castTensor;
using elementwise::dispatchNumeric;
using elementwise::isHalfType;

Status checkSameTypes(const std::vector<Tensor> &inputs, size_t count) {
    for (size_t i = 1; i < count && i < inputs.size(); ++i) {
        if (inputs[i].dtype() != inputs[0].dtype()) {
            return Status::badInput("input types differ: " + dataTypeName(inputs[0].dtype()) +
                                    " and " + dataTypeName(inputs[i].dtype()));
        }
    }
    return Status::ok();
}

// Allocates output 0 and runs compute(prepared, output). 16-bit float inputs are widened to
// float first; a 16-bit float result is computed in float and narrowed at the end.
template <class Compute>
Status computeOutput(KernelContext &ctx, Prepared &p, DataType outType, Compute &&compute) {
    bool widened = false;
    for (Tensor &t : p.inputs) {
        if (!isHalfType(t.dtype())) continue;
        Result<Tensor> wide = castTensor(t, DataType::Float);
        if (!wide) return wide.status();
        t = wide.value();
        widened = true;
    }
    if (widened && isHalfType(outType)) {
        Tensor wide(DataType::Float, p.outShape, p.outLayout);
        QL_RETURN_IF_ERROR(compute(p, wide));
        Tensor &y = ctx.allocateOutput(0, outType, p.outShape, p.outLayout);
        return castInto(wide, y);
    }
    Tensor &y = ctx.allocateOutput(0, outType, p.outShape, p.outLayout);
    return compute(p, y);
}

Status unsupportedType(DataType type) {
    return Status::unsupported("input type " + dataTypeName(type) + " is not supported");
}

enum class Mode { Binary, Variadic, Mean, PRelu };

// Output has the inputs' type; variadic ops fold pairwise into the output buffer.
template <class Op>
class ArithmeticKernel final : public Kernel {
public:
    ArithmeticKernel(const KernelBuildInfo &info, Op op, Mode mode, bool floatOnly)
        : m_op(op),
          m_mode(mode),
          m_floatOnly(floatOnly),
          m_opset(info.opset),
          m_legacy(LegacyBroadcast::fromNode(info.node, info.opset)) {}

    bool acceptsChannelsLast(size_t) const override { return true; }

    Status run(KernelContext &ctx) override {
        const bool variadic = m_mode == Mode::Variadic || m_mode == Mode::Mean;
        const size_t count = variadic ? ctx.inputCount() : 2;
        if (count == 0) return Status::badInput("needs at least one input");
        if (variadic && count == 1 && ctx.hasInput(0)) {
            ctx.setOutput(0, ctx.input(0));
            return Status::ok();
        }
        Prepared p;
        if (m_mode == Mode::PRelu) {
            QL_RETURN_IF_ERROR(preparePRelu(ctx, p));
        } else {
            QL_RETURN_IF_ERROR(prepareBroadcast(ctx, count, m_legacy, true, p));
        }
        QL_RETURN_IF_ERROR(checkSameTypes(p.inputs, count));
        return computeOutput(ctx, p, p.inputs[0].dtype(),
                             [&](const Prepared &q, Tensor &out) { return compute(q, out); });
    }

private:
    Status compute(const Prepared &p, Tensor &out) const {
        const DataType type = p.inputs[0].dtype();
        bool supported = false;
        dispatchNumeric(type, [&](auto tag) {
            using T = decltype(tag);
            if (m_floatOnly && !std::is_floating_point_v<T>) return;
            supported = true;
            T *o = out.data<T>();
            applyBinary(makePlan(p.iterOut, {p.shapes[0], p.shapes[1]}), p.inputs[0].data<T>(),
                        p.inputs[1].data<T>(), o, m_op);
            for (size_t k = 2; k < p.inputs.size(); ++k) {
                applyBinary(makePlan(p.iterOut, {p.iterOut, p.shapes[k]}),
                            static_cast<const T *>(o), p.inputs[k].data<T>(), o, m_op);
            }
            if (m_mode == Mode::Mean) {
                const T count = static_cast<T>(p.inputs.size());
                elementwise::parallelRange(out.numel(), [&](int64_t begin, int64_t end) {
                    for (int64_t i = begin; i < end; ++i) o[i] = o[i] / count;
                });
            }
        });
        return supported ? Status::ok() : unsupportedType(type);
    }

    // The slope broadcasts to X only. Before opset 7 a 1-D slope is per channel (axis 1); later
    // opsets get the same reading only where numpy broadcasting would fail, as exporters do it.
    Status preparePRelu(const KernelContext &ctx, Prepared &p) const {
        if (!ctx.hasInput(0) || !ctx.hasInput(1))
            return Status::badInput("PRelu needs X and slope");
        const Tensor &x = ctx.input(0);
        Tensor slope = ctx.input(1);
        const bool perChannel =
            slope.rank() == 1 && x.rank() >= 2 && slope.dim(0) == x.dim(1) && slope.dim(0) > 1;
        const bool numpyWorks = broadcastShapes({x.shape(), slope.shape()}).isOk();
        if (perChannel && (m_opset < 7 || !numpyWorks)) {
            Shape channel(static_cast<size_t>(x.rank() - 1), 1);
            channel[0] = slope.dim(0);
            slope = slope.toPlain().reshaped(channel);
        }
        QL_RETURN_IF_ERROR(prepareBroadcast({x, slope}, true, p));
        if (p.outShape != x.shape()) {
            return Status::badInput("slope shape " + shapeToString(ctx.input(1).shape()) +
                                    " does not broadcast to input shape " +
                                    shapeToString(x.shape()));
        }
        return Status::ok();
    }

    Op m_op;
    Mode m_mode;
    bool m_floatOnly;
    int64_t m_opset;
    LegacyBroadcast m_legacy;
};

// Pow(T, T1): same float types compute directly (scalar exponents 2 and 0.5 take shortcuts);
// any other combination computes in double and converts to the base's type.
class PowKernel final : public Kernel {
public:
    explicit PowKernel(const KernelBuildInfo &info)
        : m_legacy(LegacyBroadcast::fromNode(info.node, info.opset)) {}
    bool acceptsChannelsLast(size_t) const override { return true; }

    Status run(KernelContext &ctx) override {
        Prepared p;
        QL_RETURN_IF_ERROR(prepareBroadcast(ctx, 2, m_legacy, true, p));
        const DataType baseType = p.inputs[0].dtype(), expType = p.inputs[1].dtype();
        const bool numeric = [](DataType t) {
            return isFloatingPoint(t) || isInteger(t);
        }(baseType) && (isFloatingPoint(expType) || isInteger(expType));
        if (!numeric) {
            return Status::unsupported("input types " + dataTypeName(baseType) + " and " +
                                       dataTypeName(expType) + " are not supported");
        }
        auto compute = [](const Prepared &q, Tensor &out) -> Status {
            if (q.inputs[0].dtype() == DataType::Double)
                powInto<double>(q, out);
            else
                powInto<float>(q, out);
            return Status::ok();
        };
        if (baseType == expType && isFloatingPoint(baseType))
            return computeOutput(ctx, p, baseType, compute);
        // Mixed or integer types: compute in double, convert to the base's type.
        for (Tensor &t : p.inputs) {
            Result<Tensor> wide = castTensor(t, DataType::Double);
            if (!wide) return wide.status();
            t = wide.value();
        }
        Tensor wide(DataType::Double, p.outShape, p.outLayout);
        QL_RETURN_IF_ERROR(compute(p, wide));
        Tensor &y = ctx.allocateOutput(0, baseType, p.outShape, p.outLayout);
        return castInto(wide, y);
    }

private:
    template <class T>
    static void powInto(const Prepared &p, Tensor &out) {
        const T *a = p.inputs[0].data<T>();
        T *o = out.data<T>();
        const int64_t n = out.numel();
        if (p.inputs[1].numel() == 1 && p.inputs[0].shape() == p.outShape) {
            const T e = p.inputs[1].data<T>()[0];
            auto each = [&](auto f) {
                elementwise::parallelRange(n, [&](int64_t begin, int64_t end) {
                    for (int64_t i = begin; i < end; ++i) o[i] = f(a[i]);
                });
            };
            if (e == T(2)) return each([](T x) { return x * x; });
            if (e == T(1)) return each([](T x) { return x; });
            if (e == T(0.5)) return each([](T x) { return std::sqrt(x); });
        }
        applyBinary(makePlan(p.iterOut, {p.shapes[0], p.shapes[1]}), a, p.inputs[1].data<T>(), o,
                    PowOp());
    }

    LegacyBroadcast m_legacy;
};

// Comparisons (numeric inputs, and bool for Equal) and logic ops (bool inputs); bool output.
template <class Op>
class CompareKernel final : public Kernel {
public:
    CompareKernel(const KernelBuildInfo &info, bool logic, bool boolAllowed)
        : m_logic(logic),
          m_boolAllowed(boolAllowed),
          m_legacy(LegacyBroadcast::fromNode(info.node, info.opset)) {}

    Status run(KernelContext &ctx) override {
        Prepared p;
        QL_RETURN_IF_ERROR(prepareBroadcast(ctx, 2, m_legacy, false, p));
        QL_RETURN_IF_ERROR(checkSameTypes(p.inputs, 2));
        const DataType type = p.inputs[0].dtype();
        const bool isBool = type == DataType::Bool;
        if (m_logic ? !isBool
                    : (isBool ? !m_boolAllowed : !(isFloatingPoint(type) || isInteger(type))))
            return unsupportedType(type);
        return computeOutput(ctx, p, DataType::Bool, [&](const Prepared &q, Tensor &out) {
            const BroadcastPlan plan = makePlan(q.iterOut, {q.shapes[0], q.shapes[1]});
            uint8_t *o = out.data<uint8_t>();
            if (q.inputs[0].dtype() == DataType::Bool) {
                applyBinary(plan, q.inputs[0].data<uint8_t>(), q.inputs[1].data<uint8_t>(), o,
                            Op());
                return Status::ok();
            }
            dispatchNumeric(q.inputs[0].dtype(), [&](auto tag) {
                using T = decltype(tag);
                applyBinary(plan, q.inputs[0].data<T>(), q.inputs[1].data<T>(), o, Op());
            });
            return Status::ok();
        });
    }

private:
    bool m_logic;
    bool m_boolAllowed;
    LegacyBroadcast m_legacy;
};

// Where(condition, X, Y): a three-way broadcast that copies elements by size, so any type works.
class WhereKernel final : public Kernel {
public:
    Status run(KernelContext &ctx) override {
        Prepared p;
        QL_RETURN_IF_ERROR(prepareBroadcast(ctx, 3, LegacyBroadcast(), false, p));
        if (p.inputs[0].dtype() != DataType::Bool)
            return Status::badInput("condition must be bool, got " +
                                    dataTypeName(p.inputs[0].dtype()));
        if (p.inputs[1].dtype() != p.inputs[2].dtype()) {
            return Status::badInput("X and Y types differ: " + dataTypeName(p.inputs[1].dtype()) +
                                    " and " + dataTypeName(p.inputs[2].dtype()));
        }
        const DataType type = p.inputs[1].dtype();
        Tensor &y = ctx.allocateOutput(0, type, p.outShape);
        const BroadcastPlan plan = makePlan(p.iterOut, p.shapes);
        switch (dataTypeSize(type)) {
            case 1:
                select<uint8_t>(plan, p, y);
                break;
            case 2:
                select<uint16_t>(plan, p, y);
                break;
            case 4:
                select<uint32_t>(plan, p, y);
                break;
            case 8:
                select<uint64_t>(plan, p, y);
                break;
            default:
                return unsupportedType(type);
        }
        return Status::ok();
    }

private:
    // Rows with each operand contiguous (Step) or one repeated value; a bit-mask blend keeps
    // the loop branch-free.
    template <class T, bool StepC, bool StepX, bool StepY>
    static void selectRows(const BroadcastPlan &plan, const uint8_t *cond, const T *x,
                           const T *other, T *out) {
        elementwise::parallelRange(plan.total, [&](int64_t begin, int64_t end) {
            forEachRow(plan, begin, end, [&](const int64_t *off, int64_t at, int64_t n) {
                const uint8_t *c = cond + off[0];
                const T *px = x + off[1];
                const T *py = other + off[2];
                T *po = out + at;
                for (int64_t i = 0; i < n; ++i) {
                    const T mask = static_cast<T>(T(0) - T(c[StepC ? i : 0] != 0));
                    po[i] =
                        static_cast<T>((px[StepX ? i : 0] & mask) | (py[StepY ? i : 0] & ~mask));
                }
            });
        });
    }

    template <class T>
    static void select(const BroadcastPlan &plan, const Prepared &p, Tensor &y) {
        const uint8_t *c = p.inputs[0].data<uint8_t>();
        const T *x = p.inputs[1].data<T>();
        const T *o = p.inputs[2].data<T>();
        T *out = y.data<T>();
        const int steps = (plan.innerStride(0) ? 4 : 0) | (plan.innerStride(1) ? 2 : 0) |
                          (plan.innerStride(2) ? 1 : 0);
        switch (steps) {
            case 0:
                selectRows<T, false, false, false>(plan, c, x, o, out);
                break;
            case 1:
                selectRows<T, false, false, true>(plan, c, x, o, out);
                break;
            case 2:
                selectRows<T, false, true, false>(plan, c, x, o, out);
                break;
            case 3:
                selectRows<T, false, true, true>(plan, c, x, o, out);
                break;
            case 4:
                selectRows<T, true, false, false>(plan, c, x, o, out);
                break;
            case 5:
                selectRows<T, true, false, true>(plan, c, x, o, out);
                break;
            case 6:
                selectRows<T, true, true, false>(plan, c, x, o, out);
                break;
            default:
                selectRows<T, true, true, true>(plan, c, x, o, out);
                break;
        }
    }
};

template <class Op>
KernelFactory arithmetic(Mode mode, bool floatOnly = false) {
    return [mode, floatOnly](const KernelBuildInfo &info) -> Result<KernelPtr> {
        return KernelPtr(new ArithmeticKernel<Op>(info, Op(), mode, floatOnly));
    };
}

template <class Op>
KernelFactory comparison(bool logic, bool boolAllowed) {
    return [logic, boolAllowed](const KernelBuildInfo &info) -> Result<KernelPtr> {
        return KernelPtr(new CompareKernel<Op>(info, logic, boolAllowed));
    };
}

}  // namespace

}  // namespace binary

void registerBinaryKernels(KernelRegistry &r) {
    using namespace binary;
    r.add("Add", arithmetic<AddOp>(Mode::Binary));
    r.add("Sub", arithmetic<SubOp>(Mode::Binary));
    r.add("Mul", arithmetic<MulOp>(Mode::Binary));
    r.add("Div", arithmetic<DivOp>(Mode::Binary));
    r.add("PRelu", arithmetic<PReluOp>(Mode::PRelu));
    r.add("Max", arithmetic<MaxOp>(Mode::Variadic));
    r.add("Min", arithmetic<MinOp>(Mode::Variadic));
    r.add("Sum", arithmetic<AddOp>(Mode::Variadic));
    r.add("Mean", arithmetic<AddOp>(Mode::Mean, true));
    r.add("Mod", [](const KernelBuildInfo &info) -> Result<KernelPtr> {
        ModOp op;
        op.fmod = info.node.attrInt("fmod", 0) != 0;
        return KernelPtr(new ArithmeticKernel<ModOp>(info, op, Mode::Binary, false));
    });
    r.add("Pow", makeFactory<PowKernel>());
    r.add("Equal", comparison<EqualOp>(false, true));
    r.add("Less", comparison<LessOp>(false, false));
    r.add("Greater", comparison<GreaterOp>(false, false));
    r.add("LessOrEqual", comparison<LessOrEqualOp>(false, false));
    r.add("GreaterOrEqual", comparison<GreaterOrEqualOp>(false, false));
    r.add("And", comparison<AndOp>(true, true));
    r.add("Or", comparison<OrOp>(true, true));
    r.add("Xor", comparison<XorOp>(true, true));
    r.add("Where", [](const KernelBuildInfo &) -> Result<KernelPtr> {
        return KernelPtr(new WhereKernel());
    });
}

}  // namespace ql
