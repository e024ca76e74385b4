#include "skip_list_file.h"

#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

#include <cstdio>

// Skip-list: {"model": "...", "fp32_nodes": ["name", ...], "reason": {"name": "why"},
// "int16_nodes": ["name", ...] (optional)}.
ql::Status readSkipListFile(const QString &path, const QString &modelPath,
                        ql::quant::QuantizationOptions &options) {
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return ql::Status::badInput(path.toStdString() + ": cannot open skip-list");
    QJsonParseError error;
    const QJsonDocument doc = QJsonDocument::fromJson(file.readAll(), &error);
    const std::string where = path.toStdString() + ": ";
    if (error.error != QJsonParseError::NoError)
        return ql::Status::badInput(where + "not valid JSON (" + error.errorString().toStdString() +
                                    " at offset " + std::to_string(error.offset) + ")");
    const QJsonObject root = doc.object();
    if (!doc.isObject() || !root.value("fp32_nodes").isArray())
        return ql::Status::badInput(
            where + "expected an object with an \"fp32_nodes\" array of node names");
    for (const QJsonValue &v : root.value("fp32_nodes").toArray()) {
        if (!v.isString())
            return ql::Status::badInput(where + "\"fp32_nodes\" must hold node names (strings)");
        options.excludedNodes.push_back(v.toString().toStdString());
    }
    if (root.contains("int16_nodes") && !root.value("int16_nodes").isArray())
        return ql::Status::badInput(where + "\"int16_nodes\" must be an array of node names");
    for (const QJsonValue &v : root.value("int16_nodes").toArray()) {
        if (!v.isString())
            return ql::Status::badInput(where + "\"int16_nodes\" must hold node names (strings)");
        options.int16Nodes.push_back(v.toString().toStdString());
    }
    if (root.contains("reason") && !root.value("reason").isObject())
        return ql::Status::badInput(where +
                                    "\"reason\" must be an object mapping node names to text");
    const QJsonObject reasons = root.value("reason").toObject();
    for (auto it = reasons.begin(); it != reasons.end(); ++it)
        options.exclusionReasons[it.key().toStdString()] = it.value().toString().toStdString();
    const QString model = root.value("model").toString();
    if (!model.isEmpty() && QFileInfo(model).fileName() != QFileInfo(modelPath).fileName())
        std::fprintf(stderr, "quantlens: warning: skip-list %s was written for %s, not %s\n",
                     qPrintable(path), qPrintable(model),
                     qPrintable(QFileInfo(modelPath).fileName()));
    return ql::Status::ok();
}

