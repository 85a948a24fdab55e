// Helpers for SystemC tests: each test builds its own platform, so each test
// must run in its own process (gtest_discover_tests does that). SystemC
// warnings and errors become test failures instead of console noise.
#pragma once
#include <gtest/gtest.h>

#include <functional>
#include <systemc>

#include "sc/time_util.h"
#include "sc/uncore_system.h"

namespace pmonsim::test {

// An initiator that runs a test script as an SC_THREAD.
class script_runner : public sc_core::sc_module {
public:
    script_runner(sc_core::sc_module_name n, std::function<void()> body)
        : sc_module(n), body_(std::move(body)) {
        SC_HAS_PROCESS(script_runner);
        SC_THREAD(run);
    }
    bool finished = false;

private:
    void run() {
        body_();
        finished = true;
        sc_core::sc_stop();
    }
    std::function<void()> body_;
};

inline void wait_ns(double ns) { sc_core::wait(sc_core::sc_time(ns, sc_core::SC_NS)); }

// Wait until the start of `cycle` of a clock (accesses then see cycles < cycle).
inline void wait_until_cycle(const clock_domain& clk, cycle_t cycle) {
    const time_ps at = clk.cycle_start(cycle);
    const time_ps now = now_ps();
    if (at > now) sc_core::wait(from_ps(at - now));
}

inline void run_script(std::function<void()> body) {
    script_runner runner("runner", std::move(body));
    sc_core::sc_start();
    ASSERT_TRUE(runner.finished) << "the script did not run to its end";
}

}  // namespace pmonsim::test
