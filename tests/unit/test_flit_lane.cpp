// flit_lane (core/flit_stream.h): a thresholded counter following one
// direction's flit slots. packet() counts a whole packet and the idle gap
// before it in closed form, without branches; it must leave exactly what
// the run-by-run feed() leaves (the count, the compare result, the pending
// slot) for every position, size, weight and conditioning. feed() itself is
// held against the per-cycle reference by the differential tests.
#include <gtest/gtest.h>

#include <cstdint>
#include <iostream>
#include <random>
#include <string>

#include "core/flit_stream.h"

namespace pmonsim {
namespace {

struct lane_case {
    conditioning cond;
    uint32_t g;              // increment from other inputs
    uint8_t weights[3];      // idle, non-data, data slot kinds
    uint64_t a, gap, nondata, data;
    bool prev;
    uint32_t pending;        // the pending slot's weight when a is odd
};

std::string describe(const lane_case& c) {
    return "thresh " + std::to_string(c.cond.thresh) + " invert " + std::to_string(c.cond.invert) + " edge " +
           std::to_string(c.cond.edge) + " g " + std::to_string(c.g) + " w " + std::to_string(c.weights[0]) + "," +
           std::to_string(c.weights[1]) + "," + std::to_string(c.weights[2]) + " a " + std::to_string(c.a) +
           " gap " + std::to_string(c.gap) + " nondata " + std::to_string(c.nondata) + " data " +
           std::to_string(c.data) + " prev " + std::to_string(c.prev) + " pending " + std::to_string(c.pending);
}

// Both ways from the same lane state; EXPECTs that they agree.
void check(const lane_case& c) {
    flit_lane by_runs, closed;
    by_runs.prepare(c.cond, c.g, c.weights, 0, c.prev);
    by_runs.add = 5;  // what earlier packets counted
    if (c.a & 1) by_runs.half = static_cast<int32_t>(c.pending);
    closed = by_runs;

    const uint64_t s = c.a + c.gap, m = s + c.nondata, d = m + c.data;
    if (c.gap) by_runs.feed(c.gap, c.weights[0]);
    by_runs.feed(c.nondata, c.weights[1]);
    if (c.data) by_runs.feed(c.data, c.weights[2]);
    if (c.cond.edge) closed.packet<true>(c.a, s, m, d, c.weights[0], c.weights[1], c.weights[2]);
    else closed.packet<false>(c.a, s, m, d, c.weights[0], c.weights[1], c.weights[2]);

    EXPECT_EQ(closed.add, by_runs.add) << describe(c);
    EXPECT_EQ(closed.prev, by_runs.prev) << describe(c);
    EXPECT_EQ(closed.half, by_runs.half) << describe(c);
}

TEST(FlitLanePacket, AsFeedRunByRunOnEverySmallShape) {
    // Every start parity, gap, size and data length up to a few cycles, with
    // weights that tell every pair of slots apart under threshold 3.
    unsigned cases = 0;
    for (bool edge : {false, true})
        for (bool prev : {false, true})
            for (uint64_t a : {10u, 11u})
                for (uint64_t gap = 0; gap <= 5; ++gap)
                    for (uint64_t nondata = 1; nondata <= 5; ++nondata)
                        for (uint64_t data = 0; data <= 5; ++data)
                            for (uint32_t pending : {0u, 2u}) {
                                lane_case c{{3, false, edge}, 0, {0, 1, 2}, a, gap, nondata, data, prev, pending};
                                check(c);
                                c.weights[0] = 2;  // busy idle slots (e.g. an IDLE counter)
                                c.weights[1] = 0;
                                check(c);
                                cases += 2;
                            }
    EXPECT_EQ(cases, 2u * 2 * 2 * 6 * 5 * 6 * 2 * 2);
}

TEST(FlitLanePacket, AsFeedRunByRunOnRandomShapes) {
    std::mt19937_64 rng(41);
    for (int n = 0; n < 200000; ++n) {
        lane_case c{};
        c.cond.thresh = 1 + static_cast<uint32_t>(rng() % 8);
        c.cond.invert = rng() % 2;
        c.cond.edge = rng() % 2;
        c.g = static_cast<uint32_t>(rng() % 4);
        for (uint8_t& w : c.weights) w = static_cast<uint8_t>(rng() % 4);  // 2 * 3 + 3 <= flit_lane::max_x
        c.a = rng() % 64;
        c.gap = rng() % 3 == 0 ? 0 : rng() % 40;
        c.nondata = 1 + rng() % 12;
        c.data = rng() % 3 == 0 ? 0 : rng() % 10;
        c.prev = rng() % 2;
        c.pending = static_cast<uint32_t>(rng() % 4);
        check(c);
        if (HasFailure()) break;  // one report is enough
    }
}

// repeated(): a run-length burst's packets in closed form leave exactly what
// packet() leaves taking them one by one, for every parity, spacing, size and
// conditioning, whatever state the lane is in before the burst.
TEST(FlitLaneRepeated, AsPacketByPacketOnRandomBursts) {
    const unsigned seed = std::random_device{}();
    std::cout << "seed " << seed << "\n";
    std::mt19937_64 rng(seed);
    uint64_t pairs_skipped = 0;
    for (int n = 0; n < 100000; ++n) {
        conditioning cond;
        cond.thresh = 1 + static_cast<uint32_t>(rng() % 8);
        cond.invert = rng() % 2;
        cond.edge = rng() % 2;
        const uint32_t g = static_cast<uint32_t>(rng() % 4);
        uint8_t w[3];
        for (uint8_t& x : w) x = static_cast<uint8_t>(rng() % 4);
        const uint64_t a = rng() % 64, s = a + (rng() % 3 == 0 ? 0 : rng() % 40);
        const uint64_t nondata = 1 + rng() % 12, data = rng() % 3 == 0 ? 0 : rng() % 10;
        const uint64_t period = nondata + data + (rng() % 3 == 0 ? 0 : rng() % 9);
        const uint64_t repeat = 1 + rng() % (rng() % 2 ? 6 : 300);
        flit_lane one_by_one;
        one_by_one.prepare(cond, g, w, 0, rng() % 2);
        one_by_one.add = 7;
        if (a & 1) one_by_one.half = static_cast<int32_t>(rng() % 4);
        flit_lane closed = one_by_one;
        uint64_t prev_end = a;
        for (uint64_t k = 0; k < repeat; ++k) {
            const uint64_t sk = s + k * period;
            if (cond.edge) one_by_one.packet<true>(prev_end, sk, sk + nondata, sk + nondata + data, w[0], w[1], w[2]);
            else one_by_one.packet<false>(prev_end, sk, sk + nondata, sk + nondata + data, w[0], w[1], w[2]);
            prev_end = sk + nondata + data;
        }
        if (cond.edge) closed.repeated<true>(a, s, nondata, data, repeat, period, w[0], w[1], w[2]);
        else closed.repeated<false>(a, s, nondata, data, repeat, period, w[0], w[1], w[2]);
        const std::string what = "seed " + std::to_string(seed) + " case " + std::to_string(n) + " repeat " +
                                 std::to_string(repeat) + " period " + std::to_string(period);
        ASSERT_EQ(closed.add, one_by_one.add) << what;
        ASSERT_EQ(closed.prev, one_by_one.prev) << what;
        ASSERT_EQ(closed.half, one_by_one.half) << what;
        pairs_skipped += repeat > 10;
    }
    EXPECT_GT(pairs_skipped, 10000u);
}

}  // namespace
}  // namespace pmonsim
