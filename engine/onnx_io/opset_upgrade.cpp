#include "onnx_io/opset_upgrade.h"

#include <algorithm>
#include <cctype>
#include <cstring>
#include <map>
#include <set>

#include <onnx/shape_inference/implementation.h>
#include <onnx/version_converter/convert.h>

namespace ql {

namespace {

namespace vc = onnx::version_conversion;

// IR version of the ONNX release that introduced kUpgradeTargetOpset. IR 3 files must list every
// initializer as a graph input, and the converter adds initializers that are not (Pad's pads).
constexpr int64_t kUpgradeIrVersion = 6;

// Reads the converter's adapter table (protected in ONNX) so that a missing adapter is reported
// with the node that needs it, instead of an assertion from deep inside the converter.
class Converter : public vc::DefaultVersionConverter {
public:
    // Empty when the converter can carry `op` from opset `from` to `to`; else why not.
    std::string obstacle(const std::string &op, int64_t from, int64_t to) const {
        const auto schemas = all_schemas.find(op);
        if (schemas == all_schemas.end() || !schemas->second.count(""))
            return "the ONNX library knows no op '" + op + "'";
        const auto &versions = schemas->second.at("");
        for (int64_t v = from; v < to; ++v) {
            if (!versions.count(v + 1)) continue;  // unchanged at this step: no adapter needed
            if (!hasAdapter(op, v, v + 1))
                return "ONNX's version converter has no adapter for " + op + " from opset " +
                       std::to_string(v) + " to " + std::to_string(v + 1);
        }
        return {};
    }

private:
    bool hasAdapter(const std::string &op, int64_t from, int64_t to) const {
        const auto byOp = adapters.find(op);
        if (byOp == adapters.end()) return false;
        const auto byFrom = byOp->second.find(onnx::OpSetID(from).toString());
        return byFrom != byOp->second.end() && byFrom->second.count(onnx::OpSetID(to).toString());
    }
};

bool isDefaultDomain(const onnx::NodeProto &node) {
    return node.domain().empty() || node.domain() == "ai.onnx";
}

std::string describe(const onnx::NodeProto &node) {
    return "node '" + node.name() + "' (" + node.op_type() + ")";
}

// First node, subgraphs included, that the converter cannot carry: "node 'n' (Op): why".
std::string findObstacle(const Converter &converter, const onnx::GraphProto &graph, int64_t from,
                         int64_t to) {
    for (const auto &node : graph.node()) {
        if (isDefaultDomain(node) && node.op_type() != "ConstantFill") {
            const std::string why = converter.obstacle(node.op_type(), from, to);
            if (!why.empty()) return describe(node) + ": " + why;
        }
        for (const auto &attr : node.attribute()) {
            std::string why = attr.has_g() ? findObstacle(converter, attr.g(), from, to) : "";
            for (int i = 0; why.empty() && i < attr.graphs_size(); ++i)
                why = findObstacle(converter, attr.graphs(i), from, to);
            if (!why.empty()) return why;
        }
    }
    return {};
}

// Whether a node of op `before` may have become `after` (the converter renames a few ops).
bool sameOpAfterUpgrade(const std::string &before, const std::string &after) {
    return before == after || (before == "Upsample" && after == "Resize") ||
           (before == "Scatter" && after == "ScatterElements");
}

// ONNX assertions read "file:line: function: Assertion `cond` failed: message"; keep the message.
std::string converterMessage(const char *what) {
    std::string text = what;
    const size_t failed = text.find("failed: ");
    if (failed != std::string::npos) text = text.substr(failed + 8);
    text = text.substr(0, text.find('\n'));
    while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) text.pop_back();
    return text;
}

// The first node whose op type the message names as a word: the converter names ops, not nodes.
std::string culprit(const std::string &message, const onnx::GraphProto &graph) {
    auto isWordChar = [](char c) {
        return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
    };
    for (const auto &node : graph.node()) {
        const std::string &op = node.op_type();
        for (size_t at = message.find(op); !op.empty() && at != std::string::npos;
             at = message.find(op, at + 1)) {
            const size_t end = at + op.size();
            if ((at == 0 || !isWordChar(message[at - 1])) &&
                (end == message.size() || !isWordChar(message[end])))
                return describe(node) + ": ";
        }
    }
    return {};
}

// Float values of a constant (initializer or Constant node output); false when not constant.
bool constantFloats(const onnx::GraphProto &graph, const std::string &name,
                    std::vector<float> *values) {
    const onnx::TensorProto *tensor = nullptr;
    for (const auto &init : graph.initializer())
        if (init.name() == name) tensor = &init;
    for (const auto &node : graph.node())
        if (node.op_type() == "Constant" && node.output_size() == 1 && node.output(0) == name)
            for (const auto &attr : node.attribute())
                if (attr.name() == "value" && attr.has_t()) tensor = &attr.t();
    if (!tensor || tensor->data_type() != onnx::TensorProto::FLOAT) return false;
    if (tensor->has_raw_data()) {
        const std::string &raw = tensor->raw_data();
        values->resize(raw.size() / sizeof(float));
        std::memcpy(values->data(), raw.data(), values->size() * sizeof(float));
    } else {
        values->assign(tensor->float_data().begin(), tensor->float_data().end());
    }
    return true;
}

void setStringAttribute(onnx::NodeProto *node, const std::string &name, const std::string &value) {
    for (auto &attr : *node->mutable_attribute()) {
        if (attr.name() == name) {
            attr.set_s(value);
            return;
        }
    }
    auto *attr = node->add_attribute();
    attr->set_name(name);
    attr->set_type(onnx::AttributeProto::STRING);
    attr->set_s(value);
}

// Upsample and Resize-10 sample at x / scale and take the nearest neighbour below when
// upsampling, above when downsampling (ONNX Runtime's rule). Resize-11 defaults to half_pixel
// and round_prefer_floor, and ONNX 1.12's Upsample/Resize adapters set neither.
void keepLegacyResize(onnx::NodeProto *resize, const onnx::GraphProto &graph,
                      std::vector<std::string> *warnings) {
    std::string mode = "nearest";
    for (auto &attr : *resize->mutable_attribute()) {
        if (attr.name() != "mode") continue;
        if (attr.s() == "bilinear") attr.set_s("linear");  // Upsample-7's spelling
        mode = attr.s();
    }
    setStringAttribute(resize, "coordinate_transformation_mode", "asymmetric");
    if (mode != "nearest") return;
    std::vector<float> scales;
    const bool known = resize->input_size() > 2 && constantFloats(graph, resize->input(2), &scales);
    const bool down =
        known && std::all_of(scales.begin(), scales.end(), [](float s) { return s <= 1.f; });
    const bool mixed = known && !down &&
                       std::any_of(scales.begin(), scales.end(), [](float s) { return s < 1.f; });
    setStringAttribute(resize, "nearest_mode", down ? "ceil" : "floor");
    if (!known || mixed)
        warnings->push_back(
            describe(*resize) + ": " +
            (known ? "scales both enlarge and shrink" : "scales are only known at run time") +
            "; nearest neighbours are rounded down as when upsampling");
}

}  // namespace

