// One PMON box (UBox general counters, UBox fixed counter, R2PCIe, or a QPI
// link-layer port) in plain C++: its registers, its counters, and the counting
// pipeline of 327043-001/329468-002 §2.1 (event select, threshold/invert/edge,
// enable, box and global freeze, wraparound, overflow status, ov_en messages).
//
// Nothing ticks. Per-cycle event increments are posted ahead as additive steps
// ("from cycle c, input i changes by d"); advance_to() walks from one change to
// the next and brings every counter up to date in closed form. A QPI port's
// flits come instead as packets placed in flit slots (flit_stream.h): the walk
// follows each direction's slots run by run. A register access
// first syncs the box to the access time. Overflows that must message the UBox
// (ov_en on IVB-EP while the box's GLOBAL_STATUS bit is clear) split the walk,
// so the owner can freeze the box from the next cycle and schedule the rest.
#pragma once
#include <algorithm>
#include <array>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "catalog/catalog.h"
#include "desc/box_spec.h"
#include "desc/clock.h"
#include "desc/qpi_packet.h"
#include "desc/request_quals.h"
#include "core/conditioning.h"
#include "core/diagnostics.h"
#include "core/flit_stream.h"
#include "core/step_queue.h"
#include "tables/register_table.h"

namespace pmonsim {

struct overflow_message {
    cycle_t cycle;     // the cycle whose increment carried out
    unsigned counter;
};

class box_core {
public:
    box_core(box_spec spec, clock_domain clock, diagnostic_sink* diags, unsigned socket = 0);

    const box_spec& spec() const { return spec_; }
    const clock_domain& clock() const { return clock_; }
    cycle_t cycle() const { return cur_; }

    // --- time ---------------------------------------------------------------
    // Walk forward to `target` (counting cycles < target). With stop_on_message
    // the walk ends right after a cycle that raised an overflow message.
    std::optional<overflow_message> advance_to(cycle_t target, bool stop_on_message = false);
    // Sync to an access at time t: advance_to(cycles_before(t)).
    std::optional<overflow_message> sync(time_ps t, bool stop_on_message = false);
    // The next cycle that will raise a message under the inputs posted so far.
    std::optional<cycle_t> predict_message() const;
    // Whether any counter could raise a message now (cheap; predict_message()
    // walks the posted inputs).
    bool may_message() const { return ov_mask_ && armed_ && spec_.global_bit >= 0; }
    // A cycle before which no message can be raised under the inputs posted
    // so far (cheap, from bounds; predict_message() is exact). A very large
    // value when none can be raised.
    cycle_t message_horizon() const;

    // --- freeze inputs from outside the box (effective from the current cycle) --
    void set_global_freeze(bool on, time_ps now = 0);
    bool global_freeze() const { return global_freeze_; }
    void set_armed(bool armed) { armed_ = armed; }
    // Per-counter global enables (bit i: counter i may count), where a
    // global control has them (Nehalem's EN_PCn): effective from time t.
    void set_counter_gate(uint32_t gate, time_ps t);
    uint32_t counter_gate() const { return gate_; }
    bool armed() const { return armed_; }
    bool frozen() const;

