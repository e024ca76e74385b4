#include "runtime/cpu_info.h"

#include <dnnl.hpp>

namespace ql {

std::string cpuIsaName() {
    using isa = dnnl::cpu_isa;
    switch (dnnl::get_effective_cpu_isa()) {
        case isa::sse41:
            return "sse41";
        case isa::avx:
            return "avx";
        case isa::avx2:
            return "avx2";
        case isa::avx2_vnni:
            return "avx2_vnni";
        case isa::avx512_core:
            return "avx512_core";
        case isa::avx512_core_vnni:
            return "avx512_core_vnni";
        case isa::avx512_core_bf16:
            return "avx512_core_bf16";
        case isa::avx512_core_amx:
            return "avx512_core_amx";
        default:
            return "unknown";
    }
}

}  // namespace ql
