#pragma once
// A reserved range of address space that a BufferPool carves its large buffers from. Memory is
// touched only where blocks go, and a block given back merges with free neighbours, so a later
// block of any size can reuse pages already touched. Separate allocations cannot merge: a pool
// of them held 126 MB for a 79 MB peak on mobilenet_v2 at batch 8, and on some VMs each fresh
// megabyte costs about a millisecond of faults and zeroing.

#include <cstddef>
#include <map>
#include <memory>
#include <optional>

namespace ql {

class BufferArena {
public:
    // Reserves `bytes` of address space, asking for transparent huge pages; no memory is used
    // until blocks are written. nullptr when the system refuses (strict overcommit).
    static std::shared_ptr<BufferArena> reserve(size_t bytes);
    ~BufferArena();
    BufferArena(const BufferArena &) = delete;
    BufferArena &operator=(const BufferArena &) = delete;

    // The offset of a block of at least `bytes`: the smallest free range that fits, else past
    // the last block; nullopt when the reservation is full.
    std::optional<size_t> take(size_t bytes);
    // Gives back the block `take(bytes)` returned at `offset`.
    void giveBack(size_t offset, size_t bytes);
    // Returns the pages of free ranges and of the range past the last block to the system.
    void releaseFreePages();

    void *at(size_t offset) const { return m_base + offset; }
    size_t end() const { return m_end; }  // past the last block in use

private:
    BufferArena(void *mapping, size_t mappingBytes, char *base, size_t bytes);
    static size_t blockBytes(size_t bytes);

    void *m_mapping;
    size_t m_mappingBytes;
    char *m_base;                     // m_mapping aligned to a huge page
    size_t m_bytes;                   // usable from m_base
    size_t m_end = 0;                 // free ranges at the end are folded into it
    size_t m_touched = 0;             // the furthest m_end reached since the last release
    size_t m_highest = 0;             // the furthest m_end ever reached
    std::map<size_t, size_t> m_free;  // offset -> bytes; neighbours are merged
};

}  // namespace ql
