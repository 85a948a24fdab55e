// box_core: the walk forward in time, counters in closed form from one input
// change to the next and through the flit slots run by run (box_core.h).
#include "core/box_core.h"

#include <algorithm>
#include <cstdio>
#include <limits>
#include <stdexcept>
#include <type_traits>

namespace pmonsim {

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
    if (headers && !requests_.empty() && requests_.front().cycle <= cur_) take_requests();
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
    uint64_t pos = first_slot(cur_);
    const uint64_t end = first_slot(cur_ + n);
    const size_t nb = st.bursts.size();
    // Packets [k, k + m) of a repeated burst, whole and inside the walk from
    // pos, in closed form (flit_lane::repeated); pos moves to the last one's end.
    auto repeated_packets = [&](const flit_burst& b, uint64_t k, uint64_t m) {
        const uint64_t s0 = b.start + k * b.period, len = b.len();
        const bool match = filtered && filter_matches(b.fields);
        if (n_plain) {
            slots[0] += s0 - pos + (m - 1) * (b.period - len);
            hits += match ? m : 0;
            slots[b.nondata_kind] += m * b.nondata;
            slots[b.data_kind] += m * b.data;
        }
        for (unsigned j = 0; j < n_lanes; ++j) {
            flit_lane& l = lanes[j];
            if (l.header_w && match) {  // (a matching header weighs more: packet by packet)
                uint64_t p = pos;
                for (uint64_t q = 0; q < m; ++q) {
                    const uint64_t sq = s0 + q * b.period;
                    if (sq > p) l.feed(sq - p, l.w[0]);
                    l.feed(1, l.w[b.nondata_kind] + l.header_w);
                    if (b.nondata > 1) l.feed(b.nondata - 1u, l.w[b.nondata_kind]);
                    if (b.data) l.feed(b.data, l.w[b.data_kind]);
                    p = sq + len;
                }
            } else if (l.edge) {
                l.repeated<true>(pos, s0, b.nondata, b.data, m, b.period, l.w[0], l.w[b.nondata_kind], l.w[b.data_kind]);
            } else {
                l.repeated<false>(pos, s0, b.nondata, b.data, m, b.period, l.w[0], l.w[b.nondata_kind], l.w[b.data_kind]);
            }
        }
        pos = s0 + (m - 1) * b.period + len;
    };
    // The packets of repeated burst b from its packet k on: the whole ones
    // inside the walk in closed form; true if that was all of them.
    auto rest_of_repeated = [&](const flit_burst& b, uint64_t k) {
        const uint64_t s0 = b.start + k * b.period;
        const uint64_t whole = end < s0 + b.len() ? 0 : std::min<uint64_t>((end - s0 - b.len()) / b.period + 1, b.repeat - k);
        if (whole) repeated_packets(b, k, whole);
        if (k + whole < b.repeat) return false;
        ++idx;
        return true;
    };
    bool open_end = false;  // a repeated burst runs past the walk: the rest is walked below
    if (idx < nb && st.bursts[idx].start < pos) {  // a packet under way when the walk began
        const flit_burst& b = st.bursts[idx];
        uint64_t to = std::min(b.end(), end);
        uint64_t k = b.repeat;  // the first of its packets after pos
        if (b.repeat > 1) {
            k = (pos - b.start + b.period - 1) / b.period;
            if (k < b.repeat) to = std::min(b.start + k * b.period, end);
        }
        if (pos < to) st.walk_slots(pos, to, idx, run);
        pos = to;
        if (k < b.repeat) open_end = pos >= end || !rest_of_repeated(b, k);
    }
    // Whole packets inside the walk, in the ring's contiguous spans (at most
    // two): a pass for the counters without a threshold (slots of each kind,
    // matching headers) that also finds where the whole packets end, then a
    // pass per lane with its state kept local. A lane takes each packet with
    // its idle gap in closed form (flit_lane::packet), or, when a matching
    // header adds to it, as runs: the gap, the header alone, the other
    // non-data flits, the data flits. A repeated burst ends a span and is
    // taken by itself (rest_of_repeated).
    while (!open_end && idx < nb) {
        size_t avail;
        const flit_burst* const first = st.bursts.contiguous(idx, avail);
        const flit_burst* const stop = first + avail;
        const flit_burst* last = first;
        uint64_t p = pos;
        if (n_plain) {
            for (; last != stop && last->repeat == 1 && last->single_end() <= end; ++last) {
                const flit_burst& b = *last;
                slots[0] += b.start - p;
                hits += filtered && filter_matches(b.fields);
                slots[b.nondata_kind] += b.nondata;
                slots[b.data_kind] += b.data;
                p = b.single_end();
            }
        } else {
            while (last != stop && last->repeat == 1 && last->single_end() <= end) ++last;
        }
        if (last == first) {
            if (first->repeat > 1 && first->start >= pos && first->start < end && rest_of_repeated(*first, 0)) continue;
            break;
        }
        for (unsigned k = 0; k < n_lanes; ++k) {
            flit_lane l = lanes[k];
            p = pos;
            if (l.header_w && filtered) {  // a matching header weighs more: run by run
                for (const flit_burst* i = first; i != last; ++i) {
                    const flit_burst& b = *i;
                    if (b.start > p) l.feed(b.start - p, l.w[0]);
                    const bool match = filter_matches(b.fields);
                    for (uint64_t q = b.start; q < b.end();) {
                        const flit_burst::run r = b.run_at(q, b.end());
                        l.feed(r.end - q, l.w[r.kind] + (r.header && match ? l.header_w : 0u));
                        q = r.end;
                    }
                    p = b.single_end();
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
        pos = (last - 1)->single_end();
        idx += static_cast<size_t>(last - first);
        if (last != stop && last->repeat == 1) break;  // a packet not wholly inside the walk
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
        const uint64_t per_cycle = c.cond.thresh ? 1 : incs[i] + slots_per_cycle * (max_w + c.header_w);
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
            uint64_t cyc = cycle_of_slot(pos);
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
                const uint32_t inc = g + static_cast<uint32_t>(slots_per_cycle) * wt;
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

void box_core::count_free_run(unsigned i, uint32_t inc, cycle_t from, uint64_t n) {
    counter& c = ctr_[i];
    const run_adds a = condition_run(c.cond, inc, c.prev);
    unsigned __int128 total = a.first + static_cast<unsigned __int128>(a.rest) * (n - 1);
    if (spec_.free_rate_hz)  // (its compare holds the whole run or none of it)
        total = a.rest ? ticks_at(clock_, from + n, spec_.free_rate_hz) - ticks_at(clock_, from, spec_.free_rate_hz) : 0;
    const add_result r = add_wrapping(c.value, total, width_of(i));
    c.value = r.value;
    c.prev = condition_after_run(c.cond, inc, c.prev);
    if (r.carries) carried(i, r.carries);
}

void box_core::carried(unsigned i, uint64_t carries) {
    ctr_[i].wraps += carries;
    note_carry(i);
}

void box_core::count_free(uint64_t n) {
    if (spec_.free_first < 0) return;
    for (unsigned i = static_cast<unsigned>(spec_.free_first); i < ctr_.size(); ++i) count_run(i, inc_of(i), cur_, n);
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
    const unsigned n_ctr = static_cast<unsigned>(ctr_.size());
    uint32_t live = 0;  // the counters that count
    for (unsigned i = 0; i < n_ctr; ++i) live |= uint32_t{ctr_[i].en && ctr_[i].counts} << i;
    auto catch_up = [&](unsigned i, cycle_t to) {  // counter i over [from[i], to)
        if (to <= from[i]) return;
        if ((live >> i) & 1u) count_run(i, inc_of(i), from[i], to - from[i]);
        from[i] = to;
    };
    for (step s; steps_.take_before(target, s);)
        apply_step(s, [&](unsigned i) { catch_up(i, s.cycle); });  // before its increment changes
    for (unsigned i = 0; i < n_ctr; ++i) catch_up(i, target);
    cur_ = target;
}

std::optional<overflow_message> box_core::advance_to(cycle_t target, bool stop_on_message) {
    std::optional<overflow_message> first_msg;
    target = std::min(target, horizon);
    if (!has_slots_ && headers_.empty() && requests_.empty() && cto_now_ == 0 && !may_message() && !frozen()) {
        if (cur_ < target) advance_lazily(target);
        return first_msg;
    }
    while (cur_ < target) {
        apply_due(true);  // the changes posted for this cycle
        cycle_t next = target;
        next = std::min(next, steps_.front_cycle());
        if (!headers_.empty()) next = std::min(next, headers_.front().cycle);
        if (!requests_.empty()) next = std::min(next, requests_.front().cycle);
        if (cto_now_ && cto_expire_ > cur_) next = std::min(next, cto_expire_);
        const uint64_t n = next - cur_;

        if (frozen()) {  // edge state holds, nothing counts but the counters outside PMON
            if (has_slots_) {
                skip_slots(0, next);
                skip_slots(1, next);
            }
            count_free(n);
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
            incs[i] = inc_of(i);
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
            if (c.en && c.counts && c.flit_dir < 0) count_run(i, incs[i], cur_, run);
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
    if (auto m = trial.advance_to(horizon, true)) return m->cycle;
    return std::nullopt;
}

void box_core::set_global_freeze(bool on, time_ps now) {
    const bool was_frozen = frozen();
    global_freeze_ = on;
    if (was_frozen && !frozen()) check_all_live(now);
}

}  // namespace pmonsim
