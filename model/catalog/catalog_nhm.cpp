// Event catalog of the Nehalem-EP (Xeon 5500) and Westmere-EP (Xeon 5600)
// uncore PMU: the eight general counters MSR_UNCORE_PMC0-7, programmed via
// MSR_UNCORE_PERFEVTSEL0-7 (event select 7:0, umask 15:8; no extra select bit).
//
// Sources, in order of use:
//  * libpfm4 4.13 (Debian libpfm4), PMUs "nhm_unc" (42 events) and "wsm_unc"
//    (52 events), enumerated with LIBPFM_ENCODE_INACTIVE=1 (the oracle test
//    test_catalog_libpfm.cpp does the same). Event and umask names follow
//    libpfm4, without "UNC_".
//  * Intel SDM 325384-059US (June 2016), Vol. 3B: Table 19-18 (Nehalem uncore,
//    06_1AH/06_1EH/06_1FH), Table 19-20 (Westmere uncore, 06_25H/06_2CH),
//    §18.8.2 (uncore PMU), §18.8.2.3 (MSR_UNCORE_ADDR_OPCODE_MATCH, 396H) and
//    Vol. 3C Table 35-14 (MSR_GQ_SNOOP_MESF, 301H). The SDM decides codes and
//    umasks where the two differ (docs/decisions.md, N-entries).
//
// Deliberate differences from libpfm4:
//  * UNC_CLK_UNHALTED is absent: it is the fixed counter (MSR_UNCORE_FIXED_CTR0),
//    not an event of the general counters (libpfm4 gives it code 0xff, fixed only).
//  * QHL_TO_QMC_BYPASS, and on Westmere DRAM_THERMAL_THROTTLED, PROCHOT_ASSERTION,
//    CYCLES_UNHALTED_L3_FLL_DISABLE (umask 01H) and CYCLES_UNHALTED_L3_FLL_ENABLE
//    (umask 02H): libpfm4 4.13 programs umask 0; the SDM lists a single umask,
//    kept here as one sub-event named ANY (umask 0 is not accepted).
//  * SDM-only additions: ADDR_OPCODE_MATCH (35H) on both CPUs; on Westmere also
//    GQ_SNOOP (0CH), QMC_OCCUPANCY.ANY, QHL_FRC_ACK_CNFLTS.IOH/REMOTE/ANY and
//    QPI_TX_HEADER.FULL_LINK_0/1. Nehalem's Table 19-18 has no 35H row; the code
//    and umasks come from Table 19-20, because §18.8.2.3 (which covers 06_1AH/
//    1EH/1FH) names the ADDR_OPCODE_MATCH event and Table 35-14 gives Nehalem
//    the 396H register.
//  * libpfm4 refuses some combinations (NCOMBO on ANY/LINK_x, the FULL/PARTIAL
//    groups of QMC_WRITES); the model, like the hardware's umask, simply ORs bits.
//
// Events qualified by another MSR (the sub-event does not fully define what is
// counted): ADDR_OPCODE_MATCH (MSR 396H) and GQ_SNOOP.GOTO_S_HIT/GOTO_I_HIT
// (MSR 301H selects the from-state). The SDM's 396H "mask values" for 35H are
//   NONE 0, RSPFWDI 40000000_00000000H (opcode field 0: suspect, RspFwdI would
//   be 40001900_00000000H), RSPFWDS 40001A00_00000000H, RSPIWB 40001D00_00000000H.
//
// Counters: every event may use any of the eight general counters (neither the
// SDM nor libpfm4 restricts one; libpfm4 cntmsk 0x1fe00000 = all eight).
//
// max_inc (per sub-event input): 1 for counts and per-cycle conditions. The
// occupancy events add the number of valid entries each uncore cycle; neither
// source gives the queue depths, so:
//  * GC_OCCUPANCY.READ_TRACKER: 32, the GQ read tracker size quoted in Intel's
//    "Performance Analysis Guide for Core i7 / Xeon 5500" (32 read, 16 write,
//    12 peer-probe entries).
//  * QHL_OCCUPANCY (per tracker), QMC_OCCUPANCY and IMC_ISOC_OCCUPANCY (per
//    channel): 64, a bound, not a published depth: QPI requests carry a 6-bit
//    RTID, so no requesting agent has more than 64 requests outstanding at a
//    home; 64 is also at least twice the GQ read tracker that feeds the local
//    share of these queues.
#include <algorithm>

