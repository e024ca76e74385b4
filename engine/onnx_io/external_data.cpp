#include "onnx_io/external_data.h"

#include <filesystem>
#include <fstream>

namespace ql {

namespace fs = std::filesystem;

namespace {

// True when `candidate` (already normalised) lies inside `folder`.
bool isInside(const fs::path &folder, const fs::path &candidate) {
    auto f = folder.begin();
    auto c = candidate.begin();
    for (; f != folder.end(); ++f, ++c) {
        if (f->empty()) continue;  // trailing separator
        if (c == candidate.end() || *f != *c) return false;
    }
    return true;
}

bool parseCount(const std::string &text, int64_t *value) {
    const bool digitsOnly = text.find_first_not_of("0123456789") == std::string::npos;
    if (text.empty() || !digitsOnly || text.size() > 18) return false;  // 18 digits fit int64
    *value = std::stoll(text);
    return true;
}

Status loadOne(onnx::TensorProto &tensor, const fs::path &baseDir) {
    const std::string what = "tensor '" + tensor.name() + "'";
    std::string location;
    int64_t offset = 0, length = -1;
    for (const auto &entry : tensor.external_data()) {
        if (entry.key() == "location") {
            location = entry.value();
        } else if ((entry.key() == "offset" && !parseCount(entry.value(), &offset)) ||
                   (entry.key() == "length" && !parseCount(entry.value(), &length))) {
            return Status::badInput(what + ": external data " + entry.key() + " '" + entry.value() +
                                    "' is not a valid byte count");
        }
    }
    if (location.empty()) return Status::badInput(what + ": external data has no location");
    const fs::path relative(location);
    if (relative.is_absolute())
        return Status::badInput(what + ": external data path '" + location + "' is absolute; only paths relative to the model's folder are allowed");
    if (baseDir.empty())
        return Status::badInput(what + ": external data '" + location + "' needs the model's folder, which is unknown");
    const fs::path folder = fs::weakly_canonical(baseDir);
    const fs::path full = fs::weakly_canonical(folder / relative);
    if (!isInside(folder, full))
        return Status::badInput(what + ": external data path '" + location + "' leaves the model's folder");
    std::error_code ec;
    if (fs::is_directory(full, ec))
        return Status::badInput(what + ": external data path '" + location + "' is a folder");
    std::ifstream in(full, std::ios::binary);
    if (!in) return Status::badInput(what + ": cannot open external data file '" + location + "'");
    in.seekg(0, std::ios::end);
    const int64_t size = static_cast<int64_t>(in.tellg());
    if (offset < 0 || offset > size || (length >= 0 && length > size - offset))
        return Status::badInput(what + ": external data range is outside '" + location + "' (" + std::to_string(size) + " bytes)");
    if (length < 0) length = size - offset;
    std::string bytes(static_cast<size_t>(length), '\0');
    in.seekg(offset);
    in.read(bytes.data(), length);
    if (!in) return Status::badInput(what + ": cannot read external data from '" + location + "'");
    tensor.set_raw_data(std::move(bytes));
    tensor.clear_external_data();
    tensor.set_data_location(onnx::TensorProto::DEFAULT);
    return Status::ok();
}

Status resolveGraph(onnx::GraphProto &graph, const fs::path &baseDir) {
    for (auto &init : *graph.mutable_initializer())
        if (init.data_location() == onnx::TensorProto::EXTERNAL) QL_RETURN_IF_ERROR(loadOne(init, baseDir));
    for (auto &node : *graph.mutable_node()) {
        for (auto &attr : *node.mutable_attribute()) {
            if (attr.has_t() && attr.t().data_location() == onnx::TensorProto::EXTERNAL)
                QL_RETURN_IF_ERROR(loadOne(*attr.mutable_t(), baseDir));
            if (attr.has_g()) QL_RETURN_IF_ERROR(resolveGraph(*attr.mutable_g(), baseDir));
        }
    }
    return Status::ok();
}

}  // namespace

Status resolveExternalData(onnx::ModelProto &model, const std::string &baseDir) {
    try {
        return resolveGraph(*model.mutable_graph(), baseDir);
    } catch (const std::exception &e) {  // filesystem errors
        return Status::badInput(std::string("external data: ") + e.what());
    }
}

}  // namespace ql
