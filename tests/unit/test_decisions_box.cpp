// DECISIONS.md, one box at a time: every rule that a single box_core can show
// (the socket-level rules -- GLOBAL_CTL latching, freeze latency, PMI, PCI
// discovery, MSR #GP -- belong to the socket model and are tested there).
//
// Sections covered:
//  "Clocks and time"           -> Clock* (clock_domain) and DecisionTime*
//  "Counter control"           -> DecisionThresh*, DecisionInvert*, DecisionEdge*,
//                                 DecisionWidth*, DecisionReset*, DecisionEvent*
//  "Freeze and overflow"       -> DecisionFreeze*, DecisionOverflow*
//  "QPI link layer" (CTO_COUNT and the packet filter) -> DecisionCto*
//  "Diagnostics" (running-counter writes, partial reads) -> DecisionDiag*
//
// Every expected number below is worked out by hand from the stimulus in the
// test (cycle ranges are half-open [from, to)); none is read back from the
// model to be compared with itself.
//
// Stimulus notes: CLOCKTICKS (R2PCIe 0x01, QPI 0x14) is the box's own clock in
// box_core (one per cycle, posted by the constructor), so tests that need a
// 0/1 input they control use RING_AD_USED (R2PCIe), LOCK_CYCLES (UBox) or
// RxL_OCCUPANCY (QPI, up to 128 per cycle) instead. The conditioning
// functions of core/conditioning.h are also checked directly (DecisionThresh).
#include <gtest/gtest.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/box_core.h"
#include "desc/clock.h"
#include "core/conditioning.h"
#include "unit/box_rig.h"

using pmonsim::test::rig;

