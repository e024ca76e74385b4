// Concat, Split, Slice and Pad: region copies along axes, by element size.

#include <algorithm>
#include <cstring>

#include "kernels/kernel.h"
#include "kernels/shape_common.h"

namespace ql::shape {

namespace {

// Concat copies, per outer index, one contiguous chunk from every input. Along axis 1 of
// channels-last rank-4 inputs the chunks are the per-pixel channel vectors, so DenseNet-style
// channel concats stay channels-last without a layout round trip.
class ConcatKernel : public Kernel {
public:
    explicit ConcatKernel(const KernelBuildInfo &info)
        : m_axis(info.node.attrInt("axis", 0)),
          m_hasAxis(info.node.hasAttribute("axis") || info.opset < 4) {}

    bool acceptsChannelsLast(size_t) const override { return m_axis == 1 || m_axis == -3; }

    Status run(KernelContext &ctx) override {
        if (!m_hasAxis) return Status::badInput("Concat needs an 'axis' attribute");
        std::vector<Tensor> inputs;
        for (size_t i = 0; i < ctx.inputCount(); ++i)
            if (ctx.hasInput(i)) inputs.push_back(ctx.input(i));
        if (inputs.empty()) return Status::badInput("Concat needs at least one input");
        const Tensor &first = inputs[0];
        const int64_t rank = first.rank();
        if (rank == 0) return Status::badInput("Concat cannot join scalars");
        int64_t axis = 0;
        QL_RETURN_IF_ERROR(normalizeAxis(m_axis, rank, "Concat axis", &axis));
        Shape outShape = first.shape();
        outShape[axis] = 0;
        int64_t channelsLastBytes = 0, totalBytes = 0;
        for (const Tensor &t : inputs) {
            if (t.dtype() != first.dtype()) {
                return Status::badInput("Concat inputs mix " + dataTypeName(first.dtype()) +
                                        " and " + dataTypeName(t.dtype()));
            }
            bool same = t.rank() == rank;
            for (int64_t d = 0; same && d < rank; ++d)
                same = d == axis || t.shape()[d] == first.shape()[d];
            if (!same) {
                return Status::badInput("Concat input shapes " + shapeToString(first.shape()) +
                                        " and " + shapeToString(t.shape()) +
                                        " differ outside axis " + std::to_string(axis));
            }
            outShape[axis] += t.shape()[axis];
            totalBytes += static_cast<int64_t>(t.byteSize());
            if (t.layout() == Layout::ChannelsLast)
                channelsLastBytes += static_cast<int64_t>(t.byteSize());
        }
        // Stay channels-last when most of the data already is; convert the rest.
        const bool channelsLast =
            rank == 4 && axis == 1 && channelsLastBytes > 0 && 2 * channelsLastBytes >= totalBytes;
        for (Tensor &t : inputs) {
            if (channelsLast && t.layout() != Layout::ChannelsLast)
                t = t.toChannelsLast();
            else if (!channelsLast && t.layout() != Layout::Plain)
                t = t.toPlain();
        }
        const size_t es = dataTypeSize(first.dtype());
        Tensor &out = ctx.allocateOutput(0, first.dtype(), outShape,
                                         channelsLast ? Layout::ChannelsLast : Layout::Plain);
        // Physical order: channels-last is [N, H, W, C] joined along its last axis.
        int64_t outer = 0, inner = 0;
        if (channelsLast) {
            outer = outShape[0] * outShape[2] * outShape[3];
            inner = 1;
        } else {
            outer = productOf(outShape, 0, axis);
            inner = productOf(outShape, axis + 1, outShape.size());
        }
        std::vector<size_t> chunk(inputs.size());
        for (size_t i = 0; i < inputs.size(); ++i)
            chunk[i] = static_cast<size_t>(inputs[i].shape()[axis] * inner) * es;
        const size_t outChunk = static_cast<size_t>(outShape[axis] * inner) * es;
        auto *dst = static_cast<uint8_t *>(out.rawData());
        if (outer == 1) {
            size_t offset = 0;
            for (size_t i = 0; i < inputs.size(); ++i) {
                parallelCopy(dst + offset, inputs[i].rawData(), chunk[i]);
                offset += chunk[i];
            }
            return Status::ok();
        }
        parallelChunks(outer, static_cast<int64_t>(outChunk / es), [&](int64_t begin, int64_t end) {
            for (int64_t o = begin; o < end; ++o) {
                uint8_t *d = dst + o * outChunk;
                for (size_t i = 0; i < inputs.size(); ++i) {
                    std::memcpy(d, static_cast<const uint8_t *>(inputs[i].rawData()) + o * chunk[i],
                                chunk[i]);
                    d += chunk[i];
                }
            }
        });
        return Status::ok();
    }

private:
    int64_t m_axis;
    bool m_hasAxis;
};

class SplitKernel : public Kernel {
public:
    explicit SplitKernel(const KernelBuildInfo &info)
        : m_opset(info.opset),
          m_axis(info.node.attrInt("axis", 0)),
          m_split(info.node.attrInts("split")),
          m_numOutputs(info.node.attrInt("num_outputs", 0)) {}

