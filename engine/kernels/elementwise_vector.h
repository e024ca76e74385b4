#pragma once
// Internal: explicitly vectorised float loops (AVX-512 / AVX2 / SSE2 picked at run time) for
// the unary ops where a scalar libm call per element dominates. All are accurate to a few ulp
// (erf: absolute error below 5e-7).

#include <cstdint>

namespace ql::elementwise {

using FloatBulkFn = void (*)(const float *in, float *out, int64_t n);

void expFloat(const float *in, float *out, int64_t n);
void erfFloat(const float *in, float *out, int64_t n);
void geluFloat(const float *in, float *out, int64_t n);  // the erf form
void sigmoidFloat(const float *in, float *out, int64_t n);
void tanhFloat(const float *in, float *out, int64_t n);

}  // namespace ql::elementwise
