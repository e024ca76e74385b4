#include "quant/calibration_data.h"

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <memory>
#include <system_error>

#include "ir/tensor_checks.h"
#include "onnx_io/npz_file.h"
#include "onnx_io/tensor_file.h"

namespace ql::quant {

namespace fs = std::filesystem;

namespace {

bool isTensorFile(const fs::path &p) {
    std::string ext = p.extension().string();
    std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return ext == ".npy" || ext == ".pb" || ext == ".npz";
}

// Rows [first, first + count) of a plain tensor along dim 0.
Tensor sliceBatch(const Tensor &t, int64_t first, int64_t count) {
    Shape shape = t.shape();
    const int64_t rowBytes = static_cast<int64_t>(t.byteSize()) / std::max<int64_t>(shape[0], 1);
    shape[0] = count;
    Tensor out(t.dtype(), shape);
    std::memcpy(out.rawData(), static_cast<const char *>(t.rawData()) + first * rowBytes,
                static_cast<size_t>(count * rowBytes));
    return out;
}

// Plain tensors of equal sample shape, stacked along dim 0.
Tensor concatBatches(const std::vector<Tensor> &parts) {
    Shape shape = parts[0].shape();
    shape[0] = 0;
    for (const Tensor &p : parts) shape[0] += p.dim(0);
    Tensor out(parts[0].dtype(), shape);
    char *dst = static_cast<char *>(out.rawData());
    for (const Tensor &p : parts) {
        std::memcpy(dst, p.rawData(), p.byteSize());
        dst += p.byteSize();
    }
    return out;
}

}  // namespace

Result<std::vector<std::string>> listCalibrationFiles(const std::vector<std::string> &paths) {
    std::vector<std::string> files;
    for (const std::string &path : paths) {
        std::error_code ec;
        const fs::path p(path);
        if (fs::is_directory(p, ec)) {
            std::vector<std::string> inFolder;
            for (const fs::directory_entry &entry : fs::directory_iterator(p, ec))
                if (entry.is_regular_file(ec) && isTensorFile(entry.path())) inFolder.push_back(entry.path().string());
            if (ec) return Status::badInput(path + ": cannot list folder: " + ec.message());
            std::sort(inFolder.begin(), inFolder.end());
            if (inFolder.empty())
                return Status::badInput(path + ": folder holds no .npy, .npz or .pb files");
            files.insert(files.end(), inFolder.begin(), inFolder.end());
        } else if (fs::is_regular_file(p, ec)) {
            if (!isTensorFile(p))
                return Status::badInput(path + ": input files must be .npy, .npz or .pb");
            files.push_back(path);
        } else {
            return Status::badInput(path + ": no such file or folder");
        }
    }
    if (files.empty()) return Status::badInput("no calibration files given");
    return files;
}

namespace {

bool isNpy(const std::string &path) { return path.size() >= 4 && path.compare(path.size() - 4, 4, ".npy") == 0; }

// Whether a tensor of this rank is one sample (rank one below the input's) rather than a batch.
bool isSingleSample(size_t rank, const ValueInfo &input) {
    return input.hasShape && rank + 1 == input.shape.size();
}

// Rows [first, first + count) of the file as stored (count < 0: all), read without loading the
// rest of a .npy file.
Result<Tensor> readRows(const std::string &path, const ValueInfo &input, int64_t first, int64_t count,
                        std::shared_ptr<Storage> *reuse) {
    if (isNpy(path)) {
        auto header = readNpyHeader(path);
        if (!header) return header.status();
        if (header->shape.empty() || isSingleSample(header->shape.size(), input)) return readNpy(path);
        return readNpyRows(path, *header, first, count < 0 ? header->shape[0] - first : count, reuse);
    }
    auto read = readTensorFile(path);
    if (!read) return read.status();
    Tensor t = read.value().toPlain();
    if (t.rank() == 0 || isSingleSample(static_cast<size_t>(t.rank()), input) || (first == 0 && count < 0)) return t;
    return sliceBatch(t, first, count < 0 ? t.dim(0) - first : count);
}

}  // namespace

Result<int64_t> countCalibrationSamples(const std::string &path, const ValueInfo &input) {
    Shape shape;
    if (isNpy(path)) {
        auto header = readNpyHeader(path);
        if (!header) return header.status();
        shape = header->shape;
    } else {
        auto read = readTensorFile(path);
        if (!read) return read.status();
        shape = read.value().shape();
    }
    if (shape.empty() || isSingleSample(shape.size(), input)) return int64_t{1};
    return shape[0];
}

Result<Tensor> readCalibrationTensor(const std::string &path, const ValueInfo &input, int64_t first, int64_t count,
                                     std::shared_ptr<Storage> *reuse) {
    auto read = readRows(path, input, first, count, reuse);
    if (!read) return read.status();
    return fitToInput(read.value(), input, path);
}

Result<Tensor> fitToInput(Tensor t, const ValueInfo &input, const std::string &where) {
    QL_RETURN_IF_ERROR(checkFinite(t, where + " (input '" + input.name + "')"));
    const DataType want = input.dtype == DataType::Undefined ? DataType::Float : input.dtype;
    if (want == DataType::Float && t.dtype() == DataType::Double) {
        Tensor f(DataType::Float, t.shape());
        const std::vector<float> values = t.toFloatVector();
        std::copy(values.begin(), values.end(), f.data<float>());
        t = f;
    }
    if (input.hasShape) {
        const int rank = static_cast<int>(input.shape.size());
        if (t.rank() == rank - 1) {
            Shape batched = t.shape();
            batched.insert(batched.begin(), 1);
            t = t.reshaped(batched);
        } else if (t.rank() != rank) {
            return Status::badInput(where + ": shape " + shapeToString(t.shape()) + " has rank " +
                                    std::to_string(t.rank()) + ", input '" + input.name +
                                    "' needs rank " + std::to_string(rank) + " (a batch) or " +
                                    std::to_string(rank - 1) + " (one sample)");
        }
        // The batch dim is checked by the source (it may split); the others must match.
        ValueInfo sampleShape = input;
        if (rank > 0) sampleShape.shape[0] = -1;
        QL_RETURN_IF_ERROR(checkInputMatches(sampleShape, t).withContext(where));
    } else if (input.dtype != DataType::Undefined && t.dtype() != input.dtype) {
        return Status::badInput(where + ": input '" + input.name + "': expected " +
                                dataTypeName(input.dtype) + ", got " + dataTypeName(t.dtype()));
    }
    return t;
}

bool isNpz(const std::string &path) {
    std::string ext = fs::path(path).extension().string();
    std::transform(ext.begin(), ext.end(), ext.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return ext == ".npz";
}

namespace {

// One .npz file: the batch of every model input, by array name (a model with one input also
// takes a lone array of any name).
Result<std::map<std::string, Tensor>> readNpzBatch(const std::vector<ValueInfo> &inputs,
                                                   const std::string &path) {
    auto arrays = readNpz(path);
    if (!arrays) return arrays.status();
    std::map<std::string, Tensor> batch;
    int64_t rows = -1;
    for (const ValueInfo &input : inputs) {
        const NpzArray *found = nullptr;
        for (const NpzArray &a : *arrays)
            if (a.name == input.name) found = &a;
        if (!found && inputs.size() == 1 && arrays->size() == 1) found = &arrays->front();
        if (!found) {
            std::string names;
            for (const NpzArray &a : *arrays) names += (names.empty() ? "" : ", ") + a.name;
            return Status::badInput(path + ": no array named '" + input.name + "' (it holds " +
                                    names + ")");
        }
        auto fitted = fitToInput(found->tensor.toPlain(), input, path + ": " + found->name);
        if (!fitted) return fitted.status();
        const int64_t n = fitted->rank() == 0 ? 1 : fitted->dim(0);
        if (rows >= 0 && n != rows)
            return Status::badInput(path + ": arrays hold " + std::to_string(rows) + " and " +
                                    std::to_string(n) +
                                    " samples; every input needs the same number");
        rows = n;
        batch[input.name] = std::move(*fitted);
    }
    return batch;
}

// .npz files, each one batch of every input.
BatchSource npzBatchSource(const Graph &graph, std::vector<std::string> files) {
    auto next = std::make_shared<size_t>(0);
    auto shared = std::make_shared<const std::vector<std::string>>(std::move(files));
    return BatchSource([inputs = graph.inputs, next,
                        shared](std::map<std::string, Tensor> &batch) -> Result<bool> {
        if (*next >= shared->size()) return false;
        auto read = readNpzBatch(inputs, (*shared)[(*next)++]);
        if (!read) return read.status();
        batch = std::move(*read);
        return true;
    });
}

}  // namespace

Result<BatchSource> fileBatchSource(const Graph &graph, std::vector<std::string> files, int64_t batchSize) {
    const bool npz = !files.empty() && std::all_of(files.begin(), files.end(), isNpz);
    if (npz) return npzBatchSource(graph, std::move(files));
    for (const std::string &file : files)
        if (isNpz(file))
            return Status::badInput(
                file + ": .npz files hold every input; do not mix them with .npy / .pb files");
    if (graph.inputs.size() != 1) {
        return Status::badInput(
            graph.sourcePath + ": .npy / .pb files feed a model with one input, this one has " +
            std::to_string(graph.inputs.size()) +
            " (give .npz files with one array per input, or --data NAME=PATH per input)");
    }
    return inputBatchSource(graph.inputs[0], std::move(files), batchSize);
}

Result<BatchSource> inputBatchSource(const ValueInfo &input, std::vector<std::string> files,
                                     int64_t batchSize) {
    struct State {
        ValueInfo input;
        std::vector<std::string> files;
        size_t nextFile = 0;
        std::string currentPath;  // the file being read, "" between files
        int64_t samples = 0, offset = 0;
        std::shared_ptr<Storage> buffer;  // the last batch's, read into again once it is free
    };
    auto state = std::make_shared<State>();
    state->input = input;
    state->files = std::move(files);
    const int64_t fixedBatch = state->input.hasShape && !state->input.shape.empty() ? state->input.shape[0] : -1;
    // A fixed batch dim decides; otherwise batchSize samples per batch, or each file as it is.
    const int64_t wanted = fixedBatch > 0 ? fixedBatch : batchSize;

    return BatchSource([state, fixedBatch, wanted](std::map<std::string, Tensor> &batch) -> Result<bool> {
        State &s = *state;
        std::vector<Tensor> parts;
        int64_t collected = 0;
        while (wanted <= 0 ? parts.empty() : collected < wanted) {
            if (s.currentPath.empty()) {
                if (s.nextFile >= s.files.size()) break;
                s.currentPath = s.files[s.nextFile++];
                auto count = countCalibrationSamples(s.currentPath, s.input);
                if (!count) return count.status();
                s.samples = *count;
                s.offset = 0;
                if (fixedBatch > 0 && s.samples % fixedBatch != 0) {
                    const std::string path = s.currentPath;
                    s.currentPath.clear();
                    return Status::badInput(path + ": " + std::to_string(s.samples) +
                                            " samples, not a multiple of input '" + s.input.name +
                                            "' batch size " + std::to_string(fixedBatch));
                }
                if (s.samples == 0) {
                    s.currentPath.clear();
                    continue;
                }
            }
            const int64_t take = wanted <= 0 ? s.samples : std::min(wanted - collected, s.samples - s.offset);
            auto part = readCalibrationTensor(s.currentPath, s.input, s.offset, take,
                                              wanted > 0 && take == wanted ? &s.buffer : nullptr);
            if (!part) return part.status();
            parts.push_back(std::move(*part));
            collected += take;
            s.offset += take;
            if (s.offset >= s.samples) s.currentPath.clear();
        }
        if (parts.empty()) return false;
        batch[s.input.name] = parts.size() == 1 ? parts[0] : concatBatches(parts);
        return true;
    });
}

}  // namespace ql::quant
