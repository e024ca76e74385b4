#pragma once
// Fuzz harnesses: LLVMFuzzerTestOneInput per reader. Readers that take a path get the bytes
// through a file of this process's own (in /dev/shm when there is one: no disk writes).
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include <unistd.h>

namespace ql::fuzz {

inline std::string scratchPath(const char *suffix) {
    const char *folder = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
    return std::string(folder) + "/quantlens-fuzz-" + std::to_string(getpid()) + suffix;
}

inline std::string writeScratch(const uint8_t *data, size_t size, const char *suffix) {
    const std::string path = scratchPath(suffix);
    if (FILE *f = std::fopen(path.c_str(), "wb")) {
        if (size) std::fwrite(data, 1, size, f);
        std::fclose(f);
    }
    return path;
}

// A budget small enough that a hostile size is refused fast instead of tying up the fuzzer.
inline void limitTensors() { setenv("QL_MAX_TENSOR_BYTES", "268435456", 0); }

}  // namespace ql::fuzz
