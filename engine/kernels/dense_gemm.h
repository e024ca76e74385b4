#pragma once
// Row-major single-precision C = alpha · op(A) · op(B) + beta · C on oneDNN's GEMM, for engine
// code outside the kernels that needs plain matrix products (the remedies' statistics and
// optimisation). op(X) is X or its transpose.

#include <cstdint>

namespace ql {

// A is m×k (k×m when transA), B is k×n (n×k when transB), C is m×n; ld* are row strides.
void denseGemm(bool transA, bool transB, int64_t m, int64_t n, int64_t k, float alpha,
               const float *a, int64_t lda, const float *b, int64_t ldb, float beta, float *c,
               int64_t ldc);

}  // namespace ql
