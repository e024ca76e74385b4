#pragma once
// Image preprocessing as PyTorch users write it for PIL images (torchvision's Resize, CenterCrop,
// ToTensor, Normalize), from a decoded image to one sample of a model input. Decoding is the
// caller's (the app reads files with Qt's image readers; the engine has no Qt).
//
// The spec is comma-separated key=value, lists with ':', applied in this order:
//   color=rgb|bgr|gray  resize=N (shorter side to N, aspect kept) | resize=HxW  crop=N|HxW (centre)
//   scale=F (1/255 accepted)  mean=a[:b:c]  std=a[:b:c]  layout=nchw|nhwc  dtype=float32|uint8
// and the presets `imagenet` (color=rgb,resize=256,crop=224,scale=1/255,
// mean=0.485:0.456:0.406,std=0.229:0.224:0.225,layout=nchw) and `none` (the pixels as they are).
//
// Resizing is PIL's bilinear filter with its antialiasing (the triangle filter widened by the
// downscale factor), horizontal pass then vertical, 8-bit images rounded to 8 bits after each
// pass in PIL's fixed point, so a PNG gives the same tensor as torchvision on PIL. Centre crops
// round their offset half to even as Python's round() does, and pad with zeros when larger than
// the image. 16-bit images are taken at 8-bit scale (value / 257) in float, without rounding.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/status.h"
#include "ir/graph.h"
#include "ir/tensor.h"

namespace ql::quant {

// A decoded image, rows top to bottom, channels interleaved (1: gray, 3: RGB; alpha dropped as
// PIL's convert("RGB") drops it). One of pixels8 / pixels16 is filled.
struct DecodedImage {
    int width = 0, height = 0, channels = 0;
    std::vector<uint8_t> pixels8;
    std::vector<uint16_t> pixels16;
};

struct PreprocessSpec {
    enum class Color { Rgb, Bgr, Gray };
    enum class Layout { Nchw, Nhwc };
    enum class Type { Float32, UInt8 };
    Color color = Color::Rgb;
    int resizeShorter = 0;                  // > 0: shorter side to this
    int resizeHeight = 0, resizeWidth = 0;  // > 0: exactly this
    int cropHeight = 0, cropWidth = 0;      // > 0: centre crop
    float scale = 1.0f;
    float scaleDivisor = 0.0f;     // > 0 when given as 1/N: values are divided, as ToTensor does
    std::vector<float> mean, std;  // one value, or one per channel; empty: none
    Layout layout = Layout::Nchw;
    Type dtype = Type::Float32;
};

// Parses a spec or preset; BadInput naming the key (or value) it cannot read.
Result<PreprocessSpec> parsePreprocessSpec(const std::string &text);
// The spec as text in the order it applies, with every key (what stderr, projects and reports
// show): "color=rgb,resize=256,crop=224x224,scale=0.00392157,...".
std::string formatPreprocessSpec(const PreprocessSpec &spec);
// Without --preprocess: the model input's channels (1: gray, 3: rgb), layout (channels last when
// the last dim is 1 or 3 and the second is not), exact resize to its H x W when they are fixed,
// scale 1/255.
Result<PreprocessSpec> defaultPreprocessSpec(const ValueInfo &input);

// One sample (no batch dim): [C, H, W] or [H, W, C], float32 or uint8. BadInput naming `file`
// for an empty image, a uint8 output with scale/mean/std, or mean/std of the wrong length.
Result<Tensor> preprocessImage(const DecodedImage &image, const PreprocessSpec &spec,
                               const std::string &file);

}  // namespace ql::quant
