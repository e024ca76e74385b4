#include "core/background_release.h"

#include <condition_variable>
#include <deque>
#include <mutex>
#include <thread>

namespace ql {
namespace {

class Releaser {
public:
    void add(std::shared_ptr<void> objects) {
        {
            std::lock_guard<std::mutex> lock(m_mutex);
            m_queue.push_back(std::move(objects));
            if (!m_thread.joinable()) m_thread = std::thread([this] { drain(); });
        }
        m_wake.notify_one();
    }
    // At exit: what is queued still goes, then the thread ends.
    ~Releaser() {
        {
            std::lock_guard<std::mutex> lock(m_mutex);
            m_stopping = true;
        }
        m_wake.notify_one();
        if (m_thread.joinable()) m_thread.join();
    }

private:
    void drain() {
        std::unique_lock<std::mutex> lock(m_mutex);
        for (;;) {
            m_wake.wait(lock, [this] { return m_stopping || !m_queue.empty(); });
            if (m_queue.empty()) return;  // stopping, nothing left
            std::shared_ptr<void> next = std::move(m_queue.front());
            m_queue.pop_front();
            lock.unlock();
            next.reset();
            lock.lock();
        }
    }

    std::mutex m_mutex;
    std::condition_variable m_wake;
    std::deque<std::shared_ptr<void>> m_queue;
    std::thread m_thread;
    bool m_stopping = false;
};

}  // namespace

void releaseInBackground(std::shared_ptr<void> objects) {
    // A function-local static: built at the first release, after the libraries and statics the
    // released objects use, so it is destroyed (and joins) before them.
    static Releaser releaser;
    releaser.add(std::move(objects));
}

}  // namespace ql
