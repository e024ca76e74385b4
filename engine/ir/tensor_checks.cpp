#include "ir/tensor_checks.h"

#include <cmath>

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

}  // namespace

Status checkFinite(const Tensor &tensor, const std::string &what) {
    if (!isFloatingPoint(tensor.dtype())) return Status::ok();
    const Tensor plain = tensor.toPlain();
    int64_t bad = 0, first = -1;
    bool sawNan = false;
    for (int64_t i = 0; i < plain.numel(); ++i) {
        const double v = plain.dtype() == DataType::Float ? plain.data<float>()[i] : plain.valueAsDouble(i);
        if (std::isfinite(v)) continue;
        sawNan = sawNan || std::isnan(v);
        if (first < 0) first = i;
        ++bad;
    }
    if (!bad) return Status::ok();
    return Status::badInput(what + ": " + std::to_string(bad) + " of " + std::to_string(plain.numel()) +
                            " values are " + (sawNan ? "NaN or infinite" : "infinite") + " (first at " +
                            indexToString(first, plain.shape()) + ")");
}

}  // namespace ql
