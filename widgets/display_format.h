#pragma once
// How engine values read in the GUI: shapes with symbolic dims, counts, byte sizes, attributes.
// One place, so every panel, tooltip and (later) report agrees.

#include <QString>

#include <cstdint>

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

}  // namespace ql::ui