    // --- event inputs -------------------------------------------------------
    // From cycle `from` on, input `input` changes by `delta` (additive steps).
    void post_step(cycle_t from, unsigned input, int64_t delta);
    // Convenience: value v during cycles [from, from + n). (Inline: once per
    // event-trace row; what it refuses goes out of line.)
    void post_run(cycle_t from, uint64_t n, unsigned input, uint32_t value) {
        if (n == 0 || value == 0) return;
        // One test for the usual run, the reasons in refuse_run().
        if (input >= max_inc_.size() || value > max_inc_[input] || from < cur_ || n > ~cycle_t{0} - from) [[unlikely]]
            refuse_run(from, input, value);
        const int32_t v = static_cast<int32_t>(value);  // max_inc fits
        push_step({from, input, v});
        push_step({from + n, input, -v});
    }
    // Applies the input changes due in the current cycle now rather than when
    // the walk next moves, so input_value()/input_now() need not search the
    // pending changes (waveform sampling). Packet headers still wait for
    // their cycle: their filter match uses that cycle's registers.
    void settle();
    // QPI: a received packet header in cycle `at`, its MATCH-layout fields,
    // outside any flit slot (for tests of the filter alone).
    void post_rx_header(cycle_t at, uint64_t fields);
    // Nehalem/Westmere (packet_filter::addr_opcode_match): a request reaching
    // the home logic in cycle `at` from `src`, its fields in the layout of
    // MSR_UNCORE_ADDR_OPCODE_MATCH (addr_match_fields()). If the register
    // matches it in that cycle, ADDR_OPCODE_MATCH's sub-event of `src` gets 1.
    void post_request(cycle_t at, home_src src, uint64_t fields);
    // A qualified event-trace row (decisions.md B14): `value` per cycle in
    // [from, from + n) on catalog input `input`, for requests with the
    // attributes `q` (check_quals() must hold; none given: post_run). A
    // counter selecting the input takes it in the cycles in which the box's
    // filter, as it is then, and the counter's tid_en take the requests.
    // Each distinct (input, attributes) becomes an input of its own.
    void post_qualified_run(cycle_t from, uint64_t n, unsigned input, request_quals q, uint32_t value);
    // The most distinct qualified inputs a box holds at once: one whose runs
    // are over is reused for new attributes.
    static constexpr size_t max_qualified = 4096;

    // --- QPI flit slots (qpi_link) --------------------------------------------
    // Registers a slot kind of direction `dir` (0 receive, 1 transmit): the
    // inputs one flit in such a slot increments. The first kind of a
    // direction is its idle kind. Returns the kind.
    uint8_t add_slot_kind(unsigned dir, std::vector<unsigned> inputs);
    // Received headers (this direction's) go to the packet filter for CTO_COUNT.
    void filter_headers_of(unsigned dir);
    // A packet in the direction's slots; bursts come in slot order, at or
    // after the current cycle's first slot.
    // (Inline: once per replayed packet; anything unusual goes to the
    // out-of-line checks.)
    void post_burst(unsigned dir, const flit_burst& b) {
        flit_stream& st = (*streams_)[dir & 1];
        const bool ok = dir < 2 && b.start >= first_slot(cur_) && b.start >= st.end_slot && b.nondata != 0 &&
                        std::max(b.nondata_kind, b.data_kind) < st.kind_count && b.repeat != 0 &&
                        (b.repeat == 1 || b.period >= b.len());
        if (!ok) reject_burst(dir, b);
        st.bursts.push_back(b);
        st.end_slot = b.end();
    }
    // The same for qpi_link, whose bursts are well formed by construction
    // (each starts at or after the end of the one before, with kinds the
    // link registered, at least one header flit): only the cycle is checked.
    void post_link_burst(unsigned dir, const flit_burst& b) {
        flit_stream& st = (*streams_)[dir & 1];
        // (The burst's start alone to the cold path: a burst whose address
        // is taken is built in memory and then copied with wider loads than
        // it was stored with, which stalls once per packet.)
        if (b.start < first_slot(cur_)) reject_late_burst(b.start);
        st.bursts.push_back(b);
        st.end_slot = b.end();
    }

    // Many post_link_burst()s: link_append(d, n) gives room for n bursts of
    // direction d, link_appended() keeps them (`end`: the last one's end).
    burst_ring::appender link_append(unsigned dir, size_t n) { return (*streams_)[dir & 1].bursts.append(n); }
    void link_appended(unsigned dir, const burst_ring::appender& a, uint64_t end) {
        flit_stream& st = (*streams_)[dir & 1];
        st.bursts.appended(a);
        st.end_slot = end;
    }
    // A burst placed before the current cycle: the error post_link_burst() throws.
    [[noreturn]] void reject_late_burst(uint64_t start) const;

