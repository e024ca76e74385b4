// Shape family: ops that only reinterpret or describe shapes (Reshape, Flatten, Squeeze,
// Unsqueeze alias their input), plus Shape, Size, Constant, ConstantOfShape and Range.
// Copying ops live in shape_slicing.cpp, shape_gather.cpp and shape_layout.cpp.

#include <algorithm>
#include <cmath>
#include <cstring>

#include "kernels/kernel.h"
#include "kernels/kernel_families.h"
#include "kernels/shape_common.h"

namespace ql {

namespace {

using shape::normalizeAxis;
using shape::readInts;

class ReshapeKernel : public Kernel {
public:
    explicit ReshapeKernel(const KernelBuildInfo &info)
        : m_allowZero(info.opset >= 14 && info.node.attrInt("allowzero", 0) != 0) {}

    Status run(KernelContext &ctx) override {
        if (!ctx.hasInput(1)) return Status::badInput("Reshape needs a 'shape' input");
        const Tensor &data = ctx.input(0);
        std::vector<int64_t> requested;
        QL_RETURN_IF_ERROR(readInts(ctx.input(1), "Reshape 'shape'", &requested));
        const Shape &in = data.shape();
        auto fail = [&](const std::string &why) {
            return Status::badInput("cannot reshape " + shapeToString(in) + " to " +
                                    shapeToString(requested) + ": " + why);
        };
        Shape out(requested.size());
        int inferred = -1;
        int64_t known = 1;
        for (size_t i = 0; i < requested.size(); ++i) {
            int64_t d = requested[i];
            if (d == -1) {
                if (inferred >= 0) return fail("more than one -1");
                inferred = static_cast<int>(i);
                continue;
            }
            if (d < -1) return fail("negative dimension " + std::to_string(d));
            if (d == 0 && !m_allowZero) {
                if (i >= in.size())
                    return fail("0 at position " + std::to_string(i) + " has no input dim to copy");
                d = in[i];
            }
            out[i] = d;
            known *= d;
        }
        if (inferred >= 0) {
            if (known == 0) return fail("cannot infer -1 when other dims multiply to 0");
            if (data.numel() % known != 0)
                return fail("element count " + std::to_string(data.numel()) +
                            " is not divisible by " + std::to_string(known));
            out[inferred] = data.numel() / known;
        } else if (known != data.numel()) {
            return fail("element count " + std::to_string(data.numel()) + " vs " +
                        std::to_string(known));
        }
        ctx.setOutput(0, data.reshaped(out));
        return Status::ok();
    }

private:
    bool m_allowZero;
};

class FlattenKernel : public Kernel {
public:
    explicit FlattenKernel(const KernelBuildInfo &info) : m_axis(info.node.attrInt("axis", 1)) {}

    Status run(KernelContext &ctx) override {
        const Tensor &data = ctx.input(0);
        const int64_t rank = data.rank();
        if (m_axis < -rank || m_axis > rank) {
            return Status::badInput("Flatten axis " + std::to_string(m_axis) +
                                    " is out of range for rank " + std::to_string(rank));
        }
        const int64_t axis = m_axis < 0 ? m_axis + rank : m_axis;
        int64_t outer = 1, inner = 1;
        for (int64_t i = 0; i < rank; ++i) (i < axis ? outer : inner) *= data.shape()[i];
        ctx.setOutput(0, data.reshaped({outer, inner}));
        return Status::ok();
    }

private:
    int64_t m_axis;
};

class SqueezeKernel : public Kernel {
public:
    explicit SqueezeKernel(const KernelBuildInfo &info)
        : m_axesFromInput(info.opset >= 13),
          m_axes(info.node.attrInts("axes")),
          m_hasAxesAttr(info.node.hasAttribute("axes")) {}

