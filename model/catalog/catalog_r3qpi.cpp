// R3QPI (ring to QPI link-layer agent) event catalog, both personalities.
//
// Sources: 327043-001 §2.9 and 329468-002 §2.10 (three 44-bit counters per
// link). Codes, umasks and counter masks follow Intel's perfmon JSON (unit
// "R3QPI"), which DECISIONS.md makes the authority: ring and clock events on
// counters 0-2, RxR_OCCUPANCY on counter 0 alone, the rest on 0-1. Research
// notes: other-boxes.md §7.
//
// Increments (decisions.md B6): one per cycle and sub-event, except the
// ingress occupancy accumulator, which adds the queue depth up to the 8-bit
// increment width (255).
#include <algorithm>
#include <string>

#include "catalog/catalog.h"

namespace pmonsim::catalog_data {

namespace {

constexpr uint8_t ctr_0 = 0x1, ctr_0_1 = 0x3, ctr_all = 0x7;

std::vector<umask_def> msg_classes() {
    return {{"HOM", 0x01}, {"SNP", 0x02}, {"NDR", 0x04}, {"DRS", 0x08}, {"NCB", 0x10}, {"NCS", 0x20}};
}
std::vector<umask_def> ring_kinds() { return {{"AD", 0x01}, {"AK", 0x02}, {"BL", 0x04}}; }
std::vector<umask_def> qpi_credits() {
    return {{"VNA", 0x01},     {"VN0_HOM", 0x02}, {"VN0_SNP", 0x04}, {"VN0_NDR", 0x08},
            {"VN1_HOM", 0x10}, {"VN1_SNP", 0x20}, {"VN1_NDR", 0x40}};
}
std::vector<umask_def> ivb_ring() {
    return {{"CW_VR0_EVEN", 0x01}, {"CW_VR0_ODD", 0x02}, {"CCW_VR0_EVEN", 0x04}, {"CCW_VR0_ODD", 0x08},
            {"CW", 0x33},          {"CCW", 0xCC}};
}
std::vector<umask_def> snb_ring() {
    return {{"CW_EVEN", 0x01}, {"CW_ODD", 0x02}, {"CCW_EVEN", 0x04}, {"CCW_ODD", 0x08}};
}

event_def ev(const char* name, uint8_t code, std::vector<umask_def> u, uint8_t ctrs, const char* what,
             uint16_t max_inc = 1) {
    return plain_event(name, code, std::move(u), ctrs, max_inc, what);
}

// --- IVB-EP (ivytown_uncore.json, 329468-002 §2.10) -------------------------

std::vector<event_def> ivb_ep_events() {
    std::vector<event_def> e = {
        ev("CLOCKTICKS", 0x01, {}, ctr_all, "UCLK cycles seen by the R3QPI box"),
        ev("RING_AD_USED", 0x07, ivb_ring(), ctr_all, "cycles the AD ring is busy at this stop"),
        ev("RING_AK_USED", 0x08, ivb_ring(), ctr_all, "cycles the AK ring is busy at this stop"),
        ev("RING_BL_USED", 0x09, ivb_ring(), ctr_all, "cycles the BL ring is busy at this stop"),
        ev("RING_IV_USED", 0x0A, {{"CW", 0x33}, {"CCW", 0xCC}, {"ANY", 0xFF}}, ctr_all,
           "cycles the IV ring is busy at this stop"),
        ev("RxR_CYCLES_NE", 0x10, {{"HOM", 0x01}, {"SNP", 0x02}, {"NDR", 0x04}}, ctr_0_1,
           "cycles the ingress queue of a class holds an entry"),
        ev("RxR_INSERTS", 0x11, msg_classes(), ctr_0_1, "entries allocated in the ingress queue, by class"),
        ev("RxR_BYPASSED", 0x12, {{"AD", 0x01}}, ctr_0_1, "AD ingress entries that bypassed the queue"),
        ev("RxR_OCCUPANCY", 0x13, msg_classes(), ctr_0, "running sum of the ingress queue depth, by class", 255),
        ev("TxR_NACK_CW", 0x26, ring_kinds(), ctr_0_1, "egress NACKs on the clockwise ring"),
        ev("TxR_NACK_CCW", 0x28, ring_kinds(), ctr_0_1, "egress NACKs on the counter-clockwise ring"),
        ev("QPI0_AD_CREDITS_EMPTY", 0x29, qpi_credits(), ctr_0_1, "cycles without AD credits to QPI link 0"),
        ev("QPI1_AD_CREDITS_EMPTY", 0x2A, qpi_credits(), ctr_0_1, "cycles without AD credits to QPI link 1"),
        ev("C_LO_AD_CREDITS_EMPTY", 0x2B, numbered_bits("CBO", 8), ctr_0_1,
           "cycles without AD credits to caching agents 0-7"),
        ev("C_HI_AD_CREDITS_EMPTY", 0x2C, numbered_bits("CBO", 7, 8), ctr_0_1,
           "cycles without AD credits to caching agents 8-14"),
        ev("QPI0_BL_CREDITS_EMPTY", 0x2D, qpi_credits(), ctr_0_1, "cycles without BL credits to QPI link 0"),
        ev("QPI1_BL_CREDITS_EMPTY", 0x2E, qpi_credits(), ctr_0_1, "cycles without BL credits to QPI link 1"),
        ev("HA_R2_BL_CREDITS_EMPTY", 0x2F, {{"HA0", 0x01}, {"HA1", 0x02}, {"R2_NCB", 0x04}, {"R2_NCS", 0x08}},
           ctr_0_1, "cycles without BL credits to a home agent or the R2PCIe"),
        ev("VNA_CREDIT_CYCLES_OUT", 0x31, {}, ctr_0_1, "cycles with no VNA credit left"),
        ev("VNA_CREDIT_CYCLES_USED", 0x32, {}, ctr_0_1, "cycles with a VNA credit in use"),
        ev("VNA_CREDITS_ACQUIRED", 0x33, {{"AD", 0x01}, {"BL", 0x04}}, ctr_0_1, "VNA credits taken, by ring"),
        ev("VNA_CREDITS_REJECT", 0x34, msg_classes(), ctr_0_1, "failed attempts to take a VNA credit, by class"),
        ev("VN0_CREDITS_USED", 0x36, msg_classes(), ctr_0_1, "VN0 credits taken, by class"),
        ev("VN0_CREDITS_REJECT", 0x37, msg_classes(), ctr_0_1, "failed attempts to take a VN0 credit, by class"),
        ev("VN1_CREDITS_USED", 0x38, msg_classes(), ctr_0_1, "VN1 credits taken, by class"),
        ev("VN1_CREDITS_REJECT", 0x39, msg_classes(), ctr_0_1, "failed attempts to take a VN1 credit, by class"),
    };
    // The JSON also names 0x12 with umask 0 RxR_AD_BYPASSED: the AD bypasses.
    event_named(e, "RxR_BYPASSED").other_names = {"RxR_AD_BYPASSED"};
    event_named(e, "RxR_BYPASSED").umask0_all = true;
    // and lists umask 0 for VNA_CREDITS_ACQUIRED: both rings.
    event_named(e, "VNA_CREDITS_ACQUIRED").umask0_all = true;
    return e;
}

// --- SNB-EP (Jaketown_uncore.json, 327043-001 §2.9) --------------------------

std::vector<event_def> snb_ep_events() {
    std::vector<event_def> e = {
        ev("CLOCKTICKS", 0x01, {}, ctr_all, "UCLK cycles seen by the R3QPI box"),
        ev("RING_AD_USED", 0x07, snb_ring(), ctr_all, "cycles the AD ring is busy at this stop"),
        ev("RING_AK_USED", 0x08, snb_ring(), ctr_all, "cycles the AK ring is busy at this stop"),
        ev("RING_BL_USED", 0x09, snb_ring(), ctr_all, "cycles the BL ring is busy at this stop"),
        ev("RING_IV_USED", 0x0A, {{"ANY", 0x0F}}, ctr_all, "cycles the IV ring is busy at this stop"),
        ev("RxR_CYCLES_NE", 0x10, msg_classes(), ctr_0_1, "cycles the ingress queue of a class holds an entry"),
        ev("RxR_INSERTS", 0x11, msg_classes(), ctr_0_1, "entries allocated in the ingress queue, by class"),
        ev("RxR_BYPASSED", 0x12, {{"AD", 0x01}}, ctr_0_1, "AD ingress entries that bypassed the queue"),
        ev("RxR_OCCUPANCY", 0x13, msg_classes(), ctr_0, "running sum of the ingress queue depth, by class", 255),
        ev("IIO_CREDITS_ACQUIRED", 0x20, {{"DRS", 0x08}, {"NCB", 0x10}, {"NCS", 0x20}}, ctr_0_1,
           "credits taken to send into the IIO, by class"),
        ev("IIO_CREDITS_REJECT", 0x21, {{"DRS", 0x08}, {"NCB", 0x10}, {"NCS", 0x20}}, ctr_0_1,
           "failed attempts to take an IIO credit, by class"),
        ev("IIO_CREDITS_USED", 0x22, {{"DRS", 0x08}, {"NCB", 0x10}, {"NCS", 0x20}}, ctr_0_1,
           "cycles with an IIO credit in use, by class"),
        ev("VNA_CREDIT_CYCLES_OUT", 0x31, {}, ctr_0_1, "cycles with no VNA credit left"),
        ev("VNA_CREDIT_CYCLES_USED", 0x32, {}, ctr_0_1, "cycles with a VNA credit in use"),
        ev("VNA_CREDITS_ACQUIRED", 0x33, {}, ctr_0_1, "VNA credits taken"),
        ev("VNA_CREDITS_REJECT", 0x34, msg_classes(), ctr_0_1, "failed attempts to take a VNA credit, by class"),
        ev("VN0_CREDITS_USED", 0x36, msg_classes(), ctr_0_1, "VN0 credits taken, by class"),
        ev("VN0_CREDITS_REJECT", 0x37, msg_classes(), ctr_0_1, "failed attempts to take a VN0 credit, by class"),
    };
    return e;
}

}  // namespace

std::vector<event_def> snb_ep_r3qpi_events() { return snb_ep_events(); }
std::vector<event_def> ivb_ep_r3qpi_events() { return ivb_ep_events(); }

}  // namespace pmonsim::catalog_data
