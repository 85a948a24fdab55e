#include "parallel/fork_join.h"

#include <sched.h>

#include <algorithm>

namespace pmonsim::parallel {

namespace {

// How long a thread spins before it sleeps or yields: a few tens of
// microseconds, about the time between two feeds of a dense replay.
constexpr unsigned kSpins = 4000;

inline void relax() {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#endif
}

}  // namespace

unsigned fork_join::cores() {
    cpu_set_t set;
    if (::sched_getaffinity(0, sizeof set, &set) == 0) {
        const int n = CPU_COUNT(&set);
        if (n > 0) return static_cast<unsigned>(n);
    }
    const unsigned n = std::thread::hardware_concurrency();
    return n == 0 ? 1 : n;
}

fork_join::fork_join(unsigned size) {
    try {
        for (unsigned k = 1; k < std::max(1u, size); ++k) {
            members_.push_back(std::make_unique<member>());
            member& m = *members_.back();
            m.index = k;
            m.thread = std::thread([this, &m] { work(m); });
        }
    } catch (...) {  // (a thread that could not start: stop those that did)
        stop_all();
        throw;
    }
}

fork_join::~fork_join() { stop_all(); }

void fork_join::stop_all() {
    for (auto& mp : members_) {
        member& m = *mp;
        if (!m.thread.joinable()) continue;
        {
            std::lock_guard<std::mutex> lock(m.m);
            m.stop = true;
        }
        m.cv.notify_one();
        m.thread.join();
    }
}

void fork_join::run(const std::function<void(unsigned)>& part) {
    part_ = &part;
    ++step_;
    for (auto& mp : members_) {
        member& m = *mp;
        // (seq_cst both ways: either the member sees the step before it
        // sleeps, or this sees it sleeping and wakes it.)
        m.step.store(step_, std::memory_order_seq_cst);
        if (m.sleeping.load(std::memory_order_seq_cst)) {
            std::lock_guard<std::mutex> lock(m.m);
            m.cv.notify_one();
        }
    }
    std::exception_ptr first;
    try {
        part(0);
    } catch (...) {
        first = std::current_exception();
    }
    for (auto& mp : members_) {
        member& m = *mp;
        for (unsigned i = 0; m.done.load(std::memory_order_acquire) != step_; ++i) {
            if (i < kSpins) relax();
            else std::this_thread::yield();
        }
        if (m.error && !first) first = m.error;
        m.error = nullptr;
    }
    part_ = nullptr;
    if (first) std::rethrow_exception(first);
}

void fork_join::work(member& m) {
    uint64_t seen = 0;
    for (;;) {
        uint64_t step = m.step.load(std::memory_order_acquire);
        for (unsigned i = 0; i < kSpins && step == seen; ++i) {
            relax();
            step = m.step.load(std::memory_order_acquire);
        }
        if (step == seen) {  // nothing to do: sleep until there is
            std::unique_lock<std::mutex> lock(m.m);
            m.sleeping.store(true, std::memory_order_seq_cst);
            m.cv.wait(lock, [&] { return m.stop || m.step.load(std::memory_order_seq_cst) != seen; });
            m.sleeping.store(false, std::memory_order_relaxed);
            step = m.step.load(std::memory_order_acquire);
            if (step == seen) return;  // (stopped)
        }
        seen = step;
        try {
            (*part_)(m.index);
        } catch (...) {
            m.error = std::current_exception();
        }
        m.done.store(seen, std::memory_order_release);
    }
}

}  // namespace pmonsim::parallel
