// Caching-agent (CBo) event catalog, both personalities.
//
// Sources: 327043-001 §2.3 and 329468-002 §2.3 (four 44-bit counters; only
// counter 0 counts occupancy, up to 20 per cycle; COUNTER0_OCCUPANCY gives
// counters 1-3 counter 0's increment). Codes, umasks and counter masks follow
// Intel's perfmon JSON (unit "CBO"), which DECISIONS.md makes the authority.
// Research notes: other-boxes.md §5.
//
// The lookup, TOR and retry events' umasks are encodings, not sums of
// sub-event bits (LLC_LOOKUP.DATA_READ 0x03 and .WRITE 0x05 share bit 0,
// TOR_INSERTS.MISS_OPCODE 0x03 qualifies .OPCODE 0x01): those events are
// enumerated, each listed value an input of its own (decisions.md B8).
// Increments: the occupancy accumulators add up to 20 per cycle (their
// counter 0's limit), the rest at most 1.
#include <string>

#include "catalog/catalog.h"

namespace pmonsim::catalog_data {

namespace {

constexpr uint8_t ctr_0 = 0x1, ctr_0_1 = 0x3, ctr_2_3 = 0xC, ctr_1_3 = 0xE, ctr_all = 0xF;
constexpr uint16_t occupancy_max = 20;

event_def ev(const char* name, uint8_t code, std::vector<umask_def> u, uint8_t ctrs, const char* what,
             uint16_t max_inc = 1) {
    return plain_event(name, code, std::move(u), ctrs, max_inc, what);
}
event_def enumerated(event_def e) {
    e.enumerated = true;
    return e;
}

std::vector<umask_def> rx_queues() {
    return {{"IRQ", 0x01}, {"IRQ_REJECTED", 0x02}, {"IPQ", 0x04}, {"VFIFO", 0x10}};
}
std::vector<umask_def> tx_inserts() {
    return {{"AD_CACHE", 0x01}, {"AK_CACHE", 0x02}, {"BL_CACHE", 0x04}, {"IV_CACHE", 0x08},
            {"AD_CORE", 0x10},  {"AK_CORE", 0x20},  {"BL_CORE", 0x40}};
}
std::vector<umask_def> victims() {
    return {{"M_STATE", 0x01}, {"E_STATE", 0x02}, {"S_STATE", 0x04}, {"MISS", 0x08}, {"NID", 0x40}};
}
std::vector<umask_def> misc() {
    return {{"RSPI_WAS_FSE", 0x01}, {"WC_ALIASING", 0x02}, {"STARTED", 0x04}, {"RFO_HIT_S", 0x08}};
}
std::vector<umask_def> snb_tor(bool occupancy) {
    std::vector<umask_def> u = {{"OPCODE", 0x01},       {"MISS_OPCODE", 0x03}, {"EVICTION", 0x04},
                                {"MISS_ALL", 0x0A},     {"NID_OPCODE", 0x41},  {"NID_MISS_OPCODE", 0x43},
                                {"NID_EVICTION", 0x44}, {"NID_ALL", 0x48},     {"NID_MISS_ALL", 0x4A}};
    if (occupancy) u.push_back({"ALL", 0x08});
    else {
        u.push_back({"WB", 0x10});
        u.push_back({"NID_WB", 0x50});
    }
    return u;
}
std::vector<umask_def> ivb_tor(bool occupancy) {
    std::vector<umask_def> u = {
        {"OPCODE", 0x01},         {"MISS_OPCODE", 0x03},      {"EVICTION", 0x04},     {"ALL", 0x08},
        {"WB", 0x10},             {"LOCAL_OPCODE", 0x21},     {"MISS_LOCAL_OPCODE", 0x23},
        {"LOCAL", 0x28},          {"MISS_LOCAL", 0x2A},       {"NID_OPCODE", 0x41},   {"NID_MISS_OPCODE", 0x43},
        {"NID_EVICTION", 0x44},   {"NID_ALL", 0x48},          {"NID_MISS_ALL", 0x4A}, {"NID_WB", 0x50},
        {"REMOTE_OPCODE", 0x81},  {"MISS_REMOTE_OPCODE", 0x83}, {"REMOTE", 0x88},     {"MISS_REMOTE", 0x8A}};
    if (occupancy) u.push_back({"MISS_ALL", 0x0A});
    return u;
}
std::vector<umask_def> snb_ring() { return {{"UP_EVEN", 0x01}, {"UP_ODD", 0x02}, {"DOWN_EVEN", 0x04}, {"DOWN_ODD", 0x08}}; }
std::vector<umask_def> ivb_ring() {
    return {{"UP_VR0_EVEN", 0x01},   {"UP_VR0_ODD", 0x02},   {"DOWN_VR0_EVEN", 0x04}, {"DOWN_VR0_ODD", 0x08},
            {"UP_VR1_EVEN", 0x10},   {"UP_VR1_ODD", 0x20},   {"DOWN_VR1_EVEN", 0x40}, {"DOWN_VR1_ODD", 0x80},
            {"CW", 0x03},            {"CCW", 0x0C},          {"UP", 0x33},            {"DOWN", 0xCC}};
}

// --- IVB-EP (ivytown_uncore.json, 329468-002 §2.3) ------------------------------

std::vector<umask_def> ivb_rx_queues() {
    std::vector<umask_def> u = rx_queues();
    u.push_back({"IRQ_REJ", 0x02});  // (the JSON's second name)
    return u;
}

std::vector<event_def> ivb_ep_events() {
    return {
        ev("CLOCKTICKS", 0x00, {}, ctr_all, "UCLK cycles seen by the caching agent"),
        ev("TxR_INSERTS", 0x02, tx_inserts(), ctr_0_1, "allocations in the egress, by ring and source"),
        ev("TxR_STARVED", 0x03, {{"AK_BOTH", 0x02}, {"IV", 0x08}, {"AD_CORE", 0x10}}, ctr_0_1,
           "cycles the egress was starved"),
        ev("TxR_ADS_USED", 0x04, {{"AD", 0x01}, {"AK", 0x02}, {"BL", 0x04}}, ctr_0_1, "egress anti-deadlock slots used"),
        ev("RING_BOUNCES", 0x05,
           {{"AK_CORE", 0x02}, {"AD_IRQ", 0x02}, {"BL_CORE", 0x04}, {"AK", 0x04}, {"IV_CORE", 0x08}, {"BL", 0x08},
            {"IV", 0x10}},
           ctr_0_1, "messages bounced at this ring stop"),
        ev("RING_SINK_STARVED", 0x06, {{"AD_IRQ", 0x01}, {"AD_IPQ", 0x02}, {"IV", 0x10}}, ctr_0_1,
           "cycles a ring sink was starved"),
        ev("RING_SRC_THRTL", 0x07, {}, ctr_0_1, "cycles the ring source was throttled"),
        ev("RxR_OCCUPANCY", 0x11, ivb_rx_queues(), ctr_0, "running sum of the ingress queues' depth", occupancy_max),
        ev("RxR_EXT_STARVED", 0x12, {{"IRQ", 0x01}, {"IPQ", 0x02}, {"PRQ", 0x04}, {"ISMQ_BIDS", 0x08}}, ctr_0_1,
           "cycles an ingress queue was starved by another"),
        ev("RxR_INSERTS", 0x13, ivb_rx_queues(), ctr_0_1, "allocations in the ingress queues"),
        ev("RxR_INT_STARVED", 0x14, {{"IRQ", 0x01}, {"IPQ", 0x04}, {"ISMQ", 0x08}}, ctr_0_1,
           "cycles an ingress queue was starved internally"),
        ev("RING_AD_USED", 0x1B, ivb_ring(), ctr_2_3, "cycles the AD ring is busy at this stop"),
        ev("RING_AK_USED", 0x1C, ivb_ring(), ctr_2_3, "cycles the AK ring is busy at this stop"),
        ev("RING_BL_USED", 0x1D, ivb_ring(), ctr_2_3, "cycles the BL ring is busy at this stop"),
        ev("RING_IV_USED", 0x1E, {{"ANY", 0x0F}, {"UP", 0x33}, {"DOWN", 0xCC}}, ctr_2_3,
           "cycles the IV ring is busy at this stop"),
        ev("COUNTER0_OCCUPANCY", 0x1F, {}, ctr_1_3, "counter 0's increment, for another threshold (decisions.md B9)",
           occupancy_max),
        enumerated(ev("RxR_IPQ_RETRY", 0x31, {{"ANY", 0x01}, {"FULL", 0x02}, {"ADDR_CONFLICT", 0x04}, {"QPI_CREDITS", 0x10}},
                      ctr_0_1, "snoop-queue entries retried, by reason")),
        enumerated(ev("RxR_IRQ_RETRY", 0x32,
                      {{"ANY", 0x01}, {"FULL", 0x02}, {"ADDR_CONFLICT", 0x04}, {"RTID", 0x08}, {"QPI_CREDITS", 0x10},
                       {"IIO_CREDITS", 0x20}},
                      ctr_0_1, "core-request entries retried, by reason")),
        enumerated(ev("RxR_ISMQ_RETRY", 0x33,
                      {{"ANY", 0x01}, {"FULL", 0x02}, {"RTID", 0x08}, {"QPI_CREDITS", 0x10}, {"IIO_CREDITS", 0x20},
                       {"WB_CREDITS", 0x80}},
                      ctr_0_1, "ISMQ entries retried, by reason")),
        enumerated(ev("LLC_LOOKUP", 0x34,
                      {{"DATA_READ", 0x03}, {"WRITE", 0x05}, {"REMOTE_SNOOP", 0x09}, {"ANY", 0x11}, {"NID", 0x41}},
                      ctr_0_1, "LLC lookups in the filter's states, by kind")),
        enumerated(ev("TOR_INSERTS", 0x35, ivb_tor(false), ctr_0_1, "requests entering the table of requests")),
        enumerated(ev("TOR_OCCUPANCY", 0x36, ivb_tor(true), ctr_0, "running sum of the table of requests' entries",
                      occupancy_max)),
        ev("LLC_VICTIMS", 0x37, victims(), ctr_0_1, "lines evicted from the LLC, by state"),
        ev("MISC", 0x39, misc(), ctr_0_1, "miscellaneous caching-agent events"),
        ev("QLRU", 0x3C,
           {{"AGE0", 0x01}, {"AGE1", 0x02}, {"AGE2", 0x04}, {"AGE3", 0x08}, {"LRU_DECREMENT", 0x10},
            {"VICTIM_NON_ZERO", 0x20}},
           ctr_0_1, "LRU age updates"),
    };
}

// --- SNB-EP (Jaketown_uncore.json, 327043-001 §2.3) --------------------------------

std::vector<event_def> snb_ep_events() {
    return {
        ev("CLOCKTICKS", 0x00, {}, ctr_all, "UCLK cycles seen by the caching agent"),
        ev("TxR_INSERTS", 0x02, tx_inserts(), ctr_0_1, "allocations in the egress, by ring and source"),
        ev("TxR_STARVED", 0x03, {{"AK", 0x02}, {"BL", 0x04}}, ctr_0_1, "cycles the egress was starved"),
        ev("TxR_ADS_USED", 0x04, {}, ctr_0_1, "egress anti-deadlock slots used"),
        ev("RING_BOUNCES", 0x05, {{"AK_CORE", 0x02}, {"BL_CORE", 0x04}, {"IV_CORE", 0x08}}, ctr_0_1,
           "messages bounced at this ring stop"),
        ev("RING_SINK_STARVED", 0x06, {{"AD_CACHE", 0x01}, {"AK_CORE", 0x02}, {"BL_CORE", 0x04}, {"IV_CORE", 0x08}},
           ctr_0_1, "cycles a ring sink was starved"),
        ev("RING_SRC_THRTL", 0x07, {}, ctr_0_1, "cycles the ring source was throttled"),
        ev("RxR_OCCUPANCY", 0x11, rx_queues(), ctr_0, "running sum of the ingress queues' depth", occupancy_max),
        ev("RxR_EXT_STARVED", 0x12, {{"IRQ", 0x01}, {"IPQ", 0x02}, {"ISMQ", 0x04}, {"ISMQ_BIDS", 0x08}}, ctr_0_1,
           "cycles an ingress queue was starved by another"),
        ev("RxR_INSERTS", 0x13, rx_queues(), ctr_0_1, "allocations in the ingress queues"),
        ev("RxR_INT_STARVED", 0x14, {{"IRQ", 0x01}, {"IPQ", 0x04}, {"ISMQ", 0x08}}, ctr_0_1,
           "cycles an ingress queue was starved internally"),
        ev("RING_AD_USED", 0x1B, snb_ring(), ctr_2_3, "cycles the AD ring is busy at this stop"),
        ev("RING_AK_USED", 0x1C, snb_ring(), ctr_2_3, "cycles the AK ring is busy at this stop"),
        ev("RING_BL_USED", 0x1D, snb_ring(), ctr_2_3, "cycles the BL ring is busy at this stop"),
        ev("RING_IV_USED", 0x1E, {{"ANY", 0x0F}}, ctr_2_3, "cycles the IV ring is busy at this stop"),
        ev("COUNTER0_OCCUPANCY", 0x1F, {}, ctr_1_3, "counter 0's increment, for another threshold (decisions.md B9)",
           occupancy_max),
        ev("ISMQ_DRD_MISS_OCC", 0x21, {}, ctr_0_1, "cycles with a data-read miss in the ISMQ"),
        enumerated(ev("RxR_IPQ_RETRY", 0x31, {{"ANY", 0x01}, {"FULL", 0x02}, {"ADDR_CONFLICT", 0x04}, {"QPI_CREDITS", 0x10}},
                      ctr_0_1, "snoop-queue entries retried, by reason")),
        enumerated(ev("RxR_IRQ_RETRY", 0x32,
                      {{"ANY", 0x01}, {"FULL", 0x02}, {"ADDR_CONFLICT", 0x04}, {"RTID", 0x08}, {"QPI_CREDITS", 0x10}},
                      ctr_0_1, "core-request entries retried, by reason")),
        enumerated(ev("RxR_ISMQ_RETRY", 0x33,
                      {{"ANY", 0x01}, {"FULL", 0x02}, {"RTID", 0x08}, {"QPI_CREDITS", 0x10}, {"IIO_CREDITS", 0x20}},
                      ctr_0_1, "ISMQ entries retried, by reason")),
        enumerated(ev("LLC_LOOKUP", 0x34, {{"DATA_READ", 0x03}, {"WRITE", 0x05}, {"REMOTE_SNOOP", 0x09}, {"NID", 0x41}},
                      ctr_0_1, "LLC lookups in the filter's states, by kind")),
        enumerated(ev("TOR_INSERTS", 0x35, snb_tor(false), ctr_0_1, "requests entering the table of requests")),
        enumerated(ev("TOR_OCCUPANCY", 0x36, snb_tor(true), ctr_0, "running sum of the table of requests' entries",
                      occupancy_max)),
        ev("LLC_VICTIMS", 0x37, victims(), ctr_0_1, "lines evicted from the LLC, by state"),
        ev("MISC", 0x39, misc(), ctr_0_1, "miscellaneous caching-agent events"),
    };
}

// The filter fields each sub-event uses, as Intel's catalog's Filter column
// lists them (decisions.md B14): every LLC_LOOKUP encoding the state; an
// encoding with bit 6 (NID) the node; a TOR encoding with bit 0 (an opcode
// match) the opcode. (Checked against the JSON by CatalogOracle.)
std::vector<event_def> with_filters(std::vector<event_def> events) {
    namespace f = request_field;
    for (event_def& e : events) {
        const bool lookup = e.name == "LLC_LOOKUP", tor = e.name == "TOR_INSERTS" || e.name == "TOR_OCCUPANCY";
        if (!lookup && !tor && e.name != "LLC_VICTIMS") continue;
        for (umask_def& u : e.umasks) {
            if (lookup) u.filters |= f::state;
            if (u.value & 0x40) u.filters |= f::nid;
            if (tor && (u.value & 0x01)) u.filters |= f::opc;
        }
    }
    return events;
}

}  // namespace

std::vector<event_def> snb_ep_cbo_events() { return with_filters(snb_ep_events()); }
std::vector<event_def> ivb_ep_cbo_events() { return with_filters(ivb_ep_events()); }

}  // namespace pmonsim::catalog_data
