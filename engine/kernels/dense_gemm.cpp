#include "kernels/dense_gemm.h"

#include <dnnl.hpp>

namespace ql {

void denseGemm(bool transA, bool transB, int64_t m, int64_t n, int64_t k, float alpha,
               const float *a, int64_t lda, const float *b, int64_t ldb, float beta, float *c,
               int64_t ldc) {
    if (m <= 0 || n <= 0) return;
    if (k <= 0) {  // oneDNN wants k > 0; the product is then zero
        for (int64_t i = 0; i < m; ++i)
            for (int64_t j = 0; j < n; ++j)
                c[i * ldc + j] = beta == 0.0f ? 0.0f : beta * c[i * ldc + j];
        return;
    }
    dnnl::sgemm(transA ? 'T' : 'N', transB ? 'T' : 'N', m, n, k, alpha, a, lda, b, ldb, beta, c,
                ldc);
}

}  // namespace ql
