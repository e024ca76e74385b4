#pragma once
// FNV-1a (64-bit): a fast, stable hash of bytes, for memo keys and fingerprints (not security).
// Chain calls by passing the previous result as `hash`.

#include <cstddef>
#include <cstdint>

namespace ql {

constexpr uint64_t kFnvOffsetBasis = 14695981039346656037ull;

inline uint64_t fnv1a(const void *data, size_t bytes, uint64_t hash = kFnvOffsetBasis) {
    for (size_t i = 0; i < bytes; ++i)
        hash = (hash ^ static_cast<const unsigned char *>(data)[i]) * 1099511628211ull;
    return hash;
}

}  // namespace ql
