// R2PCIe event catalog, both personalities.
//
// Sources: 327043-001 §2.8 and 329468-002 §2.9 (§2.9.2: increments are at most
// 5 bits wide, so RxR_OCCUPANCY adds at most 31 per cycle; RING_AK_USED entry).
// Codes, umasks and counter masks follow Intel's perfmon JSON (unit "R2PCIe"),
// which DECISIONS.md makes the authority where sources disagree (e.g. the
// IVB-EP overview's "ring events only on counters 2-3", note A8, and the
// SNB-EP egress restrictions, note A9). Research notes:
// ubox-r2pcie-global.md §5.6-§5.8 and §8.
//
// Additions that are not JSON entries but define no new sub-event bit: the
// direction aliases of the ring events (SNB-EP CW/CCW/ANY over the four
// even/odd bits, as libpfm4 also offers; IVB-EP ANY over the eight VRing bits).
// Events only Linux or libpfm4 know (SNB-EP RxR_INSERTS, TxR_INSERTS) are left
// out because the JSON does not list them.
//
// The IVB-EP list is written out in full; the SNB-EP list is built from it by
// the differences stated in snb_ep_events().
#include <algorithm>
#include <stdexcept>

#include "catalog/catalog.h"

namespace pmonsim::catalog_data {

namespace {

constexpr uint8_t ctr_0 = 0x1;     // occupancy / egress events: counter 0 only
constexpr uint8_t ctr_0_1 = 0x3;   // ingress and IIO credit events
constexpr uint8_t ctr_all = 0xF;   // clock and ring events
constexpr bool no_ext = false;     // R2PCIe has no extra select bit
constexpr bool no_umask0 = false;
constexpr bool umask0_is_all = true;

// SNB-EP rings: one bit per direction and polarity.
std::vector<umask_def> snb_ring_umasks() {
    return {{"CW_EVEN", 0x01}, {"CW_ODD", 0x02}, {"CCW_EVEN", 0x04}, {"CCW_ODD", 0x08},
            {"CW", 0x03},      {"CCW", 0x0C},    {"ANY", 0x0F}};
}

// IVB-EP rings: the same four bits for each of the two virtual rings.
std::vector<umask_def> ivb_ring_umasks() {
    return {{"CW_VR0_EVEN", 0x01}, {"CW_VR0_ODD", 0x02}, {"CCW_VR0_EVEN", 0x04},
            {"CCW_VR0_ODD", 0x08}, {"CW_VR1_EVEN", 0x10}, {"CW_VR1_ODD", 0x20},
            {"CCW_VR1_EVEN", 0x40}, {"CCW_VR1_ODD", 0x80}, {"CW", 0x33},
            {"CCW", 0xCC},         {"ANY", 0xFF}};
}

std::vector<umask_def> ring_kind_umasks() { return {{"AD", 0x01}, {"AK", 0x02}, {"BL", 0x04}}; }

std::vector<umask_def> msg_class_umasks() {
    return {{"DRS", 0x08}, {"NCB", 0x10}, {"NCS", 0x20}};
}

// --- IVB-EP (ivytown_uncore.json, 329468-002 §2.9), the base list ------------
// IVB-EP is the base because it has a counterpart of every SNB-EP event: SNB-EP
// drops three events, renames one and has other sub-events on a few.

std::vector<event_def> ivb_ep_events() {
    return {
        {"CLOCKTICKS", 0x01, no_ext, {}, ctr_all, 1, no_umask0,
         "UCLK cycles seen by the R2PCIe box"},
        {"RING_AD_USED", 0x07, no_ext, ivb_ring_umasks(), ctr_all, 1, no_umask0,
         "cycles the AD ring is busy at this stop, per direction, polarity and virtual ring"},
        {"RING_AK_USED", 0x08, no_ext, ivb_ring_umasks(), ctr_all, 1, no_umask0,
         "cycles the AK ring is busy at this stop, per direction, polarity and virtual ring"},
        {"RING_BL_USED", 0x09, no_ext, ivb_ring_umasks(), ctr_all, 1, no_umask0,
         "cycles the BL ring is busy at this stop, per direction, polarity and virtual ring"},
        {"RING_IV_USED", 0x0A, no_ext, {{"CW", 0x33}, {"CCW", 0xCC}, {"ANY", 0xFF}}, ctr_all, 1,
         no_umask0, "cycles the IV (invalidation) ring is busy at this stop"},
        {"RxR_CYCLES_NE", 0x10, no_ext, {{"NCB", 0x10}, {"NCS", 0x20}}, ctr_0_1, 1, no_umask0,
         "cycles the chosen ingress queue holds at least one entry"},
        {"RxR_INSERTS", 0x11, no_ext, {{"NCB", 0x10}, {"NCS", 0x20}}, ctr_0_1, 1, no_umask0,
         "entries allocated in the chosen ingress queue"},
        // The JSON lists umask 0 beside CW and CCW.
        {"RxR_AK_BOUNCES", 0x12, no_ext, {{"CW", 0x01}, {"CCW", 0x02}}, ctr_0, 1, umask0_is_all,
         "requests bound for the AK ingress that were bounced, per direction"},
        // Occupancy accumulator: adds the queue depth each cycle, bounded by the
        // 5-bit increment width of this box (329468-002 §2.9.2).
        {"RxR_OCCUPANCY", 0x13, no_ext, {{"DRS", 0x08}}, ctr_0, 31, no_umask0,
         "running sum of the ingress queue depth"},
        {"TxR_CYCLES_NE", 0x23, no_ext, ring_kind_umasks(), ctr_0, 1, no_umask0,
         "cycles the chosen egress queue holds at least one entry"},
        {"TxR_CYCLES_FULL", 0x25, no_ext, ring_kind_umasks(), ctr_0, 1, no_umask0,
         "cycles the chosen egress queue is full"},
        {"TxR_NACK_CW", 0x26, no_ext, ring_kind_umasks(), ctr_0_1, 1, no_umask0,
         "egress NACKs on the clockwise ring"},
        {"TxR_NACK_CCW", 0x28, no_ext, ring_kind_umasks(), ctr_0_1, 1, no_umask0,
         "egress NACKs on the counter-clockwise ring"},
        {"IIO_CREDITS_USED", 0x32, no_ext, msg_class_umasks(), ctr_0_1, 1, no_umask0,
         "cycles with at least one credit into the IIO in use"},
        {"IIO_CREDITS_ACQUIRED", 0x33, no_ext, msg_class_umasks(), ctr_0_1, 1, no_umask0,
         "credits taken to send a message into the IIO"},
        {"IIO_CREDITS_REJECT", 0x34, no_ext, {{"DRS", 0x08}}, ctr_0_1, 1, no_umask0,
         "attempts to take an IIO credit that failed"},
    };
}

// --- SNB-EP (Jaketown_uncore.json, 327043-001 §2.8): IVB-EP minus differences --

std::vector<event_def> snb_ep_events() {
    auto events = ivb_ep_events();

    // Gone: Jaketown_uncore.json has no RxR_INSERTS (11H), RxR_OCCUPANCY (13H)
    // or TxR_NACK_CCW (28H).
    events.erase(std::remove_if(events.begin(), events.end(),
                                [](const event_def& e) {
                                    return e.name == "RxR_INSERTS" ||
                                           e.name == "RxR_OCCUPANCY" ||
                                           e.name == "TxR_NACK_CCW";
                                }),
                 events.end());

    // Rings: one bit per direction and polarity, no virtual rings (JSON), plus
    // our CW/CCW/ANY aliases (see the header); the IV ring has only ANY (JSON, 0FH).
    for (const char* ring : {"AD", "AK", "BL"}) {
        event_def& e = event_named(events, std::string("RING_") + ring + "_USED");
        e.umasks = snb_ring_umasks();
        e.description = std::string("cycles the ") + ring +
                        " ring is busy at this stop (passing or arriving traffic)";
    }
    event_named(events, "RING_IV_USED").umasks = {{"ANY", 0x0F}};

    // RxR_CYCLES_NE also has DRS (JSON, umask 08H).
    event_named(events, "RxR_CYCLES_NE").umasks = msg_class_umasks();

    // RxR_AK_BOUNCES has no direction sub-events: the JSON lists umask 0 only.
    event_def& bounces = event_named(events, "RxR_AK_BOUNCES");
    bounces.umasks = {};
    bounces.umask0_all = no_umask0;
    bounces.description = "requests bound for the AK ingress that were bounced";

    // One NACK event for both directions, TxR_NACKS (JSON, 26H).
    event_def& nacks = event_named(events, "TxR_NACK_CW");
    nacks.name = "TxR_NACKS";
    nacks.description = "egress NACKs, per ring";

    // IIO_CREDITS_REJECT has all three classes (JSON: DRS, NCB, NCS).
    event_named(events, "IIO_CREDITS_REJECT").umasks = msg_class_umasks();

    return events;
}

}  // namespace

std::vector<event_def> snb_ep_r2pcie_events() { return snb_ep_events(); }
std::vector<event_def> ivb_ep_r2pcie_events() { return ivb_ep_events(); }

}  // namespace pmonsim::catalog_data
