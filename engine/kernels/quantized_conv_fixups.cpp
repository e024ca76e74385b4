#include "kernels/quantized_conv_fixups.h"

#include <algorithm>
#include <cstdlib>

namespace ql::quant {

bool splitSaturatingPairs(const int8_t *w, int64_t outChannels, int64_t channelsPerGroup,
                          int64_t kh, int64_t kw, int64_t group, int64_t dilH, int64_t dilW,
                          std::vector<int8_t> &a,
                          std::vector<ConvFixup> &fixups) {
    const int64_t taps = kh * kw, perOut = channelsPerGroup * taps;
    const int64_t outPerGroup = outChannels / group;
    a.assign(w, w + outChannels * perOut);
    fixups.clear();
    for (int64_t o = 0; o < outChannels; ++o) {
        const int64_t firstIn = (o / outPerGroup) * channelsPerGroup;
        int8_t *row = a.data() + o * perOut;
        for (int64_t c = 0; c + 1 < channelsPerGroup; c += 2) {
            for (int64_t t = 0; t < taps; ++t) {
                const int v0 = row[c * taps + t], v1 = row[(c + 1) * taps + t];
                const bool sameSign = (v0 > 0 && v1 > 0) || (v0 < 0 && v1 < 0);
                if (!sameSign || std::abs(v0) + std::abs(v1) <= 128) continue;
                // Move the smaller one out: the pair left in A is (big, 0).
                const int64_t moved = std::abs(v0) < std::abs(v1) ? c : c + 1;
                const int64_t ky = t / kw, kx = t % kw;
                ConvFixup f;
                f.outChannel = static_cast<int32_t>(o);
                f.dy = static_cast<int32_t>(ky * dilH);
                f.dx = static_cast<int32_t>(kx * dilW);
                f.inChannel = static_cast<int32_t>(firstIn + moved);
                f.value = row[moved * taps + t];
                row[moved * taps + t] = 0;
                fixups.push_back(f);
            }
        }
    }
    return !fixups.empty();
}

void setFixupColumns(std::vector<ConvFixup> &fixups, const FixupGeometry &g) {
    // Output columns whose input column ow * strideW - padLeft + dx lies inside [0, inW); the
    // divisions are done once here, not per row.
    for (ConvFixup &f : fixups) {
        const int64_t shift = f.dx - g.padLeft;
        const int64_t first = shift >= 0 ? 0 : (-shift + g.strideW - 1) / g.strideW;
        const int64_t last =
            g.inW - 1 - shift < 0 ? -1 : std::min((g.inW - 1 - shift) / g.strideW, g.outW - 1);
        f.firstOw = static_cast<int32_t>(first);
        f.lastOw = static_cast<int32_t>(last);
    }
}

void requantizeRow(const int32_t *acc, int64_t count, const float *mult, float zeroPoint,
                   float lo, float hi, DataType outType, void *y) {
    // Clamping before rounding to [lo - zp, hi - zp] (integers) gives the same result as after,
    // and keeps |v| < 2^22 so that adding and subtracting 1.5 * 2^23 rounds half to even (the
    // default rounding mode), like std::nearbyint, in a loop the compiler can vectorise.
    const float vlo = lo - zeroPoint, vhi = hi - zeroPoint, magic = 12582912.0f;
    if (outType == DataType::UInt8) {
        auto *out = static_cast<uint8_t *>(y);
        for (int64_t c = 0; c < count; ++c) {
            float v = static_cast<float>(acc[c]) * mult[c];
            v = std::min(std::max(v, vlo), vhi);
            v = (v + magic) - magic;
            out[c] = static_cast<uint8_t>(static_cast<int32_t>(v + zeroPoint));
        }
    } else {
        auto *out = static_cast<int8_t *>(y);
        for (int64_t c = 0; c < count; ++c) {
            float v = static_cast<float>(acc[c]) * mult[c];
            v = std::min(std::max(v, vlo), vhi);
            v = (v + magic) - magic;
            out[c] = static_cast<int8_t>(static_cast<int32_t>(v + zeroPoint));
        }
    }
}

void applyFixupsAndRequantize(int32_t *acc, const uint8_t *x, int32_t xZp,
                              const std::vector<ConvFixup> &fixups, const FixupGeometry &g,
                              const float *multiplier, float zeroPoint, int64_t lo, int64_t hi,
                              DataType outType, void *y) {
    const int64_t rows = g.batch * g.outH, rowSize = g.outW * g.outC;
    const float flo = static_cast<float>(lo), fhi = static_cast<float>(hi);
    const int64_t xStep = g.strideW * g.inC;
    // One output row at a time (its accumulators stay in L1), each fix-up applied along the
    // row: the fix-up list is read once per row, not once per pixel.
#pragma omp parallel for schedule(static)
    for (int64_t r = 0; r < rows; ++r) {
        const int64_t n = r / g.outH, oh = r % g.outH;
        const int64_t iy0 = oh * g.strideH - g.padTop;
        const uint8_t *image = x + n * g.inH * g.inW * g.inC;
        int32_t *row = acc + r * rowSize;
        for (const ConvFixup &f : fixups) {
            const int64_t iy = iy0 + f.dy;
            if (iy < 0 || iy >= g.inH) continue;  // padding rows: x - zp = 0
            const int64_t first = f.firstOw, last = f.lastOw, shift = f.dx - g.padLeft;
            const uint8_t *xp = image + (iy * g.inW + first * g.strideW + shift) * g.inC + f.inChannel;
            int32_t *ap = row + first * g.outC + f.outChannel;
            const int32_t value = f.value;
            for (int64_t ow = first; ow <= last; ++ow, xp += xStep, ap += g.outC)
                *ap += value * (static_cast<int32_t>(*xp) - xZp);
        }
        void *dst = outType == DataType::UInt8
                        ? static_cast<void *>(static_cast<uint8_t *>(y) + r * rowSize)
                        : static_cast<void *>(static_cast<int8_t *>(y) + r * rowSize);
        for (int64_t ow = 0; ow < g.outW; ++ow)
            requantizeRow(row + ow * g.outC, g.outC, multiplier, zeroPoint, flo, fhi, outType,
                          static_cast<uint8_t *>(dst) + ow * g.outC);
    }
}

}  // namespace ql::quant
