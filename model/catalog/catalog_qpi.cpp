// QPI link-layer event catalog and CTO_COUNT filter presets, both personalities.
//
// Sources: 327043-001 §2.6 (QPI LL PMON, Table 2-92 derived events) and
// 329468-002 §2.7 (Table 2-137 derived events, per-event Max Inc/Cyc).
// Codes, ext bits, umasks and counters follow Intel's perfmon JSON (unit
// "QPI LL"), the authority chosen by DECISIONS.md. Research notes: qpi-ll.md
// §2.3 (presets), §3 (event lists, increments) and §8 (conflicts).
//
// max_inc: the link layer moves two flits per QCLK, so the flit events, CTO_COUNT
// and RxL_CREDITS_CONSUMED_VN1 add up to 2; RxQ occupancy adds up to 128 (manual);
// VNA_CREDIT_RETURN_OCCUPANCY and the TxR_*_CREDIT_OCCUPANCY family are
// accumulators too, given the same 128 bound (inferred, pages not retrieved);
// TxL_OCCUPANCY keeps the documented 1 (note 17); the rest are 0/1 signals.
//
// Deliberate difference from the IVB-EP JSON: its UNC_Q_MESSAGE.<name> and
// UNC_Q_MATCH_MASK entries are not events here. They are CTO_COUNT (0x38, ext)
// with a packet filter; the named ones are the presets below.
//
// The IVB-EP list is written out in full; the SNB-EP list is built from it by
// the differences stated in snb_ep_events().
#include <algorithm>
#include <stdexcept>

#include "catalog/catalog.h"

