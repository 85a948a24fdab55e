// The per-cycle reference of one PMON box: the simplest code that is obviously
// right, ticked one cycle at a time, with its own decoding of the control
// registers straight from DECISIONS.md ("Counter control", "Freeze and
// overflow"). The differential tests drive it and box_core with the same
// random stimulus and compare every counter and status bit.
#pragma once
#include <cstdint>
#include <vector>

#include "core/box_core.h"

namespace pmonsim::reference {

struct ref_counter {
    uint64_t value = 0;
    uint32_t ctl = 0;
    bool prev = false;
    uint64_t wraps = 0;
};

class reference_box {
public:
    // (clock: the box's, for the counters outside PMON, which count TSC ticks.)
    explicit reference_box(const box_spec& spec, clock_domain clock = clock_domain())
        : spec_(spec), clock_(clock), ctr_(spec.counters) {}

    // One cycle with the given per-input increments and CTO header matches.
    // Returns true if an overflow message was raised in this cycle.
    bool tick(const std::vector<uint64_t>& inputs, uint32_t cto_matches = 0) {
        bool message = false;
        const bool frozen = box_frozen() || global_freeze;
        for (unsigned i = 0; i < ctr_.size(); ++i) {
            ref_counter& c = ctr_[i];
            if (spec_.is_free(i)) {  // the PCU's residency: the TSC ticks of cycles its state holds a core
                const int in = spec_.free_inputs[i - static_cast<unsigned>(spec_.free_first)];
                const bool hit = inputs[static_cast<unsigned>(in)] != 0;
                c.prev = hit;
                const uint64_t ticks = ticks_at(clock_, cycle_ + 1, spec_.free_rate_hz) - ticks_at(clock_, cycle_, spec_.free_rate_hz);
                for (uint64_t k = 0; hit && k < ticks; ++k)
                    if (++c.value == 0) c.wraps += 1;  // 64 bits
                continue;
            }
            const bool en = en_bit(c.ctl) && ((gate >> i) & 1u);
            if (!en || frozen) continue;  // edge state holds
            uint32_t inc;
            if (!selected_increment(i, inputs, cto_matches, inc)) continue;
            const uint32_t thresh = (c.ctl >> 24) & ((1u << spec_.thresh_bits) - 1);
            bool invert = spec_.has_invert && ((c.ctl >> 23) & 1);
            bool edge = (c.ctl >> 18) & 1;
            if (spec_.occupancy && (c.ctl & 0x80)) {  // the PCU's occupancy events: bits 30 and 31
                invert = (c.ctl >> 30) & 1;
                edge = (c.ctl >> 31) & 1;
            }
            uint64_t add;
            if (thresh == 0) {
                add = inc;
            } else {
                const bool hit = invert ? inc < thresh : inc >= thresh;
                add = edge ? (hit && !c.prev) : hit;
                c.prev = hit;
            }
            // Add one unit at a time: carries are then impossible to miscount.
            for (uint64_t k = 0; k < add; ++k) {
                c.value += 1;
                if (c.value == (1ull << spec_.width)) {
                    c.value = 0;
                    c.wraps += 1;
                    const bool ov_en = spec_.has_ov_en && ov_en_bit(c.ctl);
                    if (spec_.has_box_status && (ov_en || spec_.status_on_any_carry)) status |= 1u << status_bit(i);
                    if (ov_en && armed && spec_.global_bit >= 0) message = true;
                }
            }
        }
        ++cycle_;
        return message;
    }

