// The UBox's global PMON control on IVB-EP (329468-002 §2.1.1-2.1.4, Tables
// 2-2/2-3): U_MSR_PMON_GLOBAL_CTL/STATUS/CONFIG, the global freeze, and the PMI
// to the cores in pmi_core_sel. Boxes deliver overflow messages by calling
// overflow() at the instant they happen (a signal would arrive a delta cycle
// late, and a register access at that same instant would miss it); the first
// message from a box whose GLOBAL_STATUS bit is clear sets that bit, asserts
// the global freeze (reaching every box `latency` UCLK cycles later; the sender
// has already stopped itself) and raises a PMI. On SNB-EP the module exists but
// has no registers and nothing ever messages it.
#pragma once
#include <systemc>
#include <vector>

#include "desc/clock.h"
#include "core/diagnostics.h"
#include "tables/register_table.h"

namespace pmonsim {

class global_pmon : public sc_core::sc_module {
public:
    sc_core::sc_out<bool> global_freeze{"global_freeze"};
    sc_core::sc_out<unsigned> unfreeze_epoch{"unfreeze_epoch"};
    sc_core::sc_vector<sc_core::sc_out<bool>> armed;
    sc_core::sc_out<uint32_t> pmi{"pmi"};  // cores receiving a PMI, for one UCLK cycle

    // `bits[b]` is box b's GLOBAL_STATUS bit (-1: none); `names[b]` its name.
    global_pmon(sc_core::sc_module_name name, std::vector<int> bits, std::vector<std::string> names,
                clock_domain uclk, unsigned latency, bool start_frozen, diagnostic_sink* diags,
                unsigned socket);

    // An overflow message from box b, at the current time.
    void overflow(size_t b);

    uint64_t read(const register_def& r);
    void write(const register_def& r, uint64_t value, uint64_t mask);

    bool frozen() const { return freeze_; }
    uint32_t status() const { return status_; }
    uint32_t ctl() const { return ctl_; }
    uint64_t pmi_count(unsigned core) const { return core < 32 ? pmi_count_[core] : 0; }
    uint64_t freezes() const { return freezes_; }

private:
    void on_distribute();
    void on_pmi_end();
    void drive();
    void diag(const register_def& r, uint64_t value, const std::string& why);

    std::vector<int> bits_;
    std::vector<std::string> names_;
    clock_domain uclk_;
    unsigned latency_;
    diagnostic_sink* diags_;
    unsigned socket_;

    uint32_t ctl_ = 0, status_ = 0, config_ = 0;
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
