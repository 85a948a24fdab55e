// One PMON box as a SystemC module around box_core (UBox general counters,
// UBox fixed counter, R2PCIe, or a QPI port with its link and filter).
//
// Freeze and overflow (329468-002 §2.1.1): when an ov_en counter carries out
// while `armed` (its GLOBAL_STATUS bit is clear) the box hands the message to
// the UBox's global control at once (set_message_sink), counts it on `ov_msg`
// for observers and waveforms, freezes itself from the next cycle, and
// obeys `global_freeze` from the UBox; `unfreeze_epoch` changes on every
// unfrz_all and releases that early self-freeze. The box has no clocked
// process: it wakes only at a predicted overflow message or a signal change.
#pragma once
#include <functional>
#include <memory>
#include <systemc>

#include "core/box_core.h"
#include "core/qpi_link.h"
#include "sc/time_util.h"

namespace pmonsim {

class box_module : public sc_core::sc_module {
public:
    sc_core::sc_in<bool> global_freeze{"global_freeze"};
    sc_core::sc_in<unsigned> unfreeze_epoch{"unfreeze_epoch"};
    sc_core::sc_in<bool> armed{"armed"};
    sc_core::sc_out<unsigned> ov_msg{"ov_msg"};

    box_module(sc_core::sc_module_name name, box_spec spec, clock_domain clock,
               diagnostic_sink* diags, unsigned socket);

    box_core& core() { return core_; }
    const box_core& core() const { return core_; }
    qpi_link* link() { return link_.get(); }

    // Register access at the current simulation time.
    uint64_t read(const register_def& r, uint64_t mask);
    void write(const register_def& r, uint64_t value, uint64_t mask);

    // Event inputs, in the box's clock. Cycles must not lie in the past.
    void post_run(cycle_t from, uint64_t n, unsigned input, uint32_t value);
    cycle_t post_packet(qpi_dir dir, cycle_t at, const qpi_packet& p);
    // The first cycle of this box that starts at or after the current time.
    cycle_t now_cycle() const;

    // Where overflow messages go (the socket's global control). The sink
    // says whether the message stops this box from the next cycle.
    void set_message_sink(std::function<bool()> sink) { sink_ = std::move(sink); }
    // Looks again for the next message after an outside change to the
    // box's counting (a global enable).
    void rearm() { reschedule(); }

    // Bring the box up to the current time (handling a due message). A
    // replay posts many records at one simulation time: after the first the
    // box is already there (it never moves back), so that case is inline.
    void sync() {
        if (now_ps() != synced_at_) sync_to_now();
    }
    uint64_t messages() const { return messages_; }

    // Many posts at one simulation time (a replay's batch): begin_posts()
    // syncs, then records go straight to core() or link(), and end_posts()
    // schedules the next wake once, which post_run()/post_packet() do after
    // every record. Nothing may run in between: simulated time must not move.
    void begin_posts() { sync(); }
    void end_posts() { reschedule(); }

private:
    void on_signal();
    void sync_to_now();
    void reschedule();

    box_core core_;
    std::unique_ptr<qpi_link> link_;
    sc_core::sc_event wake_;
    bool self_frozen_ = false;
    uint64_t messages_ = 0;
    time_ps synced_at_ = ~time_ps{0};
    bool wake_pending_ = false;  // may be stale true after the wake fired
    std::function<bool()> sink_;
};

}  // namespace pmonsim
