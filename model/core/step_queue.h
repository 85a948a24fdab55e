// The pending input changes of one box (box_core), consumed in cycle order.
//
// Why not a binary heap: an event-trace row becomes two changes, its start
// and its end. Starts arrive in cycle order (rows are in time order) and an
// end lands a little after the latest start, so nearly every change belongs
// at or just before the back of a sorted list. A heap pays log2(pending)
// unpredictable comparisons per push and per pop; with a thousand cycles of
// look-ahead that was most of an event row's cost. Here a change goes into a
// sorted array at most kScan entries before its end; one that would go
// further back (a long row ending behind many later starts) goes to a small
// heap instead, so no order of posts costs more than a heap would. The front
// is the earlier of the two.
//
// The insertion has no branch on how far back the change goes (0 - 3
// entries for event rows, in no order a predictor learns: a loop that
// scanned back until it found the place mispredicted its exit about once per
// row). It counts the later ones among the last kScan entries, and moves a
// fixed block of kScan entries up by one from there. For that, kPad entries
// always lie before the pending ones (taken ones, or zero at first: none is
// later than a change still to come, since nothing is pushed before a change
// already taken), and kScan entries of room after them.
//
// Changes in the same cycle come out in no particular order: they are
// additive, so box_core applies them all before counting that cycle.
#pragma once
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <vector>

#include "desc/clock.h"

namespace pmonsim {

// From cycle `cycle` on, `input` changes by `delta` (16 bytes: a replay
// moves two per event-trace row).
struct input_step {
    cycle_t cycle;
    unsigned input;
    int32_t delta;
};

class step_queue {
public:
    static constexpr unsigned kScan = 4;

    bool empty() const { return head_ == end_ && heap_.empty(); }
    std::size_t size() const { return end_ - head_ + heap_.size(); }

    // The cycle of the earliest change; the largest cycle_t when empty.
    cycle_t front_cycle() const {
        const cycle_t a = head_ < end_ ? buf_[head_].cycle : kNone;
        const cycle_t b = heap_.empty() ? kNone : heap_.front().cycle;
        return a < b ? a : b;
    }
    // The earliest change (not empty()).
    const input_step& front() const { return from_heap() ? heap_.front() : buf_[head_]; }

    // A change; never before one already taken (pop(), take_before()).
    void push(const input_step& s) {
        if (end_ + 1 + kScan > buf_.size()) make_room();
        input_step* const e = buf_.data() + end_;
        std::size_t later = 0;  // of the last kScan entries (sorted): those after s
        for (unsigned k = 1; k <= kScan; ++k) later += e[-static_cast<std::ptrdiff_t>(k)].cycle > s.cycle;
        if (later == kScan && e[-static_cast<std::ptrdiff_t>(kScan) - 1].cycle > s.cycle) [[unlikely]] {
            heap_.push_back(s);
            std::push_heap(heap_.begin(), heap_.end(), later_cycle{});
            return;
        }
        // The last kScan entries and the room after them, then s in its
        // place and the `later` ones (with what followed them) after it.
        input_step block[2 * kScan];
        std::memcpy(block, e - kScan, sizeof block);
        e[-static_cast<std::ptrdiff_t>(later)] = s;
        std::memcpy(e - later + 1, block + kScan - later, kScan * sizeof(input_step));
        ++end_;
    }

    // Takes the earliest change into `out` if it comes before cycle
    // `before` (one choice between the two stores, not one per call of
    // front_cycle(), front() and pop()).
    bool take_before(cycle_t before, input_step& out) {
        if (!heap_.empty() && (head_ == end_ || heap_.front().cycle < buf_[head_].cycle)) [[unlikely]] {
            if (heap_.front().cycle >= before) return false;
            out = heap_.front();
            pop_heap_front();
            return true;
        }
        if (head_ == end_ || buf_[head_].cycle >= before) return false;
        out = buf_[head_];
        drop_head();
        return true;
    }

    // Removes front().
    void pop() {
        if (from_heap()) return pop_heap_front();
        drop_head();
    }

    // Every pending change, in no particular order.
    template <class F>
    void for_each(F&& f) const {
        for (std::size_t i = head_; i < end_; ++i) f(buf_[i]);
        for (const input_step& s : heap_) f(s);
    }

private:
    static constexpr cycle_t kNone = std::numeric_limits<cycle_t>::max();
    static constexpr std::size_t kPad = kScan + 1;  // entries before head_ (push() reads kScan + 1 back)
    struct later_cycle {
        bool operator()(const input_step& a, const input_step& b) const { return a.cycle > b.cycle; }
    };
    bool from_heap() const { return !heap_.empty() && (head_ == end_ || heap_.front().cycle < buf_[head_].cycle); }
    void pop_heap_front() {
        std::pop_heap(heap_.begin(), heap_.end(), later_cycle{});
        heap_.pop_back();
    }
    void drop_head() {
        if (++head_ == end_) head_ = end_ = kPad;  // (the entries before stay: taken ones)
    }
    // Room for a push and its block: the taken entries dropped when they
    // are a quarter of the array (the last kPad of them kept in front), else
    // an array twice as large. (Each entry is moved at most four times on
    // average.)
    void make_room() {
        if (const std::size_t drop = head_ - kPad; drop >= buf_.size() / 4) {
            std::memmove(buf_.data(), buf_.data() + drop, (end_ - drop) * sizeof(input_step));
            head_ -= drop;
            end_ -= drop;
            if (end_ + 1 + kScan <= buf_.size()) return;
        }
        buf_.resize(2 * buf_.size());
    }

    // [0, head_): taken (the last kPad of them, or zeros); [head_, end_):
    // pending, sorted by cycle; [end_, end_ + kScan): room for push().
    std::vector<input_step> buf_ = std::vector<input_step>(32, input_step{0, 0, 0});
    std::size_t head_ = kPad, end_ = kPad;
    std::vector<input_step> heap_;  // min-heap on cycle: changes posted far behind the back
};

}  // namespace pmonsim
