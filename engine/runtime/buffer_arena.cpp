#include "runtime/buffer_arena.h"

#include <sanitizer/asan_interface.h>
#include <sys/mman.h>

#include <algorithm>
#include <cstdint>

namespace ql {
namespace {

constexpr size_t kPage = 4096;
constexpr size_t kHugePage = size_t(2) << 20;
// Under AddressSanitizer every block ends in at least this many poisoned bytes, so a kernel that
// writes past its buffer is still caught as it was with one allocation per buffer.
#if defined(__SANITIZE_ADDRESS__)
constexpr size_t kRedZone = 64;
#else
constexpr size_t kRedZone = 0;
#endif

size_t roundUp(size_t n, size_t to) {
    return (n + to - 1) / to * to;
}

}  // namespace

std::shared_ptr<BufferArena> BufferArena::reserve(size_t bytes) {
    bytes = roundUp(bytes, kHugePage);
    const size_t mappingBytes = bytes + kHugePage;
    void *mapping = mmap(nullptr, mappingBytes, PROT_READ | PROT_WRITE,
                         MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (mapping == MAP_FAILED) return nullptr;
    char *base = reinterpret_cast<char *>(roundUp(reinterpret_cast<uintptr_t>(mapping), kHugePage));
    madvise(base, bytes, MADV_HUGEPAGE);  // a hint: without it, 4 KB pages
    return std::shared_ptr<BufferArena>(new BufferArena(mapping, mappingBytes, base, bytes));
}

BufferArena::BufferArena(void *mapping, size_t mappingBytes, char *base, size_t bytes)
    : m_mapping(mapping), m_mappingBytes(mappingBytes), m_base(base), m_bytes(bytes) {}

BufferArena::~BufferArena() {
    ASAN_UNPOISON_MEMORY_REGION(m_base, m_highest);
    munmap(m_mapping, m_mappingBytes);
}

size_t BufferArena::blockBytes(size_t bytes) {
    return roundUp(bytes + kRedZone, kPage);
}

std::optional<size_t> BufferArena::take(size_t bytes) {
    const size_t block = blockBytes(bytes);
    auto best = m_free.end();
    for (auto it = m_free.begin(); it != m_free.end(); ++it)
        if (it->second >= block && (best == m_free.end() || it->second < best->second)) best = it;
    size_t offset;
    if (best != m_free.end()) {
        offset = best->first;
        const size_t rest = best->second - block;
        m_free.erase(best);
        if (rest > 0) m_free.emplace(offset + block, rest);
    } else {
        if (block > m_bytes - m_end) return std::nullopt;
        offset = m_end;
        m_end += block;
        m_touched = std::max(m_touched, m_end);
        m_highest = std::max(m_highest, m_end);
    }
    ASAN_UNPOISON_MEMORY_REGION(m_base + offset, bytes);
    ASAN_POISON_MEMORY_REGION(m_base + offset + bytes, block - bytes);
    return offset;
}

void BufferArena::giveBack(size_t offset, size_t bytes) {
    size_t size = blockBytes(bytes);
    ASAN_POISON_MEMORY_REGION(m_base + offset, size);
    auto next = m_free.lower_bound(offset);
    if (next != m_free.end() && offset + size == next->first) {
        size += next->second;
        next = m_free.erase(next);
    }
    if (next != m_free.begin()) {
        auto previous = std::prev(next);
        if (previous->first + previous->second == offset) {
            offset = previous->first;
            size += previous->second;
            m_free.erase(previous);
        }
    }
    if (offset + size == m_end)
        m_end = offset;
    else
        m_free.emplace(offset, size);
}

void BufferArena::releaseFreePages() {
    for (const auto &[offset, size] : m_free) madvise(m_base + offset, size, MADV_DONTNEED);
    if (m_touched > m_end) madvise(m_base + m_end, m_touched - m_end, MADV_DONTNEED);
    m_touched = m_end;
}

}  // namespace ql