    // The input's value from posted steps (for flit inputs: the part not
    // coming from slots), as of the last cycle the walk applied.
    uint64_t input_value(unsigned input) const { return inputs_.at(input); }
    // The input's value in the current cycle (cycle()), changes due then
    // included; CTO_COUNT's input also counts this cycle's matching headers.
    uint64_t input_now(unsigned input) const;

    // --- registers ------------------------------------------------------------
    // Whole-register access with bit masks of the bytes the access covers.
    uint64_t read_reg(const register_def& r, uint64_t access_mask, time_ps now);
    void write_reg(const register_def& r, uint64_t value, uint64_t access_mask, time_ps now);

    // Direct views for reports, waveforms and tests.
    uint64_t counter_value(unsigned i) const { return ctr_.at(i).value; }
    uint32_t counter_ctl(unsigned i) const { return ctr_.at(i).ctl; }
    uint64_t counter_wraps(unsigned i) const { return ctr_.at(i).wraps; }
    uint32_t counter_increment(unsigned i) const;   // this cycle's raw increment
    bool counter_compare(unsigned i) const { return ctr_.at(i).prev; }
    bool counter_counts(unsigned i) const;          // enabled, valid event, not frozen
    uint32_t box_status() const { return status_; }
    // How many times a status bit went from 0 to 1 (Nehalem's CHG).
    uint64_t status_sets() const { return status_sets_; }
    // Clears status bits (for a global control that keeps the box's status
    // in its own register, Nehalem's GLOBAL_STATUS.OVF_PCn), at time t.
    void clear_status(uint32_t bits, time_ps t) {
        sync(t);
        status_ &= ~bits;
    }
    uint32_t box_ctl() const { return box_ctl_; }
    uint64_t filter_match() const { return match_; }
    uint64_t filter_mask() const { return mask_; }
    uint64_t band_filter() const { return band_filter_; }
    // Whether the packet filter takes a header or request with these fields now.
    bool filter_matches(uint64_t fields) const {
        switch (spec_.filter) {
            case packet_filter::qpi_match_mask: return ((fields ^ match_) & mask_) == 0;
            case packet_filter::addr_opcode_match: return addr_opcode_matches(fields);
            case packet_filter::none: return false;
        }
        return false;
    }
    std::string event_name(unsigned i) const;      // decoded selection, for reports

private:
    struct counter {
        uint64_t value = 0;
        uint32_t ctl = 0;
        bool prev = false;
        uint64_t wraps = 0;
        // decoded
        bool en = false, ov_en = false;
        conditioning cond;
        bool counts = false;               // selection valid
        std::vector<unsigned> inputs;      // summed for the increment
        std::string problem;               // why it counts nothing
        std::string ignored;               // fields set that the selection ignores
        int32_t band = -1;                 // band events: the filter byte the input must reach
        bool diagnosed = false;
        // How the counter follows flit slots: -1 not at all, else the direction.
        int flit_dir = -1;
        std::array<uint8_t, max_slot_kinds> slot_w{};  // weight per slot kind
        uint8_t header_w = 0;                          // counts CTO_COUNT's input
        uint32_t max_slot_w = 0;                       // heaviest slot kind
    };
    // A qualified input: catalog input `base` for requests with `q`.
    struct qualified {
        unsigned base;
        request_quals q;
    };
    using step = input_step;
    struct header { cycle_t cycle; uint64_t fields; };
    struct request { cycle_t cycle; uint64_t fields; unsigned input; };

