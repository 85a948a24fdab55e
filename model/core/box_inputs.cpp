// box_core: posting inputs (steps, runs, packet headers) and the flit slots
// of a QPI port (box_core.h).
#include "core/box_core.h"

#include <algorithm>
#include <cstdio>
#include <limits>
#include <stdexcept>
#include <type_traits>

namespace pmonsim {

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

void box_core::refuse_run(cycle_t from, unsigned input, uint32_t value) const {
    if (input >= inputs_.size()) throw std::out_of_range("no input " + std::to_string(input));
    if (static_cast<int>(input) == clock_input_)
        throw std::invalid_argument(spec_.name + ": CLOCKTICKS counts the box's own clock and cannot be driven");
    if (value > max_inc_[input]) {
        const event_def& ed = spec_.catalog->events()[spec_.catalog->input(input).event];
        throw std::invalid_argument(spec_.catalog->input_name(input) + ": increment " + std::to_string(value) +
                                    " exceeds the event's maximum of " + std::to_string(ed.max_inc) + " per cycle");
    }
    if (from < cur_)
        throw std::logic_error(spec_.name + ": input posted for cycle " + std::to_string(from) +
                               " but the box is already at cycle " + std::to_string(cur_));
    throw std::out_of_range(spec_.name + ": a run past the last cycle");
}

void box_core::post_rx_header(cycle_t at, uint64_t fields) {
    if (at < cur_) throw std::logic_error(spec_.name + ": packet header posted in the past");
    // Headers come in cycle order from the link; keep the deque sorted anyway.
    auto pos = headers_.end();
    while (pos != headers_.begin() && std::prev(pos)->cycle > at) --pos;
    headers_.insert(pos, {at, fields});
}

void box_core::post_request(cycle_t at, home_src src, uint64_t fields) {
    const unsigned k = static_cast<unsigned>(src);
    if (k >= home_src_count || request_input_[k] < 0)
        throw std::logic_error(spec_.name + ": no address/opcode filter takes requests here");
    if (at < cur_) throw std::logic_error(spec_.name + ": request posted in the past");
    auto pos = requests_.end();
    while (pos != requests_.begin() && std::prev(pos)->cycle > at) --pos;
    requests_.insert(pos, {at, fields, static_cast<unsigned>(request_input_[k])});
}

// MatchSel (SDM 18.8.2.3): 100 address, 010 opcode, 110 either, 001 both;
// 000 turns the match off, and the reserved encodings match nothing either
// (docs/decisions.md N15). A request without an address never matches one.
bool box_core::addr_opcode_matches(uint64_t fields) const {
    namespace n = nhm_bits;
    const uint64_t diff = fields ^ match_;
    const bool addr = !addr_absent.test(fields) && (diff & n::addr.mask()) == 0;
    const bool opcode = (diff & n::opcode.mask()) == 0;
    switch (n::match_sel.get(match_)) {
        case 0b100: return addr;
        case 0b010: return opcode;
        case 0b110: return addr || opcode;
        case 0b001: return addr && opcode;
        default: return false;
    }
}

void box_core::take_requests() {
    while (!requests_.empty() && requests_.front().cycle <= cur_) {
        const request& q = requests_.front();
        if (filter_matches(q.fields)) {
            push_step({cur_, q.input, 1});
            push_step({cur_ + 1, q.input, -1});
        }
        requests_.pop_front();
    }
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
    for (const request& q : requests_) {  // not yet steps
        if (q.cycle > cur_) break;
        v += q.input == input && filter_matches(q.fields);
    }
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
        for (uint64_t s = first_slot(cur_); s < first_slot(cur_ + 1); ++s) {
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
    if (b.start < first_slot(cur_)) reject_late_burst(b.start);
    if (b.nondata == 0 || b.nondata_kind >= st.kinds.size() || b.data_kind >= st.kinds.size() || b.repeat == 0 ||
        (b.repeat > 1 && b.period < b.len()))
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
    while (idx < q.size() && q[idx].end() <= first_slot(to)) ++idx;
    if (idx != first_[d]) drop_consumed(d, idx);
}

uint32_t box_core::counter_increment(unsigned i) const {
    // What cycle cur_ adds before conditioning.
    const counter& c = ctr_.at(i);
    if (spec_.is_fixed(i)) return 1;
    uint64_t inc = 0;
    for (unsigned in : c.inputs) inc += input_now(in);
    if (c.band >= 0) return inc >= static_cast<uint64_t>(c.band);
    return static_cast<uint32_t>(inc);
}

}  // namespace pmonsim
