#pragma once
// Evaluation images as users have them: JPEG / PNG / BMP / WebP files or folders of them
// (searched recursively), decoded with Qt's image readers, labelled as torchvision's ImageFolder
// labels them (one subfolder per class, class index = position of the folder's name in sorted
// order), and turned into batches of a model input by a preprocessing spec
// (quant/image_preprocess.h). Decoding runs on worker threads, one batch ahead of the caller,
// so memory holds two batches whatever the number of images.

#include <QString>

#include <string>
#include <vector>

#include "analysis/data/data_reader.h"
#include "core/status.h"
#include "ir/graph.h"
#include "quant/calibration.h"
#include "quant/image_preprocess.h"

namespace ql::ui {

// .png .jpg .jpeg .bmp .webp, any case.
bool isImageFile(const std::string &path);
// The paths name images (an image file, or a folder with an image at any depth) rather than
// .npy / .pb tensors.
bool pathsHoldImages(const std::vector<std::string> &paths);

// The pixels of one file, 8 or 16 bits, gray or RGB (alpha dropped, as PIL's convert("RGB")
// does; no EXIF rotation, as PIL does not rotate either). BadInput naming the file and Qt's
// reason when it cannot be read.
Result<quant::DecodedImage> decodeImage(const std::string &path);

// Files in the order given, each folder's images recursively (by folder, then name, as
// os.walk sorted gives them). A single folder whose images all sit in subfolders is an
// ImageFolder: its subfolders are the classes. BadInput for a missing path or no image at all.
Result<analysis::DataFiles> listImages(const std::vector<std::string> &paths);

// Labels for the dataset's files from a file: .npy of integers, a text file with one label per
// line in file order, or a CSV of `file,label` rows (file: a path as listed or a file name; an
// optional header). Labels are class indices or, when the dataset has classes, class names.
// BadInput naming the file for a wrong count, an unknown class, or a file not in the dataset.
Result<std::vector<int64_t>> readImageLabels(const std::string &path,
                                             const analysis::DataFiles &dataset);

// --skip-bad-inputs: decodes and preprocesses every listed image (on `threads` threads) and
// drops those that fail, with their labels; returns them with the reason. Costs one extra
// decoding pass, so that labels, files and sample indices stay aligned while streaming.
std::vector<analysis::SkippedFile> dropBadImages(analysis::DataFiles &listed, const quant::PreprocessSpec &spec,
                                    const ValueInfo &input, int threads);

// Batches of `batchSize` preprocessed images for `input` (the last one smaller), decoded by
// `threads` threads. Each image must come out with the input's shape; a
// mismatch is BadInput naming the file and both shapes.
Result<quant::BatchSource> imageBatchSource(const ValueInfo &input, std::vector<std::string> files,
                                            quant::PreprocessSpec spec, int64_t batchSize,
                                            int threads);

}  // namespace ql::ui
