// `quantlens`: starts the application (quantlens-main) with an OpenMP spin chosen for the work
// and with malloc tuned to take fresh memory in few page faults.
//
// libgomp (the OpenMP runtime of oneDNN and of our own loops) lets a thread waiting at a barrier
// spin for 300,000 iterations (about 0.3 ms) before it sleeps. Which spin is right depends on the
// work, measured on a 2-core VM (2026-11-28, README "Threads"):
// - one model run on all cores (`bench`, `infer`): the long spin. With a busy neighbour
//   (`stress-ng --cpu 1`) a short spin makes every barrier wait for the sleeping thread to be
//   scheduled again: resnet18 fp32 28.7 ms against 23.4 ms, the encoder 69 against 31 ms
//   (ONNX Runtime, whose pool spins too: 23.8 and 29.8 ms); quiet, the two are equal.
// - everything else (analyses, search, calibration lab, the GUI): 10,000 iterations. These
//   interleave several plans and comparisons, and there the long spin burns the slices of the
//   threads it waits for: `analyze` of mobilenet_v2 (8 samples) took 1.5 s against 1.2 s beside
//   stress-ng, and two analyses side by side 2.1-6.4 s against 1.3-1.4 s each.
//
// An analysis touches a few hundred MB of fresh memory, most of it in its first batch
// (activations, reordered weights), and each 4 KB page costs a fault, which on virtual machines
// is slow: 11 µs per page was measured on one, where 71,000 faults took 0.7 s of a 1.2 s
// analysis. Two glibc malloc tunables cut the faults:
// - glibc.malloc.hugetlb=1 (glibc 2.35+) marks malloc's large blocks and its heap for 2 MB
//   transparent huge pages where the kernel leaves them to madvise;
// - glibc.malloc.top_pad=64 MiB grows the heap 64 MB at a time instead of 128 KB, so the heap
//   is large enough for huge pages at all and grows with a few system calls instead of
//   hundreds. Pages are only taken when touched; peak RSS grows by about 12 MB.
// Together they took that analysis from 71,000 faults to 6,000. Where the kernel gives huge
// pages to all memory or to none, the first changes nothing.
//
// libgomp reads GOMP_SPINCOUNT once, when it is loaded, so the variable has to be in the
// environment the application starts with. This launcher links only the C library: setting it
// and starting the application costs about a millisecond, where the application running itself
// again cost the dynamic loading of Qt, oneDNN and protobuf twice (about 15 ms).
#include <unistd.h>
#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace {

constexpr const char *kApplication = "quantlens-main";
// Where the application is, relative to this launcher's folder: beside it (the build tree) or
// in the installed libexec folder.
constexpr const char *kPlaces[] = {"", "../libexec/quantlens/"};

// The malloc tunables, each added to GLIBC_TUNABLES unless the user set it there.
constexpr const char *kTunables[][2] = {{"glibc.malloc.hugetlb", "1"},
                                        {"glibc.malloc.top_pad", "67108864"}};

void tuneMalloc() {
    const char *users = std::getenv("GLIBC_TUNABLES");
    char tunables[4096];
    if (users && std::strlen(users) + 64 > sizeof tunables) return;  // never cut the user's own
    std::snprintf(tunables, sizeof tunables, "%s", users ? users : "");
    for (const auto &[name, value] : kTunables) {
        if (std::strstr(tunables, name)) continue;
        const size_t used = std::strlen(tunables);
        std::snprintf(tunables + used, sizeof tunables - used, "%s%s=%s", used ? ":" : "", name,
                      value);
    }
    setenv("GLIBC_TUNABLES", tunables, 1);
}

}  // namespace

// True for the subcommands that run one model on all cores, which keep libgomp's long spin.
bool runsOneModel(const char *subcommand) {
    return subcommand && (std::strcmp(subcommand, "bench") == 0 || std::strcmp(subcommand, "infer") == 0);
}

int main(int argc, char **argv) {
    const bool userSpin = std::getenv("OMP_WAIT_POLICY") || std::getenv("GOMP_SPINCOUNT");
    if (!userSpin && !runsOneModel(argc > 1 ? argv[1] : nullptr))
        setenv("GOMP_SPINCOUNT", "10000", 0);  // about 10 µs; a user's own setting wins
    tuneMalloc();
    char self[PATH_MAX];
    const ssize_t length = readlink("/proc/self/exe", self, sizeof self - 1);
    if (length <= 0) {
        std::fprintf(stderr, "quantlens: cannot find its own location (/proc/self/exe: %s)\n",
                     std::strerror(errno));
        return 127;
    }
    self[length] = '\0';
    char *slash = std::strrchr(self, '/');
    slash[1] = '\0';
    char path[PATH_MAX];
    for (const char *place : kPlaces) {
        std::snprintf(path, sizeof path, "%s%s%s", self, place, kApplication);
        if (access(path, X_OK) == 0) {
            execv(path, argv);  // argv[0] stays as the user typed it, for messages and usage
            std::fprintf(stderr, "quantlens: cannot start %s: %s\n", path, std::strerror(errno));
            return 127;
        }
    }
    std::fprintf(stderr, "quantlens: %s is missing beside %s and in %s../libexec/quantlens/\n",
                 kApplication, self, self);
    return 127;
}
