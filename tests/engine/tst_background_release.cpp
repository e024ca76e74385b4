// releaseInBackground: the objects go on another thread, in the order given, and the caller does
// not wait for them.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <future>
#include <mutex>
#include <thread>
#include <vector>

#include "core/background_release.h"

namespace {

struct Recorder {
    std::mutex mutex;
    std::vector<int> order;
    std::vector<std::thread::id> threads;
};

struct Tracked {
    Tracked(Recorder *r, int i, std::shared_future<void> g)
        : recorder(r), id(i), gate(std::move(g)) {}
    Tracked(const Tracked &) = delete;
    Recorder *recorder;
    int id;
    std::shared_future<void> gate;  // the destructor waits for it: a slow release
    ~Tracked() {
        gate.wait();
        std::lock_guard<std::mutex> lock(recorder->mutex);
        recorder->order.push_back(id);
        recorder->threads.push_back(std::this_thread::get_id());
    }
};

}  // namespace

TEST(BackgroundRelease, ObjectsGoOnAnotherThreadInOrderWithoutBlockingTheCaller) {
    Recorder recorder;
    std::promise<void> open;
    const std::shared_future<void> gate = open.get_future().share();
    // Opened from elsewhere: a release made on this thread would wait for it, then be seen below.
    std::thread opener([&open] {
        std::this_thread::sleep_for(std::chrono::milliseconds(300));
        open.set_value();
    });
    for (int id = 0; id < 3; ++id)
        ql::releaseInBackground(std::make_shared<Tracked>(&recorder, id, gate));
    {
        // The first release is stuck on the gate: the caller got here all the same.
        std::lock_guard<std::mutex> lock(recorder.mutex);
        EXPECT_TRUE(recorder.order.empty());
    }
    opener.join();
    for (int wait = 0; wait < 2000; ++wait) {
        {
            std::lock_guard<std::mutex> lock(recorder.mutex);
            if (recorder.order.size() == 3) break;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    std::lock_guard<std::mutex> lock(recorder.mutex);
    ASSERT_EQ(recorder.order, (std::vector<int>{0, 1, 2}));
    for (const std::thread::id &thread : recorder.threads)
        EXPECT_NE(thread, std::this_thread::get_id());
}
