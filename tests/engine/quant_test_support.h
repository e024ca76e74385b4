#pragma once
// Helpers of the quant-core tests (tst_quant_core, tst_quant_calibration).

#include <vector>

#include "quant/qparams.h"

namespace ql::test {

inline quant::QRangeOptions opts(DataType type, bool symmetric = false, bool reduceRange = false) {
    return {type, symmetric, reduceRange};
}

// Mean squared error of quantizing `values` with the qparams of [lo, hi], computed value by value.
inline double trueMse(const std::vector<float> &values, float lo, float hi,
                      const quant::QRangeOptions &target) {
    const quant::QParams p = quant::qparamsFromRange(lo, hi, target);
    const auto [qmin, qmax] = quant::quantizedRange(target);
    double sum = 0.0;
    for (float v : values) {
        const double d =
            v - quant::dequantizeValue(quant::quantizeValue(v, p.scale[0], p.zeroPoint[0], qmin, qmax),
                                       p.scale[0], p.zeroPoint[0]);
        sum += d * d;
    }
    return sum / static_cast<double>(values.size());
}

}  // namespace ql::test
