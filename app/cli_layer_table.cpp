#include "cli_layer_table.h"

#include <QStringList>

#include <sys/ioctl.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>

#include "diagnosis_list.h"

namespace {

constexpr int kFigureWidth = 8;
constexpr int kMinNameWidth = 12;
constexpr int kWantedNameWidth = 40;  // before figures make room for a longer name
constexpr size_t kKeptFigures = 3;    // weight, cumulative, isolated: never dropped
constexpr int kMaxOpWidth = 12;       // on a terminal; op types elide in the middle beyond

int terminalColumns() {
    winsize size{};
    if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &size) == 0 && size.ws_col > 0) return size.ws_col;
    const char *columns = std::getenv("COLUMNS");
    const int n = columns ? std::atoi(columns) : 0;
    return n > 0 ? n : 80;
}

std::optional<double> cumulativeOf(const ql::analysis::LayerReport &layer) {
    return layer.cumulative ? std::optional<double>(layer.cumulative->sqnrDb) : std::nullopt;
}

std::optional<double> isolatedOf(const ql::analysis::LayerReport &layer) {
    return layer.isolated ? std::optional<double>(layer.isolated->sqnrDb) : std::nullopt;
}

// Pads `text` with spaces to `width` characters (QString counts characters, not bytes).
QByteArray padded(const QString &text, int width) {
    return text.leftJustified(width, QLatin1Char(' ')).toUtf8();
}

}  // namespace

LayerTableStyle terminalTableStyle(bool wide, double thresholdDb) {
    LayerTableStyle style;
    style.thresholdDb = thresholdDb;
    if (!isatty(STDOUT_FILENO)) return style;
    style.width = wide ? 0 : terminalColumns();
    style.colour = std::getenv("NO_COLOR") == nullptr;
    return style;
}

QString elideMiddle(const QString &text, int width) {
    if (width <= 0 || text.size() <= width) return text;
    if (width == 1) return QStringLiteral("…");
    // Two thirds for the end: a layer's name ends in what tells it from its neighbours.
    const int head = (width - 1) / 3, tail = width - 1 - head;
    return text.left(head) + QStringLiteral("…") + text.right(tail);
}

QString compactScopes(const QString &name) {
    const QStringList parts = name.split(QLatin1Char('/'));
    QStringList kept;
    for (int i = 0; i < parts.size(); ++i) {
        const bool repeated = i + 1 < parts.size() && !parts[i].isEmpty() &&
                              parts[i + 1].startsWith(parts[i] + QLatin1Char('.'));
        if (!repeated) kept << parts[i];
    }
    return kept.join(QLatin1Char('/'));
}

QString tableDb(const std::optional<double> &value) {
    if (!value || std::isnan(*value)) return QStringLiteral("-");
    if (std::isinf(*value)) return *value > 0 ? QStringLiteral("inf") : QStringLiteral("-inf");
    return QString::number(*value, 'f', 2);
}