    // (By value and inline: a step built in a caller's stack slot, field by
    // field, and read back as 16 bytes stalled each push on the store.)
    void push_step(step st) {
        if (st.delta > 0) rising_[st.input] += static_cast<uint64_t>(st.delta);
        steps_.push(st);
    }
    // Counts n cycles from cycle `from` of increment `inc` on counter i
    // (threshold, edge, wrap; a counter outside PMON adds the TSC ticks of
    // the cycles its compare holds). Inline: an event row counts the
    // counters that sum its input, and a call with its saved registers cost
    // more than the count; a counter outside PMON and a carry go out of line.
    void count_run(unsigned i, uint32_t inc, cycle_t from, uint64_t n) {
        if (spec_.is_free(i)) [[unlikely]]
            return count_free_run(i, inc, from, n);
        counter& c = ctr_[i];
        const run_adds a = condition_run(c.cond, inc, c.prev);
        const unsigned __int128 sum = c.value + (a.first + static_cast<unsigned __int128>(a.rest) * (n - 1));
        c.value = static_cast<uint64_t>(sum) & width_mask(spec_.width);
        c.prev = condition_after_run(c.cond, inc, c.prev);
        if (const uint64_t carries = static_cast<uint64_t>(sum >> spec_.width)) [[unlikely]]
            carried(i, carries);
    }
    void count_free_run(unsigned i, uint32_t inc, cycle_t from, uint64_t n);
    // Throws why post_run() cannot take its run.
    [[noreturn]] void refuse_run(cycle_t from, unsigned input, uint32_t value) const;
    void carried(unsigned i, uint64_t carries);
    // Counter i's increment before conditioning: its inputs' sum, or for a
    // band event whether that reaches the band (the fixed counter: 1).
    uint32_t inc_of(unsigned i) const {
        const counter& c = ctr_[i];
        if (spec_.is_fixed(i)) return 1;
        return c.band < 0 ? static_cast<uint32_t>(ginc_[i]) : ginc_[i] >= static_cast<uint64_t>(c.band);
    }
    unsigned width_of(unsigned i) const { return spec_.is_free(i) ? 64u : spec_.width; }
    // Counts the counters outside PMON over n cycles (when the others are frozen).
    void count_free(uint64_t n);
    void advance_lazily(cycle_t target);
    // Applies one posted step to the inputs and the counters' summed
    // increments; touched(i) runs just before counter i's changes.
    template <class F>
    void apply_step(const step& s, F&& touched);
    [[noreturn]] void reject_burst(unsigned dir, const flit_burst& b) const;
    void decode(unsigned i);
    void decode_uses(unsigned i);  // the per-input bookkeeping of counter i's selection
    void note_carry(unsigned i);
    void decode_ctl(unsigned i);
    void decode_occupancy(counter& c, uint8_t ev, uint8_t& umask) const;
    void derive_slot_weights(counter& c) const;
    // Flit-slot counting over [cur_, cur_ + n) for the counters following
    // direction d; incs[i] is counter i's increment from other inputs.
    void walk_slots(unsigned d, uint64_t n, const std::array<uint32_t, max_box_counters>& incs);
    // The first cycle in [cur_, cur_ + n) in which a message-capable counter
    // following direction d carries out, and which counter.
    std::optional<std::pair<uint64_t, unsigned>> first_slot_carry(
        unsigned d, uint64_t n, const std::array<uint32_t, max_box_counters>& incs) const;
    void skip_slots(unsigned d, cycle_t to);
    void drop_consumed(unsigned d, size_t idx);
    uint64_t slot_input_now(unsigned input) const;
    // Applies the input changes (and, with `headers`, the packet headers)
    // due at cur_; idempotent.
    void apply_due(bool headers);
    void check_live(unsigned i, time_ps now);
    void check_all_live(time_ps now);
    void diag(const register_def& r, uint64_t value, time_ps now, std::string reason);
    bool message_capable(const counter& c) const;
    uint64_t count_matches(cycle_t c) const;
    bool addr_opcode_matches(uint64_t fields) const;
    // Whether counter c takes qualified input q's requests now (B14).
    bool takes(const qualified& q, const counter& c) const;
    // Adds the qualified inputs counter c takes to its selection.
    void add_qualified(counter& c) const;
    // Decodes every counter again after the filters changed, keeping what
    // was already diagnosed.
    void requalify();
    // A qualified input joins (select_) or leaves (drop_) the counters'
    // selections; it holds 0 then, so no increment changes.
    void select_qualified(unsigned in);
    void drop_qualified(unsigned in);
    uint64_t filter_reg(unsigned index) const;
    // The requests due at cur_ become steps of ADDR_OPCODE_MATCH's inputs
    // (1 for that cycle per matching request), judged by the register now.
    void take_requests();
    bool is_request_input(unsigned input) const {
        return std::find(request_input_.begin(), request_input_.end(), static_cast<int>(input)) !=
               request_input_.end();
    }

