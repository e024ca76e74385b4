#pragma once
// Internal to the MatMul/Gemm kernels: the non-float fallback loops and small helpers.

#include <cstdint>
#include <string>

#include "core/status.h"
#include "kernels/kernel.h"

namespace ql::matmul {

// Primitives kept per kernel for distinct input shapes; the oldest goes first beyond this.
inline constexpr size_t kMaxCachedShapes = 8;

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
    switch (type) {
        case DataType::Float:
            f(float());
            return Status::ok();
        case DataType::Double:
            f(double());
            return Status::ok();
        case DataType::Int32:
            f(int32_t());
            return Status::ok();
        case DataType::Int64:
            f(int64_t());
            return Status::ok();
        case DataType::UInt32:
            f(uint32_t());
            return Status::ok();
        case DataType::UInt64:
            f(uint64_t());
            return Status::ok();
        default:
            return Status::unsupported(op + " on " + dataTypeName(type) + " is not supported");
    }
}

}  // namespace ql::matmul