#include "catalog/catalog.h"

namespace pmonsim::catalog_data {

namespace {

constexpr uint8_t ctr_all = 0xFF;   // the eight general counters, no restriction
constexpr bool no_ext = false;      // MSR_UNCORE_PERFEVTSELx has no extra select bit
constexpr bool no_umask0 = false;   // no event lists umask 0 as an encoding

constexpr uint16_t gq_read_tracker = 32;  // GQ read tracker entries (see header)
constexpr uint16_t rtid_bound = 64;       // QHL / IMC occupancy bound (see header)

// --- Umask tables --------------------------------------------------------

std::vector<umask_def> gq_trackers() {
    return {{"READ_TRACKER", 0x01}, {"WRITE_TRACKER", 0x02}, {"PEER_PROBE_TRACKER", 0x04}};
}

// QHL trackers, and the request sources of FRC_ACK_CNFLTS / ADDR_OPCODE_MATCH.
std::vector<umask_def> qhl_sources() { return {{"IOH", 0x01}, {"REMOTE", 0x02}, {"LOCAL", 0x04}}; }

std::vector<umask_def> channels() { return {{"CH0", 0x01}, {"CH1", 0x02}, {"CH2", 0x04}}; }

std::vector<umask_def> channels_any() {
    auto u = channels();
    u.push_back({"ANY", 0x07});
    return u;
}

std::vector<umask_def> read_write_channels() {
    return {{"READ_CH0", 0x01},  {"READ_CH1", 0x02},  {"READ_CH2", 0x04},
            {"WRITE_CH0", 0x08}, {"WRITE_CH1", 0x10}, {"WRITE_CH2", 0x20}};
}

std::vector<umask_def> cas_umasks() {
    return {{"CH0", 0x01}, {"AUTOPRE_CH0", 0x02}, {"CH1", 0x04},
            {"AUTOPRE_CH1", 0x08}, {"CH2", 0x10}, {"AUTOPRE_CH2", 0x20}};
}

std::vector<umask_def> snp_resp_umasks() {
    return {{"I_STATE", 0x01},     {"S_STATE", 0x02},  {"FWD_S_STATE", 0x04},
            {"FWD_I_STATE", 0x08}, {"CONFLICT", 0x10}, {"WB", 0x20}};
}

// LLC_HITS / LLC_MISS: ANY is reads and writes only (PROBE excluded), per both sources.
std::vector<umask_def> llc_access_umasks() {
    return {{"READ", 0x01}, {"WRITE", 0x02}, {"PROBE", 0x04}, {"ANY", 0x03}};
}

std::vector<umask_def> qpi_single_flit_umasks() {
    return {{"HOME_LINK_0", 0x01}, {"SNOOP_LINK_0", 0x02}, {"NDR_LINK_0", 0x04},
            {"HOME_LINK_1", 0x08}, {"SNOOP_LINK_1", 0x10}, {"NDR_LINK_1", 0x20},
            {"LINK_0", 0x07},      {"LINK_1", 0x38}};
}

std::vector<umask_def> qpi_multi_flit_umasks() {
    return {{"DRS_LINK_0", 0x01}, {"NCB_LINK_0", 0x02}, {"NCS_LINK_0", 0x04},
            {"DRS_LINK_1", 0x08}, {"NCB_LINK_1", 0x10}, {"NCS_LINK_1", 0x20},
            {"LINK_0", 0x07},     {"LINK_1", 0x38}};
}

std::vector<umask_def> cores() {
    return {{"CORE_0", 0x01}, {"CORE_1", 0x02}, {"CORE_2", 0x04}, {"CORE_3", 0x08}};
}

// An event whose only SDM encoding is one umask value with no sub-event name.
std::vector<umask_def> single(uint8_t value) { return {{"ANY", value}}; }

// --- Nehalem-EP (Table 19-18), the base list -----------------------------

std::vector<event_def> nhm_events() {
    return {
        {"GQ_CYCLES_FULL", 0x00, no_ext, gq_trackers(), ctr_all, 1, no_umask0,
         "cycles a global queue tracker (read, write, peer probe) has no free entry"},
        {"GQ_CYCLES_NOT_EMPTY", 0x01, no_ext, gq_trackers(), ctr_all, 1, no_umask0,
         "cycles a global queue tracker holds at least one entry"},
        {"GQ_ALLOC", 0x03, no_ext,
         {{"READ_TRACKER", 0x01}, {"RT_LLC_MISS", 0x02}, {"RT_TO_LLC_RESP", 0x04},
          {"RT_TO_RTID_ACQUIRED", 0x08}, {"WT_TO_RTID_ACQUIRED", 0x10},
          {"WRITE_TRACKER", 0x20}, {"PEER_PROBE_TRACKER", 0x40}},
         ctr_all, 1, no_umask0,
         "global queue entries allocated, by tracker and by the latency phase they enter"},
        {"GQ_DATA_FROM", 0x04, no_ext,
         {{"QPI", 0x01}, {"QMC", 0x02}, {"LLC", 0x04}, {"CORES_02", 0x08}, {"CORES_13", 0x10}},
         ctr_all, 1, no_umask0, "cycles a global queue input data port is busy, by source"},
        {"GQ_DATA_TO", 0x05, no_ext, {{"QPI_QMC", 0x01}, {"LLC", 0x02}, {"CORES", 0x04}},
         ctr_all, 1, no_umask0, "cycles a global queue output data port is busy, by target"},
        {"SNP_RESP_TO_LOCAL_HOME", 0x06, no_ext, snp_resp_umasks(), ctr_all, 1, no_umask0,
         "snoop responses the LLC sends to the local home, by line state and action"},
        {"SNP_RESP_TO_REMOTE_HOME", 0x07, no_ext,
         [] {
             auto u = snp_resp_umasks();
             u.push_back({"HITM", 0x24});  // FWD_S_STATE | WB, as both sources define it
             return u;
         }(),
         ctr_all, 1, no_umask0,
         "snoop responses the LLC sends to a remote home, by line state and action"},
        {"LLC_HITS", 0x08, no_ext, llc_access_umasks(), ctr_all, 1, no_umask0,
         "LLC hits: core reads/RFOs, core writebacks, peer probes"},
        {"LLC_MISS", 0x09, no_ext, llc_access_umasks(), ctr_all, 1, no_umask0,
         "LLC misses: core reads/RFOs, core writebacks, peer probes"},
        {"LLC_LINES_IN", 0x0A, no_ext,
         {{"M_STATE", 0x01}, {"E_STATE", 0x02}, {"S_STATE", 0x04}, {"F_STATE", 0x08},
          {"ANY", 0x0F}},
         ctr_all, 1, no_umask0, "lines filled into the LLC, by the state they get"},
        {"LLC_LINES_OUT", 0x0B, no_ext,
         {{"M_STATE", 0x01}, {"E_STATE", 0x02}, {"S_STATE", 0x04}, {"I_STATE", 0x08},
          {"F_STATE", 0x10}, {"ANY", 0x1F}},
         ctr_all, 1, no_umask0, "lines evicted from the LLC, by the state they had"},
        {"QHL_REQUESTS", 0x20, no_ext,
         {{"IOH_READS", 0x01}, {"IOH_WRITES", 0x02}, {"REMOTE_READS", 0x04},
          {"REMOTE_WRITES", 0x08}, {"LOCAL_READS", 0x10}, {"LOCAL_WRITES", 0x20}},
         ctr_all, 1, no_umask0, "requests reaching the QPI home logic, by source and direction"},
        {"QHL_CYCLES_FULL", 0x21, no_ext, qhl_sources(), ctr_all, 1, no_umask0,
         "cycles a home logic tracker (IOH, remote, local) is full"},
        {"QHL_CYCLES_NOT_EMPTY", 0x22, no_ext, qhl_sources(), ctr_all, 1, no_umask0,
         "cycles a home logic tracker holds at least one request"},
        {"QHL_OCCUPANCY", 0x23, no_ext, qhl_sources(), ctr_all, rtid_bound, no_umask0,
         "running sum of the read entries held in a home logic tracker"},
        {"QHL_ADDRESS_CONFLICTS", 0x24, no_ext, {{"2WAY", 0x02}, {"3WAY", 0x04}}, ctr_all, 1,
         no_umask0, "address-conflict table entries freed after 2 or 3 conflicting requests"},
        {"QHL_CONFLICT_CYCLES", 0x25, no_ext, qhl_sources(), ctr_all, 1, no_umask0,
         "cycles a home logic tracker holds two or more requests to one address"},
        {"QHL_TO_QMC_BYPASS", 0x26, no_ext, single(0x01), ctr_all, 1, no_umask0,
         "requests sent to the memory controller bypassing the home logic"},
        {"QMC_NORMAL_FULL", 0x27, no_ext, read_write_channels(), ctr_all, 1, no_umask0,
         "cycles a channel's normal (medium/low) priority queue is full of reads or writes"},
        {"QMC_ISOC_FULL", 0x28, no_ext, read_write_channels(), ctr_all, 1, no_umask0,
         "cycles a channel's high priority queue is full of isochronous reads or writes"},
        {"QMC_BUSY", 0x29, no_ext, read_write_channels(), ctr_all, 1, no_umask0,
         "cycles a channel has a read or a write outstanding"},
        {"QMC_OCCUPANCY", 0x2A, no_ext, channels(), ctr_all, rtid_bound, no_umask0,
         "running sum of a channel's outstanding normal-priority reads"},
        {"IMC_ISOC_OCCUPANCY", 0x2B, no_ext, channels_any(), ctr_all, rtid_bound, no_umask0,
         "running sum of a channel's outstanding isochronous reads"},
        {"QMC_NORMAL_READS", 0x2C, no_ext, channels_any(), ctr_all, 1, no_umask0,
         "medium and low priority reads accepted by the memory controller, per channel"},
        {"QMC_HIGH_PRIORITY_READS", 0x2D, no_ext, channels_any(), ctr_all, 1, no_umask0,
         "high priority isochronous reads accepted by the memory controller, per channel"},
        {"QMC_CRITICAL_PRIORITY_READS", 0x2E, no_ext, channels_any(), ctr_all, 1, no_umask0,
         "critical priority isochronous reads accepted by the memory controller, per channel"},
        {"QMC_WRITES", 0x2F, no_ext,
         {{"FULL_CH0", 0x01}, {"FULL_CH1", 0x02}, {"FULL_CH2", 0x04}, {"FULL_ANY", 0x07},
          {"PARTIAL_CH0", 0x08}, {"PARTIAL_CH1", 0x10}, {"PARTIAL_CH2", 0x20},
          {"PARTIAL_ANY", 0x38}},
         ctr_all, 1, no_umask0, "full and partial cache line writes to DRAM, per channel"},
        {"QMC_CANCEL", 0x30, no_ext, channels_any(), ctr_all, 1, no_umask0,
         "DRAM request cancels, per channel"},
        {"QMC_PRIORITY_UPDATES", 0x31, no_ext, channels_any(), ctr_all, 1, no_umask0,
         "queued normal reads raised to isochronous priority, per channel"},
        {"QHL_FRC_ACK_CNFLTS", 0x33, no_ext, {{"LOCAL", 0x04}}, ctr_all, 1, no_umask0,
         "FrcAckCnflt messages the home logic sends to the local home"},
        // Not in Table 19-18; see the header. What is counted depends on MSR 396H.
        {"ADDR_OPCODE_MATCH", 0x35, no_ext, qhl_sources(), ctr_all, 1, no_umask0,
         "requests from the IOH, remote or local socket that match MSR_UNCORE_ADDR_OPCODE_MATCH"},
        {"QPI_TX_STALLED_SINGLE_FLIT", 0x40, no_ext, qpi_single_flit_umasks(), ctr_all, 1,
         no_umask0, "cycles a single-flit QPI virtual channel waits for VNA/VN0 credit, per link"},
        {"QPI_TX_STALLED_MULTI_FLIT", 0x41, no_ext, qpi_multi_flit_umasks(), ctr_all, 1,
         no_umask0, "cycles a multi-flit QPI virtual channel waits for VNA/VN0 credit, per link"},
        {"QPI_TX_HEADER", 0x42, no_ext, {{"BUSY_LINK_0", 0x02}, {"BUSY_LINK_1", 0x08}}, ctr_all,
         1, no_umask0, "cycles the outbound QPI header buffer of a link is busy"},
        {"QPI_RX_NO_PPT_CREDIT", 0x43, no_ext, {{"STALLS_LINK_0", 0x01}, {"STALLS_LINK_1", 0x02}},
         ctr_all, 1, no_umask0,
         "cycles incoming snoops on a link wait for a free peer probe tracker entry"},
        {"DRAM_OPEN", 0x60, no_ext, channels(), ctr_all, 1, no_umask0,
         "DRAM page open (activate) commands, per channel"},
        {"DRAM_PAGE_CLOSE", 0x61, no_ext, channels(), ctr_all, 1, no_umask0,
         "DRAM pages closed by the page idle timer, per channel"},
        {"DRAM_PAGE_MISS", 0x62, no_ext, channels(), ctr_all, 1, no_umask0,
         "DRAM precharges forced by a page miss, per channel"},
        {"DRAM_READ_CAS", 0x63, no_ext, cas_umasks(), ctr_all, 1, no_umask0,
         "DRAM read CAS commands, per channel, with or without auto-precharge"},
        {"DRAM_WRITE_CAS", 0x64, no_ext, cas_umasks(), ctr_all, 1, no_umask0,
         "DRAM write CAS commands, per channel, with or without auto-precharge"},
        {"DRAM_REFRESH", 0x65, no_ext, channels(), ctr_all, 1, no_umask0,
         "DRAM refresh commands, per channel"},
        {"DRAM_PRE_ALL", 0x66, no_ext, channels(), ctr_all, 1, no_umask0,
         "DRAM precharge-all commands, per channel"},
    };
}

// --- Westmere-EP (Table 19-20): Nehalem's list plus/minus its differences --

void to_westmere(std::vector<event_def>& events) {
    // Gone: Table 19-20 and wsm_unc both lack QMC_NORMAL_FULL (27H).
    events.erase(std::remove_if(events.begin(), events.end(),
                                [](const event_def& e) { return e.name == "QMC_NORMAL_FULL"; }),
                 events.end());

    // More sub-events (SDM only; libpfm4 keeps the Nehalem sets).
    event_named(events, "QMC_OCCUPANCY").umasks = channels_any();
    event_named(events, "QHL_FRC_ACK_CNFLTS").umasks = {
        {"IOH", 0x01}, {"REMOTE", 0x02}, {"LOCAL", 0x04}, {"ANY", 0x07}};
    event_named(events, "QHL_FRC_ACK_CNFLTS").description =
        "FrcAckCnflt messages the home logic sends, by destination (IOH, remote, local)";
    event_named(events, "QPI_TX_HEADER").umasks = {
        {"FULL_LINK_0", 0x01}, {"BUSY_LINK_0", 0x02}, {"FULL_LINK_1", 0x04}, {"BUSY_LINK_1", 0x08}};
    event_named(events, "QPI_TX_HEADER").description =
        "cycles the outbound QPI header buffer of a link is full or busy";

    // New events.
    const std::vector<event_def> added = {
        // libpfm4 spells it GC_OCCUPANCY; the SDM's mnemonic is UNC_GQ_OCCUPANCY.
        {"GC_OCCUPANCY", 0x02, no_ext, {{"READ_TRACKER", 0x01}}, ctr_all, gq_read_tracker,
         no_umask0, "running sum of the entries held in the global queue read tracker"},
        // SDM only. GOTO_S_HIT / GOTO_I_HIT count only the from-states (M, E, S, F)
        // enabled in MSR_GQ_SNOOP_MESF (301H); the SDM names one sub-event per state.
        {"GQ_SNOOP", 0x0C, no_ext,
         {{"GOTO_S", 0x01}, {"GOTO_I", 0x02}, {"GOTO_S_HIT", 0x04}, {"GOTO_I_HIT", 0x08}},
         ctr_all, 1, no_umask0,
         "remote snoops asking for a line to go to S or I (HIT: from states chosen in MSR 301H)"},
        {"IMC_RETRY", 0x32, no_ext, channels_any(), ctr_all, 1, no_umask0,
         "DRAM channel retries (RAS mode only), per channel"},
        {"QHL_SLEEPS", 0x34, no_ext,
         {{"IOH_ORDER", 0x01}, {"REMOTE_ORDER", 0x02}, {"LOCAL_ORDER", 0x04},
          {"IOH_CONFLICT", 0x08}, {"REMOTE_CONFLICT", 0x10}, {"LOCAL_CONFLICT", 0x20}},
         ctr_all, 1, no_umask0,
         "home logic requests put to sleep by write-after-read ordering or address conflicts"},
        {"DRAM_THERMAL_THROTTLED", 0x67, no_ext, single(0x01), ctr_all, 1, no_umask0,
         "cycles DRAM is throttled for temperature"},
        {"THERMAL_THROTTLING_TEMP", 0x80, no_ext, cores(), ctr_all, 1, no_umask0,
         "cycles the PCU sees a core above its thermal throttling temperature"},
        {"THERMAL_THROTTLED_TEMP", 0x81, no_ext, cores(), ctr_all, 1, no_umask0,
         "cycles a core is power-throttled for temperature"},
        {"PROCHOT_ASSERTION", 0x82, no_ext, single(0x01), ctr_all, 1, no_umask0,
         "PROCHOT assertions (the whole package over its thermal limit)"},
        {"THERMAL_THROTTLING_PROCHOT", 0x83, no_ext, cores(), ctr_all, 1, no_umask0,
         "cycles a core is in a low power state because PROCHOT is asserted"},
        {"TURBO_MODE", 0x84, no_ext, cores(), ctr_all, 1, no_umask0,
         "cycles a core runs in turbo mode"},
        {"CYCLES_UNHALTED_L3_FLL_ENABLE", 0x85, no_ext, single(0x02), ctr_all, 1, no_umask0,
         "cycles with at least one core unhalted and all L3 ways enabled"},
        {"CYCLES_UNHALTED_L3_FLL_DISABLE", 0x86, no_ext, single(0x01), ctr_all, 1, no_umask0,
         "cycles with at least one core unhalted and all L3 ways disabled"},
    };
    events.insert(events.end(), added.begin(), added.end());
    std::stable_sort(events.begin(), events.end(),
                     [](const event_def& a, const event_def& b) { return a.code < b.code; });
}

}  // namespace

std::vector<event_def> nhm_ep_events() { return nhm_events(); }

std::vector<event_def> wsm_ep_events() {
    auto events = nhm_events();
    to_westmere(events);
    return events;
}

}  // namespace pmonsim::catalog_data