    Status run(KernelContext &ctx) override {
        const Tensor &data = ctx.input(0);
        const int64_t rank = data.rank();
        std::vector<int64_t> axes = m_axes;
        bool all = !m_hasAxesAttr;
        if (m_axesFromInput) {
            axes.clear();
            if (ctx.hasInput(1)) QL_RETURN_IF_ERROR(readInts(ctx.input(1), "Squeeze 'axes'", &axes));
            all = axes.empty();  // an empty axes input squeezes every unit dim, as ONNX Runtime
        }
        std::vector<bool> drop(rank, false);
        if (all) {
            for (int64_t i = 0; i < rank; ++i) drop[i] = data.shape()[i] == 1;
        } else {
            for (int64_t a : axes) {
                int64_t axis = 0;
                QL_RETURN_IF_ERROR(normalizeAxis(a, rank, "Squeeze axis", &axis));
                if (data.shape()[axis] != 1) {
                    return Status::badInput("Squeeze axis " + std::to_string(a) + " has size " +
                                            std::to_string(data.shape()[axis]) +
                                            ", not 1, in shape " + shapeToString(data.shape()));
                }
                drop[axis] = true;
            }
        }
        Shape out;
        for (int64_t i = 0; i < rank; ++i)
            if (!drop[i]) out.push_back(data.shape()[i]);
        ctx.setOutput(0, data.reshaped(out));
        return Status::ok();
    }

private:
    bool m_axesFromInput;
    std::vector<int64_t> m_axes;
    bool m_hasAxesAttr;
};

class UnsqueezeKernel : public Kernel {
public:
    explicit UnsqueezeKernel(const KernelBuildInfo &info)
        : m_axesFromInput(info.opset >= 13), m_axes(info.node.attrInts("axes")) {}

    Status run(KernelContext &ctx) override {
        const Tensor &data = ctx.input(0);
        std::vector<int64_t> axes = m_axes;
        if (m_axesFromInput) {
            if (!ctx.hasInput(1))
                return Status::badInput("Unsqueeze needs an 'axes' input from opset 13");
            QL_RETURN_IF_ERROR(readInts(ctx.input(1), "Unsqueeze 'axes'", &axes));
        }
        const int64_t outRank = data.rank() + static_cast<int64_t>(axes.size());
        std::vector<bool> inserted(outRank, false);
        for (int64_t a : axes) {
            int64_t axis = 0;
            QL_RETURN_IF_ERROR(normalizeAxis(a, outRank, "Unsqueeze axis", &axis));
            if (inserted[axis])
                return Status::badInput("Unsqueeze axis " + std::to_string(a) + " is repeated");
            inserted[axis] = true;
        }
        Shape out;
        size_t next = 0;
        for (int64_t i = 0; i < outRank; ++i) out.push_back(inserted[i] ? 1 : data.shape()[next++]);
        ctx.setOutput(0, data.reshaped(out));
        return Status::ok();
    }

private:
    bool m_axesFromInput;
    std::vector<int64_t> m_axes;
};

// Shape and Size read only the logical shape, so a channels-last input needs no conversion.
class ShapeKernel : public Kernel {
public:
    explicit ShapeKernel(const KernelBuildInfo &info)
        : m_start(info.node.attrInt("start", 0)), m_end(info.node.attrInt("end", INT64_MAX)) {}
    bool acceptsChannelsLast(size_t) const override { return true; }

    Status run(KernelContext &ctx) override {
        const Shape &in = ctx.input(0).shape();
        const int64_t rank = static_cast<int64_t>(in.size());
        auto clamp = [rank](int64_t a) {
            return std::clamp<int64_t>(a < 0 ? a + rank : a, 0, rank);
        };
        const int64_t start = clamp(m_start), end = std::max(clamp(m_end), start);
        Tensor &out = ctx.allocateOutput(0, DataType::Int64, {end - start});
        std::copy(in.begin() + start, in.begin() + end, out.data<int64_t>());
        return Status::ok();
    }

private:
    int64_t m_start, m_end;
};

class SizeKernel : public Kernel {
public:
    explicit SizeKernel(const KernelBuildInfo &) {}
    bool acceptsChannelsLast(size_t) const override { return true; }
    Status run(KernelContext &ctx) override {
        ctx.allocateOutput(0, DataType::Int64, {}).data<int64_t>()[0] = ctx.input(0).numel();
        return Status::ok();
    }
};

// The value is built once; every run hands out the same read-only tensor.
class ConstantKernel : public Kernel {
public:
    explicit ConstantKernel(Tensor value) : m_value(std::move(value)) {}
    Status run(KernelContext &ctx) override {
        ctx.setOutput(0, m_value);
        return Status::ok();
    }

