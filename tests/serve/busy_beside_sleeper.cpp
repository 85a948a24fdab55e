// Run under `pmonsim exec --busy-limit` by busy_beside_sleeper.sh: the
// virtual clock's fallback for a thread that neither sleeps nor blocks
// (decisions.md S6). A thread sleeps 10 ms at a time while the main thread
// spins without sleeping: `busy MS` until it has used MS of CPU time,
// `starved MS` for MS of wall time under SCHED_IDLE (so that a CPU hog beside
// it leaves it almost no CPU). Prints the simulated time that passed during
// the spin and the CPU time the spin used.
#include <pthread.h>
#include <sched.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <atomic>
#include <cinttypes>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>

namespace {

int64_t read_clock(clockid_t id, bool host) {
    timespec t{};
    // The host's monotonic clock by the system call itself: the interposer
    // answers clock_gettime with simulated time.
    if (host)
        syscall(SYS_clock_gettime, id, &t);
    else
        clock_gettime(id, &t);
    return int64_t{t.tv_sec} * 1'000'000'000 + t.tv_nsec;
}

}  // namespace

int main(int argc, char** argv) {
    const std::string mode = argc == 3 ? argv[1] : "";
    if (mode != "busy" && mode != "starved") {
        std::fprintf(stderr, "usage: %s busy|starved MS\n", argv[0]);
        return 2;
    }
    const int64_t spin_ns = std::atoll(argv[2]) * 1'000'000;
    const bool starved = mode == "starved";
    if (starved) {
        const sched_param none{};
        if (pthread_setschedparam(pthread_self(), SCHED_IDLE, &none) != 0) {
            std::perror("SCHED_IDLE");
            return 2;
        }
    }
    std::atomic<bool> done{false};
    std::thread sleeper([&done] {
        while (!done.load()) {
            timespec d{0, 10'000'000};
            nanosleep(&d, nullptr);
        }
    });
    const int64_t sim0 = read_clock(CLOCK_MONOTONIC, false), cpu0 = read_clock(CLOCK_THREAD_CPUTIME_ID, false);
    // (Spinning on the host's clocks: neither call sleeps.)
    const clockid_t spin_clock = starved ? CLOCK_MONOTONIC : CLOCK_THREAD_CPUTIME_ID;
    const int64_t until = read_clock(spin_clock, true) + spin_ns;
    while (read_clock(spin_clock, true) < until) {
    }
    const int64_t sim1 = read_clock(CLOCK_MONOTONIC, false), cpu1 = read_clock(CLOCK_THREAD_CPUTIME_ID, false);
    done = true;
    sleeper.join();
    std::printf("simulated_ns %" PRId64 "\ncpu_ns %" PRId64 "\n", sim1 - sim0, cpu1 - cpu0);
    return 0;
}