namespace pmonsim {
namespace {

constexpr cpu_model snb = cpu_model::snb_ep;
constexpr cpu_model ivb = cpu_model::ivb_ep;

// CTL bits (ubox-r2pcie-global.md §4.2/§5.4, qpi-ll.md §1.5).
constexpr uint32_t ev(uint32_t code) { return code; }
constexpr uint32_t umask(uint32_t u) { return u << 8; }
constexpr uint32_t rst = 1u << 17;
constexpr uint32_t edge = 1u << 18;
constexpr uint32_t ov_en = 1u << 20;
constexpr uint32_t ext = 1u << 21;
constexpr uint32_t en = 1u << 22;
constexpr uint32_t inv = 1u << 23;
constexpr uint32_t thresh(uint32_t t) { return t << 24; }

// BOX_CTL values: IVB-EP always writes 17:16 as 1 (else a diagnostic).
constexpr uint32_t ivb_run = 0x30000, ivb_frz = 0x30100;
constexpr uint32_t snb_frz = 0x10100;  // frz_en | frz

uint64_t pow2(unsigned w) { return 1ull << w; }

// ===========================================================================
// Clocks and time

TEST(ClockDomain, TwoGigahertz) {
    const clock_domain c(2000000000ull);  // UCLK default: 500 ps period
    EXPECT_EQ(c.cycle_start(0), 0u);
    EXPECT_EQ(c.cycle_start(1), 500u);
    EXPECT_EQ(c.cycle_start(7), 3500u);
    EXPECT_EQ(c.cycle_start(2000000000ull), 1000000000000ull);  // one second
    EXPECT_EQ(c.cycles_before(0), 0u);
    EXPECT_EQ(c.cycles_before(1), 1u);      // cycle 0 started at 0 < 1
    EXPECT_EQ(c.cycles_before(500), 1u);    // cycle 1 starts at 500: not before 500
    EXPECT_EQ(c.cycles_before(501), 2u);
    EXPECT_EQ(c.cycles_before(3500), 7u);
    EXPECT_EQ(c.cycles_before(3499), 7u);
    // 1.8*10^19 ps (about 208 days, near the top of uint64 time) is
    // 3.6*10^16 cycles: t * hz overflows 64 bits, the 128-bit product must not.
    EXPECT_EQ(c.cycles_before(18000000000000000000ull), 36000000000000000ull);
    EXPECT_EQ(c.cycle_start(36000000000000000ull), 18000000000000000000ull);
    EXPECT_EQ(c.cycles_before(18000000000000000001ull), 36000000000000001ull);
}

TEST(ClockDomain, OneGigahertz) {
    const clock_domain c(1000000000ull);  // QCLK at 8.0 GT/s
    EXPECT_EQ(c.hz(), 1000000000ull);
    EXPECT_EQ(c.cycle_start(3), 3000u);
    EXPECT_EQ(c.cycles_before(2999), 3u);
    EXPECT_EQ(c.cycles_before(3000), 3u);
    EXPECT_EQ(c.cycles_before(3001), 4u);
    EXPECT_EQ(c.first_cycle_at_or_after(3000), 3u);
    EXPECT_EQ(c.first_cycle_at_or_after(3001), 4u);
}

TEST(ClockDomain, PointNineGigahertzHasNoDrift) {
    // QCLK at 7.2 GT/s: a period of 1111.1... ps. Cycle k starts at
    // floor(k * 10^12 / 9*10^8) ps.
    const clock_domain c(900000000ull);
    const uint64_t starts[] = {0, 1111, 2222, 3333, 4444, 5555, 6666, 7777, 8888, 10000, 11111};
    for (uint64_t k = 0; k < 11; ++k) EXPECT_EQ(c.cycle_start(k), starts[k]) << k;
    EXPECT_EQ(c.cycles_before(1111), 1u);    // 1111 * 0.9 = 999.9 -> ceil 1 (cycle 1 starts at 1111.1)
    EXPECT_EQ(c.cycles_before(1112), 2u);
    EXPECT_EQ(c.cycles_before(10000), 9u);   // cycle 9 starts exactly at 10000
    EXPECT_EQ(c.cycles_before(10001), 10u);
    // 1000 s later the grid is still exact: cycle 9*10^11 starts at 10^15 ps.
    EXPECT_EQ(c.cycle_start(900000000000ull), 1000000000000000ull);
    EXPECT_EQ(c.cycles_before(1000000000000000ull), 900000000000ull);
    EXPECT_EQ(c.cycles_before(1000000000000001ull), 900000000001ull);
}

TEST(ClockDomain, AnAccessAtACycleStartPrecedesThatCycle) {
    // For every rate the project uses, an access at cycle_start(k) sees
    // exactly the cycles < k, and one picosecond later also cycle k.
    for (uint64_t hz : {2000000000ull, 1000000000ull, 900000000ull, 800000000ull, 1200000000ull,
                        700000000ull}) {
        const clock_domain c(hz);
        for (cycle_t k = 0; k < 5000; ++k) {
            ASSERT_EQ(c.cycles_before(c.cycle_start(k)), k) << hz << " Hz, cycle " << k;
            ASSERT_EQ(c.cycles_before(c.cycle_start(k) + 1), k + 1) << hz << " Hz, cycle " << k;
        }
    }
}

TEST(ClockDomain, ZeroFrequencyIsRejected) {
    EXPECT_THROW(clock_domain(0), std::invalid_argument);
}

// "A write before cycle t governs cycle t onward; a read before cycle t returns
// the count of cycles < t."
TEST(DecisionTime, WriteGovernsFromTheNextCycleReadSeesCyclesBefore) {
    for (uint64_t hz : {2000000000ull, 1000000000ull, 900000000ull}) {
        SCOPED_TRACE(hz);
        rig r(box_kind::r2pcie, ivb, 0, hz);
        r.write("CTL0", en | ev(0x01), 5);               // counts cycles 5, 6, ...
        r.write_t("CTL1", en | ev(0x01), r.at(5) + 1);   // 1 ps later: from cycle 6
        EXPECT_EQ(r.read("CTR0", 12), 7u);               // cycles 5..11
        EXPECT_EQ(r.read_t("CTR0", r.at(12) + 1), 8u);   // cycle 12 has started
        EXPECT_EQ(r.read("CTR1", 13), 7u);               // cycles 6..12
        r.write("CTL0", ev(0x01), 20);                   // disable before cycle 20
        EXPECT_EQ(r.read("CTR0", 40), 15u);              // cycles 5..19
        // Diagnostics carry the cycle of the access: write before cycle 40.
        r.write("CTL2", inv | ev(0x01), 40);
        ASSERT_EQ(r.diag_count(), 1u);
        EXPECT_EQ(r.last_diag().cycle, 40u);
        EXPECT_EQ(r.last_diag().time_ps, r.at(40));
    }
}

TEST(DecisionTime, UboxAtTwoGigahertzCountsUclkCycles) {
    rig r(box_kind::ubox_fixed, ivb, 0, 2000000000ull);
    r.write("CTL", en, 0);
    // 1 us at 2 GHz = 2000 cycles: a read at t = 1,000,000 ps sees cycles 0..1999.
    EXPECT_EQ(r.read_t("CTR", 1000000), 2000u);
    EXPECT_EQ(r.read_t("CTR", 1000001), 2001u);
}

// ===========================================================================
// Counter control: threshold, invert, edge

// "If thresh == 0, add inc; invert and edge_det are ignored (diagnostic if set)."
TEST(DecisionThresh, ZeroAddsTheRawIncrementAndIgnoresEdgeAndInvert) {
    rig r(box_kind::qpi, snb, 0);
    const unsigned occ = r.input("RxL_OCCUPANCY");  // up to 128 per cycle
    r.box.post_run(0, 10, occ, 5);
    r.box.post_run(20, 10, occ, 7);
    r.box.post_run(30, 5, occ, 128);
    r.write("CTL0", en | ev(0x0B), 0);
    r.write("CTL1", en | edge | ev(0x0B), 0);
    r.write("CTL2", en | inv | ev(0x0B), 0);
    r.write("CTL3", en | edge | inv | ev(0x0B), 0);
    const uint64_t raw = 10 * 5 + 10 * 7 + 5 * 128;  // 760
    for (int i = 0; i < 4; ++i) EXPECT_EQ(r.read("CTR" + std::to_string(i), 40), raw) << i;
    // One diagnostic for each counter that set edge/invert, none for CTL0.
    ASSERT_EQ(r.diag_count(), 3u);
    EXPECT_EQ(r.diags.records()[0].reg, "Q_P0_PCI_PMON_CTL1");
    EXPECT_EQ(r.diags.records()[1].reg, "Q_P0_PCI_PMON_CTL2");
    EXPECT_EQ(r.diags.records()[2].reg, "Q_P0_PCI_PMON_CTL3");
    for (const diagnostic& d : r.diags.records()) EXPECT_EQ(d.cycle, 0u);
}

TEST(DecisionThresh, ZeroWithEdgeOnIvbR2pcieOccupancy) {
    rig r(box_kind::r2pcie, ivb);
    const unsigned occ = r.input("RxR_OCCUPANCY", "DRS");  // up to 31 per cycle
    r.box.post_run(3, 4, occ, 31);
    r.box.post_run(7, 2, occ, 1);
    r.write("CTL0", en | edge | umask(0x08) | ev(0x13), 0);
    EXPECT_EQ(r.read("CTR0", 20), 4u * 31 + 2u);
    ASSERT_EQ(r.diag_count(), 1u);
    EXPECT_EQ(r.last_diag().reg, "R2_PCI_PMON_CTL0");
}

// The diagnostic comes when the counter goes live (enabled and unfrozen), once.
TEST(DecisionThresh, ZeroWithEdgeIsDiagnosedWhenTheCounterGoesLive) {
    rig r(box_kind::r2pcie, ivb);
    r.write("BOX_CTL", ivb_frz, 0);
    r.write("CTL0", en | edge | ev(0x01), 0);
    r.write("CTL1", edge | ev(0x01), 0);  // not enabled: never live
    EXPECT_EQ(r.diag_count(), 0u) << "frozen: not live yet";
    r.write("BOX_CTL", ivb_run, 5);
    ASSERT_EQ(r.diag_count(), 1u);
    EXPECT_EQ(r.last_diag().reg, "R2_PCI_PMON_CTL0");
    EXPECT_EQ(r.last_diag().cycle, 5u);
    // Freezing and unfreezing again does not repeat it.
    r.write("BOX_CTL", ivb_frz, 6);
    r.write("BOX_CTL", ivb_run, 7);
    EXPECT_EQ(r.diag_count(), 1u);
}

// "c = inc >= thresh" (not >, not ==).
TEST(DecisionThresh, CompareIsGreaterOrEqual) {
    for (cpu_model cpu : {snb, ivb}) {
        rig r(box_kind::qpi, cpu, 1);
        const unsigned occ = r.input("RxL_OCCUPANCY");
        r.box.post_run(0, 5, occ, 2);
        r.box.post_run(5, 5, occ, 3);
        r.box.post_run(10, 5, occ, 4);
        r.write("CTL0", en | thresh(2) | ev(0x0B), 0);
        r.write("CTL1", en | thresh(3) | ev(0x0B), 0);
        r.write("CTL2", en | thresh(4) | ev(0x0B), 0);
        r.write("CTL3", en | thresh(5) | ev(0x0B), 0);
        EXPECT_EQ(r.read("CTR0", 20), 15u);
        EXPECT_EQ(r.read("CTR1", 20), 10u);
        EXPECT_EQ(r.read("CTR2", 20), 5u);
        EXPECT_EQ(r.read("CTR3", 20), 0u);
        EXPECT_EQ(r.diag_count(), 0u);
    }
}

// The conditioning pipeline itself (core/conditioning.h), per cycle: the
// literal adds of DECISIONS.md's rule for short increment sequences.
TEST(DecisionThresh, ConditionCyclePerCycleRule) {
    auto adds = [](conditioning c, std::vector<uint32_t> incs) {
        std::vector<uint64_t> out;
        bool prev = false;
        for (uint32_t inc : incs) out.push_back(condition_cycle(c, inc, prev));
        return out;
    };
    using v = std::vector<uint64_t>;
    const std::vector<uint32_t> seq = {0, 2, 3, 4, 3, 0, 5, 1};
    EXPECT_EQ(adds({0, false, false}, seq), (v{0, 2, 3, 4, 3, 0, 5, 1}));  // raw
    EXPECT_EQ(adds({0, true, true}, seq), (v{0, 2, 3, 4, 3, 0, 5, 1}));    // still raw
    EXPECT_EQ(adds({3, false, false}, seq), (v{0, 0, 1, 1, 1, 0, 1, 0}));  // inc >= 3
    EXPECT_EQ(adds({3, true, false}, seq), (v{1, 1, 0, 0, 0, 1, 0, 1}));   // inc < 3
    EXPECT_EQ(adds({3, false, true}, seq), (v{0, 0, 1, 0, 0, 0, 1, 0}));   // rises of >= 3
    EXPECT_EQ(adds({3, true, true}, seq), (v{1, 0, 0, 0, 0, 1, 0, 1}));    // rises of < 3
    // thresh 0 leaves the edge state alone.
    bool prev = true;
    EXPECT_EQ(condition_cycle({0, false, true}, 0, prev), 0u);
    EXPECT_TRUE(prev);
}

// The closed form over a run of n equal increments agrees with n single
// cycles, for every setting, increment and incoming edge state.
TEST(DecisionThresh, ConditionRunMatchesCycleByCycle) {
    for (uint32_t th : {0u, 1u, 2u, 5u})
        for (bool invert : {false, true})
            for (bool edge : {false, true})
                for (uint32_t inc : {0u, 1u, 2u, 5u, 7u})
                    for (bool prev0 : {false, true})
                        for (uint64_t n : {1u, 2u, 9u}) {
                            const conditioning c{th, invert, edge};
                            bool prev = prev0;
                            uint64_t sum = 0;
                            for (uint64_t k = 0; k < n; ++k) sum += condition_cycle(c, inc, prev);
                            const run_adds a = condition_run(c, inc, prev0);
                            EXPECT_EQ(a.first + a.rest * (n - 1), sum)
                                << th << invert << edge << " inc " << inc << " prev " << prev0 << " n " << n;
                            EXPECT_EQ(condition_after_run(c, inc, prev0), prev);
                        }
}

// The UBox threshold is 5 bits (28:24), the PCI boxes' 8 bits (31:24).
TEST(DecisionThresh, ThresholdWidthByBox) {
    rig u(box_kind::ubox, snb);
    u.write("CTL0", thresh(0x1F) | ev(0x44), 0);
    EXPECT_EQ(u.read("CTL0", 0), thresh(0x1F) | ev(0x44));
    EXPECT_EQ(u.diag_count(), 0u);
    u.write("CTL0", thresh(0x20) | ev(0x44), 0);  // bit 29: reserved in the UBox
    EXPECT_EQ(u.read("CTL0", 0), ev(0x44));
    EXPECT_EQ(u.diag_count(), 1u);

    rig q(box_kind::qpi, ivb);
    const unsigned occ = q.input("RxL_OCCUPANCY");
    q.box.post_run(0, 3, occ, 128);
    q.box.post_run(3, 3, occ, 127);
    q.write("CTL0", en | thresh(128) | ev(0x0B), 0);  // bit 31 is thresh here
    EXPECT_EQ(q.read("CTR0", 10), 3u);
}

// Invert (bit 23): "inc < thresh" on SNB-EP.
TEST(DecisionInvert, SnbCountsCyclesBelowThreshold) {
    rig q(box_kind::qpi, snb, 1);
    const unsigned occ = q.input("RxL_OCCUPANCY");
    q.box.post_run(0, 5, occ, 2);
    q.box.post_run(5, 5, occ, 3);
    q.box.post_run(10, 5, occ, 4);
    q.write("CTL0", en | inv | thresh(3) | ev(0x0B), 0);
    q.write("CTL1", en | thresh(3) | ev(0x0B), 0);
    EXPECT_EQ(q.read("CTL0", 0), en | inv | thresh(3) | ev(0x0B)) << "invert is RW-V on SNB-EP";
    EXPECT_EQ(q.read("CTR0", 15), 5u);   // cycles 0..4 (inc 2)
    EXPECT_EQ(q.read("CTR1", 15), 10u);
    EXPECT_EQ(q.read("CTR0", 20), 10u);  // plus cycles 15..19 (inc 0 < 3)
    EXPECT_EQ(q.diag_count(), 0u);

    // Same on the SNB-EP R2PCIe and UBox (1-per-cycle events, thresh 1).
    rig p(box_kind::r2pcie, snb);
    p.box.post_run(0, 4, p.input("RING_AD_USED", "CW_EVEN"), 1);
    p.write("CTL3", en | inv | thresh(1) | umask(0x01) | ev(0x07), 0);
    EXPECT_EQ(p.read("CTR3", 10), 6u);
    rig u(box_kind::ubox, snb);
    u.box.post_run(2, 3, u.input("LOCK_CYCLES"), 1);
    u.write("CTL1", en | inv | thresh(1) | ev(0x44), 0);
    EXPECT_EQ(u.read("CTR1", 10), 7u);
}

// IVB-EP: bit 23 is reserved in UBox, R2PCIe and QPI: no effect + diagnostic.
TEST(DecisionInvert, IvbBit23IsReservedNoEffectAndDiagnosed) {
    {
        rig q(box_kind::qpi, ivb, 2);
        const unsigned occ = q.input("RxL_OCCUPANCY");
        q.box.post_run(0, 5, occ, 2);
        q.box.post_run(5, 5, occ, 3);
        q.write("CTL0", en | inv | thresh(3) | ev(0x0B), 0);
        EXPECT_EQ(q.read("CTL0", 0), en | thresh(3) | ev(0x0B));
        ASSERT_EQ(q.diag_count(), 1u);
        EXPECT_EQ(q.last_diag().reg, "Q_P2_PCI_PMON_CTL0");
        EXPECT_EQ(q.read("CTR0", 20), 5u) << "counts inc >= 3 as if invert were clear";
    }
    {
        rig p(box_kind::r2pcie, ivb);
        p.box.post_run(0, 4, p.input("RING_AD_USED", "CW_VR0_EVEN"), 1);
        p.write("CTL2", en | inv | thresh(1) | umask(0x01) | ev(0x07), 0);
        EXPECT_EQ(p.read("CTL2", 0) & inv, 0u);
        EXPECT_EQ(p.read("CTR2", 10), 4u);
        EXPECT_EQ(p.diag_count(), 1u);
    }
    {
        rig u(box_kind::ubox, ivb);
        u.box.post_run(2, 3, u.input("LOCK_CYCLES"), 1);
        u.write("CTL0", en | inv | thresh(1) | ev(0x44), 0);
        EXPECT_EQ(u.read("CTL0", 0) & inv, 0u);
        EXPECT_EQ(u.read("CTR0", 10), 3u);
        EXPECT_EQ(u.diag_count(), 1u);
    }
}

// edge_det counts 0 -> 1 transitions of c.
TEST(DecisionEdge, CountsRisingEdgesOfTheCompare) {
    for (cpu_model cpu : {snb, ivb}) {
        rig q(box_kind::qpi, cpu);
        const unsigned occ = q.input("RxL_OCCUPANCY");
        // inc >= 2 in cycles 2-4, 8, 9-11, 14 (8 and 9-11 are one run).
        q.box.post_run(2, 3, occ, 3);
        q.box.post_run(5, 3, occ, 1);
        q.box.post_run(8, 1, occ, 2);
        q.box.post_run(9, 3, occ, 5);
        q.box.post_run(14, 1, occ, 2);
        q.write("CTL0", en | edge | thresh(2) | ev(0x0B), 0);
        q.write("CTL1", en | thresh(2) | ev(0x0B), 0);
        EXPECT_EQ(q.read("CTR0", 20), 3u);  // edges at 2, 8, 14
        EXPECT_EQ(q.read("CTR1", 20), 8u);  // every cycle with c = 1
    }
    // SNB-EP invert + edge: c = inc < 2 is 1 in 0-1, 5-7, 12-13, 15-19 -> 4
    // rises (the first at cycle 0, because c starts at 0).
    rig s(box_kind::qpi, snb);
    const unsigned occ = s.input("RxL_OCCUPANCY");
    s.box.post_run(2, 3, occ, 3);
    s.box.post_run(5, 3, occ, 1);
    s.box.post_run(8, 1, occ, 2);
    s.box.post_run(9, 3, occ, 5);
    s.box.post_run(14, 1, occ, 2);
    s.write("CTL2", en | edge | inv | thresh(2) | ev(0x0B), 0);
    EXPECT_EQ(s.read("CTR2", 20), 4u);  // rises at 0, 5, 12, 15
}

// "The previous c starts at 0 when the control register is written."
TEST(DecisionEdge, PreviousCompareRestartsOnEveryCtlWrite) {
    rig r(box_kind::qpi, ivb);
    r.box.post_run(0, 100, r.input("RxL_OCCUPANCY"), 1);
    const uint32_t ctl = en | edge | thresh(1) | ev(0x0B);
    r.write("CTL0", ctl, 0);
    EXPECT_EQ(r.read("CTR0", 10), 1u);  // one rise at cycle 0, then c stays 1
    EXPECT_TRUE(r.box.counter_compare(0));
    r.write("CTL0", ctl, 10);  // same value: c restarts at 0
    EXPECT_FALSE(r.box.counter_compare(0));
    EXPECT_EQ(r.read("CTR0", 20), 2u);  // a new rise at cycle 10
    // Writes to other registers do not touch it.
    r.write("BOX_CTL", ivb_run, 20);
    r.write("CTL1", ctl, 20);
    EXPECT_EQ(r.read("CTR0", 30), 2u);
    EXPECT_TRUE(r.box.counter_compare(0));
}

// "... and holds while the counter is frozen or disabled."
TEST(DecisionEdge, PreviousCompareHoldsWhileBoxFrozen) {
    for (cpu_model cpu : {snb, ivb}) {
        SCOPED_TRACE(cpu == snb ? "snb" : "ivb");
        // c = 1 in [0,5), 0 in [5,back), 1 in [back,20); frozen in [4,10).
        // Held, c stays the 1 of cycle 3 through the freeze, so cycle 10 is no
        // rise whether the input came back inside the freeze (back = 8) or
        // exactly at the unfreeze (back = 10); a c that followed the input
        // while frozen would see 0 and count a rise in the second case.
        auto run = [&](bool freeze, cycle_t back) {
            rig r(box_kind::r2pcie, cpu);
            // RING_AD_USED bit 0 (CW_EVEN / CW_VR0_EVEN): a 0/1 per-cycle input.
            const event_catalog& cat = *r.box.spec().catalog;
            const unsigned ring = cat.input_of(*cat.find(0x07, false), 0).value();
            r.box.post_run(0, 5, ring, 1);
            r.box.post_run(back, 20 - back, ring, 1);
            r.write("CTL0", en | edge | thresh(1) | umask(0x01) | ev(0x07), 0);
            if (freeze) {
                r.write("BOX_CTL", cpu == snb ? snb_frz : ivb_frz, 4);
                EXPECT_TRUE(r.box.frozen());
                r.write("BOX_CTL", cpu == snb ? 0x10000 : ivb_run, 10);
            }
            return r.read("CTR0", 20);
        };
        EXPECT_EQ(run(false, 8), 2u);   // rises at 0 and 8
        EXPECT_EQ(run(false, 10), 2u);  // rises at 0 and 10
        EXPECT_EQ(run(true, 8), 1u);    // rise at 0 only
        EXPECT_EQ(run(true, 10), 1u);   // rise at 0 only
    }
}

TEST(DecisionEdge, PreviousCompareHoldsUnderGlobalFreeze) {
    // IVB-EP UBox: only the global freeze can stop it.
    rig r(box_kind::ubox, ivb);
    const unsigned in = r.input("LOCK_CYCLES");
    r.box.post_run(0, 5, in, 1);
    r.box.post_run(10, 10, in, 1);  // low through the freeze, high again at the release
    r.write("CTL0", en | edge | thresh(1) | ev(0x44), 0);
    r.box.advance_to(4);
    r.box.set_global_freeze(true, r.at(4));
    r.box.advance_to(10);
    EXPECT_TRUE(r.box.counter_compare(0)) << "held from cycle 3";
    r.box.set_global_freeze(false, r.at(10));
    EXPECT_EQ(r.read("CTR0", 20), 1u);
}

TEST(DecisionEdge, PreviousCompareDoesNotTrackWhileDisabled) {
    rig r(box_kind::qpi, snb);
    const uint32_t ctl = edge | thresh(1) | ev(0x14);
    r.write("CTL0", en | ctl, 0);
    r.box.advance_to(5);
    EXPECT_TRUE(r.box.counter_compare(0));
    r.write("CTL0", ctl, 5);  // disable: a control write, so c restarts at 0 ...
    r.box.advance_to(10);
    EXPECT_FALSE(r.box.counter_compare(0)) << "... and stays 0 while disabled, input high";
    EXPECT_EQ(r.read("CTR0", 10), 1u);
    r.write("CTL0", en | ctl, 10);
    EXPECT_EQ(r.read("CTR0", 15), 2u);  // a rise at cycle 10
}

// inc = sum over the selected umask bits of the sub-events' increments.
TEST(DecisionThresh, IncrementSumsSelectedSubEvents) {
    rig r(box_kind::r2pcie, snb);
    const unsigned cw_even = r.input("RING_AD_USED", "CW_EVEN");
    const unsigned cw_odd = r.input("RING_AD_USED", "CW_ODD");
    const unsigned ccw_even = r.input("RING_AD_USED", "CCW_EVEN");
    r.box.post_run(0, 10, cw_even, 1);
    r.box.post_run(0, 5, cw_odd, 1);
    r.box.post_run(0, 10, ccw_even, 1);  // not selected by CW
    r.write("CTL0", en | umask(0x03) | ev(0x07), 0);              // CW = EVEN + ODD
    r.write("CTL1", en | thresh(2) | umask(0x03) | ev(0x07), 0);  // cycles with both
    r.write("CTL2", en | umask(0x0F) | ev(0x07), 0);              // ANY
    EXPECT_EQ(r.read("CTR0", 20), 15u);
    EXPECT_EQ(r.read("CTR1", 20), 5u);
    EXPECT_EQ(r.read("CTR2", 20), 25u);
}

// ===========================================================================
// Widths and wraparound: UBox general 44, UBox fixed 48, R2PCIe 44, QPI 48.

TEST(DecisionWidth, CountersWrapAtTheirWidth) {
    struct wrap_case {
        box_kind kind;
        unsigned width;
        const char* event;
        uint32_t ctl;
    };
    const wrap_case cases[] = {
        {box_kind::ubox, 44, "LOCK_CYCLES", en | ev(0x44)},
        {box_kind::ubox_fixed, 48, nullptr, en},
        {box_kind::r2pcie, 44, nullptr, en | ev(0x01)},  // CLOCKTICKS: the box's own clock
        {box_kind::qpi, 48, nullptr, en | ev(0x14)},
    };
    for (cpu_model cpu : {snb, ivb})
        for (const wrap_case& c : cases) {
            SCOPED_TRACE(std::string(to_string(c.kind)) + (cpu == snb ? " snb" : " ivb"));
            rig r(c.kind, cpu);
            if (c.event) r.box.post_run(0, 100, r.input(c.event), 1);
            const std::string ctr = c.kind == box_kind::ubox_fixed ? "CTR" : "CTR0";
            const std::string ctl = c.kind == box_kind::ubox_fixed ? "CTL" : "CTL0";
            r.write(ctr, pow2(c.width) - 3, 0);
            r.write(ctl, c.ctl, 0);
            EXPECT_EQ(r.read(ctr, 2), pow2(c.width) - 1);
            EXPECT_EQ(r.read(ctr, 3), 0u);
            EXPECT_EQ(r.read(ctr, 5), 2u);
            EXPECT_EQ(r.box.counter_wraps(0), 1u);
        }
}

TEST(DecisionWidth, LargeIncrementsWrapModuloTheWidth) {
    rig r(box_kind::qpi, ivb);
    r.box.post_run(0, 2, r.input("RxL_OCCUPANCY"), 100);
    r.write("CTR3", pow2(48) - 150, 0);
    r.write("CTL3", en | ev(0x0B), 0);
    EXPECT_EQ(r.read("CTR3", 10), 50u);
    rig p(box_kind::r2pcie, ivb);
    p.box.post_run(0, 3, p.input("RxR_OCCUPANCY", "DRS"), 31);
    p.write("CTR0", pow2(44) - 1, 0);
    p.write("CTL0", en | umask(0x08) | ev(0x13), 0);
    EXPECT_EQ(p.read("CTR0", 10), 92u);
}

// ===========================================================================
// WO action bits

TEST(DecisionReset, CtlRstClearsTheCounterAndAppliesTheRestOfTheWrite) {
    rig r(box_kind::r2pcie, ivb);
    r.write("CTR2", 500, 0);
    // rst together with a new enable: the counter restarts from 0 and counts.
    r.write("CTL2", rst | en | ev(0x01), 0);
    EXPECT_EQ(r.read("CTL2", 0), en | ev(0x01));
    EXPECT_EQ(r.read("CTR2", 7), 7u);
    // rst on a running counter clears it in place; it keeps counting.
    r.write("CTL2", rst | en | ev(0x01), 7);
    EXPECT_EQ(r.read("CTR2", 10), 3u);
    // rst with a disable: cleared and stopped.
    r.write("CTL2", rst | ev(0x01), 10);
    EXPECT_EQ(r.read("CTR2", 20), 0u);

    rig u(box_kind::ubox, snb);
    u.write("CTR1", 42, 0);
    u.write("CTL1", rst | umask(0x01) | ev(0x42), 0);
    EXPECT_EQ(u.read("CTR1", 0), 0u);
    EXPECT_EQ(u.read("CTL1", 0), umask(0x01) | ev(0x42));
}

TEST(DecisionReset, RstCtrlClearsControlsNotBoxCtlRstCtrsClearsCounters) {
    for (cpu_model cpu : {snb, ivb}) {
        rig r(box_kind::qpi, cpu);
        const uint32_t run = cpu == snb ? 0x10000u : ivb_run;  // frz_en or 17:16, not frozen
        r.write("BOX_CTL", run, 0);
        for (int i = 0; i < 4; ++i) r.write("CTL" + std::to_string(i), en | ev(0x14), 0);
        // rst_ctrs on a running box: every counter restarts from 0 and keeps counting.
        r.write("BOX_CTL", run | 0x2, 10);
        EXPECT_EQ(r.read("BOX_CTL", 10), run);
        for (int i = 0; i < 4; ++i) EXPECT_EQ(r.read("CTR" + std::to_string(i), 15), 5u);
        // rst_ctrl: controls cleared (counting stops, values stay), BOX_CTL kept.
        r.write("BOX_CTL", run | 0x1, 15);
        EXPECT_EQ(r.read("BOX_CTL", 15), run);
        for (int i = 0; i < 4; ++i) {
            EXPECT_EQ(r.read("CTL" + std::to_string(i), 15), 0u);
            EXPECT_EQ(r.read("CTR" + std::to_string(i), 30), 5u);
        }
    }
}

// ===========================================================================
// Events: ev_sel 0, unknown events, umasks, counter restrictions

TEST(DecisionEvent, UboxEvSelZeroCountsNothingWithoutDiagnostic) {
    for (cpu_model cpu : {snb, ivb}) {
        rig u(box_kind::ubox, cpu);
        u.drive_all_inputs(0, 50);
        u.write("CTL0", en, 0);
        u.write("CTL1", en | thresh(1), 0);
        EXPECT_EQ(u.read("CTR0", 50), 0u);
        EXPECT_EQ(u.read("CTR1", 50), 0u);
        EXPECT_EQ(u.diag_count(), 0u);
        // Then the real event written "just before" the other boxes unfreeze.
        u.write("CTL0", en | ev(0x44), 50);
        EXPECT_EQ(u.diag_count(), 0u);
    }
    // The same ev_sel 0 on a PCI box is just an unknown event (R2PCIe has no
    // event 0x00): diagnosed.
    rig p(box_kind::r2pcie, ivb);
    p.write("CTL0", en, 0);
    EXPECT_EQ(p.diag_count(), 1u);
}

// CLOCKTICKS (R2PCIe 0x01, QPI 0x14) is the box's own clock in this model:
// one per cycle with no trace input (box_core's constructor posts it). This
// pins that project choice; DECISIONS.md itself only says that non-packet
// events come from event traces.
TEST(DecisionEvent, ClockticksCountsEveryCycleOfTheBoxClock) {
    rig p(box_kind::r2pcie, snb, 0, 2000000000ull);
    rig q(box_kind::qpi, ivb, 1, 900000000ull);
    p.write("CTL3", en | ev(0x01), 10);
    q.write("CTL3", en | ev(0x14), 10);
    // 1 us after the write: 2000 UCLK cycles at 2 GHz, 900 QCLK cycles at 0.9 GHz.
    EXPECT_EQ(p.read_t("CTR3", p.at(10) + 1000000), 2000u);
    EXPECT_EQ(q.read_t("CTR3", q.at(10) + 1000000), 900u);
    EXPECT_EQ(p.read("CTR3", 3010), 3000u);
    EXPECT_EQ(q.read("CTR3", 1010), 1000u);
}

TEST(DecisionEvent, UnknownEventCountsNothingAndIsDiagnosed) {
    struct unknown_case {
        box_kind kind;
        cpu_model cpu;
        uint32_t ctl;
        const char* reg;
    };
    const unknown_case cases[] = {
        {box_kind::r2pcie, ivb, en | ev(0x99), "R2_PCI_PMON_CTL1"},
        {box_kind::r2pcie, snb, en | ev(0x11), "R2_PCI_PMON_CTL1"},  // RxR_INSERTS: IVB-EP only
        {box_kind::ubox, ivb, en | umask(0x01) | ev(0x47), "U_MSR_PMON_CTL1"},  // SNB-EP only
        {box_kind::ubox, snb, en | ev(0x50), "U_MSR_PMON_CTL1"},
        {box_kind::qpi, ivb, en | ev(0x7F), "Q_P0_PCI_PMON_CTL1"},
        {box_kind::qpi, snb, en | ext | ev(0x14), "Q_P0_PCI_PMON_CTL1"},  // 0x14+ext: IVB-EP only
    };
    for (const unknown_case& c : cases) {
        SCOPED_TRACE(c.reg + std::string(c.cpu == snb ? " snb" : " ivb"));
        rig r(c.kind, c.cpu);
        r.drive_all_inputs(0, 20);
        r.write("CTL1", c.ctl, 0);
        EXPECT_EQ(r.read("CTR1", 20), 0u);
        ASSERT_EQ(r.diag_count(), 1u);
        EXPECT_EQ(r.last_diag().reg, c.reg);
        EXPECT_EQ(r.last_diag().value, c.ctl);
    }
}

TEST(DecisionEvent, UmaskNotInCatalogCountsNothingAndIsDiagnosed) {
    // RxR_CYCLES_NE (0x10): DRS (0x08) exists on SNB-EP, not on IVB-EP.
    for (cpu_model cpu : {snb, ivb}) {
        rig r(box_kind::r2pcie, cpu);
        r.drive_all_inputs(0, 20);
        r.write("CTL0", en | umask(0x08) | ev(0x10), 0);
        r.write("CTL1", en | umask(0x10) | ev(0x10), 0);  // NCB: both
        EXPECT_EQ(r.read("CTR0", 20), cpu == snb ? 20u : 0u);
        EXPECT_EQ(r.read("CTR1", 20), 20u);
        EXPECT_EQ(r.diag_count(), cpu == snb ? 0u : 1u);
    }
    // An event without sub-events programmed with a umask.
    rig u(box_kind::ubox, ivb);
    u.drive_all_inputs(0, 20);
    u.write("CTL0", en | umask(0x01) | ev(0x44), 0);
    EXPECT_EQ(u.read("CTR0", 20), 0u);
    EXPECT_EQ(u.diag_count(), 1u);
}

TEST(DecisionEvent, EventOnADisallowedCounterCountsNothingAndIsDiagnosed) {
    // R2PCIe RxR_AK_BOUNCES (0x12) may only use counter 0 (perfmon JSON).
    for (cpu_model cpu : {snb, ivb}) {
        rig r(box_kind::r2pcie, cpu);
        r.drive_all_inputs(0, 20);
        for (int i = 0; i < 4; ++i) r.write("CTL" + std::to_string(i), en | ev(0x12), 0);
        EXPECT_EQ(r.read("CTR0", 20), cpu == snb ? 20u : 40u);  // IVB: umask 0 = CW + CCW
        for (int i = 1; i < 4; ++i) EXPECT_EQ(r.read("CTR" + std::to_string(i), 20), 0u);
        ASSERT_EQ(r.diag_count(), 3u);
        EXPECT_EQ(r.diags.records()[0].reg, "R2_PCI_PMON_CTL1");
        EXPECT_EQ(r.diags.records()[1].reg, "R2_PCI_PMON_CTL2");
        EXPECT_EQ(r.diags.records()[2].reg, "R2_PCI_PMON_CTL3");
    }
}

// ===========================================================================
// Freeze

TEST(DecisionFreeze, SnbBoxIsFrozenOnlyIfFrzEnAndFrz) {
    for (box_kind kind : {box_kind::r2pcie, box_kind::qpi}) {
        rig r(kind, snb);
        r.write("CTL0", en | ev(kind == box_kind::r2pcie ? 0x01 : 0x14), 0);
        r.write("BOX_CTL", 0x100, 0);      // frz alone: counts
        EXPECT_FALSE(r.box.frozen());
        r.write("BOX_CTL", 0x10000, 10);   // frz_en alone: counts
        EXPECT_FALSE(r.box.frozen());
        r.write("BOX_CTL", 0x10100, 20);   // both: frozen
        EXPECT_TRUE(r.box.frozen());
        r.write("BOX_CTL", 0x20100, 30);   // bit 17 has no effect
        EXPECT_FALSE(r.box.frozen());
        EXPECT_EQ(r.read("CTR0", 40), 30u);
        EXPECT_EQ(r.read("BOX_CTL", 40), 0x20100u) << "frz/frz_en/bit 17 read back";
    }
}

TEST(DecisionFreeze, IvbFrzAloneFreezes) {
    for (box_kind kind : {box_kind::r2pcie, box_kind::qpi}) {
        rig r(kind, ivb);
        r.write("CTL0", en | ev(kind == box_kind::r2pcie ? 0x01 : 0x14), 0);
        r.write("BOX_CTL", ivb_frz, 0);
        EXPECT_TRUE(r.box.frozen());
        r.write("BOX_CTL", ivb_run, 10);
        r.write("BOX_CTL", 0x100, 20);  // frz without 17:16: still freezes (plus a diagnostic)
        EXPECT_TRUE(r.box.frozen());
        EXPECT_EQ(r.read("CTR0", 40), 10u);
        EXPECT_EQ(r.diag_count(), 1u);
    }
}

// IVB-EP: the global freeze stops the UBox general and fixed counters too,
// and a box-level unfreeze does not release it.
TEST(DecisionFreeze, IvbGlobalFreezeStopsUboxAndOutlivesBoxUnfreeze) {
    rig u(box_kind::ubox, ivb);
    rig f(box_kind::ubox_fixed, ivb);
    rig p(box_kind::r2pcie, ivb);
    u.box.post_run(0, 100, u.input("LOCK_CYCLES"), 1);
    u.write("CTL0", en | ev(0x44), 0);
    f.write("CTL", en, 0);
    p.write("CTL0", en | ev(0x01), 0);
    for (rig* r : {&u, &f, &p}) {
        r->box.advance_to(10);
        r->box.set_global_freeze(true, r->at(10));
    }
    p.write("BOX_CTL", ivb_run, 15);  // box-level "unfreeze": not enough
    EXPECT_TRUE(p.box.frozen());
    EXPECT_EQ(u.read("CTR0", 20), 10u);
    EXPECT_EQ(f.read("CTR", 20), 10u);
    EXPECT_EQ(p.read("CTR0", 20), 10u);
    for (rig* r : {&u, &f, &p}) r->box.set_global_freeze(false, r->at(20));
    EXPECT_EQ(u.read("CTR0", 25), 15u);
    EXPECT_EQ(f.read("CTR", 25), 15u);
    EXPECT_EQ(p.read("CTR0", 25), 15u);
}

// ===========================================================================
// Overflow

// SNB-EP: any carry sets the box's BOX_STATUS bit; nothing freezes, no message.
TEST(DecisionOverflow, SnbAnyCarrySetsBoxStatusWithoutMessage) {
    for (box_kind kind : {box_kind::r2pcie, box_kind::qpi}) {
        rig r(kind, snb);
        const unsigned width = kind == box_kind::r2pcie ? 44 : 48;
        r.write("BOX_CTL", 0x20000, 0);  // bit 17 ("overflow enable" in the datasheet): no effect
        r.write("CTR2", pow2(width) - 2, 0);
        r.write("CTL2", en | ev(kind == box_kind::r2pcie ? 0x01 : 0x14), 0);
        r.write("CTL1", en | ev(kind == box_kind::r2pcie ? 0x01 : 0x14), 0);
        EXPECT_FALSE(r.box.predict_message().has_value());
        EXPECT_FALSE(r.box.advance_to(50, true).has_value());
        EXPECT_EQ(r.box.cycle(), 50u) << "the walk did not stop";
        EXPECT_EQ(r.box.box_status(), 0x4u);
        EXPECT_FALSE(r.box.frozen());
        EXPECT_EQ(r.read("CTR2", 50), 48u);
        EXPECT_EQ(r.read("BOX_STATUS", 50), 0x4u);
        // Bit 20 is reserved on SNB-EP: writing it is diagnosed and changes nothing.
        r.write("CTL1", en | ov_en | ev(kind == box_kind::r2pcie ? 0x01 : 0x14), 50);
        EXPECT_EQ(r.read("CTL1", 50) & ov_en, 0u);
        EXPECT_EQ(r.diag_count(), 1u);
    }
}

// IVB-EP with ov_en: status bit set and an overflow message at the exact cycle.
TEST(DecisionOverflow, IvbOvEnRaisesMessageAtTheCarryCycle) {
    rig r(box_kind::r2pcie, ivb);
    r.write("CTR1", pow2(44) - 10, 0);
    r.write("CTL1", en | ov_en | ev(0x01), 0);
    const std::optional<cycle_t> predicted = r.box.predict_message();
    ASSERT_TRUE(predicted.has_value());
    EXPECT_EQ(*predicted, 9u);
    auto m = r.box.advance_to(100, true);
    ASSERT_TRUE(m.has_value());
    EXPECT_EQ(m->cycle, 9u);  // the 10th increment (cycle 9) carries out of bit 43
    EXPECT_EQ(m->counter, 1u);
    EXPECT_EQ(r.box.cycle(), 10u) << "the walk stops right after the carry cycle";
    EXPECT_EQ(r.box.counter_value(1), 0u);
    EXPECT_EQ(r.box.box_status(), 0x2u);
    // Freezing is the socket's job: the box itself keeps counting.
    EXPECT_FALSE(r.box.advance_to(20, true).has_value());
    EXPECT_EQ(r.box.counter_value(1), 10u);
}

TEST(DecisionOverflow, IvbMessageCycleWithTwoPerCycleIncrements) {
    rig r(box_kind::qpi, ivb, 1);
    // RxL_FLITS_G1.DRS_DATA adds 2 per QCLK from cycle 3.
    r.box.post_run(3, 50, r.input("RxL_FLITS_G1", "DRS_DATA"), 2);
    r.write("CTR0", pow2(48) - 5, 0);
    r.write("CTL0", en | ov_en | ext | umask(0x08) | ev(0x02), 0);
    auto m = r.box.advance_to(100, true);
    ASSERT_TRUE(m.has_value());
    EXPECT_EQ(m->cycle, 5u);  // 2^48-5 -> -3 (cycle 3) -> -1 (4) -> +1 (5)
    EXPECT_EQ(m->counter, 0u);
    EXPECT_EQ(r.box.counter_value(0), 1u);
    EXPECT_EQ(r.box.box_status(), 0x1u);
}

TEST(DecisionOverflow, IvbUboxGeneralAndFixedRaiseMessages) {
    rig u(box_kind::ubox, ivb);
    u.box.post_run(0, 100, u.input("LOCK_CYCLES"), 1);
    u.write("CTR1", pow2(44) - 4, 0);
    u.write("CTL1", en | ov_en | ev(0x44), 0);
    auto m = u.box.advance_to(100, true);
    ASSERT_TRUE(m.has_value());
    EXPECT_EQ(m->cycle, 3u);
    EXPECT_EQ(m->counter, 1u);
    EXPECT_EQ(u.read("BOX_STATUS", 4), 0x2u);  // U_MSR_PMON_BOX_STATUS (0xC15)

    rig f(box_kind::ubox_fixed, ivb);
    f.write("CTR", pow2(48) - 7, 0);
    f.write("CTL", en | ov_en, 0);
    auto mf = f.box.advance_to(100, true);
    ASSERT_TRUE(mf.has_value());
    EXPECT_EQ(mf->cycle, 6u);
    EXPECT_EQ(f.box.counter_value(0), 0u);
}

TEST(DecisionOverflow, IvbWithoutOvEnTheWrapIsSilent) {
    for (box_kind kind : {box_kind::r2pcie, box_kind::qpi, box_kind::ubox}) {
        rig r(kind, ivb);
        const unsigned width = kind == box_kind::qpi ? 48 : 44;
        const uint32_t code = kind == box_kind::r2pcie ? 0x01 : kind == box_kind::qpi ? 0x14 : 0x44;
        if (kind == box_kind::ubox) r.box.post_run(0, 100, r.input("LOCK_CYCLES"), 1);
        r.write("CTR0", pow2(width) - 2, 0);
        r.write("CTL0", en | ev(code), 0);
        EXPECT_FALSE(r.box.predict_message().has_value());
        EXPECT_FALSE(r.box.advance_to(50, true).has_value());
        EXPECT_EQ(r.box.counter_value(0), 48u);
        EXPECT_EQ(r.box.counter_wraps(0), 1u);
        EXPECT_EQ(r.box.box_status(), 0u);
    }
}

// QPI port 2 has no GLOBAL_STATUS bit: its box status works, no message.
TEST(DecisionOverflow, IvbQpiPort2SetsStatusButSendsNoMessage) {
    rig r(box_kind::qpi, ivb, 2);
    r.write("CTR3", pow2(48) - 1, 0);
    r.write("CTL3", en | ov_en | ev(0x14), 0);
    EXPECT_FALSE(r.box.advance_to(10, true).has_value());
    EXPECT_EQ(r.box.box_status(), 0x8u);
}

// While the box's GLOBAL_STATUS bit is set the owner disarms the box: the
// status bit still records the overflow but no new message is raised.
TEST(DecisionOverflow, IvbDisarmedBoxSetsStatusWithoutMessage) {
    rig r(box_kind::r2pcie, ivb);
    r.write("CTR0", pow2(44) - 3, 0);
    r.write("CTL0", en | ov_en | ev(0x01), 0);
    r.box.set_armed(false);
    EXPECT_FALSE(r.box.advance_to(10, true).has_value());
    EXPECT_EQ(r.box.box_status(), 0x1u);
    EXPECT_EQ(r.box.counter_value(0), 7u);
}

// ===========================================================================
// QPI CTO_COUNT and the packet filter

// MATCH layout fields (qpi-ll.md §2.1): MATCH0 in bits 31:0, MATCH1 in 63:32.
constexpr uint64_t mc(uint64_t v) { return v << 9; }
constexpr uint64_t opc(uint64_t v) { return v << 5; }
constexpr uint64_t dnid(uint64_t v) { return v << 13; }
constexpr uint64_t rds(uint64_t v) { return v << (32 + 16); }
constexpr uint64_t rnid_lo(uint64_t v) { return v << 32; }
constexpr uint64_t mc_drs = 0xE, mc_ncb = 0xC, mc_hom0 = 0x0;

constexpr uint32_t cto = en | ext | ev(0x38);

TEST(DecisionCto, CountsMatchingReceivedHeadersUpToTwoPerCycle) {
    for (cpu_model cpu : {snb, ivb}) {
        SCOPED_TRACE(cpu == snb ? "snb" : "ivb");
        rig r(box_kind::qpi, cpu, 1);
        r.write("PKT_MATCH0", 0x1C00, 0);  // MC = DRS, any opcode (DRS.AnyResp)
        r.write("PKT_MASK0", 0x1E00, 0);
        r.box.post_rx_header(2, mc(mc_drs) | opc(0));
        r.box.post_rx_header(2, mc(mc_drs) | opc(1));
        r.box.post_rx_header(3, mc(mc_ncb));
        r.box.post_rx_header(5, mc(mc_drs) | opc(8));
        r.box.post_rx_header(5, mc(mc_hom0));
        r.write("CTL0", cto, 0);
        r.write("CTL1", cto | thresh(2), 0);  // cycles in which both slots matched
        r.write("CTL2", en | ev(0x38), 0);     // no ext: not an event
        EXPECT_EQ(r.read("CTR0", 2), 0u);
        EXPECT_EQ(r.read("CTR0", 3), 2u);     // both headers of cycle 2
        EXPECT_EQ(r.read("CTR0", 5), 2u);
        EXPECT_EQ(r.read("CTR0", 6), 3u);
        EXPECT_EQ(r.read("CTR1", 10), 1u);
        EXPECT_EQ(r.read("CTR2", 10), 0u);
        ASSERT_EQ(r.diag_count(), 1u);
        EXPECT_EQ(r.last_diag().reg, "Q_P1_PCI_PMON_CTL2");
        EXPECT_NE(r.last_diag().reason.find("0x38"), std::string::npos) << r.last_diag().reason;
    }
}

TEST(DecisionCto, MaskZeroMatchesEveryPacket) {
    rig r(box_kind::qpi, ivb);
    r.write("PKT_MATCH0", 0x1C00, 0);  // match bits without a mask are not compared
    r.write("PKT_MATCH1", 0x80000, 0);
    r.box.post_rx_header(1, mc(mc_ncb));
    r.box.post_rx_header(1, mc(mc_hom0) | dnid(3));
    r.box.post_rx_header(4, rds(0x4) | mc(mc_drs));
    r.write("CTL3", cto, 0);
    EXPECT_EQ(r.read("CTR3", 10), 3u);
}

TEST(DecisionCto, MatchRuleCoversBothHalves) {
    // ((fields ^ MATCH) & MASK) == 0 over {MATCH1, MATCH0}: DRS.DataC_M with
    // a destination node, plus RNID[3:0] in MATCH1.
    rig r(box_kind::qpi, snb);
    r.write("PKT_MATCH0", 0x1C00 | (5u << 13), 0);  // DRS, opcode 0, DNID 5
    r.write("PKT_MASK0", 0x1FE0 | (0x1Fu << 13), 0);
    r.write("PKT_MATCH1", 0x80000 | 0x2, 0);        // RDS = M, RNID[3:0] = 2
    r.write("PKT_MASK1", 0xF0000 | 0xF, 0);
    const uint64_t good = rds(0x8) | rnid_lo(2) | dnid(5) | mc(mc_drs) | opc(0);
    r.box.post_rx_header(1, good);                                   // match
    r.box.post_rx_header(2, good ^ rds(0x8 ^ 0x4));                  // RDS = E
    r.box.post_rx_header(3, good ^ rnid_lo(1));                      // RNID 3
    r.box.post_rx_header(4, good ^ dnid(1));                         // DNID 4
    r.box.post_rx_header(5, good | opc(1));                          // opcode 1
    r.box.post_rx_header(6, good | (1ull << 3));                     // VN1: not compared
    r.write("CTL0", cto, 0);
    EXPECT_EQ(r.read("CTR0", 10), 2u);
    EXPECT_TRUE(r.box.filter_matches(good));
    EXPECT_FALSE(r.box.filter_matches(good ^ rds(0xC)));
}

// The filter in force in a cycle is the one written before it.
TEST(DecisionCto, FilterWriteGovernsLaterHeaders) {
    rig r(box_kind::qpi, ivb);
    r.write("PKT_MATCH0", 0x1C00, 0);
    r.write("PKT_MASK0", 0x1E00, 0);
    r.write("CTL0", cto, 0);
    r.box.post_rx_header(2, mc(mc_drs));
    r.box.post_rx_header(2, mc(mc_ncb));
    r.box.post_rx_header(5, mc(mc_drs));
    r.box.post_rx_header(5, mc(mc_ncb));
    r.write("PKT_MATCH0", 0x1800, 4);  // NCB from cycle 4 on
    EXPECT_EQ(r.read("CTR0", 10), 2u);  // DRS in cycle 2, NCB in cycle 5
    EXPECT_TRUE(r.box.filter_matches(mc(mc_ncb)));
}

// ===========================================================================
// Diagnostics for questionable accesses (that never change the count)

TEST(DecisionDiag, WritingARunningCounterIsDiagnosedAndStillApplied) {
    rig r(box_kind::r2pcie, ivb);
    r.write("CTL0", en | ev(0x01), 0);
    r.write("CTR0", 1000, 5);
    ASSERT_EQ(r.diag_count(), 1u);
    EXPECT_EQ(r.last_diag().reg, "R2_PCI_PMON_CTR0");
    EXPECT_EQ(r.last_diag().value, 1000u);
    EXPECT_EQ(r.last_diag().cycle, 5u);
    EXPECT_EQ(r.read("CTR0", 10), 1005u);
    // Not counting: disabled counter, or frozen box -> no diagnostic.
    r.write("CTR1", 7, 10);
    r.write("BOX_CTL", ivb_frz, 10);
    r.write("CTR0", 1, 12);
    EXPECT_EQ(r.diag_count(), 1u);
    // An enabled counter with an invalid event does not count either.
    r.write("BOX_CTL", ivb_run, 12);
    r.write("CTL2", en | ev(0x99), 12);  // one diagnostic for the event
    r.write("CTR2", 9, 13);
    EXPECT_EQ(r.diag_count(), 2u);

    rig u(box_kind::ubox, snb);
    u.box.post_run(0, 100, u.input("LOCK_CYCLES"), 1);
    u.write("CTL0", en | ev(0x44), 0);
    u.write("CTR0", 3, 4);
    EXPECT_EQ(u.diag_count(), 1u);
    EXPECT_EQ(u.read("CTR0", 6), 5u);
}

TEST(DecisionDiag, PartialReadOfARunningPciCounterIsDiagnosedAndCanTear) {
    rig r(box_kind::qpi, snb);
    const register_def& ctr = r.reg("Q_P0_PCI_PMON_CTR0");
    r.write("CTR0", 0xFFFFFFFEull, 0);
    r.write("CTL0", en | ev(0x14), 0);
    // High dword before cycle 1 (value 0x0_FFFFFFFF), low dword before cycle 3
    // (value 0x1_00000001): the halves tear, as on hardware.
    const uint64_t hi = r.box.read_reg(ctr, 0xFFFFFFFF00000000ull, r.at(1)) >> 32;
    const uint64_t lo = r.box.read_reg(ctr, 0xFFFFFFFFull, r.at(3)) & 0xFFFFFFFFull;
    EXPECT_EQ(hi, 0u);
    EXPECT_EQ(lo, 1u);
    ASSERT_EQ(r.diag_count(), 2u);
    EXPECT_EQ(r.diags.records()[0].reg, "Q_P0_PCI_PMON_CTR0");
    EXPECT_EQ(r.diags.records()[0].cycle, 1u);
    EXPECT_EQ(r.diags.records()[1].cycle, 3u);
    // A full 8-byte read is fine.
    EXPECT_EQ(r.read("CTR0", 4), 0x100000002ull);
    EXPECT_EQ(r.diag_count(), 2u);
    // Frozen (frz_en && frz on SNB-EP): partial reads are safe, no diagnostic.
    r.write("BOX_CTL", snb_frz, 4);
    EXPECT_EQ(r.box.read_reg(ctr, 0xFFFFFFFFull, r.at(6)) & 0xFFFFFFFFull, 2u);
    EXPECT_EQ(r.diag_count(), 2u);
}

TEST(DecisionDiag, RecordsCarrySocketBoxRegisterValueAndCycle) {
    diagnostic_sink sink;
    box_core b(make_box_spec(box_kind::qpi, ivb, 1), clock_domain(1000000000ull), &sink, 1);
    const register_def& ctl = *b.spec().table.find("Q_P1_PCI_PMON_CTL3");
    b.write_reg(ctl, 0x00810014, 0xFFFFFFFFull, 7000);  // bits 23 and 16: reserved on IVB-EP
    ASSERT_EQ(sink.records().size(), 1u);
    const diagnostic& d = sink.records()[0];
    EXPECT_EQ(d.socket, 1u);
    EXPECT_EQ(d.box, "qpi1");
    EXPECT_EQ(d.reg, "Q_P1_PCI_PMON_CTL3");
    EXPECT_EQ(d.value, 0x00810014u);
    EXPECT_EQ(d.cycle, 7u);
    EXPECT_EQ(d.time_ps, 7000u);
    EXPECT_FALSE(d.reason.empty());
    EXPECT_EQ(d.reason.find('\n'), std::string::npos) << "one line";
}

// "Diagnostics never change what is counted": the same stimulus with and
// without a diagnosed setting (thresh 0 + edge) gives the same count, and a
// box without a sink counts the same.
TEST(DecisionDiag, DiagnosticsDoNotChangeCounts) {
    box_core quiet(make_box_spec(box_kind::r2pcie, snb), clock_domain(1000000000ull), nullptr);
    rig loud(box_kind::r2pcie, snb);
    const unsigned ring = loud.input("RING_AD_USED", "CW_EVEN");
    for (box_core* b : {&quiet, &loud.box}) {
        b->post_run(3, 11, ring, 1);
        const register_def& ctl = *b->spec().table.find("R2_PCI_PMON_CTL0");
        b->write_reg(ctl, en | edge | inv | umask(0x01) | ev(0x07) | (1u << 19), 0xFFFFFFFFull, 0);
        b->advance_to(30);
    }
    EXPECT_EQ(quiet.counter_value(0), 11u);
    EXPECT_EQ(loud.box.counter_value(0), 11u);
    EXPECT_EQ(loud.diag_count(), 2u);  // reserved bit 19, and edge/invert with thresh 0
}

}  // namespace
}  // namespace pmonsim

