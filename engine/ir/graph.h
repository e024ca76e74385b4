#pragma once
// The engine's model representation: ONNX names and op types are kept verbatim because every
// later report names layers by them.

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "ir/tensor.h"

namespace ql {

struct Attribute {
    enum class Kind { Float, Int, String, Tensor, Floats, Ints, Strings, Graph, Unknown };
    Kind kind = Kind::Unknown;
    float f = 0.0f;
    int64_t i = 0;
    std::string s;
    ql::Tensor t;
    std::vector<float> floats;
    std::vector<int64_t> ints;
    std::vector<std::string> strings;
};

struct Node {
    std::string name;    // ONNX node name; the loader invents "<op>_<index>" when it is empty
    std::string opType;  // e.g. "Conv"
    std::string domain;  // "" for the default ONNX domain
    std::vector<std::string> inputs;   // "" marks an omitted optional input
    std::vector<std::string> outputs;  // "" marks an omitted optional output
    std::map<std::string, Attribute> attributes;

    bool hasAttribute(const std::string &key) const { return attributes.count(key) != 0; }
    int64_t attrInt(const std::string &key, int64_t fallback) const;
    float attrFloat(const std::string &key, float fallback) const;
    std::string attrString(const std::string &key, const std::string &fallback) const;
    std::vector<int64_t> attrInts(const std::string &key, std::vector<int64_t> fallback = {}) const;
    std::vector<float> attrFloats(const std::string &key, std::vector<float> fallback = {}) const;
    const Tensor *attrTensor(const std::string &key) const;

    // Non-empty input i, or nullopt when absent or omitted.
    bool hasInput(size_t i) const { return i < inputs.size() && !inputs[i].empty(); }
    // "Conv 'resnet.layer1.0.conv1'", for messages.
    std::string describe() const;
};

// What is statically known about a value: element type and shape, -1 for unknown dims.
struct ValueInfo {
    std::string name;
    DataType dtype = DataType::Undefined;
    std::vector<int64_t> shape;  // -1 where the dim is symbolic or unknown
    std::vector<std::string> dimNames;  // symbolic names ("batch"), empty strings otherwise
    bool hasShape = false;
};

class Graph {
public:
    std::string name;
    std::string sourcePath;   // file the model came from, for messages
    int64_t opsetVersion = 0; // default ONNX domain
    std::map<std::string, int64_t> domainOpsets;
    std::vector<Node> nodes;  // topologically sorted after loading
    std::map<std::string, Tensor> initializers;
    std::vector<ValueInfo> inputs;   // graph inputs that are not initializers
    std::vector<ValueInfo> outputs;
    std::map<std::string, ValueInfo> valueInfo;  // from shape inference, by value name
    std::vector<std::string> warnings;           // non-fatal findings of the loader

    const Tensor *initializer(const std::string &value) const;
    bool isInitializer(const std::string &value) const { return initializers.count(value) != 0; }
    const Node *findNode(const std::string &nodeName) const;
    // Index of the node that produces a value, or -1 for graph inputs and initializers.
    int producerIndex(const std::string &value) const;
    // Number of nodes using a value as input, plus one if it is a graph output.
    int useCount(const std::string &value) const;
    bool isGraphOutput(const std::string &value) const;
    // Removes the initializers no node reads and no graph output names; returns how many.
    int dropUnusedInitializers();
};

}  // namespace ql
