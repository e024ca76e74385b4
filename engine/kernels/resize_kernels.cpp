// Resize (opsets 10 to 19) and Upsample (7 to 9): attribute and input parsing, output sizes;
// the sampling itself is in resize_interpolation.cpp.

#include <algorithm>
#include <cmath>

#include "kernels/kernel.h"
#include "kernels/kernel_families.h"
#include "kernels/resize_interpolation.h"
#include "kernels/shape_common.h"

namespace ql {

namespace {

using resize::Coordinate;
using resize::Mode;
using resize::Rounding;

class ResizeKernel : public Kernel {
public:
    static Result<KernelPtr> create(const KernelBuildInfo &info, bool upsample) {
        std::unique_ptr<ResizeKernel> k(new ResizeKernel());
        QL_RETURN_IF_ERROR(k->configure(info, upsample));
        return KernelPtr(k.release());
    }

    Status run(KernelContext &ctx) override {
        const Tensor &x = ctx.input(0);
        const int64_t rank = x.rank();
        std::vector<int64_t> axes = m_axes;
        if (axes.empty())
            for (int64_t i = 0; i < rank; ++i) axes.push_back(i);
        std::vector<bool> seen(rank, false);
        for (int64_t &a : axes) {
            QL_RETURN_IF_ERROR(shape::normalizeAxis(a, rank, "Resize axis", &a));
            if (seen[a]) return Status::badInput("Resize axes repeat axis " + std::to_string(a));
            seen[a] = true;
        }
        const size_t n = axes.size();

        std::vector<float> scales = m_scalesAttr, roi;
        std::vector<int64_t> sizes;
        auto present = [&](int i) { return i >= 0 && ctx.hasInput(i) && ctx.input(i).numel() > 0; };
        if (present(m_scalesInput)) {
            const Tensor &s = ctx.input(m_scalesInput);
            if (s.dtype() != DataType::Float)
                return Status::badInput("Resize 'scales' must be float32");
            scales = s.toFloatVector();
        }
        if (present(m_sizesInput))
            QL_RETURN_IF_ERROR(shape::readInts(ctx.input(m_sizesInput), "Resize 'sizes'", &sizes));
        if (present(m_roiInput)) roi = ctx.input(m_roiInput).toFloatVector();
        if (!scales.empty() && !sizes.empty())
            return Status::badInput("Resize takes 'scales' or 'sizes', not both");
        if (scales.empty() && sizes.empty())
            return Status::badInput("Resize needs 'scales' or 'sizes'");
        if ((!scales.empty() && scales.size() != n) || (!sizes.empty() && sizes.size() != n)) {
            return Status::badInput("Resize expects " + std::to_string(n) +
                                    " scales or sizes for input " + shapeToString(x.shape()) +
                                    ", got " +
                                    std::to_string(std::max(scales.size(), sizes.size())));
        }
        const bool crop = m_options.coordinate == Coordinate::TfCropAndResize;
        if (crop && roi.size() != 2 * n)
            return Status::badInput("Resize tf_crop_and_resize needs an roi of " +
                                    std::to_string(2 * n) + " values");

        std::vector<resize::AxisSpec> specs(rank);
        for (int64_t d = 0; d < rank; ++d) {
            specs[d].inLen = specs[d].outLen = x.shape()[d];
        }
        double aspect = m_policy == "not_larger" ? INFINITY : 0.0;
        for (size_t i = 0; i < n && !sizes.empty() && m_policy != "stretch"; ++i) {
            const double ratio =
                static_cast<double>(sizes[i]) / static_cast<double>(x.shape()[axes[i]]);
            aspect = m_policy == "not_larger" ? std::min(aspect, ratio) : std::max(aspect, ratio);
        }
        for (size_t i = 0; i < n; ++i) {
            resize::AxisSpec &s = specs[axes[i]];
            if (crop) {
                s.roiStart = roi[i];
                s.roiEnd = roi[i + n];
            }
            const double in = static_cast<double>(s.inLen);
            if (!sizes.empty()) {
                if (sizes[i] < 0) return Status::badInput("Resize 'sizes' must not be negative");
                if (m_policy == "stretch") {
                    s.outLen = sizes[i];
                    s.scale = s.inLen ? static_cast<double>(sizes[i]) / in : 1.0;
                    s.lengthResized = static_cast<double>(sizes[i]);
                } else {
                    s.outLen = static_cast<int64_t>(std::floor(aspect * in + 0.5));
                    s.scale = aspect;
                    s.lengthResized = aspect * in;
                }
            } else {
                if (!(scales[i] > 0.0f)) return Status::badInput("Resize scales must be positive");
                s.scale = scales[i];
                s.lengthResized = in * s.scale;
                const double roiLength = crop ? s.roiEnd - s.roiStart : 1.0;
                s.outLen = static_cast<int64_t>(std::floor(in * roiLength * s.scale));
            }
        }
        Shape outShape;
        std::vector<resize::AxisTaps> taps;
        for (const resize::AxisSpec &s : specs) {
            outShape.push_back(s.outLen);
            taps.push_back(resize::computeTaps(s, m_options));
        }
        if (x.layout() != Layout::ChannelsLast) {
            Tensor &out = ctx.allocateOutput(0, x.dtype(), outShape);
            return resize::resample(x, taps, m_options, out);
        }
        // Channels-last: resample the physical [N, H, W, C] order with the taps permuted the
        // same way; the output stays channels-last for the next layout-aware kernel.
        Tensor &out = ctx.allocateOutput(0, x.dtype(), outShape, Layout::ChannelsLast);
        const std::vector<resize::AxisTaps> nhwcTaps = {taps[0], taps[2], taps[3], taps[1]};
        const Tensor in(x.dtype(), {x.dim(0), x.dim(2), x.dim(3), x.dim(1)}, x.storage());
        Tensor physical(x.dtype(), {outShape[0], outShape[2], outShape[3], outShape[1]},
                        out.storage());
        return resize::resample(in, nhwcTaps, m_options, physical);
    }

