#include "kernels/quantized_conv_fixups.h"

#include <algorithm>
#include <cstdlib>

#include "ir/channel_runs.h"

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
    // Output columns whose input column ow * strideW - padLeft + dx lies inside [0, inW), and
    // where that column sits in the phase-split planes; the divisions are done once, here.
    const int64_t s = g.strideW;
    for (ConvFixup &f : fixups) {
        const int64_t shift = f.dx - g.padLeft;
        const int64_t first = shift >= 0 ? 0 : (-shift + s - 1) / s;
        const int64_t last =
            g.inW - 1 - shift < 0 ? -1 : std::min((g.inW - 1 - shift) / s, g.outW - 1);
        const int64_t phase = ((shift % s) + s) % s;
        f.firstOw = static_cast<int32_t>(first);
        f.lastOw = static_cast<int32_t>(last);
        f.phase = static_cast<int32_t>(phase);
        f.columnShift = static_cast<int32_t>((shift - phase) / s);
    }
}

FixupGroups groupFixups(const std::vector<ConvFixup> &fixups) {
    FixupGroups groups;
    for (size_t i = 0; i < fixups.size(); ++i) {
        if (i == 0 || fixups[i].outChannel != fixups[i - 1].outChannel) {
            groups.starts.push_back(static_cast<int64_t>(i));
            groups.channels.push_back(fixups[i].outChannel);
        }
    }
    groups.starts.push_back(static_cast<int64_t>(fixups.size()));
    return groups;
}

int64_t fixupPlaneSize(const FixupGeometry &g) {
    const int64_t columns = (g.inW + g.strideW - 1) / g.strideW;
    return g.batch * g.inC * g.inH * g.strideW * columns;
}

void requantizeRow(const int32_t *acc, int64_t count, const float *mult, float zeroPoint,
                   float lo, float hi, DataType outType, void *y) {
    // Clamping before rounding to [lo - zp, hi - zp] (integers) gives the same result as after,
    // and keeps |v| < 2^22, as roundHalfEvenSmall (std::nearbyint in a loop the compiler can
    // vectorise) needs.
    const float vlo = lo - zeroPoint, vhi = hi - zeroPoint;
    if (outType == DataType::UInt8) {
        auto *out = static_cast<uint8_t *>(y);
        for (int64_t c = 0; c < count; ++c) {
            float v = static_cast<float>(acc[c]) * mult[c];
            v = std::min(std::max(v, vlo), vhi);
            v = roundHalfEvenSmall(v);
            out[c] = static_cast<uint8_t>(static_cast<int32_t>(v + zeroPoint));
        }
    } else {
        auto *out = static_cast<int8_t *>(y);
        for (int64_t c = 0; c < count; ++c) {
            float v = static_cast<float>(acc[c]) * mult[c];
            v = std::min(std::max(v, vlo), vhi);
            v = roundHalfEvenSmall(v);
            out[c] = static_cast<int8_t>(static_cast<int32_t>(v + zeroPoint));
        }
    }
}

namespace {

// corr[oh][ow] += value * (x - zp) over one channel's fix-ups: the hot loop, also compiled for
// AVX2 (picked at load time).
__attribute__((target_clones("avx2", "default"))) void accumulateChannel(
    int32_t *corr, const ConvFixup *fix, int64_t count, const int16_t *image,
    const FixupGeometry &g, int64_t columns, int64_t planeRow, int64_t rowBegin, int64_t rowEnd) {
    for (int64_t i = 0; i < count; ++i) {
        const ConvFixup &f = fix[i];
        if (f.lastOw < f.firstOw) continue;
        const int32_t value = f.value;
        const int64_t length = f.lastOw - f.firstOw + 1;
        const int16_t *channelPlane = image + f.inChannel * g.inH * planeRow + f.phase * columns +
                                      f.columnShift + f.firstOw;
        const int64_t iyFirst = rowBegin * g.strideH - g.padTop + f.dy;
        const int64_t iyLast = (rowEnd - 1) * g.strideH - g.padTop + f.dy;
        if (length == g.outW && g.strideH == 1 && planeRow == g.outW && iyFirst >= 0 &&
            iyLast < g.inH) {
            // Whole rows, contiguous in the planes and in corr (1x1 convolutions, mostly):
            // one long loop over the tile.
            const int16_t *src = channelPlane + iyFirst * planeRow;
            const int64_t total = (rowEnd - rowBegin) * g.outW;
            for (int64_t k = 0; k < total; ++k) corr[k] += value * static_cast<int32_t>(src[k]);
            continue;
        }
        for (int64_t oh = rowBegin; oh < rowEnd; ++oh) {
            const int64_t iy = oh * g.strideH - g.padTop + f.dy;
            if (iy < 0 || iy >= g.inH) continue;  // padding: x - zp = 0
            const int16_t *src = channelPlane + iy * planeRow;
            int32_t *dst = corr + (oh - rowBegin) * g.outW + f.firstOw;
            for (int64_t k = 0; k < length; ++k) dst[k] += value * static_cast<int32_t>(src[k]);
        }
    }
}

}  // namespace

