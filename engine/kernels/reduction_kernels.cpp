// Reduce* (one generic loop for all ten reductions) and ArgMax/ArgMin.
// Softmax lives in reduction_softmax.cpp, the normalisations in reduction_norms.cpp.

#include <algorithm>
#include <cmath>
#include <limits>
#include <type_traits>
#include <vector>

#include "kernels/kernel.h"
#include "kernels/kernel_families.h"
#include "kernels/reduction_common.h"

namespace ql {

namespace {

using reduction::kParallelThreshold;

enum class ReduceOp { Sum, Mean, Max, Min, Prod, L1, L2, SumSquare, LogSum, LogSumExp };

// Accumulation rule of one reduction. Floating inputs accumulate in double; integer inputs in
// int64 unless the op ends in sqrt/log/exp.
template <class T, ReduceOp Op>
struct Reducer {
    static constexpr bool kDoubleAcc = std::is_floating_point_v<T> || Op == ReduceOp::L2 ||
                                       Op == ReduceOp::LogSum || Op == ReduceOp::LogSumExp;
    using Acc = std::conditional_t<kDoubleAcc, double, int64_t>;
    struct State {
        Acc value;
        Acc max;  // running maximum, LogSumExp only
    };

    static State init() {
        if constexpr (Op == ReduceOp::Max) {
            if constexpr (std::is_floating_point_v<T>)
                return {-std::numeric_limits<Acc>::infinity(), 0};
            else
                return {static_cast<Acc>(std::numeric_limits<T>::lowest()), 0};
        } else if constexpr (Op == ReduceOp::Min) {
            if constexpr (std::is_floating_point_v<T>)
                return {std::numeric_limits<Acc>::infinity(), 0};
            else
                return {static_cast<Acc>(std::numeric_limits<T>::max()), 0};
        } else if constexpr (Op == ReduceOp::Prod) {
            return {1, 0};
        } else if constexpr (Op == ReduceOp::LogSumExp) {
            return {0, -std::numeric_limits<double>::infinity()};
        } else {
            return {0, 0};
        }
    }

    static void step(State &s, T raw) {
        const Acc x = static_cast<Acc>(raw);
        if constexpr (Op == ReduceOp::Sum || Op == ReduceOp::Mean || Op == ReduceOp::LogSum) {
            s.value += x;
        } else if constexpr (Op == ReduceOp::Max) {
            s.value = x > s.value ? x : s.value;
        } else if constexpr (Op == ReduceOp::Min) {
            s.value = x < s.value ? x : s.value;
        } else if constexpr (Op == ReduceOp::Prod) {
            s.value *= x;
        } else if constexpr (Op == ReduceOp::L1) {
            s.value += x < 0 ? -x : x;
        } else if constexpr (Op == ReduceOp::L2 || Op == ReduceOp::SumSquare) {
            s.value += x * x;
        } else {  // LogSumExp, online: rescale the running sum when a new maximum appears
            if (x == -std::numeric_limits<double>::infinity()) return;
            if (x > s.max) {
                s.value = s.value * std::exp(s.max - x) + 1.0;
                s.max = x;
            } else {
                s.value += std::exp(x - s.max);
            }
        }
    }

    // A contiguous run; the common additive ops and Max/Min vectorise as an OpenMP simd reduction.
    static void stepRow(State &s, const T *p, int64_t n) {
        Acc v = s.value;
        if constexpr (Op == ReduceOp::Sum || Op == ReduceOp::Mean || Op == ReduceOp::LogSum) {
#pragma omp simd reduction(+ : v)
            for (int64_t i = 0; i < n; ++i) v += static_cast<Acc>(p[i]);
        } else if constexpr (Op == ReduceOp::SumSquare || Op == ReduceOp::L2) {
#pragma omp simd reduction(+ : v)
            for (int64_t i = 0; i < n; ++i) v += static_cast<Acc>(p[i]) * static_cast<Acc>(p[i]);
        } else if constexpr (Op == ReduceOp::Max) {
#pragma omp simd reduction(max : v)
            for (int64_t i = 0; i < n; ++i) v = std::max(v, static_cast<Acc>(p[i]));
        } else if constexpr (Op == ReduceOp::Min) {
#pragma omp simd reduction(min : v)
            for (int64_t i = 0; i < n; ++i) v = std::min(v, static_cast<Acc>(p[i]));
        } else {
            for (int64_t i = 0; i < n; ++i) step(s, p[i]);
            return;
        }
        s.value = v;
    }

