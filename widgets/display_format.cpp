#include "display_format.h"

#include <QCoreApplication>
#include <QLocale>
#include <QStringList>

#include <cmath>

namespace ql::ui {

namespace {

template <class T, class Format>
QString formatList(const std::vector<T> &values, Format format) {
    constexpr size_t kMaxShown = 16;  // long lists (e.g. Constant-like attributes) stay readable
    QStringList parts;
    for (size_t i = 0; i < values.size() && i < kMaxShown; ++i) parts << format(values[i]);
    if (values.size() > kMaxShown) parts << QStringLiteral("… (%1)").arg(values.size());
    return QLatin1Char('[') + parts.join(QLatin1Char(',')) + QLatin1Char(']');
}

}  // namespace

QString formatShape(const ValueInfo &info) {
    if (!info.hasShape) return QCoreApplication::translate("ql::ui::Format", "unknown");
    QStringList dims;
    for (size_t d = 0; d < info.shape.size(); ++d) {
        if (info.shape[d] >= 0)
            dims << QString::number(info.shape[d]);
        else if (d < info.dimNames.size() && !info.dimNames[d].empty())
            dims << QString::fromStdString(info.dimNames[d]);
        else
            dims << QStringLiteral("?");
    }
    return QLatin1Char('[') + dims.join(QLatin1Char(',')) + QLatin1Char(']');
}

QString formatShape(const Shape &shape) {
    ValueInfo info;
    info.shape = shape;
    info.hasShape = true;
    return formatShape(info);
}

QString formatTypedShape(const ValueInfo &info) {
    const QString type = info.dtype == DataType::Undefined
                             ? QStringLiteral("?")
                             : QString::fromStdString(dataTypeName(info.dtype));
    return type + QLatin1Char(' ') + formatShape(info);
}

QString formatCount(int64_t count) {
    return QLocale().toString(static_cast<qlonglong>(count));
}

QString formatBytes(int64_t bytes) {
    return QLocale().formattedDataSize(bytes, 1, QLocale::DataSizeTraditionalFormat);
}

QString formatAttribute(const Attribute &a) {
    using Kind = Attribute::Kind;
    switch (a.kind) {
        case Kind::Int:
            return QString::number(a.i);
        case Kind::Float:
            return QString::number(a.f, 'g', 6);
        case Kind::String:
            return QLatin1Char('"') + QString::fromStdString(a.s) + QLatin1Char('"');
        case Kind::Ints:
            return formatList(a.ints, [](int64_t v) { return QString::number(v); });
        case Kind::Floats:
            return formatList(a.floats, [](float v) { return QString::number(v, 'g', 6); });
        case Kind::Strings:
            return formatList(a.strings, [](const std::string &v) {
                return QLatin1Char('"') + QString::fromStdString(v) + QLatin1Char('"');
            });
        case Kind::Tensor:
            return QCoreApplication::translate("ql::ui::Format", "tensor %1 %2")
                .arg(QString::fromStdString(dataTypeName(a.t.dtype())), formatShape(a.t.shape()));
        case Kind::Graph:
            return QCoreApplication::translate("ql::ui::Format", "subgraph");
        case Kind::Unknown:
            break;
    }
    return QStringLiteral("?");
}

QString formatFixed(std::optional<double> value, int decimals) {
    if (!value || std::isnan(*value)) return QStringLiteral("—");
    if (std::isinf(*value)) return *value > 0 ? QStringLiteral("∞") : QStringLiteral("−∞");
    return QLocale().toString(*value, 'f', decimals);
}

QString shortLayerName(const QString &name, const QString &opType) {
    QStringList segments = name.split(QLatin1Char('/'), Qt::SkipEmptyParts);
    if (segments.size() > 1 && segments.last() == opType) segments.removeLast();
    QStringList kept;
    for (qsizetype i = 0; i < segments.size(); ++i) {
        const bool repeatedNext =
            i + 1 < segments.size() && segments[i + 1].startsWith(segments[i] + QLatin1Char('.'));
        if (!repeatedNext) kept << segments[i];
    }
    return kept.isEmpty() ? name : kept.join(QLatin1Char('/'));
}

QString formatDb(std::optional<double> db) {
    return formatFixed(db, 1);
}

QString formatPercent(std::optional<double> percent, int decimals) {
    if (!percent || std::isnan(*percent)) return QStringLiteral("—");
    return QCoreApplication::translate("ql::ui::Format", "%1 %")
        .arg(formatFixed(percent, decimals));
}

QString formatShare(std::optional<double> share, int decimals) {
    if (!share) return QStringLiteral("—");
    return formatPercent(*share * 100.0, decimals);
}

}  // namespace ql::ui
