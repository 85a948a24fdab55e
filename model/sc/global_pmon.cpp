#include "sc/global_pmon.h"

#include "sc/time_util.h"

namespace pmonsim {

global_pmon::global_pmon(sc_core::sc_module_name name, global_control mode, std::vector<int> bits,
                         std::vector<std::string> names, clock_domain uclk, unsigned latency,
                         bool start_frozen, diagnostic_sink* diags, unsigned socket)
    : sc_module(name), armed("armed", bits.size()), mode_(mode),
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

void global_pmon::attach(std::vector<box_module*> boxes) {
    boxes_ = std::move(boxes);
    switch (mode_) {
        case global_control::none:
        case global_control::ubox_freeze: break;
        case global_control::uncore_global_ctrl:  // GLOBAL_CTRL resets to 0: nothing may count
            for (box_module* b : boxes_) b->core().set_counter_gate(0, 0);
            break;
    }
}

void global_pmon::diag(const register_def& r, uint64_t value, const std::string& why) {
    if (!diags_) return;
    const time_ps t = now_ps();
    const char* owner = "ubox";
    switch (mode_) {
        case global_control::none:
        case global_control::ubox_freeze: break;
        case global_control::uncore_global_ctrl: owner = "uncore"; break;
    }
    diags_->report({uclk_.cycles_before(t), t, socket_, owner, r.name, value, why});
}

uint32_t global_pmon::pmi_cores() const {
    switch (mode_) {
        case global_control::none: return 0;
        case global_control::ubox_freeze: return static_cast<uint32_t>(global_ctl_bits::pmi_core_sel.get(ctl_));
        case global_control::uncore_global_ctrl: return static_cast<uint32_t>(nhm_bits::en_pmi_core.get(ctl_));
    }
    return 0;
}

bool global_pmon::overflow(size_t b) {
    const time_ps t = now_ps();
    bool freezes = true;
    switch (mode_) {
        case global_control::none:
        case global_control::ubox_freeze: break;
        case global_control::uncore_global_ctrl: freezes = nhm_bits::pmi_frz.test(ctl_); break;
    }
    if (bits_.at(b) < 0 || (status_ >> bits_[b]) & 1u) return freezes;  // no new freeze or PMI
    status_ |= uint64_t{1} << bits_[b];
    ++own_sets_;
    for (size_t x = 0; x < bits_.size(); ++x)  // (Nehalem's boxes share OVF_PMI)
        if (bits_[x] == bits_[b]) armed_out_[x] = false;
    if (freezes && !freeze_) {
        freeze_ = true;
        ++freezes_;
        // Every other box stops `latency` UCLK cycles after the carry.
        const time_ps at = uclk_.cycle_start(uclk_.cycles_before(t) + latency_);
        distribute_.notify(from_ps(at - t));
    }
    if (const uint32_t cores = pmi_cores()) {
        for (unsigned c = 0; c < 32; ++c)
            if (cores & (1u << c)) ++pmi_count_[c];
        pmi_mask_ = cores;  // the line stays up for a UCLK cycle after the latest PMI
        pmi_end_time_ = uclk_.cycle_start(uclk_.cycles_before(t) + 1);
        pmi_end_.notify(from_ps(pmi_end_time_ - t));
    }
    drive_.notify(sc_core::SC_ZERO_TIME);
    return freezes;
}

void global_pmon::drive() {
    global_freeze.write(freeze_out_);
    unfreeze_epoch.write(epoch_);
    pmi.write(pmi_mask_);
    for (size_t b = 0; b < armed.size(); ++b) armed[b].write(armed_out_[b]);
}

void global_pmon::on_distribute() {
    if (!freeze_) return;
    switch (mode_) {
        case global_control::none:
        case global_control::ubox_freeze:
            freeze_out_ = true;
            break;
        case global_control::uncore_global_ctrl:
            // PMI_FRZ: the enables clear, which stops every counter; the
            // sender's own stop is released (the cleared enables hold it).
            for (auto& b : boxes_) b->sync();
            ctl_ &= ~(nhm_bits::en_pc.mask() | nhm_bits::en_fc0.mask());
            apply_enables();
            freeze_ = false;
            ++epoch_;
            break;
    }
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

void global_pmon::apply_enables() {
    const time_ps t = now_ps();
    for (box_module* b : boxes_) {
        b->sync();  // (a message due now goes out under the old enables)
        box_core& c = b->core();
        switch (c.spec().gate) {
            case global_gate::uncore_general:
                c.set_counter_gate(static_cast<uint32_t>(nhm_bits::en_pc.get(ctl_)), t);
                break;
            case global_gate::uncore_fixed: c.set_counter_gate(nhm_bits::en_fc0.test(ctl_) ? 1u : 0u, t); break;
            case global_gate::none: break;  // no per-counter global enables
        }
        b->rearm();
    }
}

// The boxes' status bits and the module's own (OVF_PMI, CHG). CHG stands for
// any 0-to-1 change since CLR_CHG: the boxes count theirs.
uint64_t global_pmon::uncore_status() const {
    uint64_t s = status_;
    if (status_sets() != sets_at_clear_) s |= nhm_bits::chg.mask();
    for (box_module* b : boxes_) {
        const box_core& c = b->core();
        switch (c.spec().gate) {
            case global_gate::uncore_general: s |= nhm_bits::ovf_pc.put(c.box_status()); break;
            case global_gate::uncore_fixed: s |= nhm_bits::ovf_fc0.put(c.box_status()); break;
            case global_gate::none: break;
        }
    }
    return s;
}

uint64_t global_pmon::status_sets() const {
    uint64_t n = own_sets_;
    for (box_module* b : boxes_) n += b->core().status_sets();
    return n;
}

void global_pmon::clear_uncore_status(uint64_t bits) {
    const time_ps t = now_ps();
    for (box_module* b : boxes_) {
        box_core& c = b->core();
        switch (c.spec().gate) {
            case global_gate::uncore_general: c.clear_status(static_cast<uint32_t>(nhm_bits::ovf_pc.get(bits)), t); break;
            case global_gate::uncore_fixed: c.clear_status(nhm_bits::ovf_fc0.test(bits) ? 1u : 0u, t); break;
            case global_gate::none: break;
        }
    }
    if (nhm_bits::chg.test(bits)) sets_at_clear_ = status_sets();
    const uint64_t cleared = bits & (nhm_bits::ovf_pmi.mask() | nhm_bits::chg.mask()) & status_;
    status_ &= ~cleared;
    for (size_t b = 0; b < bits_.size(); ++b)
        if (bits_[b] >= 0 && (cleared >> bits_[b]) & 1u) armed_out_[b] = true;
    drive_.notify(sc_core::SC_ZERO_TIME);
}

uint64_t global_pmon::status() const {
    switch (mode_) {
        case global_control::none:
        case global_control::ubox_freeze: return status_;
        case global_control::uncore_global_ctrl: return uncore_status();
    }
    return status_;
}

uint64_t global_pmon::read(const register_def& r) {
    switch (r.role) {
        case reg_role::global_ctl: return ctl_;
        case reg_role::global_status: return status();
        case reg_role::global_config: return config_;
        default: return 0;  // GLOBAL_OVF_CTRL reads 0
    }
}

void global_pmon::write(const register_def& r, uint64_t value, uint64_t mask) {
    for (auto& why : write_problems(r, value, mask)) diag(r, value, why);
    switch (r.role) {
        case reg_role::global_ctl: {
            ctl_ = merge_write(r, ctl_, value, mask);
            switch (mode_) {
                case global_control::none: break;
                case global_control::ubox_freeze: {
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
                    break;
                }
                case global_control::uncore_global_ctrl:
                    apply_enables();
                    break;
            }
            drive_.notify(sc_core::SC_ZERO_TIME);
            break;
        }
        case reg_role::global_status:
            switch (mode_) {
                case global_control::none:
                case global_control::ubox_freeze: {
                    const uint64_t cleared = clears_of(r, value, mask) & status_;
                    status_ &= ~cleared;
                    for (size_t b = 0; b < bits_.size(); ++b)
                        if (bits_[b] >= 0 && (cleared >> bits_[b]) & 1u) armed_out_[b] = true;
                    drive_.notify(sc_core::SC_ZERO_TIME);
                    break;
                }
                case global_control::uncore_global_ctrl:
                    diag(r, value, "GLOBAL_STATUS is read-only (clear it through GLOBAL_OVF_CTRL); nothing changed");
                    break;
            }
            break;
        case reg_role::global_ovf_ctrl:
            clear_uncore_status(pulses_of(r, value, mask));
            break;
        case reg_role::global_config:
            config_ = merge_write(r, config_, value, mask);
            break;
        default:
            break;
    }
}

}  // namespace pmonsim
