// box_core: qualified event-trace rows and the request filters that select
// them (decisions.md B14): the caching agents' FILTER (state, node, opcode,
// thread with tid_en) and the home agent's ADDRMATCH0/1 and OPCODEMATCH.
//
// Each distinct (catalog input, request attributes) is an input of its own,
// appended after the catalog's. A counter that selects the catalog input
// also sums those of its qualified inputs that the filter takes now, so
// the walk counts them like any input; a write to a filter register or to
// the counter's control decodes the selection again from that cycle.
#include <algorithm>
#include <stdexcept>

#include "core/box_core.h"

namespace pmonsim {

void box_core::post_qualified_run(cycle_t from, uint64_t n, unsigned input, request_quals q, uint32_t value) {
    if (input >= catalog_inputs_) throw std::out_of_range("no input " + std::to_string(input));
    // Whatever post_run refuses of the catalog input, it refuses here.
    if (q.given == 0 || static_cast<int>(input) == clock_input_ || value > max_inc_[input] || from < cur_ ||
        n > ~cycle_t{0} - from)
        return post_run(from, n, input, value);
    if (auto p = check_quals(spec_, input, q))
        throw std::invalid_argument(spec_.name + ": column '" + p->column + "': " + p->reason);
    if (n == 0 || value == 0) return;
    if (!(q.given & request_field::tid)) q.tid = request_quals::no_thread;
    auto [it, added] = qual_index_->try_emplace({input, q}, 0u);
    if (added) {
        if (quals_.size() < max_qualified) {
            it->second = static_cast<unsigned>(inputs_.size());
            quals_.push_back({input, q});
            inputs_.push_back(0);
            rising_.push_back(0);
            uses_.push_back({});
            use_mask_.push_back(0);
            max_inc_.push_back(max_inc_[input]);
        } else {
            // Full: reuse an input whose runs are over (0 now and no rise
            // pending: every run's fall follows its rise, so none is left).
            size_t k = 0;
            while (k < quals_.size() && (inputs_[catalog_inputs_ + k] != 0 || rising_[catalog_inputs_ + k] != 0)) ++k;
            if (k == quals_.size()) {
                qual_index_->erase(it);
                throw std::length_error(spec_.name + ": more than " + std::to_string(max_qualified) +
                                        " distinct qualified inputs (sub-event and request attributes) at once");
            }
            qual_index_->erase({quals_[k].base, quals_[k].q});
            it->second = catalog_inputs_ + static_cast<unsigned>(k);
            drop_qualified(it->second);
            quals_[k] = {input, q};
            max_inc_[it->second] = max_inc_[input];
        }
        select_qualified(it->second);  // (it holds 0 until its first step: no count changes now)
    }
    post_run(from, n, it->second, value);
}

uint64_t box_core::filter_reg(unsigned index) const {
    const int64_t off = filter_offset_.at(index);
    if (off < 0) return 0;
    const auto it = stored_.find(static_cast<uint32_t>(off));
    return it == stored_.end() ? 0 : it->second;
}

bool box_core::takes(const qualified& q, const counter& c) const {
    namespace rf = request_field;
    namespace f = cbo_filter_bits;
    const uint8_t uses = spec_.catalog->input_filters(q.base);
    auto bit = [](uint64_t mask, unsigned k) { return k < 64 && ((mask >> k) & 1u) != 0; };
    auto need = [&](uint8_t field, bool ok) { return !(uses & field) || ok; };
    switch (spec_.requests) {
        case request_filter::none: return false;
        case request_filter::cbo_one_filter: {
            const uint64_t r = filter_reg(0);
            return need(rf::state, bit(f::snb_state.get(r), q.q.state)) && need(rf::nid, bit(f::snb_nid.get(r), q.q.nid)) &&
                   need(rf::opc, f::snb_opc.get(r) == q.q.opc) &&
                   (!cbo_bits::tid_en.test(c.ctl) || f::tid.get(r) == q.q.tid);
        }
        case request_filter::cbo_two_filters: {
            const uint64_t r0 = filter_reg(0), r1 = filter_reg(1);
            const uint64_t states = f::ivb_state.get(r0);
            // The manual gives M two bits, 3 and 5 (329468-002 Table 2-16).
            const bool state = bit(states, q.q.state) || (q.q.state == static_cast<uint8_t>(llc_state::m) && bit(states, 5));
            return need(rf::state, state) && need(rf::nid, bit(f::ivb_nid.get(r1), q.q.nid)) &&
                   need(rf::opc, f::ivb_opc.get(r1) == q.q.opc) &&
                   (!cbo_bits::tid_en.test(c.ctl) || f::tid.get(r0) == q.q.tid);
        }
        case request_filter::ha_addr_opcode: {
            namespace m = ha_match_bits;
            const bool addr = m::lo_addr.get(filter_reg(0)) == m::lo_addr.get(q.q.addr) &&
                              m::hi_addr.get(filter_reg(1)) == m::hi_addr.get(q.q.addr >> 32);
            return need(rf::addr, addr) && need(rf::opc, m::opc.get(filter_reg(2)) == q.q.opc);
        }
    }
    return false;
}

void box_core::add_qualified(counter& c) const {
    const size_t n = c.inputs.size();
    for (size_t k = 0; k < quals_.size(); ++k) {
        const auto times = std::count(c.inputs.begin(), c.inputs.begin() + static_cast<std::ptrdiff_t>(n), quals_[k].base);
        if (times && takes(quals_[k], c)) c.inputs.insert(c.inputs.end(), static_cast<size_t>(times), catalog_inputs_ + static_cast<unsigned>(k));
    }
}

// Counters whose selection includes the input's sub-event and whose filter
// takes its requests sum it from now (a mirror of counter 0 as counter 0).
void box_core::select_qualified(unsigned in) {
    const qualified& q = quals_[in - catalog_inputs_];
    for (unsigned i = 0; i < ctr_.size(); ++i) {
        counter& c = ctr_[i];
        if (!c.counts || spec_.is_fixed(i) || spec_.is_free(i)) continue;
        const bool mirror = i != 0 && spec_.mirror_code >= 0 &&
                            ctl_bits::ev_sel.get(c.ctl) == static_cast<uint64_t>(spec_.mirror_code);
        const auto times = mirror ? std::count(ctr_[0].inputs.begin(), ctr_[0].inputs.end(), in)
                           : takes(q, c) ? std::count(c.inputs.begin(), c.inputs.end(), q.base)
                                         : 0;
        c.inputs.insert(c.inputs.end(), static_cast<size_t>(times), in);
        uses_[in][i] = static_cast<uint8_t>(times);
        if (times) use_mask_[in] = static_cast<uint8_t>(use_mask_[in] | (1u << i));
    }
}

// An input that holds 0 leaves every selection.
void box_core::drop_qualified(unsigned in) {
    for (counter& c : ctr_) c.inputs.erase(std::remove(c.inputs.begin(), c.inputs.end(), in), c.inputs.end());
    uses_[in] = {};
    use_mask_[in] = 0;
}

void box_core::requalify() {
    for (unsigned i = 0; i < ctr_.size(); ++i) {
        const bool diagnosed = ctr_[i].diagnosed;
        decode(i);
        ctr_[i].diagnosed = diagnosed;
    }
}

}  // namespace pmonsim
