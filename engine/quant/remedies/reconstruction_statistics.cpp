#include "quant/remedies/reconstruction_statistics.h"

#include <algorithm>
#include <numeric>
#include <random>

#include "kernels/convolution_common.h"
#include "kernels/dense_gemm.h"

namespace ql::quant {

Result<ReconstructionStatistics> ReconstructionStatistics::forLayer(const Graph &graph,
                                                                    const Node &node) {
    ReconstructionStatistics s;
    s.m_node = node;
    const Tensor *stored = node.hasInput(1) ? graph.initializer(node.inputs[1]) : nullptr;
    if (!stored || stored->dtype() != DataType::Float)
        return Status::unsupported("its weight is not a float constant");
    const Tensor weight = stored->toPlain();
    s.m_weightShape = weight.shape();
    const int64_t rank = weight.rank();
    int64_t outputs = 0;
    if (node.opType == "Conv") {
        if (rank != 3 && rank != 4)
            return Status::unsupported("only Conv with 1 or 2 spatial dimensions");
        s.m_conv = true;
        s.m_groups = node.attrInt("group", 1);
        outputs = weight.dim(0);
        if (s.m_groups < 1 || outputs % s.m_groups)
            return Status::unsupported("group does not divide the output channels");
        s.m_depth = weight.numel() / outputs;
    } else if (node.opType == "Gemm" || node.opType == "MatMul") {
        if (rank != 2) return Status::unsupported("its weight is not a matrix");
        if (node.opType == "Gemm" && node.attrInt("transA", 0))
            return Status::unsupported("Gemm with transA = 1");
        s.m_transposed = node.opType == "MatMul" || !node.attrInt("transB", 0);
        outputs = s.m_transposed ? weight.dim(1) : weight.dim(0);
        s.m_depth = s.m_transposed ? weight.dim(0) : weight.dim(1);
    } else {
        return Status::unsupported(node.opType + " is not a Conv, Gemm or MatMul");
    }
    s.m_rows = outputs / s.m_groups;
    s.m_weights.resize(static_cast<size_t>(outputs * s.m_depth));
    const float *w = weight.data<float>();
    if (s.m_transposed)  // [depth, outputs] -> [outputs, depth]
        for (int64_t r = 0; r < outputs; ++r)
            for (int64_t k = 0; k < s.m_depth; ++k)
                s.m_weights[static_cast<size_t>(r * s.m_depth + k)] = w[k * outputs + r];
    else
        std::copy(w, w + weight.numel(), s.m_weights.begin());
    s.m_gram.assign(static_cast<size_t>(s.m_groups * s.m_depth * s.m_depth), 0.0f);
    s.m_drift.assign(static_cast<size_t>(outputs * s.m_depth), 0.0f);
    return s;
}

namespace {

// The positions of one sample to use: all, or `cap` of them drawn without replacement (sorted).
std::vector<int64_t> drawPositions(int64_t positions, int64_t cap, uint64_t seed, uint64_t sample) {
    std::vector<int64_t> chosen(static_cast<size_t>(positions));
    std::iota(chosen.begin(), chosen.end(), 0);
    if (cap <= 0 || positions <= cap) return chosen;
    std::mt19937_64 random(seed * 0x9E3779B97F4A7C15ULL + sample);
    for (int64_t i = 0; i < cap; ++i) {
        std::uniform_int_distribution<int64_t> pick(i, positions - 1);
        std::swap(chosen[static_cast<size_t>(i)], chosen[static_cast<size_t>(pick(random))]);
    }
    chosen.resize(static_cast<size_t>(cap));
    std::sort(chosen.begin(), chosen.end());
    return chosen;
}

}  // namespace

Status ReconstructionStatistics::add(const Tensor &quantizedInput, const Tensor &floatInput,
                                     int64_t columnsPerSample, uint64_t seed) {
    const std::string what = m_node.describe() + ": ";
    if (quantizedInput.dtype() != DataType::Float || floatInput.dtype() != DataType::Float ||
        quantizedInput.shape() != floatInput.shape() || quantizedInput.rank() < 2)
        return Status::badInput(what + "the quantized and float inputs differ in type or shape");
    const Tensor q = quantizedInput.toPlain(), f = floatInput.toPlain();
    const float *xq = q.data<float>(), *xf = f.data<float>();
    std::vector<float> cq, cf;  // the sampled columns, one row of `depth` values each

    if (!m_conv) {
        if (q.shape().back() != m_depth)
            return Status::badInput(what + "its input " + shapeToString(q.shape()) + " has no " +
                                    std::to_string(m_depth) + " values in its last dimension");
        const int64_t samples = q.dim(0), perSample = q.numel() / (samples * m_depth);
        for (int64_t n = 0; n < samples; ++n) {
            const bool validation = isValidationSample(m_samples);
            const auto positions = drawPositions(perSample, columnsPerSample, seed, m_samples++);
            cq.clear(), cf.clear();
            for (int64_t p : positions) {
                const int64_t at = (n * perSample + p) * m_depth;
                cq.insert(cq.end(), xq + at, xq + at + m_depth);
                cf.insert(cf.end(), xf + at, xf + at + m_depth);
            }
            addColumns(cq, cf, static_cast<int64_t>(positions.size()), 0, validation);
        }
        return Status::ok();
    }

    // Conv: 1-D inputs are 2-D ones of height 1.
    Shape x = q.shape(), w = m_weightShape;
    if (x.size() == 3) x.insert(x.begin() + 2, 1);
    if (w.size() == 3) w.insert(w.begin() + 2, 1);
    conv::ConvAttributes attrs = conv::readConvAttributes(m_node);
    if (m_weightShape.size() == 3) {
        auto widen = [](std::vector<int64_t> &v, int64_t one) {
            if (!v.empty()) v.insert(v.begin(), one);
        };
        widen(attrs.kernelShape, 1), widen(attrs.strides, 1), widen(attrs.dilations, 1);
        if (attrs.pads.size() == 2) attrs.pads = {0, attrs.pads[0], 0, attrs.pads[1]};
    }
    conv::ConvGeometry g;
    Status shaped = conv::resolveConvGeometry(attrs, x, w, g);
    if (!shaped) return shaped.withContext(m_node.describe());
    const int64_t channels = x[1], height = x[2], width = x[3];
    const int64_t groupChannels = channels / m_groups, kh = g.kernel[0], kw = g.kernel[1];
    const int64_t outH = g.outputShape[2], outW = g.outputShape[3];
    for (int64_t n = 0; n < x[0]; ++n) {
        const bool validation = isValidationSample(m_samples);
        const auto positions = drawPositions(outH * outW, columnsPerSample, seed, m_samples++);
        const int64_t count = static_cast<int64_t>(positions.size());
        for (int64_t group = 0; group < m_groups; ++group) {
            cq.assign(static_cast<size_t>(count * m_depth), 0.0f);
            cf.assign(cq.size(), 0.0f);
            for (int64_t i = 0; i < count; ++i) {
                const int64_t oy = positions[static_cast<size_t>(i)] / outW;
                const int64_t ox = positions[static_cast<size_t>(i)] % outW;
                float *rq = cq.data() + i * m_depth, *rf = cf.data() + i * m_depth;
                for (int64_t c = 0; c < groupChannels; ++c) {
                    const int64_t plane = (n * channels + group * groupChannels + c) * height;
                    for (int64_t ky = 0; ky < kh; ++ky) {
                        const int64_t iy = oy * g.strides[0] - g.padBegin[0] + ky * g.dilations[0];
                        if (iy < 0 || iy >= height) continue;
                        for (int64_t kx = 0; kx < kw; ++kx) {
                            const int64_t ix =
                                ox * g.strides[1] - g.padBegin[1] + kx * g.dilations[1];
                            if (ix < 0 || ix >= width) continue;
                            const int64_t k = (c * kh + ky) * kw + kx,
                                          at = (plane + iy) * width + ix;
                            rq[k] = xq[at], rf[k] = xf[at];
                        }
                    }
                }
            }
            addColumns(cq, cf, count, group, validation);
        }
    }
    return Status::ok();
}

bool ReconstructionStatistics::isValidationSample(uint64_t sample) const {
    return m_validationEvery > 1 &&
           sample % uint64_t(m_validationEvery) == uint64_t(m_validationEvery - 1);
}

void ReconstructionStatistics::addColumns(const std::vector<float> &xq,
                                          const std::vector<float> &xf, int64_t count,
                                          int64_t group, bool validation) {
    const int64_t d = m_depth, rows = m_rows;
    if (validation) {  // as many columns as the cap leaves
        Columns &kept = m_validation[static_cast<size_t>(group)];
        count = std::min(count, m_validationCap - kept.count);
    }
    if (count <= 0) return;
    const float *w = m_weights.data() + group * rows * d;
    // [count, rows] each: W x_f, then d = W x_f − W x_q.
    std::vector<float> exact(static_cast<size_t>(count * rows)), shift(exact.size());
    denseGemm(false, true, count, rows, d, 1.0f, xf.data(), d, w, d, 0.0f, exact.data(), rows);
    denseGemm(false, true, count, rows, d, 1.0f, xq.data(), d, w, d, 0.0f, shift.data(), rows);
    double signal = 0, inputError = 0;
    for (size_t i = 0; i < exact.size(); ++i) {
        shift[i] = exact[i] - shift[i];
        signal += double(exact[i]) * exact[i];
        inputError += double(shift[i]) * shift[i];
    }
    if (validation) {
        Columns &kept = m_validation[static_cast<size_t>(group)];
        kept.inputs.insert(kept.inputs.end(), xq.begin(), xq.begin() + count * d);
        kept.shifts.insert(kept.shifts.end(), shift.begin(), shift.end());
        kept.count += count;
        kept.signal += signal;
        return;
    }
    denseGemm(true, false, d, d, count, 1.0f, xq.data(), d, xq.data(), d, 1.0f,
              m_gram.data() + group * d * d, d);
    denseGemm(true, false, rows, d, count, 1.0f, shift.data(), rows, xq.data(), d, 1.0f,
              m_drift.data() + group * rows * d, d);
    m_signal += signal, m_inputError += inputError;
    if (group == 0) m_columns += count;
}

double ReconstructionStatistics::squaredError(const std::vector<float> &delta,
                                              bool withInputError) const {
    const int64_t d = m_depth, rows = m_rows;
    std::vector<float> product(static_cast<size_t>(rows * d));
    double quadratic = 0, linear = 0;
    for (int64_t group = 0; group < m_groups; ++group) {
        const float *x = delta.data() + group * rows * d;
        denseGemm(false, false, rows, d, d, 1.0f, x, d, gram(group), d, 0.0f, product.data(), d);
        const float *c = drift(group);
        for (int64_t i = 0; i < rows * d; ++i)
            quadratic += double(product[static_cast<size_t>(i)]) * x[i],
                linear += double(c[i]) * x[i];
    }
    if (!withInputError) return quadratic;
    return std::max(0.0, quadratic - 2.0 * linear + m_inputError);
}

void ReconstructionStatistics::holdOut(int every, int64_t maxColumns) {
    m_validationEvery = every;
    m_validationCap = maxColumns;
    m_validation.assign(static_cast<size_t>(m_groups), Columns{});
}

int64_t ReconstructionStatistics::validationColumns() const {
    return m_validation.empty() ? 0 : m_validation.front().count;
}

double ReconstructionStatistics::validationSignal() const {
    double s = 0;
    for (const Columns &c : m_validation) s += c.signal;
    return s;
}

double ReconstructionStatistics::validationError(const std::vector<float> &delta,
                                                 bool withInputError) const {
    const int64_t d = m_depth, rows = m_rows;
    double error = 0;
    for (int64_t group = 0; group < static_cast<int64_t>(m_validation.size()); ++group) {
        const Columns &c = m_validation[static_cast<size_t>(group)];
        if (c.count == 0) continue;
        std::vector<float> out(static_cast<size_t>(c.count * rows));  // Δ x_q, [count, rows]
        denseGemm(false, true, c.count, rows, d, 1.0f, c.inputs.data(), d,
                  delta.data() + group * rows * d, d, 0.0f, out.data(), rows);
        for (size_t i = 0; i < out.size(); ++i) {
            const double e = withInputError ? double(out[i]) - c.shifts[i] : out[i];
            error += e * e;
        }
    }
    return error;
}

Tensor ReconstructionStatistics::weightTensor(const std::vector<float> &matrix) const {
    const int64_t outputs = m_groups * m_rows;
    std::vector<float> stored(matrix.size());
    if (m_transposed)
        for (int64_t r = 0; r < outputs; ++r)
            for (int64_t k = 0; k < m_depth; ++k)
                stored[static_cast<size_t>(k * outputs + r)] =
                    matrix[static_cast<size_t>(r * m_depth + k)];
    else
        stored = matrix;
    return Tensor::fromVector<float>(m_weightShape, stored);
}

}  // namespace ql::quant
