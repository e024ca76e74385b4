#pragma once
// "Explain one element": for one output element of a matched layer, the arithmetic the quantized
// layer did, step by step as the int8 kernel does it, beside the float model's formula.
//
// Kinds:
//  * IntegerMatMul - QLinearConv / QGemm / QLinearMatMul (the int8 lowering of DQ -> Conv/Gemm/
//    MatMul -> Q): acc = Σ (x_q − x_zp)(w_q − w_zp) in int32, + bias_int32; multiplier
//    M = x_scale·w_scale/y_scale (float32, QGemm: alpha·a_scale·b_scale/y_scale); acc·M rounded
//    half to even, + y_zp, clamped to [qmin, qmax] (narrowed by a fused Relu/Clip). The float side:
//    Σ x·w + b over the same window with the float model's input and (BN-folded) weight and bias.
//  * BatchNorm - DQ -> BatchNormalization -> Q: x = x_scale·(x_q − x_zp);
//    y = gamma·(x − mean)/sqrt(var + eps) + beta; q = clamp(round(y/y_scale) + y_zp). The float
//    side: the same formula on the float model's input.
//  * Requantize - any other layer: the operands at the element dequantized (same-shape inputs,
//    or the pooling window of MaxPool), the op's real result as the engine computed it (or as
//    QLinearAdd / QLinearMul compute it), then quantized with the output's scale and zero point.
// Each explanation recomputes the quantized integer and compares it with the value the engine
// produced (`engineQuantized`): `matchesEngine` says they agree.

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "analysis/explain/layer_capture.h"
#include "core/status.h"

namespace ql::analysis {

// One product of the accumulation, or one operand of an element-wise op.
struct ExplainedTerm {
    std::vector<int64_t> inputIndex;    // coordinates of the input element
    std::vector<int64_t> weightIndex;   // coordinates of the weight element (IntegerMatMul)
    int32_t xq = 0, wq = 0;             // quantized input and weight
    double xReal = 0.0, wReal = 0.0;    // their dequantized values
    double xFloat = 0.0, wFloat = 0.0;  // the float model's input and (folded) weight
    bool hasFloat = false;              // the float input was available
    int64_t product = 0;                // (xq − x_zp)·(wq − w_zp)
};

struct ExplainedOperand {
    std::string name;        // the value in the quantized graph as it ran
    bool quantized = false;  // q / zeroPoint / scale are set
    int32_t q = 0, zeroPoint = 0;
    float scale = 0.0f;
    double real = 0.0;                 // dequantized (or float) value the op used
    std::optional<double> floatValue;  // the float model's value of the matching input
};

struct ElementExplanation {
    enum class Kind { IntegerMatMul, BatchNorm, Requantize };
    Kind kind = Kind::Requantize;
    std::string floatOp, quantOp;  // "Conv", and what ran: "QLinearConv", "DequantizeLinear →
                                   // BatchNormalization → QuantizeLinear"
    std::vector<int64_t> element;  // output coordinates
    Shape outputShape;
    int64_t sample = 0;

    // IntegerMatMul
    std::vector<ExplainedTerm> terms;  // every product that the kernel summed, in input order
    int64_t paddingTaps = 0;           // window positions in the padding (skipped: x_q = x_zp)
    int32_t xZeroPoint = 0, wZeroPoint = 0;
    float xScale = 0.0f, wScale = 0.0f;
    int64_t accumulator = 0;  // Σ products (int32 in the kernel)
    int32_t biasInt32 = 0;
    int64_t accumulatorWithBias = 0;
    float multiplier = 0.0f;  // requantization multiplier (float32)
    int64_t channel = 0;      // output channel (per-channel weight parameters)
    std::string activation;   // fused "Relu" / "Clip" or ""

    // BatchNorm
    double gamma = 0.0, beta = 0.0, mean = 0.0, var = 0.0, epsilon = 0.0;

    // Requantize / BatchNorm: the operands at the element.
    std::vector<ExplainedOperand> operands;
    std::string
        opFormula;  // e.g. "a + b", "max(window)", "gamma·(x − mean)/sqrt(var + eps) + beta"

    // Output chain (every kind). requantized = false: the op ran on the 8-bit values themselves
    // (MaxPool, Reshape on the int8 tensor), so the output has the input's scale and zero point.
    bool requantized = true;
    double realResult =
        0.0;  // the real value before the output quantization (acc·M·y_scale for IntegerMatMul)
    double scaled = 0.0;   // real / y_scale (IntegerMatMul: acc·M)
    double rounded = 0.0;  // half to even
    float yScale = 0.0f;
    int32_t yZeroPoint = 0;
    int64_t beforeClamp = 0;       // rounded + y_zp
    int64_t qmin = 0, qmax = 255;  // the clamp range (narrowed by a fused activation)
    bool clamped = false;
    int64_t quantized = 0;                   // the explained output integer
    std::optional<int64_t> engineQuantized;  // what the engine produced for this element
    bool matchesEngine = false;
    double dequantized = 0.0;        // y_scale·(quantized − y_zp)
    double engineDequantized = 0.0;  // the quantized model's dequantized value at the element

    // Float side
    std::string floatFormula;  // "Σ x·w + b (BN folded)", ...
    double floatBias = 0.0;
    double floatComputed = 0.0;    // the formula evaluated (double)
    double floatModelValue = 0.0;  // the float model's output at the element
    double difference = 0.0;       // engineDequantized − floatModelValue
    bool batchNormFolded = false;
    std::vector<std::string> foldedQuantNodes;  // e.g. a Relu folded into the quantized layer
    std::vector<std::string> notes;
};

// The element with the largest |float − quantized| in sample 0 of the capture's layer output.
std::vector<int64_t> worstElement(const LayerCapture &capture);

// `element`: output coordinates (one per output dim; empty: worstElement). BadInput when out of
// range.
Result<ElementExplanation> explainElement(const LayerCapture &capture,
                                          std::vector<int64_t> element = {});

// Captures and explains in one call.
Result<ElementExplanation> explainElement(const Graph &floatGraph, const Graph &quantGraph,
                                          const LayerMatch &match,
                                          const std::map<std::string, Tensor> &batch,
                                          std::vector<int64_t> element = {},
                                          const LayerCaptureOptions &options = {});

}  // namespace ql::analysis