    void write_ctl(unsigned i, uint32_t value) {
        ref_counter& c = ctr_[i];
        // Bit 17 clears the counter, except in a fixed CTL, on Nehalem
        // (OCC_CTR_RST there) and on the SNB-EP iMC (reserved). A fixed
        // counter inside a box (the iMC's DCLK counter) clears with bit 19.
        if (static_cast<int>(i) == spec_.fixed_index) {
            if ((value >> 19) & 1) c.value = 0;
        } else if (((value >> 17) & 1) && !spec_.fixed && spec_.kind != box_kind::uncore && spec_.has_rst) {
            c.value = 0;
        }
        c.ctl = value & ctl_storable(i);
        c.prev = false;
    }
    void write_ctr(unsigned i, uint64_t value) {
        ctr_[i].value = spec_.is_free(i) ? value : value & ((1ull << spec_.width) - 1);
    }
    void write_box_ctl(uint32_t value) {
        // The SNB-EP iMC's BOX_CTL has no reset bits.
        if (describe(spec_.cpu).need(spec_.kind).box_ctl == box_ctl_style::frz_en_no_resets) value &= ~3u;
        if (value & 1)
            for (auto& c : ctr_) { c.ctl = 0; c.prev = false; }
        if (value & 2)
            for (unsigned i = 0; i < ctr_.size(); ++i)
                if (!spec_.is_free(i)) ctr_[i].value = 0;
        box_ctl = value & ~3u;
    }
    void clear_status(uint32_t bits) { status &= ~bits; }

    const ref_counter& counter(unsigned i) const { return ctr_[i]; }

    uint32_t box_ctl = 0;
    uint32_t status = 0;
    bool global_freeze = false;
    bool armed = true;
    uint32_t gate = ~0u;  // Nehalem's EN_PCn / EN_FC0
    uint64_t band_filter = 0;  // the PCU's PCU_MSR_PMON_BOX_FILTER
    // Qualified event-trace rows (decisions.md B14): `value` per cycle in
    // [from, from + len) on catalog input `base`, for requests with `q`; and
    // the registers that filter them, by index (CBo: FILTER or FILTER0,
    // FILTER1; HA: ADDRMATCH0, ADDRMATCH1, OPCODEMATCH), as stored.
    struct qualified_run {
        uint64_t from, len;
        unsigned base;
        request_quals q;
        uint32_t value;
    };
    std::vector<qualified_run> qualified;
    uint64_t filter[3] = {};

private:
    // Enable and overflow-message bits: 22 and 20, but 0 (EN) and 2 (PMI) in
    // Nehalem's MSR_UNCORE_FIXED_CTR_CTRL (SDM Vol. 3B Figure 18-39).
    bool en_bit(uint32_t ctl) const {
        return spec_.kind == box_kind::uncore_fixed ? (ctl & 1u) : ((ctl >> 22) & 1u);
    }
    bool ov_en_bit(uint32_t ctl) const {
        return spec_.kind == box_kind::uncore_fixed ? ((ctl >> 2) & 1u) : ((ctl >> 20) & 1u);
    }
    bool box_frozen() const {
        if (!spec_.has_box_ctl) return false;
        const bool frz = (box_ctl >> 8) & 1, frz_en = (box_ctl >> 16) & 1;
        return spec_.freeze_needs_frz_en ? frz && frz_en : frz;
    }
    uint32_t ctl_storable(unsigned i) const {
        const register_def* r = nullptr;
        for (const auto& reg : spec_.table.regs)
            if ((reg.role == reg_role::ctl || reg.role == reg_role::fixed_ctl) && reg.index == i) r = &reg;
        return static_cast<uint32_t>(r->stored_mask());
    }
    bool is_fixed(unsigned i) const { return spec_.fixed || static_cast<int>(i) == spec_.fixed_index; }
    // BOX_STATUS: bit 0 is a fixed counter's inside the box, the others move up.
    unsigned status_bit(unsigned i) const {
        if (spec_.fixed_index < 0) return i;
        return static_cast<int>(i) == spec_.fixed_index ? 0 : i + 1;
    }
    bool selected_increment(unsigned i, const std::vector<uint64_t>& inputs, uint32_t cto,
                            uint32_t& inc) const {
        const uint32_t ctl = ctr_[i].ctl;
        if (is_fixed(i)) { inc = 1; return true; }
        const uint8_t ev = ctl & 0xFF;
        uint8_t umask = (ctl >> 8) & 0xFF;
        if (spec_.occupancy && !(ev & 0x80)) umask = 0;  // the PCU: occ_sel only for occupancy events
        const bool ext = spec_.has_ext && ((ctl >> 21) & 1);
        if (spec_.ev_sel0_is_idle && ev == 0) return false;
        auto sel = spec_.catalog->select(ev, ext, umask);
        if (!sel.error.empty()) return false;
        if (!(spec_.catalog->events()[*sel.event].counters & (1u << i))) return false;
        inc = 0;
        if (i != 0 && spec_.mirror_code >= 0 && ev == spec_.mirror_code) {
            // COUNTER0_OCCUPANCY: counter 0's selected increment, unconditioned.
            uint32_t inc0 = 0;
            return selected_increment(0, inputs, cto, inc0) ? (inc = inc0, true) : (inc = 0, true);
        }
        for (unsigned in : sel.inputs) inc += static_cast<uint32_t>(inputs[in]);
        for (const qualified_run& r : qualified)
            if (cycle_ >= r.from && cycle_ - r.from < r.len)
                for (unsigned in : sel.inputs)
                    if (in == r.base && takes(r, ctl)) inc += r.value;
        if (spec_.kind == box_kind::qpi && ev == 0x38 && ext) inc += cto;
        // FREQ_BANDk_CYCLES: whether the frequency reaches byte k of the filter.
        const int band = spec_.catalog->events()[*sel.event].band;
        if (band >= 0) inc = inc >= ((band_filter >> (8 * band)) & 0xFF);
        return true;
    }

