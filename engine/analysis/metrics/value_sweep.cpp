#include "analysis/metrics/value_sweep.h"

namespace ql::analysis {

void ValueSweep::compare(ComparisonAccumulator &into, const Tensor &y, float scale,
                         int32_t zeroPoint) {
    m_comparisons.push_back({&into, y.dtype(), y.rawData(), scale, zeroPoint});
    m_kept.push_back(y);
}

void ValueSweep::quantizeInto(Tensor out, float scale, int32_t zeroPoint) {
    m_quantizations.push_back({out.dtype(), out.rawData(), scale, zeroPoint});
    m_kept.push_back(std::move(out));
}

Status ValueSweep::run(const Tensor &x) {
    Status status;
    if (!empty() && x.dtype() != DataType::Float)
        status = Status::internal("a sweep over a " + dataTypeName(x.dtype()) + " value");
    for (const Tensor &t : m_kept)
        if (status && t.numel() != x.numel())
            status = Status::internal("a sweep over values of different sizes");
    if (status && !empty())
        status = sweepValue(x.data<float>(), x.numel(), x.rank() == 0 ? 1 : x.dim(0),
                            m_comparisons, m_quantizations);
    m_comparisons.clear();
    m_quantizations.clear();
    m_kept.clear();
    return status;
}

}  // namespace ql::analysis
