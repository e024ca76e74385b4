#include "cli_data.h"

#include <QJsonArray>

#include <cstdio>

#include "cli_support.h"
#include "quant/image_preprocess.h"

namespace cli {

void addPreprocessOption(QCommandLineParser &parser, bool skipBadInputs) {
    parser.addOption(
        {"preprocess",
         "For images: comma-separated key=value applied in this order: color=rgb|bgr|gray, "
         "resize=N|HxW, crop=N|HxW, scale=F (1/255 accepted), mean=a:b:c, std=a:b:c, "
         "layout=nchw|nhwc, dtype=float32|uint8; or a preset: imagenet, none. Default: "
         "resize and centre-crop to the model's input, scale 1/255.",
         "SPEC"});
    if (!skipBadInputs) return;
    parser.addOption({"skip-bad-inputs",
                      "Leave out images that cannot be read or preprocessed (counted and named on "
                      "stderr) instead of stopping; costs one extra decoding pass."});
}

QString dataOptionHelp(const QString &what) {
    return what +
           ": folders of .npy/.pb files or files (one sample or a batch each), or images (.png "
           ".jpg .bmp .webp; folders searched recursively; a folder of class folders gives "
           "ImageFolder labels); repeatable. Several inputs: .npz files (one array per input "
           "name) or NAME=PATH per input.";
}

ql::Result<std::shared_ptr<const ql::ui::ImageDataReader>> dataReader(
    const QCommandLineParser &parser, int threads) {
    std::optional<ql::quant::PreprocessSpec> spec;
    if (parser.isSet("preprocess")) {
        auto parsed = ql::quant::parsePreprocessSpec(parser.value("preprocess").toStdString());
        if (!parsed) return parsed.status().withContext("--preprocess");
        spec = *parsed;
    }
    // optionNames(): the options given (isSet on one a command lacks would warn).
    const bool skipBad = parser.optionNames().contains(QStringLiteral("skip-bad-inputs"));
    return std::make_shared<const ql::ui::ImageDataReader>(spec, threads, skipBad);
}

void printSkipped(const std::string &option, const std::vector<ql::analysis::SkippedFile> &skipped,
                  size_t listed) {
    for (const ql::analysis::SkippedFile &bad : skipped)
        std::fprintf(stderr, "quantlens: %s: skipped: %s\n", option.c_str(), bad.reason.c_str());
    if (!skipped.empty())
        std::fprintf(stderr, "quantlens: %s: skipped %zu of %zu images (--skip-bad-inputs)\n",
                     option.c_str(), skipped.size(), listed);
}

ql::Result<ListedData> listData(const QCommandLineParser &parser, const QString &option,
                                const ql::ui::ImageDataReader &reader, const ql::Graph &graph,
                                const QString &labelsOption, bool specNeedsImages) {
    const std::string name = "--" + option.toStdString();
    const std::string labels = !labelsOption.isEmpty() && parser.isSet(labelsOption)
                                   ? parser.value(labelsOption).toStdString()
                                   : std::string();
    auto prepared = prepareData(reader, graph, splitPaths(parser.values(option)), labels);
    if (!prepared) return prepared.status().withContext(name);
    ListedData data = std::move(*prepared);
    if (specNeedsImages && reader.userSpec().has_value() && !data.listed.images)
        return ql::Status::badInput("--preprocess: " + name +
                                    " holds no images (.png .jpg .jpeg .bmp .webp)");
    printSkipped(name, data.skipped, data.listed.files.size() + data.skipped.size());
    // Exactly what was applied, so the figures can be reproduced (and questioned).
    if (!data.reading.empty())
        std::fprintf(stderr, "quantlens: %s %s%s\n", name.c_str(), data.reading.c_str(),
                     reader.userSpec().has_value() ? "" : "; see --preprocess");
    return data;
}

QJsonObject dataJsonFields(const ListedData &data, const ql::ui::ImageDataReader &reader,
                           const ql::Graph &graph) {
    QJsonObject fields;
    if (!data.listed.images) return fields;
    fields.insert("images", double(data.listed.files.size()));
    if (graph.inputs.size() == 1)
        if (auto spec = reader.specFor(graph.inputs.front()))
            fields.insert("preprocess",
                          QString::fromStdString(ql::quant::formatPreprocessSpec(*spec)));
    QJsonArray classes;
    for (const std::string &name : data.listed.classes)
        classes.append(QString::fromStdString(name));
    if (!classes.isEmpty()) fields.insert("classes", classes);
    if (!data.labelsFrom.empty())
        fields.insert("labels_from", QString::fromStdString(data.labelsFrom));
    if (!data.skipped.empty()) {
        QJsonArray skipped;
        for (const ql::analysis::SkippedFile &bad : data.skipped)
            skipped.append(QJsonObject{{"file", QString::fromStdString(bad.file)},
                                       {"reason", QString::fromStdString(bad.reason)}});
        fields.insert("skipped_inputs", skipped);
    }
    return fields;
}

}  // namespace cli
