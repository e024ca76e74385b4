#pragma once
// The instruction set oneDNN runs its kernels with on this machine (after ONEDNN_MAX_CPU_ISA), for
// reports and benchmarks: figures differ in the last bits between ISAs.

#include <string>

namespace ql {

// "avx512_core_vnni", "avx2", ...; "unknown" for an ISA this build does not name.
std::string cpuIsaName();

}  // namespace ql
