#pragma once
// Cooperative cancellation of the engine work running on a thread. Whoever starts engine work
// (a GUI worker, the command line on SIGINT) installs its flag with a StopScope for the duration;
// the engine checks stopRequested() between plan nodes and in its other long loops and then fails
// with ErrorKind::Cancelled. A thread-local flag reaches every plan run of an operation (the
// numeric suite, calibration, latency timing, the lab's runs) without a callback through each
// layer of options. Threads the engine starts itself install currentStopFlag() of their parent.

#include <atomic>

#include "core/status.h"

namespace ql {

namespace detail {
inline thread_local const std::atomic<bool> *currentStopFlag = nullptr;
}

// The flag the engine on this thread answers to; nullptr when nobody can stop it.
inline const std::atomic<bool> *currentStopFlag() {
    return detail::currentStopFlag;
}

inline bool stopRequested() {
    const std::atomic<bool> *flag = detail::currentStopFlag;
    return flag && flag->load(std::memory_order_relaxed);
}

inline Status stoppedStatus() {
    return Status::error(ErrorKind::Cancelled, "cancelled");
}

// Installs `flag` (which must outlive the scope) for this thread; the previous one comes back
// when the scope ends.
class StopScope {
public:
    explicit StopScope(const std::atomic<bool> *flag) : m_previous(detail::currentStopFlag) {
        detail::currentStopFlag = flag;
    }
    ~StopScope() { detail::currentStopFlag = m_previous; }
    StopScope(const StopScope &) = delete;
    StopScope &operator=(const StopScope &) = delete;

private:
    const std::atomic<bool> *m_previous;
};

}  // namespace ql
