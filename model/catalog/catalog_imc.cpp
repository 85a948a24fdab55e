// Memory-controller channel (iMC) event catalog, both personalities.
//
// Sources: 327043-001 §2.5 and 329468-002 §2.5 (any event on any of the four
// general counters; increments at most 8 bits wide). Codes, umasks and counter
// masks follow Intel's perfmon JSON (unit "iMC"), which DECISIONS.md makes the
// authority. Research notes: other-boxes.md §3.
//
// Increments (decisions.md B4): a command event (CAS, ACT, PRE, refresh, a
// queue insert) adds at most 1 per DCLK and sub-event, as one command bus
// issues at most one command per cycle; the queue occupancy accumulators add
// the queue depth, bounded by the 8-bit increment width (255).
//
// The IVB-EP list is written out in full; the SNB-EP list is built from it by
// the differences stated in snb_ep_events().
#include <algorithm>
#include <string>

#include "catalog/catalog.h"

namespace pmonsim::catalog_data {

namespace {

constexpr uint8_t ctr_all = 0xF;  // every iMC event on every general counter
constexpr uint16_t occupancy_max = 255;

std::vector<umask_def> per_rank() { return numbered_bits("RANK", 8); }
std::vector<umask_def> per_bank() { return numbered_bits("BANK", 8); }

event_def one(const char* name, uint8_t code, std::vector<umask_def> umasks, const char* what,
              uint16_t max_inc = 1) {
    return plain_event(name, code, std::move(umasks), ctr_all, max_inc, what);
}

// --- IVB-EP (ivytown_uncore.json, 329468-002 §2.5), the base list -----------

std::vector<event_def> ivb_ep_events() {
    std::vector<event_def> e = {
        one("DCLOCKTICKS", 0x00, {}, "DRAM clock cycles (DCLK) of this channel"),
        one("ACT_COUNT", 0x01, {{"RD", 0x01}, {"WR", 0x02}, {"BYP", 0x08}},
            "DRAM ACTIVATE commands sent on this channel, by cause"),
        one("PRE_COUNT", 0x02,
            {{"PAGE_MISS", 0x01}, {"PAGE_CLOSE", 0x02}, {"RD", 0x04}, {"WR", 0x08}, {"BYP", 0x10}},
            "DRAM PRECHARGE commands sent on this channel, by cause"),
        one("CAS_COUNT", 0x04,
            {{"RD_REG", 0x01}, {"RD_UNDERFILL", 0x02}, {"WR_WMM", 0x04}, {"WR_RMM", 0x08}, {"RD_WMM", 0x10},
             {"RD_RMM", 0x20}, {"RD", 0x03}, {"WR", 0x0C}, {"ALL", 0x0F}},
            "DRAM CAS commands (one 64-byte line each), reads and writes by mode"),
        one("DRAM_REFRESH", 0x05, {{"PANIC", 0x02}, {"HIGH", 0x04}}, "refreshes issued, by urgency"),
        one("DRAM_PRE_ALL", 0x06, {}, "PRECHARGE ALL commands"),
        one("MAJOR_MODES", 0x07, {{"READ", 0x01}, {"WRITE", 0x02}, {"PARTIAL", 0x04}, {"ISOCH", 0x08}},
            "cycles the channel spends in each major mode"),
        one("PREEMPTION", 0x08, {{"RD_PREEMPT_RD", 0x01}, {"RD_PREEMPT_WR", 0x02}},
            "times a read preempted a lower-priority read or a write"),
        one("ECC_CORRECTABLE_ERRORS", 0x09, {}, "corrected ECC errors"),
        one("RPQ_INSERTS", 0x10, {}, "allocations in the read pending queue"),
        one("RPQ_CYCLES_NE", 0x11, {}, "cycles the read pending queue is not empty"),
        one("WPQ_INSERTS", 0x20, {}, "allocations in the write pending queue"),
        one("WPQ_CYCLES_NE", 0x21, {}, "cycles the write pending queue is not empty"),
        one("WPQ_CYCLES_FULL", 0x22, {}, "cycles the write pending queue is full"),
        one("WPQ_READ_HIT", 0x23, {}, "reads that hit a pending write"),
        one("WPQ_WRITE_HIT", 0x24, {}, "writes that hit a pending write"),
        one("POWER_THROTTLE_CYCLES", 0x41, per_rank(), "cycles each rank is throttled"),
        one("POWER_PCU_THROTTLING", 0x42, {}, "cycles the PCU throttles the channel"),
        one("POWER_SELF_REFRESH", 0x43, {}, "cycles the channel is in self-refresh"),
        one("POWER_CKE_CYCLES", 0x83, per_rank(), "cycles each rank is in CKE-off power-down"),
        one("POWER_CHANNEL_DLLOFF", 0x84, {}, "cycles every rank is in power-down with the DLL off"),
        one("POWER_CHANNEL_PPD", 0x85, {}, "cycles every rank is in precharge power-down"),
        one("POWER_CRITICAL_THROTTLE_CYCLES", 0x86, {}, "cycles of critical thermal throttling"),
        one("VMSE_WR_PUSH", 0x90, {{"WMM", 0x01}, {"RMM", 0x02}}, "VMSE write pushes, by mode"),
        one("VMSE_MXB_WR_OCCUPANCY", 0x91, {}, "running sum of the VMSE buffer's write occupancy",
            occupancy_max),
        one("RD_CAS_PRIO", 0xA0, {{"LOW", 0x01}, {"MED", 0x02}, {"HIGH", 0x04}, {"PANIC", 0x08}},
            "read CAS commands, by priority"),
        one("BYP_CMDS", 0xA1, {{"ACT", 0x01}, {"CAS", 0x02}, {"PRE", 0x04}}, "commands that bypassed the queues"),
        one("WMM_TO_RMM", 0xC0, {{"LOW_THRESH", 0x01}, {"STARVE", 0x02}, {"VMSE_RETRY", 0x04}},
            "switches from write major mode to read major mode, by reason"),
        one("WRONG_MM", 0xC1, {}, "commands issued in the wrong major mode"),
    };
    // RD_CAS_RANKr at B0H + r, WR_CAS_RANKr at B8H + r: one sub-event per bank.
    for (unsigned r = 0; r < 8; ++r) {
        const std::string n = std::to_string(r);
        e.push_back(plain_event("RD_CAS_RANK" + n, static_cast<uint8_t>(0xB0 + r), per_bank(), ctr_all, 1,
                                "read CAS commands to rank " + n + ", by bank"));
        e.push_back(plain_event("WR_CAS_RANK" + n, static_cast<uint8_t>(0xB8 + r), per_bank(), ctr_all, 1,
                                "write CAS commands to rank " + n + ", by bank"));
    }
    return e;
}

// --- SNB-EP (Jaketown_uncore.json, 327043-001 §2.5): IVB-EP minus differences --

std::vector<event_def> snb_ep_events() {
    auto events = ivb_ep_events();
    // Gone: the VMSE, priority, bypass, major-mode switch and per-rank CAS
    // events and POWER_PCU_THROTTLING are IVB-EP's only.
    events.erase(std::remove_if(events.begin(), events.end(),
                                [](const event_def& e) {
                                    return e.code >= 0x90 || e.name == "POWER_PCU_THROTTLING";
                                }),
                 events.end());
    // The clock event is CLOCKTICKS (JSON: UNC_M_CLOCKTICKS; it counts DCLK
    // like IVB-EP's DCLOCKTICKS, decisions.md B1).
    event_named(events, "DCLOCKTICKS").name = "CLOCKTICKS";
    // ACT_COUNT has no sub-events; PRE_COUNT and CAS_COUNT fewer.
    event_named(events, "ACT_COUNT").umasks = {};
    event_named(events, "PRE_COUNT").umasks = {{"PAGE_MISS", 0x01}, {"PAGE_CLOSE", 0x02}};
    event_named(events, "CAS_COUNT").umasks = {{"RD_REG", 0x01}, {"RD_UNDERFILL", 0x02}, {"WR_WMM", 0x04},
                                               {"WR_RMM", 0x08}, {"RD", 0x03},           {"WR", 0x0C},
                                               {"ALL", 0x0F}};
    // Added: the read queue's full cycles and both queues' occupancy.
    events.push_back(one("RPQ_CYCLES_FULL", 0x12, {}, "cycles the read pending queue is full"));
    events.push_back(one("RPQ_OCCUPANCY", 0x80, {}, "running sum of the read pending queue's depth", occupancy_max));
    events.push_back(one("WPQ_OCCUPANCY", 0x81, {}, "running sum of the write pending queue's depth", occupancy_max));
    std::sort(events.begin(), events.end(), [](const event_def& a, const event_def& b) { return a.code < b.code; });
    return events;
}

}  // namespace

std::vector<event_def> snb_ep_imc_events() { return snb_ep_events(); }
std::vector<event_def> ivb_ep_imc_events() { return ivb_ep_events(); }

}  // namespace pmonsim::catalog_data
