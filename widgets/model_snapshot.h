#pragma once
// An immutable, display-ready view of a loaded model. Built once off the GUI thread, then shared
// read-only (std::shared_ptr<const ModelSnapshot>) by item models and panels, so no widget ever
// walks the engine graph on its own or sees it change under its feet.

#include <QMetaType>
#include <QString>
#include <QStringList>
#include <QVector>

#include <memory>

#include "ir/graph.h"

namespace ql::ui {

struct ParameterInfo {
    QString name;   // initializer name, e.g. "features.0.weight"
    QString dtype;  // "float32"
    QString shape;  // "[16,1,3,3]"
    int64_t elements = 0;
};

struct LayerInfo {
    int index = 0;  // position in the engine's topological order
    QString name;
    QString opType;
    QString domain;                     // "" for the default ONNX domain
    QStringList outputShapes;           // one per output, from shape inference
    QVector<ParameterInfo> parameters;  // initializer inputs
    int64_t parameterCount = 0;         // sum of the parameters' elements
};

class ModelSnapshot {
public:
    // displayName: what the user opened ("resnet18.onnx", "Fashion-MNIST demo").
    static std::shared_ptr<const ModelSnapshot> fromGraph(Graph graph, const QString &displayName);

    const Graph &graph() const { return *m_graph; }
    std::shared_ptr<const Graph> sharedGraph() const { return m_graph; }

    QString displayName;
    QString sourcePath;  // the file, or a resource / display name for models loaded from memory
    QString graphName;
    int64_t opset = 0;
    QVector<LayerInfo> layers;
    int64_t parameterCount = 0;  // each initializer used by a node counted once
    int64_t parameterBytes = 0;
    QStringList inputs;  // "input: float32 [batch,1,28,28]"
    QStringList outputs;
    QStringList warnings;

    // Value info for a value name: shape inference first, then the graph's declared inputs/outputs.
    const ValueInfo *valueInfo(const std::string &value) const;

private:
    std::shared_ptr<const Graph> m_graph;
};

using SnapshotPtr = std::shared_ptr<const ModelSnapshot>;

}  // namespace ql::ui

Q_DECLARE_METATYPE(ql::ui::SnapshotPtr)
