// UBox PMON MSRs (327043-001 §2.2, Tables 2-1..2-5; 329468-002 §2.1.3 and
// §2.2, Tables 2-1..2-9) and, on IVB-EP, the per-socket global control
// (U_MSR_PMON_GLOBAL_CTL/STATUS/CONFIG). Choices where the manuals are unclear:
// - the fixed counter is 48 bits wide (the tables' 43:0 row is a copy error);
// - U_MSR_PMON_BOX_STATUS sits at 0xC15 (address from tool sources only);
// - GLOBAL_STATUS keeps a bit for every box of the socket; bits of boxes this
//   model does not contain simply never get set;
// - GLOBAL_CONFIG is undocumented: its low 32 bits are stored, nothing more.
#include "tables/register_table.h"

#include <stdexcept>

namespace pmonsim {

namespace {

std::vector<field_def> ubox_ctl_fields(const ctl_shape& s) {
    const attr a = s.rw_v ? attr::rw_v : attr::rw;
    return {
        {"rsv", 63, 29, attr::rv, "reserved"},
        fd(ctl_bits::thresh5, a, "5-bit threshold compared with the per-cycle increment"),
        s.invert ? fd(ctl_bits::invert, a, "count cycles with increment < thresh")
                 : field_def{"rsv", 23, 23, attr::rv, "reserved (invert removed on IVB-EP)"},
        fd(ctl_bits::en, a, "local counter enable"),
        {"rsv", 21, 21, attr::rv, "reserved, no extra select bit in the UBox"},
        s.ov_en ? fd(ctl_bits::ov_en, a, "overflow sets BOX_STATUS and GLOBAL_STATUS.ov_u")
                : field_def{"rsv", 20, 20, attr::rv, "reserved"},
        {"rsv", 19, 19, attr::rv, "reserved"},
        fd(ctl_bits::edge, a, "count 0->1 transitions of the threshold compare"),
        fd(ctl_bits::rst, attr::wo, "writing 1 clears the paired counter"),
        {"rsv", 16, 16, attr::rv, "reserved"},
        fd(ctl_bits::umask, a, "sub-event select"),
        fd(ctl_bits::ev_sel, a, "event select (0: enabled but no event)"),
    };
}

std::vector<field_def> ubox_fixed_ctl_fields(const ctl_shape& s) {
    const attr a = s.rw_v ? attr::rw_v : attr::rw;
    return {
        {"rsv", 63, 23, attr::rv, "reserved"},
        fd(ctl_bits::en, a, "enable: counts every UCLK cycle"),
        {"rsv", 21, 21, attr::rv, "reserved"},
        s.ov_en ? fd(ctl_bits::ov_en, a, "overflow sets GLOBAL_STATUS.ov_u_fixed")
                : field_def{"rsv", 20, 20, attr::rv, "reserved"},
        {"rsv", 19, 0, attr::rv, "reserved"},
    };
}

}  // namespace

register_table ubox_register_table(cpu_model cpu) {
    const cpu_desc& d = describe(cpu);
    const box_desc& u = d.need(box_kind::ubox);
    const box_desc& f = d.need(box_kind::ubox_fixed);
    register_table t;
    t.title = "UBox PMON MSRs";
    t.msr_space = true;
    t.regs.push_back({"U_MSR_PMON_UCLK_FIXED_CTL", 0xC08, 8, 0, reg_role::fixed_ctl, 0,
                      ubox_fixed_ctl_fields(f.ctl)});
    t.regs.push_back(msr_counter("U_MSR_PMON_UCLK_FIXED_CTR", 0xC09, f.width, reg_role::fixed_ctr, 0));
    for (uint8_t i = 0; i < u.counters; ++i)
        t.regs.push_back({"U_MSR_PMON_CTL" + std::to_string(i), 0xC10u + i, 8, 0, reg_role::ctl, i,
                          ubox_ctl_fields(u.ctl)});
    for (uint8_t i = 0; i < u.counters; ++i)
        t.regs.push_back(msr_counter("U_MSR_PMON_CTR" + std::to_string(i), 0xC16u + i, u.width,
                                 reg_role::ctr, i));
    if (u.box_status)
        t.regs.push_back({"U_MSR_PMON_BOX_STATUS", 0xC15, 8, 0, reg_role::box_status, 0,
                          {{"rsv", 63, 2, attr::rv, "reserved"},
                           {"ov", 1, 0, attr::rw1c, "counter i overflowed with ov_en"}}});
    switch (d.global) {
        case global_control::none: return t;
        case global_control::ubox_freeze: break;
        case global_control::uncore_global_ctrl:  // (a CPU without a UBox: never here)
            return t;
    }
    t.regs.push_back({"U_MSR_PMON_GLOBAL_CTL", 0xC00, 8, 0, reg_role::global_ctl, 0,
                      {{"rsv", 63, 32, attr::rv, "reserved"},
                       fd(global_ctl_bits::frz_all, attr::wo, "assert the global freeze"),
                       fd(global_ctl_bits::wk_on_pmi, attr::rw, "wake sleeping cores before a PMI (stored)"),
                       fd(global_ctl_bits::unfrz_all, attr::wo, "release the global freeze"),
                       {"rsv", 28, 15, attr::rv, "reserved"},
                       fd(global_ctl_bits::pmi_core_sel, attr::rw, "bit n: send the PMI to core n")}});
    t.regs.push_back({"U_MSR_PMON_GLOBAL_STATUS", 0xC01, 8, 0, reg_role::global_status, 0,
                      {{"rsv", 63, 27, attr::rv, "reserved"},
                       fd(global_status_bits::ov_rp, attr::rw1c, "R2PCIe overflowed"),
                       fd(global_status_bits::ov_rq1, attr::rw1c, "R3QPI link 1 overflowed"),
                       fd(global_status_bits::ov_rq0, attr::rw1c, "R3QPI link 0 overflowed"),
                       fd(global_status_bits::ov_q1, attr::rw1c, "QPI port 1 overflowed"),
                       fd(global_status_bits::ov_q0, attr::rw1c, "QPI port 0 overflowed"),
                       fd(global_status_bits::ov_m1, attr::rw1c, "a channel of memory controller 1 overflowed"),
                       fd(global_status_bits::ov_m0, attr::rw1c, "a channel of memory controller 0 overflowed"),
                       fd(global_status_bits::ov_h1, attr::rw1c, "home agent 1 overflowed"),
                       fd(global_status_bits::ov_h0, attr::rw1c, "home agent 0 overflowed"),
                       fd(global_status_bits::ov_c, attr::rw1c, "CBo k at bit 3+k (not modelled)"),
                       fd(global_status_bits::ov_p, attr::rw1c, "PCU (not modelled)"),
                       fd(global_status_bits::ov_u, attr::rw1c, "a UBox general counter overflowed"),
                       fd(global_status_bits::ov_u_fixed, attr::rw1c, "the UBox fixed counter overflowed")}});
    t.regs.push_back({"U_MSR_PMON_GLOBAL_CONFIG", 0xC06, 8, 0, reg_role::global_config, 0,
                      {{"rsv", 63, 32, attr::rv, "reserved"},
                       {"config", 31, 0, attr::rw, "undocumented; stored without effect"}}});
    return t;
}

}  // namespace pmonsim
