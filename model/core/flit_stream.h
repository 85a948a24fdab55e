// One direction of a QPI link as its port's counters see it (327043-001
// §2.6.1, 329468-002 §2.7.1; DECISIONS.md "QPI link layer"): two flit slots
// per QCLK, each idle or carrying one flit of a packet.
//
// Why not additive input steps: a packet would become up to eight pending
// changes, and the box would walk from change to change through a heap. Here a
// packet is one record (a burst) in a FIFO, and a counter is advanced over a
// whole run of equal slots at once: the idle gap before the packet, its header
// slot, its other non-data flits, its data flits. Per packet that is a handful
// of closed-form steps per counter, whatever the gap length.
//
// A slot "kind" is the set of catalog inputs one flit in that slot increments
// (G0 NON_DATA + its G1/G2 class, G0 DATA + class, or G0 IDLE); kind 0 is the
// idle kind, used by every slot no burst covers.
#pragma once
#include <algorithm>
#include <array>
#include <cstdint>
#include <vector>

#include "desc/clock.h"
#include "core/conditioning.h"

namespace pmonsim {

// The flit-slot rule: each direction of a port has two flit slots per QCLK
// cycle, slot s in cycle s / 2 (327043-001 §2.6.1; DECISIONS.md "QPI link layer").
constexpr uint64_t slots_per_cycle = 2;
constexpr uint64_t first_slot(cycle_t c) { return slots_per_cycle * c; }
constexpr cycle_t cycle_of_slot(uint64_t s) { return s / slots_per_cycle; }

// One packet in a direction's slots, or `repeat` equal packets whose starts
// are `period` slots apart (a run-length burst of a trace, placed in closed
// form: the slots between one packet's end and the next one's start are idle).
struct flit_burst {
    uint64_t start = 0;     // first slot
    uint16_t nondata = 1;   // non-data flits, the header first (>= 1)
    uint16_t data = 0;      // data flits after them
    uint8_t nondata_kind = 0;
    uint8_t data_kind = 0;
    uint32_t repeat = 1;    // packets (>= 1)
    uint32_t period = 0;    // slots from one packet's start to the next (>= len(); repeat > 1)
    uint64_t fields = 0;    // header fields, {MATCH1, MATCH0} layout
    uint64_t len() const { return uint64_t{nondata} + data; }
    uint64_t end() const { return start + uint64_t{repeat - 1} * period + len(); }
    uint64_t single_end() const { return start + len(); }  // end() of a burst of one packet

