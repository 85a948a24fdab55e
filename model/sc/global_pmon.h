// A socket's global PMON control, as the CPU's descriptor names it:
// - ubox_freeze (IVB-EP; 329468-002 §2.1.1-2.1.4, Tables 2-2/2-3): the UBox's
//   U_MSR_PMON_GLOBAL_CTL/STATUS/CONFIG, the global freeze, and the PMI to
//   the cores in pmi_core_sel;
// - uncore_global_ctrl (Nehalem-EP/Westmere-EP; SDM Vol. 3B 18.8.2.1):
//   MSR_UNCORE_PERF_GLOBAL_CTRL/STATUS/OVF_CTRL. EN_PCn/EN_FC0 gate each
//   counter; OVF_PCn/OVF_FC0 are the boxes' own status bits; a PMI-enabled
//   overflow sets OVF_PMI (the boxes' shared global bit), raises a PMI to the
//   cores in EN_PMI_CORE and, with PMI_FRZ, clears EN_PCn and EN_FC0 when
//   the freeze reaches the boxes (the sender stops from the next cycle);
// - none (SNB-EP): no registers, and nothing ever messages it.
// Boxes deliver overflow messages by calling
// overflow() at the instant they happen (a signal would arrive a delta cycle
// late, and a register access at that same instant would miss it); the first
// message from a box whose GLOBAL_STATUS bit is clear sets that bit, asserts
// the global freeze (reaching every box `latency` UCLK cycles later; the sender
// has already stopped itself) and raises a PMI.
#pragma once
#include <systemc>
#include <vector>

#include "desc/clock.h"
#include "core/diagnostics.h"
#include "sc/box_module.h"
#include "tables/register_table.h"

namespace pmonsim {

class global_pmon : public sc_core::sc_module {
public:
    sc_core::sc_out<bool> global_freeze{"global_freeze"};
    sc_core::sc_out<unsigned> unfreeze_epoch{"unfreeze_epoch"};
    sc_core::sc_vector<sc_core::sc_out<bool>> armed;
    sc_core::sc_out<uint32_t> pmi{"pmi"};  // cores receiving a PMI, for one UCLK cycle

    // `bits[b]` is box b's GLOBAL_STATUS bit (-1: none); `names[b]` its name.
    global_pmon(sc_core::sc_module_name name, global_control mode, std::vector<int> bits,
                std::vector<std::string> names, clock_domain uclk, unsigned latency, bool start_frozen,
                diagnostic_sink* diags, unsigned socket);
    // The boxes, in the order of `bits` (uncore_global_ctrl reads and
    // gates them).
    void attach(std::vector<box_module*> boxes);

    // An overflow message from box b, at the current time. Returns whether
    // the sender stops itself from the next cycle (the freeze's first step).
    bool overflow(size_t b);

    uint64_t read(const register_def& r);
    void write(const register_def& r, uint64_t value, uint64_t mask);

    bool frozen() const { return freeze_; }
    uint64_t status() const;  // GLOBAL_STATUS as software reads it
    uint64_t ctl() const { return ctl_; }
    uint64_t pmi_count(unsigned core) const { return core < 32 ? pmi_count_[core] : 0; }
    uint64_t freezes() const { return freezes_; }

private:
    void on_distribute();
    void on_pmi_end();
    void drive();
    void diag(const register_def& r, uint64_t value, const std::string& why);
    uint32_t pmi_cores() const;
    // uncore_global_ctrl: EN_PCn and EN_FC0 to the boxes' counter gates.
    void apply_enables();
    uint64_t uncore_status() const;
    uint64_t status_sets() const;
    void clear_uncore_status(uint64_t bits);

    global_control mode_;
    std::vector<box_module*> boxes_;
    std::vector<int> bits_;
    std::vector<std::string> names_;
    clock_domain uclk_;
    unsigned latency_;
    diagnostic_sink* diags_;
    unsigned socket_;

    uint64_t ctl_ = 0, status_ = 0, config_ = 0;
    uint64_t own_sets_ = 0, sets_at_clear_ = 0;  // status bits set (CHG)
    bool freeze_ = false;
    unsigned epoch_ = 0;
    uint64_t freezes_ = 0;
    uint64_t pmi_count_[32] = {};
    sc_core::sc_event distribute_, pmi_end_;
    // What the outputs should carry. Only drive() writes the signals, so
    // several sources acting in one delta cycle (an overflow, a register
    // write, the end of a PMI pulse) never make two drivers.
    sc_core::sc_event drive_;
    bool freeze_out_ = false;
    uint32_t pmi_mask_ = 0;
    time_ps pmi_end_time_ = 0;
    std::vector<bool> armed_out_;
};

}  // namespace pmonsim