    static T finish(const State &s, int64_t count) {
        Acc r = s.value;
        if constexpr (Op == ReduceOp::Mean) {
            if constexpr (kDoubleAcc)
                r = r / static_cast<double>(count);
            else
                r = count ? r / count : 0;
        } else if constexpr (Op == ReduceOp::L2) {
            r = std::sqrt(r);
        } else if constexpr (Op == ReduceOp::LogSum) {
            r = std::log(r);
        } else if constexpr (Op == ReduceOp::LogSumExp) {
            r = s.value > 0 ? s.max + std::log(s.value) : -std::numeric_limits<double>::infinity();
        }
        return static_cast<T>(r);
    }
};

// The input viewed as runs of adjacent kept or reduced dims (size-1 dims dropped).
// Output g*inner+i reduces x[keptBase(g) + reducedOffsets[r] + t + i] over r and t < tail.
struct ReducePlan {
    std::vector<int64_t> keptSizes, keptStrides;  // kept runs except a trailing one
    std::vector<int64_t> reducedOffsets;          // reduced runs except a trailing one
    int64_t inner = 1;                            // trailing kept run (contiguous, vectorised over)
    int64_t tail = 1;    // trailing reduced run (contiguous), when inner == 1
    int64_t groups = 1;  // product of keptSizes
    int64_t count = 1;   // input elements per output element
};

ReducePlan makeReducePlan(const Shape &shape, const std::vector<bool> &reduced) {
    struct Run {
        int64_t size;
        bool reduced;
        int64_t stride;
    };
    std::vector<Run> runs;
    for (size_t d = 0; d < shape.size(); ++d) {
        if (shape[d] == 1) continue;
        if (!runs.empty() && runs.back().reduced == reduced[d])
            runs.back().size *= shape[d];
        else
            runs.push_back({shape[d], reduced[d], 1});
    }
    int64_t stride = 1;
    for (size_t k = runs.size(); k-- > 0;) {
        runs[k].stride = stride;
        stride *= runs[k].size;
    }
    ReducePlan p;
    if (!runs.empty() && !runs.back().reduced) {
        p.inner = runs.back().size;
        runs.pop_back();
    } else if (!runs.empty()) {
        p.tail = runs.back().size;
        runs.pop_back();
    }
    std::vector<int64_t> rSizes, rStrides;
    for (const Run &run : runs) {
        if (run.reduced) {
            rSizes.push_back(run.size);
            rStrides.push_back(run.stride);
        } else {
            p.keptSizes.push_back(run.size);
            p.keptStrides.push_back(run.stride);
            p.groups *= run.size;
        }
    }
    // Enumerate the reduced offsets in row-major order (an odometer over the reduced runs).
    int64_t total = 1;
    for (int64_t s : rSizes) total *= s;
    p.reducedOffsets.reserve(static_cast<size_t>(total));
    std::vector<int64_t> idx(rSizes.size(), 0);
    for (int64_t n = 0; n < total; ++n) {
        int64_t off = 0;
        for (size_t k = 0; k < idx.size(); ++k) off += idx[k] * rStrides[k];
        p.reducedOffsets.push_back(off);
        for (size_t k = idx.size(); k-- > 0;) {
            if (++idx[k] < rSizes[k]) break;
            idx[k] = 0;
        }
    }
    p.count = total * p.tail;
    return p;
}

template <class T, ReduceOp Op>
void reduceLoop(const T *x, T *y, const ReducePlan &p) {
    using R = Reducer<T, Op>;
    const int64_t nOff = static_cast<int64_t>(p.reducedOffsets.size());
    const bool parallel = p.groups > 1 && p.groups * p.inner * p.count > kParallelThreshold;
#pragma omp parallel if (parallel)
    {
        std::vector<typename R::State> acc(static_cast<size_t>(p.inner > 1 ? p.inner : 0));
#pragma omp for schedule(static)
        for (int64_t g = 0; g < p.groups; ++g) {
            int64_t base = 0, rest = g;
            for (size_t k = p.keptSizes.size(); k-- > 0;) {
                base += (rest % p.keptSizes[k]) * p.keptStrides[k];
                rest /= p.keptSizes[k];
            }
            T *out = y + g * p.inner;
            if (p.inner > 1) {
                std::fill(acc.begin(), acc.end(), R::init());
                for (int64_t r = 0; r < nOff; ++r) {
                    const T *src = x + base + p.reducedOffsets[r];
                    for (int64_t i = 0; i < p.inner; ++i) R::step(acc[i], src[i]);
                }
                for (int64_t i = 0; i < p.inner; ++i) out[i] = R::finish(acc[i], p.count);
            } else {
                typename R::State s = R::init();
                for (int64_t r = 0; r < nOff; ++r) {
                    R::stepRow(s, x + base + p.reducedOffsets[r], p.tail);
                }
                out[0] = R::finish(s, p.count);
            }
        }
    }
}

template <class T>
void reduceTyped(ReduceOp op, const T *x, T *y, const ReducePlan &p) {
    switch (op) {
        case ReduceOp::Sum:
            return reduceLoop<T, ReduceOp::Sum>(x, y, p);
        case ReduceOp::Mean:
            return reduceLoop<T, ReduceOp::Mean>(x, y, p);
        case ReduceOp::Max:
            return reduceLoop<T, ReduceOp::Max>(x, y, p);
        case ReduceOp::Min:
            return reduceLoop<T, ReduceOp::Min>(x, y, p);
        case ReduceOp::Prod:
            return reduceLoop<T, ReduceOp::Prod>(x, y, p);
        case ReduceOp::L1:
            return reduceLoop<T, ReduceOp::L1>(x, y, p);
        case ReduceOp::L2:
            return reduceLoop<T, ReduceOp::L2>(x, y, p);
        case ReduceOp::SumSquare:
            return reduceLoop<T, ReduceOp::SumSquare>(x, y, p);
        case ReduceOp::LogSum:
            return reduceLoop<T, ReduceOp::LogSum>(x, y, p);
        case ReduceOp::LogSumExp:
            return reduceLoop<T, ReduceOp::LogSumExp>(x, y, p);
    }
}

class ReduceKernel : public Kernel {
public:
    ReduceKernel(const KernelBuildInfo &info, ReduceOp op) : m_op(op), m_opType(info.node.opType) {
        m_keepDims = info.node.attrInt("keepdims", 1) != 0;
        // ReduceSum took axes as an input from opset 13, the other reductions from opset 18.
        m_axesFromInput = info.opset >= (op == ReduceOp::Sum ? 13 : 18);
        m_noopWithEmptyAxes = m_axesFromInput && info.node.attrInt("noop_with_empty_axes", 0) != 0;
        m_axes = info.node.attrInts("axes");
    }

