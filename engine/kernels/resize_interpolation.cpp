#include "kernels/resize_interpolation.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "kernels/shape_common.h"

namespace ql::resize {

double sourceCoordinate(int64_t j, const AxisSpec &axis, Coordinate coordinate) {
    const double x = static_cast<double>(j), s = axis.scale, L = axis.lengthResized;
    const double inLast = static_cast<double>(axis.inLen - 1);
    switch (coordinate) {
        case Coordinate::HalfPixel:
            return (x + 0.5) / s - 0.5;
        case Coordinate::PytorchHalfPixel:
            return axis.outLen > 1 ? (x + 0.5) / s - 0.5 : 0.0;
        case Coordinate::AlignCorners:
            return L == 1.0 ? 0.0 : x * inLast / (L - 1.0);
        case Coordinate::Asymmetric:
            return x / s;
        case Coordinate::TfHalfPixelForNN:
            return (x + 0.5) / s;
        case Coordinate::HalfPixelSymmetric: {
            // Half-pixel about the centre: the rounding of the output length shifts both ends
            // by half the difference (ONNX Resize-19).
            const double adjustment = static_cast<double>(axis.outLen) / L;
            const double offset = static_cast<double>(axis.inLen) / 2.0 * (1.0 - adjustment);
            return offset + (x + 0.5) / s - 0.5;
        }
        case Coordinate::TfCropAndResize:
            if (L > 1.0)
                return axis.roiStart * inLast +
                       x * (axis.roiEnd - axis.roiStart) * inLast / (L - 1.0);
            return 0.5 * (axis.roiStart + axis.roiEnd) * inLast;
    }
    return 0.0;
}

namespace {

int64_t nearestIndex(double x, Rounding rounding, bool downsampling) {
    const double f = std::floor(x);
    switch (rounding) {
        case Rounding::RoundPreferFloor:
            return static_cast<int64_t>(x - f == 0.5 ? f : std::floor(x + 0.5));
        case Rounding::RoundPreferCeil:
            return static_cast<int64_t>(x - f == 0.5 ? f + 1 : std::floor(x + 0.5));
        case Rounding::Floor:
            return static_cast<int64_t>(f);
        case Rounding::Ceil:
            return static_cast<int64_t>(std::ceil(x));
        case Rounding::Simple:
            return static_cast<int64_t>(downsampling ? std::ceil(x) : f);
    }
    return 0;
}

double cubicKernel(double x, double A) {
    x = std::fabs(x);
    if (x <= 1.0) return ((A + 2) * x - (A + 3)) * x * x + 1;
    if (x < 2.0) return ((A * x - 5 * A) * x + 8 * A) * x - 4 * A;
    return 0.0;
}

}  // namespace

AxisTaps computeTaps(const AxisSpec &axis, const Options &options) {
    AxisTaps t;
    t.inLen = axis.inLen;
    t.outLen = axis.outLen;
    // Filter support in input pixels: 1 each side for linear, 2 for cubic; antialiasing
    // stretches it by 1/scale when downsampling.
    const bool nearest = options.mode == Mode::Nearest;
    const double support = options.mode == Mode::Cubic ? 2.0 : 1.0;
    const double filterScale = options.antialias && !nearest ? std::min(axis.scale, 1.0) : 1.0;
    const int64_t first =
        nearest ? 0 : static_cast<int64_t>(std::floor(-support / filterScale)) + 1;
    t.taps = nearest ? 1 : static_cast<int>(2 - 2 * first);  // offsets first .. 1 - first
    t.index.assign(static_cast<size_t>(t.outLen * t.taps), 0);
    t.weight.assign(static_cast<size_t>(t.outLen * t.taps), 0.0f);
    t.outside.assign(static_cast<size_t>(t.outLen), 0);
    const int64_t last = std::max<int64_t>(axis.inLen - 1, 0);
    std::vector<double> w(t.taps);
    for (int64_t j = 0; j < t.outLen; ++j) {
        const double x = sourceCoordinate(j, axis, options.coordinate);
        if (options.coordinate == Coordinate::TfCropAndResize &&
            (x < 0.0 || x > static_cast<double>(last))) {
            t.outside[j] = 1;
            continue;
        }
        int64_t *index = &t.index[j * t.taps];
        float *weight = &t.weight[j * t.taps];
        if (nearest) {
            index[0] =
                std::clamp<int64_t>(nearestIndex(x, options.rounding, axis.scale < 1.0), 0, last);
            weight[0] = 1.0f;
            continue;
        }
        // ONNX convention: the base pixel is strictly left of x, so ratio lies in (0, 1].
        int64_t base = static_cast<int64_t>(std::floor(x));
        double ratio = x - static_cast<double>(base);
        if (ratio == 0.0) {
            base -= 1;
            ratio = 1.0;
        }
        double sum = 0.0;
        for (int k = 0; k < t.taps; ++k) {
            const int64_t offset = first + k;
            const double d = (static_cast<double>(offset) - ratio) * filterScale;
            w[k] = options.mode == Mode::Cubic ? cubicKernel(d, options.cubicA)
                                               : std::max(0.0, 1.0 - std::fabs(d));
            const int64_t src = base + offset;
            if (options.excludeOutside && (src < 0 || src > last)) w[k] = 0.0;
            sum += w[k];
        }
        const bool normalize = options.excludeOutside || filterScale < 1.0;
        for (int k = 0; k < t.taps; ++k) {
            index[k] = std::clamp<int64_t>(base + first + k, 0, last);
            weight[k] = static_cast<float>(normalize && sum != 0.0 ? w[k] / sum : w[k]);
        }
    }
    t.identity = t.inLen == t.outLen;
    for (int64_t j = 0; t.identity && j < t.outLen; ++j) {
        if (t.outside[j]) {
            t.identity = false;
            break;
        }
        double self = 0.0, other = 0.0;
        for (int k = 0; k < t.taps; ++k)
            (t.index[j * t.taps + k] == j ? self : other) += std::fabs(t.weight[j * t.taps + k]);
        t.identity = std::fabs(self - 1.0) < 1e-7 && other < 1e-7;
    }
    return t;
}

namespace {

// Nearest: one gather pass; per-row source offsets from per-axis index tables.
template <class T>
void nearestTyped(const T *src, const std::vector<AxisTaps> &axes, const Shape &inShape,
                  T extrapolation, T *dst) {
    const int rank = static_cast<int>(axes.size());
    const std::vector<int64_t> strides = shape::contiguousStrides(inShape);
    const AxisTaps &lastAxis = axes[rank - 1];
    const int64_t rowLen = lastAxis.outLen;
    int64_t rows = 1;
    for (int a = 0; a < rank - 1; ++a) rows *= axes[a].outLen;
    shape::parallelChunks(rows, rowLen, [&](int64_t begin, int64_t end) {
        for (int64_t r = begin; r < end; ++r) {
            int64_t offset = 0, rest = r;
            bool outside = false;
            for (int a = rank - 2; a >= 0; --a) {
                const int64_t j = rest % axes[a].outLen;
                rest /= axes[a].outLen;
                outside = outside || axes[a].outside[j];
                offset += axes[a].index[j] * strides[a];
            }
            T *row = dst + r * rowLen;
            if (outside) {
                std::fill(row, row + rowLen, extrapolation);
            } else if (lastAxis.identity) {
                std::memcpy(row, src + offset, static_cast<size_t>(rowLen) * sizeof(T));
            } else {
                const T *in = src + offset;
                for (int64_t j = 0; j < rowLen; ++j)
                    row[j] = lastAxis.outside[j] ? extrapolation : in[lastAxis.index[j]];
            }
        }
    });
}

template <class T>
void nearestPass(const Tensor &input, const std::vector<AxisTaps> &axes,
                 const uint8_t *extrapolation, Tensor &output) {
    T e;
    std::memcpy(&e, extrapolation, sizeof(T));
    nearestTyped(static_cast<const T *>(input.rawData()), axes, input.shape(), e,
                 static_cast<T *>(output.rawData()));
}

// One separable pass along an axis: [outer, inLen, inner] -> [outer, outLen, inner].
template <class T>
void axisPass(const T *src, T *dst, int64_t outer, int64_t inner, const AxisTaps &t,
              T extrapolation) {
    const int64_t inLen = t.inLen, outLen = t.outLen;
    shape::parallelChunks(outer * outLen, inner * t.taps, [&](int64_t begin, int64_t end) {
        for (int64_t item = begin; item < end; ++item) {
            const int64_t o = item / outLen, j = item % outLen;
            T *out = dst + item * inner;
            if (t.outside[j]) {
                std::fill(out, out + inner, extrapolation);
                continue;
            }
            const int64_t *index = &t.index[j * t.taps];
            const float *weight = &t.weight[j * t.taps];
            const T *in = src + o * inLen * inner;
            if (inner == 1) {
                if (t.taps == 2) {
                    out[0] = static_cast<T>(weight[0]) * in[index[0]] +
                             static_cast<T>(weight[1]) * in[index[1]];
                    continue;
                }
                T acc = 0;
                for (int k = 0; k < t.taps; ++k) acc += static_cast<T>(weight[k]) * in[index[k]];
                out[0] = acc;
                continue;
            }
            const T w0 = static_cast<T>(weight[0]);
            const T *row0 = in + index[0] * inner;
            for (int64_t i = 0; i < inner; ++i) out[i] = w0 * row0[i];
            for (int k = 1; k < t.taps; ++k) {
                if (weight[k] == 0.0f) continue;
                const T wk = static_cast<T>(weight[k]);
                const T *row = in + index[k] * inner;
                for (int64_t i = 0; i < inner; ++i) out[i] += wk * row[i];
            }
        }
    });
}

// Estimated cost of passes in this order: outputs * taps, scalar passes (innermost axis)
// weighted higher than row passes that vectorize over the inner extent.
double passCost(Shape shape, const std::vector<AxisTaps> &axes, const std::vector<int> &order) {
    double cost = 0;
    for (int a : order) {
        shape[a] = axes[a].outLen;
        const bool innermost = a + 1 == static_cast<int>(shape.size()) ||
                               shapeElementCount(Shape(shape.begin() + a + 1, shape.end())) == 1;
        cost +=
            static_cast<double>(shapeElementCount(shape)) * axes[a].taps * (innermost ? 4.0 : 1.0);
    }
    return cost;
}

// Tries every order of the resized axes (there are rarely more than three).
std::vector<int> cheapestOrder(const Shape &shape, const std::vector<AxisTaps> &axes,
                               std::vector<int> order) {
    if (order.size() > 6) return order;
    std::sort(order.begin(), order.end());
    std::vector<int> best = order;
    double bestCost = passCost(shape, axes, order);
    while (std::next_permutation(order.begin(), order.end())) {
        const double cost = passCost(shape, axes, order);
        if (cost < bestCost) {
            bestCost = cost;
            best = order;
        }
    }
    return best;
}

template <class T>
void separable(const Tensor &input, const std::vector<AxisTaps> &axes, T extrapolation,
               Tensor &output) {
    const int rank = static_cast<int>(axes.size());
    std::vector<int> order;
    for (int a = 0; a < rank; ++a)
        if (!axes[a].identity) order.push_back(a);
    if (order.empty()) {
        shape::parallelCopy(output.rawData(), input.rawData(), input.byteSize());
        return;
    }
    order = cheapestOrder(input.shape(), axes, order);
    Shape shape = input.shape();
    std::vector<T> buffers[2];
    const T *src = static_cast<const T *>(input.rawData());
    for (size_t p = 0; p < order.size(); ++p) {
        const int a = order[p];
        int64_t outer = 1, inner = 1;
        for (int d = 0; d < a; ++d) outer *= shape[d];
        for (int d = a + 1; d < rank; ++d) inner *= shape[d];
        shape[a] = axes[a].outLen;
        T *dst = nullptr;
        if (p + 1 == order.size()) {
            dst = static_cast<T *>(output.rawData());
        } else {
            buffers[p % 2].resize(static_cast<size_t>(shapeElementCount(shape)));
            dst = buffers[p % 2].data();
        }
        axisPass(src, dst, outer, inner, axes[a], extrapolation);
        src = dst;
    }
}

}  // namespace

Status resample(const Tensor &input, const std::vector<AxisTaps> &axes, const Options &options,
                Tensor &output) {
    if (output.numel() == 0) return Status::ok();
    if (input.numel() == 0)
        return Status::badInput("Resize cannot fill " + shapeToString(output.shape()) +
                                " from an empty input " + shapeToString(input.shape()));
    if (axes.empty()) {  // a scalar: nothing to resize
        std::memcpy(output.rawData(), input.rawData(), input.byteSize());
        return Status::ok();
    }
    if (options.mode == Mode::Nearest) {
        uint8_t e[8] = {};
        if (!shape::encodeScalar(input.dtype(), options.extrapolation, e))
            return Status::unsupported("Resize does not support dtype " +
                                       dataTypeName(input.dtype()));
        const bool known = shape::withElementType(dataTypeSize(input.dtype()), [&](auto tag) {
            nearestPass<decltype(tag)>(input, axes, e, output);
        });
        if (!known)
            return Status::unsupported("Resize does not support dtype " +
                                       dataTypeName(input.dtype()));
        return Status::ok();
    }
    switch (input.dtype()) {
        case DataType::Float:
            separable<float>(input, axes, static_cast<float>(options.extrapolation), output);
            break;
        case DataType::Double:
            separable<double>(input, axes, options.extrapolation, output);
            break;
        default:
            return Status::unsupported(
                "Resize " + std::string(options.mode == Mode::Linear ? "linear" : "cubic") +
                " mode does not support dtype " + dataTypeName(input.dtype()));
    }
    return Status::ok();
}

}  // namespace ql::resize