void printLayerTable(const ql::analysis::NumericSuiteReport &report, const LayerTableStyle &style) {
    using Layer = ql::analysis::LayerReport;
    struct Figure {
        const char *header;
        std::optional<double> (*value)(const Layer &);
    };
    // In the order they are dropped from the right on a narrow terminal.
    std::vector<Figure> figures{
        {"weight", [](const Layer &l) { return l.weightSqnrDb; }},
        {"cumul", cumulativeOf},
        {"isolated", isolatedOf},
        {"p5",
         [](const Layer &l) {
             return l.cumulative && l.cumulative->sampleSqnr
                        ? std::optional<double>(l.cumulative->sampleSqnr->p5)
                        : std::nullopt;
         }},
        {"sat%",
         [](const Layer &l) {
             return l.cumulative ? l.cumulative->saturationPct : std::optional<double>();
         }},
        {"kernel", [](const Layer &l) { return l.kernelVsReferenceSqnrDb; }},
    };
    int name = 5, op = 2, precision = 4;
    for (const auto &layer : report.layers) {
        name = std::max(name, int(QString::fromStdString(layer.name).size()));
        op = std::max(op, int(layer.opType.size()));
        precision = std::max(precision, int(layer.precision.size()));
    }
    QStringList dropped;
    if (style.width > 0) {
        // The name column gets what the others leave; a long op type, then the least read
        // figures make room first.
        const auto room = [&] {
            return style.width - (op + 1) - (precision + 1) -
                   int(figures.size()) * (kFigureWidth + 1) - 1;  // no wrap at the last column
        };
        const int wanted = std::min(name, kWantedNameWidth);
        if (room() < wanted) op = std::min(op, kMaxOpWidth);
        while (room() < wanted && figures.size() > kKeptFigures) {
            dropped.prepend(QString::fromLatin1(figures.back().header));
            figures.pop_back();
        }
        name = std::min(name, std::max(kMinNameWidth, room()));
    }
    // When some name does not fit, every name drops its repeated scopes (the same look for all).
    bool compact = false;
    for (const auto &layer : report.layers)
        compact = compact || int(QString::fromStdString(layer.name).size()) > name;
    QByteArray header = padded(QStringLiteral("layer"), name) + ' ' +
                        padded(QStringLiteral("op"), op) + ' ' +
                        padded(QStringLiteral("prec"), precision);
    for (const Figure &f : figures)
        header += ' ' + QString::fromLatin1(f.header).rightJustified(kFigureWidth).toUtf8();
    std::printf("%s\n", header.constData());
    for (const auto &layer : report.layers) {
        const auto under = [&style](const std::optional<double> &v) {
            return v && *v < style.thresholdDb;
        };
        const bool low = under(cumulativeOf(layer)) || under(isolatedOf(layer));
        const bool mark = style.colour && (low || layer.kernelMismatch);
        const QString full = QString::fromStdString(layer.name);
        QByteArray row = padded(elideMiddle(compact ? compactScopes(full) : full, name), name) +
                         ' ' + padded(elideMiddle(QString::fromStdString(layer.opType), op), op) +
                         ' ' + padded(QString::fromStdString(layer.precision), precision);
        for (const Figure &f : figures)
            row += ' ' + tableDb(f.value(layer)).rightJustified(kFigureWidth).toUtf8();
        if (layer.kernelMismatch) row += "  KERNEL MISMATCH";
        std::printf("%s%s%s\n", mark ? "\033[31m" : "", row.constData(), mark ? "\033[0m" : "");
    }
    if (!dropped.isEmpty())
        std::printf("(%s: with --wide, or in a wider terminal)\n",
                    qPrintable(dropped.join(QStringLiteral(", "))));
}

void printAnalysisSummary(const ql::analysis::NumericSuiteReport &report,
                          const std::vector<ql::analysis::Finding> &findings,
                          const QStringList &written) {
    QStringList sentences;
    if (!report.outputs.empty()) {
        const auto &out = report.outputs.front();
        QString text = QStringLiteral("output SQNR %1 dB, top-1 agreement %2 %")
                           .arg(tableDb(out.sqnrDb))
                           .arg(100.0 * out.top1Agreement, 0, 'f', 2);
        if (out.floatAccuracy && out.quantAccuracy)
            text += QStringLiteral(", accuracy %1 % -> %2 %")
                        .arg(100.0 * *out.floatAccuracy, 0, 'f', 2)
                        .arg(100.0 * *out.quantAccuracy, 0, 'f', 2);
        sentences << text;
    }
    // The three lowest: by isolated SQNR (the layers' own error) when there is one.
    std::multimap<double, const ql::analysis::LayerReport *> ranked;
    for (const auto &layer : report.layers) {
        const std::optional<double> figure =
            isolatedOf(layer) ? isolatedOf(layer) : cumulativeOf(layer);
        if (figure && std::isfinite(*figure) && layer.precision != "fp32")
            ranked.emplace(*figure, &layer);
    }
    QStringList worst;
    for (auto it = ranked.begin(); it != ranked.end() && worst.size() < 3; ++it)
        worst << QStringLiteral("%1 %2 dB")
                     .arg(QString::fromStdString(it->second->name))
                     .arg(it->first, 0, 'f', 1);
    if (!worst.isEmpty())
        sentences << QStringLiteral("lowest layer SQNR: ") + worst.join(QStringLiteral(", "));
    if (!findings.empty())
        sentences << QStringLiteral("first finding: ") +
                         ql::ui::DiagnosisList::describe(findings.front());
    if (!written.isEmpty())
        sentences << QStringLiteral("wrote ") + written.join(QStringLiteral(", "));
    std::printf("summary: %s\n", qPrintable(sentences.join(QStringLiteral("; "))));
}