namespace pmonsim {
namespace {

// CLOCKTICKS is the box's clock: a trace cannot drive it (it would double count).
TEST(DecisionEvent, ClockticksCannotBeDrivenFromOutside) {
    box_spec spec = make_box_spec(box_kind::r2pcie, cpu_model::ivb_ep, 0);
    box_core box(spec, clock_domain(1000000000ull), nullptr);
    const unsigned clk = *spec.catalog->find_input("CLOCKTICKS", "");
    EXPECT_THROW(box.post_run(0, 10, clk, 1), std::invalid_argument);
    EXPECT_THROW(box.post_step(0, clk, 1), std::invalid_argument);
    box.advance_to(5);
    EXPECT_EQ(box.input_value(clk), 1u);
}

// A rejected run posts nothing: neither of its two steps.
TEST(DecisionEvent, RejectedRunsLeaveTheInputsAsTheyWere) {
    box_spec spec = make_box_spec(box_kind::r2pcie, cpu_model::ivb_ep, 0);
    box_core box(spec, clock_domain(1000000000ull), nullptr);
    const unsigned occ = *spec.catalog->find_input("RxR_OCCUPANCY", "DRS");
    const uint32_t max = spec.catalog->events()[spec.catalog->input(occ).event].max_inc;
    ASSERT_GT(max, 1u);
    box.post_run(10, 5, occ, max);  // the largest increment is fine
    box.advance_to(8);
    EXPECT_THROW(box.post_run(20, 5, occ, max + 1), std::invalid_argument);
    EXPECT_THROW(box.post_run(7, 5, occ, 1), std::logic_error);  // before the box's cycle
    EXPECT_THROW(box.post_run(20, 5, static_cast<unsigned>(spec.catalog->input_count()), 1), std::out_of_range);
    EXPECT_THROW(box.post_run(20, ~cycle_t{0} - 10, occ, 1), std::out_of_range);  // past the last cycle
    box.advance_to(12);
    EXPECT_EQ(box.input_value(occ), max);
    box.advance_to(40);
    EXPECT_EQ(box.input_value(occ), 0u);
}

}  // namespace
}  // namespace pmonsim

