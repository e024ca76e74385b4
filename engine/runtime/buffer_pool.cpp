#include "runtime/buffer_pool.h"

namespace ql {

std::shared_ptr<Storage> BufferPool::acquire(size_t bytes) {
    std::shared_ptr<Storage> *best = nullptr;
    for (auto &buffer : m_buffers) {
        if (buffer.use_count() != 1 || buffer->capacity() < bytes) continue;
        if (!best || buffer->capacity() < (*best)->capacity()) best = &buffer;
    }
    if (best) return *best;
    m_buffers.push_back(std::make_shared<Storage>(bytes));
    return m_buffers.back();
}

size_t BufferPool::totalBytes() const {
    size_t total = 0;
    for (const auto &buffer : m_buffers) total += buffer->capacity();
    return total;
}

size_t BufferPool::releaseUnused() {
    size_t freed = 0;
    std::vector<std::shared_ptr<Storage>> kept;
    for (auto &buffer : m_buffers) {
        if (buffer.use_count() == 1)
            freed += buffer->capacity();
        else
            kept.push_back(std::move(buffer));
    }
    m_buffers = std::move(kept);
    return freed;
}

}  // namespace ql