    // How a burst lies in its slots, the one rule every walk follows: the
    // header alone (the only slot the packet filter sees), then the other
    // non-data flits, then the data flits, then (between a repeated burst's
    // packets) idle slots. The run of equal slots from `pos` (within the
    // burst), cut at `limit`.
    struct run {
        uint64_t end;
        uint8_t kind;
        bool header;
    };
    run run_at(uint64_t pos, uint64_t limit) const {
        uint64_t from = start;
        if (repeat > 1) [[unlikely]] {
            from += (pos - start) / period * period;
            if (pos >= from + len()) return {std::min(from + period, limit), 0, false};
        }
        const uint64_t data_from = from + nondata;
        if (pos == from) return {pos + 1, nondata_kind, true};
        if (pos < data_from) return {std::min(data_from, limit), nondata_kind, false};
        return {std::min(data_from + data, limit), data_kind, false};
    }
};
static_assert(sizeof(flit_burst) == 32, "two bursts a cache line");

constexpr unsigned max_slot_kinds = 16;

// A FIFO of bursts in one growing ring: a replay pushes and pops millions of
// them, and a deque would allocate and free a block every few packets.
class burst_ring {
public:
    size_t size() const { return tail_ - head_; }
    bool empty() const { return tail_ == head_; }
    const flit_burst& operator[](size_t i) const { return buf_[(head_ + i) & mask_]; }
    const flit_burst& back() const { return (*this)[size() - 1]; }
    void push_back(const flit_burst& b) {
        if (tail_ - head_ == cap_) grow();
        buf_[tail_++ & mask_] = b;
    }
    void pop_front(size_t n) { head_ += n; }
    // Appending many bursts with the ring's state in the caller's registers
    // (a replay posts thousands of packets in a row; the ring's members, which
    // a burst's stores might alias, would be loaded again for each one):
    // append(n) makes room for n more bursts, appended() keeps what was pushed.
    struct appender {
        flit_burst* buf;
        size_t tail, mask;
        void push(const flit_burst& b) { buf[tail++ & mask] = b; }
    };
    appender append(size_t n) {
        while (cap_ - size() < n) grow();
        return {buf_.data(), tail_, mask_};
    }
    void appended(const appender& a) { tail_ = a.tail; }
    // Bursts [i, i + n) lie one after another in memory from the returned
    // address, n >= 1 for i < size(): up to the ring's wrap or its end.
    const flit_burst* contiguous(size_t i, size_t& n) const {
        const size_t at = (head_ + i) & mask_;
        n = std::min(size() - i, cap_ - at);
        return buf_.data() + at;
    }

private:
    void grow() {
        std::vector<flit_burst> bigger(buf_.empty() ? 64 : 2 * buf_.size());
        for (size_t i = 0; i < size(); ++i) bigger[i] = (*this)[i];
        tail_ = size();
        head_ = 0;
        buf_.swap(bigger);
        cap_ = buf_.size();
        mask_ = cap_ - 1;
    }
    std::vector<flit_burst> buf_;
    size_t head_ = 0, tail_ = 0, mask_ = 0, cap_ = 0;
};

struct flit_stream {
    std::vector<std::vector<unsigned>> kinds;  // kind -> inputs; kinds[0] is idle
    uint8_t kind_count = 0;                    // kinds.size(), for the check of every posted burst
    bool headers_filtered = false;             // receive side: headers go to the packet filter
    burst_ring bursts;                         // in slot order, not overlapping
    uint64_t end_slot = 0;                     // the end of the last burst posted

    // Calls f(pos, len, kind, header_burst) for consecutive runs of equal
    // slots covering cycles [from, to), starting at bursts[idx], where
    // header_burst is the burst whose header is the run's only slot (else
    // null). Leaves idx at the first burst not wholly before cycle `to`.
    // f returns false to stop the walk early (idx is then unspecified).
    template <class F>
    void walk(cycle_t from, cycle_t to, size_t& idx, F&& f) const {
        walk_slots(first_slot(from), first_slot(to), idx, f);
    }
    // The same over slots [pos, end).
    template <class F>
    void walk_slots(uint64_t pos, const uint64_t end, size_t& idx, F&& f) const {
        const size_t n = bursts.size();
        // One call site for f, so that it is inlined.
        while (pos < end) {
            uint64_t run_end = end;
            uint8_t kind = 0;
            const flit_burst* header = nullptr;
            if (idx < n && bursts[idx].start < end) {
                const flit_burst& b = bursts[idx];
                if (pos < b.start) {
                    run_end = b.start;  // idle slots before it
                } else {
                    const flit_burst::run r = b.run_at(pos, end);
                    run_end = r.end;
                    kind = r.kind;
                    if (r.header) header = &b;
                }
                if (run_end == b.end()) ++idx;
            }
            if (!f(pos, run_end - pos, kind, header)) return;
            pos = run_end;
        }
    }

