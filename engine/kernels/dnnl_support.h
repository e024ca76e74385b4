#pragma once
// Internal to the kernels: the one oneDNN engine and a per-thread stream, and small helpers.
// Never include this from a public header.

#include <dnnl.hpp>

#include "ir/tensor.h"

namespace ql::dnnl_support {

dnnl::engine &cpuEngine();
dnnl::stream &threadStream();  // one stream per calling thread

inline dnnl::memory::dims toDims(const Shape &shape) { return dnnl::memory::dims(shape.begin(), shape.end()); }

// Format tag of a tensor's storage: plain row-major for its rank, or NHWC for channels-last.
dnnl::memory::format_tag storageTag(const Tensor &tensor);
dnnl::memory::format_tag plainTag(int rank);

// Memory descriptor of the tensor's storage (f32 only unless `type` is given).
dnnl::memory::desc describe(const Tensor &tensor, dnnl::memory::data_type type = dnnl::memory::data_type::f32);
// A oneDNN memory object over the tensor's storage (no copy).
dnnl::memory wrap(const Tensor &tensor, const dnnl::memory::desc &desc);

}  // namespace ql::dnnl_support
