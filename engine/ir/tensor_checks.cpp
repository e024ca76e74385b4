#include "ir/tensor_checks.h"

#include <cmath>
#include <cstdint>
#include <cstring>

namespace ql {

namespace {

std::string indexToString(int64_t flat, const Shape &shape) {
    std::string out = "]";
    for (size_t d = shape.size(); d-- > 0;) {
        const int64_t extent = shape[d] > 0 ? shape[d] : 1;
        out = std::to_string(flat % extent) + (d + 1 < shape.size() ? "," : "") + out;
        flat /= extent;
    }
    return "[" + out;
}

// Non-finite float values (exponent bits all ones), counted in one vectorisable pass.
int64_t countNonFinite(const float *v, int64_t n) {
    int64_t bad = 0;
    for (int64_t i = 0; i < n; ++i) {
        uint32_t bits;
        std::memcpy(&bits, v + i, sizeof bits);
        bad += (bits & 0x7f800000u) == 0x7f800000u;
    }
    return bad;
}

}  // namespace

Status checkFinite(const Tensor &tensor, const std::string &what) {
    if (!isFloatingPoint(tensor.dtype())) return Status::ok();
    const Tensor plain = tensor.toPlain();
    const int64_t n = plain.numel();
    const bool isFloat = plain.dtype() == DataType::Float;
    const float *values = isFloat ? plain.data<float>() : nullptr;
    if (isFloat && countNonFinite(values, n) == 0) return Status::ok();
    int64_t bad = 0, first = -1;
    bool sawNan = false;
    for (int64_t i = 0; i < n; ++i) {
        const double v = isFloat ? values[i] : plain.valueAsDouble(i);
        if (std::isfinite(v)) continue;
        sawNan = sawNan || std::isnan(v);
        if (first < 0) first = i;
        ++bad;
    }
    if (!bad) return Status::ok();
    return Status::badInput(what + ": " + std::to_string(bad) + " of " + std::to_string(n) +
                            " values are " + (sawNan ? "NaN or infinite" : "infinite") +
                            " (first at " + indexToString(first, plain.shape()) + ")");
}

}  // namespace ql
