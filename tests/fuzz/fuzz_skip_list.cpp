// The skip-list reader (`--skip-list`).
#include "fuzz_support.h"
#include "skip_list_file.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    const std::string path = ql::fuzz::writeScratch(data, size, ".json");
    ql::quant::QuantizationOptions options;
    const ql::Status status = readSkipListFile(QString::fromStdString(path),
                                               QStringLiteral("model.onnx"), options);
    (void)status;
    std::remove(path.c_str());
    return 0;
}