    // Beyond any real run (36 years of a 1 GHz clock), so slot numbers (2 per
    // cycle) and sums of increments stay far from 64 bits.
    static constexpr cycle_t horizon = cycle_t{1} << 60;

    // Shared so that the trial copy made by predict_message() is cheap.
    std::shared_ptr<const box_spec> spec_ptr_;
    const box_spec& spec_;
    clock_domain clock_;
    diagnostic_sink* diags_;
    unsigned socket_;

    cycle_t cur_ = 0;
    std::vector<counter> ctr_;
    uint32_t box_ctl_ = 0;
    uint32_t status_ = 0;
    uint64_t status_sets_ = 0;
    // QPI: {MATCH1,MATCH0} and {MASK1,MASK0}; Nehalem/Westmere: match_ is
    // MSR_UNCORE_ADDR_OPCODE_MATCH.
    uint64_t match_ = 0, mask_ = 0;
    std::map<uint32_t, uint64_t> stored_;  // reg_role::stored registers, by offset
    uint64_t band_filter_ = 0;             // the PCU's band filter
    // The request filter's registers (reg_role::stored, by index): their offsets.
    std::array<int64_t, 3> filter_offset_{-1, -1, -1};
    // Qualified inputs, input catalog_inputs_ + k; the index of each
    // (input, attributes), shared with predict_message()'s trial copies.
    std::vector<qualified> quals_;
    std::shared_ptr<std::map<std::pair<unsigned, request_quals>, unsigned>> qual_index_ =
        std::make_shared<std::map<std::pair<unsigned, request_quals>, unsigned>>();
    unsigned catalog_inputs_ = 0;
    bool global_freeze_ = false;
    bool armed_ = true;
    uint32_t gate_ = ~0u;

    std::vector<uint64_t> inputs_;
    std::vector<uint64_t> rising_;              // per input: positive steps not applied yet
    std::vector<uint32_t> max_inc_;             // per input: its event's largest increment (0: CLOCKTICKS)
    std::vector<std::array<uint8_t, max_box_counters>> uses_;  // per input: times each counter sums it
    std::vector<uint8_t> use_mask_;             // per input: the counters that sum it, a bit each
    std::array<uint64_t, max_box_counters> ginc_{};            // per counter: sum of its inputs_
    uint32_t ov_mask_ = 0;                      // counters that count with ov_en
    step_queue steps_;             // posted input changes, earliest first
    std::deque<header> headers_;   // sorted by cycle
    std::deque<request> requests_; // sorted by cycle
    // ADDR_OPCODE_MATCH's input per home_src (-1: no such filter).
    std::array<int, home_src_count> request_input_{-1, -1, -1};
    int cto_input_ = -1;
    int clock_input_ = -1;  // CLOCKTICKS: driven by the box itself
    uint32_t cto_now_ = 0;
    cycle_t cto_expire_ = 0;

    // Flit slots per direction. Shared so that predict_message()'s trial copy
    // reads them without copying; only a box that is not a trial copy pops
    // them (first_ counts what a trial copy has walked past).
    std::shared_ptr<std::array<flit_stream, 2>> streams_;
    std::array<size_t, 2> first_{};
    bool trial_ = false;
    bool has_slots_ = false;
};

}  // namespace pmonsim
