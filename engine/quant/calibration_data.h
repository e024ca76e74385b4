#pragma once
// Calibration inputs from files, for a model with one (non-initializer) input: `.npy` or `.pb`
// (TensorProto) files, each one sample or a batch, read one at a time so memory does not grow
// with the number of files.

#include <string>
#include <vector>

#include "core/status.h"
#include "ir/graph.h"
#include "ir/tensor.h"
#include "quant/calibration.h"

namespace ql::quant {

// Expands files and folders (a folder's .npy / .npz / .pb files, sorted by name; not recursive)
// into a list of files. BadInput for a missing path, a file of another extension, or an empty
// result.
Result<std::vector<std::string>> listCalibrationFiles(const std::vector<std::string> &paths);

// Reads one file as a batch for `input`: a tensor with the input's rank is a batch; one with a
// rank one lower is one sample and gets a leading batch dim of 1. Float64 data is converted to
// the input's float32. BadInput naming the file for NaN / Inf values, another rank, or a shape
// that does not match the input.
// first / count: a range of the file's samples (count < 0: to the end); a .npy file is read only
// that far, so memory does not grow with the file; into *reuse when it is free (readNpyRows).
Result<Tensor> readCalibrationTensor(const std::string &path, const ValueInfo &input, int64_t first = 0,
                                     int64_t count = -1, std::shared_ptr<Storage> *reuse = nullptr);
// How many samples the file holds for `input` (a .npy file: from its header alone).
Result<int64_t> countCalibrationSamples(const std::string &path, const ValueInfo &input);

// .npz, any case.
bool isNpz(const std::string &path);

// A BatchSource over `files` for the graph's single input, reading one file at a time
// (inputBatchSource). .npz files instead hold every input (arrays named as the inputs; a lone
// array for a one-input model), each file one batch whatever batchSize. BadInput for .npy / .pb
// files and a graph without exactly one input, or .npz files mixed with others.
Result<BatchSource> fileBatchSource(const Graph &graph, std::vector<std::string> files, int64_t batchSize = 0);
// A BatchSource over .npy / .pb `files` for one input. With a fixed batch dim on the input, every
// batch has that size (a file's sample count must be a multiple of it). Otherwise batchSize > 0
// regroups the samples of all files into batches of batchSize (the last one smaller), and
// batchSize <= 0 gives each file as one batch.
Result<BatchSource> inputBatchSource(const ValueInfo &input, std::vector<std::string> files,
                                     int64_t batchSize = 0);
// A tensor as `input` takes it: finite, float64 to float32, a sample (rank one lower) batched,
// the non-batch dims and dtype checked. BadInput naming `where`.
Result<Tensor> fitToInput(Tensor tensor, const ValueInfo &input, const std::string &where);

}  // namespace ql::quant
