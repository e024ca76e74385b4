#pragma once
// Hands out reusable storage: a buffer is free again once no tensor refers to it, so views
// (Reshape outputs, taps) keep their buffer alive without any bookkeeping. Large buffers come
// from one BufferArena per pool, where free neighbours merge into room for a larger one.

#include <memory>
#include <optional>
#include <vector>

#include "ir/tensor.h"

namespace ql {

class BufferArena;

class BufferPool {
public:
    BufferPool();
    ~BufferPool();
    BufferPool(const BufferPool &) = delete;
    BufferPool &operator=(const BufferPool &) = delete;

    // Smallest free buffer with at least `bytes`, or a new one.
    std::shared_ptr<Storage> acquire(size_t bytes);
    // The capacity of the buffers held, free or not.
    size_t totalBytes() const;
    // Frees the buffers no tensor refers to (after a run that needed more than the usual ones)
    // and returns their memory to the system; returns the bytes freed.
    size_t releaseUnused();

private:
    struct Buffer {
        std::shared_ptr<Storage> storage;
        std::optional<size_t> arenaOffset;  // none: an allocation of its own
        bool isFree() const { return storage.use_count() == 1; }
    };
    std::shared_ptr<Storage> newBuffer(size_t bytes);
    // Drops the free buffers (those from the arena go back to it); returns their capacity.
    size_t dropFree(bool arenaOnly);

    std::vector<Buffer> m_buffers;
    std::shared_ptr<BufferArena> m_arena;  // reserved with the first large buffer
    bool m_arenaRefused = false;
};

}  // namespace ql