    Status run(KernelContext &ctx) override {
        const Tensor &data = ctx.input(0);
        int64_t axis = 0;
        QL_RETURN_IF_ERROR(normalizeAxis(m_axis, data.rank(), "Split axis", &axis));
        const int64_t dim = data.shape()[axis];
        const int64_t outputs = static_cast<int64_t>(ctx.outputCount());
        std::vector<int64_t> split = m_split;
        if (m_opset >= 13) {
            split.clear();
            if (ctx.hasInput(1))
                QL_RETURN_IF_ERROR(readInts(ctx.input(1), "Split 'split'", &split));
        }
        if (split.empty()) {
            if (m_opset >= 18 && m_numOutputs > 0) {
                if (m_numOutputs != outputs) {
                    return Status::badInput("Split num_outputs " + std::to_string(m_numOutputs) +
                                            " but the node has " + std::to_string(outputs) +
                                            " outputs");
                }
                // Opset 18: ceil-sized parts, the last one takes the rest.
                const int64_t part = (dim + outputs - 1) / outputs;
                for (int64_t i = 0; i < outputs; ++i)
                    split.push_back(std::clamp<int64_t>(dim - i * part, 0, part));
            } else {
                if (dim % outputs != 0) {
                    return Status::badInput("Split cannot divide axis " + std::to_string(axis) +
                                            " of size " + std::to_string(dim) + " into " +
                                            std::to_string(outputs) + " equal parts");
                }
                split.assign(outputs, dim / outputs);
            }
        }
        if (static_cast<int64_t>(split.size()) != outputs) {
            return Status::badInput("Split has " + std::to_string(split.size()) + " sizes for " +
                                    std::to_string(outputs) + " outputs");
        }
        int64_t sum = 0;
        for (int64_t s : split) {
            if (s < 0) return Status::badInput("Split sizes must not be negative");
            sum += s;
        }
        if (sum != dim) {
            return Status::badInput("Split sizes sum to " + std::to_string(sum) + " but axis " +
                                    std::to_string(axis) + " has size " + std::to_string(dim));
        }
        const size_t es = dataTypeSize(data.dtype());
        const int64_t outer = productOf(data.shape(), 0, axis);
        const int64_t inner = productOf(data.shape(), axis + 1, data.shape().size());
        const size_t inChunk = static_cast<size_t>(dim * inner) * es;
        const auto *src = static_cast<const uint8_t *>(data.rawData());
        size_t offset = 0;
        for (int64_t i = 0; i < outputs; ++i) {
            Shape shape = data.shape();
            shape[axis] = split[i];
            Tensor &out = ctx.allocateOutput(i, data.dtype(), shape);
            const size_t chunk = static_cast<size_t>(split[i] * inner) * es;
            auto *dst = static_cast<uint8_t *>(out.rawData());
            if (outer == 1) {
                parallelCopy(dst, src + offset, chunk);
            } else if (chunk > 0) {
                parallelChunks(
                    outer, static_cast<int64_t>(chunk / es), [&](int64_t begin, int64_t end) {
                        for (int64_t o = begin; o < end; ++o)
                            std::memcpy(dst + o * chunk, src + o * inChunk + offset, chunk);
                    });
            }
            offset += chunk;
        }
        return Status::ok();
    }

private:
    int64_t m_opset, m_axis;
    std::vector<int64_t> m_split;
    int64_t m_numOutputs;
};

class SliceKernel : public Kernel {
public:
    explicit SliceKernel(const KernelBuildInfo &info)
        : m_fromInputs(info.opset >= 10),
          m_starts(info.node.attrInts("starts")),
          m_ends(info.node.attrInts("ends")),
          m_axes(info.node.attrInts("axes")) {}

    // A strided view reads channels-last storage as easily as plain storage.
    bool acceptsChannelsLast(size_t i) const override { return i == 0; }

