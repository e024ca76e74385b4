#pragma once
// Exact 2-D QLinearConv on CPUs without VNNI at the cost of ONE oneDNN pass.
//
// oneDNN's u8 x s8 kernels there sum the products of input channels (2j, 2j+1) into a saturating
// int16 (vpmaddubsw). With u8 activations (<= 255) a pair can only saturate when its two weights
// have the same sign and |w0| + |w1| > 128; in trained networks that is about 1-3% of the pairs.
// So the weights are split W = A + F: A is W with the smaller weight of every such pair set to 0
// (no pair of A can saturate, oneDNN computes conv(x, A) exactly), F is sparse (one entry per
// bad pair) and is applied here, output pixel by output pixel, before requantizing.

#include <cstdint>
#include <vector>

#include "ir/tensor.h"

namespace ql::quant {

struct ConvFixup {
    int32_t outChannel = 0;
    int32_t inChannel = 0;
    int32_t dy = 0, dx = 0;  // kh * dilH, kw * dilW
    int32_t value = 0;
    // Set by setFixupColumns: the output columns it touches, and where input column
    // ow * strideW - padLeft + dx sits in the phase-split planes (phase, ow + columnShift).
    int32_t firstOw = 0, lastOw = -1;
    int32_t phase = 0, columnShift = 0;
};

// Splits s8 weights [M][C/g][kh][kw] (group g) into `a` (same layout) and fixups. Returns false
// when there is nothing to fix.
bool splitSaturatingPairs(const int8_t *w, int64_t outChannels, int64_t channelsPerGroup,
                          int64_t kh, int64_t kw, int64_t group, int64_t dilH, int64_t dilW,
                          std::vector<int8_t> &a,
                          std::vector<ConvFixup> &fixups);

// The geometry the fix-up loop needs (NHWC input, [N][OH][OW][M] accumulators).
struct FixupGeometry {
    int64_t batch = 1, inH = 0, inW = 0, inC = 0, outH = 0, outW = 0, outC = 0;
    int64_t strideH = 1, strideW = 1, padTop = 0, padLeft = 0;
};

// Fills the column fields of every fix-up for the geometry.
void setFixupColumns(std::vector<ConvFixup> &fixups, const FixupGeometry &g);
// Where each output channel's run of fix-ups starts (sorted by channel; plus the end) and its
// channel, computed once per plan entry.
struct FixupGroups {
    std::vector<int64_t> starts;
    std::vector<int32_t> channels;
};
FixupGroups groupFixups(const std::vector<ConvFixup> &fixups);
// int16 elements of the scratch planes applyFixupsAndRequantize needs.
int64_t fixupPlaneSize(const FixupGeometry &g);

// acc (int32, bias included) += conv(x - xZp, F), then y = requantized acc (channels-last).
// `multiplier` holds one value per output channel.
void applyFixupsAndRequantize(int32_t *acc, const uint8_t *x, int32_t xZp,
                              const std::vector<ConvFixup> &fixups,
                              const FixupGroups &fixupGroups, const FixupGeometry &g,
                              const float *multiplier, float zeroPoint, int64_t lo, int64_t hi,
                              DataType outType, void *y, int16_t *planes);

// y[c] = clamp(round_half_even(acc[c] * mult[c]) + zp, lo, hi) for c < count, vectorisable.
void requantizeRow(const int32_t *acc, int64_t count, const float *mult, float zeroPoint,
                   float lo, float hi, DataType outType, void *y);

}  // namespace ql::quant
