#pragma once
// Naive convolution references for the engine tests: direct loops over ONNX-order tensors,
// written independently of the kernels (no oneDNN), 1-D to 3-D via size-1 leading dims.

#include <array>
#include <vector>

#include "ir/tensor.h"

namespace ql::test {

struct RefConvParams {
    std::vector<int64_t> strides, dilations, padBegin, padEnd;  // per spatial axis
    int64_t group = 1;
};

namespace detail {
// Spatial extents as exactly three dims, with 1s (and stride/dilation 1, pad 0) in front.
inline std::array<int64_t, 3> pad3(const std::vector<int64_t> &v, size_t n, int64_t fill) {
    std::array<int64_t, 3> out{fill, fill, fill};
    for (size_t i = 0; i < n; ++i) out[3 - n + i] = v.empty() ? fill : v[i];
    return out;
}
inline std::array<int64_t, 3> spatial3(const Shape &s) {
    std::vector<int64_t> v(s.begin() + 2, s.end());
    return pad3(v, v.size(), 1);
}
}  // namespace detail

// x [N, C, D...], w [M, C/group, k...]; output size from the usual floor formula.
inline Tensor refConv(const Tensor &xIn, const Tensor &w, const Tensor *b, const RefConvParams &p) {
    const Tensor x = xIn.toPlain();
    const size_t n = x.shape().size() - 2;
    const auto in = detail::spatial3(x.shape()), k = detail::spatial3(w.shape());
    const auto s = detail::pad3(p.strides, n, 1), d = detail::pad3(p.dilations, n, 1);
    const auto pb = detail::pad3(p.padBegin, n, 0), pe = detail::pad3(p.padEnd, n, 0);
    std::array<int64_t, 3> out{};
    Shape outShape{x.dim(0), w.dim(0)};
    for (int i = 0; i < 3; ++i) {
        out[i] = (in[i] + pb[i] + pe[i] - ((k[i] - 1) * d[i] + 1)) / s[i] + 1;
        if (i >= 3 - static_cast<int>(n)) outShape.push_back(out[i]);
    }
    Tensor y(DataType::Float, outShape);
    const int64_t batch = x.dim(0), channels = x.dim(1), m = w.dim(0);
    const int64_t cg = channels / p.group, mg = m / p.group;
    const float *xp = x.data<float>(), *wp = w.data<float>();
    float *yp = y.data<float>();
    for (int64_t bn = 0; bn < batch; ++bn)
        for (int64_t oc = 0; oc < m; ++oc) {
            const int64_t g = oc / mg;
            for (int64_t o0 = 0; o0 < out[0]; ++o0)
                for (int64_t o1 = 0; o1 < out[1]; ++o1)
                    for (int64_t o2 = 0; o2 < out[2]; ++o2) {
                        double acc = b ? b->data<float>()[oc] : 0.0;
                        for (int64_t c = 0; c < cg; ++c)
                            for (int64_t k0 = 0; k0 < k[0]; ++k0)
                                for (int64_t k1 = 0; k1 < k[1]; ++k1)
                                    for (int64_t k2 = 0; k2 < k[2]; ++k2) {
                                        const int64_t i0 = o0 * s[0] - pb[0] + k0 * d[0];
                                        const int64_t i1 = o1 * s[1] - pb[1] + k1 * d[1];
                                        const int64_t i2 = o2 * s[2] - pb[2] + k2 * d[2];
                                        if (i0 < 0 || i0 >= in[0] || i1 < 0 || i1 >= in[1] ||
                                            i2 < 0 || i2 >= in[2])
                                            continue;
                                        const int64_t xi =
                                            (((bn * channels + g * cg + c) * in[0] + i0) * in[1] +
                                             i1) *
                                                in[2] +
                                            i2;
                                        const int64_t wi =
                                            (((oc * cg + c) * k[0] + k0) * k[1] + k1) * k[2] + k2;
                                        acc += static_cast<double>(xp[xi]) * wp[wi];
                                    }
                        yp[(((bn * m + oc) * out[0] + o0) * out[1] + o1) * out[2] + o2] =
                            static_cast<float>(acc);
                    }
        }
    return y;
}

// x [N, C, D...], w [C, M/group, k...]; `outSpatial` is the expected output size (a scatter
// places input i at o = i*stride - padBegin + k*dilation; positions past the data get bias).
inline Tensor refConvTranspose(const Tensor &xIn, const Tensor &w, const Tensor *b,
                               const RefConvParams &p, const std::vector<int64_t> &outSpatial) {
    const Tensor x = xIn.toPlain();
    const size_t n = x.shape().size() - 2;
    const auto in = detail::spatial3(x.shape()), k = detail::spatial3(w.shape());
    const auto s = detail::pad3(p.strides, n, 1), d = detail::pad3(p.dilations, n, 1);
    const auto pb = detail::pad3(p.padBegin, n, 0);
    const auto out = detail::pad3(outSpatial, n, 1);
    const int64_t batch = x.dim(0), channels = x.dim(1), mg = w.dim(1), m = mg * p.group;
    const int64_t cg = channels / p.group;
    Shape outShape{batch, m};
    for (int64_t v : outSpatial) outShape.push_back(v);
    std::vector<double> acc(static_cast<size_t>(shapeElementCount(outShape)), 0.0);
    const float *xp = x.data<float>(), *wp = w.data<float>();
    for (int64_t bn = 0; bn < batch; ++bn)
        for (int64_t c = 0; c < channels; ++c) {
            const int64_t g = c / cg;
            for (int64_t mo = 0; mo < mg; ++mo)
                for (int64_t i0 = 0; i0 < in[0]; ++i0)
                    for (int64_t i1 = 0; i1 < in[1]; ++i1)
                        for (int64_t i2 = 0; i2 < in[2]; ++i2) {
                            const float xv =
                                xp[(((bn * channels + c) * in[0] + i0) * in[1] + i1) * in[2] + i2];
                            for (int64_t k0 = 0; k0 < k[0]; ++k0)
                                for (int64_t k1 = 0; k1 < k[1]; ++k1)
                                    for (int64_t k2 = 0; k2 < k[2]; ++k2) {
                                        const int64_t o0 = i0 * s[0] - pb[0] + k0 * d[0];
                                        const int64_t o1 = i1 * s[1] - pb[1] + k1 * d[1];
                                        const int64_t o2 = i2 * s[2] - pb[2] + k2 * d[2];
                                        if (o0 < 0 || o0 >= out[0] || o1 < 0 || o1 >= out[1] ||
                                            o2 < 0 || o2 >= out[2])
                                            continue;
                                        const int64_t oc = g * mg + mo;
                                        const float wv =
                                            wp[(((c * mg + mo) * k[0] + k0) * k[1] + k1) * k[2] +
                                               k2];
                                        acc[(((bn * m + oc) * out[0] + o0) * out[1] + o1) * out[2] +
                                            o2] += static_cast<double>(xv) * wv;
                                    }
                        }
        }
    Tensor y(DataType::Float, outShape);
    const int64_t plane = out[0] * out[1] * out[2];
    for (int64_t i = 0; i < y.numel(); ++i) {
        const int64_t oc = (i / plane) % m;
        y.data<float>()[i] = static_cast<float>(acc[i] + (b ? b->data<float>()[oc] : 0.0));
    }
    return y;
}

}  // namespace ql::test
