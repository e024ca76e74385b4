// libgomp (the OpenMP runtime of oneDNN and of our own loops) lets a thread waiting at a barrier
// spin for 300,000 iterations by default. When another process takes one of the cores, the
// thread a barrier waits for is descheduled while its partner spins through its time slice, and
// every parallel region costs a slice: `analyze` of mobilenet_v2 on 8 samples took 6.8 s instead
// of 0.6 s on a 2-core machine with one core busy elsewhere. A short spin keeps a quiet machine's
// barriers fast and hands the core back under load.
//
// libgomp reads GOMP_SPINCOUNT when it is loaded, before main(), and glibc resets the environment
// after .preinit_array functions run, so the only way in is to run the program again with the
// variable set (about 10 ms).
#include "openmp_spin.h"

#include <unistd.h>

#include <cstdlib>

namespace ql::ui {

namespace {
constexpr const char *kSpinCount = "10000";  // iterations, about 10 µs
}

void useShortOpenMpSpin(char *argv[]) {
    if (std::getenv("OMP_WAIT_POLICY") || std::getenv("GOMP_SPINCOUNT")) return;
    if (setenv("GOMP_SPINCOUNT", kSpinCount, 1) != 0) return;
    execv("/proc/self/exe", argv);
    unsetenv("GOMP_SPINCOUNT");  // the re-run failed: go on with libgomp's default
}

}  // namespace ql::ui
