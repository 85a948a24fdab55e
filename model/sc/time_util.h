// Exact conversion between SystemC time and the model's integer picoseconds.
#pragma once
#include <systemc>

#include "desc/clock.h"

namespace pmonsim {

// Creating an sc_time fixes the kernel's time resolution, so the value
// cannot change after the first call: compute it once (it is on every
// record's path).
inline uint64_t ps_unit() {
    static const uint64_t unit = sc_core::sc_time(1, sc_core::SC_PS).value();
    return unit;
}
inline time_ps to_ps(const sc_core::sc_time& t) {
    const uint64_t unit = ps_unit();
    return unit == 1 ? t.value() : t.value() / unit;  // 1 ps is SystemC's default resolution
}
inline sc_core::sc_time from_ps(time_ps p) { return sc_core::sc_time::from_value(p * ps_unit()); }
inline time_ps now_ps() { return to_ps(sc_core::sc_time_stamp()); }

// A loosely-timed access acts at its annotated time: spend the delay here
// (the caller is an SC_THREAD whenever the delay is non-zero).
inline void spend_delay(sc_core::sc_time& delay) {
    if (delay != sc_core::SC_ZERO_TIME) {
        sc_core::wait(delay);
        delay = sc_core::SC_ZERO_TIME;
    }
}

}  // namespace pmonsim
