#pragma once
// A set of float-model nodes to keep in fp32, written for the tool the user quantizes with:
//   quantlens - {"model", "fp32_nodes", "reason"} (analyze / quantize --skip-list);
//   ort       - `nodes_to_exclude` for onnxruntime.quantization.quantize_static (Python), and
//               16-bit layers as TensorQuantOverrides (QUInt16 activations, QInt16 weights);
//   nncf      - nncf.IgnoredScope(names=[...]) (Python);
//   pytorch   - a QConfigMapping that sets None for the module paths behind the node names
//               (`/features/features.0/Conv` -> `features.0`), from torch.onnx.export's scopes;
//   inc       - Intel Neural Compressor op_name_dict with fp32 activation and weight (Python);
//   trt       - trtexec --precisionConstraints=obey --layerPrecisions=NAME:fp32,...
// 16-bit layers (`int16_nodes`) are written by the quantlens and ort dialects; the others say in
// a comment that they cannot express them. Only nodes of the float model are named; a node that is
// not in it, or that a dialect cannot express (e.g. a functional op for PyTorch, whose module would
// take other ops along), is listed in a comment with the reason.

#include <map>
#include <string>
#include <vector>

#include "ir/graph.h"

namespace ql::analysis {

enum class SkipListDialect { QuantLens, Ort, Nncf, PyTorch, Inc, Trt };

const char *skipListDialectName(SkipListDialect dialect);  // "quantlens", "ort", ...
bool parseSkipListDialect(const std::string &text, SkipListDialect &out);

struct SkipList {
    std::string model;                           // the float model's file name
    std::vector<std::string> nodes;              // float node names
    std::map<std::string, std::string> reasons;  // optional, per node
    std::vector<std::string> int16Nodes;         // float node names to quantize with 16 bits
    std::string origin;  // one line on where the list comes from, for comments
};

// The module path torch.onnx.export's scope names give a node ("/layer1/layer1.0/bn1/
// BatchNormalization" -> "layer1.0.bn1"); "" when the name has no module scope.
std::string pytorchModulePath(const std::string &nodeName);

// The skip-list in `dialect`, as the text of a file (JSON, Python or a shell line).
std::string formatSkipList(const Graph &floatGraph, const SkipList &list, SkipListDialect dialect);

}  // namespace ql::analysis