    // The kind of slot s and the burst whose header it is (null if none),
    // searching from bursts[idx].
    uint8_t kind_at(uint64_t s, size_t idx, const flit_burst** header) const {
        *header = nullptr;
        for (; idx < bursts.size() && bursts[idx].start <= s; ++idx) {
            const flit_burst& b = bursts[idx];
            if (s >= b.end()) continue;
            const flit_burst::run r = b.run_at(s, s + 1);
            if (r.header) *header = &b;
            return r.kind;
        }
        return 0;
    }
};

// One counter with a threshold following one direction's slots through a
// walk: the per-cycle increment is g (its inputs from elsewhere, constant over
// the walk) plus the weights of the cycle's two slots. A run of slots splits
// into whole cycles of equal increment (one closed-form step) and at most one
// cycle shared with the next run (`half` carries the first slot's weight into
// it). Counters without a threshold need no lane: they only sum weights.
struct flit_lane {
    // (No member initializers: a walk sets every member in prepare(), and
    // lanes live on the stack of every walk.)
    static constexpr unsigned max_x = 15;  // weights of a cycle's two slots
    const uint8_t* w;   // weight of a slot of each kind (max_slot_kinds)
    uint8_t header_w;   // extra weight of a matching header
    bool edge;
    bool prev;
    int32_t half;       // weight of an unpaired slot, -1 none
    uint64_t add;       // counted during the walk
    // The compare result of a cycle whose slots weigh x in all (threshold
    // and invert applied to g + x), decided once per walk.
    std::array<bool, max_x + 1> hit;

    void prepare(const conditioning& c, uint32_t g, const uint8_t* weights, uint8_t hw, bool prev_hit) {
        for (unsigned x = 0; x <= max_x; ++x) hit[x] = c.invert ? g + x < c.thresh : g + x >= c.thresh;
        edge = c.edge;
        w = weights;
        header_w = hw;
        prev = prev_hit;
        half = -1;
        add = 0;
    }
    // `len` >= 1 slots of weight `wt`.
    void feed(uint64_t len, uint32_t wt) {
        if (half >= 0) {
            const bool h = hit[static_cast<uint32_t>(half) + wt];
            add += edge ? (h && !prev) : h;
            prev = h;
            half = -1;
            if (--len == 0) return;
        }
        if (const uint64_t m = len >> 1) {
            const bool h = hit[slots_per_cycle * wt];
            add += edge ? (h && !prev) : (h ? m : 0);
            prev = h;
        }
        if (len & 1) half = static_cast<int32_t>(wt);
    }

