// The .npy reader (whole file, header, row ranges) and the TensorProto (.pb) reader; the bytes
// go to a .npy file when they start with numpy's magic, else to a .pb file.
#include <cstring>

#include "fuzz_support.h"
#include "onnx_io/tensor_file.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    ql::fuzz::limitTensors();
    const bool npy = size >= 6 && std::memcmp(data, "\x93NUMPY", 6) == 0;
    const std::string path = ql::fuzz::writeScratch(data, size, npy ? ".npy" : ".pb");
    auto whole = ql::readTensorFile(path);
    (void)whole;
    if (npy)
        if (auto header = ql::readNpyHeader(path)) {
            auto rows = ql::readNpyRows(path, *header, 1, 2);
            (void)rows;
        }
    std::remove(path.c_str());
    return 0;
}