    // Whether a counter with control `ctl` takes a qualified row's requests,
    // from the register layouts of decisions.md B8, B7 and B14 bit by bit.
    bool takes(const qualified_run& r, uint32_t ctl) const {
        const uint8_t uses = spec_.catalog->input_filters(r.base);
        const request_quals& q = r.q;
        if (q.given == 0) return true;  // a row without attributes: what matched
        const unsigned tid = (q.given & request_field::tid) ? q.tid : 0x1F;
        auto bit = [](uint64_t v, unsigned k) { return ((v >> k) & 1) != 0; };
        bool ok = true;
        if (spec_.kind == box_kind::ha) {
            if (uses & request_field::addr)
                ok = ok && ((q.addr >> 6) & 0x3FFFFFF) == ((filter[0] >> 6) & 0x3FFFFFF) &&
                     ((q.addr >> 32) & 0x3FFF) == (filter[1] & 0x3FFF);
            if (uses & request_field::opc) ok = ok && (filter[2] & 0x3F) == q.opc;
            return ok;
        }
        const bool snb = spec_.cpu == cpu_model::snb_ep;  // one filter, or FILTER0 + FILTER1
        const uint64_t states = snb ? (filter[0] >> 18) & 0x1F : (filter[0] >> 17) & 0x3F;
        const uint64_t nids = snb ? (filter[0] >> 10) & 0xFF : filter[1] & 0xFFFF;
        const uint64_t opc = snb ? (filter[0] >> 23) & 0x1FF : (filter[1] >> 20) & 0x1FF;
        if (uses & request_field::state) ok = ok && (bit(states, q.state) || (!snb && q.state == 3 && bit(states, 5)));
        if (uses & request_field::nid) ok = ok && bit(nids, q.nid);
        if (uses & request_field::opc) ok = ok && opc == q.opc;
        if ((ctl >> 19) & 1) ok = ok && (filter[0] & 0x1F) == tid;
        return ok;
    }

    box_spec spec_;
    clock_domain clock_;
    uint64_t cycle_ = 0;  // the cycle the next tick() is
    std::vector<ref_counter> ctr_;
};

}  // namespace pmonsim::reference