    // A whole packet and the idle gap before it, in closed form: the same
    // as feed(s - a, w0), feed(c - s, wa), feed(d - c, wb), for slots
    // [a, s) idle, [s, c) its non-data flits (header first, c > s) and
    // [c, d) its data flits, but without a branch on the packet's sizes or
    // position (which follow no pattern a branch predictor could learn; the
    // feeds' branches cost a third of a dense replay).
    //
    // Its complete cycles, in order, are at most six items: the cycle the
    // pending slot shares with slot a (when a is odd), the whole cycles of
    // the gap, the cycle shared across s (s odd and a gap before it), the
    // whole cycles of the non-data flits, the cycle shared across c (c odd
    // and data after it), the whole cycles of the data. A slot left over at
    // the end (d odd) becomes the pending one. (A slot is pending exactly
    // when the position is odd: walks start at even slots.)
    template <bool Edge>
    [[gnu::always_inline]] void packet(uint64_t a, uint64_t s, uint64_t c, uint64_t d, uint32_t w0, uint32_t wa,
                                       uint32_t wb) {
        const auto at_least_0 = [](int64_t x) { return static_cast<uint64_t>(x & ~(x >> 63)); };
        const uint64_t gap = static_cast<uint64_t>(s > a);
        // How many of each item: 0 or 1 for the shared cycles.
        const uint64_t n0 = a & 1;
        const uint64_t ng = at_least_0(static_cast<int64_t>(s >> 1) - static_cast<int64_t>((a + 1) >> 1));
        const uint64_t nb = s & 1 & gap;
        const uint64_t nn = (c >> 1) - ((s + 1) >> 1);
        const uint64_t nc = c & 1 & static_cast<uint64_t>(d > c);
        const uint64_t nd = at_least_0(static_cast<int64_t>(d >> 1) - static_cast<int64_t>((c + 1) >> 1));
        // Their compare results (the pending slot's weight only when a is odd).
        const uint32_t first = wa ^ ((wa ^ w0) & (0u - static_cast<uint32_t>(gap)));  // gap ? w0 : wa
        const uint64_t h0 = hit[(static_cast<uint32_t>(half) + first) & (0u - static_cast<uint32_t>(n0))];
        constexpr uint32_t two = slots_per_cycle;  // (both slots of a cycle of one weight)
        const uint64_t hg = hit[two * w0], hb = hit[w0 + wa], hn = hit[two * wa], hc = hit[wa + wb], hd = hit[two * wb];
        // The compare result after each item; an absent item keeps the one
        // before (so it makes no edge). Results are 0 or 1, so keeping or
        // taking is v ^= (v ^ h) & present. With edge detect the results
        // also go into a history, bit 0 the result before the packet.
        uint64_t v = prev, bits = prev;
        unsigned item = 0;
        const auto take = [&](uint64_t present, uint64_t h) {
            v ^= (v ^ h) & present;
            if constexpr (Edge) bits |= v << ++item;
        };
        take(n0, h0);
        take(ng != 0, hg);
        take(nb, hb);
        take(nn != 0, hn);
        take(nc, hc);
        take(nd != 0, hd);
        if constexpr (Edge) add += rising_edges[bits];
        else add += n0 * h0 + ng * hg + nb * hb + nn * hn + nc * hc + nd * hd;
        prev = v != 0;
        // The slot left over: the last data flit, or the last non-data one.
        const uint32_t last = wa ^ ((wa ^ wb) & (0u - static_cast<uint32_t>(d > c)));
        half = static_cast<int32_t>(last | (0u - static_cast<uint32_t>((d & 1) ^ 1)));  // -1 when d is even
    }

    // A repeated burst (b.repeat packets, b.period slots apart) after slot
    // a, the end of what came before: the same as packet() for each of its
    // packets, but in closed form. Two packets span 2 * period slots, a whole
    // number of cycles, so a pair that leaves the lane in the state it found
    // (its compare result and pending slot) is followed by pairs that add the
    // same. Pairs are taken one by one until one does (the first or the
    // second: the pending slot depends only on where the pair ends, and the
    // last compare result on the pair's own slots and the one before them),
    // and the rest of them at once.
    template <bool Edge>
    void repeated(uint64_t a, uint64_t s, uint64_t nondata, uint64_t data, uint64_t repeat, uint64_t period,
                  uint32_t w0, uint32_t wa, uint32_t wb) {
        const uint64_t len = nondata + data;
        auto one = [&] {
            packet<Edge>(a, s, s + nondata, s + len, w0, wa, wb);
            a = s + len;
            s += period;
            --repeat;
        };
        one();
        bool prev_before = prev;
        int32_t half_before = half;
        uint64_t add_before = add;
        while (repeat >= 2) {
            one();
            one();
            if (prev == prev_before && half == half_before) {  // the next pairs add what this one did
                const uint64_t more = repeat / 2;
                add += (add - add_before) * more;
                a += 2 * period * more;
                s += 2 * period * more;
                repeat -= 2 * more;
                break;
            }
            prev_before = prev;
            half_before = half;
            add_before = add;
        }
        if (repeat) one();
    }

private:
    // Rising edges in a 7-bit history (bit i set and bit i - 1 clear, i >= 1).
    static constexpr std::array<uint8_t, 128> rising_edges = [] {
        std::array<uint8_t, 128> t{};
        for (unsigned b = 0; b < 128; ++b)
            for (unsigned i = 1; i < 7; ++i) t[b] += (b >> i & 1) && !(b >> (i - 1) & 1);
        return t;
    }();
};

}  // namespace pmonsim
