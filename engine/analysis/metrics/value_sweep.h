#pragma once
// The uses one float value has as the float pass makes it: comparisons with the quantized pass's
// value and with isolated layers' outputs, quantizations for isolated layers' inputs. Every
// comparator adds its uses; one pass over the value then serves them all (sweepValue), so a
// large activation comes from memory once instead of once per use.

#include <vector>

#include "analysis/metrics/comparison_metrics.h"
#include "core/status.h"
#include "ir/tensor.h"

namespace ql::analysis {

class ValueSweep {
public:
    // x against y (float, or uint8/int8 read as (q − zeroPoint)·scale), in x's element order.
    void compare(ComparisonAccumulator &into, const Tensor &y, float scale = 1.0f,
                 int32_t zeroPoint = 0);
    // x quantized into `out` (uint8/int8, x's element count) as QuantizeLinear does.
    void quantizeInto(Tensor out, float scale, int32_t zeroPoint);
    bool empty() const { return m_comparisons.empty() && m_quantizations.empty(); }
    // One pass over x (float; its first dim counts the samples), then forgets the uses.
    Status run(const Tensor &x);

private:
    std::vector<SweepComparison> m_comparisons;
    std::vector<SweepQuantization> m_quantizations;
    std::vector<Tensor> m_kept;  // the tensors the uses point into, alive until run()
};

}  // namespace ql::analysis
