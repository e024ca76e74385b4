#pragma once
// The quantization plan: per compute node int8 or fp32 (with the reason), and the qparams of
// every activation and weight the QDQ builder will quantize. Building a plan is pure given the
// calibration ranges, so "switch this layer to fp32", "use percentile instead of min/max" or
// "per-tensor weights" is a plan rebuild from the stored statistics, never a new calibration.
//
// Decisions (ONNX Runtime quantize_static conventions, QDQ format):
//  * Conv, ConvTranspose, Gemm, MatMul followed by Relu or Clip (constant bounds) whose output
//    feeds only that activation form one unit: no Q/DQ between them, the unit's output range is
//    the activation's output range.
//  * Weights: symmetric int8, per channel along the output-channel axis (Conv: 0,
//    ConvTranspose: 1, Gemm: 0 with transB=1 else 1, MatMul: the last axis), or per tensor.
//  * Bias of Conv / ConvTranspose / Gemm: int32, scale = input scale * weight scale, zero point 0.
//  * Activations: uint8 asymmetric (default) or int8 symmetric; reduceRange uses 7 bits for
//    activations (PyTorch's meaning; see quant/qparams.h).
//  * MaxPool, Reshape, Flatten, Transpose, Squeeze, Unsqueeze, Identity keep their input's
//    qparams and are int8 only when their input is already quantized.
//  * Constant inputs of Add / Mul / Concat / MatMul (activation-side) are quantized per tensor with
//    the activation scheme from their own values.
//  * A Mul by a per-channel constant between an fp32 node and weighted layers (what SmoothQuant
//    inserts where it cannot fold its scales) runs in fp32 on its input as computed: quantized
//    first, the input would keep the outlier channels' range the Mul is there to remove.
//  * LayerNorm and GELU written out node by node (exports before opsets 17 and 20) are float
//    units: no Q/DQ inside them (the variance or the erf in 8 bits cost accuracy), so the int8
//    plan runs each as one fused LayerNormalization / Gelu between a DQ and a Q.

#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "core/status.h"
#include "ir/graph.h"
#include "quant/observers.h"
#include "quant/qparams.h"

namespace ql::quant {

class CalibrationStatistics;  // quant/calibration.h

struct QuantizationOptions {
    bool perChannelWeights = true;
    bool symmetricActivations = false;  // false: uint8 asymmetric; true: int8 symmetric
    bool reduceRange = false;
    RangeMethod method = RangeMethod::MinMax;
    double percentile = 99.999;              // for RangeMethod::Percentile, in percent
    bool foldBatchNorm = true;               // applied by prepareFloatGraph (quant/qdq_builder.h)
    std::vector<std::string> excludedNodes;  // node names kept in fp32
    std::map<std::string, std::string> exclusionReasons;  // optional note per excluded node
    // Node names quantized with 16 bits: their activations (inputs and output: uint16, or int16
    // when activations are symmetric) and weights (int16, symmetric); their bias stays float
    // (int32 at the product of two 16-bit scales would overflow). ONNX Runtime's QInt16 /
    // QUInt16 TensorQuantOverrides; the model is written with opset 21 Q/DQ or, below opset 21,
    // com.microsoft ones.
    std::vector<std::string> int16Nodes;

    QRangeOptions activationRange() const;
    QRangeOptions weightRange() const;
    QRangeOptions activation16Range() const;
    static QRangeOptions weight16Range() { return {DataType::Int16, true, false}; }
    // What a histogram observer needs to choose the activation range these options ask for.
    ObserverOptions observerOptions() const;
};

enum class Precision { Int8, Fp32 };

struct NodeDecision {
    std::string node;
    std::string opType;
    Precision precision = Precision::Fp32;
    std::string reason;    // why fp32 ("excluded by user", "op not quantizable", ...) or how int8
    std::string unitHead;  // for an activation fused into a quantized unit: the head node's name
    // An fp32 node that reads its activation inputs as computed, not through their Q/DQ (a
    // per-channel Mul ahead of weighted layers: see Planner::scalesChannelsForLayers).
    bool readsUnquantized = false;
    bool sixteenBit = false;  // quantized (Precision::Int8) with 16 bits (options.int16Nodes)
};

// A weight (or quantized constant) of the plan: which initializer, quantized how.
struct WeightPlan {
    std::string initializer;
    QParams qparams;
};

// A bias of the plan: int32, scale = activation scale * weight scale.
struct BiasPlan {
    std::string initializer;
    QParams qparams;  // type Int32 (not UInt8/Int8), zero point 0
};

struct QuantizationPlan {
    QuantizationOptions options;
    std::vector<NodeDecision> nodes;             // graph order
    std::map<std::string, QParams> activations;  // value name -> qparams
    // Per (node, input index): how a constant input of an int8 node is quantized.
    std::map<std::pair<std::string, size_t>, WeightPlan> weights;
    std::map<std::string, BiasPlan> biases;  // by node name (input 2)
    std::vector<std::string> warnings;

    const NodeDecision *decision(const std::string &nodeName) const;
    int countInt8() const;
    int countFp32() const;
};

// Activation range (min, max) of a value under the plan's range method; nullopt when the
// calibration never saw the value.
using RangeLookup = std::function<std::optional<std::pair<float, float>>(const std::string &value)>;

// The ranges the options' method (and percentile, and activation grid for MSE) selects from
// stored calibration statistics; `stats` must outlive the lookup.
RangeLookup rangeLookup(const CalibrationStatistics &stats, const QuantizationOptions &options);

// Output-channel axis of a weighted node's weight (input 1), -1 when it cannot be quantized per
// channel.
int64_t weightAxis(const Node &node, const Tensor &weight);

// Unknown names in options.excludedNodes (or another list of node names, `what` naming it in
// the message): BadInput listing the closest node names.
Status validateExcludedNodes(const Graph &graph, const std::vector<std::string> &names,
                             const std::string &what = "excluded node");

// The plan for `graph` (already BN-folded when options.foldBatchNorm) from activation ranges.
Result<QuantizationPlan> buildPlanFromRanges(const Graph &graph, const RangeLookup &ranges,
                                             const QuantizationOptions &options);

}  // namespace ql::quant