    Status run(KernelContext &ctx) override {
        const Tensor &data = ctx.input(0);
        const int64_t rank = data.rank();
        std::vector<int64_t> starts = m_starts, ends = m_ends, axes = m_axes, steps;
        if (m_fromInputs) {
            if (!ctx.hasInput(1) || !ctx.hasInput(2))
                return Status::badInput("Slice needs 'starts' and 'ends' inputs");
            QL_RETURN_IF_ERROR(readInts(ctx.input(1), "Slice 'starts'", &starts));
            QL_RETURN_IF_ERROR(readInts(ctx.input(2), "Slice 'ends'", &ends));
            if (ctx.hasInput(3)) QL_RETURN_IF_ERROR(readInts(ctx.input(3), "Slice 'axes'", &axes));
            if (ctx.hasInput(4))
                QL_RETURN_IF_ERROR(readInts(ctx.input(4), "Slice 'steps'", &steps));
        }
        if (starts.size() != ends.size())
            return Status::badInput("Slice 'starts' and 'ends' differ in length");
        if (axes.empty())
            for (size_t i = 0; i < starts.size(); ++i) axes.push_back(static_cast<int64_t>(i));
        if (steps.empty()) steps.assign(starts.size(), 1);
        if (axes.size() != starts.size() || steps.size() != starts.size())
            return Status::badInput("Slice 'axes'/'steps' length differs from 'starts'");

        StridedView view;
        view.shape = data.shape();
        view.strides = logicalStrides(data);
        std::vector<bool> seen(rank, false);
        for (size_t i = 0; i < starts.size(); ++i) {
            int64_t axis = 0;
            QL_RETURN_IF_ERROR(normalizeAxis(axes[i], rank, "Slice axis", &axis));
            if (seen[axis])
                return Status::badInput("Slice axis " + std::to_string(axes[i]) + " is repeated");
            seen[axis] = true;
            const int64_t dim = data.shape()[axis], step = steps[i];
            if (step == 0) return Status::badInput("Slice step must not be 0");
            // Negative values count from the end; huge ones (INT64_MAX) clamp to the bounds.
            int64_t start = starts[i] < 0 ? starts[i] + dim : starts[i];
            int64_t end = ends[i] < 0 ? ends[i] + dim : ends[i];
            int64_t count = 0;
            if (step > 0) {
                start = std::clamp<int64_t>(start, 0, dim);
                end = std::clamp<int64_t>(end, 0, dim);
                count = end > start ? (end - start + step - 1) / step : 0;
            } else {
                start = std::clamp<int64_t>(start, 0, dim - 1);
                end = std::clamp<int64_t>(end, -1, dim - 1);
                count = start > end ? (start - end - step - 1) / -step : 0;
            }
            view.shape[axis] = count;
            if (count > 0) view.offset += start * view.strides[axis];
            view.strides[axis] *= step;
        }
        return writeView(ctx, data, view, view.shape);
    }

private:
    bool m_fromInputs;
    std::vector<int64_t> m_starts, m_ends, m_axes;
};

// Pad maps every output index of every axis to a source index (or -1 for the constant), then
// copies rows as runs: contiguous source stretches with memcpy, constant stretches with a fill.
class PadKernel : public Kernel {
public:
    explicit PadKernel(const KernelBuildInfo &info)
        : m_opset(info.opset),
          m_mode(info.node.attrString("mode", "constant")),
          m_pads(info.node.attrInts(
              info.opset < 11 && info.node.hasAttribute("paddings") ? "paddings" : "pads")),
          m_value(info.node.attrFloat("value", 0.0f)) {}

