// Transpose, Expand, Tile, DepthToSpace and SpaceToDepth: each is one strided view of its input
// (permuted, zero or split strides) handed to copyStrided. Views are built from the input's
// logical strides, so channels-last inputs are read in place instead of being converted first.

#include <algorithm>

#include "kernels/kernel.h"
#include "kernels/shape_common.h"

namespace ql::shape {

namespace {

class TransposeKernel : public Kernel {
public:
    explicit TransposeKernel(const KernelBuildInfo &info)
        : m_perm(info.node.attrInts("perm")), m_hasPerm(info.node.hasAttribute("perm")) {}
    bool acceptsChannelsLast(size_t) const override { return true; }

    Status run(KernelContext &ctx) override {
        const Tensor &data = ctx.input(0);
        const int64_t rank = data.rank();
        std::vector<int64_t> perm = m_perm;
        if (!m_hasPerm)
            for (int64_t i = rank - 1; i >= 0; --i) perm.push_back(i);
        if (static_cast<int64_t>(perm.size()) != rank) {
            return Status::badInput("Transpose perm has " + std::to_string(perm.size()) +
                                    " entries for rank " + std::to_string(rank));
        }
        std::vector<bool> used(rank, false);
        for (int64_t &p : perm) {
            int64_t axis = 0;
            QL_RETURN_IF_ERROR(normalizeAxis(p, rank, "Transpose perm entry", &axis));
            if (used[axis])
                return Status::badInput("Transpose perm " + shapeToString(m_perm) +
                                        " repeats an axis");
            used[axis] = true;
            p = axis;
        }
        const std::vector<int64_t> strides = logicalStrides(data);
        StridedView view;
        for (int64_t p : perm) {
            view.shape.push_back(data.shape()[p]);
            view.strides.push_back(strides[p]);
        }
        return writeView(ctx, data, view, view.shape);
    }

private:
    std::vector<int64_t> m_perm;
    bool m_hasPerm;
};

class ExpandKernel : public Kernel {
public:
    explicit ExpandKernel(const KernelBuildInfo &) {}
    bool acceptsChannelsLast(size_t i) const override { return i == 0; }

    Status run(KernelContext &ctx) override {
        const Tensor &data = ctx.input(0);
        std::vector<int64_t> target;
        QL_RETURN_IF_ERROR(readInts(ctx.input(1), "Expand 'shape'", &target));
        const int64_t inRank = data.rank(), tRank = static_cast<int64_t>(target.size());
        const int64_t rank = std::max(inRank, tRank);
        const std::vector<int64_t> inStrides = logicalStrides(data);
        StridedView view;
        for (int64_t i = 0; i < rank; ++i) {
            const int64_t j = i - (rank - inRank), t = i - (rank - tRank);
            const int64_t a = j >= 0 ? data.shape()[j] : 1, b = t >= 0 ? target[t] : 1;
            if (b < 0)
                return Status::badInput("Expand shape " + shapeToString(target) +
                                        " has a negative dim");
            if (a != b && a != 1 && b != 1) {
                return Status::badInput("Expand cannot broadcast " + shapeToString(data.shape()) +
                                        " to " + shapeToString(target));
            }
            const int64_t d = (a == 1) ? b : a;
            view.shape.push_back(d);
            view.strides.push_back(j >= 0 && a == d ? inStrides[j] : 0);
        }
        return writeView(ctx, data, view, view.shape);
    }
};

// Tile is Expand over interleaved repeat dims: [r0, d0, r1, d1, ...] with zero repeat strides.
class TileKernel : public Kernel {
public:
    explicit TileKernel(const KernelBuildInfo &) {}
    bool acceptsChannelsLast(size_t i) const override { return i == 0; }

    Status run(KernelContext &ctx) override {
        const Tensor &data = ctx.input(0);
        std::vector<int64_t> repeats;
        QL_RETURN_IF_ERROR(readInts(ctx.input(1), "Tile 'repeats'", &repeats));
        if (static_cast<int64_t>(repeats.size()) != data.rank()) {
            return Status::badInput("Tile has " + std::to_string(repeats.size()) +
                                    " repeats for rank " + std::to_string(data.rank()));
        }
        const std::vector<int64_t> strides = logicalStrides(data);
        StridedView view;
        Shape outShape;
        for (int64_t i = 0; i < data.rank(); ++i) {
            if (repeats[i] < 0) return Status::badInput("Tile repeats must not be negative");
            view.shape.insert(view.shape.end(), {repeats[i], data.shape()[i]});
            view.strides.insert(view.strides.end(), {0, strides[i]});
            outShape.push_back(repeats[i] * data.shape()[i]);
        }
        return writeView(ctx, data, view, outShape);
    }
};

// DepthToSpace (DCR and CRD) and SpaceToDepth split channels or spatial dims into blocks and
// permute them; the split dims get derived strides so the whole op is one strided copy.
class BlockKernel : public Kernel {
public:
    BlockKernel(const KernelBuildInfo &info, bool toSpace)
        : m_toSpace(toSpace),
          m_block(info.node.attrInt("blocksize", 0)),
          m_crd(info.node.attrString("mode", "DCR") == "CRD") {}
    bool acceptsChannelsLast(size_t) const override { return true; }

    Status run(KernelContext &ctx) override {
        const Tensor &data = ctx.input(0);
        const char *op = m_toSpace ? "DepthToSpace" : "SpaceToDepth";
        if (data.rank() != 4) return Status::badInput(std::string(op) + " expects a rank-4 input");
        if (m_block <= 0) return Status::badInput(std::string(op) + " needs a positive blocksize");
        const int64_t N = data.dim(0), C = data.dim(1), H = data.dim(2), W = data.dim(3),
                      b = m_block;
        const std::vector<int64_t> s = logicalStrides(data);
        const int64_t sn = s[0], sc = s[1], sh = s[2], sw = s[3];
        StridedView view;
        Shape outShape;
        if (m_toSpace) {
            if (C % (b * b) != 0) {
                return Status::badInput("DepthToSpace: channels " + std::to_string(C) +
                                        " not divisible by " + std::to_string(b * b));
            }
            const int64_t c = C / (b * b);
            view.shape = {N, c, H, b, W, b};
            if (m_crd)
                view.strides = {sn, b * b * sc, sh, b * sc, sw, sc};
            else
                view.strides = {sn, sc, sh, b * c * sc, sw, c * sc};
            outShape = {N, c, H * b, W * b};
        } else {
            if (H % b != 0 || W % b != 0) {
                return Status::badInput("SpaceToDepth: spatial dims " +
                                        shapeToString(data.shape()) +
                                        " not divisible by blocksize " + std::to_string(b));
            }
            view.shape = {N, b, b, C, H / b, W / b};
            view.strides = {sn, sh, sw, sc, b * sh, b * sw};
            outShape = {N, C * b * b, H / b, W / b};
        }
        return writeView(ctx, data, view, outShape);
    }

private:
    bool m_toSpace;
    int64_t m_block;
    bool m_crd;
};

}  // namespace

void registerLayoutKernels(KernelRegistry &registry) {
    registry.add("Transpose", makeFactory<TransposeKernel>());
    registry.add("Expand", makeFactory<ExpandKernel>());
    registry.add("Tile", makeFactory<TileKernel>());
    registry.add("DepthToSpace", [](const KernelBuildInfo &info) -> Result<KernelPtr> {
        return KernelPtr(new BlockKernel(info, true));
    });
    registry.add("SpaceToDepth", [](const KernelBuildInfo &info) -> Result<KernelPtr> {
        return KernelPtr(new BlockKernel(info, false));
    });
}

}  // namespace ql::shape
