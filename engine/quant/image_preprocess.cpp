#include "quant/image_preprocess.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <sstream>

#include "core/text.h"

namespace ql::quant {
namespace {

// PIL's fixed point for 8-bit resampling: coefficients in 22 fractional bits, sums in int32.
constexpr int kPrecisionBits = 32 - 8 - 2;

Status badSpec(const std::string &what) {
    return Status::badInput("--preprocess: " + what);
}

bool parsePositive(const std::string &text, int &out) {
    char *end = nullptr;
    const long value = std::strtol(text.c_str(), &end, 10);
    if (text.empty() || *end != '\0' || value <= 0 || value > 1 << 16) return false;
    out = int(value);
    return true;
}

// "F" or "1/N" (a divisor: ToTensor divides by 255 rather than multiplying by its inverse).
bool parseScale(const std::string &text, PreprocessSpec &spec) {
    char *end = nullptr;
    if (text.rfind("1/", 0) == 0) {
        const double divisor = std::strtod(text.c_str() + 2, &end);
        if (*end != '\0' || !(divisor > 0) || !std::isfinite(divisor)) return false;
        spec.scale = float(1.0 / divisor);
        spec.scaleDivisor = float(divisor);
        return true;
    }
    const double value = std::strtod(text.c_str(), &end);
    if (text.empty() || *end != '\0' || !std::isfinite(value)) return false;
    spec.scale = float(value);
    spec.scaleDivisor = 0.0f;
    return true;
}

bool parseFloats(const std::string &text, std::vector<float> &out) {
    out.clear();
    for (const std::string &part : splitText(text, ':')) {
        char *end = nullptr;
        const double value = std::strtod(part.c_str(), &end);
        if (part.empty() || *end != '\0' || !std::isfinite(value)) return false;
        out.push_back(float(value));
    }
    return out.size() == 1 || out.size() == 3;
}

// "N" (both) or "HxW".
bool parseSize(const std::string &text, int &height, int &width) {
    const auto x = text.find('x');
    if (x == std::string::npos) {
        if (!parsePositive(text, height)) return false;
        width = height;
        return true;
    }
    return parsePositive(text.substr(0, x), height) && parsePositive(text.substr(x + 1), width);
}

std::string floats(const std::vector<float> &values) {
    std::ostringstream out;
    for (size_t i = 0; i < values.size(); ++i) out << (i ? ":" : "") << values[i];
    return out.str();
}

// PIL's bilinear filter, widened by the downscale factor: per output index, the first input
// index and the normalized weights.
struct Coefficients {
    std::vector<int> first, count;
    std::vector<double> weights;  // count[i] per output, packed at i * stride
    std::vector<int> fixed;       // the same in PIL's fixed point
    int stride = 0;
};

Coefficients coefficients(int inSize, int outSize) {
    Coefficients c;
    const double scale = double(inSize) / outSize;
    const double filterScale = std::max(scale, 1.0);
    const double support = 1.0 * filterScale;  // the triangle's support is 1
    c.stride = int(std::ceil(support)) * 2 + 1;
    c.first.resize(outSize);
    c.count.resize(outSize);
    c.weights.assign(size_t(outSize) * c.stride, 0.0);
    c.fixed.assign(c.weights.size(), 0);
    for (int o = 0; o < outSize; ++o) {
        const double centre = (o + 0.5) * scale;
        const int first = std::max(int(centre - support + 0.5), 0);
        const int last = std::min(int(centre + support + 0.5), inSize);
        double total = 0;
        double *w = &c.weights[size_t(o) * c.stride];
        for (int x = 0; x < last - first; ++x) {
            const double t = std::abs((x + first - centre + 0.5) / filterScale);
            w[x] = t < 1.0 ? 1.0 - t : 0.0;
            total += w[x];
        }
        for (int x = 0; x < last - first; ++x) {
            if (total != 0.0) w[x] /= total;
            const double f = w[x] * (1 << kPrecisionBits);
            c.fixed[size_t(o) * c.stride + x] = int(f < 0 ? f - 0.5 : f + 0.5);
        }
        c.first[o] = first;
        c.count[o] = last - first;
    }
    return c;
}

// A planar working image: channels of height x width values at 8-bit scale.
struct Planes {
    int width = 0, height = 0, channels = 0;
    bool eightBit = true;  // values are whole numbers 0..255 (PIL's 8-bit path)
    std::vector<float> values;
    float &at(int c, int y, int x) { return values[(size_t(c) * height + y) * width + x]; }
    float at(int c, int y, int x) const { return values[(size_t(c) * height + y) * width + x]; }
};

uint8_t clip8(int64_t sum) {
    if (sum <= 0) return 0;
    const int64_t value = sum >> kPrecisionBits;
    return value > 255 ? 255 : uint8_t(value);
}

// One pass along x (horizontal) or y.
Planes resample(const Planes &in, int outSize, bool horizontal) {
    const int inSize = horizontal ? in.width : in.height;
    const Coefficients k = coefficients(inSize, outSize);
    Planes out = in;
    (horizontal ? out.width : out.height) = outSize;
    out.values.assign(size_t(out.channels) * out.height * out.width, 0.0f);
    for (int c = 0; c < in.channels; ++c)
        for (int y = 0; y < out.height; ++y)
            for (int x = 0; x < out.width; ++x) {
                const int o = horizontal ? x : y;
                const int first = k.first[o], count = k.count[o];
                auto source = [&](int i) {
                    return horizontal ? in.at(c, y, first + i) : in.at(c, first + i, x);
                };
                if (in.eightBit) {
                    int64_t sum = 1 << (kPrecisionBits - 1);
                    const int *w = &k.fixed[size_t(o) * k.stride];
                    for (int i = 0; i < count; ++i) sum += int64_t(source(i)) * w[i];
                    out.at(c, y, x) = clip8(sum);
                } else {
                    double sum = 0;
                    const double *w = &k.weights[size_t(o) * k.stride];
                    for (int i = 0; i < count; ++i) sum += source(i) * w[i];
                    out.at(c, y, x) = float(sum);
                }
            }
    return out;
}

Planes toPlanes(const DecodedImage &image, PreprocessSpec::Color color) {
    Planes p;
    p.width = image.width;
    p.height = image.height;
    p.eightBit = !image.pixels8.empty();
    const bool gray = color == PreprocessSpec::Color::Gray;
    p.channels = gray ? 1 : 3;
    p.values.resize(size_t(p.channels) * p.width * p.height);
    const size_t pixels = size_t(p.width) * p.height;
    auto sourceValue = [&](size_t pixel, int channel) -> float {
        const size_t i = pixel * image.channels + (image.channels == 1 ? 0 : channel);
        return p.eightBit ? float(image.pixels8[i]) : float(image.pixels16[i]) / 257.0f;
    };
    for (size_t px = 0; px < pixels; ++px) {
        if (gray && image.channels == 3) {
            // PIL's convert("L"): ITU-R 601-2 luma in 16-bit fixed point.
            if (p.eightBit) {
                const uint32_t r = image.pixels8[px * 3], g = image.pixels8[px * 3 + 1],
                               b = image.pixels8[px * 3 + 2];
                p.values[px] = float((r * 19595 + g * 38470 + b * 7471 + 0x8000) >> 16);
            } else {
                p.values[px] = 0.299f * sourceValue(px, 0) + 0.587f * sourceValue(px, 1) +
                               0.114f * sourceValue(px, 2);
            }
            continue;
        }
        for (int c = 0; c < p.channels; ++c) p.values[size_t(c) * pixels + px] = sourceValue(px, c);
    }
    return p;
}

// Python's round(): halves to even.
int roundHalfEven(double value) {
    const double lower = std::floor(value);
    const double fraction = value - lower;
    if (fraction > 0.5 || (fraction == 0.5 && std::fmod(lower, 2.0) != 0.0)) return int(lower) + 1;
    return int(lower);
}

Planes centreCrop(const Planes &in, int height, int width) {
    Planes out = in;
    out.height = height;
    out.width = width;
    out.values.assign(size_t(in.channels) * height * width, 0.0f);  // zero padding
    const int top = roundHalfEven((in.height - height) / 2.0);
    const int left = roundHalfEven((in.width - width) / 2.0);
    for (int c = 0; c < in.channels; ++c)
        for (int y = 0; y < height; ++y)
            for (int x = 0; x < width; ++x) {
                const int sy = y + top, sx = x + left;
                if (sy >= 0 && sy < in.height && sx >= 0 && sx < in.width)
                    out.at(c, y, x) = in.at(c, sy, sx);
            }
    return out;
}

}  // namespace

Result<PreprocessSpec> parsePreprocessSpec(const std::string &text) {
    const std::string preset = trimmedText(text);
    if (preset == "imagenet")
        return parsePreprocessSpec(
            "color=rgb,resize=256,crop=224,scale=1/255,mean=0.485:0.456:0.406,"
            "std=0.229:0.224:0.225,layout=nchw");
    PreprocessSpec spec;
    if (preset == "none") return spec;
    for (const std::string &item : splitText(preset, ',')) {
        const std::string entry = trimmedText(item);
        if (entry.empty()) continue;
        const auto eq = entry.find('=');
        if (eq == std::string::npos) return badSpec("'" + entry + "' is not key=value");
        const std::string key = trimmedText(entry.substr(0, eq)),
                          value = trimmedText(entry.substr(eq + 1));
        bool ok = true;
        if (key == "color") {
            if (value == "rgb")
                spec.color = PreprocessSpec::Color::Rgb;
            else if (value == "bgr")
                spec.color = PreprocessSpec::Color::Bgr;
            else if (value == "gray" || value == "grey")
                spec.color = PreprocessSpec::Color::Gray;
            else
                ok = false;
        } else if (key == "resize") {
            spec.resizeShorter = spec.resizeHeight = spec.resizeWidth = 0;
            ok = value.find('x') == std::string::npos
                     ? parsePositive(value, spec.resizeShorter)
                     : parseSize(value, spec.resizeHeight, spec.resizeWidth);
        } else if (key == "crop") {
            ok = parseSize(value, spec.cropHeight, spec.cropWidth);
        } else if (key == "scale") {
            ok = parseScale(value, spec);
        } else if (key == "mean") {
            ok = parseFloats(value, spec.mean);
        } else if (key == "std") {
            ok = parseFloats(value, spec.std) &&
                 std::none_of(spec.std.begin(), spec.std.end(), [](float s) { return s == 0; });
        } else if (key == "layout") {
            if (value == "nchw")
                spec.layout = PreprocessSpec::Layout::Nchw;
            else if (value == "nhwc")
                spec.layout = PreprocessSpec::Layout::Nhwc;
            else
                ok = false;
        } else if (key == "dtype") {
            if (value == "float32")
                spec.dtype = PreprocessSpec::Type::Float32;
            else if (value == "uint8")
                spec.dtype = PreprocessSpec::Type::UInt8;
            else
                ok = false;
        } else {
            return badSpec("unknown key '" + key +
                           "' (color, resize, crop, scale, mean, std, layout, dtype; presets "
                           "imagenet, none)");
        }
        if (!ok) return badSpec("cannot read " + key + "=" + value);
    }
    if (spec.dtype == PreprocessSpec::Type::UInt8 &&
        (spec.scale != 1.0f || !spec.mean.empty() || !spec.std.empty()))
        return badSpec("dtype=uint8 takes the pixels as they are: no scale, mean or std");
    return spec;
}

std::string formatPreprocessSpec(const PreprocessSpec &spec) {
    std::ostringstream out;
    out << "color="
        << (spec.color == PreprocessSpec::Color::Rgb   ? "rgb"
            : spec.color == PreprocessSpec::Color::Bgr ? "bgr"
                                                       : "gray");
    if (spec.resizeShorter > 0) out << ",resize=" << spec.resizeShorter;
    if (spec.resizeHeight > 0) out << ",resize=" << spec.resizeHeight << "x" << spec.resizeWidth;
    if (spec.cropHeight > 0) out << ",crop=" << spec.cropHeight << "x" << spec.cropWidth;
    if (spec.scaleDivisor > 0)
        out << ",scale=1/" << spec.scaleDivisor;
    else if (spec.scale != 1.0f)
        out << ",scale=" << spec.scale;
    if (!spec.mean.empty()) out << ",mean=" << floats(spec.mean);
    if (!spec.std.empty()) out << ",std=" << floats(spec.std);
    out << ",layout=" << (spec.layout == PreprocessSpec::Layout::Nchw ? "nchw" : "nhwc");
    out << ",dtype=" << (spec.dtype == PreprocessSpec::Type::Float32 ? "float32" : "uint8");
    return out.str();
}

Result<PreprocessSpec> defaultPreprocessSpec(const ValueInfo &input) {
    if (!input.hasShape || input.shape.size() != 4)
        return Status::badInput(
            "input '" + input.name +
            "' is not an image batch [N,C,H,W] or [N,H,W,C]: give --preprocess");
    const auto &s = input.shape;
    const bool channelsLast = (s[3] == 1 || s[3] == 3) && !(s[1] == 1 || s[1] == 3);
    const int64_t channels = channelsLast ? s[3] : s[1];
    const int64_t height = channelsLast ? s[1] : s[2], width = channelsLast ? s[2] : s[3];
    if (channels != 1 && channels != 3)
        return Status::badInput("input '" + input.name + "' has " + std::to_string(channels) +
                                " channels; images give 1 or 3: give --preprocess");
    PreprocessSpec spec;
    spec.color = channels == 1 ? PreprocessSpec::Color::Gray : PreprocessSpec::Color::Rgb;
    spec.layout = channelsLast ? PreprocessSpec::Layout::Nhwc : PreprocessSpec::Layout::Nchw;
    if (height > 0 && width > 0) {
        // Cover H x W keeping the aspect, then the centre: torchvision's Resize + CenterCrop.
        spec.resizeShorter = int(std::max(height, width));
        spec.cropHeight = int(height);
        spec.cropWidth = int(width);
    }
    spec.scale = float(1.0 / 255.0);
    spec.scaleDivisor = 255.0f;
    if (input.dtype == DataType::UInt8) {
        spec.dtype = PreprocessSpec::Type::UInt8;
        spec.scale = 1.0f;
        spec.scaleDivisor = 0.0f;
    }
    return spec;
}

Result<Tensor> preprocessImage(const DecodedImage &image, const PreprocessSpec &spec,
                               const std::string &file) {
    const size_t expected = size_t(image.width) * image.height * image.channels;
    if (image.width <= 0 || image.height <= 0 || (image.channels != 1 && image.channels != 3) ||
        (image.pixels8.size() != expected && image.pixels16.size() != expected))
        return Status::badInput(file + ": no image data");
    Planes planes = toPlanes(image, spec.color);
    const size_t channels = size_t(planes.channels);
    for (const auto *list : {&spec.mean, &spec.std})
        if (list->size() == 3 && channels != 3)
            return Status::badInput(file +
                                    ": mean/std have 3 values but color=gray gives 1 channel");

    int outHeight = planes.height, outWidth = planes.width;
    if (spec.resizeShorter > 0) {
        // torchvision: the shorter side to N, the longer int(N * long / short).
        if (planes.width <= planes.height) {
            outWidth = spec.resizeShorter;
            outHeight = int(int64_t(spec.resizeShorter) * planes.height / planes.width);
        } else {
            outHeight = spec.resizeShorter;
            outWidth = int(int64_t(spec.resizeShorter) * planes.width / planes.height);
        }
    } else if (spec.resizeHeight > 0) {
        outHeight = spec.resizeHeight;
        outWidth = spec.resizeWidth;
    }
    // PIL: the horizontal pass first, then the vertical one, each only when its size changes.
    if (outWidth != planes.width) planes = resample(planes, outWidth, true);
    if (outHeight != planes.height) planes = resample(planes, outHeight, false);
    if (spec.cropHeight > 0) planes = centreCrop(planes, spec.cropHeight, spec.cropWidth);

    const int64_t h = planes.height, w = planes.width, c = int64_t(channels);
    const bool chw = spec.layout == PreprocessSpec::Layout::Nchw;
    const Shape shape = chw ? Shape{c, h, w} : Shape{h, w, c};
    const bool swap = spec.color == PreprocessSpec::Color::Bgr;
    auto destination = [&](int64_t ch, int64_t y, int64_t x) {
        const int64_t channel = swap ? c - 1 - ch : ch;
        return chw ? (channel * h + y) * w + x : (y * w + x) * c + channel;
    };
    if (spec.dtype == PreprocessSpec::Type::UInt8) {
        Tensor out(DataType::UInt8, shape);
        uint8_t *data = out.data<uint8_t>();
        for (int64_t ch = 0; ch < c; ++ch)
            for (int64_t y = 0; y < h; ++y)
                for (int64_t x = 0; x < w; ++x)
                    data[destination(ch, y, x)] = uint8_t(
                        std::clamp(std::lround(planes.at(int(ch), int(y), int(x))), 0L, 255L));
        return out;
    }
    Tensor out(DataType::Float, shape);
    float *data = out.data<float>();
    for (int64_t ch = 0; ch < c; ++ch) {
        // mean and std are in the output's channel order (B, G, R for color=bgr).
        const int64_t oc = swap ? c - 1 - ch : ch;
        const float mean = spec.mean.empty() ? 0.0f : spec.mean[spec.mean.size() == 1 ? 0 : oc];
        const float std = spec.std.empty() ? 1.0f : spec.std[spec.std.size() == 1 ? 0 : oc];
        for (int64_t y = 0; y < h; ++y)
            for (int64_t x = 0; x < w; ++x) {
                // As ToTensor and Normalize compute it, in float32: divide, subtract, divide.
                float v = planes.at(int(ch), int(y), int(x));
                v = spec.scaleDivisor > 0 ? v / spec.scaleDivisor : v * spec.scale;
                data[destination(ch, y, x)] = (v - mean) / std;
            }
    }
    return out;
}

}  // namespace ql::quant
