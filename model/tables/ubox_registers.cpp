// UBox PMON MSRs (327043-001 §2.2, Tables 2-1..2-5; 329468-002 §2.1.3 and
// §2.2, Tables 2-1..2-9) and, on IVB-EP, the per-socket global control
// (U_MSR_PMON_GLOBAL_CTL/STATUS/CONFIG). Choices where the manuals are unclear:
// - the fixed counter is 48 bits wide (the tables' 43:0 row is a copy error);
// - U_MSR_PMON_BOX_STATUS sits at 0xC15 (address from tool sources only);
// - GLOBAL_STATUS keeps a bit for every box of the socket; bits of boxes this
//   model does not contain simply never get set;
// - GLOBAL_CONFIG is undocumented: its low 32 bits are stored, nothing more.
#include "tables/register_table.h"

namespace pmonsim {

namespace {

std::vector<field_def> ubox_ctl_fields(cpu_model cpu) {
    const bool ivb = cpu == cpu_model::ivb_ep;
    return {
        {"rsv", 63, 29, attr::rv, "reserved"},
        {"thresh", 28, 24, attr::rw, "5-bit threshold compared with the per-cycle increment"},
        ivb ? field_def{"rsv", 23, 23, attr::rv, "reserved (invert removed on IVB-EP)"}
            : field_def{"invert", 23, 23, attr::rw, "count cycles with increment < thresh"},
        {"en", 22, 22, attr::rw, "local counter enable"},
        {"rsv", 21, 21, attr::rv, "reserved, no extra select bit in the UBox"},
        ivb ? field_def{"ov_en", 20, 20, attr::rw, "overflow sets BOX_STATUS and GLOBAL_STATUS.ov_u"}
            : field_def{"rsv", 20, 20, attr::rv, "reserved"},
        {"rsv", 19, 19, attr::rv, "reserved"},
        {"edge_det", 18, 18, attr::rw, "count 0->1 transitions of the threshold compare"},
        {"rst", 17, 17, attr::wo, "writing 1 clears the paired counter"},
        {"rsv", 16, 16, attr::rv, "reserved"},
        {"umask", 15, 8, attr::rw, "sub-event select"},
        {"ev_sel", 7, 0, attr::rw, "event select (0: enabled but no event)"},
    };
}

std::vector<field_def> ubox_fixed_ctl_fields(cpu_model cpu) {
    const bool ivb = cpu == cpu_model::ivb_ep;
    return {
        {"rsv", 63, 23, attr::rv, "reserved"},
        {"en", 22, 22, ivb ? attr::rw_v : attr::rw, "enable: counts every UCLK cycle"},
        {"rsv", 21, 21, attr::rv, "reserved"},
        ivb ? field_def{"ov_en", 20, 20, attr::rw_v, "overflow sets GLOBAL_STATUS.ov_u_fixed"}
            : field_def{"rsv", 20, 20, attr::rv, "reserved"},
        {"rsv", 19, 0, attr::rv, "reserved"},
    };
}

register_def counter(const char* name, uint32_t msr, unsigned width, reg_role role,
                     uint8_t index) {
    return {name, msr, 8, 0, role, index,
            {{"rsv", 63, static_cast<uint8_t>(width), attr::rv, "reserved"},
             {"event_count", static_cast<uint8_t>(width - 1), 0, attr::rw_v,
              "counter value, wraps at 2^" + std::to_string(width)}}};
}

}  // namespace

register_table ubox_register_table(cpu_model cpu) {
    register_table t;
    t.title = "UBox PMON MSRs";
    t.msr_space = true;
    t.regs.push_back({"U_MSR_PMON_UCLK_FIXED_CTL", 0xC08, 8, 0, reg_role::fixed_ctl, 0,
                      ubox_fixed_ctl_fields(cpu)});
    t.regs.push_back(counter("U_MSR_PMON_UCLK_FIXED_CTR", 0xC09, 48, reg_role::fixed_ctr, 0));
    t.regs.push_back({"U_MSR_PMON_CTL0", 0xC10, 8, 0, reg_role::ctl, 0, ubox_ctl_fields(cpu)});
    t.regs.push_back({"U_MSR_PMON_CTL1", 0xC11, 8, 0, reg_role::ctl, 1, ubox_ctl_fields(cpu)});
    t.regs.push_back(counter("U_MSR_PMON_CTR0", 0xC16, 44, reg_role::ctr, 0));
    t.regs.push_back(counter("U_MSR_PMON_CTR1", 0xC17, 44, reg_role::ctr, 1));
    if (cpu == cpu_model::snb_ep) return t;

    t.regs.push_back({"U_MSR_PMON_BOX_STATUS", 0xC15, 8, 0, reg_role::box_status, 0,
                      {{"rsv", 63, 2, attr::rv, "reserved"},
                       {"ov", 1, 0, attr::rw1c, "counter i overflowed with ov_en"}}});
    t.regs.push_back({"U_MSR_PMON_GLOBAL_CTL", 0xC00, 8, 0, reg_role::global_ctl, 0,
                      {{"rsv", 63, 32, attr::rv, "reserved"},
                       {"frz_all", 31, 31, attr::wo, "assert the global freeze"},
                       {"wk_on_pmi", 30, 30, attr::rw, "wake sleeping cores before a PMI (stored)"},
                       {"unfrz_all", 29, 29, attr::wo, "release the global freeze"},
                       {"rsv", 28, 15, attr::rv, "reserved"},
                       {"pmi_core_sel", 14, 0, attr::rw, "bit n: send the PMI to core n"}}});
    t.regs.push_back({"U_MSR_PMON_GLOBAL_STATUS", 0xC01, 8, 0, reg_role::global_status, 0,
                      {{"rsv", 63, 27, attr::rv, "reserved"},
                       {"ov_rp", 26, 26, attr::rw1c, "R2PCIe overflowed"},
                       {"ov_rq1", 25, 25, attr::rw1c, "R3QPI link 1 (not modelled)"},
                       {"ov_rq0", 24, 24, attr::rw1c, "R3QPI link 0 (not modelled)"},
                       {"ov_q1", 23, 23, attr::rw1c, "QPI port 1 overflowed"},
                       {"ov_q0", 22, 22, attr::rw1c, "QPI port 0 overflowed"},
                       {"ov_m1", 21, 21, attr::rw1c, "iMC 1 (not modelled)"},
                       {"ov_m0", 20, 20, attr::rw1c, "iMC 0 (not modelled)"},
                       {"ov_h1", 19, 19, attr::rw1c, "HA 1 (not modelled)"},
                       {"ov_h0", 18, 18, attr::rw1c, "HA 0 (not modelled)"},
                       {"ov_c", 17, 3, attr::rw1c, "CBo k at bit 3+k (not modelled)"},
                       {"ov_p", 2, 2, attr::rw1c, "PCU (not modelled)"},
                       {"ov_u", 1, 1, attr::rw1c, "a UBox general counter overflowed"},
                       {"ov_u_fixed", 0, 0, attr::rw1c, "the UBox fixed counter overflowed"}}});
    t.regs.push_back({"U_MSR_PMON_GLOBAL_CONFIG", 0xC06, 8, 0, reg_role::global_config, 0,
                      {{"rsv", 63, 32, attr::rv, "reserved"},
                       {"config", 31, 0, attr::rw, "undocumented; stored without effect"}}});
    return t;
}

}  // namespace pmonsim
