// UBox general-counter event catalog, both personalities.
//
// Sources: 327043-001 §2.2 (Table 2-6, EVENT_MSG and LOCK_CYCLES only) and
// 329468-002 §2.2; codes, umasks and counters follow Intel's perfmon JSON
// (Jaketown_uncore.json / ivytown_uncore.json, unit "UBOX"), as DECISIONS.md
// requires. Research notes: ubox-r2pcie-global.md §4.5 and §8 (A10, A11).
//
// Deliberate differences from the JSON (tested in test_catalog_oracle.cpp):
//  * UNC_U_CLOCKTICKS (ev_sel 0x00) is absent: DECISIONS.md says ev_sel 0 on a
//    general UBox counter counts nothing. UCLK cycles come from the fixed counter.
//  * SNB-EP PHOLD_CYCLES, RACU_REQUESTS and MSG_CHNL_SIZE_COUNT carry ExtSel=1
//    in the JSON, but the UBox CTL has no extra select bit (bit 21 is reserved,
//    note A10), so software can only ever program them with ext = 0.
//
// Every UBox event is an occurrence or a per-cycle condition: max_inc 1.
//
// The SNB-EP list is written out in full; the IVB-EP list is built from it by
// the differences stated in ivb_ep_events().
#include <algorithm>
#include <stdexcept>

#include "catalog/catalog.h"

namespace pmonsim::catalog_data {

namespace {

constexpr uint8_t ctr_0_1 = 0x3;  // the UBox has two general counters; all events use both
constexpr bool no_ext = false;     // the UBox control register has no ext bit
constexpr bool no_umask0 = false;

// Umask tables shared by both generations (identical in both JSON files).
std::vector<umask_def> filter_match_umasks() {
    return {{"ENABLE", 0x01}, {"DISABLE", 0x02}, {"U2C_ENABLE", 0x04}, {"U2C_DISABLE", 0x08}};
}

std::vector<umask_def> event_msg_umasks() {
    return {{"VLW_RCVD", 0x01},      {"MSI_RCVD", 0x02}, {"IPI_RCVD", 0x04},
            {"DOORBELL_RCVD", 0x08}, {"INT_PRIO", 0x10}};
}

std::vector<umask_def> u2c_events_umasks() {
    return {{"MONITOR_T0", 0x01}, {"MONITOR_T1", 0x02}, {"LIVELOCK", 0x04}, {"LTERROR", 0x08},
            {"CMC", 0x10},        {"UMC", 0x20},        {"TRAP", 0x40},     {"OTHER", 0x80}};
}

// --- SNB-EP (Jaketown_uncore.json), the base list ----------------------------
// SNB-EP is the base because IVB-EP only takes things away from it.

std::vector<event_def> snb_ep_events() {
    return {
        {"FILTER_MATCH", 0x41, no_ext, filter_match_umasks(), ctr_0_1, 1, no_umask0,
         "messages seen by the UBox, split by whether the UBox filter matched them"},
        {"EVENT_MSG", 0x42, no_ext, event_msg_umasks(), ctr_0_1, 1, no_umask0,
         "legacy wire, MSI, IPI, doorbell and interrupt-priority messages taken in by the UBox"},
        {"U2C_EVENTS", 0x43, no_ext, u2c_events_umasks(), ctr_0_1, 1, no_umask0,
         "messages the UBox sends towards the cores (monitor wakes, machine checks, traps)"},
        {"LOCK_CYCLES", 0x44, no_ext, {}, ctr_0_1, 1, no_umask0,
         "IDI lock and split-lock sequences started"},
        {"PHOLD_CYCLES", 0x45, no_ext, {{"ASSERT_TO_ACK", 0x01}, {"ACK_TO_DEASSERT", 0x02}},
         ctr_0_1, 1, no_umask0, "cycles spent in the two phases of a PHOLD handshake"},
        {"RACU_REQUESTS", 0x46, no_ext, {{"COUNT", 0x01}}, ctr_0_1, 1, no_umask0,
         "requests handled by the RACU"},
        {"MSG_CHNL_SIZE_COUNT", 0x47, no_ext, {{"4B", 0x01}, {"8B", 0x02}}, ctr_0_1, 1, no_umask0,
         "message-channel requests, by payload size"},
    };
}

// --- IVB-EP (ivytown_uncore.json, 329468-002 §2.2): SNB-EP minus differences --

std::vector<event_def> ivb_ep_events() {
    auto events = snb_ep_events();

    // Gone: ivytown_uncore.json has no MSG_CHNL_SIZE_COUNT (47H).
    events.erase(std::remove_if(events.begin(), events.end(),
                                [](const event_def& e) { return e.name == "MSG_CHNL_SIZE_COUNT"; }),
                 events.end());

    // ivytown_uncore.json lists only PHOLD_CYCLES.ASSERT_TO_ACK (umask 01H).
    event_def& phold = event_named(events, "PHOLD_CYCLES");
    phold.umasks = {{"ASSERT_TO_ACK", 0x01}};
    phold.description = "cycles from PHOLD assertion until it is acknowledged";

    // ivytown_uncore.json gives RACU_REQUESTS umask 0: no sub-event (SNB-EP: COUNT, 01H).
    event_named(events, "RACU_REQUESTS").umasks = {};

    return events;
}

}  // namespace

std::vector<event_def> snb_ep_ubox_events() { return snb_ep_events(); }
std::vector<event_def> ivb_ep_ubox_events() { return ivb_ep_events(); }

}  // namespace pmonsim::catalog_data