    Status run(KernelContext &ctx) override {
        if (m_mode != "constant" && m_mode != "reflect" && m_mode != "edge" && m_mode != "wrap")
            return Status::unsupported("Pad mode '" + m_mode + "' is not supported");
        const Tensor &data = ctx.input(0);
        const int64_t rank = data.rank();
        const size_t es = dataTypeSize(data.dtype());
        std::vector<int64_t> pads = m_pads, axes;
        uint8_t constant[8] = {};
        if (!encodeScalar(data.dtype(), m_value, constant))
            return Status::unsupported("Pad does not support dtype " + dataTypeName(data.dtype()));
        if (m_opset >= 11) {
            if (!ctx.hasInput(1)) return Status::badInput("Pad needs a 'pads' input from opset 11");
            QL_RETURN_IF_ERROR(readInts(ctx.input(1), "Pad 'pads'", &pads));
            if (ctx.hasInput(2) && ctx.input(2).numel() > 0) {
                const Tensor &value = ctx.input(2);
                if (value.dtype() != data.dtype()) {
                    return Status::badInput("Pad constant_value is " + dataTypeName(value.dtype()) +
                                            " but data is " + dataTypeName(data.dtype()));
                }
                std::memcpy(constant, value.rawData(), es);
            }
            if (ctx.hasInput(3)) QL_RETURN_IF_ERROR(readInts(ctx.input(3), "Pad 'axes'", &axes));
        }
        if (axes.empty())
            for (int64_t i = 0; i < rank; ++i) axes.push_back(i);
        const int64_t n = static_cast<int64_t>(axes.size());
        if (static_cast<int64_t>(pads.size()) != 2 * n) {
            return Status::badInput("Pad expects " + std::to_string(2 * n) + " pads for " +
                                    std::to_string(n) + " axes, got " +
                                    std::to_string(pads.size()));
        }
        std::vector<int64_t> before(rank, 0), after(rank, 0);
        for (int64_t i = 0; i < n; ++i) {
            int64_t axis = 0;
            QL_RETURN_IF_ERROR(normalizeAxis(axes[i], rank, "Pad axis", &axis));
            before[axis] = pads[i];
            after[axis] = pads[i + n];
        }
        Shape outShape(rank);
        std::vector<std::vector<int64_t>> source(rank);
        for (int64_t a = 0; a < rank; ++a) {
            const int64_t dim = data.shape()[a];
            outShape[a] = dim + before[a] + after[a];
            if (outShape[a] < 0) {
                return Status::badInput("Pad makes axis " + std::to_string(a) + " of " +
                                        shapeToString(data.shape()) + " negative");
            }
            if (dim == 0 && outShape[a] > 0 && m_mode != "constant")
                return Status::badInput("Pad mode '" + m_mode + "' cannot pad an empty axis");
            source[a].resize(outShape[a]);
            for (int64_t o = 0; o < outShape[a]; ++o)
                source[a][o] = sourceIndex(o - before[a], dim);
        }
        Tensor &out = ctx.allocateOutput(0, data.dtype(), outShape);
        if (out.numel() == 0) return Status::ok();
        if (rank == 0) {
            std::memcpy(out.rawData(), data.rawData(), es);
            return Status::ok();
        }
        copyRows(data, out, source, constant, es);
        return Status::ok();
    }

private:
    int64_t sourceIndex(int64_t i, int64_t dim) const {
        if (i >= 0 && i < dim) return i;
        if (m_mode == "constant") return -1;
        if (m_mode == "edge") return i < 0 ? 0 : dim - 1;
        if (m_mode == "wrap") return ((i % dim) + dim) % dim;
        if (dim == 1) return 0;  // reflect
        const int64_t period = 2 * (dim - 1);
        int64_t r = ((i % period) + period) % period;
        return r < dim ? r : period - r;
    }

    static void copyRows(const Tensor &data, Tensor &out,
                         const std::vector<std::vector<int64_t>> &source, const uint8_t *constant,
                         size_t es) {
        const int64_t rank = data.rank();
        const std::vector<int64_t> inStrides = contiguousStrides(data.shape());
        const std::vector<int64_t> &last = source[rank - 1];
        const int64_t rowLen = out.shape()[rank - 1];
        // Runs of the last axis: (output start, length, source start or -1).
        struct Run {
            int64_t start, length, src;
        };
        std::vector<Run> runs;
        for (int64_t o = 0; o < rowLen; ++o) {
            if (!runs.empty()) {
                Run &prev = runs.back();
                if ((prev.src < 0 && last[o] < 0) ||
                    (prev.src >= 0 && last[o] == prev.src + prev.length)) {
                    ++prev.length;
                    continue;
                }
            }
            runs.push_back(Run{o, 1, last[o]});
        }
        const int64_t rows = out.numel() / rowLen;
        const auto *src = static_cast<const uint8_t *>(data.rawData());
        auto *dst = static_cast<uint8_t *>(out.rawData());
        parallelChunks(rows, rowLen, [&](int64_t begin, int64_t end) {
            for (int64_t r = begin; r < end; ++r) {
                uint8_t *row = dst + r * rowLen * static_cast<int64_t>(es);
                int64_t offset = 0, rest = r;
                bool inside = true;
                for (int64_t a = rank - 2; a >= 0; --a) {
                    const int64_t idx = rest % static_cast<int64_t>(source[a].size());
                    rest /= static_cast<int64_t>(source[a].size());
                    const int64_t s = source[a][idx];
                    if (s < 0) inside = false;
                    offset += s * inStrides[a];
                }
                if (!inside) {
                    fillElements(row, constant, rowLen, es);
                    continue;
                }
                for (const Run &run : runs) {
                    uint8_t *o = row + run.start * static_cast<int64_t>(es);
                    if (run.src < 0)
                        fillElements(o, constant, run.length, es);
                    else
                        std::memcpy(o, src + (offset + run.src) * static_cast<int64_t>(es),
                                    run.length * es);
                }
            }
        });
    }

    int64_t m_opset;
    std::string m_mode;
    std::vector<int64_t> m_pads;
    float m_value;
};

}  // namespace

void registerSlicingKernels(KernelRegistry &registry) {
    registry.add("Concat", makeFactory<ConcatKernel>());
    registry.add("Split", makeFactory<SplitKernel>());
    registry.add("Slice", makeFactory<SliceKernel>());
    registry.add("Pad", makeFactory<PadKernel>());
}

}  // namespace ql::shape
