#pragma once
// What the precision passes decided per original compute node: int8 or fp32 fallback, and why.
// Reports name layers by the ONNX node names of the float ops, which the lowered QOperator
// nodes keep.

#include <string>
#include <vector>

namespace ql {

struct NodePrecision {
    std::string node;    // original node name, e.g. the Conv's
    std::string opType;  // original op type, e.g. "Conv"
    bool int8 = false;   // false: runs dequantize -> fp32 op -> quantize (or plain fp32)
    std::string reason;  // why it fell back, or how it runs in int8 ("QLinearConv", "fused into ...")
    // A fallback that still reads quantized values other than 8-bit activations: "int16",
    // "float8", "int4 weights", "int8 weights", "int16 weights" (weight-only); "" otherwise.
    std::string quantizedAs;
};

struct PrecisionReport {
    std::string precision;  // "fp32", "int8" or "reference"
    std::vector<NodePrecision> nodes;

    int int8Count() const;
    int fallbackCount() const;
    // Sorted distinct op types of the fallback nodes.
    std::vector<std::string> fallbackOpTypes() const;
    // "int8: 12 nodes, fp32 fallback: 2 (Softmax, Resize)"
    std::string summary() const;
};

}  // namespace ql
