#include "analysis/search/skip_list_dialects.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <set>
#include <sstream>

#include "core/text.h"
#include "quant/quantization_plan.h"

namespace ql::analysis {

namespace {

// A JSON / Python string literal (both take the same escapes for what node names hold).
std::string quoted(const std::string &text) {
    std::string out = "\"";
    for (char c : text) {
        switch (c) {
            case '"':
                out += "\\\"";
                break;
            case '\\':
                out += "\\\\";
                break;
            case '\n':
                out += "\\n";
                break;
            case '\t':
                out += "\\t";
                break;
            default:
                if (static_cast<unsigned char>(c) < 0x20) {
                    char escaped[8];
                    std::snprintf(escaped, sizeof escaped, "\\u%04x", c);
                    out += escaped;
                } else {
                    out += c;
                }
        }
    }
    return out + "\"";
}

std::string quotedList(const std::vector<std::string> &items, const std::string &indent) {
    if (items.empty()) return "[]";
    std::string out = "[\n";
    for (size_t i = 0; i < items.size(); ++i)
        out += indent + "    " + quoted(items[i]) + (i + 1 < items.size() ? ",\n" : "\n");
    return out + indent + "]";
}

bool numeric(const std::string &atom) {
    if (atom.empty()) return false;
    for (char c : atom)
        if (!std::isdigit(static_cast<unsigned char>(c))) return false;
    return true;
}

// The node's scope: the name without its last component ("/features/features.0/Conv" ->
// "/features/features.0"); "" for a top-level or unscoped name.
std::string scopeOf(const std::string &name) {
    const size_t slash = name.rfind('/');
    return slash == std::string::npos || slash == 0 ? "" : name.substr(0, slash);
}

// Nodes to write and the comments on the others, in the list's order.
struct Sorted {
    std::vector<std::string> written;
    std::vector<std::string> comments;  // "name: why"
};

Sorted sortNodes(const Graph &graph, const SkipList &list, SkipListDialect dialect) {
    Sorted out;
    for (const std::string &name : list.nodes) {
        if (name.empty() || !graph.findNode(name)) {
            out.comments.push_back((name.empty() ? std::string("(unnamed node)") : name) +
                                   ": not a node of the float model");
            continue;
        }
        if (dialect == SkipListDialect::PyTorch) {
            if (pytorchModulePath(name).empty()) {
                out.comments.push_back(
                    name + ": a functional op outside any module; QConfigMapping names modules");
                continue;
            }
            // A module whose scope holds other ops (its own or its submodules') is not this op
            // alone: setting it to None would keep them in fp32 too.
            const std::string scope = scopeOf(name);
            const Node *other = nullptr;
            for (const Node &node : graph.nodes) {
                const std::string theirs = scopeOf(node.name);
                if (node.name != name && (theirs == scope || theirs.rfind(scope + "/", 0) == 0))
                    other = &node;
            }
            if (other) {
                out.comments.push_back(name + ": module '" + pytorchModulePath(name) +
                                       "' also runs " + other->name +
                                       "; setting it to None would keep that in fp32 too");
                continue;
            }
        }
        out.written.push_back(name);
    }
    return out;
}

std::string commentBlock(const Sorted &sorted, const char *prefix) {
    std::string out;
    if (!sorted.comments.empty()) {
        out += std::string(prefix) + " Not expressible here, kept out of the list:\n";
        for (const std::string &c : sorted.comments) out += std::string(prefix) + "   " + c + "\n";
    }
    return out;
}

std::string header(const SkipList &list, const char *prefix, const std::string &what) {
    std::string out = std::string(prefix) + " " + what + " of " + list.model + " to keep in fp32";
    if (!list.origin.empty()) out += " (" + list.origin + ")";
    return out + ".\n";
}

// A 16-bit layer's tensors as ONNX Runtime's TensorQuantOverrides name them (documented in
// quantize_static / get_qdq_config): activation inputs and outputs (and those of the BatchNorm /
// Relu / Clip chain that alone reads the output) QUInt16, a constant weight QInt16 per channel
// with its axis.
std::string ortSixteenBitOverrides(const Graph &graph, const std::vector<std::string> &nodes) {
    std::vector<std::string> entries;
    std::set<std::string> done;
    auto add = [&](const std::string &tensor, const std::string &override) {
        if (!tensor.empty() && done.insert(tensor).second)
            entries.push_back("    " + quoted(tensor) + ": [{" + override + "}],\n");
    };
    const std::string activation = "\"quant_type\": QuantType.QUInt16";
    for (const std::string &name : nodes) {
        const Node *node = graph.findNode(name);
        if (!node) continue;
        for (size_t k = 0; k < node->inputs.size(); ++k) {
            const Tensor *constant = graph.initializer(node->inputs[k]);
            if (!constant) {
                add(node->inputs[k], activation);
            } else if (k == 1 && constant->dtype() == DataType::Float) {
                const int64_t axis = quant::weightAxis(*node, *constant);
                add(node->inputs[k],
                    "\"quant_type\": QuantType.QInt16" +
                        (axis >= 0 ? ", \"axis\": " + std::to_string(axis) : std::string()));
            }
        }
        for (const std::string &out : node->outputs) {
            add(out, activation);
            // The layer as QuantLens quantizes it: a BatchNormalization (folded here) and a Relu
            // / Clip that alone read the output belong to it, and ORT quantizes their outputs.
            std::string value = out;
            for (;;) {
                std::vector<const Node *> readers;
                for (const Node &n : graph.nodes)
                    if (std::find(n.inputs.begin(), n.inputs.end(), value) != n.inputs.end())
                        readers.push_back(&n);
                if (readers.size() != 1 || readers[0]->outputs.empty() ||
                    (readers[0]->opType != "BatchNormalization" && readers[0]->opType != "Relu" &&
                     readers[0]->opType != "Clip"))
                    break;
                value = readers[0]->outputs[0];
                add(value, activation);
            }
        }
    }
    std::string out = "\n# 16-bit layers (uint16 activations, int16 weights):\n";
    for (const std::string &name : nodes) out += "#   " + name + "\n";
    out += "tensor_quant_overrides = {\n";
    for (const std::string &e : entries) out += e;
    out += "}\nextra_options = {\"TensorQuantOverrides\": tensor_quant_overrides";
    // Below opset 21 ONNX has no 16-bit Q/DQ: ORT then writes its own (get_qdq_config does so).
    if (graph.opsetVersion < 21) out += ", \"UseQDQContribOps\": True";
    return out + "}\n";
}

// The 16-bit layers a dialect cannot express, as a comment.
std::string sixteenBitComment(const std::vector<std::string> &nodes, const char *prefix) {
    if (nodes.empty()) return "";
    std::string out = std::string(prefix) + " 16-bit layers (not expressible here):\n";
    for (const std::string &name : nodes) out += std::string(prefix) + "   " + name + "\n";
    return out;
}

}  // namespace

const char *skipListDialectName(SkipListDialect dialect) {
    switch (dialect) {
        case SkipListDialect::QuantLens:
            return "quantlens";
        case SkipListDialect::Ort:
            return "ort";
        case SkipListDialect::Nncf:
            return "nncf";
        case SkipListDialect::PyTorch:
            return "pytorch";
        case SkipListDialect::Inc:
            return "inc";
        case SkipListDialect::Trt:
            return "trt";
    }
    return "quantlens";
}

bool parseSkipListDialect(const std::string &text, SkipListDialect &out) {
    for (auto d : {SkipListDialect::QuantLens, SkipListDialect::Ort, SkipListDialect::Nncf,
                   SkipListDialect::PyTorch, SkipListDialect::Inc, SkipListDialect::Trt})
        if (text == skipListDialectName(d)) {
            out = d;
            return true;
        }
    return false;
}

std::string pytorchModulePath(const std::string &nodeName) {
    const std::string scope = scopeOf(nodeName);
    if (scope.empty()) return "";
    // Each scope component is the module's qualified name from its last non-numeric atom on
    // ("features.0", "bn1", "layer1.0"): a numeric tail continues the path of the ancestor that
    // ends with that atom, a plain name is a child of the current module.
    std::vector<std::string> path;
    for (const std::string &component : splitText(scope.substr(1), '/')) {
        const std::vector<std::string> atoms = splitText(component, '.');
        if (atoms.empty()) continue;
        bool tail = atoms.size() > 1;
        for (size_t i = 1; i < atoms.size(); ++i) tail = tail && numeric(atoms[i]);
        if (tail) {
            while (!path.empty() && numeric(path.back())) path.pop_back();
            if (!path.empty() && path.back() == atoms[0]) path.pop_back();
            for (const std::string &atom : atoms) path.push_back(atom);
        } else {
            for (const std::string &atom : atoms) path.push_back(atom);
        }
    }
    std::string out;
    for (const std::string &atom : path) out += (out.empty() ? "" : ".") + atom;
    return out;
}

std::string formatSkipList(const Graph &floatGraph, const SkipList &list, SkipListDialect dialect) {
    const Sorted sorted = sortNodes(floatGraph, list, dialect);
    // 16-bit layers: checked against the float model like the fp32 ones (module rules aside).
    SkipList sixteenBitList = list;
    sixteenBitList.nodes = list.int16Nodes;
    const Sorted sixteen = sortNodes(floatGraph, sixteenBitList, SkipListDialect::QuantLens);
    std::string out;
    switch (dialect) {
        case SkipListDialect::QuantLens: {
            out = "{\n    \"model\": " + quoted(list.model) +
                  ",\n    \"fp32_nodes\": " + quotedList(sorted.written, "    ");
            if (!sixteen.written.empty())
                out += ",\n    \"int16_nodes\": " + quotedList(sixteen.written, "    ");
            out += ",\n    \"reason\": {";
            bool first = true;
            for (const std::string &name : sorted.written) {
                auto why = list.reasons.find(name);
                if (why == list.reasons.end()) continue;
                out += std::string(first ? "\n" : ",\n") + "        " + quoted(name) + ": " +
                       quoted(why->second);
                first = false;
            }
            out += first ? "}\n}\n" : "\n    }\n}\n";
            return out;  // JSON has no comments: unknown names were left out (load it to see which)
        }
        case SkipListDialect::Ort:
            out = header(list, "#", "Nodes") + commentBlock(sorted, "#") +
                  commentBlock(sixteen, "#") +
                  (sixteen.written.empty()
                       ? "from onnxruntime.quantization import quantize_static\n\n"
                       : "from onnxruntime.quantization import QuantType, quantize_static\n\n") +
                  "nodes_to_exclude = " + quotedList(sorted.written, "");
            if (sixteen.written.empty())
                return out +
                       "\n\n# quantize_static(float_model_path, quant_model_path, "
                       "calibration_data_reader,\n"
                       "#                 nodes_to_exclude=nodes_to_exclude)\n";
            return out + "\n" + ortSixteenBitOverrides(floatGraph, sixteen.written) +
                   "\n# quantize_static(float_model_path, quant_model_path, "
                   "calibration_data_reader,\n"
                   "#                 nodes_to_exclude=nodes_to_exclude, "
                   "extra_options=extra_options)\n";
        case SkipListDialect::Nncf:
            out = header(list, "#", "Nodes") + commentBlock(sorted, "#") +
                  sixteenBitComment(sixteen.written, "#") +
                  "import nncf\n\nignored_scope = nncf.IgnoredScope(names=" +
                  quotedList(sorted.written, "") +
                  ")\n\n# quantized = nncf.quantize(model, calibration_dataset, "
                  "ignored_scope=ignored_scope)\n";
            return out;
        case SkipListDialect::PyTorch: {
            out = header(list, "#", "Modules") + commentBlock(sorted, "#") +
                  sixteenBitComment(sixteen.written, "#") +
                  // The default mapping, not a bare global qconfig: prepare_fx refuses Sigmoid,
                  // Tanh, ... (fixed-qparams ops) without their own observers.
                  "from torch.ao.quantization import get_default_qconfig_mapping\n\n"
                  "qconfig_mapping = get_default_qconfig_mapping(\"fbgemm\")  # or your "
                  "backend's\n";
            std::set<std::string> done;
            for (const std::string &name : sorted.written) {
                const std::string module = pytorchModulePath(name);
                if (!done.insert(module).second) continue;
                out += "qconfig_mapping.set_module_name(" + quoted(module) + ", None)  # " + name +
                       "\n";
            }
            return out +
                   "\n# prepared = torch.ao.quantization.quantize_fx.prepare_fx(model, "
                   "qconfig_mapping, example_inputs)\n";
        }
        case SkipListDialect::Inc: {
            out =
                header(list, "#", "Ops") + commentBlock(sorted, "#") +
                sixteenBitComment(sixteen.written, "#") +
                "from neural_compressor.config import PostTrainingQuantConfig\n\nop_name_dict = {";
            for (size_t i = 0; i < sorted.written.size(); ++i)
                out += std::string(i ? ",\n" : "\n") + "    " + quoted(sorted.written[i]) +
                       ": {\"activation\": {\"dtype\": [\"fp32\"]}, \"weight\": {\"dtype\": "
                       "[\"fp32\"]}}";
            out += sorted.written.empty() ? "}\n" : "\n}\n";
            return out + "\nconfig = PostTrainingQuantConfig(op_name_dict=op_name_dict)\n";
        }
        case SkipListDialect::Trt: {
            out = header(list, "#", "Layers") + commentBlock(sorted, "#") +
                  sixteenBitComment(sixteen.written, "#") + "trtexec --onnx=" + list.model +
                  " --int8 ";
            std::string precisions;
            for (const std::string &name : sorted.written)
                precisions += (precisions.empty() ? "" : ",") + name + ":fp32";
            // Single quotes keep the shell from reading the names; a quote inside one is closed and
            // escaped.
            std::string shellQuoted = "'";
            for (char c : precisions)
                shellQuoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
            shellQuoted += "'";
            return out + "--precisionConstraints=obey --layerPrecisions=" + shellQuoted + "\n";
        }
    }
    return out;
}

}  // namespace ql::analysis