namespace {

// The converter builds ONNX's in-memory IR, which dereferences whatever a name points to: a
// value nothing produces crashes it (found by fuzzing). The wiring is checked first, in file order
// as the ONNX checker would.
Status checkWiring(const onnx::GraphProto &graph) {
    std::set<std::string> known;
    for (const auto &input : graph.input()) known.insert(input.name());
    for (const auto &initializer : graph.initializer()) known.insert(initializer.name());
    for (const auto &node : graph.node()) {
        const std::string who = "node '" + node.name() + "' (" + node.op_type() + ")";
        for (const auto &input : node.input())
            if (!input.empty() && !known.count(input))
                return Status::badInput(who + " reads '" + input +
                                        "', which no earlier node, input or initializer makes");
        for (const auto &output : node.output())
            if (!output.empty() && !known.insert(output).second)
                return Status::badInput(who + " writes '" + output + "', which is already defined");
    }
    for (const auto &output : graph.output())
        if (!known.count(output.name()))
            return Status::badInput("graph output '" + output.name() + "' is made by no node");
    return Status::ok();
}

}  // namespace

Status upgradeOpset(onnx::ModelProto &model, int64_t fromOpset,
                    std::vector<std::string> *warnings) {
    QL_RETURN_IF_ERROR(checkWiring(model.graph()));
    const int64_t to = kUpgradeTargetOpset;
    // Which node made each output, to give nodes the converter replaced their names back.
    struct Source {
        std::string name, op;
    };
    std::map<std::string, Source> producers;
    for (const auto &node : model.graph().node())
        for (const auto &output : node.output())
            if (!output.empty()) producers[output] = {node.name(), node.op_type()};

    onnx::ModelProto converted;
    try {
        // Some adapters read input ranks (Resize's roi), which only shape inference provides.
        try {
            onnx::ShapeInferenceOptions options{false, 0, false};
            onnx::shape_inference::InferShapes(model, onnx::OpSchemaRegistry::Instance(), options);
        } catch (const std::exception &) {
            // the converter then works with the shapes the file declares
        }
        Converter converter;
        const std::string obstacle = findObstacle(converter, model.graph(), fromOpset, to);
        if (!obstacle.empty()) return Status::unsupported(obstacle);
        converted = converter.convert_version(model, onnx::OpSetID(fromOpset), onnx::OpSetID(to));
    } catch (const std::exception &e) {
        const std::string why = converterMessage(e.what());
        return Status::unsupported(culprit(why, model.graph()) +
                                   "ONNX's version converter failed: " + why);
    } catch (...) {
        return Status::unsupported("ONNX's version converter failed");
    }

    onnx::GraphProto &after = *converted.mutable_graph();
    // The converter keeps the node order but renames intermediate values ("u" becomes "6") and
    // adds Constant nodes for attributes that became inputs: pair the nodes in order, skipping
    // added Constants; by output name where the order does not line up.
    const auto &before = model.graph().node();
    int next = 0;
    for (auto &node : *after.mutable_node()) {
        Source inOrder;
        const Source *source = nullptr;
        if (next < before.size() && sameOpAfterUpgrade(before[next].op_type(), node.op_type())) {
            inOrder = {before[next].name(), before[next].op_type()};
            source = &inOrder;
            ++next;
        }
        for (const auto &output : node.output())
            if (!source && producers.count(output)) source = &producers.at(output);
        if (!source) continue;  // a node the converter added (Constant inputs, ...)
        node.set_name(source->name);
        const bool legacyResize =
            source->op == "Upsample" || (source->op == "Resize" && fromOpset < 11);
        if (node.op_type() == "Resize" && legacyResize) keepLegacyResize(&node, after, warnings);
    }
    // The file's initializers stay, whatever the converter's IR round trip does with them.
    std::set<std::string> kept;
    for (const auto &init : after.initializer()) kept.insert(init.name());
    for (const auto &init : model.graph().initializer())
        if (!kept.count(init.name())) *after.add_initializer() = init;
    converted.set_ir_version(std::max<int64_t>(converted.ir_version(), kUpgradeIrVersion));

    model = std::move(converted);
    warnings->push_back("upgraded from opset " + std::to_string(fromOpset) + " to opset " +
                        std::to_string(to) + " with ONNX's version converter");
    return Status::ok();
}

}  // namespace ql
