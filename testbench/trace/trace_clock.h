// Cycle <-> picosecond conversions of one clock for the trace readers: the
// exact results of clock_domain (desc/clock.h), without its 128-bit division
// per call when the period is a whole number of ps (1 GHz: 1000 ps, 2 GHz:
// 500 ps, the usual clocks). A 128-bit division is a library call of tens of
// ns, and the readers convert once or twice per record.
#pragma once
#include <cstdint>
#include <limits>

#include "desc/clock.h"

namespace pmonsim::trace {

class trace_clock {
public:
    explicit trace_clock(uint64_t hz) : domain_(hz) {
        constexpr uint64_t ps_per_sec = 1000000000000ull;
        if (ps_per_sec % hz == 0) period_ = ps_per_sec / hz;
        // The last cycle whose start fits in 64 bits: floor(k * 1e12 / hz) <= M
        // <=> k * 1e12 < (M + 1) * hz <=> k <= ceil((M + 1) * hz / 1e12) - 1.
        const unsigned __int128 top = (static_cast<unsigned __int128>(1) << 64) * hz;
        const unsigned __int128 last = (top + ps_per_sec - 1) / ps_per_sec - 1;
        max_cycle_ = last > std::numeric_limits<uint64_t>::max()
                         ? std::numeric_limits<uint64_t>::max()
                         : static_cast<cycle_t>(last);
    }

    const clock_domain& domain() const { return domain_; }
    uint64_t hz() const { return domain_.hz(); }
    // The last cycle whose start time fits in 64-bit picoseconds.
    cycle_t max_cycle() const { return max_cycle_; }
    // The period in ps when it is a whole number of them, else 0.
    uint64_t whole_period() const { return period_; }

    // clock_domain::cycle_start(k), for k <= max_cycle().
    time_ps cycle_start(cycle_t k) const {
        return period_ ? k * period_ : domain_.cycle_start(k);
    }
    // clock_domain::cycles_before(t): ceil(t / period).
    cycle_t cycles_before(time_ps t) const {
        switch (period_) {  // constant divisors become multiplications
            case 0: return domain_.cycles_before(t);
            case 500: return t / 500 + (t % 500 != 0);
            case 1000: return t / 1000 + (t % 1000 != 0);
            default: return t / period_ + (t % period_ != 0);
        }
    }

private:
    clock_domain domain_;
    uint64_t period_ = 0;  // ps per cycle when whole, else 0
    cycle_t max_cycle_ = 0;
};

}  // namespace pmonsim::trace
