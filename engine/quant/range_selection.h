#pragma once
// Choosing a quantization range from a histogram: percentile, entropy (KL) and MSE.
// Every result lies within the observed [min, max] and is {0, 0} for an empty histogram.

#include <utility>

#include "quant/histogram.h"
#include "quant/qparams.h"

namespace ql::quant {

// Percentile (ONNX Runtime / TensorRT calibrators), `percentile` in (0, 100], e.g. 99.999:
//  * non-negative data (observed min >= 0): one-sided, max = the percentile of x;
//  * signed data: symmetric, t = the percentile of |x|, range [-t, t].
// The CDF is interpolated linearly inside a bin (values assumed uniform in it).
std::pair<float, float> percentileRange(const Histogram &histogram, double percentile);

// Entropy (TensorRT's KL-divergence calibration, as in ONNX Runtime / MXNet): on the histogram
// of |x|, for every threshold bin i >= quantizedBins, the reference P is the first i bins with the
// tail mass added to bin i-1; the candidate Q merges those i bins into `quantizedBins` groups
// (integer group size, remainder into the last group) and spreads each group's count evenly over
// its nonzero bins. Both are smoothed (zeros get 1e-4, taken from the nonzero bins) and the
// threshold t = i * binWidth with the smallest KL(P || Q) wins. Range: [0, t] for non-negative
// data, [-t, t] otherwise (clamped to what was observed).
// As TensorRT's pytorch-quantization calibrator, the first bin's count is replaced by the
// second's: the spike of exact zeros after a Relu would otherwise dominate the divergence and
// drive the threshold far too low.
std::pair<float, float> entropyRange(const Histogram &histogram, int quantizedBins = 128);

// The quantized bins the entropy search uses for a target grid: the levels on one side of 0,
// i.e. 256 (128 with reduceRange) for non-negative data on an asymmetric grid, else 128 (64).
int entropyQuantizedBinsFor(const Histogram &histogram, const QRangeOptions &target);

// Expected squared quantization error of the histogram's values when quantized with the
// qparams that `target` gives for [lo, hi]: values inside the representable range
// [scale*(qmin-zp), scale*(qmax-zp)] cost scale^2/12 (rounding, uniform) except exact zeros
// (cost 0); values outside cost their squared distance to the nearest bound (clipping),
// integrated exactly assuming values are uniform within a bin. Mean over all values.
double expectedQuantizationMse(const Histogram &histogram, float lo, float hi, const QRangeOptions &target);

// MSE-optimal range: the [lo, hi] (lo <= 0 <= hi on bin edges or the observed range; lo = -hi for a symmetric target)
// that minimises expectedQuantizationMse. Symmetric targets try up to `maxCandidatesPerSide`
// thresholds; asymmetric targets search lo and hi together on a grid of 1/16 of that per
// side, then every edge pair within one grid step of the best.
std::pair<float, float> mseRange(const Histogram &histogram, const QRangeOptions &target,
                                 int maxCandidatesPerSide = 2048);

}  // namespace ql::quant
