#include "kernels/binary_broadcast.h"

#include <algorithm>

namespace ql::binary {

namespace {

constexpr size_t kMaxRank = 16;

std::string listShapes(const std::vector<Shape> &shapes) {
    std::string text;
    for (size_t i = 0; i < shapes.size(); ++i) {
        if (i) text += (i + 1 == shapes.size()) ? " and " : ", ";
        text += shapeToString(shapes[i]);
    }
    return text;
}

Shape padLeft(const Shape &shape, size_t rank) {
    Shape padded(rank - shape.size(), 1);
    padded.insert(padded.end(), shape.begin(), shape.end());
    return padded;
}

// Plain memory order of a rank<=4 shape equals its NHWC order when C or both H and W are 1.
bool plainIsNhwc(const Shape &shape) {
    const Shape s = padLeft(shape, 4);
    return s[1] == 1 || (s[2] == 1 && s[3] == 1);
}

Shape toNhwc(const Shape &shape) {
    const Shape s = padLeft(shape, 4);
    return {s[0], s[2], s[3], s[1]};
}

}  // namespace

Result<Shape> broadcastShapes(const std::vector<Shape> &shapes) {
    size_t rank = 0;
    for (const Shape &s : shapes) rank = std::max(rank, s.size());
    Shape out(rank, 1);
    for (const Shape &s : shapes) {
        const Shape padded = padLeft(s, rank);
        for (size_t d = 0; d < rank; ++d) {
            if (padded[d] == out[d] || padded[d] == 1) continue;
            if (out[d] != 1) {
                return Status::badInput("input shapes " + listShapes(shapes) +
                                        " are not broadcastable");
            }
            out[d] = padded[d];
        }
    }
    return out;
}

BroadcastPlan makePlan(const Shape &out, const std::vector<Shape> &inputs) {
    BroadcastPlan plan;
    plan.inputs = static_cast<int>(inputs.size());
    plan.total = shapeElementCount(out);
    const size_t rank = out.size();
    std::vector<Shape> padded;
    for (const Shape &s : inputs) padded.push_back(padLeft(s, rank));

    // Merge runs of dims over which every input is either fully present or fully broadcast.
    std::vector<int64_t> dims;
    std::vector<std::vector<bool>> broadcast(inputs.size());
    for (size_t d = 0; d < rank; ++d) {
        if (out[d] == 1) continue;
        bool sameAsPrevious = !dims.empty();
        for (size_t k = 0; k < inputs.size() && sameAsPrevious; ++k)
            sameAsPrevious = broadcast[k].back() == (padded[k][d] == 1);
        if (sameAsPrevious) {
            dims.back() *= out[d];
            continue;
        }
        dims.push_back(out[d]);
        for (size_t k = 0; k < inputs.size(); ++k) broadcast[k].push_back(padded[k][d] == 1);
    }
    if (dims.empty()) {
        dims.push_back(1);
        for (auto &b : broadcast) b.push_back(false);
    }
    plan.dims = dims;
    for (size_t k = 0; k < inputs.size(); ++k) {
        std::vector<int64_t> &strides = plan.strides[k];
        strides.assign(dims.size(), 0);
        int64_t step = 1;
        for (size_t d = dims.size(); d-- > 0;) {
            if (broadcast[k][d]) continue;
            strides[d] = step;
            step *= dims[d];
        }
    }
    return plan;
}

LegacyBroadcast LegacyBroadcast::fromNode(const Node &node, int64_t opset) {
    LegacyBroadcast legacy;
    if (opset >= 7) return legacy;
    legacy.enabled = node.attrInt("broadcast", 0) != 0;
    legacy.axis = node.hasAttribute("axis") ? node.attrInt("axis", -1) : -1;
    return legacy;
}

Status prepareBroadcast(std::vector<Tensor> inputs, bool allowChannelsLast, Prepared &out) {
    out = Prepared();
    std::vector<Shape> shapes;
    bool anyChannelsLast = false;
    for (const Tensor &t : inputs) {
        shapes.push_back(t.shape());
        anyChannelsLast = anyChannelsLast || t.layout() == Layout::ChannelsLast;
        if (t.rank() > static_cast<int>(kMaxRank))
            return Status::unsupported("rank " + std::to_string(t.rank()) + " is not supported");
    }
    Result<Shape> shape = broadcastShapes(shapes);
    if (!shape) return shape.status();
    out.outShape = shape.value();

    bool physical = anyChannelsLast && allowChannelsLast && out.outShape.size() == 4;
    for (size_t i = 0; physical && i < inputs.size(); ++i)
        physical = inputs[i].layout() == Layout::ChannelsLast || plainIsNhwc(shapes[i]);
    if (physical) {
        for (const Shape &s : shapes) out.shapes.push_back(toNhwc(s));
        out.iterOut = toNhwc(out.outShape);
        out.outLayout = Layout::ChannelsLast;
    } else {
        for (Tensor &t : inputs) t = t.toPlain();
        out.shapes = shapes;
        out.iterOut = out.outShape;
    }
    out.inputs = std::move(inputs);
    return Status::ok();
}

Status prepareBroadcast(const KernelContext &ctx, size_t count, const LegacyBroadcast &legacy,
                        bool allowChannelsLast, Prepared &out) {
    std::vector<Tensor> inputs;
    for (size_t i = 0; i < count; ++i) {
        if (!ctx.hasInput(i)) return Status::badInput("input " + std::to_string(i) + " is missing");
        inputs.push_back(ctx.input(i));
    }
    if (legacy.enabled && inputs.size() == 2) {
        // Old-style broadcast: B's dims line up with A's starting at `axis`.
        const Tensor a = inputs[0];
        Tensor b = inputs[1].toPlain();
        const int64_t rankA = a.rank(), rankB = b.rank();
        const int64_t axis = legacy.axis < 0 ? rankA - rankB : legacy.axis;
        if (rankB > rankA || axis < 0 || axis + rankB > rankA) {
            return Status::badInput("cannot broadcast shape " + shapeToString(b.shape()) + " to " +
                                    shapeToString(a.shape()) + " at axis " +
                                    std::to_string(legacy.axis));
        }
        Shape aligned(static_cast<size_t>(axis), 1);
        aligned.insert(aligned.end(), b.shape().begin(), b.shape().end());
        aligned.resize(static_cast<size_t>(rankA), 1);
        inputs[1] = b.reshaped(aligned);
    }
    return prepareBroadcast(std::move(inputs), allowChannelsLast, out);
}

}  // namespace ql::binary
