#include "image_dataset.h"

#include <QImage>
#include <QImageReader>
#include <QtGlobal>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <future>
#include <map>
#include <memory>
#include <mutex>
#include <sstream>
#include <thread>

#include "analysis/session/analysis_session.h"
#include "core/text.h"

namespace ql::ui {
namespace {

namespace fs = std::filesystem;

std::string lower(std::string s) {
    std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
    return s;
}

// A folder's images, recursively: each folder's own files by name, then its subfolders by name
// (os.walk's order, sorted).
void collectImages(const fs::path &folder, std::vector<std::string> &out) {
    std::vector<fs::path> files, folders;
    std::error_code error;
    for (const auto &entry : fs::directory_iterator(folder, error)) {
        if (entry.is_directory(error))
            folders.push_back(entry.path());
        else if (isImageFile(entry.path().string()))
            files.push_back(entry.path());
    }
    std::sort(files.begin(), files.end());
    std::sort(folders.begin(), folders.end());
    for (const fs::path &f : files) out.push_back(f.string());
    for (const fs::path &f : folders) collectImages(f, out);
}

// Whether a folder has an image at any depth: stops at the first one rather than listing all.
bool holdsImages(const fs::path &folder) {
    std::error_code error;
    for (fs::recursive_directory_iterator it(folder, error), end; !error && it != end;
         it.increment(error))
        if (!it->is_directory(error) && isImageFile(it->path().string())) return true;
    return false;
}

std::string shapeText(const Shape &shape) {
    std::string text = "[";
    for (size_t i = 0; i < shape.size(); ++i)
        text += (i ? "," : "") + (shape[i] < 0 ? std::string("?") : std::to_string(shape[i]));
    return text + "]";
}

// A label token: a class index, or a class name when the dataset has classes.
Result<int64_t> parseLabel(const std::string &token, const analysis::DataFiles &dataset,
                           const std::string &where) {
    const auto it = std::find(dataset.classes.begin(), dataset.classes.end(), token);
    if (it != dataset.classes.end()) return int64_t(it - dataset.classes.begin());
    char *end = nullptr;
    const long long value = std::strtoll(token.c_str(), &end, 10);
    if (token.empty() || *end != '\0' || value < 0)
        return Status::badInput(where + ": '" + token + "' is neither a class index nor a class" +
                                (dataset.classes.empty() ? "" : " folder name"));
    if (!dataset.classes.empty() && value >= int64_t(dataset.classes.size()))
        return Status::badInput(where + ": class " + token + " of " +
                                std::to_string(dataset.classes.size()) + " classes");
    return int64_t(value);
}

// Labels files may have CRLF lines and quoted CSV fields.
std::string trimmed(const std::string &s) {
    return trimmedText(s, " \t\r\"");
}

// Qt's image plugins print libpng's and libjpeg's complaints ("libpng error: Read Error") before
// the read fails: the failure's own one line names the file and says the same.
QtMessageHandler g_standardMessages = nullptr;

void quietDecoderMessages(QtMsgType type, const QMessageLogContext &context,
                          const QString &message) {
    if (message.startsWith(QLatin1String("libpng ")) ||
        message.startsWith(QLatin1String("libjpeg")))
        return;
    if (g_standardMessages)
        g_standardMessages(type, context, message);
    else
        std::fprintf(stderr, "%s\n", qPrintable(message));
}

// A PNG must end with its IEND chunk and a JPEG with its end-of-image marker (after at most a
// little padding). Checked before decoding: libpng prints its own error for a cut-off file, and
// libjpeg fills the missing rows with grey where PIL refuses the file.
std::string truncation(const std::string &path) {
    std::ifstream in(path, std::ios::binary | std::ios::ate);
    const std::streamoff size = in.tellg();
    if (size < 8) return "";  // too short to tell: the decoder says what is wrong
    char head[8] = {};
    in.seekg(0);
    in.read(head, sizeof head);
    const std::streamoff tailSize = std::min<std::streamoff>(size, 64);
    std::string tail(size_t(tailSize), '\0');
    in.seekg(size - tailSize);
    in.read(tail.data(), tailSize);
    if (std::memcmp(head, "\x89PNG\r\n\x1a\n", 8) == 0)
        return tail.find("IEND") == std::string::npos ? "truncated PNG (no IEND chunk)" : "";
    if (static_cast<unsigned char>(head[0]) == 0xFF && static_cast<unsigned char>(head[1]) == 0xD8)
        return tail.find("\xFF\xD9") == std::string::npos
                   ? "truncated JPEG (no end-of-image marker)"
                   : "";
    return "";
}

}  // namespace

bool isImageFile(const std::string &path) {
    const std::string extension = lower(fs::path(path).extension().string());
    return extension == ".png" || extension == ".jpg" || extension == ".jpeg" ||
           extension == ".bmp" || extension == ".webp";
}

bool pathsHoldImages(const std::vector<std::string> &paths) {
    std::error_code error;
    for (const std::string &path : paths) {
        if (fs::is_directory(path, error) ? holdsImages(path) : isImageFile(path)) return true;
    }
    return false;
}

Result<quant::DecodedImage> decodeImage(const std::string &path) {
    static std::once_flag quiet;
    std::call_once(quiet,
                   [] { g_standardMessages = qInstallMessageHandler(quietDecoderMessages); });
    if (const std::string cut = truncation(path); !cut.empty())
        return Status::badInput(path + ": " + cut);
    QImageReader reader(QString::fromStdString(path));
    reader.setAutoTransform(false);  // PIL does not apply EXIF orientation either
    QImage image = reader.read();
    if (image.isNull())
        return Status::badInput(path + ": cannot read the image (" +
                                reader.errorString().toStdString() + ")");
    quant::DecodedImage out;
    out.width = image.width();
    out.height = image.height();
    const bool sixteen = image.format() == QImage::Format_Grayscale16 ||
                         image.format() == QImage::Format_RGBX64 ||
                         image.format() == QImage::Format_RGBA64 ||
                         image.format() == QImage::Format_RGBA64_Premultiplied;
    const bool gray = image.isGrayscale();
    out.channels = gray ? 1 : 3;
    const size_t rowValues = size_t(out.width) * out.channels;
    if (sixteen) {
        image = image.convertToFormat(gray ? QImage::Format_Grayscale16 : QImage::Format_RGBX64);
        out.pixels16.resize(rowValues * out.height);
        for (int y = 0; y < out.height; ++y) {
            const auto *row = reinterpret_cast<const uint16_t *>(image.constScanLine(y));
            uint16_t *dst = &out.pixels16[size_t(y) * rowValues];
            if (gray) {
                std::memcpy(dst, row, rowValues * sizeof(uint16_t));
            } else {
                for (int x = 0; x < out.width; ++x)  // R, G, B, X
                    for (int c = 0; c < 3; ++c) dst[x * 3 + c] = row[x * 4 + c];
            }
        }
        return out;
    }
    // Alpha is dropped, not composited: RGB888 of a non-premultiplied image keeps the colours.
    image = image.convertToFormat(gray ? QImage::Format_Grayscale8 : QImage::Format_RGB888);
    out.pixels8.resize(rowValues * out.height);
    for (int y = 0; y < out.height; ++y)
        std::memcpy(&out.pixels8[size_t(y) * rowValues], image.constScanLine(y), rowValues);
    return out;
}

Result<analysis::DataFiles> listImages(const std::vector<std::string> &paths) {
    analysis::DataFiles dataset;
    dataset.images = true;
    std::error_code error;
    for (const std::string &path : paths) {
        if (fs::is_directory(path, error)) {
            collectImages(path, dataset.files);
        } else if (fs::exists(path, error)) {
            if (!isImageFile(path))
                return Status::badInput(path + ": not an image (.png, .jpg, .jpeg, .bmp, .webp)");
            dataset.files.push_back(path);
        } else {
            return Status::badInput(path + ": no such file or folder");
        }
    }
    if (dataset.files.empty())
        return Status::badInput("no images in " +
                                (paths.empty() ? std::string("(nothing)") : paths[0]));
    // ImageFolder: one folder, every image inside a class subfolder.
    if (paths.size() == 1 && fs::is_directory(paths[0], error)) {
        // Every subfolder is a class, as ImageFolder counts them (an empty one too), so class
        // indices agree with torchvision's.
        std::vector<std::string> classes;
        for (const auto &entry : fs::directory_iterator(paths[0], error))
            if (entry.is_directory(error)) classes.push_back(entry.path().filename().string());
        std::sort(classes.begin(), classes.end());
        const fs::path root(paths[0]);
        std::vector<int64_t> labels;
        for (const std::string &file : dataset.files) {
            const fs::path relative = fs::path(file).lexically_relative(root);
            if (relative.begin() == relative.end() || std::next(relative.begin()) == relative.end())
                return dataset;  // an image beside the class folders: no ImageFolder
            const auto it = std::find(classes.begin(), classes.end(), relative.begin()->string());
            labels.push_back(int64_t(it - classes.begin()));
        }
        // ImageFolder lists class by class; collectImages gave folder order, which is the same.
        dataset.labels = std::move(labels);
        dataset.classes = std::move(classes);
        dataset.labelsFrom = "folders";
    }
    return dataset;
}

Result<std::vector<int64_t>> readImageLabels(const std::string &path,
                                             const analysis::DataFiles &dataset) {
    const std::string extension = lower(fs::path(path).extension().string());
    std::vector<int64_t> labels;
    if (extension == ".npy") {
        auto read = analysis::readLabelsFile(path);
        if (!read) return read.status();
        labels = std::move(*read);
    } else {
        std::ifstream in(path);
        if (!in) return Status::badInput(path + ": cannot open the labels file");
        const bool csv = extension == ".csv";
        // CSV rows are matched to files by path as listed, else by file name.
        std::map<std::string, int64_t> byFile;
        std::string line;
        int lineNumber = 0;
        while (std::getline(in, line)) {
            ++lineNumber;
            if (trimmed(line).empty()) continue;
            const std::string where = path + ":" + std::to_string(lineNumber);
            if (!csv) {
                auto label = parseLabel(trimmed(line), dataset, where);
                if (!label) return label.status();
                labels.push_back(*label);
                continue;
            }
            const auto comma = line.rfind(',');
            if (comma == std::string::npos)
                return Status::badInput(where + ": expected file,label");
            const std::string file = trimmed(line.substr(0, comma)),
                              token = trimmed(line.substr(comma + 1));
            auto label = parseLabel(token, dataset, where);
            if (!label) {
                if (lineNumber == 1) continue;  // a header row
                return label.status();
            }
            byFile[file] = *label;
        }
        if (csv) {
            for (const std::string &file : dataset.files) {
                auto it = byFile.find(file);
                if (it == byFile.end()) it = byFile.find(fs::path(file).filename().string());
                if (it == byFile.end()) return Status::badInput(path + ": no label for " + file);
                labels.push_back(it->second);
            }
        }
    }
    if (labels.size() != dataset.files.size())
        return Status::badInput(path + ": " + std::to_string(labels.size()) + " labels for " +
                                std::to_string(dataset.files.size()) + " images");
    return labels;
}

namespace {

// The sample dims `input` takes (a free dim: any).
bool fitsInput(const Shape &sample, const ValueInfo &input) {
    if (!input.hasShape) return true;
    bool fits = input.shape.size() == sample.size() + 1;
    for (size_t d = 0; fits && d < sample.size(); ++d)
        fits = input.shape[d + 1] < 0 || input.shape[d + 1] == sample[d];
    return fits;
}

Status shapeMismatch(const std::string &file, const Shape &sample, const ValueInfo &input) {
    return Status::badInput(
        file + ": preprocessed to " + shapeText(sample) + ", input '" + input.name + "' takes " +
        shapeText(Shape(input.shape.begin() + (input.shape.empty() ? 0 : 1), input.shape.end())) +
        " per sample (see --preprocess: resize, crop, color, layout)");
}

// One file decoded, preprocessed and checked against the input's fixed sample dims.
Result<Tensor> loadImageSample(const std::string &file, const quant::PreprocessSpec &spec,
                               const ValueInfo &input) {
    auto image = decodeImage(file);
    if (!image) return image.status();
    auto sample = quant::preprocessImage(*image, spec, file);
    if (!sample) return sample.status();
    if (!fitsInput(sample->shape(), input)) return shapeMismatch(file, sample->shape(), input);
    return sample;
}

// work(i) for i in [0, count), spread over `threads` threads (this one included).
void forEachIndex(size_t count, int threads, const std::function<void(size_t)> &work) {
    auto stride = [&](size_t from) {
        for (size_t i = from; i < count; i += size_t(threads)) work(i);
    };
    std::vector<std::thread> pool;
    for (int t = 1; t < threads && size_t(t) < count; ++t) pool.emplace_back(stride, size_t(t));
    stride(0);
    for (std::thread &t : pool) t.join();
}

}  // namespace

std::vector<analysis::SkippedFile> dropBadImages(analysis::DataFiles &listed, const quant::PreprocessSpec &spec,
                                    const ValueInfo &input, int threads) {
    std::vector<std::string> reasons(listed.files.size());
    forEachIndex(listed.files.size(), std::max(threads, 1), [&](size_t i) {
        auto sample = loadImageSample(listed.files[i], spec, input);
        if (!sample) reasons[i] = sample.status().message();
    });
    std::vector<analysis::SkippedFile> bad;
    analysis::DataFiles kept = listed;
    kept.files.clear();
    kept.labels.clear();
    for (size_t i = 0; i < listed.files.size(); ++i) {
        if (!reasons[i].empty()) {
            bad.push_back({listed.files[i], reasons[i]});
            continue;
        }
        kept.files.push_back(listed.files[i]);
        if (i < listed.labels.size()) kept.labels.push_back(listed.labels[i]);
    }
    listed = std::move(kept);
    return bad;
}

Result<quant::BatchSource> imageBatchSource(const ValueInfo &input, std::vector<std::string> files,
                                            quant::PreprocessSpec spec, int64_t batchSize,
                                            int threads) {
    if (input.hasShape && input.shape.size() >= 1 && input.shape[0] > 0)
        batchSize = input.shape[0];  // a fixed batch dim sets it
    batchSize = std::max<int64_t>(batchSize, 1);
    threads = std::max(threads, 1);
    const DataType wanted =
        spec.dtype == quant::PreprocessSpec::Type::UInt8 ? DataType::UInt8 : DataType::Float;
    if (input.dtype != DataType::Undefined && input.dtype != wanted)
        return Status::badInput("input '" + input.name + "' takes " + dataTypeName(input.dtype) +
                                ", --preprocess gives " + dataTypeName(wanted));

    // One batch: its images decoded and preprocessed by the worker threads, then stacked. The
    // file list is shared, not copied into each batch's task.
    const auto shared = std::make_shared<const std::vector<std::string>>(std::move(files));
    auto makeBatch = [shared, spec, input, wanted, batchSize, threads](size_t first) -> Result<Tensor> {
        const std::vector<std::string> &files = *shared;
        const size_t count = std::min(size_t(batchSize), files.size() - first);
        std::vector<Result<Tensor>> samples(count, Status::badInput("not decoded"));
        forEachIndex(count, threads, [&](size_t i) {
            samples[i] = loadImageSample(files[first + i], spec, input);
        });
        for (auto &sample : samples)
            if (!sample) return sample.status();
        // Free dims must agree within the batch, so the samples stack.
        const Shape &one = samples[0]->shape();
        for (size_t i = 0; i < count; ++i)
            if (samples[i]->shape() != one)
                return shapeMismatch(files[first + i], samples[i]->shape(), input);
        Shape batchShape{int64_t(count)};
        batchShape.insert(batchShape.end(), one.begin(), one.end());
        Tensor batch(wanted, batchShape);
        const size_t bytes = samples[0]->byteSize();
        for (size_t i = 0; i < count; ++i)
            std::memcpy(static_cast<char *>(batch.rawData()) + i * bytes, samples[i]->rawData(),
                        bytes);
        return batch;
    };
    // The next batch is prepared while the caller runs this one.
    struct State {
        size_t next = 0;
        std::future<Result<Tensor>> ahead;
    };
    auto state = std::make_shared<State>();
    const size_t total = shared->size();
    return quant::BatchSource([=](std::map<std::string, Tensor> &batch) -> Result<bool> {
        if (state->next >= total) return false;
        if (!state->ahead.valid())
            state->ahead = std::async(std::launch::async, makeBatch, state->next);
        Result<Tensor> current = state->ahead.get();
        state->next += size_t(batchSize);
        if (state->next < total)
            state->ahead = std::async(std::launch::async, makeBatch, state->next);
        if (!current) return current.status();
        batch.clear();
        batch[input.name] = std::move(*current);
        return true;
    });
}

}  // namespace ql::ui
