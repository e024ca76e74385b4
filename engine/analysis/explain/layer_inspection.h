#pragma once
// The layer inspector's data for one matched layer on one batch: the quantized layer's
// quantization parameters (inputs, weight per channel, bias, output) as the layer ran, histograms
// with common bins of the float vs dequantized weight and of the float vs quantized layer output
// (cumulative: both models run end to end on the batch), a deterministic subsample of
// (float, quantized) output pairs for a scatter plot, and optionally one explained element.

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "analysis/explain/element_explanation.h"
#include "analysis/explain/layer_capture.h"
#include "analysis/pairing/layer_matching.h"
#include "core/status.h"
#include "ir/graph.h"
#include "ir/tensor.h"

namespace ql::analysis {

struct QuantParamSet {
    std::string role;                 // "input", "input B", "weight", "bias", "output"
    std::string value;                // the tensor in the quantized graph as it ran
    DataType type = DataType::UInt8;  // the quantized type (int32 for a bias)
    int64_t axis = -1;                // per-channel axis of the quantized tensor; -1: per tensor
    std::vector<float> scale;
    std::vector<int32_t> zeroPoint;  // same length as scale
    std::vector<int64_t> values;     // bias only: the int32 values per channel
};

// Two distributions over the same bins [lo + i·width, lo + (i+1)·width), i < bins; the top edge
// is inclusive. Non-finite values are not counted (they show in `skipped`).
struct HistogramPair {
    double lo = 0.0, hi = 0.0;
    std::vector<int64_t> floatCounts, quantCounts;
    int64_t skipped = 0;
    double binWidth() const {
        return floatCounts.empty() ? 0.0 : (hi - lo) / static_cast<double>(floatCounts.size());
    }
};

struct ScatterPoints {
    std::vector<float> floatValues, quantValues;  // pairs at the same output elements
    std::vector<int64_t> indices;                 // flat indices into the layer output, ascending
    int64_t population = 0;                       // elements the points were drawn from
};

struct LayerInspection {
    LayerMatch match;
    std::string floatOp;  // the float node's op type
    std::string
        quantRunOp;  // the quantized node as it ran: "QLinearConv", "BatchNormalization", ...
    std::string quantRunReason;  // the int8 lowering's decision
    Shape outputShape;
    std::vector<QuantParamSet> qparams;

    std::optional<HistogramPair> weightHistogram;  // float (BN-folded) vs dequantized weight
    int64_t weightChannelAxis = -1;
    bool batchNormFolded = false;
    std::optional<HistogramPair> activationHistogram;  // float vs quantized layer output
    ScatterPoints scatter;
    std::optional<ElementExplanation> explanation;
    std::vector<std::string> notes;
};

struct LayerInspectionOptions {
    LayerCaptureOptions capture;
    int histogramBins = 64;
    int64_t maxScatterPoints = 4000;
    uint64_t scatterSeed = 20240611;
    bool explain = true;
    std::vector<int64_t> element;  // explained element; empty: worst in sample 0
};

// Common-bin histograms of two value sets (bins >= 1). lo/hi cover both sets' finite values.
HistogramPair histogramPair(const float *a, int64_t na, const float *b, int64_t nb, int bins);

// A deterministic subsample of up to maxPoints indices of [0, n), ascending.
std::vector<int64_t> subsampleIndices(int64_t n, int64_t maxPoints, uint64_t seed);

// The quantized layer's parameters as it ran (QLinearConv / QLinearMatMul / QGemm /
// QLinearAdd / QLinearMul inputs, or the DequantizeLinear inputs and the QuantizeLinear after a
// DQ -> op -> Q layer).
std::vector<QuantParamSet> layerQuantParams(const LayerCapture &capture);

Result<LayerInspection> inspectLayer(const Graph &floatGraph, const Graph &quantGraph,
                                     const LayerMatch &match,
                                     const std::map<std::string, Tensor> &batch,
                                     const LayerInspectionOptions &options = {});

// The same from a capture already taken (options.capture is not used): a caller that keeps the
// capture can explain other elements with explainElement(capture, element) without re-running
// the models.
Result<LayerInspection> inspectCapture(const LayerCapture &capture,
                                       const LayerInspectionOptions &options = {});

}  // namespace ql::analysis
