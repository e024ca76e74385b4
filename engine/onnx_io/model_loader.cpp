#include "onnx_io/model_loader.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <new>
#include <set>

#include <fcntl.h>

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>
#include <onnx/checker.h>
#include <onnx/shape_inference/implementation.h>

#include "core/stop_token.h"
#include "onnx_io/external_data.h"
#include "onnx_io/onnx_tensor.h"
#include "onnx_io/opset_upgrade.h"
#include "onnx_io/shape_preconditions.h"
#include "passes/constant_folding.h"
#include "passes/topological_sort.h"

namespace ql {

namespace fs = std::filesystem;

namespace {

ValueInfo convertValueInfo(const onnx::ValueInfoProto &proto) {
    ValueInfo info;
    info.name = proto.name();
    if (!proto.type().has_tensor_type()) return info;
    const auto &tensorType = proto.type().tensor_type();
    info.dtype = static_cast<DataType>(tensorType.elem_type());
    if (tensorType.has_shape()) {
        info.hasShape = true;
        for (const auto &dim : tensorType.shape().dim()) {
            info.shape.push_back(dim.has_dim_value() ? dim.dim_value() : -1);
            info.dimNames.push_back(dim.has_dim_param() ? dim.dim_param() : std::string());
        }
    }
    return info;
}

// Sequences, maps and optionals have no Tensor form: refuse them clearly instead of failing later.
Status requireTensorType(const onnx::ValueInfoProto &proto, const std::string &role) {
    if (!proto.has_type() || proto.type().has_tensor_type()) return Status::ok();
    const auto &type = proto.type();
    const char *kind = type.has_sequence_type() ? "a sequence"
                       : type.has_map_type() ? "a map"
                       : type.has_optional_type() ? "an optional"
                       : type.has_sparse_tensor_type() ? "a sparse tensor"
                                                       : "not a tensor";
    return Status::unsupported(role + " '" + proto.name() + "' is " + kind +
                               "; only dense tensors are supported");
}

Result<Attribute> convertAttribute(const onnx::AttributeProto &proto, const std::string &where) {
    Attribute a;
    using A = onnx::AttributeProto;
    switch (proto.type()) {
        case A::FLOAT: a.kind = Attribute::Kind::Float; a.f = proto.f(); break;
        case A::INT: a.kind = Attribute::Kind::Int; a.i = proto.i(); break;
        case A::STRING: a.kind = Attribute::Kind::String; a.s = proto.s(); break;
        case A::FLOATS: a.kind = Attribute::Kind::Floats; a.floats.assign(proto.floats().begin(), proto.floats().end()); break;
        case A::INTS: a.kind = Attribute::Kind::Ints; a.ints.assign(proto.ints().begin(), proto.ints().end()); break;
        case A::STRINGS: a.kind = Attribute::Kind::Strings; a.strings.assign(proto.strings().begin(), proto.strings().end()); break;
        case A::TENSOR: {
            auto t = tensorFromProto(proto.t(), where + " attribute '" + proto.name() + "'", false);
            if (!t) return t.status();
            a.kind = Attribute::Kind::Tensor;
            a.t = t.value();
            break;
        }
        case A::GRAPH: case A::GRAPHS: a.kind = Attribute::Kind::Graph; break;
        default: a.kind = Attribute::Kind::Unknown; break;
    }
    return a;
}

// Reports name layers, so every node needs a distinct name: "<op>_<index>" for unnamed nodes,
// "<name>_<index>" for repeated names, never colliding with a name the file uses.
std::string uniqueNodeName(const onnx::NodeProto &proto, int index,
                           const std::set<std::string> &fileNames, std::set<std::string> *used) {
    const bool unnamed = proto.name().empty();
    std::string name = unnamed ? proto.op_type() + "_" + std::to_string(index) : proto.name();
    auto taken = [&](const std::string &n) {
        return used->count(n) || (n != proto.name() && fileNames.count(n));
    };
    if (taken(name)) {
        const std::string base =
            (unnamed ? proto.op_type() : proto.name()) + "_" + std::to_string(index);
        name = base;
        for (int k = 1; taken(name); ++k) name = base + "_" + std::to_string(k);
    }
    used->insert(name);
    return name;
}

// Names every node of the main graph. Done on the proto before an opset upgrade, so unnamed
// nodes are numbered by their place in the user's file, not in the converter's output.
void assignNodeNames(onnx::GraphProto &g) {
    std::set<std::string> fileNames, used;
    for (const auto &proto : g.node())
        if (!proto.name().empty()) fileNames.insert(proto.name());
    for (int i = 0; i < g.node_size(); ++i)
        g.mutable_node(i)->set_name(uniqueNodeName(g.node(i), i, fileNames, &used));
}

Result<Graph> convertModel(onnx::ModelProto &model, const std::string &file) {
    assignNodeNames(*model.mutable_graph());
    Graph graph;
    graph.sourcePath = file;
    graph.name = model.graph().name();
    for (const auto &opset : model.opset_import()) {
        const std::string domain = opset.domain() == "ai.onnx" ? "" : opset.domain();
        graph.domainOpsets[domain] = opset.version();
        if (domain.empty()) graph.opsetVersion = opset.version();
    }
    // The initializers' bytes move from the parsed file into the graph: a model's weights are
    // in memory once, not twice (fresh memory costs a page fault per 4 KB).
    for (auto &init : *model.mutable_graph()->mutable_initializer()) {
        auto t = takeTensorFromProto(init, "initializer '" + init.name() + "'", true);
        if (!t) return t.status();
        graph.initializers[init.name()] = std::move(*t);
    }
    const auto &g = model.graph();
    for (const auto &input : g.input()) {
        if (graph.isInitializer(input.name())) continue;
        QL_RETURN_IF_ERROR(requireTensorType(input, "graph input"));
        graph.inputs.push_back(convertValueInfo(input));
    }
    for (const auto &output : g.output()) {
        QL_RETURN_IF_ERROR(requireTensorType(output, "graph output"));
        graph.outputs.push_back(convertValueInfo(output));
    }
    for (const auto &vi : g.value_info()) graph.valueInfo[vi.name()] = convertValueInfo(vi);
    for (const auto &vi : g.input()) graph.valueInfo[vi.name()] = convertValueInfo(vi);
    for (const auto &vi : g.output()) graph.valueInfo[vi.name()] = convertValueInfo(vi);

    for (const auto &proto : g.node()) {
        Node node;
        node.opType = proto.op_type();
        node.domain = proto.domain() == "ai.onnx" ? "" : proto.domain();
        // Below opset 21 ONNX Runtime writes 16- and 4-bit Q/DQ in its own domain, with the
        // default domain's meaning: held as default-domain ops (the writer puts them back).
        if (node.domain == "com.microsoft" &&
            (node.opType == "QuantizeLinear" || node.opType == "DequantizeLinear"))
            node.domain.clear();
        node.name = proto.name();
        node.inputs.assign(proto.input().begin(), proto.input().end());
        node.outputs.assign(proto.output().begin(), proto.output().end());
        for (const auto &attr : proto.attribute()) {
            auto a = convertAttribute(attr, node.describe());
            if (!a) return a.status();
            node.attributes[attr.name()] = a.value();
        }
        graph.nodes.push_back(std::move(node));
    }
    return graph;
}

// Runs onnx::checker and shape inference. The linked ONNX library may be older than the model:
// it refuses newer IR versions outright (the IR changes since are additive, so check as its own
// version), and for opsets it has no schemas for it would check and infer nodes against older
// schemas (e.g. ReduceMean-13 for ReduceMean-18), so checker findings become warnings and
// shape inference, whose wrong shapes could poison Shape folding, is skipped.
Status checkAndInferShapes(onnx::ModelProto &model, int64_t opset, bool runChecker,
                           std::vector<std::string> *warnings) {
    const int64_t knownOpset = onnxLibraryMaxOpset();
    const bool newerOpset = opset > knownOpset;
    const int64_t irVersion = model.ir_version();
    const bool newerIr = irVersion > onnx::IR_VERSION;
    if (newerIr) model.set_ir_version(onnx::IR_VERSION);
    if (runChecker) {
        try {
            onnx::checker::check_model(model);
        } catch (const std::exception &e) {
            std::string finding = e.what();
            std::replace(finding.begin(), finding.end(), '\n', ' ');
            if (!newerOpset) return Status::badInput("fails the ONNX checker: " + finding);
            warnings->push_back("the ONNX checker, which knows opsets up to " +
                                std::to_string(knownOpset) + ", reported: " + finding);
        }
    }
    if (newerOpset) {
        warnings->push_back("shape inference skipped: the ONNX library knows opsets up to " +
                            std::to_string(knownOpset) + ", the model uses " +
                            std::to_string(opset));
    } else {
        try {
            onnx::ShapeInferenceOptions inferenceOptions{false, 0, false};
            onnx::shape_inference::InferShapes(model, onnx::OpSchemaRegistry::Instance(),
                                               inferenceOptions);
        } catch (const std::exception &e) {
            warnings->push_back(std::string("shape inference stopped early: ") + e.what());
        }
    }
    if (newerIr) model.set_ir_version(irVersion);
    return Status::ok();
}

// Parses `input` (a whole file) into `model`; false when it is not a protobuf message.
bool parseModel(google::protobuf::io::ZeroCopyInputStream &input, const LoadOptions &options,
                onnx::ModelProto &model) {
    google::protobuf::io::CodedInputStream stream(&input);
    stream.SetTotalBytesLimit(
        static_cast<int>(std::min<uint64_t>(options.maxFileBytes, INT32_MAX)));
    return model.ParseFromCodedStream(&stream) && stream.ConsumedEntireMessage();
}

constexpr const char *kNotParsed =
    "not an ONNX model, or the file is truncated (protobuf parse failed)";

// The parsed model on to the Graph: opset checks, external data, upgrade, checker, shape
// inference, conversion, sorting and folding.
Result<Graph> graphFromModel(onnx::ModelProto &model, const std::string &file,
                             const std::string &baseDir, const LoadOptions &options) {
    auto fail = [&](ErrorKind kind, const std::string &why) {
        return Status::error(kind, file + ": " + why);
    };
    if (model.ir_version() <= 0 || !model.has_graph())
        return fail(ErrorKind::BadInput, "not an ONNX model (no IR version or no graph)");
    if (stopRequested()) return stoppedStatus();  // between the steps that take long on big models

    int64_t opset = -1;
    for (const auto &imp : model.opset_import())
        if (imp.domain().empty() || imp.domain() == "ai.onnx") opset = imp.version();
    if (opset < 0) return fail(ErrorKind::BadInput, "model imports no default ONNX opset");
    if (opset < kMinOpset || opset > kMaxOpset) {
        return fail(ErrorKind::Unsupported, "opset " + std::to_string(opset) + " is not supported (supported: " +
                                                std::to_string(kMinOpset) + " to " +
                                                std::to_string(kMaxOpset) + ")");
    }

    Status external = resolveExternalData(model, baseDir);
    if (!external) return fail(ErrorKind::BadInput, external.message());

    if (Status preconditions = checkShapePreconditions(model.graph()); !preconditions)
        return fail(preconditions.kind(), preconditions.message());
    std::vector<std::string> warnings;
    if (opset < kMinNativeOpset) {
        assignNodeNames(*model.mutable_graph());
        Status upgraded = upgradeOpset(model, opset, &warnings);
        if (!upgraded) return fail(upgraded.kind(), upgraded.message());
        opset = kUpgradeTargetOpset;
    }
    Status checked = checkAndInferShapes(model, opset, options.runChecker, &warnings);
    if (!checked) return fail(checked.kind(), checked.message());
    if (stopRequested()) return stoppedStatus();

    try {
        Result<Graph> converted = convertModel(model, file);
        if (!converted) return fail(converted.status().kind(), converted.status().message());
        Graph &graph = converted.value();
        graph.warnings = warnings;
        if (stopRequested()) return stoppedStatus();
        Status sorted = sortTopologically(graph);
        if (!sorted) return fail(sorted.kind(), sorted.message());
        if (options.foldConstants) {
            Status folded = foldConstants(graph);
            if (!folded) return fail(folded.kind(), folded.message());
        }
        return converted;
    } catch (const std::bad_alloc &) {
        return fail(ErrorKind::BadInput, "not enough memory to load the model");
    } catch (const std::exception &e) {  // errors stay values across the engine boundary
        return fail(ErrorKind::Internal, e.what());
    }
}

}  // namespace

int64_t onnxLibraryMaxOpset() {
    const auto &ranges = onnx::OpSchemaRegistry::DomainToVersionRange::Instance().Map();
    auto it = ranges.find(onnx::ONNX_DOMAIN);
    return it == ranges.end() ? 0 : it->second.second;
}

Result<Graph> loadModelFromBytes(const std::string &bytes, const std::string &file,
                                 const std::string &baseDir, const LoadOptions &options) {
    auto fail = [&](const std::string &why) { return Status::badInput(file + ": " + why); };
    if (bytes.empty()) return fail("file is empty");
    if (bytes.size() > options.maxFileBytes) {
        return fail("model is too large (" + std::to_string(bytes.size()) + " bytes, limit " +
                    std::to_string(options.maxFileBytes) + ")");
    }
    onnx::ModelProto model;
    google::protobuf::io::ArrayInputStream input(bytes.data(), static_cast<int>(bytes.size()));
    if (!parseModel(input, options, model)) return fail(kNotParsed);
    return graphFromModel(model, file, baseDir, options);
}

Result<Graph> loadModel(const std::string &path, const LoadOptions &options) {
    std::error_code ec;
    if (!fs::exists(path, ec)) return Status::badInput(path + ": no such file");
    if (fs::is_directory(path, ec)) return Status::badInput(path + ": is a folder, not an ONNX file");
    const uint64_t size = fs::file_size(path, ec);
    if (ec) return Status::badInput(path + ": cannot read file size: " + ec.message());
    if (size > options.maxFileBytes) {
        const bool protobufLimit = options.maxFileBytes >= (uint64_t(2) << 30) - 1;
        return Status::badInput(path + ": file is too large (" + std::to_string(size) + " bytes, limit " +
                                std::to_string(options.maxFileBytes) + ")" +
                                (protobufLimit ? "; models over 2 GiB must keep their weights in external data files"
                                               : ""));
    }
    if (size == 0) return Status::badInput(path + ": file is empty");
    // Parsed straight from the file through a small buffer: the file's bytes are never all in
    // memory besides the parsed model.
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return Status::badInput(path + ": cannot open file: " + std::strerror(errno));
    onnx::ModelProto model;
    bool parsed = false;
    int readError = 0;
    {
        google::protobuf::io::FileInputStream input(fd, 1 << 18);
        input.SetCloseOnDelete(true);
        parsed = parseModel(input, options, model);
        readError = input.GetErrno();
    }
    if (readError)
        return Status::badInput(path + ": cannot read file: " + std::strerror(readError));
    if (!parsed) return Status::badInput(path + ": " + kNotParsed);
    const std::string baseDir = fs::absolute(path).parent_path().string();
    return graphFromModel(model, path, baseDir, options);
}

}  // namespace ql
