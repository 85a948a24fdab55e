// Run under `pmonsim exec` by concurrent_sleeps.sh: threads that sleep at
// the same time overlap in simulated time (decisions.md S6). Two threads
// each sleep 1 ms ten times while the main thread waits for them; then one
// thread sleeps 1 ms ten times alone. Prints the simulated time each took.
#include <time.h>

#include <cinttypes>
#include <cstdint>
#include <cstdio>
#include <thread>

namespace {

int64_t now_ns() {
    timespec t{};
    clock_gettime(CLOCK_MONOTONIC, &t);
    return int64_t{t.tv_sec} * 1'000'000'000 + t.tv_nsec;
}

void ten_sleeps() {
    for (int i = 0; i < 10; ++i) {
        timespec d{0, 1'000'000};
        nanosleep(&d, nullptr);
    }
}

}  // namespace

int main() {
    const int64_t t0 = now_ns();
    std::thread a(ten_sleeps), b(ten_sleeps);
    a.join();
    b.join();
    const int64_t t1 = now_ns();
    ten_sleeps();
    const int64_t t2 = now_ns();
    std::printf("two_threads_ns %" PRId64 "\none_thread_ns %" PRId64 "\n", t1 - t0, t2 - t1);
    return 0;
}
