#include "desc/box_spec.h"

#include <algorithm>
#include <initializer_list>
#include <map>
#include <memory>
#include <mutex>
#include <tuple>

namespace pmonsim {

namespace {

// Only the registers of one box out of the UBox's table (which holds the
// general counters, the fixed counter and the global registers).
register_table only_roles(const register_table& t, std::initializer_list<reg_role> roles) {
    register_table out;
    out.title = t.title;
    out.msr_space = t.msr_space;
    for (const auto& r : t.regs)
        if (std::find(roles.begin(), roles.end(), r.role) != roles.end()) out.regs.push_back(r);
    return out;
}

}  // namespace

box_spec make_box_spec(box_kind kind, cpu_model cpu, unsigned unit) {
    const box_desc& d = describe(cpu).need(kind);
    box_spec s;
    s.kind = kind;
    s.cpu = cpu;
    s.counters = d.counters;
    s.width = d.width;
    s.has_invert = d.ctl.invert;
    s.has_ov_en = d.ctl.ov_en;
    s.has_ext = d.ctl.ext;
    s.has_box_status = d.box_status;
    s.status_on_any_carry = d.status_on_any_carry;
    s.global_bit = d.global_bits.at(unit);
    s.has_rst = d.ctl.rst;
    s.clock_event = d.clock_event;
    s.mirror_code = d.mirror_code;
    switch (d.clock) {
        case box_clock::uclk: s.clock_name = "UCLK"; break;
        case box_clock::qclk: s.clock_name = "QCLK"; break;
        case box_clock::dclk: s.clock_name = "DCLK"; break;
        case box_clock::pclk: s.clock_name = "PCLK"; break;
    }
    if (d.fixed_counter) {
        s.fixed_index = static_cast<int>(d.counters);
        s.counters = d.counters + 1;
    }
    switch (d.box_ctl) {
        case box_ctl_style::none: break;
        case box_ctl_style::frz_en:
        case box_ctl_style::frz_en_no_resets: s.has_box_ctl = s.freeze_needs_frz_en = true; break;
        case box_ctl_style::write1_16_17: s.has_box_ctl = true; break;
    }
    s.name = unit_name(kind, unit);  // "ubox", "qpi1", "imc5"
    switch (kind) {
        case box_kind::ubox:
            s.table = only_roles(ubox_register_table(cpu),
                                 {reg_role::ctl, reg_role::ctr, reg_role::box_status});
            s.thresh = ctl_bits::thresh5;
            s.ev_sel0_is_idle = true;
            break;
        case box_kind::ubox_fixed:
            s.table = only_roles(ubox_register_table(cpu), {reg_role::fixed_ctl, reg_role::fixed_ctr});
            s.fixed = true;
            break;
        case box_kind::r2pcie:
            s.table = r2pcie_register_table(cpu);
            break;
        case box_kind::qpi:
            s.table = qpi_pmon_register_table(cpu, unit);
            for (const auto& r : qpi_filter_register_table(cpu, unit).regs)
                if (r.role != reg_role::vendor_device) s.table.regs.push_back(r);
            s.filter = packet_filter::qpi_match_mask;
            break;
        case box_kind::uncore:
            s.table = only_roles(nhm_uncore_register_table(cpu),
                                 {reg_role::ctl, reg_role::ctr, reg_role::addr_match});
            s.has_rst = false;  // bit 17 is OCC_CTR_RST there
            s.filter = packet_filter::addr_opcode_match;
            s.gate = global_gate::uncore_general;
            break;
        case box_kind::imc:
            s.table = imc_register_table(cpu, unit);
            break;
        case box_kind::ha:
            s.table = ha_register_table(cpu, unit);
            s.requests = request_filter::ha_addr_opcode;
            break;
        case box_kind::r3qpi:
            s.table = r3qpi_register_table(cpu, unit);
            break;
        case box_kind::cbo:
            s.table = cbo_register_table(cpu, unit);
            switch (d.filters) {
                case cbo_filters::none: break;
                case cbo_filters::one_filter: s.requests = request_filter::cbo_one_filter; break;
                case cbo_filters::two_filters: s.requests = request_filter::cbo_two_filters; break;
            }
            break;
        case box_kind::irp:
            s.table = irp_register_table(cpu);
            break;
        case box_kind::pcu:
            s.table = pcu_register_table(cpu);
            s.thresh = ctl_bits::thresh5;
            break;
        case box_kind::uncore_fixed:
            s.table = only_roles(nhm_uncore_register_table(cpu), {reg_role::fixed_ctl, reg_role::fixed_ctr});
            s.fixed = true;
            s.en = nhm_bits::fixed_en;
            s.gate = global_gate::uncore_fixed;
            s.ov_en = nhm_bits::fixed_pmi;
            break;
    }
    s.occupancy = d.ctl.occupancy;
    s.thresh_bits = s.thresh.width();
    if (!s.fixed) s.catalog = &catalog_for(kind, cpu);
    if (d.residency_counters) {
        // Two more counters after the general ones: C3's, then C6's.
        const event_catalog& c = *s.catalog;
        const auto occ = c.find("POWER_STATE_OCCUPANCY");
        s.free_first = static_cast<int>(s.counters);
        s.free_rate_hz = uint64_t{describe(cpu).identity.base_mhz} * 1000000u;
        s.free_inputs[0] = static_cast<int>(*c.find_input(c.events().at(*occ).name, "CORES_C3"));
        s.free_inputs[1] = static_cast<int>(*c.find_input(c.events().at(*occ).name, "CORES_C6"));
        s.counters += 2;
    }
    return s;
}

const box_spec& spec_for(box_kind kind, cpu_model cpu, unsigned unit) {
    static std::mutex lock;
    static std::map<std::tuple<cpu_model, box_kind, unsigned>, std::unique_ptr<const box_spec>> made;
    std::lock_guard<std::mutex> guard(lock);
    auto& slot = made[{cpu, kind, unit}];
    if (!slot) slot = std::make_unique<const box_spec>(make_box_spec(kind, cpu, unit));
    return *slot;
}

}  // namespace pmonsim
