#pragma once
// Hands out reusable storage: a buffer is free again once no tensor refers to it, so views
// (Reshape outputs, taps) keep their buffer alive without any bookkeeping.

#include <memory>
#include <vector>

#include "ir/tensor.h"

namespace ql {

class BufferPool {
public:
    // Smallest free buffer with at least `bytes`, or a new one.
    std::shared_ptr<Storage> acquire(size_t bytes);
    size_t totalBytes() const;
    // Frees the buffers no tensor refers to (after a run that needed more than the usual ones);
    // returns the bytes freed.
    size_t releaseUnused();

private:
    std::vector<std::shared_ptr<Storage>> m_buffers;
};

}  // namespace ql
