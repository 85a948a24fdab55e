// The threads of a parallel replay (`pmonsim --threads N`, replay.h): run()
// hands each member its part of one step (a feed of the replay's shards),
// does part 0 on the caller's thread and returns when every part is done.
// Members wait for the next step spinning a little (steps come every few
// microseconds of a dense replay) and then asleep, so an idle replay (a
// script's long sleep) costs no CPU.
#pragma once
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

namespace pmonsim::parallel {

class fork_join {
public:
    // `size`: the parts of a step, the caller's included (1: no threads).
    explicit fork_join(unsigned size);
    ~fork_join();  // stops and joins the members
    fork_join(const fork_join&) = delete;
    fork_join& operator=(const fork_join&) = delete;

    unsigned size() const { return static_cast<unsigned>(members_.size()) + 1; }
    // Runs part(k) for every k < size(), part(0) on this thread; then
    // rethrows the exception of the first part (by k) that threw, if any.
    // Every part has returned or thrown by then.
    void run(const std::function<void(unsigned)>& part);

    // The cores this process may run on (at least 1).
    static unsigned cores();
    // The most a command line may ask for: the bound keeps a typo from
    // starting thousands of threads.
    static constexpr unsigned max_size = 64;

private:
    struct member {
        unsigned index = 0;
        alignas(64) std::atomic<uint64_t> step{0};  // the step asked for (the caller writes it)
        alignas(64) std::atomic<uint64_t> done{0};  // the last step finished (the member writes it)
        std::atomic<bool> sleeping{false};
        std::mutex m;
        std::condition_variable cv;
        bool stop = false;         // (under m)
        std::exception_ptr error;  // of the last step; read after it is done
        std::thread thread;
    };
    void work(member& m);
    void stop_all();

    const std::function<void(unsigned)>* part_ = nullptr;  // the current step's (set before it is asked for)
    uint64_t step_ = 0;
    std::vector<std::unique_ptr<member>> members_;  // parts 1, 2, ...
};

}  // namespace pmonsim::parallel
