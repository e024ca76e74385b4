#pragma once
// The worst samples of an analysis with what shows them: the files (image data) or the input
// rows (tensors) their thumbnails are made from, and the class names. Shared by the strip, the
// job that fills it and the report.

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "analysis/suite/worst_samples.h"
#include "ir/tensor.h"

namespace ql::ui {

struct SampleStripData {
    std::vector<analysis::WorstSample> samples;
    std::vector<std::string> files;    // per evaluation sample for image data; empty: tensors
    std::vector<std::string> classes;  // class names (may be empty: show indices)
    // The shown samples' first input rows (tensor data). Read off the GUI thread while
    // thumbnails are made: their storage must not be written after setData (clone pooled ones).
    std::map<int64_t, Tensor> tensors;
    // worstSamples' `lowest`: the first min(lowest, samples.size()) samples are the lowest-SQNR
    // ones, the rest flips beyond them (for the title's counts).
    int lowest = 10;
};

// A class id as the user reads it: its name when the data names its classes, else the index.
inline std::string className(int64_t id, const std::vector<std::string> &classes) {
    if (id >= 0 && size_t(id) < classes.size() && !classes[size_t(id)].empty())
        return classes[size_t(id)];
    return std::to_string(id);
}

}  // namespace ql::ui
