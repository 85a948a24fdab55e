#include "sc/box_module.h"

#include <algorithm>

#include "sc/time_util.h"

namespace pmonsim {

box_module::box_module(sc_core::sc_module_name name, box_spec spec, clock_domain clock,
                       diagnostic_sink* diags, unsigned socket)
    : sc_module(name), core_(std::move(spec), clock, diags, socket) {
    if (core_.spec().kind == box_kind::qpi) link_ = std::make_unique<qpi_link>(core_);
    SC_HAS_PROCESS(box_module);
    SC_METHOD(on_signal);
    sensitive << wake_ << global_freeze << unfreeze_epoch << armed;
}

cycle_t box_module::now_cycle() const { return core_.clock().cycles_before(now_ps()); }

void box_module::sync_to_now() {
    const time_ps t = now_ps();
    synced_at_ = t;
    while (auto m = core_.sync(t, true)) {
        (void)m;
        ++messages_;
        ov_msg.write(static_cast<unsigned>(messages_));
        // The message sets our GLOBAL_STATUS bit; where it also asserts the
        // global freeze, this box stops from the cycle after its carry,
        // before the freeze reaches the others.
        core_.set_armed(false);
        if (!sink_ || sink_()) {
            self_frozen_ = true;
            core_.set_global_freeze(true, t);
        }
    }
}

void box_module::on_signal() {
    sync();
    const time_ps t = now_ps();
    if (unfreeze_epoch.event()) self_frozen_ = false;
    if (armed.event()) core_.set_armed(armed.read());
    core_.set_global_freeze(global_freeze.read() || self_frozen_, t);
    reschedule();
}

void box_module::reschedule() {
    // Runs after every posted input: without a counter that can raise a
    // message there is nothing to predict (and usually nothing to cancel).
    if (!core_.may_message()) {
        if (wake_pending_) wake_.cancel();
        wake_pending_ = false;
        return;
    }
    wake_.cancel();
    wake_pending_ = false;
    // The exact prediction walks every pending input, after every post. While
    // no message can come within kExactWindow cycles (a bound), wake then
    // instead, to look again.
    constexpr cycle_t kExactWindow = 4096, kFarthest = cycle_t{1} << 40;
    const cycle_t now = core_.cycle(), horizon = core_.message_horizon();
    cycle_t wake_at;
    if (horizon > now + kExactWindow) {
        wake_at = std::min(horizon, now + kFarthest);
    } else if (auto c = core_.predict_message()) {
        wake_at = *c + 1;
    } else {
        return;
    }
    const time_ps t = now_ps();
    wake_.notify(from_ps(std::max(core_.clock().cycle_start(wake_at), t) - t));
    wake_pending_ = true;
}

uint64_t box_module::read(const register_def& r, uint64_t mask) {
    sync();
    return core_.read_reg(r, mask, now_ps());
}

void box_module::write(const register_def& r, uint64_t value, uint64_t mask) {
    sync();
    core_.write_reg(r, value, mask, now_ps());
    reschedule();
}

void box_module::post_run(cycle_t from, uint64_t n, unsigned input, uint32_t value) {
    sync();
    core_.post_run(from, n, input, value);
    reschedule();
}

cycle_t box_module::post_packet(qpi_dir dir, cycle_t at, const qpi_packet& p) {
    if (!link_) throw std::logic_error(std::string(name()) + " is not a QPI port");
    sync();
    const cycle_t c = link_->post_packet(dir, at, p);
    reschedule();
    return c;
}

}  // namespace pmonsim
