// The .npz reader: libzip's archive and member parsing, then the .npy reader on each member.
#include "fuzz_support.h"
#include "onnx_io/npz_file.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    ql::fuzz::limitTensors();
    const std::string path = ql::fuzz::writeScratch(data, size, ".npz");
    auto arrays = ql::readNpz(path);
    (void)arrays;
    std::remove(path.c_str());
    return 0;
}