    Status run(KernelContext &ctx) override {
        const Tensor &x = ctx.input(0);
        std::vector<int64_t> axes = m_axes;
        if (m_axesFromInput && ctx.hasInput(1)) {
            const Tensor &a = ctx.input(1);
            if (!isInteger(a.dtype()))
                return Status::badInput("axes input must be int64, got " + dataTypeName(a.dtype()));
            axes = a.toInt64Vector();
        }
        if (axes.empty() && m_noopWithEmptyAxes) {
            ctx.setOutput(0, x);
            return Status::ok();
        }
        std::vector<bool> reduced(static_cast<size_t>(x.rank()), axes.empty());
        for (int64_t axis : axes) {
            int64_t a = 0;
            QL_RETURN_IF_ERROR(reduction::normalizeAxis(axis, x.rank(), a, "axes value"));
            if (reduced[a])
                return Status::badInput("axes lists axis " + std::to_string(a) + " twice");
            reduced[a] = true;
        }
        Shape outShape;
        for (int d = 0; d < x.rank(); ++d) {
            if (!reduced[d])
                outShape.push_back(x.shape()[d]);
            else if (m_keepDims)
                outShape.push_back(1);
        }
        const ReducePlan plan = makeReducePlan(x.shape(), reduced);
        Tensor &y = ctx.allocateOutput(0, x.dtype(), outShape);
        return reduction::dispatchReduceType(x.dtype(), m_opType, [&](auto tag) {
            using T = decltype(tag);
            reduceTyped(m_op, x.data<T>(), y.data<T>(), plan);
        });
    }

private:
    ReduceOp m_op;
    std::string m_opType;
    bool m_keepDims = true;
    bool m_axesFromInput = false;
    bool m_noopWithEmptyAxes = false;
    std::vector<int64_t> m_axes;
};

template <class T>
void argLoop(const T *x, int64_t *y, int64_t outer, int64_t len, int64_t inner, bool isMax,
             bool selectLast) {
    const bool parallel = outer * len * inner > kParallelThreshold;
#pragma omp parallel for if (parallel) schedule(static)
    for (int64_t o = 0; o < outer; ++o) {
        for (int64_t i = 0; i < inner; ++i) {
            const T *p = x + o * len * inner + i;
            T best = p[0];
            int64_t index = 0;
            for (int64_t l = 1; l < len; ++l) {
                const T v = p[l * inner];
                const bool better = isMax ? (selectLast ? v >= best : v > best)
                                          : (selectLast ? v <= best : v < best);
                if (better) {
                    best = v;
                    index = l;
                }
            }
            y[o * inner + i] = index;
        }
    }
}

class ArgKernel : public Kernel {
public:
    ArgKernel(const KernelBuildInfo &info, bool isMax)
        : m_isMax(isMax), m_opType(info.node.opType) {
        m_axis = info.node.attrInt("axis", 0);
        m_keepDims = info.node.attrInt("keepdims", 1) != 0;
        m_selectLast = info.node.attrInt("select_last_index", 0) != 0;
    }

