#include "cli_data.h"

#include <QJsonArray>

#include <cstdio>

#include "cli_support.h"
#include "quant/image_preprocess.h"

namespace cli {

void addPreprocessOption(QCommandLineParser &parser) {
    parser.addOption(
        {"preprocess",
         "For images: comma-separated key=value applied in this order: color=rgb|bgr|gray, "
         "resize=N|HxW, crop=N|HxW, scale=F (1/255 accepted), mean=a:b:c, std=a:b:c, "
         "layout=nchw|nhwc, dtype=float32|uint8; or a preset: imagenet, none. Default: "
         "resize and centre-crop to the model's input, scale 1/255.",
         "SPEC"});
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
    return std::make_shared<const ql::ui::ImageDataReader>(spec, threads);
}

ql::Result<ListedData> listData(const QCommandLineParser &parser, const QString &option,
                                const ql::ui::ImageDataReader &reader, const ql::Graph &graph,
                                const QString &labelsOption, bool specNeedsImages) {
    const std::string name = "--" + option.toStdString();
    ListedData data;
    auto listed = reader.list(splitPaths(parser.values(option)));
    if (!listed) return listed.status().withContext(name);
    data.listed = std::move(*listed);
    if (specNeedsImages && reader.userSpec().has_value() && !data.listed.images)
        return ql::Status::badInput("--preprocess: " + name +
                                    " holds no images (.png .jpg .jpeg .bmp .webp)");
    if (!labelsOption.isEmpty() && parser.isSet(labelsOption)) {
        const std::string path = parser.value(labelsOption).toStdString();
        auto labels = reader.readLabels(path, data.listed);
        if (!labels) return labels.status();
        data.labels = std::move(*labels);
        data.labelsFrom = path;
    } else {
        data.labels = data.listed.labels;
        data.labelsFrom = data.listed.labelsFrom;
    }
    auto reading = reader.describe(graph, data.listed);
    if (!reading) return reading.status();
    data.reading = std::move(*reading);
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
    for (const std::string &name : data.listed.classes) classes.append(QString::fromStdString(name));
    if (!classes.isEmpty()) fields.insert("classes", classes);
    if (!data.labelsFrom.empty())
        fields.insert("labels_from", QString::fromStdString(data.labelsFrom));
    return fields;
}

}  // namespace cli
