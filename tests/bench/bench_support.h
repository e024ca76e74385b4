#pragma once
// What the benchmarks share: settings from the environment, wall-clock milliseconds, medians.

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <string>
#include <vector>

namespace ql::bench {

using Clock = std::chrono::steady_clock;

// The environment variable `name`, or `fallback` when unset or empty.
inline std::string env(const char *name, const std::string &fallback) {
    const char *v = std::getenv(name);
    return v && *v ? v : fallback;
}

inline double msSince(Clock::time_point start) {
    return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

inline double median(std::vector<double> v) {
    if (v.empty()) return 0.0;
    std::sort(v.begin(), v.end());
    return v.size() % 2 ? v[v.size() / 2] : 0.5 * (v[v.size() / 2 - 1] + v[v.size() / 2]);
}

}  // namespace ql::bench