    Status run(KernelContext &ctx) override {
        const Tensor &x = ctx.input(0);
        int64_t axis = 0;
        QL_RETURN_IF_ERROR(reduction::normalizeAxis(m_axis, x.rank(), axis));
        const int64_t len = x.shape()[axis];
        if (len == 0)
            return Status::badInput(m_opType + " over axis " + std::to_string(axis) + " of size 0");
        const int64_t outer = reduction::dimProduct(x.shape(), 0, axis);
        const int64_t inner = reduction::dimProduct(x.shape(), axis + 1, x.rank());
        Shape outShape = x.shape();
        if (m_keepDims)
            outShape[axis] = 1;
        else
            outShape.erase(outShape.begin() + axis);
        Tensor &y = ctx.allocateOutput(0, DataType::Int64, outShape);
        return reduction::dispatchReduceType(x.dtype(), m_opType, [&](auto tag) {
            using T = decltype(tag);
            argLoop(x.data<T>(), y.data<int64_t>(), outer, len, inner, m_isMax, m_selectLast);
        });
    }

private:
    bool m_isMax;
    std::string m_opType;
    int64_t m_axis = 0;
    bool m_keepDims = true;
    bool m_selectLast = false;
};

KernelFactory reduceFactory(ReduceOp op) {
    return [op](const KernelBuildInfo &info) -> Result<KernelPtr> {
        return KernelPtr(new ReduceKernel(info, op));
    };
}

KernelFactory argFactory(bool isMax) {
    return [isMax](const KernelBuildInfo &info) -> Result<KernelPtr> {
        return KernelPtr(new ArgKernel(info, isMax));
    };
}

}  // namespace

void registerReductionKernels(KernelRegistry &registry) {
    registry.add("ReduceSum", reduceFactory(ReduceOp::Sum));
    registry.add("ReduceMean", reduceFactory(ReduceOp::Mean));
    registry.add("ReduceMax", reduceFactory(ReduceOp::Max));
    registry.add("ReduceMin", reduceFactory(ReduceOp::Min));
    registry.add("ReduceProd", reduceFactory(ReduceOp::Prod));
    registry.add("ReduceL1", reduceFactory(ReduceOp::L1));
    registry.add("ReduceL2", reduceFactory(ReduceOp::L2));
    registry.add("ReduceSumSquare", reduceFactory(ReduceOp::SumSquare));
    registry.add("ReduceLogSum", reduceFactory(ReduceOp::LogSum));
    registry.add("ReduceLogSumExp", reduceFactory(ReduceOp::LogSumExp));
    registry.add("ArgMax", argFactory(true));
    registry.add("ArgMin", argFactory(false));
    reduction::registerSoftmaxKernels(registry);
    reduction::registerNormKernels(registry);
}

}  // namespace ql