// ===========================================================================
// Memory-controller channels (decisions.md B1-B4)

namespace pmonsim {
namespace {

constexpr uint32_t fixed_rst = 1u << 19;  // MC_CHy_PCI_PMON_FIXED_CTL.rst

// B3: the DCLK counter counts every cycle of the channel's clock, obeys the
// box's freeze, and reports its carry in BOX_STATUS bit 0, counter i in bit
// i + 1 (SNB-EP: on any carry; IVB-EP: with ov_en, with a message).
TEST(DecisionImc, FixedCounterCountsDclkAndOwnsStatusBitZero) {
    for (cpu_model cpu : {snb, ivb}) {
        SCOPED_TRACE(to_string(cpu));
        rig r(box_kind::imc, cpu, 0, 800000000ull);  // DDR3-1600
        const uint32_t with_ov = cpu == ivb ? ov_en : 0;
        r.write("FIXED_CTR", pow2(48) - 3, 0);
        r.write("FIXED_CTL", en | with_ov, 0);
        r.write("CTR1", pow2(48) - 5, 0);
        r.write("CTL1", en | with_ov | ev(0x00), 0);  // the clock event on a general counter
        EXPECT_EQ(r.read_t("FIXED_CTR", 1000000), 800u - 3u);  // 1 us of 800 MHz, past the wrap
        EXPECT_EQ(r.read_t("CTR1", 1000000), 800u - 5u);
        EXPECT_EQ(r.read_t("BOX_STATUS", 1000000), 0x1u | 0x4u);
        EXPECT_EQ(r.box.event_name(4), "DCLK");
        // Writing 1 clears each bit where the register puts it.
        r.write_t("BOX_STATUS", 0x1, 1000000);
        EXPECT_EQ(r.read_t("BOX_STATUS", 1000000), 0x4u);
        // The box's freeze stops the fixed counter too.
        r.write_t("BOX_CTL", cpu == snb ? snb_frz : ivb_frz, 1000000);
        EXPECT_EQ(r.read_t("FIXED_CTR", 2000000), 800u - 3u);
    }
}

// B3: FIXED_CTL bit 19 clears the fixed counter (327043-001 Table 2-62).
TEST(DecisionImc, FixedCtlRstClearsTheFixedCounter) {
    rig r(box_kind::imc, ivb, 0);
    r.write("FIXED_CTL", en, 0);
    EXPECT_EQ(r.read("FIXED_CTR", 100), 100u);
    r.write("FIXED_CTL", en | fixed_rst, 100);
    EXPECT_EQ(r.read("FIXED_CTR", 130), 30u);
    EXPECT_EQ(r.read("FIXED_CTL", 130) & fixed_rst, 0u) << "rst is write-only";
    EXPECT_EQ(r.diag_count(), 0u);
}

// B2: the SNB-EP channel has no reset bits, in BOX_CTL (1:0) or CTLn (17):
// writing them (as Linux and PCM do) is diagnosed and clears nothing. IVB-EP
// has both.
TEST(DecisionImc, SnbChannelHasNoResetBits) {
    rig s(box_kind::imc, snb, 0);
    s.write("CTL0", en | ev(0x00), 0);
    s.write("BOX_CTL", 0x10003, 10);  // Linux's init value
    EXPECT_EQ(s.diag_count(), 1u);
    EXPECT_NE(s.last_diag().reason.find("reserved"), std::string::npos) << s.last_diag().reason;
    EXPECT_EQ(s.read("CTL0", 20), en | ev(0x00)) << "rst_ctrl must not clear the controls";
    EXPECT_EQ(s.read("CTR0", 20), 20u) << "rst_ctrs must not clear the counters";
    s.write("CTL0", en | rst | ev(0x00), 20);
    EXPECT_EQ(s.diag_count(), 2u);
    EXPECT_EQ(s.read("CTR0", 30), 30u) << "bit 17 must not clear the counter";

    rig i(box_kind::imc, ivb, 0);
    i.write("CTL0", en | ev(0x00), 0);
    i.write("BOX_CTL", ivb_run | 0x2, 10);  // rst_ctrs
    EXPECT_EQ(i.read("CTR0", 20), 10u);
    i.write("CTL0", en | rst | ev(0x00), 20);
    EXPECT_EQ(i.read("CTR0", 30), 10u);
    EXPECT_EQ(i.diag_count(), 0u);
}

// B4: CAS_COUNT sub-events add at most 1 per DCLK; RD is RD_REG + RD_UNDERFILL.
TEST(DecisionImc, CasCountSumsItsSubEventsOnePerCycleEach) {
    rig r(box_kind::imc, ivb, 0);
    r.box.post_run(0, 100, r.input("CAS_COUNT", "RD_REG"), 1);
    r.box.post_run(50, 100, r.input("CAS_COUNT", "RD_UNDERFILL"), 1);
    r.box.post_run(0, 40, r.input("CAS_COUNT", "WR_WMM"), 1);
    EXPECT_THROW(r.box.post_run(0, 1, r.input("CAS_COUNT", "WR_RMM"), 2), std::invalid_argument);
    r.write("CTL0", en | umask(0x03) | ev(0x04), 0);  // CAS_COUNT.RD
    r.write("CTL1", en | umask(0x0C) | ev(0x04), 0);  // CAS_COUNT.WR
    r.write("CTL2", en | thresh(2) | umask(0x03) | ev(0x04), 0);  // cycles with both reads
    EXPECT_EQ(r.read("CTR0", 200), 200u);
    EXPECT_EQ(r.read("CTR1", 200), 40u);
    EXPECT_EQ(r.read("CTR2", 200), 50u);
    EXPECT_EQ(r.box.event_name(0), "CAS_COUNT.RD");
}

}  // namespace
}  // namespace pmonsim

