// Power Control Unit (PCU) event catalog, both personalities.
//
// Sources: 327043-001 §2.6 and 329468-002 §2.7 (four 48-bit counters, any
// event on any counter; the CTL has no umask, bit 21 extends ev_sel). Codes,
// ext bits and counter masks follow Intel's perfmon JSON (unit "PCU"), which
// DECISIONS.md makes the authority. Research notes: other-boxes.md §6.
//
// - POWER_STATE_OCCUPANCY (0x80): the JSON's umasks 0x40/0x80/0xC0 are
//   occ_sel 1/2/3 in CTL bits 15:14, each an encoding and an input of its
//   own: the number of cores in C0, C3 or C6 in the cycle (up to the socket's
//   cores; 329468-002: "a maximum of 4b per cycle"). decisions.md B10.
// - FREQ_BAND0..3_CYCLES: one shared input, the frequency in 100 MHz steps,
//   compared with the band filter's byte k (decisions.md B11).
// - Everything else: at most one per PCLK cycle.
// - SNB-EP spells several events as a code plus the extra select bit that
//   IVB-EP moved to codes of their own (FREQ_TRANS_CYCLES 0x00+ext -> 0x60).
#include <string>

#include "catalog/catalog.h"

namespace pmonsim::catalog_data {

namespace {

constexpr uint8_t ctr_all = 0xF;
constexpr uint16_t band_max = 255;  // a filter byte's range

event_def ev(std::string name, uint8_t code, const char* what, bool ext = false) {
    event_def e = plain_event(std::move(name), code, {}, ctr_all, 1, what);
    e.ext = ext;
    return e;
}

event_def band(unsigned k) {
    event_def e = ev("FREQ_BAND" + std::to_string(k) + "_CYCLES", static_cast<uint8_t>(0x0B + k),
                     "cycles the frequency is at least the band filter's byte (100 MHz steps)");
    e.band = static_cast<int8_t>(k);
    e.max_inc = band_max;
    return e;
}

event_def occupancy(uint16_t cores) {
    event_def e = plain_event("POWER_STATE_OCCUPANCY", 0x80, {{"CORES_C0", 0x40}, {"CORES_C3", 0x80}, {"CORES_C6", 0xC0}},
                              ctr_all, cores, "cores in the state occ_sel selects, each cycle");
    e.enumerated = true;
    return e;
}

// The events both personalities list at the same codes.
std::vector<event_def> common_events(uint16_t cores) {
    std::vector<event_def> e = {
        ev("CLOCKTICKS", 0x00, "PCU cycles (800 MHz)"),
        ev("VOLT_TRANS_CYCLES_INCREASE", 0x01, "cycles a voltage increase is under way"),
        ev("VOLT_TRANS_CYCLES_DECREASE", 0x02, "cycles a voltage decrease is under way"),
        ev("VOLT_TRANS_CYCLES_CHANGE", 0x03, "cycles a voltage change is under way"),
        ev("FREQ_MAX_LIMIT_THERMAL_CYCLES", 0x04, "cycles thermal conditions cap the frequency"),
        ev("FREQ_MAX_POWER_CYCLES", 0x05, "cycles the power budget caps the frequency"),
        ev("FREQ_MAX_OS_CYCLES", 0x06, "cycles the OS's request caps the frequency"),
        ev("FREQ_MAX_CURRENT_CYCLES", 0x07, "cycles the current limit caps the frequency"),
        ev("PROCHOT_INTERNAL_CYCLES", 0x09, "cycles an internal PROCHOT is asserted"),
        ev("PROCHOT_EXTERNAL_CYCLES", 0x0A, "cycles the external PROCHOT# is asserted"),
        band(0),
        band(1),
        band(2),
        band(3),
        ev("MEMORY_PHASE_SHEDDING_CYCLES", 0x2F, "cycles the memory voltage regulator sheds phases"),
        ev("VR_HOT_CYCLES", 0x32, "cycles a voltage regulator reports VR_HOT"),
        occupancy(cores),
    };
    for (unsigned n = 0; n < 8; ++n)
        e.push_back(ev("DEMOTIONS_CORE" + std::to_string(n), static_cast<uint8_t>(0x1E + n),
                       "C-state requests of this core that were demoted"));
    return e;
}

// --- SNB-EP (Jaketown_uncore.json, 327043-001 §2.6) -----------------------------

std::vector<event_def> snb_ep_events() {
    std::vector<event_def> e = common_events(8);
    const bool ext = true;
    e.push_back(ev("FREQ_TRANS_CYCLES", 0x00, "cycles a frequency change is under way", ext));
    e.push_back(ev("FREQ_MIN_IO_P_CYCLES", 0x01, "cycles IO's P-state request sets the minimum frequency", ext));
    e.push_back(ev("FREQ_MIN_PERF_P_CYCLES", 0x02, "cycles a performance P-state request sets the minimum", ext));
    for (unsigned n = 0; n < 8; ++n)
        e.push_back(ev("CORE" + std::to_string(n) + "_TRANSITION_CYCLES", static_cast<uint8_t>(0x03 + n),
                       "cycles this core is changing C-state", ext));
    e.push_back(ev("TOTAL_TRANSITION_CYCLES", 0x0B, "cycles any core is changing C-state", ext));
    return e;
}

// --- IVB-EP (ivytown_uncore.json, 329468-002 §2.7) ------------------------------

std::vector<event_def> ivb_ep_events() {
    std::vector<event_def> e = common_events(15);
    const bool ext = true;
    for (unsigned n = 8; n < 15; ++n)
        e.push_back(ev("DEMOTIONS_CORE" + std::to_string(n), static_cast<uint8_t>(0x40 + n - 8),
                       "C-state requests of this core that were demoted"));
    for (unsigned n = 0; n < 15; ++n) {
        e.push_back(ev("CORE" + std::to_string(n) + "_TRANSITION_CYCLES", static_cast<uint8_t>(0x70 + n),
                       "cycles this core is changing C-state"));
        e.push_back(ev("DELAYED_C_STATE_ABORT_CORE" + std::to_string(n), static_cast<uint8_t>(0x17 + n),
                       "cycles this core's C-state entry was delayed and aborted", ext));
    }
    e.push_back(ev("FREQ_TRANS_CYCLES", 0x60, "cycles a frequency change is under way"));
    e.push_back(ev("FREQ_MIN_IO_P_CYCLES", 0x61, "cycles IO's P-state request sets the minimum frequency"));
    e.push_back(ev("FREQ_MIN_PERF_P_CYCLES", 0x62, "cycles a performance P-state request sets the minimum"));
    e.push_back(ev("TOTAL_TRANSITION_CYCLES", 0x63, "cycles any core is changing C-state"));
    event_def exit_latency = ev("PKG_C_EXIT_LATENCY", 0x26, "cycles the package is waking from a package C-state", ext);
    exit_latency.other_names = {"PKG_C_EXIT_LATENCY_SEL"};
    e.push_back(exit_latency);
    const char* pkg_states[] = {"C0", "C2", "C3", "C6"};
    for (unsigned k = 0; k < 4; ++k)
        e.push_back(ev(std::string("PKG_C_STATE_RESIDENCY_") + pkg_states[k] + "_CYCLES", static_cast<uint8_t>(0x2A + k),
                       "cycles the package is in this package C-state", ext));
    return e;
}

}  // namespace

std::vector<event_def> snb_ep_pcu_events() { return snb_ep_events(); }
std::vector<event_def> ivb_ep_pcu_events() { return ivb_ep_events(); }

}  // namespace pmonsim::catalog_data
