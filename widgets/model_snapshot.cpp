#include "model_snapshot.h"

#include <set>

#include "display_format.h"

namespace ql::ui {

namespace {

QString describeValue(const ValueInfo &info) {
    return QString::fromStdString(info.name) + QStringLiteral(": ") + formatTypedShape(info);
}

}  // namespace

const ValueInfo *ModelSnapshot::valueInfo(const std::string &value) const {
    auto it = m_graph->valueInfo.find(value);
    if (it != m_graph->valueInfo.end()) return &it->second;
    for (const ValueInfo &in : m_graph->inputs)
        if (in.name == value) return &in;
    for (const ValueInfo &out : m_graph->outputs)
        if (out.name == value) return &out;
    return nullptr;
}

std::shared_ptr<const ModelSnapshot> ModelSnapshot::fromGraph(Graph graph,
                                                              const QString &displayName) {
    auto snapshot = std::make_shared<ModelSnapshot>();
    snapshot->m_graph = std::make_shared<const Graph>(std::move(graph));
    const Graph &g = *snapshot->m_graph;
    snapshot->displayName = displayName;
    snapshot->sourcePath = QString::fromStdString(g.sourcePath);
    snapshot->graphName = QString::fromStdString(g.name);
    snapshot->opset = g.opsetVersion;
    for (const ValueInfo &in : g.inputs) snapshot->inputs << describeValue(in);
    for (const ValueInfo &out : g.outputs) {
        // Shape inference may know more than the declared output (e.g. a concrete class count).
        const ValueInfo *inferred = snapshot->valueInfo(out.name);
        snapshot->outputs << describeValue(out.hasShape || !inferred ? out : *inferred);
    }
    for (const std::string &w : g.warnings) snapshot->warnings << QString::fromStdString(w);

    std::set<std::string> counted;
    snapshot->layers.reserve(static_cast<int>(g.nodes.size()));
    for (size_t i = 0; i < g.nodes.size(); ++i) {
        const Node &node = g.nodes[i];
        LayerInfo layer;
        layer.index = static_cast<int>(i);
        layer.name = QString::fromStdString(node.name);
        layer.opType = QString::fromStdString(node.opType);
        layer.domain = QString::fromStdString(node.domain);
        for (const std::string &out : node.outputs) {
            if (out.empty()) continue;
            const ValueInfo *info = snapshot->valueInfo(out);
            layer.outputShapes << (info ? formatShape(*info) : formatShape(ValueInfo{}));
        }
        for (const std::string &in : node.inputs) {
            const Tensor *weight = in.empty() ? nullptr : g.initializer(in);
            if (!weight) continue;
            layer.parameters.push_back({QString::fromStdString(in),
                                        QString::fromStdString(dataTypeName(weight->dtype())),
                                        formatShape(weight->shape()), weight->numel()});
            layer.parameterCount += weight->numel();
            if (counted.insert(in).second) {
                snapshot->parameterCount += weight->numel();
                snapshot->parameterBytes += static_cast<int64_t>(weight->byteSize());
            }
        }
        snapshot->layers.push_back(std::move(layer));
    }
    return snapshot;
}

}  // namespace ql::ui
