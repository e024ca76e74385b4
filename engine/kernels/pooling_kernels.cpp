#include "kernels/kernel.h"
#include "kernels/kernel_families.h"

namespace ql {

void registerPoolingKernels(KernelRegistry &registry) { (void)registry; }

}  // namespace ql
