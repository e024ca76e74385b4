#include "runtime/buffer_pool.h"

#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>

#include "runtime/buffer_arena.h"

namespace ql {
namespace {

// Buffers from this size on come from the arena; smaller ones are cheap to allocate and their
// waste is small.
constexpr size_t kArenaMinBytes = size_t(1) << 20;

// A pool never holds more than the machine's memory, and the address space costs nothing unless
// the process has a limit on it (ulimit -v): then a pool takes at most a quarter of that.
size_t arenaReservation() {
    const long pages = sysconf(_SC_PHYS_PAGES), pageBytes = sysconf(_SC_PAGESIZE);
    size_t bytes =
        pages > 0 && pageBytes > 0 ? size_t(pages) * size_t(pageBytes) : size_t(64) << 30;
    rlimit limit{};
    if (getrlimit(RLIMIT_AS, &limit) == 0 && limit.rlim_cur != RLIM_INFINITY)
        bytes = std::min<size_t>(bytes, limit.rlim_cur / 4);
    return bytes;
}

}  // namespace

BufferPool::BufferPool() = default;
BufferPool::~BufferPool() = default;

std::shared_ptr<Storage> BufferPool::acquire(size_t bytes) {
    const Buffer *best = nullptr;
    for (const Buffer &buffer : m_buffers) {
        if (!buffer.isFree() || buffer.storage->capacity() < bytes) continue;
        if (!best || buffer.storage->capacity() < best->storage->capacity()) best = &buffer;
    }
    if (best) return best->storage;
    return newBuffer(bytes);
}

std::shared_ptr<Storage> BufferPool::newBuffer(size_t bytes) {
    // Over the tensor limit, Storage's constructor below throws TensorTooLarge.
    if (bytes >= kArenaMinBytes && bytes <= maxTensorBytes() && !m_arenaRefused) {
        if (!m_arena) {
            m_arena = BufferArena::reserve(arenaReservation());
            m_arenaRefused = !m_arena;
        } else {
            dropFree(true);  // none fits alone: merged, their ranges may
        }
        if (m_arena) {
            if (const std::optional<size_t> offset = m_arena->take(bytes)) {
                auto storage = std::make_shared<Storage>(m_arena->at(*offset), bytes, m_arena);
                m_buffers.push_back({storage, offset});
                return storage;
            }
        }
    }
    auto storage = std::make_shared<Storage>(bytes);
    m_buffers.push_back({storage, std::nullopt});
    return storage;
}

size_t BufferPool::dropFree(bool arenaOnly) {
    size_t freed = 0;
    auto dropped = [&](const Buffer &buffer) {
        if (!buffer.isFree() || (arenaOnly && !buffer.arenaOffset)) return false;
        freed += buffer.storage->capacity();
        if (buffer.arenaOffset) m_arena->giveBack(*buffer.arenaOffset, buffer.storage->capacity());
        return true;
    };
    m_buffers.erase(std::remove_if(m_buffers.begin(), m_buffers.end(), dropped), m_buffers.end());
    return freed;
}

size_t BufferPool::totalBytes() const {
    size_t total = 0;
    for (const Buffer &buffer : m_buffers) total += buffer.storage->capacity();
    return total;
}

size_t BufferPool::releaseUnused() {
    const size_t freed = dropFree(false);
    if (m_arena) m_arena->releaseFreePages();
    return freed;
}

}  // namespace ql
