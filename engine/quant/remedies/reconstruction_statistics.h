#pragma once
// Second-order statistics of a weighted layer's input, for reconstructing its output with other
// weights (AdaRound). The layer is seen as matrices: per group, output channels × `depth` inputs
// (Conv: input channels of the group × kernel positions, the im2col columns; Gemm / MatMul: the
// inner dimension). Over the sampled input columns x_q (the quantized model's input to the layer)
// and x_f (the float model's), with d = W x_f − W x_q (what the input's quantization alone costs
// the output), it accumulates
//     gram  = Σ x_q x_qᵀ          (per group, depth × depth)
//     drift = Σ d x_qᵀ            (output channels × depth)
//     inputError = Σ |d|²,  signal = Σ |W x_f|²
// so that for any weights W̃ = W + Δ the squared error of the layer's output without bias,
// Σ |W̃ x_q − W x_f|² = tr(Δ gram Δᵀ) − 2 tr(Δ driftᵀ) + inputError, and its gradient in W̃,
// 2 (Δ gram − drift), need no pass over the data. Written in Δ, the terms are of the error's
// size: no cancellation between large sums. Bias cancels: both sides add the same one.

#include <cstdint>
#include <string>
#include <vector>

#include "core/status.h"
#include "ir/graph.h"
#include "ir/tensor.h"

namespace ql::quant {

class ReconstructionStatistics {
public:
    // The layer `node` of `graph` with its constant float weight (input 1): Conv with 1 or 2
    // spatial dimensions (any group), Gemm with transA = 0, MatMul with a 2-D weight. Unsupported
    // with the reason otherwise.
    static Result<ReconstructionStatistics> forLayer(const Graph &graph, const Node &node);

    // Holds every `every`-th sample (from the `every`-th on) apart from the statistics: up to
    // `maxColumns` of their columns per group are kept for validationError. Call before add.
    void holdOut(int every, int64_t maxColumns);

    // Adds the columns of one batch of the layer's input (quantized and float, same shape). At
    // most `columnsPerSample` output positions of each sample (dimension 0) are used, chosen
    // with a generator seeded from `seed` and the sample's number, so a seed gives one result.
    Status add(const Tensor &quantizedInput, const Tensor &floatInput, int64_t columnsPerSample,
               uint64_t seed);

    int64_t groups() const { return m_groups; }
    int64_t rowsPerGroup() const { return m_rows; }
    int64_t depth() const { return m_depth; }
    int64_t columns() const { return m_columns; }  // input columns in the statistics, per group
    double signal() const { return m_signal; }
    double inputError() const { return m_inputError; }
    const std::vector<float> &weights() const { return m_weights; }  // [groups·rows, depth]
    const float *gram(int64_t group) const { return m_gram.data() + group * m_depth * m_depth; }

    // Σ |W̃ x_q − W x_f|² for W̃ = weights() + delta (laid out as weights()); without the
    // input's error, Σ |(W̃ − W) x_q|², what the weights alone cost.
    double squaredError(const std::vector<float> &delta, bool withInputError = true) const;

    // The same on the held-apart columns (zero without them), and their Σ |W x_f|².
    double validationError(const std::vector<float> &delta, bool withInputError = true) const;
    int64_t validationColumns() const;  // per group
    double validationSignal() const;

    // The layer's weight tensor (its shape and layout in the graph) holding `matrix` laid out as
    // weights().
    Tensor weightTensor(const std::vector<float> &matrix) const;

private:
    bool m_conv = false, m_transposed = false;  // transposed: the graph stores [depth, rows]
    Node m_node;  // its attributes resolve the Conv geometry per input shape
    Shape m_weightShape;
    int64_t m_groups = 1, m_rows = 0, m_depth = 0, m_columns = 0;
    double m_signal = 0, m_inputError = 0;
    std::vector<float> m_weights, m_gram, m_drift;
    uint64_t m_samples = 0;                 // samples seen, numbering them for the position draws
    struct Columns {                        // held-apart columns of one group
        std::vector<float> inputs, shifts;  // x_q [count, depth], d [count, rows]
        int64_t count = 0;
        double signal = 0;
    };
    std::vector<Columns> m_validation;
    int m_validationEvery = 0;
    int64_t m_validationCap = 0;

    bool isValidationSample(uint64_t sample) const;
    const float *drift(int64_t group) const { return m_drift.data() + group * m_rows * m_depth; }
    void addColumns(const std::vector<float> &xq, const std::vector<float> &xf, int64_t count,
                    int64_t group, bool validation);
};

}  // namespace ql::quant