    static Result<KernelPtr> create(const KernelBuildInfo &info) {
        const Node &node = info.node;
        if (node.hasAttribute("sparse_value"))
            return Status::unsupported("Constant with a sparse_value is not supported");
        if (const Tensor *t = node.attrTensor("value")) return KernelPtr(new ConstantKernel(*t));
        if (node.hasAttribute("value_float"))
            return KernelPtr(
                new ConstantKernel(Tensor::scalar<float>(node.attrFloat("value_float", 0.0f))));
        if (node.hasAttribute("value_int"))
            return KernelPtr(
                new ConstantKernel(Tensor::scalar<int64_t>(node.attrInt("value_int", 0))));
        if (node.hasAttribute("value_floats")) {
            const std::vector<float> v = node.attrFloats("value_floats");
            return KernelPtr(new ConstantKernel(Tensor::fromVector<float>({int64_t(v.size())}, v)));
        }
        if (node.hasAttribute("value_ints")) {
            const std::vector<int64_t> v = node.attrInts("value_ints");
            return KernelPtr(
                new ConstantKernel(Tensor::fromVector<int64_t>({int64_t(v.size())}, v)));
        }
        if (node.hasAttribute("value_string") || node.hasAttribute("value_strings"))
            return Status::unsupported("Constant with a string value is not supported");
        return Status::badInput("Constant has no value attribute");
    }

private:
    Tensor m_value;
};

class ConstantOfShapeKernel : public Kernel {
public:
    explicit ConstantOfShapeKernel(const KernelBuildInfo &info) {
        const Tensor *value = info.node.attrTensor("value");
        m_type = value && value->numel() > 0 ? value->dtype() : DataType::Float;
        std::memset(m_element, 0, sizeof(m_element));
        if (value && value->numel() > 0)
            std::memcpy(m_element, value->rawData(), dataTypeSize(m_type));
        m_badValue = value && value->numel() != 1;
    }

    Status run(KernelContext &ctx) override {
        if (m_badValue)
            return Status::badInput("ConstantOfShape 'value' must hold exactly one element");
        std::vector<int64_t> dims;
        QL_RETURN_IF_ERROR(readInts(ctx.input(0), "ConstantOfShape 'input'", &dims));
        for (int64_t d : dims)
            if (d < 0)
                return Status::badInput("ConstantOfShape: negative dimension in " +
                                        shapeToString(dims));
        Tensor &out = ctx.allocateOutput(0, m_type, dims);
        shape::fillElements(out.rawData(), m_element, out.numel(), dataTypeSize(m_type));
        return Status::ok();
    }

private:
    DataType m_type;
    uint8_t m_element[8];
    bool m_badValue = false;
};

class RangeKernel : public Kernel {
public:
    explicit RangeKernel(const KernelBuildInfo &) {}

    Status run(KernelContext &ctx) override {
        const Tensor &start = ctx.input(0), &limit = ctx.input(1), &delta = ctx.input(2);
        const DataType type = start.dtype();
        if (limit.dtype() != type || delta.dtype() != type)
            return Status::badInput("Range inputs must share one dtype");
        if (start.numel() != 1 || limit.numel() != 1 || delta.numel() != 1)
            return Status::badInput("Range inputs must be scalars");
        Status status = Status::unsupported("Range does not support dtype " + dataTypeName(type));
        dispatchAmong<float, double, int16_t, int32_t, int64_t>(
            type, [&](auto tag) { status = fill<decltype(tag)>(ctx, start, limit, delta); });
        return status;
    }

private:
    template <class T>
    Status fill(KernelContext &ctx, const Tensor &start, const Tensor &limit, const Tensor &delta) {
        const T s = start.data<T>()[0], l = limit.data<T>()[0], d = delta.data<T>()[0];
        if (d == T(0)) return Status::badInput("Range delta must not be 0");
        int64_t count = 0;
        if constexpr (std::is_floating_point_v<T>) {
            count = static_cast<int64_t>(std::ceil((static_cast<double>(l) - s) / d));
        } else {
            const int64_t span = static_cast<int64_t>(l) - s, step = d;
            count = span / step + ((span % step != 0 && (span < 0) == (step < 0)) ? 1 : 0);
        }
        count = std::max<int64_t>(count, 0);
        T *out = ctx.allocateOutput(0, DataTypeOf<T>::value, {count}).template data<T>();
        for (int64_t i = 0; i < count; ++i) out[i] = static_cast<T>(s + static_cast<T>(i) * d);
        return Status::ok();
    }
};

}  // namespace

void registerShapeKernels(KernelRegistry &registry) {
    registry.add("Reshape", makeFactory<ReshapeKernel>());
    registry.add("Flatten", makeFactory<FlattenKernel>());
    registry.add("Squeeze", makeFactory<SqueezeKernel>());
    registry.add("Unsqueeze", makeFactory<UnsqueezeKernel>());
    registry.add("Shape", makeFactory<ShapeKernel>());
    registry.add("Size", makeFactory<SizeKernel>());
    registry.add("Constant", &ConstantKernel::create);
    registry.add("ConstantOfShape", makeFactory<ConstantOfShapeKernel>());
    registry.add("Range", makeFactory<RangeKernel>());
    shape::registerSlicingKernels(registry);
    shape::registerGatherKernels(registry);
    shape::registerLayoutKernels(registry);
}

}  // namespace ql
