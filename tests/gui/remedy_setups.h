#pragma once
// The analysis setups the remedy GUI tests share: the Fashion-MNIST fixtures of tests/data/remedies
// quantized in the app with per-tensor weights, calibrated on the 64 calibration images.
#include <QString>

#include "analysis_setup.h"

namespace remedy_setups {

inline const QString kData = QStringLiteral(QL_TEST_DATA_DIR "/remedies");

// `model` (a file of tests/data/remedies) evaluated on `data` in batches of `batch`.
inline AnalysisSetup perTensorInApp(const QString &model, const QString &data, int batch) {
    AnalysisSetup setup;
    setup.floatModel = kData + "/" + model;
    setup.quantizeInApp = true;
    setup.calibrationPaths = {kData + "/fashion_calib.npy"};
    setup.quantizer.perTensor = true;
    setup.dataPaths = {kData + "/" + data};
    setup.batch = batch;
    return setup;
}

// The balanced MobileNet on the 1,000 test images.
inline AnalysisSetup fashionMobileNet(int batch) {
    return perTensorInApp("fashion_mobilenet_balanced.onnx", "fashion_test.npy", batch);
}

// The same on its 64 calibration images: the window's mechanics, at a fifteenth of the cost (the
// engine's tests measure the remedies on images they were not calibrated on).
inline AnalysisSetup fashionMobileNetOnCalibration() {
    return perTensorInApp("fashion_mobilenet_balanced.onnx", "fashion_calib.npy", 32);
}

}  // namespace remedy_setups
