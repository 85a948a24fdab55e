#include "core/box_core.h"

#include <algorithm>
#include <type_traits>
#include <cstdio>
#include <limits>
#include <stdexcept>

#include "desc/bits.h"

namespace pmonsim {

namespace {

// Beyond any real run (36 years of a 1 GHz clock), so slot numbers (2 per
// cycle) and sums of increments stay far from 64 bits.
constexpr cycle_t kHorizon = cycle_t{1} << 60;

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
    if (spec_.kind == box_kind::qpi && spec_.catalog) {
        if (auto e = spec_.catalog->find(static_cast<uint8_t>(spec_.cto_code), true))
            cto_input_ = static_cast<int>(*spec_.catalog->input_of(*e, -1));
    }
    // CLOCKTICKS is the box's own clock: one per cycle, never from a trace.
    if (spec_.catalog)
        if (auto e = spec_.catalog->find("CLOCKTICKS")) {
            clock_input_ = static_cast<int>(*spec_.catalog->input_of(*e, -1));
            push_step({0, static_cast<unsigned>(clock_input_), 1});
        }
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
    if (!((status_ >> i) & 1u)) ++status_sets_;
    status_ |= 1u << i;
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
    c.counts = false;
    c.diagnosed = false;
    if (spec_.fixed) {
        c.counts = true;  // one per cycle of its clock
        return;
    }
    c.cond.thresh = static_cast<uint32_t>(spec_.thresh.get(v));
    c.cond.invert = spec_.has_invert && ctl_bits::invert.test(v);
    c.cond.edge = ctl_bits::edge.test(v);
    const uint8_t ev = static_cast<uint8_t>(ctl_bits::ev_sel.get(v));
    const uint8_t umask = static_cast<uint8_t>(ctl_bits::umask.get(v));
    const bool ext = spec_.has_ext && ctl_bits::ext.test(v);
    if (spec_.ev_sel0_is_idle && ev == 0) return;  // "enabled but no event"
    auto sel = spec_.catalog->select(ev, ext, umask);
    if (!sel.error.empty()) {
        c.problem = sel.error;
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
    c.counts = true;
    derive_slot_weights(c);
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
        if (2 * (max_w + c.header_w) > flit_lane::max_x)
            throw std::logic_error(spec_.name + ": slot weights beyond the walk's table");
    }
}

std::string box_core::event_name(unsigned i) const {
    const counter& c = ctr_.at(i);
    if (spec_.fixed) return "UCLK";
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
    if (!may_message() || frozen()) return kHorizon;
    cycle_t h = kHorizon;
    const unsigned __int128 limit = static_cast<unsigned __int128>(1) << spec_.width;
    for (unsigned i = 0; i < ctr_.size(); ++i) {
        if (!(ov_mask_ & (1u << i))) continue;
        const counter& c = ctr_[i];
        uint64_t m = 1;  // a threshold or the fixed counter: at most 1 per cycle
        if (!spec_.fixed && c.cond.thresh == 0) {
            m = 0;
            for (unsigned in : c.inputs) {
                m += inputs_[in] + rising_[in];
                if (static_cast<int>(in) == cto_input_) m += headers_.size() + cto_now_;
            }
            if (c.flit_dir >= 0) m += 2ull * (c.max_slot_w + c.header_w);
        }
        if (m == 0) continue;  // nothing posted can make it count
        const unsigned __int128 need = limit - c.value;
        const unsigned __int128 k = (need + m - 1) / m - 1;  // cycles before its carry, at least
        h = std::min<cycle_t>(h, k >= kHorizon - cur_ ? kHorizon : cur_ + static_cast<cycle_t>(k));
    }
    return h;
}

bool box_core::counter_counts(unsigned i) const {
    const counter& c = ctr_.at(i);
    return c.en && c.counts && !frozen();
}

// ---------------------------------------------------------------------------
// Inputs

void box_core::post_step(cycle_t from, unsigned input, int64_t delta) {
    if (delta < INT32_MIN || delta > INT32_MAX) throw std::out_of_range("input change out of range");
    if (input >= inputs_.size()) throw std::out_of_range("no input " + std::to_string(input));
    if (static_cast<int>(input) == clock_input_)
        throw std::invalid_argument(spec_.name + ": CLOCKTICKS counts the box's own clock and cannot be driven");
    if (from < cur_)
        throw std::logic_error(spec_.name + ": input posted for cycle " + std::to_string(from) +
                               " but the box is already at cycle " + std::to_string(cur_));
    push_step({from, input, static_cast<int32_t>(delta)});
}

void box_core::push_step(const step& st) {
    if (st.delta > 0) rising_[st.input] += static_cast<uint64_t>(st.delta);
    steps_.push(st);
}

void box_core::post_run(cycle_t from, uint64_t n, unsigned input, uint32_t value) {
    if (n == 0 || value == 0) return;
    // One test for the usual run (once per event-trace row), the reasons after.
    if (input >= max_inc_.size() || value > max_inc_[input] || from < cur_ || n > ~cycle_t{0} - from) {
        if (input >= inputs_.size()) throw std::out_of_range("no input " + std::to_string(input));
        if (static_cast<int>(input) == clock_input_)
            throw std::invalid_argument(spec_.name + ": CLOCKTICKS counts the box's own clock and cannot be driven");
        if (value > max_inc_[input]) {
            const event_def& ed = spec_.catalog->events()[spec_.catalog->input(input).event];
            throw std::invalid_argument(spec_.catalog->input_name(input) + ": increment " + std::to_string(value) +
                                        " exceeds the event's maximum of " + std::to_string(ed.max_inc) +
                                        " per cycle");
        }
        if (from < cur_)
            throw std::logic_error(spec_.name + ": input posted for cycle " + std::to_string(from) +
                                   " but the box is already at cycle " + std::to_string(cur_));
        throw std::out_of_range(spec_.name + ": a run past the last cycle");
    }
    const int32_t v = static_cast<int32_t>(value);  // max_inc fits
    push_step({from, input, v});
    push_step({from + n, input, -v});
}

void box_core::post_rx_header(cycle_t at, uint64_t fields) {
    if (at < cur_) throw std::logic_error(spec_.name + ": packet header posted in the past");
    // Headers come in cycle order from the link; keep the deque sorted anyway.
    auto pos = headers_.end();
    while (pos != headers_.begin() && std::prev(pos)->cycle > at) --pos;
    headers_.insert(pos, {at, fields});
}

uint64_t box_core::count_matches(cycle_t c) const {
    uint64_t n = 0;
    for (const header& h : headers_) {
        if (h.cycle > c) break;
        if (h.cycle == c) n += filter_matches(h.fields);
    }
    return n;
}

uint64_t box_core::input_now(unsigned input) const {
    uint64_t v = inputs_.at(input);
    if (steps_.front_cycle() <= cur_)  // changes for cur_ not applied yet
        steps_.for_each([&](const step& s) {
            if (s.cycle == cur_ && s.input == input) v += static_cast<uint64_t>(static_cast<int64_t>(s.delta));
        });
    if (static_cast<int>(input) == cto_input_) {
        const bool fresh = !headers_.empty() && headers_.front().cycle == cur_;
        v += fresh ? count_matches(cur_) : (cur_ < cto_expire_ ? cto_now_ : 0);
    }
    return v + slot_input_now(input);
}

uint64_t box_core::slot_input_now(unsigned input) const {
    uint64_t v = 0;
    for (unsigned d = 0; d < 2; ++d) {
        const flit_stream& st = (*streams_)[d];
        if (st.kinds.empty()) continue;
        for (uint64_t s = 2 * cur_; s < 2 * cur_ + 2; ++s) {
            const flit_burst* h = nullptr;
            const uint8_t k = st.kind_at(s, first_[d], &h);
            v += static_cast<uint64_t>(std::count(st.kinds[k].begin(), st.kinds[k].end(), input));
            if (h && st.headers_filtered && static_cast<int>(input) == cto_input_ && filter_matches(h->fields)) ++v;
        }
    }
    return v;
}

// ---------------------------------------------------------------------------
// Flit slots

uint8_t box_core::add_slot_kind(unsigned dir, std::vector<unsigned> inputs) {
    flit_stream& st = streams_->at(dir);
    if (st.kinds.size() >= max_slot_kinds) throw std::length_error(spec_.name + ": too many flit slot kinds");
    for (unsigned in : inputs)
        if (in >= inputs_.size()) throw std::out_of_range("no input " + std::to_string(in));
    st.kinds.push_back(std::move(inputs));
    st.kind_count = static_cast<uint8_t>(st.kinds.size());
    has_slots_ = true;
    for (auto& c : ctr_) derive_slot_weights(c);
    return static_cast<uint8_t>(st.kinds.size() - 1);
}

void box_core::filter_headers_of(unsigned dir) {
    if (cto_input_ < 0) return;
    streams_->at(dir).headers_filtered = true;
    for (auto& c : ctr_) derive_slot_weights(c);
}

void box_core::reject_late_burst(uint64_t start) const {
    throw std::logic_error(spec_.name + ": packet placed in slot " + std::to_string(start) +
                           " but the box is already at cycle " + std::to_string(cur_));
}

void box_core::reject_burst(unsigned dir, const flit_burst& b) const {
    const flit_stream& st = (*streams_)[dir & 1];
    if (dir >= 2 || st.kinds.empty()) throw std::logic_error(spec_.name + ": no flit slots in this direction");
    if (b.start < 2 * cur_) reject_late_burst(b.start);
    if (b.nondata == 0 || b.nondata_kind >= st.kinds.size() || b.data_kind >= st.kinds.size())
        throw std::invalid_argument(spec_.name + ": malformed flit burst");
    throw std::logic_error(spec_.name + ": packet placed over an earlier one");
}

void box_core::drop_consumed(unsigned d, size_t idx) {
    if (trial_) {
        first_[d] = idx;
        return;
    }
    (*streams_)[d].bursts.pop_front(idx);
    first_[d] = 0;
}

void box_core::skip_slots(unsigned d, cycle_t to) {
    const auto& q = (*streams_)[d].bursts;
    size_t idx = first_[d];
    while (idx < q.size() && q[idx].end() <= 2 * to) ++idx;
    if (idx != first_[d]) drop_consumed(d, idx);
}

uint32_t box_core::counter_increment(unsigned i) const {
    // What cycle cur_ adds before conditioning.
    const counter& c = ctr_.at(i);
    if (spec_.fixed) return 1;
    uint64_t inc = 0;
    for (unsigned in : c.inputs) inc += input_now(in);
    return static_cast<uint32_t>(inc);
}

// ---------------------------------------------------------------------------
// The walk

namespace {

// Index of the cycle (0-based within a run) whose addition carries out of
// `width` bits, or `n` if none does within n cycles.
uint64_t carry_index(uint64_t value, run_adds a, uint64_t n, unsigned width) {
    const unsigned __int128 limit = static_cast<unsigned __int128>(1) << width;
    if (value + static_cast<unsigned __int128>(a.first) >= limit) return 0;
    if (a.rest == 0 || n <= 1) return n;
    const unsigned __int128 need = limit - value - a.first;
    const unsigned __int128 k = (need + a.rest - 1) / a.rest;
    return k < n ? static_cast<uint64_t>(k) : n;
}

}  // namespace

void box_core::settle() { apply_due(false); }

template <class F>
void box_core::apply_step(const step& s, F&& touched) {
    const unsigned in = s.input;
    const uint64_t d = static_cast<uint64_t>(static_cast<int64_t>(s.delta));
    inputs_[in] += d;
    // (Masks and set bits, not branches: rising and falling steps, and the
    // inputs of event rows, come in no order a predictor could learn.)
    rising_[in] -= d & (uint64_t{0} - (s.delta > 0));
    const auto& u = uses_[in];
    for (unsigned m = use_mask_[in]; m != 0; m &= m - 1) {
        const unsigned i = static_cast<unsigned>(__builtin_ctz(m));
        touched(i);
        ginc_[i] += u[i] * d;
    }
}

void box_core::apply_due(bool headers) {
    while (steps_.front_cycle() <= cur_) {
        apply_step(steps_.front(), [](unsigned) {});
        steps_.pop();
    }
    if (!headers) return;
    if (cur_ >= cto_expire_) cto_now_ = 0;
    if (!headers_.empty() && headers_.front().cycle <= cur_) {
        cto_now_ = 0;
        cto_expire_ = headers_.front().cycle + 1;
        while (!headers_.empty() && headers_.front().cycle < cto_expire_) {
            cto_now_ += filter_matches(headers_.front().fields);
            headers_.pop_front();
        }
    }
}

namespace {

// Adds `total` to a counter: wraparound, carries and the status bit.
struct add_result {
    uint64_t value;
    uint64_t carries;
};
add_result add_wrapping(uint64_t value, unsigned __int128 total, unsigned width) {
    const unsigned __int128 sum = value + total;
    return {static_cast<uint64_t>(sum) & width_mask(width), static_cast<uint64_t>(sum >> width)};
}

}  // namespace

void box_core::walk_slots(unsigned d, uint64_t n, const std::array<uint32_t, max_box_counters>& incs) {
    const flit_stream& st = (*streams_)[d];
    // Counters without a threshold only need how many slots of each kind
    // (and matching headers) the walk saw; the others follow the cycles.
    flit_lane lanes[max_box_counters];
    std::array<unsigned, max_box_counters> lane_of{}, plain_of{};
    unsigned n_lanes = 0, n_plain = 0;
    for (unsigned i = 0; i < ctr_.size(); ++i) {
        const counter& c = ctr_[i];
        if (!c.en || !c.counts || c.flit_dir != static_cast<int>(d)) continue;
        if (c.cond.thresh == 0) {
            plain_of[n_plain++] = i;
            continue;
        }
        lanes[n_lanes].prepare(c.cond, incs[i], c.slot_w.data(), c.header_w, c.prev);
        lane_of[n_lanes++] = i;
    }
    if (n_lanes + n_plain == 0) {
        skip_slots(d, cur_ + n);
        return;
    }
    std::array<uint64_t, max_slot_kinds> slots{};
    uint64_t hits = 0;
    size_t idx = first_[d];
    const bool filtered = st.headers_filtered;
    auto run = [&](uint64_t, uint64_t len, uint8_t kind, const flit_burst* h) {
        slots[kind] += len;
        const bool hit = h && filtered && filter_matches(h->fields);
        hits += hit;
        for (unsigned k = 0; k < n_lanes; ++k) lanes[k].feed(len, lanes[k].w[kind] + (hit ? lanes[k].header_w : 0u));
        return true;
    };
    uint64_t pos = 2 * cur_;
    const uint64_t end = 2 * (cur_ + n);
    const size_t nb = st.bursts.size();
    if (idx < nb && st.bursts[idx].start < pos) {  // a packet under way when the walk began
        const uint64_t to = std::min(st.bursts[idx].end(), end);
        st.walk_slots(pos, to, idx, run);
        pos = to;
    }
    // Whole packets inside the walk, in the ring's contiguous spans (at most
    // two): a pass for the counters without a threshold (slots of each kind,
    // matching headers) that also finds where the whole packets end, then a
    // pass per lane with its state kept local. A lane takes each packet with
    // its idle gap in closed form (flit_lane::packet), or, when a matching
    // header adds to it, as runs: the gap, the header alone, the other
    // non-data flits, the data flits.
    while (idx < nb) {
        size_t avail;
        const flit_burst* const first = st.bursts.contiguous(idx, avail);
        const flit_burst* const stop = first + avail;
        const flit_burst* last = first;
        uint64_t p = pos;
        if (n_plain) {
            for (; last != stop && last->end() <= end; ++last) {
                const flit_burst& b = *last;
                slots[0] += b.start - p;
                hits += filtered && filter_matches(b.fields);
                slots[b.nondata_kind] += b.nondata;
                slots[b.data_kind] += b.data;
                p = b.end();
            }
        } else {
            while (last != stop && last->end() <= end) ++last;
        }
        if (last == first) break;
        for (unsigned k = 0; k < n_lanes; ++k) {
            flit_lane l = lanes[k];
            p = pos;
            if (l.header_w && filtered) {  // a matching header weighs more: run by run
                for (const flit_burst* i = first; i != last; ++i) {
                    const flit_burst& b = *i;
                    if (b.start > p) l.feed(b.start - p, l.w[0]);
                    const uint32_t w = l.w[b.nondata_kind];
                    if (filter_matches(b.fields)) {
                        l.feed(1, w + l.header_w);
                        if (b.nondata > 1) l.feed(b.nondata - 1, w);
                    } else {
                        l.feed(b.nondata, w);
                    }
                    if (b.data) l.feed(b.data, l.w[b.data_kind]);
                    p = b.end();
                }
            } else {
                auto packets = [&](auto edge) {
                    for (const flit_burst* i = first; i != last; ++i) {
                        const flit_burst& b = *i;
                        const uint64_t c = b.start + b.nondata;
                        l.packet<decltype(edge)::value>(p, b.start, c, c + b.data, l.w[0], l.w[b.nondata_kind],
                                                        l.w[b.data_kind]);
                        p = c + b.data;
                    }
                };
                if (l.edge) packets(std::true_type{});
                else packets(std::false_type{});
            }
            lanes[k] = l;
        }
        pos = (last - 1)->end();
        idx += static_cast<size_t>(last - first);
        if (last != stop) break;  // a packet not wholly inside the walk
    }
    if (pos < end) st.walk_slots(pos, end, idx, run);  // a packet running past the walk, idle after
    drop_consumed(d, idx);
    auto count = [&](unsigned i, unsigned __int128 total, bool prev) {
        counter& c = ctr_[i];
        const add_result r = add_wrapping(c.value, total, spec_.width);
        c.value = r.value;
        c.prev = prev;
        if (r.carries) {
            c.wraps += r.carries;
            note_carry(i);
        }
    };
    for (unsigned k = 0; k < n_lanes; ++k) count(lane_of[k], lanes[k].add, lanes[k].prev);
    for (unsigned k = 0; k < n_plain; ++k) {
        const counter& c = ctr_[plain_of[k]];
        unsigned __int128 total = static_cast<unsigned __int128>(incs[plain_of[k]]) * n + uint64_t{c.header_w} * hits;
        for (size_t kind = 0; kind < st.kinds.size(); ++kind) total += uint64_t{c.slot_w[kind]} * slots[kind];
        count(plain_of[k], total, c.prev);
    }
}

std::optional<std::pair<uint64_t, unsigned>> box_core::first_slot_carry(
    unsigned d, uint64_t n, const std::array<uint32_t, max_box_counters>& incs) const {
    const flit_stream& st = (*streams_)[d];
    std::optional<std::pair<uint64_t, unsigned>> best;
    for (unsigned i = 0; i < ctr_.size(); ++i) {
        const counter& c = ctr_[i];
        if (!c.en || !c.counts || c.flit_dir != static_cast<int>(d) || !message_capable(c)) continue;
        // Can it carry at all? At most 2 slots of the heaviest kind per cycle.
        uint32_t max_w = 0;
        for (uint8_t w : c.slot_w) max_w = std::max<uint32_t>(max_w, w);
        const uint64_t per_cycle = c.cond.thresh ? 1 : incs[i] + 2ull * (max_w + c.header_w);
        if (c.value + static_cast<unsigned __int128>(per_cycle) * n < (static_cast<unsigned __int128>(1) << spec_.width))
            continue;
        // Walk this counter alone, cycle-exactly, to its first carry (the
        // rule of conditioning.h per cycle or run, not the walk's shortcuts).
        const uint32_t g = incs[i];
        bool prev = c.prev;
        uint64_t add = 0;
        int32_t half = -1;
        std::optional<uint64_t> at;
        size_t idx = first_[d];
        st.walk(cur_, cur_ + n, idx, [&](uint64_t pos, uint64_t len, uint8_t kind, const flit_burst* h) {
            const bool hit = h && st.headers_filtered && filter_matches(h->fields);
            const uint32_t wt = c.slot_w[kind] + (hit ? c.header_w : 0u);
            uint64_t cyc = pos / 2;
            if (half >= 0) {  // pos is odd: finish cycle pos / 2
                add += condition_cycle(c.cond, g + static_cast<uint32_t>(half) + wt, prev);
                half = -1;
                if ((c.value + add) >> spec_.width) {
                    at = cyc;
                    return false;
                }
                ++cyc;
                if (--len == 0) return true;
            }
            if (const uint64_t m = len >> 1) {
                const uint32_t inc = g + 2 * wt;
                const run_adds a = condition_run(c.cond, inc, prev);
                const uint64_t k = carry_index(c.value + add, a, m, spec_.width);
                if (k < m) {
                    at = cyc + k;
                    return false;
                }
                add += a.first + a.rest * (m - 1);
                prev = condition_after_run(c.cond, inc, prev);
            }
            if (len & 1) half = static_cast<int32_t>(wt);
            return true;
        });
        if (at && (!best || *at - cur_ < best->first)) best = std::make_pair(*at - cur_, i);
    }
    return best;
}

void box_core::count_run(unsigned i, uint32_t inc, uint64_t n) {
    counter& c = ctr_[i];
    const run_adds a = condition_run(c.cond, inc, c.prev);
    const add_result r = add_wrapping(c.value, a.first + static_cast<unsigned __int128>(a.rest) * (n - 1), spec_.width);
    c.value = r.value;
    c.prev = condition_after_run(c.cond, inc, c.prev);
    if (r.carries) {
        c.wraps += r.carries;
        note_carry(i);
    }
}

// The walk below splits every counter's run at every input change, because a
// message must stop it in the exact cycle. Without messages, flit slots or
// packet headers (UBox, R2PCIe, and most replays), a counter is instead
// counted only when its own increment changes, and at the end: an event row
// then costs the counters that sum its input, not all of them. Counting a run
// of equal increments in one piece or in two gives the same value and edge
// state (conditioning.h), so the result is the walk's.
void box_core::advance_lazily(cycle_t target) {
    std::array<cycle_t, max_box_counters> from;
    from.fill(cur_);
    auto catch_up = [&](unsigned i, cycle_t to) {  // counter i over [from[i], to)
        if (to <= from[i]) return;
        const counter& c = ctr_[i];
        if (c.en && c.counts) count_run(i, spec_.fixed ? 1 : static_cast<uint32_t>(ginc_[i]), to - from[i]);
        from[i] = to;
    };
    const unsigned n_ctr = static_cast<unsigned>(ctr_.size());
    while (steps_.front_cycle() < target) {
        const step& s = steps_.front();
        apply_step(s, [&](unsigned i) { catch_up(i, s.cycle); });  // before its increment changes
        steps_.pop();
    }
    for (unsigned i = 0; i < n_ctr; ++i) catch_up(i, target);
    cur_ = target;
}

std::optional<overflow_message> box_core::advance_to(cycle_t target, bool stop_on_message) {
    std::optional<overflow_message> first_msg;
    target = std::min(target, kHorizon);
    if (!has_slots_ && headers_.empty() && cto_now_ == 0 && !may_message() && !frozen()) {
        if (cur_ < target) advance_lazily(target);
        return first_msg;
    }
    while (cur_ < target) {
        apply_due(true);  // the changes posted for this cycle
        cycle_t next = target;
        next = std::min(next, steps_.front_cycle());
        if (!headers_.empty()) next = std::min(next, headers_.front().cycle);
        if (cto_now_ && cto_expire_ > cur_) next = std::min(next, cto_expire_);
        const uint64_t n = next - cur_;

        if (frozen()) {  // edge state holds, nothing counts
            if (has_slots_) {
                skip_slots(0, next);
                skip_slots(1, next);
            }
            cur_ = next;
            continue;
        }
        // Each counter's increment from posted steps (constant until `next`),
        // and the earliest message-raising carry: the run stops after it.
        std::array<run_adds, max_box_counters> adds{};
        std::array<uint32_t, max_box_counters> incs{};
        uint64_t run = n;
        int who = -1;
        auto candidate = [&](uint64_t k, unsigned i) {  // carry in the run's cycle k
            if (k + 1 < run || (k + 1 == run && (who < 0 || static_cast<int>(i) < who))) {
                run = k + 1;
                who = static_cast<int>(i);
            }
        };
        bool slot_messages = false;
        for (unsigned i = 0; i < ctr_.size(); ++i) {
            counter& c = ctr_[i];
            if (!c.en || !c.counts) continue;
            incs[i] = spec_.fixed ? 1 : static_cast<uint32_t>(ginc_[i]);
            if (cto_input_ >= 0 && cto_now_ &&
                std::find(c.inputs.begin(), c.inputs.end(), unsigned(cto_input_)) != c.inputs.end())
                incs[i] += cto_now_;
            if (c.flit_dir >= 0) {
                slot_messages |= message_capable(c);
                continue;
            }
            adds[i] = condition_run(c.cond, incs[i], c.prev);
            if (message_capable(c)) {
                const uint64_t k = carry_index(c.value, adds[i], n, spec_.width);
                if (k < n) candidate(k, i);
            }
        }
        if (slot_messages)
            for (unsigned d = 0; d < 2; ++d)
                if (auto k = first_slot_carry(d, n, incs)) candidate(k->first, k->second);
        // Count `run` cycles.
        for (unsigned i = 0; i < ctr_.size(); ++i) {
            const counter& c = ctr_[i];
            if (c.en && c.counts && c.flit_dir < 0) count_run(i, incs[i], run);
        }
        if (has_slots_) {
            walk_slots(0, run, incs);
            walk_slots(1, run, incs);
        }
        cur_ += run;
        if (who >= 0) {
            overflow_message m{cur_ - 1, static_cast<unsigned>(who)};
            if (!first_msg) first_msg = m;
            if (stop_on_message) return m;
        }
    }
    return first_msg;
}

std::optional<overflow_message> box_core::sync(time_ps t, bool stop_on_message) {
    const cycle_t target = clock_.cycles_before(t);
    if (target <= cur_) return std::nullopt;
    return advance_to(target, stop_on_message);
}

std::optional<cycle_t> box_core::predict_message() const {
    if (!may_message() || frozen()) return std::nullopt;  // freeze changes only through the owner
    // The same walk on a trial copy, to the end of time or the first message.
    box_core trial(*this);
    trial.diags_ = nullptr;
    trial.trial_ = true;  // reads the flit slots without popping them
    if (auto m = trial.advance_to(kHorizon, true)) return m->cycle;
    return std::nullopt;
}

void box_core::set_global_freeze(bool on, time_ps now) {
    const bool was_frozen = frozen();
    global_freeze_ = on;
    if (was_frozen && !frozen()) check_all_live(now);
}

// ---------------------------------------------------------------------------
// Registers

void box_core::diag(const register_def& r, uint64_t value, time_ps now, std::string reason) {
    if (!diags_) return;
    diags_->report({cur_, now, socket_, spec_.name, r.name, value, std::move(reason)});
}

void box_core::check_live(unsigned i, time_ps now) {
    counter& c = ctr_[i];
    if (c.diagnosed || !c.en || frozen() || spec_.fixed) return;
    const register_def* r = nullptr;
    for (const auto& reg : spec_.table.regs)
        if (reg.role == reg_role::ctl && reg.index == i) r = &reg;
    if (!c.problem.empty()) diag(*r, c.ctl, now, c.problem + "; the counter counts nothing");
    if (c.cond.thresh == 0 && (c.cond.edge || ctl_bits::invert.test(c.ctl)) && c.counts)
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
            if (spec_.has_rst && ctl_bits::rst.test(pulses)) c.value = 0;
            c.prev = false;  // the edge detector restarts on every control write
            decode(r.index);
            check_live(r.index, now);
            break;
        }
        case reg_role::ctr:
        case reg_role::fixed_ctr: {
            counter& c = ctr_.at(r.index);
            if (c.en && c.counts && !frozen())
                diag(r, value, now, "counter written while it counts");
            c.value = merge(c.value) & width_mask(spec_.width);
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
                for (auto& c : ctr_) c.value = 0;
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
        default:
            break;  // read-only registers ignore writes
    }
}

}  // namespace pmonsim
