// Nehalem-EP / Westmere-EP uncore PMU MSRs (SDM Vol. 3B 18.8.2, Figures
// 18-36..18-40 and Table 18-?? of the uncore MSRs). Choices where the SDM is
// unclear or silent (docs/decisions.md, "Nehalem-EP / Westmere-EP uncore"):
// - ADDR_OPCODE_MATCH.ADDR is bits 39:3, as the text says (the figure draws
//   39:4): a match on 8-byte granules; bit 3 is stored and compared;
// - GLOBAL_STATUS is read-only (cleared through GLOBAL_OVF_CTRL); a write to
//   it changes nothing and is a diagnostic;
// - GLOBAL_OVF_CTRL reads 0;
// - EN_PMI_CORE has four bits (cores 0-3), also on six-core Westmere-EP: its
//   cores 4 and 5 cannot be chosen for the uncore PMI;
// - OCC_CTR_RST (bit 17) is write-only and reads 0; the queue occupancy it
//   would clear is the trace's input, so it changes no count here;
// - CHG is set whenever another status bit goes from 0 to 1, and cleared only
//   by CLR_CHG.
#include "tables/register_table.h"

namespace pmonsim {

namespace {

std::vector<field_def> evtsel_fields() {
    namespace c = ctl_bits;
    return {
        {"rsv", 63, 32, attr::rv, "reserved"},
        fd(c::thresh, "cmask", attr::rw, "count cycles with increment >= cmask (0: count the increment)"),
        fd(c::invert, "inv", attr::rw, "with cmask: count cycles with increment < cmask"),
        fd(c::en, "en", attr::rw, "local counter enable (counts only with EN_PCn too)"),
        {"rsv", 21, 21, attr::rv, "reserved (likwid sets it as 'any thread'; ignored)"},
        fd(c::ov_en, "pmi", attr::rw, "overflow raises a PMI to the cores in EN_PMI_CORE"),
        {"rsv", 19, 19, attr::rv, "reserved"},
        fd(c::edge, "edge", attr::rw, "count 0->1 transitions of the cmask compare"),
        fd(nhm_bits::occ_ctr_rst, attr::wo, "clears the event's queue occupancy count (no effect here: the trace gives it)"),
        {"rsv", 16, 16, attr::rv, "reserved"},
        fd(c::umask, "umask", attr::rw, "sub-event select"),
        fd(c::ev_sel, "event", attr::rw, "event select"),
    };
}

}  // namespace

register_table nhm_uncore_register_table(cpu_model cpu) {
    namespace n = nhm_bits;
    const cpu_desc& d = describe(cpu);
    const box_desc& g = d.need(box_kind::uncore);
    const box_desc& f = d.need(box_kind::uncore_fixed);
    register_table t;
    t.title = "Uncore PMU MSRs";
    t.msr_space = true;
    t.regs.push_back({"MSR_UNCORE_PERF_GLOBAL_CTRL", 0x391, 8, 0, reg_role::global_ctl, 0,
                      {fd(n::pmi_frz, attr::rw, "a PMI clears en_pc and en_fc0 (freezes every counter)"),
                       {"rsv", 62, 52, attr::rv, "reserved"},
                       fd(n::en_pmi_core, attr::rw, "bit n: an uncore PMI goes to core n"),
                       {"rsv", 47, 33, attr::rv, "reserved"},
                       fd(n::en_fc0, attr::rw, "the fixed counter may count"),
                       {"rsv", 31, 8, attr::rv, "reserved"},
                       fd(n::en_pc, attr::rw, "bit n: general counter n may count")}});
    t.regs.push_back({"MSR_UNCORE_PERF_GLOBAL_STATUS", 0x392, 8, 0, reg_role::global_status, 0,
                      {fd(n::chg, attr::ro_v, "another status bit went from 0 to 1 since CLR_CHG"),
                       {"rsv", 62, 62, attr::rv, "reserved"},
                       fd(n::ovf_pmi, attr::ro_v, "an overflow raised a PMI"),
                       {"rsv", 60, 33, attr::rv, "reserved"},
                       fd(n::ovf_fc0, attr::ro_v, "the fixed counter overflowed"),
                       {"rsv", 31, 8, attr::rv, "reserved"},
                       fd(n::ovf_pc, attr::ro_v, "bit n: general counter n overflowed")}});
    t.regs.push_back({"MSR_UNCORE_PERF_GLOBAL_OVF_CTRL", 0x393, 8, 0, reg_role::global_ovf_ctrl, 0,
                      {fd(n::chg, "clr_chg", attr::wo, "writing 1 clears CHG"),
                       {"rsv", 62, 62, attr::rv, "reserved"},
                       fd(n::ovf_pmi, "clr_ovf_pmi", attr::wo, "writing 1 clears OVF_PMI"),
                       {"rsv", 60, 33, attr::rv, "reserved"},
                       fd(n::ovf_fc0, "clr_ovf_fc0", attr::wo, "writing 1 clears OVF_FC0"),
                       {"rsv", 31, 8, attr::rv, "reserved"},
                       fd(n::ovf_pc, "clr_ovf_pc", attr::wo, "bit n: writing 1 clears OVF_PCn")}});
    t.regs.push_back(msr_counter("MSR_UNCORE_FIXED_CTR0", 0x394, f.width, reg_role::fixed_ctr, 0));
    t.regs.push_back({"MSR_UNCORE_FIXED_CTR_CTRL", 0x395, 8, 0, reg_role::fixed_ctl, 0,
                      {{"rsv", 63, 3, attr::rv, "reserved"},
                       fd(n::fixed_pmi, attr::rw, "overflow raises a PMI to the cores in EN_PMI_CORE"),
                       {"rsv", 1, 1, attr::rv, "reserved"},
                       fd(n::fixed_en, attr::rw, "enable: counts every uncore clock cycle (with EN_FC0)")}});
    t.regs.push_back({"MSR_UNCORE_ADDR_OPCODE_MATCH", 0x396, 8, 0, reg_role::addr_match, 0,
                      {fd(n::match_sel, attr::rw,
                          "000 off, 100 address, 010 opcode, 110 address or opcode, 001 address and opcode"),
                       {"rsv", 60, 48, attr::rv, "reserved"},
                       fd(n::opcode, attr::rw, "message class (47:44) and opcode (43:40) to match"),
                       fd(n::addr, attr::rw, "physical address bits 39:3 to match"),
                       {"rsv", 2, 0, attr::rv, "reserved"}}});
    for (uint8_t i = 0; i < g.counters; ++i)
        t.regs.push_back(msr_counter("MSR_UNCORE_PMC" + std::to_string(i), 0x3B0u + i, g.width, reg_role::ctr, i));
    for (uint8_t i = 0; i < g.counters; ++i)
        t.regs.push_back({"MSR_UNCORE_PERFEVTSEL" + std::to_string(i), 0x3C0u + i, 8, 0, reg_role::ctl, i,
                          evtsel_fields()});
    return t;
}

register_table socket_msr_table(cpu_model cpu) {
    switch (describe(cpu).global) {
        case global_control::none:
        case global_control::ubox_freeze: return ubox_register_table(cpu);
        case global_control::uncore_global_ctrl: return nhm_uncore_register_table(cpu);
    }
    return {};
}

}  // namespace pmonsim