namespace pmonsim {
namespace {

// B7: the HA's match registers hold what software writes (their fields),
// reserved bits are diagnosed, and a row without request attributes is a
// count of matches whatever they hold: ADDR_OPC_MATCH's sub-events come from
// traces like any other event's. (Qualified rows: DecisionRequests.*, B14.)
TEST(DecisionHa, MatchRegistersReadBackAndUnqualifiedRowsAreMatches) {
    rig r(box_kind::ha, ivb, 0);
    r.box.post_run(0, 30, r.input("ADDR_OPC_MATCH", "ADDR"), 1);
    r.box.post_run(10, 5, r.input("ADDR_OPC_MATCH", "OPC"), 1);
    r.box.post_run(12, 2, r.input("ADDR_OPC_MATCH", "FILT"), 1);
    r.write("BOX_ADDRMATCH0", 0x12345678, 0);
    r.write("BOX_ADDRMATCH1", 0x0000ABCD, 0);
    r.write("BOX_OPCODEMATCH", 0x21, 0);
    EXPECT_EQ(r.read("BOX_ADDRMATCH0", 1), 0x12345640u) << "bits 5:0 are reserved";
    EXPECT_EQ(r.read("BOX_ADDRMATCH1", 1), 0x2BCDu) << "bits 31:14 are reserved";
    EXPECT_EQ(r.read("BOX_OPCODEMATCH", 1), 0x21u);
    EXPECT_EQ(r.diag_count(), 2u);
    // Its umasks are encodings (decisions.md B7): FILT (0x03) counts matches of
    // both, not ADDR + OPC; a value that is no encoding counts nothing.
    r.write("CTL0", en | umask(0x03) | ev(0x20), 1);
    r.write("CTL1", en | umask(0x01) | ev(0x20), 1);
    r.write("CTL2", en | umask(0x06) | ev(0x20), 1);
    EXPECT_EQ(r.read("CTR0", 100), 2u);
    EXPECT_EQ(r.read("CTR1", 100), 29u);  // cycles 1-29
    EXPECT_EQ(r.read("CTR2", 100), 0u);
    EXPECT_NE(r.last_diag().reason.find("umask 0x06 is not one of the encodings of ADDR_OPC_MATCH"), std::string::npos)
        << r.last_diag().reason;
    EXPECT_EQ(r.box.event_name(0), "ADDR_OPC_MATCH.FILT");
}

// B6: an R3QPI link counts UCLK on three counters; on IVB-EP links 0 and 1
// message the UBox with ov_en (ov_rq0/ov_rq1), link 2 has no bit.
TEST(DecisionR3qpi, ThreeCountersAndGlobalBitsPerLink) {
    EXPECT_EQ(make_box_spec(box_kind::r3qpi, ivb, 1).global_bit, 25);
    EXPECT_EQ(make_box_spec(box_kind::r3qpi, ivb, 2).global_bit, -1);
    EXPECT_EQ(make_box_spec(box_kind::ha, ivb, 1).global_bit, 19);
    rig r(box_kind::r3qpi, ivb, 0);
    EXPECT_EQ(r.box.spec().counters, 3u);
    r.write("CTR2", pow2(44) - 4, 0);
    r.write("CTL2", en | ov_en | ev(0x01), 0);
    auto m = r.box.advance_to(10, true);
    ASSERT_TRUE(m.has_value());
    EXPECT_EQ(m->cycle, 3u);
    EXPECT_EQ(r.box.box_status(), 0x4u);
    // The ring events may use counter 2; the ingress occupancy only counter 0.
    r.write("CTL1", en | ev(0x13) | umask(0x01), 10);
    EXPECT_EQ(r.diag_count(), 1u);
    EXPECT_NE(r.last_diag().reason.find("not allowed on counter 1"), std::string::npos) << r.last_diag().reason;
}

}  // namespace
}  // namespace pmonsim

