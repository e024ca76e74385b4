#include "report_data.h"

#include <QCoreApplication>
#include <QCryptographicHash>
#include <QDir>
#include <QFile>
#include <QFileInfo>

#include <algorithm>
#include <cmath>

#include "analysis/explain/layer_capture.h"
#include "analysis/pairing/layer_matching.h"
#include "runtime/cpu_info.h"
#include "sample_thumbnail.h"

namespace ql::ui {

namespace {

constexpr int kHistogramBins = 64;

QString sha256Of(const QString &path) {
    QFile file(path);
    if (path.isEmpty() || !file.open(QIODevice::ReadOnly)) return {};
    QCryptographicHash hash(QCryptographicHash::Sha256);
    if (!hash.addData(&file)) return {};
    return QString::fromLatin1(hash.result().toHex());
}

std::optional<double> rankingFigure(const analysis::LayerReport &layer) {
    if (auto isolated = isolatedSqnr(layer)) return isolated;
    return cumulativeSqnr(layer);
}

// Float and dequantized values of one layer on the batch, in equal bins over both ranges.
LayerHistogram histogramOf(const analysis::LayerCaptureRunner &runner,
                           const analysis::LayerMatch &match,
                           const std::map<std::string, Tensor> &batch) {
    LayerHistogram h;
    auto capture = runner.capture(match, batch);
    if (!capture) {
        h.error = QString::fromStdString(capture.status().message());
        return h;
    }
    const Tensor &f = capture->floatOutput, &q = capture->quantOutput;
    const auto *fv = f.data<float>();
    const auto *qv = q.data<float>();
    const int64_t nf = f.numel(), nq = q.numel();
    double low = INFINITY, high = -INFINITY;
    for (int64_t i = 0; i < nf; ++i)
        if (std::isfinite(fv[i]))
            low = std::min<double>(low, fv[i]), high = std::max<double>(high, fv[i]);
    for (int64_t i = 0; i < nq; ++i)
        if (std::isfinite(qv[i]))
            low = std::min<double>(low, qv[i]), high = std::max<double>(high, qv[i]);
    if (!(low <= high)) {
        h.error = QCoreApplication::translate("Report", "no finite values");
        return h;
    }
    if (high == low) high = low + 1.0;
    h.low = low;
    h.high = high;
    h.floatCounts.fill(0.0, kHistogramBins);
    h.quantCounts.fill(0.0, kHistogramBins);
    auto bin = [&](float v) {
        return std::clamp(int((v - low) / (high - low) * kHistogramBins), 0, kHistogramBins - 1);
    };
    for (int64_t i = 0; i < nf; ++i)
        if (std::isfinite(fv[i])) h.floatCounts[bin(fv[i])] += 1.0;
    for (int64_t i = 0; i < nq; ++i)
        if (std::isfinite(qv[i])) h.quantCounts[bin(qv[i])] += 1.0;
    return h;
}

}  // namespace

QDateTime reportTimestamp() {
    bool ok = false;
    const qint64 epoch = qEnvironmentVariable("SOURCE_DATE_EPOCH").toLongLong(&ok);
    return ok ? QDateTime::fromSecsSinceEpoch(epoch, Qt::UTC) : QDateTime::currentDateTimeUtc();
}

std::vector<int> worstLayers(const analysis::NumericSuiteReport &report, int count) {
    std::vector<int> layers;
    for (int i = 0; i < int(report.layers.size()); ++i) {
        const auto figure = rankingFigure(report.layers[size_t(i)]);
        if (report.layers[size_t(i)].precision == "int8" && figure && std::isfinite(*figure))
            layers.push_back(i);
    }
    std::stable_sort(layers.begin(), layers.end(), [&](int a, int b) {
        return *rankingFigure(report.layers[size_t(a)]) < *rankingFigure(report.layers[size_t(b)]);
    });
    if (int(layers.size()) > count) layers.resize(size_t(std::max(count, 0)));
    return layers;
}

ReportData prepareReport(ReportInput input) {
    ReportData data;
    data.floatSha256 = sha256Of(input.models.floatModel);
    data.quantSha256 = sha256Of(input.models.quantModel);
    data.created = reportTimestamp();
    data.cpuIsa = QString::fromStdString(cpuIsaName());
    data.version = QCoreApplication::applicationVersion();
    if (input.report) {
        analysis::DiagnosisOptions options;
        options.sqnrThresholdDb = input.thresholdDb;
        for (const QJsonValue remedy : input.models.quantizerOptions.value("remedies").toArray())
            if (remedy.toString().startsWith("adaround")) options.weightsRoundedToNearest = false;
        data.findings = analysis::diagnose(*input.report, input.floatGraph.get(), options);
    }
    if (input.report && input.floatGraph && input.quantGraph && input.batch) {
        auto runner = analysis::LayerCaptureRunner::create(*input.floatGraph, *input.quantGraph);
        auto matching = analysis::matchLayers(*input.floatGraph, *input.quantGraph);
        for (int index : worstLayers(*input.report, input.histogramLayers)) {
            const analysis::LayerReport &layer = input.report->layers[size_t(index)];
            LayerHistogram h;
            if (runner && matching) {
                const auto match = std::find_if(
                    matching->matches.begin(), matching->matches.end(),
                    [&](const analysis::LayerMatch &m) { return m.floatNode == layer.name; });
                if (match != matching->matches.end())
                    h = histogramOf(**runner, *match, *input.batch);
                else
                    h.error = QCoreApplication::translate("Report", "not matched in this model");
            } else {
                h.error = QString::fromStdString(
                    (runner ? matching.status() : runner.status()).message());
            }
            h.layer = QString::fromStdString(layer.name);
            h.opType = QString::fromStdString(layer.opType);
            h.sqnrDb = *rankingFigure(layer);
            data.histograms.push_back(std::move(h));
        }
    }
    if (input.worstSamples) {
        const SampleStripData &worst = *input.worstSamples;
        const size_t rows =
            std::min(worst.samples.size(), size_t(std::max(input.worstSampleRows, 0)));
        for (size_t i = 0; i < rows; ++i) {
            const int64_t index = worst.samples[i].index;
            QImage thumbnail;
            if (index < int64_t(worst.files.size()))
                thumbnail = imageFileThumbnail(QString::fromStdString(worst.files[size_t(index)]),
                                               kSampleThumbnailSize);
            else if (const auto it = worst.tensors.find(index); it != worst.tensors.end())
                thumbnail = tensorHeatMap(it->second, kSampleThumbnailSize);
            data.sampleThumbnails.push_back(std::move(thumbnail));
        }
    }
    data.input = std::move(input);
    return data;
}


}  // namespace ql::ui
