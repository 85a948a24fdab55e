// The pending input changes of one box (box_core), consumed in cycle order.
//
// Why not a binary heap: an event-trace row becomes two changes, its start
// and its end. Starts arrive in cycle order (rows are in time order) and an
// end lands a little after the latest start, so nearly every change belongs
// at or just before the back of a sorted list. A heap pays log2(pending)
// unpredictable comparisons per push and per pop; with a thousand cycles of
// look-ahead that was most of an event row's cost. Here a change is inserted
// into a sorted array by scanning back from its end, at most kScan entries;
// one that would go further back (a long row ending behind many later
// starts) goes to a small heap instead, so no order of posts costs more than
// a heap would. The front is the earlier of the two.
//
// Changes in the same cycle come out in no particular order: they are
// additive, so box_core applies them all before counting that cycle.
#pragma once
#include <algorithm>
#include <cstddef>
#include <cstdint>
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
    static constexpr unsigned kScan = 8;

    bool empty() const { return head_ == sorted_.size() && heap_.empty(); }
    std::size_t size() const { return sorted_.size() - head_ + heap_.size(); }

    // The cycle of the earliest change; the largest cycle_t when empty.
    cycle_t front_cycle() const {
        const cycle_t a = head_ < sorted_.size() ? sorted_[head_].cycle : kNone;
        const cycle_t b = heap_.empty() ? kNone : heap_.front().cycle;
        return a < b ? a : b;
    }
    // The earliest change (not empty()).
    const input_step& front() const { return from_heap() ? heap_.front() : sorted_[head_]; }

    void push(const input_step& s) {
        std::size_t j = sorted_.size();
        for (unsigned scanned = 0; j > head_ && sorted_[j - 1].cycle > s.cycle; --j)
            if (++scanned > kScan) {
                heap_.push_back(s);
                std::push_heap(heap_.begin(), heap_.end(), later{});
                return;
            }
        if (j == sorted_.size()) sorted_.push_back(s);
        else sorted_.insert(sorted_.begin() + static_cast<std::ptrdiff_t>(j), s);
    }

    // Removes front().
    void pop() {
        if (from_heap()) {
            std::pop_heap(heap_.begin(), heap_.end(), later{});
            heap_.pop_back();
            return;
        }
        if (++head_ == sorted_.size()) {
            sorted_.clear();
            head_ = 0;
        } else if (head_ >= kCompactAt && 2 * head_ >= sorted_.size()) {
            // Consumed entries at the front: drop them (amortized O(1)).
            sorted_.erase(sorted_.begin(), sorted_.begin() + static_cast<std::ptrdiff_t>(head_));
            head_ = 0;
        }
    }

    // Every pending change, in no particular order.
    template <class F>
    void for_each(F&& f) const {
        for (std::size_t i = head_; i < sorted_.size(); ++i) f(sorted_[i]);
        for (const input_step& s : heap_) f(s);
    }

private:
    static constexpr cycle_t kNone = std::numeric_limits<cycle_t>::max();
    static constexpr std::size_t kCompactAt = 256;
    struct later {
        bool operator()(const input_step& a, const input_step& b) const { return a.cycle > b.cycle; }
    };
    bool from_heap() const {
        return !heap_.empty() && (head_ == sorted_.size() || heap_.front().cycle < sorted_[head_].cycle);
    }

    std::vector<input_step> sorted_;  // [head_, end) sorted by cycle
    std::size_t head_ = 0;
    std::vector<input_step> heap_;    // min-heap on cycle: changes posted far behind the back
};

}  // namespace pmonsim
