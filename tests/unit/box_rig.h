// A box_core with its own diagnostic sink, for the decision tests: registers
// addressed by their short names, accesses timed by cycle.
#pragma once
#include <cstdint>
#include <stdexcept>
#include <string>

#include "core/box_core.h"
#include "desc/clock.h"

namespace pmonsim::test {

// One box with its own diagnostic sink, plus helpers that address registers
// by name and time accesses by cycle: an access "before cycle k" happens at
// cycle_start(k), which DECISIONS.md places between cycles k-1 and k.
class rig {
public:
    rig(box_kind kind, cpu_model cpu, unsigned unit = 0, uint64_t hz = 1000000000ull)
        : box(make_box_spec(kind, cpu, unit), clock_domain(hz), &diags) {}

    diagnostic_sink diags;  // declared first: outlives `box`
    box_core box;

    const register_def& reg(const std::string& name) const {
        const register_def* r = box.spec().table.find(name);
        if (!r) throw std::runtime_error("no register " + name);
        return *r;
    }
    // Register names of this box: "CTL0" -> "R2_PCI_PMON_CTL0" etc.
    std::string full_name(const std::string& short_name) const {
        switch (box.spec().kind) {
            case box_kind::ubox: return "U_MSR_PMON_" + short_name;
            case box_kind::ubox_fixed: return "U_MSR_PMON_UCLK_FIXED_" + short_name;
            case box_kind::r2pcie: return "R2_PCI_PMON_" + short_name;
            case box_kind::qpi:  // PMON and filter registers share the prefix
                return "Q_P" + box.spec().name.substr(3) + "_PCI_PMON_" + short_name;  // "qpi1" -> "1"
            case box_kind::uncore:  // "CTL3" -> PERFEVTSEL3, "CTR3" -> PMC3
                return (short_name.compare(0, 3, "CTL") == 0 ? "MSR_UNCORE_PERFEVTSEL" : "MSR_UNCORE_PMC") +
                       short_name.substr(3);
            case box_kind::uncore_fixed:
                return short_name == "CTL" ? "MSR_UNCORE_FIXED_CTR_CTRL" : "MSR_UNCORE_FIXED_CTR0";
            case box_kind::imc: {  // "imc5" -> MC1_CH1_PCI_PMON_
                const unsigned u = static_cast<unsigned>(std::stoul(box.spec().name.substr(3)));
                return "MC" + std::to_string(u / 4) + "_CH" + std::to_string(u % 4) + "_PCI_PMON_" + short_name;
            }
            case box_kind::ha:  // "ha1" -> HA1_PCI_PMON_
                return "HA" + box.spec().name.substr(2) + "_PCI_PMON_" + short_name;
            case box_kind::r3qpi:  // "r3qpi2" -> R3_L2_PCI_PMON_
                return "R3_L" + box.spec().name.substr(5) + "_PCI_PMON_" + short_name;
            case box_kind::cbo:  // "cbo7" -> C7_MSR_PMON_
                return "C" + box.spec().name.substr(3) + "_MSR_PMON_" + short_name;
            case box_kind::irp: return "IRP_PCI_PMON_" + short_name;
            case box_kind::pcu:  // "CORE_C3_CTR" -> PCU_MSR_CORE_C3_CTR
                return (short_name.compare(0, 5, "CORE_") == 0 ? "PCU_MSR_" : "PCU_MSR_PMON_") + short_name;
        }
        return short_name;
    }
    time_ps at(cycle_t k) const { return box.clock().cycle_start(k); }

    void write(const std::string& r, uint64_t v, cycle_t before) { write_t(r, v, at(before)); }
    void write_t(const std::string& r, uint64_t v, time_ps t) {
        const register_def& d = reg(full_name(r));
        box.write_reg(d, v, d.size == 8 ? ~0ull : 0xFFFFFFFFull, t);
    }
    uint64_t read(const std::string& r, cycle_t before) { return read_t(r, at(before)); }
    uint64_t read_t(const std::string& r, time_ps t) {
        const register_def& d = reg(full_name(r));
        return box.read_reg(d, d.size == 8 ? ~0ull : 0xFFFFFFFFull, t);
    }

    unsigned input(const std::string& event, const std::string& sub = "") const {
        auto i = box.spec().catalog->find_input(event, sub);
        if (!i) throw std::runtime_error("no input " + event + "." + sub);
        return *i;
    }
    // Drive every input of the catalog with 1 during [from, from + n).
    void drive_all_inputs(cycle_t from, uint64_t n) {
        const event_catalog& cat = *box.spec().catalog;
        for (unsigned i = 0; i < cat.input_count(); ++i)
            if (cat.events()[cat.input(i).event].name != "CLOCKTICKS")  // driven by the box
                box.post_run(from, n, i, 1);
    }
    size_t diag_count() const { return diags.records().size(); }
    const diagnostic& last_diag() const { return diags.records().back(); }
};

}  // namespace pmonsim::test
