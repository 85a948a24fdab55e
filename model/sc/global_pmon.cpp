#include "sc/global_pmon.h"

#include "sc/time_util.h"

namespace pmonsim {

global_pmon::global_pmon(sc_core::sc_module_name name, std::vector<int> bits,
                         std::vector<std::string> names, clock_domain uclk, unsigned latency,
                         bool start_frozen, diagnostic_sink* diags, unsigned socket)
    : sc_module(name), armed("armed", bits.size()),
      bits_(std::move(bits)), names_(std::move(names)), uclk_(uclk),
      latency_(latency), diags_(diags), socket_(socket), freeze_(start_frozen),
      freeze_out_(start_frozen), armed_out_(bits_.size(), true) {
    SC_HAS_PROCESS(global_pmon);
    SC_METHOD(on_distribute);
    sensitive << distribute_;
    dont_initialize();
    SC_METHOD(on_pmi_end);
    sensitive << pmi_end_;
    dont_initialize();
    SC_METHOD(drive);
    sensitive << drive_;
    dont_initialize();
}

void global_pmon::diag(const register_def& r, uint64_t value, const std::string& why) {
    if (!diags_) return;
    const time_ps t = now_ps();
    diags_->report({uclk_.cycles_before(t), t, socket_, "ubox", r.name, value, why});
}

void global_pmon::overflow(size_t b) {
    const time_ps t = now_ps();
    if (bits_.at(b) < 0 || (status_ >> bits_[b]) & 1u) return;  // no new freeze or PMI
    status_ |= 1u << bits_[b];
    armed_out_[b] = false;
    if (!freeze_) {
        freeze_ = true;
        ++freezes_;
        // Every other box stops `latency` UCLK cycles after the carry.
        const time_ps at = uclk_.cycle_start(uclk_.cycles_before(t) + latency_);
        distribute_.notify(from_ps(at - t));
    }
    const uint32_t cores = static_cast<uint32_t>(global_ctl_bits::pmi_core_sel.get(ctl_));
    if (cores) {
        for (unsigned c = 0; c < global_ctl_bits::pmi_core_sel.width(); ++c)
            if (cores & (1u << c)) ++pmi_count_[c];
        pmi_mask_ = cores;  // the line stays up for a UCLK cycle after the latest PMI
        pmi_end_time_ = uclk_.cycle_start(uclk_.cycles_before(t) + 1);
        pmi_end_.notify(from_ps(pmi_end_time_ - t));
    }
    drive_.notify(sc_core::SC_ZERO_TIME);
}

void global_pmon::drive() {
    global_freeze.write(freeze_out_);
    unfreeze_epoch.write(epoch_);
    pmi.write(pmi_mask_);
    for (size_t b = 0; b < armed.size(); ++b) armed[b].write(armed_out_[b]);
}

void global_pmon::on_distribute() {
    if (!freeze_) return;
    freeze_out_ = true;
    drive_.notify(sc_core::SC_ZERO_TIME);
}

void global_pmon::on_pmi_end() {
    const time_ps t = now_ps();
    if (t < pmi_end_time_) {  // a later PMI extended the pulse
        pmi_end_.notify(from_ps(pmi_end_time_ - t));
        return;
    }
    pmi_mask_ = 0;
    drive_.notify(sc_core::SC_ZERO_TIME);
}

uint64_t global_pmon::read(const register_def& r) {
    switch (r.role) {
        case reg_role::global_ctl: return ctl_;
        case reg_role::global_status: return status_;
        case reg_role::global_config: return config_;
        default: return 0;
    }
}

void global_pmon::write(const register_def& r, uint64_t value, uint64_t mask) {
    for (auto& why : write_problems(r, value, mask)) diag(r, value, why);
    switch (r.role) {
        case reg_role::global_ctl: {
            ctl_ = static_cast<uint32_t>(merge_write(r, ctl_, value, mask));
            const uint64_t p = pulses_of(r, value, mask);
            const bool frz = global_ctl_bits::frz_all.test(p), unfrz = global_ctl_bits::unfrz_all.test(p);
            if (frz && unfrz) diag(r, value, "frz_all and unfrz_all in one write: frz_all wins");
            if (frz) {
                if (!freeze_) ++freezes_;
                freeze_ = true;
                distribute_.cancel();
                freeze_out_ = true;
            } else if (unfrz) {
                freeze_ = false;
                distribute_.cancel();
                freeze_out_ = false;
                ++epoch_;
            }
            drive_.notify(sc_core::SC_ZERO_TIME);
            break;
        }
        case reg_role::global_status: {
            const uint32_t cleared = static_cast<uint32_t>(clears_of(r, value, mask)) & status_;
            status_ &= ~cleared;
            for (size_t b = 0; b < bits_.size(); ++b)
                if (bits_[b] >= 0 && (cleared >> bits_[b]) & 1u) armed_out_[b] = true;
            drive_.notify(sc_core::SC_ZERO_TIME);
            break;
        }
        case reg_role::global_config:
            config_ = static_cast<uint32_t>(merge_write(r, config_, value, mask));
            break;
        default:
            break;
    }
}

}  // namespace pmonsim