void applyFixupsAndRequantize(int32_t *acc, const uint8_t *x, int32_t xZp,
                              const std::vector<ConvFixup> &fixups,
                              const FixupGroups &fixupGroups, const FixupGeometry &g,
                              const float *multiplier, float zeroPoint, int64_t lo, int64_t hi,
                              DataType outType, void *y, int16_t *planes) {
    const int64_t s = g.strideW, columns = (g.inW + s - 1) / s;
    const int64_t planeRow = s * columns;  // one input row of one channel, all phases
    // x - zp as planes [n][c][iy][phase][column]: a fix-up then reads contiguous int16 along
    // an output row (column = ow + columnShift), which vectorises.
#pragma omp parallel for schedule(static)
    for (int64_t r = 0; r < g.batch * g.inH; ++r) {
        const int64_t n = r / g.inH, iy = r % g.inH;
        const uint8_t *src = x + r * g.inW * g.inC;
        int16_t *dstImage = planes + n * g.inC * g.inH * planeRow + iy * planeRow;
        for (int64_t c = 0; c < g.inC; ++c) {  // contiguous writes; the input row stays in L1
            int16_t *dst = dstImage + c * g.inH * planeRow;
            for (int64_t phase = 0; phase < s; ++phase)
                for (int64_t col = 0, ix = phase; ix < g.inW; ++col, ix += s)
                    dst[phase * columns + col] =
                        static_cast<int16_t>(int32_t(src[ix * g.inC + c]) - xZp);
        }
    }
    // Fix-ups come sorted by output channel. Work items: a tile of output rows (~256 pixels,
    // so that per-fix-up costs are spread) times a block of channels (independent, so threads
    // can share a tile); each channel's sum over the tile is built in a small buffer, then added
    // to the tile's accumulators, which stay in cache.
    const std::vector<int64_t> &starts = fixupGroups.starts;
    const int64_t groups = static_cast<int64_t>(fixupGroups.channels.size());
    const std::vector<int32_t> &channelOf = fixupGroups.channels;
    constexpr int64_t kChunk = 16;
    const int64_t tileRows =
        std::max<int64_t>(1, std::min<int64_t>(g.outH, 256 / std::max<int64_t>(1, g.outW)));
    const int64_t tilesPerImage = (g.outH + tileRows - 1) / tileRows;
    const int64_t tiles = g.batch * tilesPerImage;
    // Enough tiles for the threads: one work item per tile, requantized while still in cache.
    // Else (small images) channel blocks give the threads work, and a last pass requantizes.
    const bool fuseRequant = tiles >= 4 || groups <= 1;
    const int64_t blocks = fuseRequant ? 1 : std::min<int64_t>(groups, 4);
    const float flo = static_cast<float>(lo), fhi = static_cast<float>(hi);
    const int64_t outPixels = g.outH * g.outW;
#pragma omp parallel for collapse(2) schedule(static)
    for (int64_t t = 0; t < tiles; ++t) {
        for (int64_t b = 0; b < blocks; ++b) {
            thread_local std::vector<int32_t> corr;
            corr.resize(static_cast<size_t>(kChunk * tileRows * g.outW));
            const int64_t n = t / tilesPerImage;
            const int64_t rowBegin = (t % tilesPerImage) * tileRows;
            const int64_t rowEnd = std::min(g.outH, rowBegin + tileRows);
            const int64_t tilePixels = (rowEnd - rowBegin) * g.outW;
            int32_t *tileAcc = acc + (n * outPixels + rowBegin * g.outW) * g.outC;
            const int16_t *image = planes + n * g.inC * g.inH * planeRow;
            // kChunk channels at a time: their sums land in `corr` channel-major (what the
            // vectorised loop wants), then go to the channels-last accumulators pixel by pixel,
            // touching neighbouring channels together instead of one channel across the tile.
            const int64_t gEnd = groups * (b + 1) / blocks;
            for (int64_t gi = groups * b / blocks; gi < gEnd; gi += kChunk) {
                const int64_t count = std::min(kChunk, gEnd - gi);
                std::fill(corr.begin(), corr.begin() + count * tilePixels, 0);
                for (int64_t k = 0; k < count; ++k)
                    accumulateChannel(corr.data() + k * tilePixels, fixups.data() + starts[gi + k],
                                      starts[gi + k + 1] - starts[gi + k], image, g, columns,
                                      planeRow, rowBegin, rowEnd);
                const int32_t *channels = channelOf.data() + gi;
                for (int64_t p = 0; p < tilePixels; ++p) {
                    int32_t *out = tileAcc + p * g.outC;
                    for (int64_t k = 0; k < count; ++k) out[channels[k]] += corr[k * tilePixels + p];
                }
            }
            if (fuseRequant) {
                auto *tileY = static_cast<uint8_t *>(y) + (tileAcc - acc);  // 1-byte elements
                for (int64_t p = 0; p < tilePixels; ++p)
                    requantizeRow(tileAcc + p * g.outC, g.outC, multiplier, zeroPoint, flo, fhi,
                                  outType, tileY + p * g.outC);
            }
        }
    }
    if (fuseRequant) return;
    const int64_t pixels = g.batch * outPixels;
#pragma omp parallel for schedule(static)
    for (int64_t p = 0; p < pixels; ++p)
        requantizeRow(acc + p * g.outC, g.outC, multiplier, zeroPoint, flo, fhi, outType,
                      static_cast<uint8_t *>(y) + p * g.outC);  // 1-byte elements either way
}

}  // namespace ql::quant
