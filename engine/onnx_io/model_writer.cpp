#include "onnx_io/model_writer.h"

#include <algorithm>
#include <set>

#include <onnx/checker.h>
#include <onnx/onnx_pb.h>

#include "onnx_io/atomic_file.h"
#include "onnx_io/model_loader.h"
#include "onnx_io/model_stream.h"
#include "onnx_io/onnx_tensor.h"

namespace ql {

namespace {

void fillValueInfo(const ValueInfo &info, onnx::ValueInfoProto *proto) {
    proto->set_name(info.name);
    if (info.dtype == DataType::Undefined) return;
    auto *tensorType = proto->mutable_type()->mutable_tensor_type();
    tensorType->set_elem_type(static_cast<int>(info.dtype));
    if (!info.hasShape) return;
    auto *shape = tensorType->mutable_shape();
    for (size_t i = 0; i < info.shape.size(); ++i) {
        auto *dim = shape->add_dim();
        const std::string symbol = i < info.dimNames.size() ? info.dimNames[i] : std::string();
        if (info.shape[i] >= 0)
            dim->set_dim_value(info.shape[i]);
        else if (!symbol.empty())
            dim->set_dim_param(symbol);
        // else: an unknown dim is written as a dim with neither value nor name, as ONNX allows
    }
}

Status fillAttribute(const std::string &key, const Attribute &attr, const Node &node,
                     onnx::AttributeProto *proto) {
    using A = onnx::AttributeProto;
    proto->set_name(key);
    switch (attr.kind) {
        case Attribute::Kind::Float:
            proto->set_type(A::FLOAT);
            proto->set_f(attr.f);
            break;
        case Attribute::Kind::Int:
            proto->set_type(A::INT);
            proto->set_i(attr.i);
            break;
        case Attribute::Kind::String:
            proto->set_type(A::STRING);
            proto->set_s(attr.s);
            break;
        case Attribute::Kind::Floats:
            proto->set_type(A::FLOATS);
            for (float v : attr.floats) proto->add_floats(v);
            break;
        case Attribute::Kind::Ints:
            proto->set_type(A::INTS);
            for (int64_t v : attr.ints) proto->add_ints(v);
            break;
        case Attribute::Kind::Strings:
            proto->set_type(A::STRINGS);
            for (const std::string &v : attr.strings) proto->add_strings(v);
            break;
        case Attribute::Kind::Tensor:
            proto->set_type(A::TENSOR);
            tensorToProto(attr.t, "", proto->mutable_t());
            break;
        case Attribute::Kind::Graph:
        case Attribute::Kind::Unknown:
            return Status::unsupported(
                node.describe() + ": attribute '" + key +
                "' is a subgraph or of an unknown kind and cannot be written");
    }
    return Status::ok();
}

// The domain a node is written in. Q/DQ of 16- or 4-bit values below opset 21 go to
// com.microsoft, where ONNX Runtime defines them (the default domain has them from opset 21).
std::string writtenDomain(const Graph &graph, const Node &node) {
    if (!node.domain.empty() || graph.opsetVersion >= 21 ||
        (node.opType != "QuantizeLinear" && node.opType != "DequantizeLinear"))
        return node.domain;
    for (size_t k : {size_t(2), size_t(0)}) {  // the zero point, else a DQ's constant input
        const Tensor *t = node.hasInput(k) ? graph.initializer(node.inputs[k]) : nullptr;
        if (!t) continue;
        const DataType type = t->dtype();
        if (type == DataType::UInt16 || type == DataType::Int16 || isFourBit(type))
            return "com.microsoft";
        if (k == 2) break;
    }
    return node.domain;
}

// The model as a ModelProto. With `streamed`, initializers carry no values: their plain tensors
// go to `streamed` in the proto's order for streamModel, and each proto holds one placeholder
// byte, since the checker counts an initializer's value fields but does not read them.
Result<onnx::ModelProto> buildModel(const Graph &graph, const WriteOptions &options,
                                    std::vector<Tensor> *streamed) {
    onnx::ModelProto model;
    model.set_ir_version(options.irVersion);
    model.set_producer_name(options.producerName);

    // Every domain a node uses needs an opset import; unknown custom domains get version 1.
    std::map<std::string, int64_t> opsets = graph.domainOpsets;
    if (graph.opsetVersion > 0) opsets[""] = graph.opsetVersion;
    if (!opsets.count("") || opsets[""] <= 0)
        return Status::badInput("graph '" + graph.name + "' has no default ONNX opset to write");
    for (const Node &node : graph.nodes)
        if (!opsets.count(writtenDomain(graph, node))) opsets[writtenDomain(graph, node)] = 1;
    for (const auto &[domain, version] : opsets) {
        auto *imp = model.add_opset_import();
        imp->set_domain(domain);
        imp->set_version(version);
    }

    onnx::GraphProto *g = model.mutable_graph();
    g->set_name(graph.name.empty() ? "quantlens" : graph.name);
    for (const Node &node : graph.nodes) {
        auto *n = g->add_node();
        n->set_name(node.name);
        n->set_op_type(node.opType);
        if (const std::string domain = writtenDomain(graph, node); !domain.empty())
            n->set_domain(domain);
        for (const std::string &in : node.inputs) n->add_input(in);
        for (const std::string &out : node.outputs) n->add_output(out);
        for (const auto &[key, attr] : node.attributes)
            QL_RETURN_IF_ERROR(fillAttribute(key, attr, node, n->add_attribute()));
    }
    for (const auto &[name, tensor] : graph.initializers) {
        onnx::TensorProto *proto = g->add_initializer();
        if (!streamed) {
            tensorToProto(tensor, name, proto);
            continue;
        }
        tensorHeaderToProto(tensor.toPlain(), name, proto);
        streamed->push_back(storedValues(tensor));
        proto->set_raw_data(streamed->back().byteSize() > 0 ? std::string(1, '\0') : std::string());
    }
    std::set<std::string> declared;
    for (const ValueInfo &in : graph.inputs) {
        fillValueInfo(in, g->add_input());
        declared.insert(in.name);
    }
    for (const ValueInfo &out : graph.outputs) {
        fillValueInfo(out, g->add_output());
        declared.insert(out.name);
    }
    if (options.writeValueInfo) {
        for (const auto &[name, info] : graph.valueInfo)
            if (!declared.count(name) && !graph.isInitializer(name) &&
                info.dtype != DataType::Undefined)
                fillValueInfo(info, g->add_value_info());
    }

    // The ONNX library judges opsets it has no schemas for by older ones (QuantizeLinear-13
    // refuses the int16 of QuantizeLinear-21): those models are written unchecked, as the loader
    // reads them with the checker's findings as warnings.
    if (options.runChecker && opsets[""] <= onnxLibraryMaxOpset()) {
        try {
            onnx::checker::check_model(model);
        } catch (const std::exception &e) {
            std::string finding = e.what();
            for (char &c : finding)
                if (c == '\n') c = ' ';
            return Status::badInput("the written model fails the ONNX checker: " + finding);
        }
    }
    // The IR version the opset came with (the library's checker knows IR 8 only).
    const int64_t opset = opsets[""];
    model.set_ir_version(std::max<int64_t>(options.irVersion, opset >= 21   ? 10
                                                              : opset >= 19 ? 9
                                                                            : 8));
    return model;
}

}  // namespace

Result<std::string> serializeModel(const Graph &graph, const WriteOptions &options) {
    auto model = buildModel(graph, options, nullptr);
    if (!model) return model.status();
    std::string bytes;
    if (!model->SerializeToString(&bytes))
        return Status::badInput("model is too large to serialize (protobuf limit is 2 GiB)");
    return bytes;
}

Status writeModel(const Graph &graph, const std::string &path, const WriteOptions &options) {
    std::vector<Tensor> values;
    auto model = buildModel(graph, options, &values);
    if (!model) return model.status().withContext(path);
    Status streamed;
    const Status written = writeFileAtomically(path, [&](std::ostream &out) {
        streamed = streamModel(*model, values, out);
        return bool(streamed);
    });
    return streamed ? written : streamed.withContext(path);
}

}  // namespace ql
