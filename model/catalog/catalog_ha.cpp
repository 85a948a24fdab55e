// Home Agent (HA) event catalog, both personalities.
//
// Sources: 327043-001 §2.4 and 329468-002 §2.4 (four 48-bit counters, any
// event on any counter). Codes, umasks and counter masks follow Intel's
// perfmon JSON (unit "HA"), which DECISIONS.md makes the authority. Research
// notes: other-boxes.md §4.
//
// Increments (decisions.md B6): one per UCLK and sub-event, except the
// occupancy accumulators: the egress queues' up to 255 (the 8-bit increment
// width), the IVB-EP backup tracker's up to 512 (329468-002's entry for
// BT_OCCUPANCY; the 8-bit threshold then cannot compare it whole).
//
// Where the JSON gives one code two names (IVB-EP 0x59, 0x5A) or one umask
// two names (DIRECTORY_LOOKUP NO_SNP = SNOOP_S, DIRECTORY_UPDATE I2S = CLEAR,
// IODC_CONFLICTS), the catalog keeps one event with both names.
#include <string>

#include "catalog/catalog.h"

namespace pmonsim::catalog_data {

namespace {

constexpr uint8_t ctr_all = 0xF;
// What ADDR_OPC_MATCH's encodings compare (Intel's catalog's Filter column).
constexpr uint8_t addr = request_field::addr, opc = request_field::opc;

event_def ev(const char* name, uint8_t code, std::vector<umask_def> u, const char* what, uint16_t max_inc = 1) {
    return plain_event(name, code, std::move(u), ctr_all, max_inc, what);
}

std::vector<umask_def> channels() { return numbered_bits("CHN", 4); }
std::vector<umask_def> scheds() { return {{"SCHED0", 0x01}, {"SCHED1", 0x02}, {"ALL", 0x03}}; }
std::vector<umask_def> snb_ring() {
    return {{"CW_EVEN", 0x01}, {"CW_ODD", 0x02}, {"CCW_EVEN", 0x04}, {"CCW_ODD", 0x08}};
}
std::vector<umask_def> ivb_ring() {
    return {{"CW_VR0_EVEN", 0x01}, {"CW_VR0_ODD", 0x02}, {"CCW_VR0_EVEN", 0x04}, {"CCW_VR0_ODD", 0x08},
            {"CW_VR1_EVEN", 0x10}, {"CW_VR1_ODD", 0x20}, {"CCW_VR1_EVEN", 0x40}, {"CCW_VR1_ODD", 0x80},
            {"CW", 0x33},          {"CCW", 0xCC}};
}

// The events both personalities list alike.
std::vector<event_def> common_events() {
    return {
        ev("CLOCKTICKS", 0x00, {}, "UCLK cycles seen by the home agent"),
        ev("DIRECT2CORE_COUNT", 0x11, {}, "data sent straight to a core (Direct2Core)"),
        ev("DIRECT2CORE_CYCLES_DISABLED", 0x12, {}, "cycles Direct2Core was disabled"),
        ev("DIRECT2CORE_TXN_OVERRIDE", 0x13, {}, "reads that could have used Direct2Core but did not"),
        ev("BYPASS_IMC", 0x14, {{"TAKEN", 0x01}, {"NOT_TAKEN", 0x02}}, "reads that could bypass the memory controller"),
        ev("RPQ_CYCLES_NO_REG_CREDITS", 0x15, channels(), "cycles without regular read-queue credits, by channel"),
        ev("RPQ_CYCLES_NO_SPEC_CREDITS", 0x16, channels(), "cycles without special read-queue credits, by channel"),
        ev("WPQ_CYCLES_NO_REG_CREDITS", 0x18, channels(), "cycles without regular write-queue credits, by channel"),
        ev("WPQ_CYCLES_NO_SPEC_CREDITS", 0x19, channels(), "cycles without special write-queue credits, by channel"),
        ev("IMC_WRITES", 0x1A,
           {{"FULL", 0x01}, {"PARTIAL", 0x02}, {"FULL_ISOCH", 0x04}, {"PARTIAL_ISOCH", 0x08}, {"ALL", 0x0F}},
           "writes issued to the memory controller, full or partial"),
        ev("TAD_REQUESTS_G0", 0x1B, numbered_bits("REGION", 8), "requests to each of address-decode regions 0-7"),
        ev("TAD_REQUESTS_G1", 0x1C, numbered_bits("REGION", 4, 8), "requests to each of address-decode regions 8-11"),
        ev("IMC_RETRY", 0x1E, {}, "memory-controller requests retried"),
        ev("IGR_NO_CREDIT_CYCLES", 0x22, {{"AD_QPI0", 0x01}, {"AD_QPI1", 0x02}, {"BL_QPI0", 0x04}, {"BL_QPI1", 0x08}},
           "cycles without ingress credits towards a QPI link"),
        ev("TxR_AD_INSERTS", 0x27, scheds(), "allocations in the AD egress, by scheduler"),
        ev("TxR_AD_CYCLES_NE", 0x29, scheds(), "cycles the AD egress is not empty"),
        ev("TxR_AD_CYCLES_FULL", 0x2A, scheds(), "cycles the AD egress is full"),
        ev("TxR_AK_INSERTS", 0x2F, scheds(), "allocations in the AK egress, by scheduler"),
        ev("TxR_AK_CYCLES_NE", 0x31, scheds(), "cycles the AK egress is not empty"),
        ev("TxR_AK_CYCLES_FULL", 0x32, scheds(), "cycles the AK egress is full"),
        ev("TxR_BL_INSERTS", 0x33, scheds(), "allocations in the BL egress, by scheduler"),
        ev("TxR_BL_OCCUPANCY", 0x34, scheds(), "running sum of the BL egress depth", 255),
        ev("TxR_BL_CYCLES_NE", 0x35, scheds(), "cycles the BL egress is not empty"),
        ev("TxR_BL_CYCLES_FULL", 0x36, scheds(), "cycles the BL egress is full"),
    };
}

// --- IVB-EP (ivytown_uncore.json, 329468-002 §2.4) ------------------------------

std::vector<event_def> ivb_ep_events() {
    std::vector<event_def> e = common_events();
    const std::vector<event_def> more = {
        ev("REQUESTS", 0x01,
           {{"READS_LOCAL", 0x01}, {"READS_REMOTE", 0x02}, {"WRITES_LOCAL", 0x04}, {"WRITES_REMOTE", 0x08},
            {"INVITOE_LOCAL", 0x10}, {"INVITOE_REMOTE", 0x20}, {"READS", 0x03}, {"WRITES", 0x0C}},
           "requests the home agent received, local or remote"),
        ev("TRACKER_CYCLES_NE", 0x03, {}, "cycles the tracker holds a request"),
        ev("CONFLICT_CYCLES", 0x0B, {{"CONFLICT", 0x02}, {"LAST", 0x04}, {"ACKCNFLTS", 0x08}, {"CMP_FWDS", 0x10}},
           "cycles and messages of conflicting requests"),
        ev("DIRECTORY_LOOKUP", 0x0C,
           {{"SNP", 0x01}, {"NO_SNP", 0x02}, {"SNOOP_S", 0x02}, {"SNOOP_A", 0x08}, {"ANY", 0x10}, {"STATE_I", 0x20},
            {"STATE_S", 0x40}, {"STATE_A", 0x80}},
           "directory lookups, by outcome and state"),
        ev("DIRECTORY_UPDATE", 0x0D,
           {{"SET", 0x01}, {"CLEAR", 0x02}, {"I2S", 0x02}, {"ANY", 0x03}, {"I2A", 0x04}, {"S2I", 0x08},
            {"S2A", 0x10}, {"A2I", 0x20}, {"A2S", 0x40}},
           "directory updates, by transition"),
        ev("TxR_AK", 0x0E, {{"CRD_CBO", 0x02}}, "AK messages sent to the caching agents"),
        ev("TxR_AD", 0x0F, {{"HOM", 0x04}}, "AD messages sent"),
        ev("TxR_BL", 0x10, {{"DRS_CACHE", 0x01}, {"DRS_CORE", 0x02}, {"DRS_QPI", 0x04}}, "BL data messages sent"),
        ev("IMC_READS", 0x17, {{"NORMAL", 0x01}}, "reads issued to the memory controller"),
        ev("ADDR_OPC_MATCH", 0x20,
           {{"ADDR", 0x01, addr},
            {"OPC", 0x02, opc},
            {"FILT", 0x03, addr | opc},
            {"AD", 0x04, opc},
            {"BL", 0x08, opc},
            {"AK", 0x10, opc}},
           "requests matching ADDRMATCH0/1 and OPCODEMATCH (decisions.md B7, B14)"),
        ev("SNOOP_RESP", 0x21,
           {{"RSPI", 0x01}, {"RSPS", 0x02}, {"RSPIFWD", 0x04}, {"RSPSFWD", 0x08}, {"RSP_WB", 0x10},
            {"RSP_FWD_WB", 0x20}, {"RSPCNFLCT", 0x40}},
           "snoop responses received, by type"),
        ev("TxR_AD_OCCUPANCY", 0x28, {{"SCHED0", 0x01}, {"SCHED1", 0x02}}, "running sum of the AD egress depth", 255),
        ev("TxR_AK_OCCUPANCY", 0x30, {{"SCHED0", 0x01}, {"SCHED1", 0x02}}, "running sum of the AK egress depth", 255),
        ev("RING_AD_USED", 0x3E, ivb_ring(), "cycles the AD ring is busy at this stop"),
        ev("RING_AK_USED", 0x3F, ivb_ring(), "cycles the AK ring is busy at this stop"),
        ev("RING_BL_USED", 0x40, ivb_ring(), "cycles the BL ring is busy at this stop"),
        ev("DIRECTORY_LAT_OPT", 0x41, {}, "directory-latency optimisations taken"),
        ev("BT_CYCLES_NE", 0x42, {{"LOCAL", 0x01}, {"REMOTE", 0x02}}, "cycles the backup tracker holds an entry"),
        ev("BT_OCCUPANCY", 0x43,
           {{"LOCAL", 0x01}, {"REMOTE", 0x02}, {"READS_LOCAL", 0x04}, {"READS_REMOTE", 0x08},
            {"WRITES_LOCAL", 0x10}, {"WRITES_REMOTE", 0x20}},
           "running sum of the backup tracker's entries", 512),
        ev("BT_TO_HT_NOT_ISSUED", 0x51,
           {{"INCOMING_SNP_HAZARD", 0x02}, {"INCOMING_BL_HAZARD", 0x04}, {"RSPACKCFLT_HAZARD", 0x08},
            {"WBMDATA_HAZARD", 0x10}},
           "cycles a backup-tracker entry could not move on, by hazard"),
        ev("BT_BYPASS", 0x52, {}, "requests that bypassed the backup tracker"),
        ev("OSB", 0x53, {{"READS_LOCAL", 0x02}, {"INVITOE_LOCAL", 0x04}, {"REMOTE", 0x08}},
           "opportunistic snoop broadcasts"),
        ev("OSB_EDR", 0x54,
           {{"ALL", 0x01}, {"READS_LOCAL_I", 0x02}, {"READS_REMOTE_I", 0x04}, {"READS_LOCAL_S", 0x08},
            {"READS_REMOTE_S", 0x10}},
           "opportunistic snoop broadcasts with an early data return"),
        ev("IODC_INSERTS", 0x56, {}, "allocations in the IO directory cache"),
        ev("IODC_CONFLICTS", 0x57,
           {{"REMOTE_INVI2E_SAME_RTID", 0x01}, {"ANY", 0x01}, {"REMOTE_OTHER_SAME_ADDR", 0x04}, {"LAST", 0x04}},
           "IO directory cache conflicts"),
        ev("IODC_OLEN_WBMTOI", 0x58, {}, "IO directory cache writebacks of a whole line"),
        ev("IGR_AD_QPI2_ACCUMULATOR", 0x59, {}, "AD ingress credits towards QPI link 2, accumulated", 255),
        ev("IGR_BL_QPI2_ACCUMULATOR", 0x5A, {}, "BL ingress credits towards QPI link 2, accumulated", 255),
        ev("SNP_RESP_RECV_LOCAL", 0x60,
           {{"RSPI", 0x01}, {"RSPS", 0x02}, {"RSPIFWD", 0x04}, {"RSPSFWD", 0x08}, {"RSPxWB", 0x10},
            {"RSPxFWDxWB", 0x20}, {"RSPCNFLCT", 0x40}, {"OTHER", 0x80}},
           "snoop responses received from local caching agents, by type"),
    };
    e.insert(e.end(), more.begin(), more.end());
    event_named(e, "IGR_AD_QPI2_ACCUMULATOR").other_names = {"IGR_CREDITS_AD_QPI2"};
    event_named(e, "IGR_BL_QPI2_ACCUMULATOR").other_names = {"IGR_CREDITS_BL_QPI2"};
    event_named(e, "BT_CYCLES_NE").umask0_all = true;  // the JSON lists umask 0 too
    // Its umasks are encodings: FILT (0x03) is a match of address and opcode
    // both, not ADDR + OPC (329468-002 Table 2-44).
    event_named(e, "ADDR_OPC_MATCH").enumerated = true;
    return e;
}

// --- SNB-EP (Jaketown_uncore.json, 327043-001 §2.4) ------------------------------

std::vector<event_def> snb_ep_events() {
    std::vector<event_def> e = common_events();
    const std::vector<event_def> more = {
        ev("REQUESTS", 0x01, {{"READS", 0x03}, {"WRITES", 0x0C}}, "requests the home agent received"),
        ev("TRACKER_INSERTS", 0x06, {{"ALL", 0x03}}, "allocations in the tracker"),
        ev("CONFLICT_CYCLES", 0x0B, {{"NO_CONFLICT", 0x01}, {"CONFLICT", 0x02}}, "cycles with and without conflicts"),
        ev("DIRECTORY_LOOKUP", 0x0C, {{"SNP", 0x01}, {"NO_SNP", 0x02}}, "directory lookups, by outcome"),
        ev("DIRECTORY_UPDATE", 0x0D, {{"SET", 0x01}, {"CLEAR", 0x02}, {"ANY", 0x03}}, "directory updates"),
        ev("TxR_AK_NDR", 0x0E, {}, "NDR responses sent on the AK ring"),
        ev("TxR_AD", 0x0F, {{"NDR", 0x01}, {"SNP", 0x02}}, "AD messages sent"),
        ev("TxR_BL", 0x10, {{"DRS_CACHE", 0x01}, {"DRS_CORE", 0x02}, {"DRS_QPI", 0x04}}, "BL data messages sent"),
        ev("ADDR_OPC_MATCH", 0x20, {{"FILT", 0x03, addr | opc}},
           "requests matching ADDRMATCH0/1 and OPCODEMATCH (decisions.md B7, B14)"),
        ev("TxR_AD_OCCUPANCY", 0x28, scheds(), "running sum of the AD egress depth", 255),
        ev("TxR_AK_OCCUPANCY", 0x30, scheds(), "running sum of the AK egress depth", 255),
        ev("RING_AD_USED", 0x3E, snb_ring(), "cycles the AD ring is busy at this stop"),
        ev("RING_AK_USED", 0x3F, snb_ring(), "cycles the AK ring is busy at this stop"),
        ev("RING_BL_USED", 0x40, snb_ring(), "cycles the BL ring is busy at this stop"),
    };
    e.insert(e.end(), more.begin(), more.end());
    event_named(e, "ADDR_OPC_MATCH").enumerated = true;  // (one encoding, FILT)
    return e;
}

}  // namespace

std::vector<event_def> snb_ep_ha_events() { return snb_ep_events(); }
std::vector<event_def> ivb_ep_ha_events() { return ivb_ep_events(); }

}  // namespace pmonsim::catalog_data