    bool acceptsChannelsLast(size_t i) const override { return i == 0; }

private:
    ResizeKernel() = default;

    Status configure(const KernelBuildInfo &info, bool upsample) {
        const Node &node = info.node;
        const int64_t opset = info.opset;
        const std::string op = upsample ? "Upsample" : "Resize";
        const bool legacy = upsample || opset < 11;  // Upsample and Resize-10 semantics
        const std::string mode = node.attrString("mode", "nearest");
        if (mode == "nearest")
            m_options.mode = Mode::Nearest;
        else if (mode == "linear" || mode == "bilinear")
            m_options.mode = Mode::Linear;
        else if (mode == "cubic" && !legacy)
            m_options.mode = Mode::Cubic;
        else
            return Status::unsupported(op + " mode '" + mode + "' is not supported");

        if (legacy) {
            m_options.coordinate = Coordinate::Asymmetric;
            m_options.rounding = Rounding::Simple;
            if (upsample && opset < 9) {
                m_scalesAttr = node.attrFloats("scales");
                if (m_scalesAttr.empty())
                    return Status::badInput("Upsample needs a 'scales' attribute");
            } else {
                m_scalesInput = 1;
            }
            return Status::ok();
        }
        m_roiInput = 1;
        m_scalesInput = 2;
        m_sizesInput = 3;
        const std::string coordinate =
            node.attrString("coordinate_transformation_mode", "half_pixel");
        if (coordinate == "half_pixel")
            m_options.coordinate = Coordinate::HalfPixel;
        else if (coordinate == "pytorch_half_pixel")
            m_options.coordinate = Coordinate::PytorchHalfPixel;
        else if (coordinate == "align_corners")
            m_options.coordinate = Coordinate::AlignCorners;
        else if (coordinate == "asymmetric")
            m_options.coordinate = Coordinate::Asymmetric;
        else if (coordinate == "tf_half_pixel_for_nn")
            m_options.coordinate = Coordinate::TfHalfPixelForNN;
        else if (coordinate == "tf_crop_and_resize")
            m_options.coordinate = Coordinate::TfCropAndResize;
        else if (coordinate == "half_pixel_symmetric" && opset >= 19)
            m_options.coordinate = Coordinate::HalfPixelSymmetric;
        else
            return Status::unsupported("Resize coordinate_transformation_mode '" + coordinate +
                                       "' is not supported");

        const std::string nearest = node.attrString("nearest_mode", "round_prefer_floor");
        if (nearest == "round_prefer_floor")
            m_options.rounding = Rounding::RoundPreferFloor;
        else if (nearest == "round_prefer_ceil")
            m_options.rounding = Rounding::RoundPreferCeil;
        else if (nearest == "floor")
            m_options.rounding = Rounding::Floor;
        else if (nearest == "ceil")
            m_options.rounding = Rounding::Ceil;
        else
            return Status::unsupported("Resize nearest_mode '" + nearest + "' is not supported");

        m_options.cubicA = node.attrFloat("cubic_coeff_a", -0.75f);
        m_options.excludeOutside = node.attrInt("exclude_outside", 0) != 0;
        m_options.extrapolation = node.attrFloat("extrapolation_value", 0.0f);
        if (opset >= 18) {
            m_options.antialias = node.attrInt("antialias", 0) != 0;
            m_axes = node.attrInts("axes");
            m_policy = node.attrString("keep_aspect_ratio_policy", "stretch");
            if (m_policy != "stretch" && m_policy != "not_larger" && m_policy != "not_smaller")
                return Status::unsupported("Resize keep_aspect_ratio_policy '" + m_policy +
                                           "' is not supported");
        }
        return Status::ok();
    }

    resize::Options m_options;
    std::vector<float> m_scalesAttr;
    std::vector<int64_t> m_axes;
    std::string m_policy = "stretch";
    int m_roiInput = -1, m_scalesInput = -1, m_sizesInput = -1;
};

}  // namespace

void registerResizeKernels(KernelRegistry &registry) {
    registry.add("Resize",
                 [](const KernelBuildInfo &info) { return ResizeKernel::create(info, false); });
    registry.add("Upsample",
                 [](const KernelBuildInfo &info) { return ResizeKernel::create(info, true); });
}

}  // namespace ql
