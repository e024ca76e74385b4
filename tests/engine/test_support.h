#pragma once
// Helpers shared by the engine unit tests: running one node, naive references, comparisons.

#include <map>
#include <string>
#include <vector>

#include "core/status.h"
#include "ir/graph.h"
#include "ir/tensor.h"

namespace ql::test {

// Builds a one-node graph (inputs named in0, in1, ..., outputs out0, ...) and runs it.
// Inputs listed in `constants` become initializers; an empty Tensor marks an omitted input.
struct SingleNodeRun {
    Status status;
    std::vector<Tensor> outputs;
};
SingleNodeRun runSingleNode(const Node &node, const std::vector<Tensor> &inputs,
                            size_t outputCount = 1, const std::vector<bool> &constants = {},
                            int64_t opset = 17);

// A node of `op` with these attributes; inputs and outputs are named by whoever runs it.
Node makeNode(const std::string &op, std::map<std::string, Attribute> attributes = {});
// Appends a node `name` of `op` to a hand-built graph.
void addNode(Graph &g, const std::string &op, const std::string &name,
             std::vector<std::string> inputs, std::vector<std::string> outputs,
             std::map<std::string, Attribute> attributes = {});

Attribute intAttr(int64_t v);
Attribute floatAttr(float v);
Attribute intsAttr(std::vector<int64_t> v);
Attribute floatsAttr(std::vector<float> v);
Attribute stringAttr(std::string v);

Tensor randomTensor(const Shape &shape, unsigned seed, float lo = -1.0f, float hi = 1.0f);

// 1-D tensors holding `values`, e.g. for shape-like inputs.
Tensor ints(const std::vector<int64_t> &values);
Tensor floats(const std::vector<float> &values);

// Row-major coordinates of flat index `index` in `shape`, and the flat index of coordinates.
std::vector<int64_t> unravelIndex(int64_t index, const Shape &shape);
int64_t ravelIndex(const std::vector<int64_t> &coords, const Shape &shape);

// A float value with a fully known shape (no symbolic dims), for hand-built graphs.
ValueInfo floatValueInfo(const std::string &name, const Shape &shape);

// Number of nodes of `op` in the graph.
int countOps(const Graph &graph, const std::string &op);

// Max |a-b| over all elements (converted to double); shapes must match.
double maxAbsDiff(const Tensor &a, const Tensor &b);
// True when |a-b| <= atol + rtol*|b| everywhere and shapes and dtypes match; fills `why`.
bool allClose(const Tensor &a, const Tensor &b, double rtol, double atol, std::string *why = nullptr);

}  // namespace ql::test
