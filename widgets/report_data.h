#pragma once
// What an analysis report (HTML or PDF) shows, gathered once: the report and where it came from
// (models with SHA-256, data, quantizer, latency), the diagnosis, histograms of the worst layers
// (float vs dequantized values of one batch), the fp32 set with its skip-list, and how the
// analysis was made. prepareReport() does the slow part (hashing, captures) and may run off the
// GUI thread; the writers (report_html.h, report_pdf.h) only lay it out.

#include <QDateTime>
#include <QImage>
#include <QJsonObject>
#include <QString>
#include <QStringList>
#include <QVector>

#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "analysis/suite/diagnosis.h"
#include "analysis_report.h"
#include "analysis_report_format.h"
#include "core/status.h"
#include "ir/graph.h"
#include "ir/tensor.h"
#include "sample_strip_data.h"

namespace ql::ui {

struct ReportInput {
    ReportPtr report;
    AnalysisModels models;  // file paths; the quantizer options when quantized in the app
    QString data;           // the evaluation inputs, one line ("samples.npy, labels labels.npy")
    std::optional<std::pair<double, double>> latencyMs;   // int8, fp32: one pass over...
    int latencySamples = 0;                               // ...this many samples
    std::shared_ptr<const Graph> floatGraph, quantGraph;  // quantGraph as analysed (toggles on)
    std::shared_ptr<const std::map<std::string, Tensor>> batch;  // for the histograms
    std::set<std::string> fp32Layers;                            // the user's fp32 set
    QJsonObject skipList;  // that set as a QuantLens skip-list
    double thresholdDb = 30.0;
    QString howMade;      // the command line, or the GUI and its setup
    QJsonObject project;  // embedded in the HTML to reopen it (paths relative to the report)
    int histogramLayers = 3;
    // The lowest-SQNR samples and top-1 flips, with their files or input rows; null: none.
    std::shared_ptr<const SampleStripData> worstSamples;
    int worstSampleRows = 20;  // table rows at most
};

struct LayerHistogram {
    QString layer, opType;
    double sqnrDb = 0.0;  // the figure it was chosen by (isolated, else cumulative)
    double low = 0.0, high = 0.0;
    QVector<double> floatCounts, quantCounts;  // equal-width bins over [low, high]
    QString error;                             // why there is none (capture failed)
};

struct ReportData {
    ReportInput input;
    QString floatSha256, quantSha256;  // hex; empty when the file cannot be read
    std::vector<analysis::Finding> findings;
    std::vector<LayerHistogram> histograms;
    // Per row of the worst-samples table: the picture, or the input's heat map (null: none).
    std::vector<QImage> sampleThumbnails;
    QDateTime created;  // SOURCE_DATE_EPOCH when set (reproducible), else now; UTC
    QString cpuIsa;
    QString version;
};

// The slow part: hashes, diagnosis, histograms (runs both models on the batch). Thread-safe.
ReportData prepareReport(ReportInput input);

// Pixels of a worst sample's thumbnail in a report, and the PDF's resource name for row N
// ("ql-sample:N").
constexpr int kSampleThumbnailSize = 56;
constexpr const char *kSampleThumbnailScheme = "ql-sample:";

// The time a report states: SOURCE_DATE_EPOCH when set, else now (UTC).
QDateTime reportTimestamp();

// The layers a report draws histograms of: the int8 layers with the lowest isolated SQNR (else
// cumulative), worst first, at most `count`.
std::vector<int> worstLayers(const analysis::NumericSuiteReport &report, int count);


}  // namespace ql::ui
