// A clock domain (UCLK or QCLK) as exact integer arithmetic on picoseconds.
//
// Cycle k of a clock of f Hz starts at floor(k * 1e12 / f) ps. Register
// accesses happen between cycles (DECISIONS.md, "Clocks and time"): an access
// at time T sees every cycle that started strictly before T, so
// cycles_before(T) = ceil(T * f / 1e12). Both directions use 128-bit
// intermediates, so non-integer periods (7.2 GT/s) never drift.
#pragma once
#include <cstdint>
#include <stdexcept>

namespace pmonsim {

using time_ps = uint64_t;
using cycle_t = uint64_t;

// The model's time range: 2^63 ps (about 106 days), half of what 64 bits
// hold, so that a time plus any step the model takes never wraps.
constexpr time_ps max_model_time = time_ps{1} << 63;

class clock_domain {
public:
    explicit clock_domain(uint64_t hz = 1000000000ull) : hz_(hz) {
        if (hz == 0) throw std::invalid_argument("clock frequency must be non-zero");
        if (kPsPerSec % hz == 0) {
            period_ = kPsPerSec / hz;
            fast_limit_ = UINT64_MAX / period_;
        }
    }
    uint64_t hz() const { return hz_; }
    // A whole number of ps per cycle (the usual clocks) needs no 128-bit
    // division: these run once per trace record.
    time_ps cycle_start(cycle_t k) const {
        if (k <= fast_limit_) return k * period_;
        return static_cast<time_ps>((static_cast<unsigned __int128>(k) * kPsPerSec) / hz_);
    }
    cycle_t cycles_before(time_ps t) const {
        if (period_) return t / period_ + (t % period_ != 0);
        unsigned __int128 num = static_cast<unsigned __int128>(t) * hz_;
        return static_cast<cycle_t>((num + kPsPerSec - 1) / kPsPerSec);
    }
    // The first cycle that starts at or after t.
    cycle_t first_cycle_at_or_after(time_ps t) const { return cycles_before(t); }

private:
    static constexpr uint64_t kPsPerSec = 1000000000000ull;
    uint64_t hz_;
    uint64_t period_ = 0;      // ps per cycle when whole, else 0
    uint64_t fast_limit_ = 0;  // largest k whose k * period_ fits in 64 bits
};

// The ticks another clock of rate_hz (the TSC) has made by the start of cycle
// k of clock c: floor(start time x rate). A run of cycles [a, b) spans
// ticks_at(b) - ticks_at(a) of them, so runs add up exactly.
inline uint64_t ticks_at(const clock_domain& c, cycle_t k, uint64_t rate_hz) {
    return static_cast<uint64_t>(static_cast<unsigned __int128>(c.cycle_start(k)) * rate_hz / 1000000000000ull);
}

}  // namespace pmonsim
