// Power Control Unit (PCU) PMON MSRs: BOX_CTL 0xC24, CTL0-3 0xC30-0xC33, the
// band filter 0xC34, IVB-EP's BOX_STATUS 0xC35, CTR0-3 0xC36-0xC39, and the
// C-state residency counters outside PMON, 0x3FC (C3) and 0x3FD (C6)
// (327043-001 Tables 2-73..2-79, 329468-002 Tables 2-118..2-125). Choices
// where the manuals are unclear (decisions.md B10-B12):
// - CTL bit 21 is ev_sel_ext on both CPUs (IVB-EP documents it; SNB-EP's
//   catalog has events that need it, and PCM sets it);
// - SNB-EP's CTL keeps invert at bit 23 for ordinary events; occupancy events
//   use occ_invert and occ_edge_det instead;
// - BOX_STATUS 0xC35 on IVB-EP only (its manual's Table 2-120; the address is
//   likwid's); SNB-EP has none;
// - the residency counters are the socket's, counting TSC ticks (the SDM's
//   rate for MSR_CORE_C3/C6_RESIDENCY), RW-V (a write sets them), untouched
//   by freeze, enables and resets.
#include "tables/register_table.h"


namespace pmonsim {

namespace {

std::vector<field_def> pcu_ctl_fields(const ctl_shape& s) {
    namespace p = pcu_bits;
    const attr a = s.rw_v ? attr::rw_v : attr::rw;
    return {
        {"rsv", 63, 32, attr::rv, "reserved"},
        fd(p::occ_edge, a, "occupancy events: count 0->1 transitions of the threshold compare"),
        fd(p::occ_invert, a, "occupancy events: count cycles with fewer cores than thresh"),
        {"rsv", 29, 29, attr::rv, "reserved"},
        fd(ctl_bits::thresh5, a, "threshold compared with the per-cycle increment"),
        s.invert ? fd(ctl_bits::invert, a, "ordinary events: count cycles with increment < thresh")
                 : field_def{"rsv", 23, 23, attr::rv, "reserved (no invert on IVB-EP)"},
        fd(ctl_bits::en, a, "local counter enable"),
        fd(ctl_bits::ext, a, "extends ev_sel (the catalog's ext events)"),
        s.ov_en ? fd(ctl_bits::ov_en, a, "overflow sets BOX_STATUS and messages the UBox (ov_p)")
                : field_def{"rsv", 20, 20, attr::rv, "reserved"},
        {"rsv", 19, 19, attr::rv, "reserved"},
        fd(ctl_bits::edge, a, "ordinary events: count 0->1 transitions of the threshold compare"),
        fd(ctl_bits::rst, attr::wo, "writing 1 clears the paired counter"),
        {"rsv", 16, 16, attr::rv, "reserved"},
        fd(p::occ_sel, a, "occupancy sub-counter: 1 cores in C0, 2 in C3, 3 in C6"),
        {"rsv", 13, 8, attr::rv, "reserved (no umask)"},
        fd(ctl_bits::ev_sel, a, "event select; bit 7 marks an occupancy event"),
    };
}

register_def residency_counter(const char* name, uint32_t msr, uint8_t index, const char* state) {
    return {name, msr, 8, 0, reg_role::ctr, index,
            {{"event_count", 63, 0, attr::rw_v,
              std::string("TSC ticks in which some core is in ") + state + " (not frozen or reset by PMON)"}}};
}

}  // namespace

register_table pcu_register_table(cpu_model cpu) {
    const box_desc& c = describe(cpu).need(box_kind::pcu);
    register_table t;
    t.title = "PCU PMON MSRs";
    t.msr_space = true;
    t.regs.push_back({"PCU_MSR_PMON_BOX_CTL", 0xC24, 8, 0, reg_role::box_ctl, 0, msr_box_ctl_fields(c.box_ctl)});
    for (uint8_t i = 0; i < c.counters; ++i)
        t.regs.push_back({"PCU_MSR_PMON_CTL" + std::to_string(i), 0xC30u + i, 8, 0, reg_role::ctl, i,
                          pcu_ctl_fields(c.ctl)});
    if (c.band_filter) {
        std::vector<field_def> f = {{"rsv", 63, 32, attr::rv, "reserved"}};
        for (int k = 3; k >= 0; --k)
            f.push_back(fd(pcu_bits::band[k], attr::rw_v,
                           "band " + std::to_string(k) + ": FREQ_BAND" + std::to_string(k) +
                               "_CYCLES counts cycles at or above it (100 MHz steps)"));
        t.regs.push_back({"PCU_MSR_PMON_BOX_FILTER", 0xC34, 8, 0, reg_role::band_filter, 0, std::move(f)});
    }
    if (c.box_status)
        t.regs.push_back({"PCU_MSR_PMON_BOX_STATUS", 0xC35, 8, 0, reg_role::box_status, 0,
                          {{"rsv", 63, static_cast<uint8_t>(c.counters), attr::rv, "reserved"},
                           {"ov", static_cast<uint8_t>(c.counters - 1), 0, attr::rw1c, "counter i overflowed"}}});
    for (uint8_t i = 0; i < c.counters; ++i)
        t.regs.push_back(msr_counter("PCU_MSR_PMON_CTR" + std::to_string(i), 0xC36u + i, c.width, reg_role::ctr, i));
    if (c.residency_counters) {
        t.regs.push_back(residency_counter("PCU_MSR_CORE_C3_CTR", 0x3FC, static_cast<uint8_t>(c.counters), "C3"));
        t.regs.push_back(residency_counter("PCU_MSR_CORE_C6_CTR", 0x3FD, static_cast<uint8_t>(c.counters + 1), "C6"));
    }
    return t;
}

}  // namespace pmonsim
