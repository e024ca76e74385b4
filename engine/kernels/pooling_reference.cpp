// Pooling attributes, output-size rules and the plain C++ pooling loops.

#include <omp.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "kernels/pooling_common.h"

namespace ql::pooling {

namespace {

constexpr int64_t kParallelThreshold = int64_t(1) << 16;

std::string listToString(const std::vector<int64_t> &v) {
    return shapeToString(v);
}

Status checkPositive(const std::vector<int64_t> &values, const char *name, int64_t minimum) {
    for (int64_t v : values) {
        if (v < minimum) {
            return Status::badInput(std::string(name) + " " + listToString(values) +
                                    " must be >= " + std::to_string(minimum));
        }
    }
    return Status::ok();
}

// Per spatial dim and output index: where the window starts and which taps j fall inside the
// input ([lo, hi)) or inside the padded input (count, for count_include_pad).
struct WindowRange {
    int64_t start = 0;
    int64_t lo = 0, hi = 0;
    int64_t padded = 0;
};

std::vector<WindowRange> windowRanges(const PoolGeometry &g, int d) {
    std::vector<WindowRange> ranges(static_cast<size_t>(g.out[d]));
    const int64_t dil = g.dilation[d], k = g.kernel[d], in = g.in[d];
    for (int64_t o = 0; o < g.out[d]; ++o) {
        WindowRange &r = ranges[o];
        r.start = o * g.stride[d] - g.padBegin[d];
        r.lo = r.start < 0 ? (-r.start + dil - 1) / dil : 0;
        r.hi = in - r.start > 0 ? std::min(k, (in - r.start + dil - 1) / dil) : 0;
        if (r.hi < r.lo) r.hi = r.lo;
        const int64_t paddedEnd = in + g.padEnd[d] - r.start;  // start >= -padBegin always
        r.padded = paddedEnd > 0 ? std::min(k, (paddedEnd + dil - 1) / dil) : 0;
    }
    return ranges;
}

template <class T>
void poolLoop(const T *x, T *y, int64_t *indices, const PoolGeometry &g, bool isMax,
              bool countIncludePad, bool columnMajor) {
    std::vector<WindowRange> ranges[kMaxSpatial];
    for (int d = 0; d < kMaxSpatial; ++d) ranges[d] = windowRanges(g, d);
    const int64_t planes = g.batch * g.channels;
    const int64_t inPlane = g.in[0] * g.in[1] * g.in[2];
    const int64_t outPlane = g.out[0] * g.out[1] * g.out[2];
    const bool parallel =
        planes * outPlane * g.kernel[0] * g.kernel[1] * g.kernel[2] > kParallelThreshold;
#pragma omp parallel for collapse(2) if (parallel) schedule(static)
    for (int64_t p = 0; p < planes; ++p) {
        for (int64_t o0 = 0; o0 < g.out[0]; ++o0) {
            const T *src = x + p * inPlane;
            const WindowRange &r0 = ranges[0][o0];
            for (int64_t o1 = 0; o1 < g.out[1]; ++o1) {
                const WindowRange &r1 = ranges[1][o1];
                for (int64_t o2 = 0; o2 < g.out[2]; ++o2) {
                    const WindowRange &r2 = ranges[2][o2];
                    const int64_t outIndex = p * outPlane + (o0 * g.out[1] + o1) * g.out[2] + o2;
                    T best = std::numeric_limits<T>::lowest();
                    if constexpr (std::numeric_limits<T>::has_infinity)
                        best = -std::numeric_limits<T>::infinity();
                    int64_t bestPos = -1;
                    double sum = 0.0;
                    for (int64_t j0 = r0.lo; j0 < r0.hi; ++j0) {
                        const int64_t i0 = r0.start + j0 * g.dilation[0];
                        for (int64_t j1 = r1.lo; j1 < r1.hi; ++j1) {
                            const int64_t i1 = r1.start + j1 * g.dilation[1];
                            for (int64_t j2 = r2.lo; j2 < r2.hi; ++j2) {
                                const int64_t i2 = r2.start + j2 * g.dilation[2];
                                const int64_t pos = (i0 * g.in[1] + i1) * g.in[2] + i2;
                                const T v = src[pos];
                                if (isMax) {
                                    if (bestPos < 0 || v > best) {
                                        best = v;
                                        bestPos =
                                            columnMajor ? i0 + g.in[0] * (i1 + g.in[1] * i2) : pos;
                                    }
                                } else {
                                    sum += static_cast<double>(v);
                                }
                            }
                        }
                    }
                    if (isMax) {
                        y[outIndex] = best;
                        if (indices) indices[outIndex] = bestPos < 0 ? -1 : p * inPlane + bestPos;
                    } else {
                        const int64_t count =
                            countIncludePad ? r0.padded * r1.padded * r2.padded
                                            : (r0.hi - r0.lo) * (r1.hi - r1.lo) * (r2.hi - r2.lo);
                        y[outIndex] =
                            count > 0 ? static_cast<T>(sum / static_cast<double>(count)) : T(0);
                    }
                }
            }
        }
    }
}

template <class T>
void globalPlain(const T *x, T *y, int64_t rows, int64_t size, bool isMax) {
    const bool parallel = rows > 1 && rows * size > kParallelThreshold;
#pragma omp parallel for if (parallel) schedule(static)
    for (int64_t r = 0; r < rows; ++r) {
        const T *row = x + r * size;
        if (isMax) {
            T best = size ? row[0] : T(0);
            for (int64_t i = 1; i < size; ++i) best = row[i] > best ? row[i] : best;
            y[r] = best;
        } else {
            double sum = 0.0;
#pragma omp simd reduction(+ : sum)
            for (int64_t i = 0; i < size; ++i) sum += static_cast<double>(row[i]);
            y[r] = size ? static_cast<T>(sum / static_cast<double>(size)) : T(0);
        }
    }
}

// x stored [N, HW, C]: accumulate runs of channels per pixel (contiguous, vectorised). Threads
// take disjoint channel ranges of whole cache lines, so every channel keeps its summation order.
template <class T>
void globalChannelsLast(const T *x, T *y, int64_t batch, int64_t channels, int64_t size,
                        bool isMax) {
    constexpr int64_t kLine = 64 / sizeof(T);
    const int64_t lines = (channels + kLine - 1) / kLine;
    const bool parallel = batch * channels * size > kParallelThreshold;
    const int64_t parts = parallel ? std::min<int64_t>(lines, omp_get_max_threads()) : 1;
#pragma omp parallel for if (parallel && batch * parts > 1) schedule(static)
    for (int64_t job = 0; job < batch * parts; ++job) {
        const int64_t n = job / parts, part = job % parts;
        const int64_t c0 = std::min(channels, part * lines / parts * kLine);
        const int64_t c1 = std::min(channels, (part + 1) * lines / parts * kLine);
        const T *src = x + n * size * channels;
        T *dst = y + n * channels;
        if (isMax) {
            for (int64_t c = c0; c < c1; ++c) dst[c] = size ? src[c] : T(0);
            for (int64_t s = 1; s < size; ++s) {
                const T *pixel = src + s * channels;
                for (int64_t c = c0; c < c1; ++c) dst[c] = pixel[c] > dst[c] ? pixel[c] : dst[c];
            }
        } else {
            std::vector<double> acc(static_cast<size_t>(c1 - c0), 0.0);
            double *sum = acc.data() - c0;
            for (int64_t s = 0; s < size; ++s) {
                const T *pixel = src + s * channels;
                for (int64_t c = c0; c < c1; ++c) sum[c] += static_cast<double>(pixel[c]);
            }
            for (int64_t c = c0; c < c1; ++c)
                dst[c] = size ? static_cast<T>(sum[c] / static_cast<double>(size)) : T(0);
        }
    }
}

template <class T>
void globalTyped(const Tensor &x, Tensor &y, bool isMax) {
    const int64_t batch = x.shape()[0], channels = x.shape()[1];
    const int64_t size = channels && batch ? x.numel() / (batch * channels) : 0;
    if (x.layout() == Layout::ChannelsLast)
        globalChannelsLast(x.data<T>(), y.data<T>(), batch, channels, size, isMax);
    else
        globalPlain(x.data<T>(), y.data<T>(), batch * channels, size, isMax);
}

}  // namespace

Status parsePoolAttributes(const Node &node, PoolAttributes &a) {
    a.kernel = node.attrInts("kernel_shape");
    a.strides = node.attrInts("strides");
    a.pads = node.attrInts("pads");
    a.dilations = node.attrInts("dilations");
    a.ceilMode = node.attrInt("ceil_mode", 0) != 0;
    a.countIncludePad = node.attrInt("count_include_pad", 0) != 0;
    a.storageOrder = node.attrInt("storage_order", 0);
    const std::string autoPad = node.attrString("auto_pad", "NOTSET");
    if (autoPad == "NOTSET" || autoPad.empty())
        a.autoPad = PoolAttributes::AutoPad::NotSet;
    else if (autoPad == "SAME_UPPER")
        a.autoPad = PoolAttributes::AutoPad::SameUpper;
    else if (autoPad == "SAME_LOWER")
        a.autoPad = PoolAttributes::AutoPad::SameLower;
    else if (autoPad == "VALID")
        a.autoPad = PoolAttributes::AutoPad::Valid;
    else
        return Status::badInput("unknown auto_pad '" + autoPad + "'");

    if (a.kernel.empty()) return Status::badInput("attribute kernel_shape is required");
    const size_t n = a.kernel.size();
    if (!a.strides.empty() && a.strides.size() != n)
        return Status::badInput("strides " + listToString(a.strides) + " must have " +
                                std::to_string(n) + " values");
    if (!a.dilations.empty() && a.dilations.size() != n)
        return Status::badInput("dilations " + listToString(a.dilations) + " must have " +
                                std::to_string(n) + " values");
    if (!a.pads.empty() && a.pads.size() != 2 * n)
        return Status::badInput("pads " + listToString(a.pads) + " must have " +
                                std::to_string(2 * n) + " values");
    QL_RETURN_IF_ERROR(checkPositive(a.kernel, "kernel_shape", 1));
    QL_RETURN_IF_ERROR(checkPositive(a.strides, "strides", 1));
    QL_RETURN_IF_ERROR(checkPositive(a.dilations, "dilations", 1));
    QL_RETURN_IF_ERROR(checkPositive(a.pads, "pads", 0));
    if (a.storageOrder != 0 && a.storageOrder != 1)
        return Status::badInput("storage_order must be 0 or 1, got " +
                                std::to_string(a.storageOrder));
    return Status::ok();
}

Shape PoolGeometry::outputShape() const {
    Shape shape{batch, channels};
    for (int d = 0; d < spatial; ++d) shape.push_back(out[d]);
    return shape;
}

Status computePoolGeometry(const PoolAttributes &a, const Shape &input, PoolGeometry &g) {
    const int rank = static_cast<int>(input.size());
    if (rank < 3)
        return Status::badInput("expects an input [N, C, spatial...], got " + shapeToString(input));
    const int spatial = rank - 2;
    if (spatial != static_cast<int>(a.kernel.size())) {
        return Status::badInput("kernel_shape " + listToString(a.kernel) + " does not fit input " +
                                shapeToString(input) + " (" + std::to_string(spatial) +
                                " spatial dims)");
    }
    if (spatial > kMaxSpatial)
        return Status::unsupported("pooling over " + std::to_string(spatial) +
                                   " spatial dims (at most 3)");
    g = PoolGeometry();
    g.spatial = spatial;
    g.batch = input[0];
    g.channels = input[1];
    for (int d = 0; d < spatial; ++d) {
        const int64_t in = input[2 + d];
        g.in[d] = in;
        g.kernel[d] = a.kernel[d];
        g.stride[d] = a.strides.empty() ? 1 : a.strides[d];
        g.dilation[d] = a.dilations.empty() ? 1 : a.dilations[d];
        const int64_t s = g.stride[d], ek = g.extent(d);
        int64_t out = 0;
        switch (a.autoPad) {
            case PoolAttributes::AutoPad::SameUpper:
            case PoolAttributes::AutoPad::SameLower: {
                out = (in + s - 1) / s;
                const int64_t total = std::max<int64_t>(0, (out - 1) * s + ek - in);
                const bool upper = a.autoPad == PoolAttributes::AutoPad::SameUpper;
                g.padBegin[d] = upper ? total / 2 : total - total / 2;
                g.padEnd[d] = total - g.padBegin[d];
                break;
            }
            case PoolAttributes::AutoPad::Valid:
                if (in < ek)
                    out = 0;
                else
                    out = (in - ek) / s + 1;
                break;
            case PoolAttributes::AutoPad::NotSet: {
                g.padBegin[d] = a.pads.empty() ? 0 : a.pads[d];
                g.padEnd[d] = a.pads.empty() ? 0 : a.pads[d + spatial];
                const int64_t span = in + g.padBegin[d] + g.padEnd[d] - ek;
                if (span < 0) {
                    out = 0;
                    break;
                }
                out = (a.ceilMode ? (span + s - 1) / s : span / s) + 1;
                // ceil_mode never starts a window inside the end padding (PyTorch and ONNX
                // >= 1.16).
                if (a.ceilMode && (out - 1) * s >= in + g.padBegin[d]) --out;
                break;
            }
        }
        if (out < 1) {
            return Status::badInput("window of " + std::to_string(ek) + " (kernel " +
                                    std::to_string(g.kernel[d]) + ", dilation " +
                                    std::to_string(g.dilation[d]) + ") is larger than padded " +
                                    "input dim " + std::to_string(d) + " of size " +
                                    std::to_string(in + g.padBegin[d] + g.padEnd[d]) + " (input " +
                                    shapeToString(input) + ")");
        }
        g.out[d] = out;
        if ((out - 1) * s + ek > in + g.padBegin[d] + g.padEnd[d]) g.overhang = true;
    }
    return Status::ok();
}

Status poolReference(const Tensor &x, Tensor &y, Tensor *indices, const PoolGeometry &g, bool isMax,
                     const PoolAttributes &a) {
    int64_t *idx = indices ? indices->data<int64_t>() : nullptr;
    const bool colMajor = a.storageOrder == 1;
    const bool inclPad = a.countIncludePad;
    switch (x.dtype()) {
        case DataType::Float:
            poolLoop(x.data<float>(), y.data<float>(), idx, g, isMax, inclPad, colMajor);
            return Status::ok();
        case DataType::Double:
            poolLoop(x.data<double>(), y.data<double>(), idx, g, isMax, inclPad, colMajor);
            return Status::ok();
        case DataType::UInt8:
            if (!isMax) break;
            poolLoop(x.data<uint8_t>(), y.data<uint8_t>(), idx, g, isMax, inclPad, colMajor);
            return Status::ok();
        case DataType::Int8:
            if (!isMax) break;
            poolLoop(x.data<int8_t>(), y.data<int8_t>(), idx, g, isMax, inclPad, colMajor);
            return Status::ok();
        default:
            break;
    }
    return Status::unsupported(std::string(isMax ? "MaxPool" : "AveragePool") +
                               " does not support dtype " + dataTypeName(x.dtype()));
}

Status globalPool(const Tensor &x, Tensor &y, bool isMax) {
    switch (x.dtype()) {
        case DataType::Float:
            globalTyped<float>(x, y, isMax);
            return Status::ok();
        case DataType::Double:
            globalTyped<double>(x, y, isMax);
            return Status::ok();
        case DataType::UInt8:
            if (!isMax) break;
            globalTyped<uint8_t>(x, y, isMax);
            return Status::ok();
        case DataType::Int8:
            if (!isMax) break;
            globalTyped<int8_t>(x, y, isMax);
            return Status::ok();
        default:
            break;
    }
    return Status::unsupported(std::string(isMax ? "GlobalMaxPool" : "GlobalAveragePool") +
                               " does not support dtype " + dataTypeName(x.dtype()));
}

}  // namespace ql::pooling
