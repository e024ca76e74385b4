#pragma once
// Internal to the MatMul/Gemm kernels: the non-float fallback loops and small helpers.

#include <cstdint>
#include <string>

#include "core/status.h"
#include "kernels/kernel.h"
#include "kernels/type_dispatch.h"

namespace ql::matmul {

// Shapes of one MatMul call (numpy semantics), with 1-D operands promoted to matrices.
struct MatMulShapes {
    Shape a, b;    // rank >= 2, batch dims padded with leading 1s to the same rank
    Shape batch;   // broadcast batch dims
    Shape output;  // the ONNX output shape (promoted dims removed)
    int64_t m = 0, k = 0, n = 0;
};
// BadInput when the inner dimensions differ or the batch dimensions do not broadcast.
Status resolveShapes(const Shape &a, const Shape &b, MatMulShapes &s);

Result<KernelPtr> makeGemmKernel(const KernelBuildInfo &info);

// One matrix product c[M,N] = sum_k a(m,k) * b(k,n) with element strides for a and b, so
// transposed and broadcast operands need no copies. Accumulates in T (int types wrap).
template <class T>
void naiveProduct(const T *a, int64_t aRowStride, int64_t aColStride, const T *b,
                  int64_t bRowStride, int64_t bColStride, T *c, int64_t m, int64_t k, int64_t n) {
    for (int64_t i = 0; i < m; ++i) {
        T *row = c + i * n;
        for (int64_t j = 0; j < n; ++j) row[j] = T(0);
        for (int64_t p = 0; p < k; ++p) {
            const T av = a[i * aRowStride + p * aColStride];
            const T *bp = b + p * bRowStride;
            for (int64_t j = 0; j < n; ++j) row[j] += av * bp[j * bColStride];
        }
    }
}

// Calls f(T()) for the element types the fallback loops support.
template <class F>
Status dispatchFallbackType(DataType type, const std::string &op, F &&f) {
    if (dispatchAmong<float, double, int32_t, int64_t, uint32_t, uint64_t>(type, f))
        return Status::ok();
    return Status::unsupported(op + " on " + dataTypeName(type) + " is not supported");
}

}  // namespace ql::matmul