namespace pmonsim {
namespace {

// B9: COUNTER0_OCCUPANCY gives counters 1-3 counter 0's increment, which they
// condition by their own threshold and edge; it follows counter 0's selection.
TEST(DecisionCbo, Counter0OccupancyFollowsCounterZerosSelection) {
    rig r(box_kind::cbo, ivb, 3);
    const unsigned irq = r.input("RxR_OCCUPANCY", "IRQ"), tor = r.input("TOR_OCCUPANCY", "OPCODE");
    r.box.post_run(0, 10, irq, 5);
    r.box.post_run(10, 10, irq, 1);
    r.box.post_run(0, 40, tor, 7);
    r.write("CTL0", en | umask(0x01) | ev(0x11), 0);            // RxR_OCCUPANCY.IRQ
    r.write("CTL1", en | ev(0x1F), 0);                          // its increment
    r.write("CTL2", en | thresh(4) | ev(0x1F), 0);              // cycles with >= 4 entries
    r.write("CTL3", en | thresh(1) | edge | ev(0x1F), 0);       // times the queue became non-empty
    EXPECT_EQ(r.read("CTR0", 30), 60u);
    EXPECT_EQ(r.read("CTR1", 30), 60u);
    EXPECT_EQ(r.read("CTR2", 30), 10u);
    EXPECT_EQ(r.read("CTR3", 30), 1u);
    // Counter 0 moves to TOR_OCCUPANCY.OPCODE: the mirrors follow from then on.
    r.write("CTL0", en | umask(0x01) | ev(0x36), 30);
    EXPECT_EQ(r.read("CTR1", 40), 60u + 70u);
    EXPECT_EQ(r.read("CTR2", 40), 10u + 10u);
    // Occupancy only on counter 0 (the JSON's masks), the mirror not on 0.
    r.write("CTL1", en | umask(0x01) | ev(0x11), 40);
    EXPECT_NE(r.last_diag().reason.find("not allowed on counter 1"), std::string::npos) << r.last_diag().reason;
    r.write("CTL0", en | ev(0x1F), 40);
    EXPECT_NE(r.last_diag().reason.find("not allowed on counter 0"), std::string::npos) << r.last_diag().reason;
}

// B8: the filters hold what software writes (per personality's layout), a
// row without request attributes counts whatever they hold, and
// LLC_LOOKUP's umasks are encodings, each its own input. (Qualified rows:
// DecisionRequests.*, B14.)
TEST(DecisionCbo, FiltersReadBackAndUnqualifiedRowsAreLookups) {
    rig r(box_kind::cbo, ivb, 0);
    r.box.post_run(0, 20, r.input("LLC_LOOKUP", "DATA_READ"), 1);
    r.box.post_run(0, 5, r.input("LLC_LOOKUP", "WRITE"), 1);
    r.write("BOX_FILTER0", 0x01 << 17, 0);  // state I only
    r.write("BOX_FILTER1", 0x182u << 20, 0);  // opcode DRd
    r.write("CTL0", en | umask(0x03) | ev(0x34), 0);  // DATA_READ
    r.write("CTL1", en | umask(0x05) | ev(0x34), 0);  // WRITE
    EXPECT_EQ(r.read("BOX_FILTER0", 1), 0x20000u);
    EXPECT_EQ(r.read("BOX_FILTER1", 1), 0x18200000u);
    EXPECT_EQ(r.read("CTR0", 30), 20u) << "the DATA_READ encoding alone, whatever the filter";
    EXPECT_EQ(r.read("CTR1", 30), 5u);
    EXPECT_EQ(r.diag_count(), 0u);
    rig s(box_kind::cbo, snb, 2);
    s.write("BOX_FILTER", 0xFFFFFFFF, 0);
    EXPECT_EQ(s.read("BOX_FILTER", 1), 0xFFFFFC1Fu) << "bits 9:5 reserved";
    EXPECT_EQ(s.diag_count(), 1u);
}

// ===========================================================================
// The PCU (decisions.md B10-B12)

constexpr uint32_t occ_sel(uint32_t n) { return n << 14; }
constexpr uint32_t occ_invert = 1u << 30, occ_edge = 1u << 31;

// B10: an occupancy event (ev_sel bit 7) adds the cores in the state occ_sel
// picks, compared with thresh under occ_invert and occ_edge_det.
TEST(DecisionPcu, OccupancyCountsTheCoresInTheSelectedState) {
    rig r(box_kind::pcu, ivb);
    const unsigned c0 = r.input("POWER_STATE_OCCUPANCY", "CORES_C0"),
                   c6 = r.input("POWER_STATE_OCCUPANCY", "CORES_C6");
    r.box.post_run(0, 10, c0, 8);   // 8 cores busy, then 2
    r.box.post_run(10, 10, c0, 2);
    r.box.post_run(10, 10, c6, 6);  // the other 6 asleep in C6
    r.write("CTL0", en | occ_sel(1) | ev(0x80), 0);                    // cores in C0, summed
    r.write("CTL1", en | thresh(4) | occ_sel(1) | ev(0x80), 0);        // cycles with >= 4 in C0
    r.write("CTL2", en | thresh(4) | occ_invert | occ_sel(1) | ev(0x80), 0);  // cycles with < 4 in C0
    r.write("CTL3", en | thresh(1) | occ_edge | occ_sel(3) | ev(0x80), 0);    // times a core entered C6
    EXPECT_EQ(r.read("CTR0", 20), 8u * 10 + 2u * 10);
    EXPECT_EQ(r.read("CTR1", 20), 10u);
    EXPECT_EQ(r.read("CTR2", 20), 10u);
    EXPECT_EQ(r.read("CTR3", 20), 1u);
    EXPECT_EQ(r.diag_count(), 0u);
    // The generic edge_det does not apply to an occupancy event: diagnosed, ignored.
    r.write("CTL3", en | thresh(1) | edge | occ_sel(3) | ev(0x80), 20);
    EXPECT_NE(r.last_diag().reason.find("edge_det set for an occupancy event"), std::string::npos)
        << r.last_diag().reason;
    // occ_sel 0 selects no sub-counter.
    r.write("CTL2", en | ev(0x80), 20);
    EXPECT_NE(r.last_diag().reason.find("occ_sel 0 selects no occupancy sub-counter"), std::string::npos)
        << r.last_diag().reason;
    // Another event has no umask: occ_sel and the occ_ bits are ignored, diagnosed.
    r.write("CTL1", en | occ_sel(2) | occ_invert | ev(0x00), 20);
    EXPECT_NE(r.last_diag().reason.find("occ_sel, occ_invert set for an event that is not an occupancy event"),
              std::string::npos)
        << r.last_diag().reason;
    EXPECT_EQ(r.read("CTR1", 30), 10u + 10u) << "CLOCKTICKS, whatever occ_sel says";
    // Bits 13:8 are reserved (no umask): not stored.
    r.write("CTL0", en | umask(0x3F) | ev(0x00), 30);
    EXPECT_EQ(r.read("CTL0", 31), en);
}

// B10: SNB-EP's PCU spells several events as a code plus ev_sel_ext (bit 21):
// 0x00 is CLOCKTICKS, 0x00 + ext FREQ_TRANS_CYCLES.
TEST(DecisionPcu, TheExtraSelectBitPicksAnotherEventOnSnbEp) {
    rig r(box_kind::pcu, snb);
    r.box.post_run(0, 7, r.input("FREQ_TRANS_CYCLES"), 1);
    r.write("CTL0", en | ev(0x00), 0);
    r.write("CTL1", en | ext | ev(0x00), 0);
    r.write("CTL2", en | ext | ev(0x03), 0);  // CORE0_TRANSITION_CYCLES; without ext VOLT_TRANS_CYCLES_CHANGE
    EXPECT_EQ(r.read("CTR0", 20), 20u);
    EXPECT_EQ(r.read("CTR1", 20), 7u);
    EXPECT_EQ(r.read("CTR2", 20), 0u);
    EXPECT_EQ(r.box.event_name(1), "FREQ_TRANS_CYCLES");
    EXPECT_EQ(r.box.event_name(2), "CORE0_TRANSITION_CYCLES");
    EXPECT_EQ(r.diag_count(), 0u);
}

// B11: FREQ_BANDk_CYCLES counts cycles whose frequency (one input, 100 MHz
// steps) is at least byte k of the filter; a filter write takes effect at once.
TEST(DecisionPcu, BandEventsCompareTheFrequencyWithTheirFilterByte) {
    rig r(box_kind::pcu, ivb);
    const unsigned freq = r.input("FREQ_BAND2_CYCLES");
    EXPECT_EQ(freq, r.input("FREQ_BAND0_CYCLES")) << "the four band events share the frequency input";
    r.box.post_run(0, 10, freq, 12);   // 1.2 GHz
    r.box.post_run(10, 10, freq, 24);  // 2.4 GHz
    r.box.post_run(20, 10, freq, 30);  // 3.0 GHz
    r.write("BOX_FILTER", 0x1E140A00u, 0);  // bands 0, 1.0, 2.0, 3.0 GHz (PCM's choice, band 0 at 0)
    for (unsigned k = 0; k < 4; ++k) r.write("CTL" + std::to_string(k), en | ev(0x0B + k), 0);
    EXPECT_EQ(r.read("CTR0", 30), 30u) << "at least 0 GHz: every cycle";
    EXPECT_EQ(r.read("CTR1", 30), 30u);
    EXPECT_EQ(r.read("CTR2", 30), 20u);
    EXPECT_EQ(r.read("CTR3", 30), 10u);
    // Band 3 moves to 2.5 GHz at cycle 25: cycles 25-29 at 3.0 GHz count.
    rig t(box_kind::pcu, ivb);
    t.box.post_run(0, 30, freq, 30);
    t.write("BOX_FILTER", 0xFF000000u, 0);
    t.write("CTL0", en | ev(0x0E), 0);
    t.write("BOX_FILTER", 0x19000000u, 25);
    EXPECT_EQ(t.read("CTR0", 30), 5u);
    EXPECT_EQ(t.read("BOX_FILTER", 30), 0x19000000u);
    // The counter's own threshold and edge act on the band's compare:
    // entries into the band.
    rig u(box_kind::pcu, snb);
    for (cycle_t c = 0; c < 40; c += 10) u.box.post_run(c, 5, freq, 30);  // 3.0 GHz half the time
    u.write("BOX_FILTER", 0x1Eu, 0);
    u.write("CTL0", en | thresh(1) | edge | ev(0x0B), 0);
    EXPECT_EQ(u.read("CTR0", 40), 4u);
}

// B12: the residency counters outside PMON count the TSC ticks (2.8 GHz on
// ivb-ep; the rig's clock is 1 GHz: 2.8 a cycle) of the cycles in which some
// core is in C3 / C6, never stop for a freeze or a reset, and a write sets them.
TEST(DecisionPcu, ResidencyCountersRunOutsidePmon) {
    rig r(box_kind::pcu, ivb);
    const unsigned c3 = r.input("POWER_STATE_OCCUPANCY", "CORES_C3"),
                   c6 = r.input("POWER_STATE_OCCUPANCY", "CORES_C6");
    r.box.post_run(0, 10, c3, 3);  // three cores in C3, then one
    r.box.post_run(10, 5, c3, 1);
    r.box.post_run(20, 10, c6, 15);
    r.write("BOX_CTL", ivb_frz, 0);  // the PMON counters frozen from the start
    r.write("CTL0", en | ev(0x00), 0);
    EXPECT_EQ(r.read("CORE_C3_CTR", 40), 42u) << "15 cycles' ticks, not cores";
    EXPECT_EQ(r.read("CORE_C6_CTR", 40), 28u) << "cycles 20-29: ticks 56 to 84";
    EXPECT_EQ(r.read("CTR0", 40), 0u) << "the PMON counter is frozen";
    r.write("BOX_CTL", ivb_run | 0x3, 40);  // rst_ctrl and rst_ctrs
    EXPECT_EQ(r.read("CORE_C3_CTR", 41), 42u) << "not reset by BOX_CTL";
    r.write("CORE_C6_CTR", ~0ull - 1, 41);  // 64 bits, RW-V
    r.box.post_run(50, 5, c6, 2);
    EXPECT_EQ(r.read("CORE_C6_CTR", 60), 12u) << "14 ticks (cycles 50-54) from 2^64 - 2: wraps at 2^64";
    EXPECT_EQ(r.box.counter_wraps(5), 1u);
    EXPECT_EQ(r.box.event_name(4), "C3 residency");
    EXPECT_EQ(r.diag_count(), 0u);
}

// B10: IVB-EP's PCU reports overflow in BOX_STATUS (0xC35) with ov_en;
// SNB-EP's has no BOX_STATUS and no ov_en.
TEST(DecisionPcu, BoxStatusOnIvbEpOnly) {
    rig r(box_kind::pcu, ivb);
    EXPECT_EQ(r.reg("PCU_MSR_PMON_BOX_STATUS").offset, 0xC35u);
    EXPECT_EQ(r.box.spec().global_bit, 2) << "GLOBAL_STATUS.ov_p";
    r.write("CTR2", pow2(48) - 5, 0);
    r.write("CTL2", en | ov_en | ev(0x00), 0);
    EXPECT_EQ(r.read("BOX_STATUS", 10), 0x4u);
    r.write("BOX_STATUS", 0x4, 10);
    EXPECT_EQ(r.read("BOX_STATUS", 11), 0u);
    rig s(box_kind::pcu, snb);
    EXPECT_EQ(s.box.spec().table.find("PCU_MSR_PMON_BOX_STATUS"), nullptr);
    EXPECT_EQ(s.box.spec().global_bit, -1);
    s.write("CTL0", en | ov_en | ev(0x00), 0);
    EXPECT_EQ(s.read("CTL0", 1), en) << "bit 20 is reserved on SNB-EP";
}

// ===========================================================================
// The IRP (decisions.md B13)

// Four 48-bit counters at Linux's unaligned offsets, every event on each; a
// BOX_STATUS bit per counter with ov_en, and no GLOBAL_STATUS bit.
TEST(DecisionIrp, CountersAtTheirOffsetsStatusInTheBoxOnly) {
    rig r(box_kind::irp, ivb);
    EXPECT_EQ(r.reg("IRP_PCI_PMON_CTR1").offset, 0xB0u);
    EXPECT_EQ(r.reg("IRP_PCI_PMON_CTR2").offset, 0xB8u);
    EXPECT_EQ(r.reg("IRP_PCI_PMON_CTR3").offset, 0xC0u);
    EXPECT_EQ(r.box.spec().table.find(0xA8u), nullptr) << "0xA8-0xAF is no counter";
    EXPECT_EQ(r.box.spec().global_bit, -1);
    r.box.post_run(0, 40, r.input("TRANSACTIONS", "WRITES"), 1);
    r.box.post_run(0, 10, r.input("CACHE_WRITE_OCCUPANCY", "ANY"), 100);
    r.write("CTL0", en | umask(0x02) | ev(0x15), 0);  // TRANSACTIONS.WRITES
    r.write("CTL1", en | umask(0x01) | ev(0x11), 0);  // CACHE_WRITE_OCCUPANCY.ANY
    r.write("CTR3", pow2(48) - 5, 0);
    r.write("CTL3", en | ov_en | ev(0x00), 0);        // CLOCKTICKS on the second unit's pair
    r.write("CTL2", en | umask(0x02) | ev(0x15), 0);
    EXPECT_EQ(r.read("CTR0", 40), 40u);
    EXPECT_EQ(r.read("CTR1", 40), 1000u);
    EXPECT_EQ(r.read("CTR2", 40), 40u);
    EXPECT_EQ(r.read("CTR3", 40), 35u) << "wrapped at 2^48";
    EXPECT_EQ(r.read("BOX_STATUS", 40), 0x8u);
    EXPECT_EQ(r.diag_count(), 0u);
}

}  // namespace
}  // namespace pmonsim
