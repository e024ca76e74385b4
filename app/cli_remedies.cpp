#include "cli_remedies.h"

#include <QJsonObject>

#include <algorithm>
#include <cstdio>

namespace cli {

void addRemedyOptions(QCommandLineParser &parser) {
    parser.addOption(
        {"remedy",
         "Fix the float model for int8 before calibrating; repeatable. cle: cross-layer "
         "equalization of Conv pairs joined directly or through Relu (BatchNorm folded first), "
         "for per-channel weight ranges far apart, as depthwise convolutions have.",
         "REMEDY"});
    parser.addOption({"out-float",
                      "With --remedy: also write the remedied float model (the same outputs as "
                      "the input model): the float side to analyse the quantized model against.",
                      "FLOAT.onnx"});
}

ql::Result<std::optional<RemedyRun>> applyRemedies(const QCommandLineParser &parser,
                                                   const QString &command,
                                                   const ql::Graph &floatGraph,
                                                   bool foldBatchNorm) {
    const QStringList asked = parser.values("remedy");
    if (asked.isEmpty()) {
        if (parser.isSet("out-float"))
            return ql::Status::badInput(command.toStdString() + ": --out-float needs --remedy");
        return std::optional<RemedyRun>();
    }
    RemedyRun run;
    run.model = ql::quant::prepareFloatGraph(floatGraph, foldBatchNorm, &run.folding);
    for (const QString &remedy : asked) {
        if (remedy != "cle")
            return ql::Status::badInput(command.toStdString() + ": --remedy '" +
                                        remedy.toStdString() +
                                        "' is not one QuantLens has; available: cle");
        if (run.equalization) continue;
        auto equalized = ql::quant::equalizeCrossLayer(run.model);
        if (!equalized) return equalized.status().withContext(floatGraph.sourcePath);
        run.equalization = std::move(*equalized);
    }
    return std::optional<RemedyRun>(std::move(run));
}

void printRemedies(const RemedyRun &run) {
    if (!run.equalization) return;
    const auto &report = *run.equalization;
    std::printf("%s\n", ql::quant::describe(report).c_str());
    for (const auto &p : report.pairs)
        std::printf("equalized Conv '%s' -> %s'%s': channel range spread %.3gx -> %.3gx\n",
                    p.first.c_str(), p.between.empty() ? "" : (p.between + " -> ").c_str(),
                    p.second.c_str(), std::max(p.firstSpreadBefore, p.secondSpreadBefore),
                    std::max(p.firstSpreadAfter, p.secondSpreadAfter));
    for (const auto &s : report.skipped)
        std::printf("left     Conv '%s' -> '%s': %s\n", s.first.c_str(), s.second.c_str(),
                    s.reason.c_str());
}

QJsonArray remediesJson(const RemedyRun &run) {
    QJsonArray out;
    if (!run.equalization) return out;
    const auto &report = *run.equalization;
    QJsonArray pairs, skipped;
    for (const auto &p : report.pairs) {
        QJsonArray scales;
        for (double s : p.scales) scales.append(s);
        pairs.append(QJsonObject{{"first", QString::fromStdString(p.first)},
                                 {"second", QString::fromStdString(p.second)},
                                 {"between", QString::fromStdString(p.between)},
                                 {"scales", scales},
                                 {"first_range_spread_before", p.firstSpreadBefore},
                                 {"first_range_spread_after", p.firstSpreadAfter},
                                 {"second_range_spread_before", p.secondSpreadBefore},
                                 {"second_range_spread_after", p.secondSpreadAfter}});
    }
    for (const auto &s : report.skipped)
        skipped.append(QJsonObject{{"first", QString::fromStdString(s.first)},
                                   {"second", QString::fromStdString(s.second)},
                                   {"reason", QString::fromStdString(s.reason)}});
    out.append(QJsonObject{{"remedy", "cle"},
                           {"iterations", report.iterations},
                           {"converged", report.converged},
                           {"pairs", pairs},
                           {"left_as_they_are", skipped}});
    return out;
}

}  // namespace cli
