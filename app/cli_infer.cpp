#include <QCommandLineParser>
#include <QDir>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QFile>

#include "cli_commands.h"
#include "cli_data.h"
#include "cli_support.h"
#include "image_dataset.h"
#include "onnx_io/model_loader.h"
#include "onnx_io/tensor_file.h"
#include "runtime/execution_plan.h"

namespace cli {
namespace {

// One image as a batch of one for the model's single input, named `name`.
ql::Result<ql::Tensor> readImageInput(const ql::Graph &graph, const std::string &name,
                                      const std::string &file,
                                      const ql::ui::ImageDataReader &reader) {
    if (graph.inputs.size() != 1 || graph.inputs.front().name != name)
        return ql::Status::badInput(file + ": images feed a model's only input; '" + name +
                                    "' is not it");
    auto source = reader.open(graph, {file}, 1);
    if (!source) return source.status();
    std::map<std::string, ql::Tensor> batch;
    auto got = (*source)(batch);
    if (!got) return got.status();
    return batch.begin()->second;
}

}  // namespace

int runInfer(const QStringList &arguments) {
    QCommandLineParser parser;
    parser.setApplicationDescription("Run a model on given inputs and write its outputs as .npy files.");
    parser.addHelpOption();
    parser.addPositionalArgument("model", "The ONNX model to run.");
    parser.addOption(
        {"input",
         "Input file for a named input: a tensor (.npy or .pb), or an image (.png .jpg "
         ".bmp .webp; one sample, see --preprocess).",
         "NAME=FILE"});
    addPreprocessOption(parser, false);
    parser.addOption({"inputs-dir", "Folder with input_0.pb, input_1.pb, ... (or .npy), in graph input order.", "DIR"});
    parser.addOption({"output-dir", "Folder for output_<i>.npy and outputs.json.", "OUT"});
    parser.addOption({"no-fuse", "Run every node on its own instead of fusing Conv with its activation / residual Add."});
    parser.addOption({"threads", "Threads for the kernels (default: all cores).", "N"});
    parser.addOption({"precision", "fp32, int8 or reference (default: int8 for a quantized model, fp32 for a float one).", "P"});
    parser.addOption({"int8-kernels", kInt8KernelsHelp, "MODE"});
    if (!parser.parse(QStringList{"quantlens infer"} + arguments)) return usageError(parser.errorText());
    if (parser.isSet("help")) {
        std::fputs(qPrintable(parser.helpText()), stdout);
        return Success;
    }
    if (parser.positionalArguments().size() != 1) return usageError("infer: expected exactly one MODEL.onnx");
    if (!parser.isSet("output-dir")) return usageError("infer: --output-dir is required");
    if (parser.isSet("input") == parser.isSet("inputs-dir"))
        return usageError("infer: give either --input NAME=FILE ... or --inputs-dir DIR");
    bool threadsOk = true;
    const int threads = parser.isSet("threads") ? parser.value("threads").toInt(&threadsOk) : 0;
    if (!threadsOk || threads < 0) return usageError("infer: --threads expects a positive number");

    auto graph = ql::loadModel(parser.positionalArguments().first().toStdString());
    if (!graph) return reportFailure(graph.status());
    std::map<std::string, ql::Tensor> inputs;
    auto reader = dataReader(parser, threads);
    if (!reader) return reportFailure(reader.status());
    QStringList tensorInputs;
    for (const QString &pair : parser.values("input")) {
        const std::string file = pair.mid(pair.indexOf('=') + 1).toStdString();
        if (!ql::ui::isImageFile(file)) {
            tensorInputs << pair;
            continue;
        }
        auto image = readImageInput(graph.value(), pair.left(pair.indexOf('=')).toStdString(), file,
                                    **reader);
        if (!image) return reportFailure(image.status());
        inputs[graph.value().inputs.front().name] = std::move(*image);
    }
    ql::Status read = readInputs(graph.value(), tensorInputs, parser.value("inputs-dir"), inputs);
    if (!read) return reportFailure(read);
    ql::PrecisionReport precision;
    ql::Status prepared = applyPrecision(graph.value(), parser.value("precision"), precision, parser.value("int8-kernels"));
    if (!prepared) return reportFailure(prepared);
    const ql::Graph model = graph.value();
    auto plan = ql::ExecutionPlan::create(std::move(graph.value()), planOptions(threads, !parser.isSet("no-fuse")));
    if (!plan) return reportFailure(plan.status().withContext(model.sourcePath));
    std::vector<ql::Tensor> outputs;
    ql::Status ran = plan.value()->run(inputs, outputs);
    if (!ran) return reportFailure(ran.withContext(model.sourcePath));

    const QString outDir = parser.value("output-dir");
    if (!QDir().mkpath(outDir)) return usageError(outDir + ": cannot create folder");
    QJsonArray described;
    for (size_t i = 0; i < outputs.size(); ++i) {
        const QString file = QDir(outDir).filePath(QStringLiteral("output_%1.npy").arg(i));
        ql::Status written = ql::writeNpy(file.toStdString(), outputs[i]);
        if (!written) return reportFailure(written);
        QJsonArray shape;
        for (int64_t d : outputs[i].shape()) shape.append(static_cast<qint64>(d));
        described.append(QJsonObject{{"name", QString::fromStdString(model.outputs[i].name)},
                                     {"dtype", QString::fromStdString(ql::dataTypeName(outputs[i].dtype()))},
                                     {"shape", shape},
                                     {"file", QFileInfo(file).fileName()}});
    }
    QJsonArray fallback;
    for (const ql::NodePrecision &node : precision.nodes)
        if (!node.int8)
            fallback.append(QJsonObject{{"node", QString::fromStdString(node.node)},
                                        {"op", QString::fromStdString(node.opType)},
                                        {"reason", QString::fromStdString(node.reason)}});
    const QJsonObject precisionJson{{"mode", QString::fromStdString(precision.precision)},
                                    {"int8_nodes", precision.int8Count()},
                                    {"fallback", fallback}};
    const QByteArray json =
        QJsonDocument(QJsonObject{{"outputs", described}, {"precision", precisionJson}}).toJson();
    if (ql::Status s = writeTextFile(QDir(outDir).filePath("outputs.json"), json); !s)
        return reportFailure(s);
    return Success;
}

}  // namespace cli
