#pragma once
// Internal to the resize family: per-axis sampling taps and the separable resampler behind
// Resize and Upsample. Each resized axis gets, per output coordinate, a fixed number of
// (input index, weight) taps; N-linear and N-cubic are products of those 1-D filters.

#include <cstdint>
#include <vector>

#include "core/status.h"
#include "ir/tensor.h"

namespace ql::resize {

enum class Mode { Nearest, Linear, Cubic };
enum class Coordinate {
    HalfPixel,
    PytorchHalfPixel,
    AlignCorners,
    Asymmetric,
    TfHalfPixelForNN,
    TfCropAndResize,
    HalfPixelSymmetric  // opset 19
};
// Simple: ONNX Runtime's rule for Upsample and Resize-10: floor when upsampling, ceil when
// downsampling.
enum class Rounding { RoundPreferFloor, RoundPreferCeil, Floor, Ceil, Simple };

struct Options {
    Mode mode = Mode::Nearest;
    Coordinate coordinate = Coordinate::HalfPixel;
    Rounding rounding = Rounding::RoundPreferFloor;
    double cubicA = -0.75;
    bool excludeOutside = false;
    double extrapolation = 0.0;
    bool antialias = false;
};

// What one axis is resized from and to.
struct AxisSpec {
    int64_t inLen = 1, outLen = 1;
    double scale = 1.0;          // output/input as the coordinate transform sees it
    double lengthResized = 1.0;  // input * scale (ONNX's "length_resized", may be fractional)
    double roiStart = 0.0, roiEnd = 1.0;  // normalized, used by tf_crop_and_resize
};

struct AxisTaps {
    int64_t inLen = 0, outLen = 0;
    int taps = 1;
    std::vector<int64_t> index;    // outLen * taps, clamped into [0, inLen)
    std::vector<float> weight;     // outLen * taps
    std::vector<uint8_t> outside;  // outLen: 1 where the output takes the extrapolation value
    bool identity = false;         // output j is input j exactly
};

// The continuous input coordinate of output coordinate j.
double sourceCoordinate(int64_t j, const AxisSpec &axis, Coordinate coordinate);

AxisTaps computeTaps(const AxisSpec &axis, const Options &options);

// Resamples `input` (plain, any dtype for nearest; float or double otherwise) into `output`,
// already allocated with the resized shape. One AxisTaps per dimension.
Status resample(const Tensor &input, const std::vector<AxisTaps> &axes, const Options &options,
                Tensor &output);

}  // namespace ql::resize
