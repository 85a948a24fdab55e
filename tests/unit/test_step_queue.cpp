// step_queue (model/core/step_queue.h): whatever the order of pushes, the
// changes come out in cycle order, none lost or duplicated, against a
// std::multimap holding the same changes.
#include <gtest/gtest.h>

#include <limits>
#include <map>
#include <random>
#include <utility>

#include "core/step_queue.h"

namespace pmonsim {
namespace {

using ref_queue = std::multimap<cycle_t, std::pair<unsigned, int32_t>>;

input_step one(cycle_t c, unsigned input, int32_t delta) { return {c, input, delta}; }

void push_both(step_queue& q, ref_queue& ref, const input_step& s) {
    q.push(s);
    ref.emplace(s.cycle, std::make_pair(s.input, s.delta));
}

// Pops everything due at or before `until` from both and compares them cycle
// by cycle (the order within a cycle is free).
void drain_until(step_queue& q, ref_queue& ref, cycle_t until) {
    cycle_t last = 0;
    while (!q.empty() && q.front_cycle() <= until) {
        ASSERT_FALSE(ref.empty());
        const input_step s = q.front();
        ASSERT_EQ(s.cycle, q.front_cycle());
        ASSERT_EQ(s.cycle, ref.begin()->first) << "not the earliest change";
        ASSERT_GE(s.cycle, last);
        last = s.cycle;
        auto range = ref.equal_range(s.cycle);
        auto it = range.first;
        while (it != range.second && it->second != std::make_pair(s.input, s.delta)) ++it;
        ASSERT_NE(it, range.second) << "change at cycle " << s.cycle << " was never pushed (or came out twice)";
        ref.erase(it);
        q.pop();
    }
    ASSERT_EQ(q.size(), ref.size());
    if (!ref.empty()) {
        ASSERT_EQ(q.front_cycle(), ref.begin()->first);
    }
}

TEST(StepQueue, EmptyHasNoFront) {
    step_queue q;
    EXPECT_TRUE(q.empty());
    EXPECT_EQ(q.size(), 0u);
    EXPECT_EQ(q.front_cycle(), std::numeric_limits<cycle_t>::max());
}

TEST(StepQueue, EventRowsStartsInOrderEndsScattered) {
    // The replay's pattern: rows in start order, each with an end up to 300
    // cycles later; the box walks in chunks behind the posts.
    std::mt19937_64 rng(5);
    step_queue q;
    ref_queue ref;
    cycle_t c = 0;
    for (int i = 0; i < 20000; ++i) {
        c += rng() % 30;
        const unsigned in = static_cast<unsigned>(rng() % 4);
        push_both(q, ref, one(c, in, 1));
        push_both(q, ref, one(c + 1 + rng() % 300, in, -1));
        if (i % 64 == 63) drain_until(q, ref, c - std::min<cycle_t>(c, 500));
    }
    drain_until(q, ref, std::numeric_limits<cycle_t>::max() - 1);
    EXPECT_TRUE(q.empty());
    EXPECT_TRUE(ref.empty());
}

TEST(StepQueue, PushesFarBehindTheBackUseTheHeap) {
    // Long rows posted first, then many short ones before their ends: every
    // later push lands behind more than kScan entries.
    step_queue q;
    ref_queue ref;
    for (unsigned i = 0; i < 100; ++i) push_both(q, ref, one(1000000 + i, i, -1));
    for (cycle_t c = 0; c < 5000; ++c) push_both(q, ref, one(5000 - c, 7, 1));  // descending
    for (cycle_t c = 0; c < 5000; ++c) push_both(q, ref, one(c * 7 % 4999, 8, 2));  // scattered
    EXPECT_EQ(q.size(), ref.size());
    drain_until(q, ref, 2500);
    for (cycle_t c = 0; c < 300; ++c) push_both(q, ref, one(2500 + (c * 13) % 600, 9, 3));
    drain_until(q, ref, std::numeric_limits<cycle_t>::max() - 1);
    EXPECT_TRUE(q.empty());
}

TEST(StepQueue, RandomOrderAgainstTheReference) {
    std::mt19937_64 rng(11);
    for (int round = 0; round < 20; ++round) {
        step_queue q;
        ref_queue ref;
        cycle_t floor = 0;
        for (int i = 0; i < 3000; ++i) {
            const int what = static_cast<int>(rng() % 10);
            if (what < 7) {
                // Anything at or after the cycle already drained to.
                const cycle_t span = (rng() % 2) ? 16 : 100000;
                push_both(q, ref, one(floor + rng() % span, static_cast<unsigned>(rng() % 16),
                                      static_cast<int32_t>(rng() % 9) - 4));
            } else {
                floor += rng() % 2000;
                drain_until(q, ref, floor);
                if (::testing::Test::HasFatalFailure()) return;
            }
        }
        drain_until(q, ref, std::numeric_limits<cycle_t>::max() - 1);
        EXPECT_TRUE(q.empty());
    }
}

TEST(StepQueue, EveryDepthBehindTheBack) {
    // A change pushed d entries before the back, for every d up to past
    // kScan (the array's block move, then the heap), with taken entries in
    // front of the pending ones and at the same cycle as the push.
    for (unsigned d = 0; d <= step_queue::kScan + 3; ++d)
        for (unsigned taken = 0; taken < 3; ++taken) {
            step_queue q;
            ref_queue ref;
            for (unsigned i = 0; i < taken; ++i) push_both(q, ref, one(100, i, 1));
            drain_until(q, ref, 100);
            for (unsigned i = 0; i < 12; ++i) push_both(q, ref, one(100 + 10 * i, 20 + i, -1));
            push_both(q, ref, one(100 + 10 * (12 - d) - 5 * (d > 0), 99, 7));  // (d = 0: after the back)
            push_both(q, ref, one(100, 98, 2));                                // at the cycle taken last
            drain_until(q, ref, std::numeric_limits<cycle_t>::max() - 1);
            EXPECT_TRUE(q.empty()) << "depth " << d;
            if (::testing::Test::HasFatalFailure()) return;
        }
}

TEST(StepQueue, ForEachVisitsExactlyThePendingChanges) {
    step_queue q;
    ref_queue ref;
    for (cycle_t c = 0; c < 600; ++c) push_both(q, ref, one(c % 2 ? c : 600 - c, static_cast<unsigned>(c), 1));
    drain_until(q, ref, 299);
    ref_queue seen;
    q.for_each([&](const input_step& s) {
        seen.emplace(s.cycle, std::make_pair(s.input, s.delta));
    });
    EXPECT_EQ(seen, ref);
}

TEST(StepQueue, KeepsEachStepWhole) {
    step_queue q;
    q.push({40, 5, -1});
    q.push({10, 2, 1});
    ASSERT_EQ(q.front_cycle(), 10u);
    EXPECT_EQ(q.front().input, 2u);
    q.pop();
    const input_step& s = q.front();
    EXPECT_EQ(s.cycle, 40u);
    EXPECT_EQ(s.input, 5u);
    EXPECT_EQ(s.delta, -1);
}

}  // namespace
}  // namespace pmonsim
