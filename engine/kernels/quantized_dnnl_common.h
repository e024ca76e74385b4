#pragma once
// Internal to the oneDNN int8 kernels (QLinearConv, QLinearMatMul, QGemm): CPU capability,
// exactness guards, requantization and a context that hands a run over to the exact reference.
//
// Why the guards: without VNNI (plain AVX2 / AVX-512), oneDNN multiplies u8 x s8 with
// vpmaddubsw, which sums two adjacent products into a saturating int16, and it halves s8
// weights when the source is s8. Either breaks exactness against the integer reference by far
// more than one LSB. So on such CPUs the kernels (1) feed s8 activations as u8 (x ^ 0x80 with the
// zero point moved by 128, exact), and (2) when a pair of adjacent same-sign weights could
// overflow int16, split the weights W = A + B with |A|, |B| <= 64 (no pair can overflow) and
// accumulate the two products in int32 before requantizing here.

#include <dnnl.hpp>

#include <cstdint>
#include <vector>

#include "core/status.h"
#include "ir/tensor.h"
#include "kernels/kernel.h"
#include "kernels/quantization_common.h"

namespace ql::quant {

dnnl::memory::data_type dnnlType(DataType type);  // u8, s8, s32 or f32

// True when, in `rows` rows of `inner` groups of `depth` s8 weights ([rows][depth][inner]:
// pairs are consecutive along depth, per inner position), some adjacent pair (2j, 2j+1) of the
// same sign has |w0| + |w1| > 128, so 255 * (w0 + w1) may overflow int16.
bool adjacentPairsMayOverflow(const int8_t *w, int64_t rows, int64_t depth, int64_t inner);

// W = A + B with A = clamp(W, -64, 64), B = W - A in [-64, 63].
void splitWeights(const int8_t *w, int64_t count, int8_t *a, int8_t *b);

// dst[i] = x[i] ^ 0x80: s8 values as u8 values shifted by +128.
void flipSignBit(const int8_t *x, uint8_t *dst, int64_t count);

// Requantizes int32 accumulators acc[outer][channels] (bias already added) into 8-bit values:
// y = clamp(round(acc * multiplier[c]) + zeroPoint, lo, hi), as the reference kernels do.
// `yIndex(o, c)` gives the destination element of (outer o, channel c).
struct Requantizer {
    std::vector<float> multiplier;  // one per channel
    float zeroPoint = 0.0f;
    int64_t lo = 0, hi = 255;
    void run(const int32_t *acc, int64_t outer, int64_t channels, DataType outType, void *y,
             int64_t outerStride, int64_t channelStride) const;
};

// The post-op of a fused Relu / Clip on oneDNN's scaled result (real value / y_scale).
void appendActivation(dnnl::post_ops &ops, const QuantActivation &act, float yScale);

// Attributes of the two int32 passes of the split-weights path: both subtract the source zero
// point (given at run time) when there is one; the second adds onto the first's accumulators.
struct SplitPassAttributes {
    dnnl::primitive_attr first, second;
};
SplitPassAttributes makeSplitPassAttributes(bool hasSrcZeroPoint);

// QLinearMatMul with any batch dims, broadcasting, activation or uint8 B and nonzero B zero
// points, as one batched oneDNN matmul; the exact reference where it cannot
// (quantized_batched_matmul_dnnl.cpp). The 2-D QLinearMatMul kernel hands it what it does not take.
Result<KernelPtr> makeBatchedQLinearMatMul(const KernelBuildInfo &info);

// Forwards to another context with some inputs replaced (e.g. a plain copy of a channels-last
// input for the reference kernel, which only reads plain tensors).
class SubstitutedInputs : public KernelContext {
public:
    SubstitutedInputs(KernelContext &base, std::vector<Tensor> replacements)
        : m_base(base), m_replacements(std::move(replacements)) {}
    size_t inputCount() const override { return m_base.inputCount(); }
    bool hasInput(size_t i) const override { return m_base.hasInput(i); }
    const Tensor &input(size_t i) const override {
        return i < m_replacements.size() && m_replacements[i].defined() ? m_replacements[i]
                                                                        : m_base.input(i);
    }
    size_t outputCount() const override { return m_base.outputCount(); }
    Tensor &allocateOutput(size_t i, DataType type, const Shape &shape, Layout layout) override {
        return m_base.allocateOutput(i, type, shape, layout);
    }
    void setOutput(size_t i, Tensor tensor) override { m_base.setOutput(i, std::move(tensor)); }
    int threads() const override { return m_base.threads(); }

private:
    KernelContext &m_base;
    std::vector<Tensor> m_replacements;
};

// Runs `reference` with every channels-last input made plain.
Status runReferenceOnPlain(Kernel &reference, KernelContext &ctx);

}  // namespace ql::quant
