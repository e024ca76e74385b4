// The buffer pool and the arena its large buffers come from: reuse, merging of free neighbours,
// and memory that stays valid while a tensor holds it.

#include <gtest/gtest.h>

#include <cstring>

#include "runtime/buffer_arena.h"
#include "runtime/buffer_pool.h"

using namespace ql;

namespace {

constexpr size_t kMB = size_t(1) << 20;

bool arenasAvailable() {
    return BufferArena::reserve(size_t(1) << 30) != nullptr;
}

}  // namespace

TEST(BufferPool, ReleaseUnusedFreesOnlyUnreferencedBuffers) {
    BufferPool pool;
    auto held = pool.acquire(1000);
    (void)pool.acquire(3000);  // given back at once
    ASSERT_EQ(pool.totalBytes(), held->capacity() + 3000u);
    EXPECT_EQ(pool.releaseUnused(), 3000u);
    EXPECT_EQ(pool.totalBytes(), held->capacity());
    EXPECT_EQ(pool.releaseUnused(), 0u);
    held.reset();
    EXPECT_EQ(pool.releaseUnused(), 1000u);
    EXPECT_EQ(pool.totalBytes(), 0u);
}

TEST(BufferArena, TakesTheBestFitAndMergesFreeNeighbours) {
    auto arena = BufferArena::reserve(64 * kMB);
    if (!arena) GTEST_SKIP() << "the system refuses to reserve address space";
    const size_t a = *arena->take(3 * kMB), b = *arena->take(kMB), c = *arena->take(2 * kMB);
    EXPECT_EQ(a, 0u);
    EXPECT_GE(b, a + 3 * kMB);
    EXPECT_GE(c, b + kMB);
    const size_t end = arena->end();
    EXPECT_GE(end, c + 2 * kMB);

    arena->giveBack(b, kMB);
    EXPECT_EQ(*arena->take(kMB / 2), b);  // the freed 1 MB range, not the end
    arena->giveBack(b, kMB / 2);
    // Neither freed range holds 4 MB alone; merged they do, and the arena does not grow.
    arena->giveBack(a, 3 * kMB);
    EXPECT_EQ(*arena->take(4 * kMB), a);
    EXPECT_EQ(arena->end(), end);

    arena->giveBack(c, 2 * kMB);  // the last block: the end moves back
    EXPECT_LE(arena->end(), c);
    EXPECT_FALSE(arena->take(64 * kMB).has_value());  // more than is left
}

TEST(BufferPool, LargeBufferReusesTheMemoryOfFreedSmallerOnes) {
    if (!arenasAvailable()) GTEST_SKIP() << "the system refuses to reserve address space";
    BufferPool pool;
    auto a = pool.acquire(3 * kMB), b = pool.acquire(3 * kMB), held = pool.acquire(2 * kMB);
    std::memset(held->data(), 7, held->capacity());
    void *first = a->data();
    a.reset();
    b.reset();
    auto large = pool.acquire(5 * kMB);  // more than either freed buffer
    EXPECT_EQ(large->data(), first);
    EXPECT_EQ(pool.totalBytes(), 7 * kMB);  // the two 3 MB buffers are gone
    std::memset(large->data(), 1, large->capacity());
    const auto *bytes = static_cast<const unsigned char *>(held->data());
    for (size_t i = 0; i < held->capacity(); i += 4096) ASSERT_EQ(bytes[i], 7) << i;

    large.reset();
    EXPECT_EQ(pool.releaseUnused(), 5 * kMB);
    EXPECT_EQ(pool.totalBytes(), 2 * kMB);
}

// The arena has room for more than one tensor may take; the limit holds all the same.
TEST(BufferPool, BufferOverTheTensorLimitThrows) {
    BufferPool pool;
    EXPECT_THROW((void)pool.acquire(maxTensorBytes() + 1), TensorTooLarge);
    EXPECT_EQ(pool.totalBytes(), 0u);
}

// A tensor may hold a buffer after its pool is gone (a plan's output): the memory stays valid.
TEST(BufferPool, BufferOutlivesItsPool) {
    std::shared_ptr<Storage> kept;
    {
        BufferPool pool;
        kept = pool.acquire(4 * kMB);
        (void)pool.acquire(2 * kMB);
    }
    std::memset(kept->data(), 3, kept->capacity());
    EXPECT_EQ(static_cast<const unsigned char *>(kept->data())[kept->capacity() - 1], 3);
}

#if defined(__SANITIZE_ADDRESS__)
// Under AddressSanitizer a write just past an arena buffer is caught, as past a malloc'd one.
TEST(BufferPoolDeathTest, OverrunIsCaughtUnderAddressSanitizer) {
    BufferPool pool;
    auto buffer = pool.acquire(2 * kMB);
    volatile char *bytes = static_cast<char *>(buffer->data());
    EXPECT_DEATH(bytes[2 * kMB] = 1, "AddressSanitizer");
}
#endif
