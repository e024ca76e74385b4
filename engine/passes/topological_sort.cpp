#include "passes/topological_sort.h"

#include <queue>
#include <unordered_map>

namespace ql {

Status sortTopologically(Graph &graph) {
    const size_t count = graph.nodes.size();
    std::unordered_map<std::string, size_t> producer;
    for (size_t i = 0; i < count; ++i)
        for (const std::string &out : graph.nodes[i].outputs)
            if (!out.empty()) producer[out] = i;

    std::vector<int> pending(count, 0);
    std::vector<std::vector<size_t>> consumers(count);
    for (size_t i = 0; i < count; ++i) {
        for (const std::string &in : graph.nodes[i].inputs) {
            auto it = producer.find(in);
            if (in.empty() || it == producer.end()) continue;
            ++pending[i];
            consumers[it->second].push_back(i);
        }
    }
    // A min-heap on the original index keeps the file's order whenever it is valid.
    std::priority_queue<size_t, std::vector<size_t>, std::greater<size_t>> ready;
    for (size_t i = 0; i < count; ++i)
        if (pending[i] == 0) ready.push(i);
    std::vector<Node> sorted;
    sorted.reserve(count);
    while (!ready.empty()) {
        const size_t i = ready.top();
        ready.pop();
        sorted.push_back(graph.nodes[i]);
        for (size_t c : consumers[i])
            if (--pending[c] == 0) ready.push(c);
    }
    if (sorted.size() != count) return Status::badInput("graph has a cycle");
    graph.nodes = std::move(sorted);
    return Status::ok();
}

}  // namespace ql
