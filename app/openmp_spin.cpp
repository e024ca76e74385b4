// libgomp (the OpenMP runtime of oneDNN and of our own loops) lets a thread waiting at a barrier
// spin for 300,000 iterations by default. When another process takes one of the cores, the
// thread a barrier waits for is descheduled while its partner spins through its time slice, and
// every parallel region costs a slice: `analyze` of mobilenet_v2 on 8 samples took 6.8 s instead
// of 0.6 s on a 2-core machine with one core busy elsewhere. A short spin keeps a quiet machine's
// barriers fast and hands the core back under load.
//
// libgomp reads GOMP_SPINCOUNT when it is loaded, before main(), and glibc resets the environment
// after .preinit_array functions run, so the only way in is to run the program again with the
// variable set. It is done from .preinit_array, before any library's constructor has run: the
// first run costs the dynamic loading only. Nothing calls this file: linking it into the
// executable is enough (.preinit_array works in executables only).
#include <alloca.h>
#include <unistd.h>

namespace ql::ui {

namespace {

constexpr const char *kSpinSetting = "GOMP_SPINCOUNT=10000";  // iterations, about 10 µs

bool startsWith(const char *text, const char *prefix) {
    for (; *prefix; ++text, ++prefix)
        if (*text != *prefix) return false;
    return true;
}

// glibc calls .preinit_array functions with the program's arguments and environment, before
// the C library and every other library are initialised (sanitizer runtimes included): plain
// loops and one system call only.
void runAgainWithShortSpin(int, char **argv, char **envp) {
    int count = 0;
    for (; envp[count]; ++count)
        if (startsWith(envp[count], "OMP_WAIT_POLICY=") ||
            startsWith(envp[count], "GOMP_SPINCOUNT="))
            return;  // the user's choice
    auto **withSpin = static_cast<char **>(alloca(sizeof(char *) * size_t(count + 2)));
    for (int i = 0; i < count; ++i) withSpin[i] = envp[i];
    withSpin[count] = const_cast<char *>(kSpinSetting);
    withSpin[count + 1] = nullptr;
    execve("/proc/self/exe", argv, withSpin);
    // The re-run could not start: go on with libgomp's default.
}

__attribute__((section(".preinit_array"), used)) void (*const kRunAgain)(int, char **, char **) =
    runAgainWithShortSpin;

}  // namespace

}  // namespace ql::ui
