#pragma once
// Internal: the scalar operations of the binary family and the row loops that apply them
// over a BroadcastPlan. Integer arithmetic wraps like numpy and never traps: division or
// modulo by zero gives 0, INT_MIN / -1 wraps.

#include <cmath>
#include <type_traits>

#include "kernels/binary_broadcast.h"
#include "kernels/elementwise_support.h"

namespace ql::binary {

// Unsigned type at least as wide as unsigned int, so integer arithmetic wraps without UB.
template <class T>
using WrapType =
    std::conditional_t<(sizeof(T) < sizeof(unsigned)), unsigned, std::make_unsigned_t<T>>;

struct AddOp {
    template <class T>
    T operator()(T a, T b) const {
        if constexpr (std::is_integral_v<T>)
            return static_cast<T>(WrapType<T>(a) + WrapType<T>(b));
        else
            return a + b;
    }
};
struct SubOp {
    template <class T>
    T operator()(T a, T b) const {
        if constexpr (std::is_integral_v<T>)
            return static_cast<T>(WrapType<T>(a) - WrapType<T>(b));
        else
            return a - b;
    }
};
struct MulOp {
    template <class T>
    T operator()(T a, T b) const {
        if constexpr (std::is_integral_v<T>)
            return static_cast<T>(WrapType<T>(a) * WrapType<T>(b));
        else
            return a * b;
    }
};
struct DivOp {  // integers truncate toward zero
    template <class T>
    T operator()(T a, T b) const {
        if constexpr (std::is_integral_v<T>) {
            if (b == 0) return T(0);
            if constexpr (std::is_signed_v<T>) {
                if (b == T(-1)) return static_cast<T>(WrapType<T>(0) - WrapType<T>(a));
            }
            return static_cast<T>(a / b);
        } else {
            return a / b;
        }
    }
};
struct MaxOp {  // NaN propagates, as numpy.maximum
    template <class T>
    T operator()(T a, T b) const {
        // Plain selects (no short-circuit, no arithmetic in the arms) so loops vectorise.
        if constexpr (std::is_floating_point_v<T>)
            return ((a > b) | (a != a)) ? a : b;
        else
            return a > b ? a : b;
    }
};
struct MinOp {
    template <class T>
    T operator()(T a, T b) const {
        if constexpr (std::is_floating_point_v<T>)
            return ((a < b) | (a != a)) ? a : b;
        else
            return a < b ? a : b;
    }
};
struct PReluOp {
    template <class T>
    T operator()(T x, T slope) const {
        if constexpr (std::is_unsigned_v<T>)
            return x;
        else if constexpr (std::is_integral_v<T>)
            return x < 0 ? MulOp()(x, slope) : x;
        else
            return x * (x < T(0) ? slope : T(1));  // a select of values vectorises
    }
};
struct PowOp {
    template <class T>
    T operator()(T a, T b) const {
        return static_cast<T>(std::pow(a, b));
    }
};
struct ModOp {
    bool fmod = false;  // true: sign of the dividend (C fmod); false: sign of the divisor
    template <class T>
    T operator()(T a, T b) const {
        if constexpr (std::is_integral_v<T>) {
            if (b == 0) return T(0);
            if constexpr (std::is_signed_v<T>) {
                if (b == T(-1)) return T(0);
                const T r = static_cast<T>(a % b);
                return (!fmod && r != 0 && ((r < 0) != (b < 0))) ? static_cast<T>(r + b) : r;
            } else {
                return static_cast<T>(a % b);
            }
        } else {
            const T r = std::fmod(a, b);
            return (!fmod && r != 0 && ((r < 0) != (b < 0))) ? r + b : r;
        }
    }
};

struct EqualOp {
    template <class T>
    bool operator()(T a, T b) const {
        return a == b;
    }
};
struct LessOp {
    template <class T>
    bool operator()(T a, T b) const {
        return a < b;
    }
};
struct GreaterOp {
    template <class T>
    bool operator()(T a, T b) const {
        return a > b;
    }
};
struct LessOrEqualOp {
    template <class T>
    bool operator()(T a, T b) const {
        return a <= b;
    }
};
struct GreaterOrEqualOp {
    template <class T>
    bool operator()(T a, T b) const {
        return a >= b;
    }
};
struct AndOp {
    template <class T>
    bool operator()(T a, T b) const {
        return (a != 0) & (b != 0);
    }
};
struct OrOp {
    template <class T>
    bool operator()(T a, T b) const {
        return (a != 0) | (b != 0);
    }
};
struct XorOp {
    template <class T>
    bool operator()(T a, T b) const {
        return (a != 0) != (b != 0);
    }
};

// One row of out = op(a, b); `steps` bit 1: a is contiguous, bit 0: b is (else one value).
template <class TO, class TA, class TB, class Op>
QL_ALWAYS_INLINE void binaryRow(const TA *pa, const TB *pb, TO *po, int64_t n, int steps,
                                const Op &op) {
    if (steps == 3) {
        for (int64_t i = 0; i < n; ++i) po[i] = static_cast<TO>(op(pa[i], pb[i]));
    } else if (steps == 2) {
        const TB vb = *pb;
        for (int64_t i = 0; i < n; ++i) po[i] = static_cast<TO>(op(pa[i], vb));
    } else if (steps == 1) {
        const TA va = *pa;
        for (int64_t i = 0; i < n; ++i) po[i] = static_cast<TO>(op(va, pb[i]));
    } else {
        const TO v = static_cast<TO>(op(*pa, *pb));
        for (int64_t i = 0; i < n; ++i) po[i] = v;
    }
}

template <class Op>
QL_SIMD_CLONES void binaryRowFloat(const float *pa, const float *pb, float *po, int64_t n,
                                   int steps, Op op) {
    binaryRow(pa, pb, po, n, steps, op);
}

// Rows [0, rows) of a 2-D plan in one call: short rows (e.g. channels-last [N,H,W,C] times a
// per-channel [1,1,1,C]) would otherwise pay a dispatched call and an odometer step per row.
template <class Op>
QL_SIMD_CLONES void binaryRowsFloat(const float *pa, const float *pb, float *po, int64_t rows,
                                    int64_t n, int64_t aRowStride, int64_t bRowStride, int steps,
                                    Op op) {
    for (int64_t r = 0; r < rows; ++r)
        binaryRow(pa + r * aRowStride, pb + r * bRowStride, po + r * n, n, steps, op);
}

// Rows up to this length go through binaryRowsFloat.
constexpr int64_t kShortRow = 256;

// out = op(a, b) over the plan's output; out may alias a when a has the output's shape.
template <class TO, class TA, class TB, class Op>
void applyBinary(const BroadcastPlan &plan, const TA *a, const TB *b, TO *out, const Op &op) {
    const int steps = (plan.innerStride(0) != 0 ? 2 : 0) | (plan.innerStride(1) != 0 ? 1 : 0);
    constexpr bool allFloat =
        std::is_same_v<TO, float> && std::is_same_v<TA, float> && std::is_same_v<TB, float>;
    if constexpr (allFloat) {
        const int64_t n = plan.dims.back();
        if (plan.dims.size() == 2 && n > 0 && n <= kShortRow) {
            const int64_t aRow = plan.strides[0][0], bRow = plan.strides[1][0];
            elementwise::parallelRange(
                plan.dims[0],
                [&](int64_t begin, int64_t end) {
                    binaryRowsFloat(a + begin * aRow, b + begin * bRow, out + begin * n,
                                    end - begin, n, aRow, bRow, steps, op);
                },
                elementwise::kParallelThreshold / n);
            return;
        }
    }
    elementwise::parallelRange(plan.total, [&](int64_t begin, int64_t end) {
        forEachRow(plan, begin, end, [&](const int64_t *offsets, int64_t at, int64_t n) {
            if constexpr (allFloat)
                binaryRowFloat(a + offsets[0], b + offsets[1], out + at, n, steps, op);
            else
                binaryRow(a + offsets[0], b + offsets[1], out + at, n, steps, op);
        });
    });
}

}  // namespace ql::binary