namespace pmonsim::catalog_data {

namespace {

constexpr uint8_t ctr_all = 0xF;  // every QPI LL event may use counters 0-3
constexpr bool ext = true;        // CTL bit 21 set
constexpr bool no_ext = false;
constexpr bool no_umask0 = false;
constexpr bool umask0_is_all = true;  // JSON lists umask 0 beside the VN sub-events

constexpr uint16_t flits = 2;        // two flit slots per QCLK
constexpr uint16_t rxq_depth = 128;  // RxQ / credit occupancy bound

std::vector<umask_def> g0_umasks_with_idle() {
    return {{"IDLE", 0x01}, {"DATA", 0x02}, {"NON_DATA", 0x04}};
}

std::vector<umask_def> g0_umasks_no_idle() { return {{"DATA", 0x02}, {"NON_DATA", 0x04}}; }

std::vector<umask_def> g1_umasks() {
    return {{"SNP", 0x01},      {"HOM_REQ", 0x02},     {"HOM_NONREQ", 0x04}, {"HOM", 0x06},
            {"DRS_DATA", 0x08}, {"DRS_NONDATA", 0x10}, {"DRS", 0x18}};
}

std::vector<umask_def> g2_umasks() {
    return {{"NDR_AD", 0x01},      {"NDR_AK", 0x02}, {"NCB_DATA", 0x04},
            {"NCB_NONDATA", 0x08}, {"NCB", 0x0C},    {"NCS", 0x10}};
}

std::vector<umask_def> crc_no_credits_umasks() { return {{"FULL", 0x01}, {"ALMOST_FULL", 0x02}}; }

std::vector<umask_def> crc_errors_umasks() { return {{"LINK_INIT", 0x01}, {"NORMAL_OP", 0x02}}; }

std::vector<umask_def> msg_class_umasks() {
    return {{"DRS", 0x01}, {"NCB", 0x02}, {"NCS", 0x04},
            {"HOM", 0x08}, {"SNP", 0x10}, {"NDR", 0x20}};
}

std::vector<umask_def> bgf_umasks() {
    return {{"BGF_DRS", 0x01}, {"BGF_NCB", 0x02}, {"BGF_NCS", 0x04},
            {"BGF_HOM", 0x08}, {"BGF_SNP", 0x10}, {"BGF_NDR", 0x20}};
}

std::vector<umask_def> stall_umasks() {
    auto u = bgf_umasks();
    u.push_back({"EGRESS_CREDITS", 0x40});
    u.push_back({"GV", 0x80});
    return u;
}

std::vector<umask_def> vn_umasks() { return {{"VN0", 0x01}, {"VN1", 0x02}}; }

std::vector<umask_def> vn_shared_umasks() {
    return {{"VN0", 0x01}, {"VN1", 0x02}, {"VN_SHR", 0x04}};
}

// --- IVB-EP (ivytown_uncore.json, 329468-002 §2.7), the base list ------------
// IVB-EP is the base because it has a counterpart of every SNB-EP event: SNB-EP
// drops the IVB-EP additions, lacks the VN0/VN1 split and renames one event.

std::vector<event_def> ivb_ep_events() {
    return {
        {"TxL_FLITS_G0", 0x00, no_ext, g0_umasks_no_idle(), ctr_all, flits, no_umask0,
         "flits sent: data or protocol (non-data)"},
        {"TxL_FLITS_G1", 0x00, ext, g1_umasks(), ctr_all, flits, no_umask0,
         "flits sent of the SNP, HOM and DRS classes"},
        {"RxL_FLITS_G0", 0x01, no_ext, g0_umasks_with_idle(), ctr_all, flits, no_umask0,
         "flits received: idle/null, data, or protocol (non-data)"},
        {"TxL_FLITS_G2", 0x01, ext, g2_umasks(), ctr_all, flits, no_umask0,
         "flits sent of the NDR, NCB and NCS classes"},
        {"TxL_CRC_NO_CREDITS", 0x02, no_ext, crc_no_credits_umasks(), ctr_all, 1, no_umask0,
         "cycles transmission waits because the link-level retry buffer is (almost) full"},
        {"RxL_FLITS_G1", 0x02, ext, g1_umasks(), ctr_all, flits, no_umask0,
         "flits received of the SNP, HOM and DRS classes"},
        {"RxL_CRC_ERRORS", 0x03, no_ext, crc_errors_umasks(), ctr_all, 1, no_umask0,
         "received flits whose CRC check failed, during link init or normal operation"},
        {"RxL_FLITS_G2", 0x03, ext, g2_umasks(), ctr_all, flits, no_umask0,
         "flits received of the NDR, NCB and NCS classes"},
        {"TxL_INSERTS", 0x04, no_ext, {}, ctr_all, 1, no_umask0,
         "allocations in the transmit flit buffer"},
        {"TxL_BYPASSED", 0x05, no_ext, {}, ctr_all, 1, no_umask0,
         "transmitted flits that skipped the transmit flit buffer"},
        {"TxL_CYCLES_NE", 0x06, no_ext, {}, ctr_all, 1, no_umask0,
         "cycles the transmit flit buffer is not empty"},
        {"TxL_OCCUPANCY", 0x07, no_ext, {}, ctr_all, 1, no_umask0,
         "running sum of the transmit flit buffer depth (documented max 1 per cycle)"},
        {"RxL_INSERTS", 0x08, no_ext, {}, ctr_all, 1, no_umask0,
         "allocations in the receive flit buffer"},
        {"RxL_BYPASSED", 0x09, no_ext, {}, ctr_all, 1, no_umask0,
         "received flits that skipped the receive queue"},
        {"RxL_INSERTS_DRS", 0x09, ext, vn_umasks(), ctr_all, 1, umask0_is_all,
         "receive flit buffer allocations for DRS, per virtual network"},
        {"RxL_CYCLES_NE", 0x0A, no_ext, {}, ctr_all, 1, no_umask0,
         "cycles the receive queue is not empty"},
        {"RxL_INSERTS_NCB", 0x0A, ext, vn_umasks(), ctr_all, 1, umask0_is_all,
         "receive flit buffer allocations for NCB, per virtual network"},
        {"RxL_OCCUPANCY", 0x0B, no_ext, {}, ctr_all, rxq_depth, no_umask0,
         "running sum of the receive queue depth, all packets"},
        {"RxL_INSERTS_NCS", 0x0B, ext, vn_umasks(), ctr_all, 1, umask0_is_all,
         "receive flit buffer allocations for NCS, per virtual network"},
        {"TxL0_POWER_CYCLES", 0x0C, no_ext, {}, ctr_all, 1, no_umask0,
         "cycles the transmit side is in L0 (L0p included)"},
        {"RxL_INSERTS_HOM", 0x0C, ext, vn_umasks(), ctr_all, 1, umask0_is_all,
         "receive flit buffer allocations for HOM, per virtual network"},
        {"TxL0P_POWER_CYCLES", 0x0D, no_ext, {}, ctr_all, 1, no_umask0,
         "cycles the transmit side runs at half width (L0p)"},
        {"RxL_INSERTS_SNP", 0x0D, ext, vn_umasks(), ctr_all, 1, umask0_is_all,
         "receive flit buffer allocations for SNP, per virtual network"},
        {"RxL_INSERTS_NDR", 0x0E, ext, vn_umasks(), ctr_all, 1, umask0_is_all,
         "receive flit buffer allocations for NDR, per virtual network"},
        {"RxL0_POWER_CYCLES", 0x0F, no_ext, {}, ctr_all, 1, no_umask0,
         "cycles the receive side is in L0 (L0p included)"},
        {"RxL_CYCLES_NE_DRS", 0x0F, ext, vn_umasks(), ctr_all, 1, no_umask0,
         "cycles the DRS receive queue is not empty, per virtual network"},
        {"RxL0P_POWER_CYCLES", 0x10, no_ext, {}, ctr_all, 1, no_umask0,
         "cycles the receive side runs at half width (L0p)"},
        {"RxL_CYCLES_NE_NCB", 0x10, ext, vn_umasks(), ctr_all, 1, no_umask0,
         "cycles the NCB receive queue is not empty, per virtual network"},
        {"RxL_CYCLES_NE_NCS", 0x11, ext, vn_umasks(), ctr_all, 1, no_umask0,
         "cycles the NCS receive queue is not empty, per virtual network"},
        {"L1_POWER_CYCLES", 0x12, no_ext, {}, ctr_all, 1, no_umask0,
         "cycles the link is powered down in L1"},
        {"RxL_CYCLES_NE_HOM", 0x12, ext, vn_umasks(), ctr_all, 1, no_umask0,
         "cycles the HOM receive queue is not empty, per virtual network"},
        {"DIRECT2CORE", 0x13, no_ext,
         {{"SUCCESS_RBT_HIT", 0x01}, {"FAILURE_CREDITS", 0x02}, {"FAILURE_RBT_HIT", 0x04},
          {"FAILURE_CREDITS_RBT", 0x08}, {"FAILURE_MISS", 0x10}, {"FAILURE_CREDITS_MISS", 0x20},
          {"FAILURE_RBT_MISS", 0x40}, {"FAILURE_CREDITS_RBT_MISS", 0x80}},
         ctr_all, 1, no_umask0, "DRS packets that tried to go straight to a core, by outcome"},
        {"RxL_CYCLES_NE_SNP", 0x13, ext, vn_umasks(), ctr_all, 1, no_umask0,
         "cycles the SNP receive queue is not empty, per virtual network"},
        {"CLOCKTICKS", 0x14, no_ext, {}, ctr_all, 1, no_umask0,
         "QCLK cycles (link rate in GT/s divided by 8)"},
        {"RxL_CYCLES_NE_NDR", 0x14, ext, vn_umasks(), ctr_all, 1, no_umask0,
         "cycles the NDR receive queue is not empty, per virtual network"},
        {"RxL_OCCUPANCY_DRS", 0x15, ext, vn_umasks(), ctr_all, rxq_depth, umask0_is_all,
         "running sum of the receive queue depth, DRS, per virtual network"},
        {"RxL_OCCUPANCY_NCB", 0x16, ext, vn_umasks(), ctr_all, rxq_depth, umask0_is_all,
         "running sum of the receive queue depth, NCB, per virtual network"},
        {"RxL_OCCUPANCY_NCS", 0x17, ext, vn_umasks(), ctr_all, rxq_depth, umask0_is_all,
         "running sum of the receive queue depth, NCS, per virtual network"},
        {"RxL_OCCUPANCY_HOM", 0x18, ext, vn_umasks(), ctr_all, rxq_depth, umask0_is_all,
         "running sum of the receive queue depth, HOM, per virtual network"},
        {"RxL_OCCUPANCY_SNP", 0x19, ext, vn_umasks(), ctr_all, rxq_depth, umask0_is_all,
         "running sum of the receive queue depth, SNP, per virtual network"},
        {"RxL_OCCUPANCY_NDR", 0x1A, ext, vn_umasks(), ctr_all, rxq_depth, umask0_is_all,
         "running sum of the receive queue depth, NDR, per virtual network"},
        {"VNA_CREDIT_RETURN_OCCUPANCY", 0x1B, ext, {}, ctr_all, rxq_depth, no_umask0,
         "running sum of VNA credits waiting to go back to the sender"},
        {"VNA_CREDIT_RETURNS", 0x1C, ext, {}, ctr_all, 1, no_umask0,
         "VNA credits handed back to the sender"},
        {"RxL_CREDITS_CONSUMED_VNA", 0x1D, ext, {}, ctr_all, 1, no_umask0,
         "shared (VNA) receive credits used up"},
        {"RxL_CREDITS_CONSUMED_VN0", 0x1E, ext, msg_class_umasks(), ctr_all, 1, no_umask0,
         "VN0 receive credits used up, per message class"},
        {"TxR_BL_DRS_CREDIT_OCCUPANCY", 0x1F, ext, vn_shared_umasks(), ctr_all, rxq_depth,
         no_umask0, "running sum of R3QPI egress credits held for DRS on the BL ring"},
        {"TxR_BL_NCB_CREDIT_OCCUPANCY", 0x20, ext, vn_umasks(), ctr_all, rxq_depth, no_umask0,
         "running sum of R3QPI egress credits held for NCB on the BL ring"},
        {"TxR_BL_NCS_CREDIT_OCCUPANCY", 0x21, ext, vn_umasks(), ctr_all, rxq_depth, no_umask0,
         "running sum of R3QPI egress credits held for NCS on the BL ring"},
        {"TxR_AD_HOM_CREDIT_OCCUPANCY", 0x22, ext, vn_umasks(), ctr_all, rxq_depth, no_umask0,
         "running sum of R3QPI egress credits held for HOM on the AD ring"},
        {"TxR_AD_SNP_CREDIT_OCCUPANCY", 0x23, ext, vn_umasks(), ctr_all, rxq_depth, no_umask0,
         "running sum of R3QPI egress credits held for SNP on the AD ring"},
        {"TxR_AD_NDR_CREDIT_OCCUPANCY", 0x24, ext, vn_umasks(), ctr_all, rxq_depth, no_umask0,
         "running sum of R3QPI egress credits held for NDR on the AD ring"},
        {"TxR_AK_NDR_CREDIT_OCCUPANCY", 0x25, ext, vn_umasks(), ctr_all, rxq_depth,
         umask0_is_all, "running sum of R3QPI egress credits held for NDR on the AK ring"},
        {"TxR_AD_HOM_CREDIT_ACQUIRED", 0x26, ext, vn_umasks(), ctr_all, 1, no_umask0,
         "R3QPI egress credits taken for HOM on the AD ring"},
        {"TxR_AD_SNP_CREDIT_ACQUIRED", 0x27, ext, vn_umasks(), ctr_all, 1, no_umask0,
         "R3QPI egress credits taken for SNP on the AD ring"},
        {"TxR_AD_NDR_CREDIT_ACQUIRED", 0x28, ext, vn_umasks(), ctr_all, 1, no_umask0,
         "R3QPI egress credits taken for NDR on the AD ring"},
        {"TxR_AK_NDR_CREDIT_ACQUIRED", 0x29, ext, vn_umasks(), ctr_all, 1, umask0_is_all,
         "R3QPI egress credits taken for NDR on the AK ring"},
        {"TxR_BL_DRS_CREDIT_ACQUIRED", 0x2A, ext, vn_shared_umasks(), ctr_all, 1, no_umask0,
         "R3QPI egress credits taken for DRS on the BL ring"},
        {"TxR_BL_NCB_CREDIT_ACQUIRED", 0x2B, ext, vn_umasks(), ctr_all, 1, no_umask0,
         "R3QPI egress credits taken for NCB on the BL ring"},
        {"TxR_BL_NCS_CREDIT_ACQUIRED", 0x2C, ext, vn_umasks(), ctr_all, 1, no_umask0,
         "R3QPI egress credits taken for NCS on the BL ring"},
        {"RxL_STALLS_VN0", 0x35, ext, stall_umasks(), ctr_all, 1, no_umask0,
         "cycles a VN0 flit could not move on to the R3QPI, by cause"},
        {"CTO_COUNT", 0x38, ext, {}, ctr_all, flits, no_umask0,
         "received packets that pass the port's match/mask filter"},
        {"RxL_CREDITS_CONSUMED_VN1", 0x39, ext, msg_class_umasks(), ctr_all, flits, no_umask0,
         "VN1 receive credits used up, per message class"},
        {"RxL_STALLS_VN1", 0x3A, ext, bgf_umasks(), ctr_all, 1, no_umask0,
         "cycles a VN1 flit could not move on to the R3QPI, by clock-crossing class"},
    };
}

// --- SNB-EP (Jaketown_uncore.json, 327043-001 §2.6): IVB-EP minus differences --

bool starts_with(const std::string& s, const char* prefix) { return s.rfind(prefix, 0) == 0; }

std::vector<event_def> snb_ep_events() {
    auto events = ivb_ep_events();

    // Gone: Jaketown_uncore.json has none of the per-class not-empty events
    // (RxL_CYCLES_NE_<class>, 0FH-14H ext; the class-less RxL_CYCLES_NE stays),
    // the R3QPI egress credit events (TxR_*_CREDIT_*, 1FH-2CH ext),
    // RxL_CREDITS_CONSUMED_VN1 (39H ext) or RxL_STALLS_VN1 (3AH ext).
    events.erase(std::remove_if(events.begin(), events.end(),
                                [](const event_def& e) {
                                    return starts_with(e.name, "RxL_CYCLES_NE_") ||
                                           starts_with(e.name, "TxR_") ||
                                           e.name == "RxL_CREDITS_CONSUMED_VN1" ||
                                           e.name == "RxL_STALLS_VN1";
                                }),
                 events.end());

    // Tx G0 also counts idle flits (JSON: TxL_FLITS_G0.IDLE, umask 01H).
    event_def& tx_g0 = event_named(events, "TxL_FLITS_G0");
    tx_g0.umasks = g0_umasks_with_idle();
    tx_g0.description = "flits sent: idle/null, data, or protocol (non-data)";

    // The per-class RxQ insert and occupancy events are not split by virtual
    // network: the JSON lists them with umask 0 only.
    for (const char* cls : {"DRS", "NCB", "NCS", "HOM", "SNP", "NDR"}) {
        event_def& inserts = event_named(events, std::string("RxL_INSERTS_") + cls);
        inserts.umasks = {};
        inserts.umask0_all = no_umask0;
        inserts.description = std::string("receive flit buffer allocations for ") + cls;
        event_def& occupancy = event_named(events, std::string("RxL_OCCUPANCY_") + cls);
        occupancy.umasks = {};
        occupancy.umask0_all = no_umask0;
        occupancy.description = std::string("running sum of the receive queue depth, ") + cls;
    }

    // DIRECT2CORE outcomes without the RBT hit/miss split (JSON, umasks 01H-08H).
    event_named(events, "DIRECT2CORE").umasks = {{"SUCCESS", 0x01},
                                           {"FAILURE_CREDITS", 0x02},
                                           {"FAILURE_RBT", 0x04},
                                           {"FAILURE_CREDITS_RBT", 0x08}};

    // One stall event for both virtual networks: RxL_STALLS, 35H without ext (JSON).
    event_def& stalls = event_named(events, "RxL_STALLS_VN0");
    stalls.name = "RxL_STALLS";
    stalls.ext = no_ext;
    stalls.description = "cycles a received flit could not move on to the R3QPI, by cause";

    return events;
}

// MATCH0 layout: MC in bits 12:9, OPC in 8:5; MATCH1 holds RDS in bits 19:16.
constexpr uint32_t rds_m = 0x8u << 16, rds_e = 0x4u << 16, rds_f = 0x1u << 16;
constexpr uint32_t rds_mask = 0xFu << 16;

}  // namespace

std::vector<event_def> snb_ep_qpi_events() { return snb_ep_events(); }
std::vector<event_def> ivb_ep_qpi_events() { return ivb_ep_events(); }

// Presets for CTO_COUNT, named like the perfmon UNC_Q_MESSAGE.<name> entries.
// Both generations use the same filter layout, so the list is shared.
std::vector<filter_preset> qpi_presets() {
    return {
        // 329468-002 Table 2-137 (327043-001 Table 2-92): DRS = MC 1110.
        {"DRS.AnyDataC", 0x1C00, 0x1F80, 0, 0},  // opcodes 00xx
        {"DRS.DataC_M", 0x1C00, 0x1FE0, rds_m, rds_mask},
        {"DRS.DataC_E", 0x1C00, 0x1FE0, rds_e, rds_mask},
        {"DRS.DataC_F", 0x1C00, 0x1FE0, rds_f, rds_mask},
        {"DRS.DataC_E_Cmp", 0x1C40, 0x1FE0, rds_e, rds_mask},
        {"DRS.DataC_F_Cmp", 0x1C40, 0x1FE0, rds_f, rds_mask},
        {"DRS.DataC_E_FrcAckCnflt", 0x1C20, 0x1FE0, rds_e, rds_mask},
        {"DRS.DataC_F_FrcAckCnflt", 0x1C20, 0x1FE0, rds_f, rds_mask},
        {"DRS.WbIData", 0x1C80, 0x1FE0, 0, 0},
        {"DRS.WbSData", 0x1CA0, 0x1FE0, 0, 0},
        {"DRS.WbEData", 0x1CC0, 0x1FE0, 0, 0},
        {"DRS.AnyResp", 0x1C00, 0x1E00, 0, 0},
        {"DRS.AnyResp9flits", 0x1C00, 0x1F00, 0, 0},   // OPC[3] = 0: full line
        {"DRS.AnyResp11flits", 0x1D00, 0x1F00, 0, 0},  // OPC[3] = 1: partial
        // NCB = MC 1100.
        {"NCB.AnyResp", 0x1800, 0x1E00, 0, 0},
        {"NCB.AnyMsg9flits", 0x1800, 0x1F00, 0, 0},
        {"NCB.AnyMsg11flits", 0x1900, 0x1F00, 0, 0},
        {"NCB.AnyInt", 0x1900, 0x1F80, 0, 0},  // opcodes 10xx: interrupts
        // Inferred from the MC/OPC encodings (qpi-ll.md §2.3): the JSON names
        // these presets but publishes no values.
        {"NCB.AnyMsg", 0x1800, 0x1E00, 0, 0},
        {"HOM.AnyReq", 0x0000, 0x1E00, 0, 0},   // MC 0000
        {"HOM.AnyResp", 0x0200, 0x1E00, 0, 0},  // MC 0001
        {"HOM.RespFwd", 0x0300, 0x1FE0, 0, 0},  // MC 0001, opcodes 1000..1110
        {"HOM.RespFwdI", 0x0320, 0x1FE0, 0, 0},
        {"HOM.RespFwdS", 0x0340, 0x1FE0, 0, 0},
        {"HOM.RespFwdIWb", 0x0360, 0x1FE0, 0, 0},
        {"HOM.RespFwdSWb", 0x0380, 0x1FE0, 0, 0},
        {"HOM.RespIWb", 0x03A0, 0x1FE0, 0, 0},
        {"HOM.RespSWb", 0x03C0, 0x1FE0, 0, 0},
        {"SNP.AnySnp", 0x0600, 0x1E00, 0, 0},  // MC 0011
        {"NDR.AnyCmp", 0x0400, 0x1E00, 0, 0},  // MC 0010, any opcode
        {"NCS.NcRd", 0x0800, 0x1FE0, 0, 0},    // MC 0100, opcode 0000
        {"NCS.AnyMsg1or2flits", 0x0800, 0x1F00, 0, 0},
        {"NCS.AnyMsg3flits", 0x0900, 0x1F00, 0, 0},
    };
}

}  // namespace pmonsim::catalog_data
