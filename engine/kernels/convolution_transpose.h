#pragma once
// Internal: the ConvTranspose kernel factory (registered by registerConvolutionKernels).

#include "kernels/kernel.h"

namespace ql::conv {

Result<KernelPtr> makeConvTransposeKernel(const KernelBuildInfo &info);

}  // namespace ql::conv
