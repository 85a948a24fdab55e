// box_core: construction, control decoding, message bounds and register
// accesses (box_core.h); inputs in box_inputs.cpp, the walk in box_walk.cpp.
#include "core/box_core.h"

#include <algorithm>
#include <type_traits>
#include <cstdio>
#include <limits>
#include <stdexcept>

#include "desc/bits.h"

namespace pmonsim {

namespace {

std::string hex(uint64_t v) {
    char b[24];
    std::snprintf(b, sizeof b, "0x%llx", static_cast<unsigned long long>(v));
    return b;
}

}  // namespace

box_core::box_core(box_spec spec, clock_domain clock, diagnostic_sink* diags, unsigned socket)
    : spec_ptr_(std::make_shared<const box_spec>(std::move(spec))), spec_(*spec_ptr_), clock_(clock), diags_(diags), socket_(socket), ctr_(spec_.counters),
      streams_(std::make_shared<std::array<flit_stream, 2>>()) {
    unsigned n_inputs = spec_.catalog ? spec_.catalog->input_count() : 0;
    inputs_.assign(n_inputs, 0);
    rising_.assign(n_inputs, 0);
    uses_.assign(n_inputs, {});
    use_mask_.assign(n_inputs, 0);
    if (spec_.counters > max_box_counters)
        throw std::logic_error(spec_.name + ": more counters than the engine holds");
    switch (spec_.filter) {
        case packet_filter::none: break;
        case packet_filter::qpi_match_mask:
            if (auto e = spec_.catalog->find(static_cast<uint8_t>(spec_.cto_code), true))
                cto_input_ = static_cast<int>(*spec_.catalog->input_of(*e, -1));
            break;
        case packet_filter::addr_opcode_match: {
            // A source's sub-event is the umask bit of its home_src value.
            const auto e = spec_.catalog->find(static_cast<uint8_t>(spec_.addr_match_code), false);
            if (!e) throw std::logic_error(spec_.name + ": the catalog lacks the address/opcode match event");
            for (unsigned src = 0; src < home_src_count; ++src) {
                const auto in = spec_.catalog->input_of(*e, static_cast<int>(src));
                if (!in) throw std::logic_error(spec_.name + ": the address/opcode match event lacks a source");
                request_input_[src] = static_cast<int>(*in);
            }
            break;
        }
    }
    // CLOCKTICKS is the box's own clock: one per cycle, never from a trace.
    if (spec_.catalog)
        if (auto e = spec_.catalog->find(spec_.clock_event)) {
            clock_input_ = static_cast<int>(*spec_.catalog->input_of(*e, -1));
            push_step({0, static_cast<unsigned>(clock_input_), 1});
        }
    catalog_inputs_ = n_inputs;
    for (const auto& r : spec_.table.regs)
        if (r.role == reg_role::stored && r.index < filter_offset_.size()) filter_offset_[r.index] = r.offset;
    max_inc_.assign(n_inputs, 0);  // stays 0 for CLOCKTICKS: post_run refuses it
    for (unsigned in = 0; in < n_inputs; ++in)
        if (static_cast<int>(in) != clock_input_)
            max_inc_[in] = spec_.catalog->events()[spec_.catalog->input(in).event].max_inc;
    for (unsigned i = 0; i < ctr_.size(); ++i) decode(i);
}

// ---------------------------------------------------------------------------
// Control decoding

// A carry out of counter i sets its status bit where the box keeps one: on
// any carry, or only with ov_en.
void box_core::note_carry(unsigned i) {
    if (!spec_.has_box_status || !(spec_.status_on_any_carry || ctr_[i].ov_en)) return;
    const uint32_t bit = 1u << spec_.status_bit(i);
    if (!(status_ & bit)) ++status_sets_;
    status_ |= bit;
}

void box_core::set_counter_gate(uint32_t gate, time_ps t) {
    sync(t);
    if (gate == gate_) return;
    gate_ = gate;
    for (unsigned i = 0; i < ctr_.size(); ++i) decode(i);
    check_all_live(t);
}

void box_core::decode(unsigned i) {
    decode_ctl(i);
    decode_uses(i);
    // Counters that take counter 0's increment follow its selection.
    if (i == 0 && spec_.mirror_code >= 0)
        for (unsigned j = 1; j < ctr_.size(); ++j)
            if (!spec_.is_fixed(j) && ctl_bits::ev_sel.get(ctr_[j].ctl) == static_cast<uint64_t>(spec_.mirror_code)) {
                decode_ctl(j);
                decode_uses(j);
            }
}

void box_core::decode_uses(unsigned i) {
    // What the walk reads per segment, kept current as inputs change:
    // which counters sum each input, their summed increment, and who may
    // raise messages.
    const counter& c = ctr_[i];
    for (auto& u : uses_) u[i] = 0;
    uint64_t inc = 0;
    for (unsigned in : c.inputs) {
        ++uses_[in][i];
        inc += inputs_[in];
    }
    for (size_t in = 0; in < uses_.size(); ++in) {
        uint8_t m = 0;
        for (unsigned j = 0; j < max_box_counters; ++j) m |= static_cast<uint8_t>((uses_[in][j] != 0) << j);
        use_mask_[in] = m;
    }
    ginc_[i] = inc;
    ov_mask_ &= ~(1u << i);
    if (c.en && c.counts && c.ov_en) ov_mask_ |= 1u << i;
}

void box_core::decode_ctl(unsigned i) {
    counter& c = ctr_[i];
    const uint32_t v = c.ctl;
    c.en = spec_.en.test(v) && ((gate_ >> i) & 1u);
    c.ov_en = spec_.has_ov_en && spec_.ov_en.test(v);
    c.cond = {};
    c.inputs.clear();
    c.problem.clear();
    c.ignored.clear();
    c.band = -1;
    c.counts = false;
    c.diagnosed = false;
    if (spec_.is_fixed(i)) {
        c.counts = true;  // one per cycle of its clock
        return;
    }
    if (spec_.is_free(i)) {  // cycles in which its state's occupancy is not 0
        c.en = c.counts = true;
        c.cond.thresh = 1;
        c.inputs = {static_cast<unsigned>(spec_.free_inputs[i - static_cast<unsigned>(spec_.free_first)])};
        return;
    }
    c.cond.thresh = static_cast<uint32_t>(spec_.thresh.get(v));
    c.cond.invert = spec_.has_invert && ctl_bits::invert.test(v);
    c.cond.edge = ctl_bits::edge.test(v);
    const uint8_t ev = static_cast<uint8_t>(ctl_bits::ev_sel.get(v));
    uint8_t umask = static_cast<uint8_t>(ctl_bits::umask.get(v));
    const bool ext = spec_.has_ext && ctl_bits::ext.test(v);
    if (spec_.occupancy) decode_occupancy(c, ev, umask);
    if (spec_.ev_sel0_is_idle && ev == 0) return;  // "enabled but no event"
    auto sel = spec_.catalog->select(ev, ext, umask);
    if (!sel.error.empty()) {
        c.problem = sel.error;
        if (spec_.occupancy && pcu_bits::occ_event.test(ev) && umask == 0)
            c.problem = "an occupancy event (ev_sel bit 7) with occ_sel 0 selects no occupancy sub-counter";
        if (spec_.has_ext && ev == spec_.cto_code && !ext)
            c.problem = "CTO_COUNT (0x38) needs the extra select bit 21; without it 0x38 is no event";
        return;
    }
    const event_def& ed = spec_.catalog->events()[*sel.event];
    if (!(ed.counters & (1u << i))) {
        char b[128];
        std::snprintf(b, sizeof b, "%s is not allowed on counter %u (allowed mask 0x%x)",
                      ed.name.c_str(), i, ed.counters);
        c.problem = b;
        return;
    }
    c.inputs = std::move(sel.inputs);
    if (!quals_.empty()) add_qualified(c);
    // COUNTER0_OCCUPANCY: counter 0's increment (its selection's inputs),
    // conditioned by this counter's own threshold, invert and edge
    // (decisions.md B9).
    if (spec_.mirror_code >= 0 && ev == spec_.mirror_code && i != 0)
        c.inputs = ctr_[0].counts ? ctr_[0].inputs : std::vector<unsigned>{};
    if (ed.band >= 0) c.band = static_cast<int32_t>(pcu_bits::band[ed.band].get(band_filter_));
    c.counts = true;
    derive_slot_weights(c);
}

// The PCU (decisions.md B10): an occupancy event (ev_sel bit 7) counts the
// cores in the state occ_sel picks (the catalog's encodings 0x40/0x80/0xC0
// of CTL bits 15:8) under occ_invert and occ_edge_det; another event has no
// umask and uses invert and edge_det. The fields of the other kind are ignored.
void box_core::decode_occupancy(counter& c, uint8_t ev, uint8_t& umask) const {
    const uint32_t v = c.ctl;
    std::vector<const char*> unused;
    if (pcu_bits::occ_event.test(ev)) {
        if (ctl_bits::edge.test(v)) unused.push_back("edge_det");
        if (c.cond.invert) unused.push_back("invert");
        c.cond.invert = pcu_bits::occ_invert.test(v);
        c.cond.edge = pcu_bits::occ_edge.test(v);
    } else {
        if (umask != 0) unused.push_back("occ_sel");
        if (pcu_bits::occ_invert.test(v)) unused.push_back("occ_invert");
        if (pcu_bits::occ_edge.test(v)) unused.push_back("occ_edge_det");
        umask = 0;
    }
    for (const char* f : unused) c.ignored += std::string(c.ignored.empty() ? "" : ", ") + f;
    if (!c.ignored.empty())
        c.ignored += pcu_bits::occ_event.test(ev) ? " set for an occupancy event (ev_sel bit 7): ignored"
                                                  : " set for an event that is not an occupancy event: ignored";
}

// Which direction's flit slots a counter follows, and what each slot kind
// (and a matching received header) adds to its increment. An event is either
// receive or transmit, so a counter never follows both directions.
void box_core::derive_slot_weights(counter& c) const {
    c.flit_dir = -1;
    c.slot_w = {};
    c.header_w = 0;
    c.max_slot_w = 0;
    if (!c.counts) return;
    auto follow = [&](int d) {
        if (c.flit_dir >= 0 && c.flit_dir != d)
            throw std::logic_error(spec_.name + ": a selection follows both link directions");
        c.flit_dir = d;
    };
    for (int d = 0; d < 2; ++d) {
        const flit_stream& st = (*streams_)[d];
        for (size_t k = 0; k < st.kinds.size(); ++k) {
            unsigned w = 0;
            for (unsigned in : st.kinds[k]) w += static_cast<unsigned>(std::count(c.inputs.begin(), c.inputs.end(), in));
            if (w == 0) continue;
            c.slot_w[k] = static_cast<uint8_t>(w);
            follow(d);
        }
        uint32_t max_w = 0;
        for (uint8_t w : c.slot_w) max_w = std::max<uint32_t>(max_w, w);
        if (st.headers_filtered && cto_input_ >= 0) {
            const auto n = std::count(c.inputs.begin(), c.inputs.end(), static_cast<unsigned>(cto_input_));
            if (n) {
                c.header_w = static_cast<uint8_t>(n);
                follow(d);
            }
        }
        c.max_slot_w = std::max<uint32_t>(c.max_slot_w, max_w);
        if (slots_per_cycle * (max_w + c.header_w) > flit_lane::max_x)
            throw std::logic_error(spec_.name + ": slot weights beyond the walk's table");
    }
}

std::string box_core::event_name(unsigned i) const {
    const counter& c = ctr_.at(i);
    if (spec_.is_fixed(i)) return spec_.clock_name;
    if (spec_.is_free(i)) return i == static_cast<unsigned>(spec_.free_first) ? "C3 residency" : "C6 residency";
    if (c.ctl == 0) return "-";
    const uint8_t ev = static_cast<uint8_t>(ctl_bits::ev_sel.get(c.ctl)),
                  umask = static_cast<uint8_t>(ctl_bits::umask.get(c.ctl));
    const bool ext = spec_.has_ext && ctl_bits::ext.test(c.ctl);
    if (spec_.ev_sel0_is_idle && ev == 0) return "-";
    auto e = spec_.catalog->find(ev, ext);
    if (!e) return "?";
    const event_def& ed = spec_.catalog->events()[*e];
    for (const auto& u : ed.umasks)
        if (u.value == umask) return ed.name + "." + u.name;
    if (umask == 0) return ed.name;
    std::string bits;  // an unnamed combination: the names of its bits
    for (int b = 0; b < 8; ++b) {
        if (!(umask & (1u << b))) continue;
        std::string one = hex(1u << b);
        for (const auto& u : ed.umasks)
            if (u.value == (1u << b)) one = u.name;
        bits += (bits.empty() ? "" : "|") + one;
    }
    return ed.name + "." + bits;
}

bool box_core::frozen() const {
    const bool frz = box_ctl_bits::frz.test(box_ctl_);
    const bool box_frozen =
        spec_.has_box_ctl && frz && (!spec_.freeze_needs_frz_en || box_ctl_bits::frz_en.test(box_ctl_));
    return box_frozen || global_freeze_;
}

bool box_core::message_capable(const counter& c) const {
    return c.ov_en && armed_ && spec_.global_bit >= 0;
}

// A bound, not a walk: each message-capable counter's increment per cycle
// cannot exceed what its inputs hold now plus every rise still pending, plus
// two slots of its heaviest flit kind and every pending header; so it cannot
// carry before it has had (room to the wrap) / (that bound) cycles.
cycle_t box_core::message_horizon() const {
    if (!may_message() || frozen()) return horizon;
    cycle_t h = horizon;
    const unsigned __int128 limit = static_cast<unsigned __int128>(1) << spec_.width;
    for (unsigned i = 0; i < ctr_.size(); ++i) {
        if (!(ov_mask_ & (1u << i))) continue;
        const counter& c = ctr_[i];
        uint64_t m = 1;  // a threshold, a band or the fixed counter: at most 1 per cycle
        if (!spec_.is_fixed(i) && c.cond.thresh == 0 && c.band < 0) {
            m = 0;
            for (unsigned in : c.inputs) {
                m += inputs_[in] + rising_[in];
                if (static_cast<int>(in) == cto_input_) m += headers_.size() + cto_now_;
                if (is_request_input(in)) m += requests_.size();
            }
            if (c.flit_dir >= 0) m += 2ull * (c.max_slot_w + c.header_w);
        }
        if (m == 0) continue;  // nothing posted can make it count
        const unsigned __int128 need = limit - c.value;
        const unsigned __int128 k = (need + m - 1) / m - 1;  // cycles before its carry, at least
        h = std::min<cycle_t>(h, k >= horizon - cur_ ? horizon : cur_ + static_cast<cycle_t>(k));
    }
    return h;
}

bool box_core::counter_counts(unsigned i) const {
    const counter& c = ctr_.at(i);
    return c.en && c.counts && (!frozen() || spec_.is_free(i));
}

// ---------------------------------------------------------------------------
// Registers

void box_core::diag(const register_def& r, uint64_t value, time_ps now, std::string reason) {
    if (!diags_) return;
    diags_->report({cur_, now, socket_, spec_.name, r.name, value, std::move(reason)});
}

void box_core::check_live(unsigned i, time_ps now) {
    counter& c = ctr_[i];
    if (c.diagnosed || !c.en || frozen() || spec_.is_fixed(i) || spec_.is_free(i)) return;
    const register_def* r = nullptr;
    for (const auto& reg : spec_.table.regs)
        if (reg.role == reg_role::ctl && reg.index == i) r = &reg;
    if (!c.problem.empty()) diag(*r, c.ctl, now, c.problem + "; the counter counts nothing");
    if (!c.ignored.empty() && c.counts) diag(*r, c.ctl, now, c.ignored);
    if (c.cond.thresh == 0 && (c.cond.edge || c.cond.invert) && c.counts)
        diag(*r, c.ctl, now, "edge_det/invert set with thresh 0: ignored, the raw increment is counted");
    c.diagnosed = true;
}

void box_core::check_all_live(time_ps now) {
    for (unsigned i = 0; i < ctr_.size(); ++i) check_live(i, now);
}

uint64_t box_core::read_reg(const register_def& r, uint64_t access_mask, time_ps now) {
    sync(now);
    switch (r.role) {
        case reg_role::ctl:
        case reg_role::fixed_ctl:
            return ctr_.at(r.index).ctl;
        case reg_role::ctr:
        case reg_role::fixed_ctr: {
            const counter& c = ctr_.at(r.index);
            const uint64_t reg_mask = width_mask(r.size * 8u);
            if ((access_mask & reg_mask) != reg_mask && c.en && c.counts && !frozen())
                diag(r, c.value, now,
                     "partial read of a running counter: the two halves can tear (freeze the box first)");
            return c.value;
        }
        case reg_role::box_ctl: return box_ctl_;
        case reg_role::box_status: return status_;
        case reg_role::pkt_match0: return match_ & 0xFFFFFFFFu;
        case reg_role::pkt_match1: return match_ >> 32;
        case reg_role::pkt_mask0: return mask_ & 0xFFFFFFFFu;
        case reg_role::pkt_mask1: return mask_ >> 32;
        case reg_role::addr_match: return match_;
        case reg_role::stored: {
            const auto it = stored_.find(r.offset);
            return it == stored_.end() ? r.reset : it->second;
        }
        case reg_role::band_filter: return band_filter_;
        default: return r.reset;
    }
}

void box_core::write_reg(const register_def& r, uint64_t value, uint64_t access_mask, time_ps now) {
    sync(now);
    for (auto& why : write_problems(r, value, access_mask)) diag(r, value, now, why);
    auto merge = [&](uint64_t old) { return merge_write(r, old, value, access_mask); };
    const uint64_t pulses = pulses_of(r, value, access_mask);

    switch (r.role) {
        case reg_role::ctl:
        case reg_role::fixed_ctl: {
            counter& c = ctr_.at(r.index);
            c.ctl = static_cast<uint32_t>(merge(c.ctl));
            // (The table declares a reset only where the control has one.)
            const bool rst = r.role == reg_role::fixed_ctl ? fixed_ctl_bits::rst.test(pulses)
                                                           : spec_.has_rst && ctl_bits::rst.test(pulses);
            if (rst) c.value = 0;
            c.prev = false;  // the edge detector restarts on every control write
            decode(r.index);
            check_live(r.index, now);
            break;
        }
        case reg_role::ctr:
        case reg_role::fixed_ctr: {
            counter& c = ctr_.at(r.index);
            if (c.en && c.counts && !frozen() && !spec_.is_free(r.index))
                diag(r, value, now, "counter written while it counts");
            c.value = merge(c.value) & width_mask(width_of(r.index));
            break;
        }
        case reg_role::box_ctl: {
            const bool was_frozen = frozen();
            box_ctl_ = static_cast<uint32_t>(merge(box_ctl_));
            if (box_ctl_bits::rst_ctrl.test(pulses))
                for (unsigned i = 0; i < ctr_.size(); ++i) {
                    ctr_[i].ctl = 0;
                    ctr_[i].prev = false;
                    decode(i);
                }
            if (box_ctl_bits::rst_ctrs.test(pulses))
                for (unsigned i = 0; i < ctr_.size(); ++i)
                    if (!spec_.is_free(i)) ctr_[i].value = 0;
            if (was_frozen && !frozen()) check_all_live(now);
            break;
        }
        case reg_role::box_status:
            status_ &= ~static_cast<uint32_t>(clears_of(r, value, access_mask));
            break;
        case reg_role::pkt_match0:
            match_ = (match_ & ~0xFFFFFFFFull) | merge(match_ & 0xFFFFFFFFu);
            break;
        case reg_role::pkt_match1:
            match_ = (match_ & 0xFFFFFFFFull) | (merge(match_ >> 32) << 32);
            break;
        case reg_role::pkt_mask0:
            mask_ = (mask_ & ~0xFFFFFFFFull) | merge(mask_ & 0xFFFFFFFFu);
            break;
        case reg_role::pkt_mask1:
            mask_ = (mask_ & 0xFFFFFFFFull) | (merge(mask_ >> 32) << 32);
            break;
        case reg_role::addr_match:
            match_ = merge(match_);
            switch (nhm_bits::match_sel.get(match_)) {
                case 0b000:
                case 0b100:
                case 0b010:
                case 0b110:
                case 0b001: break;
                default:
                    diag(r, value, now,
                         "MatchSel is not one of the SDM's encodings (000, 100, 010, 110, 001): no request matches");
                    break;
            }
            break;
        case reg_role::stored: {
            const auto it = stored_.find(r.offset);
            stored_[r.offset] = merge(it == stored_.end() ? r.reset : it->second);
            if (!quals_.empty()) requalify();  // a request filter: applies from this cycle
            break;
        }
        case reg_role::band_filter:
            band_filter_ = merge(band_filter_);
            for (unsigned i = 0; i < ctr_.size(); ++i) decode(i);  // the band events' levels
            check_all_live(now);
            break;
        default:
            break;  // read-only registers ignore writes
    }
}

}  // namespace pmonsim
