// Every register field with behaviour, declared once (name and bit positions).
// The register tables are built from these declarations (tables/*.cpp), and
// the counting engine, the global control, the packet filter, the driver and
// the waveforms decode and encode through the same ones, so no bit position
// of a field with behaviour is written twice in the tree. (Reserved and
// ignored ranges exist only in the tables, which state them once.)
#pragma once
#include <cstdint>

#include "desc/bits.h"

namespace pmonsim {

struct bitfield {
    const char* name;
    uint8_t hi, lo;

    constexpr unsigned width() const { return hi - lo + 1u; }
    constexpr uint64_t mask() const { return bit_mask(hi, lo); }
    constexpr uint64_t get(uint64_t reg) const { return get_bits(reg, hi, lo); }
    constexpr bool test(uint64_t reg) const { return get_bits(reg, hi, lo) != 0; }
    constexpr uint64_t put(uint64_t value) const { return (value << lo) & mask(); }
};

// Counter control (the E5 boxes' CTLn, 327043-001/329468-002 §2.1 and the box
// chapters; the Nehalem/Westmere MSR_UNCORE_PERFEVTSELn, SDM Vol. 3B 18.8.2.2,
// has the same positions with other names: cmask, inv, pmi, occ_ctr_rst).
namespace ctl_bits {
inline constexpr bitfield ev_sel{"ev_sel", 7, 0};
inline constexpr bitfield umask{"umask", 15, 8};
inline constexpr bitfield rst{"rst", 17, 17};
inline constexpr bitfield edge{"edge_det", 18, 18};
inline constexpr bitfield ov_en{"ov_en", 20, 20};
inline constexpr bitfield ext{"ev_sel_ext", 21, 21};
inline constexpr bitfield en{"en", 22, 22};
inline constexpr bitfield invert{"invert", 23, 23};
inline constexpr bitfield thresh{"thresh", 31, 24};
inline constexpr bitfield thresh5{"thresh", 28, 24};  // the UBox's 5-bit threshold
}  // namespace ctl_bits

// The fixed counter's control inside a box (the iMC's MC_CHy_PCI_PMON_FIXED_CTL,
// 327043-001 Table 2-62): en and ov_en at ctl_bits' places, its reset here.
namespace fixed_ctl_bits {
inline constexpr bitfield rst{"rst", 19, 19};
}  // namespace fixed_ctl_bits

// The caching agents' counter controls: tid_en (bit 19) makes the counter
// take only requests of the filter's thread ID (decisions.md B8, B14).
namespace cbo_bits {
inline constexpr bitfield tid_en{"tid_en", 19, 19};
}  // namespace cbo_bits

// The caching agents' filters (decisions.md B8, B14). SNB-EP's one
// BOX_FILTER (Linux's and PCM's positions); IVB-EP's FILTER0 and FILTER1
// (329468-002 Tables 2-16, 2-17). state and nid are masks (a bit per LLC
// state, I S E M F from bit 0 up; a bit per node), opc and tid values.
namespace cbo_filter_bits {
inline constexpr bitfield tid{"tid", 4, 0};
inline constexpr bitfield snb_nid{"nid", 17, 10};
inline constexpr bitfield snb_state{"state", 22, 18};
inline constexpr bitfield snb_opc{"opc", 31, 23};
inline constexpr bitfield ivb_link{"link", 8, 5};      // FILTER0 (Linux's; stored)
inline constexpr bitfield ivb_state{"state", 22, 17};  // FILTER0; bit 5 a second M (B14)
inline constexpr bitfield ivb_nid{"nid", 15, 0};       // FILTER1
inline constexpr bitfield ivb_opc{"opc", 28, 20};      // FILTER1
inline constexpr bitfield ivb_c6{"c6", 29, 29};        // FILTER1 (Linux's; stored)
inline constexpr bitfield ivb_nc{"nc", 30, 30};        // FILTER1 (stored)
inline constexpr bitfield ivb_isoc{"isoc", 31, 31};    // FILTER1 (stored)
}  // namespace cbo_filter_bits

// The home agent's match registers (327043-001 Table 2-38, 329468-002
// Tables 2-42, 2-43): a cache line's address in two parts and an opcode,
// compared exactly (decisions.md B7, B14).
namespace ha_match_bits {
inline constexpr bitfield lo_addr{"lo_addr", 31, 6};   // ADDRMATCH0: address bits 31:6
inline constexpr bitfield hi_addr{"hi_addr", 13, 0};   // ADDRMATCH1: address bits 45:32
inline constexpr bitfield opc{"opc", 5, 0};            // OPCODEMATCH
}  // namespace ha_match_bits

// The PCU's counter controls (327043-001 Table 2-75, 329468-002 Table 2-121):
// ev_sel bit 7 marks an occupancy event, whose increment is the number of
// cores in the state occ_sel picks, compared with thresh under occ_invert and
// occ_edge_det instead of invert and edge_det (decisions.md B10). No umask.
namespace pcu_bits {
inline constexpr bitfield occ_event{"occupancy", 7, 7};
inline constexpr bitfield occ_sel{"occ_sel", 15, 14};
inline constexpr bitfield occ_invert{"occ_invert", 30, 30};
inline constexpr bitfield occ_edge{"occ_edge_det", 31, 31};
// PCU_MSR_PMON_BOX_FILTER: band k's frequency in 100 MHz steps, byte k.
inline constexpr bitfield band[4] = {{"filt7_0", 7, 0}, {"filt15_8", 15, 8}, {"filt23_16", 23, 16},
                                     {"filt31_24", 31, 24}};
}  // namespace pcu_bits

// BOX_CTL of the PCI boxes.
namespace box_ctl_bits {
inline constexpr bitfield rst_ctrl{"rst_ctrl", 0, 0};
inline constexpr bitfield rst_ctrs{"rst_ctrs", 1, 1};
inline constexpr bitfield frz{"frz", 8, 8};
inline constexpr bitfield frz_en{"frz_en", 16, 16};     // SNB-EP
inline constexpr bitfield ov_en{"ov_en", 17, 17};       // SNB-EP, stored without effect
inline constexpr bitfield write1{"rsv", 17, 16};        // IVB-EP, software writes 1
}  // namespace box_ctl_bits

// IVB-EP U_MSR_PMON_GLOBAL_CTL.
namespace global_ctl_bits {
inline constexpr bitfield pmi_core_sel{"pmi_core_sel", 14, 0};
inline constexpr bitfield unfrz_all{"unfrz_all", 29, 29};
inline constexpr bitfield wk_on_pmi{"wk_on_pmi", 30, 30};
inline constexpr bitfield frz_all{"frz_all", 31, 31};
}  // namespace global_ctl_bits

// IVB-EP U_MSR_PMON_GLOBAL_STATUS: a bit per box (329468-002 Table 2-3).
namespace global_status_bits {
inline constexpr bitfield ov_u_fixed{"ov_u_fixed", 0, 0};
inline constexpr bitfield ov_u{"ov_u", 1, 1};
inline constexpr bitfield ov_p{"ov_p", 2, 2};
inline constexpr bitfield ov_c{"ov_c", 17, 3};
inline constexpr bitfield ov_h0{"ov_h0", 18, 18};
inline constexpr bitfield ov_h1{"ov_h1", 19, 19};
inline constexpr bitfield ov_m0{"ov_m0", 20, 20};
inline constexpr bitfield ov_m1{"ov_m1", 21, 21};
inline constexpr bitfield ov_q0{"ov_q0", 22, 22};
inline constexpr bitfield ov_q1{"ov_q1", 23, 23};
inline constexpr bitfield ov_rq0{"ov_rq0", 24, 24};
inline constexpr bitfield ov_rq1{"ov_rq1", 25, 25};
inline constexpr bitfield ov_rp{"ov_rp", 26, 26};
}  // namespace global_status_bits

// Nehalem-EP / Westmere-EP uncore (SDM Vol. 3B 18.8.2). The counter controls
// (MSR_UNCORE_PERFEVTSELn) use ctl_bits' positions under the SDM's names
// (cmask, inv, pmi), except bit 17, which is another field there.
namespace nhm_bits {
inline constexpr bitfield occ_ctr_rst{"occ_ctr_rst", 17, 17};
// MSR_UNCORE_PERF_GLOBAL_CTRL
inline constexpr bitfield en_pc{"en_pc", 7, 0};
inline constexpr bitfield en_fc0{"en_fc0", 32, 32};
inline constexpr bitfield en_pmi_core{"en_pmi_core", 51, 48};
inline constexpr bitfield pmi_frz{"pmi_frz", 63, 63};
// MSR_UNCORE_PERF_GLOBAL_STATUS, and MSR_UNCORE_PERF_GLOBAL_OVF_CTRL, whose
// write-1-to-clear bits sit at the same places.
inline constexpr bitfield ovf_pc{"ovf_pc", 7, 0};
inline constexpr bitfield ovf_fc0{"ovf_fc0", 32, 32};
inline constexpr bitfield ovf_pmi{"ovf_pmi", 61, 61};
inline constexpr bitfield chg{"chg", 63, 63};
// MSR_UNCORE_FIXED_CTR_CTRL
inline constexpr bitfield fixed_en{"en", 0, 0};
inline constexpr bitfield fixed_pmi{"pmi", 2, 2};
// MSR_UNCORE_ADDR_OPCODE_MATCH
inline constexpr bitfield addr{"addr", 39, 3};
inline constexpr bitfield opcode{"opcode", 47, 40};
inline constexpr bitfield match_sel{"match_sel", 63, 61};
// CURRENT_UCLK_RATIO, offset C0h of PCI device 0 function 0 (the Generic
// Non-core Registers; uclk_ratio_desc): the UCLK ratio to BCLK, read-only.
inline constexpr bitfield uclk_ratio{"uclk", 6, 0};
}  // namespace nhm_bits

// QPI packet filter: {MATCH1, MATCH0} and {MASK1, MASK0} as one 64-bit value
// (MATCH1 in the high half; the tables place the same fields per dword).
namespace match_bits {
inline constexpr bitfield vnw{"vnw", 4, 3};
inline constexpr bitfield opc{"opc", 8, 5};
inline constexpr bitfield mc{"mc", 12, 9};
inline constexpr bitfield dnid{"dnid", 17, 13};
inline constexpr bitfield rnid_4{"rnid_4", 31, 31};
inline constexpr bitfield rnid_3_0{"rnid_3_0", 35, 32};
inline constexpr bitfield rds{"rds", 51, 48};
// The same fields as the 32-bit MATCH1/MASK1 registers hold them.
constexpr bitfield in_high_dword(bitfield f) {
    return {f.name, static_cast<uint8_t>(f.hi - 32), static_cast<uint8_t>(f.lo - 32)};
}
}  // namespace match_bits

}  // namespace pmonsim
