#pragma once
// How engine values read in the GUI: shapes with symbolic dims, counts, byte sizes, attributes.
// One place, so every panel, tooltip and (later) report agrees.

#include <QString>

#include <cstdint>
#include <optional>

#include "ir/graph.h"

namespace ql::ui {

// "[batch,1,28,28]"; "?" for an unknown dim, "unknown" when there is no shape at all.
QString formatShape(const ValueInfo &info);
QString formatShape(const Shape &shape);
// "float32 [batch,1,28,28]"
QString formatTypedShape(const ValueInfo &info);
// "29,834" in the user's locale.
QString formatCount(int64_t count);
// "116.5 KiB"
QString formatBytes(int64_t bytes);
// Attribute values as ONNX tools print them: 3, 1.5, [1,1], "NOTSET", tensor float32 [4].
QString formatAttribute(const Attribute &attribute);

// Figures of the analysis views, in the user's locale. Missing (nullopt or NaN) -> "—".
// "37.0", "∞", "−∞": SQNR in dB with one decimal (no unit; headers and captions carry it).
QString formatDb(std::optional<double> db);
// A plain number with a fixed number of decimals: cosine 0.9998, rmse/scale 0.312.
QString formatFixed(std::optional<double> value, int decimals);
// A percentage already in 0..100: "0.4 %".
QString formatPercent(std::optional<double> percent, int decimals = 1);
// A layer name short enough for a chart axis: exporter prefixes that repeat in the next path
// segment are dropped ("/layer1/layer1.0/conv1/Conv" -> "layer1.0/conv1"), and so is a last
// segment that only repeats the op type.
QString shortLayerName(const QString &name, const QString &opType);
// A share in 0..1 shown as a percentage: 0.859375 -> "85.9 %".
QString formatShare(std::optional<double> share, int decimals = 1);

}  // namespace ql::ui
