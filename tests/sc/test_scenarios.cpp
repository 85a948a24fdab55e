// Scenario tests in the style of the manuals' setup sequences (329468-002
// §2.1.2-2.1.4, 327043-001 §2.1): freeze, program, reset, unfreeze, count,
// read; IVB-EP sampling by preload and ov_en with freeze propagation and PMI;
// SNB-EP frz without frz_en.
#include <gtest/gtest.h>

#include "sc/sc_harness.h"

namespace pmonsim {
namespace {

using test::run_script;
using test::wait_ns;

constexpr unsigned kBus = 0xFF;
constexpr unsigned kQpiDev = 8, kPmon = 2, kFilter = 6;
constexpr unsigned kR2Dev = 19, kR2Fn = 1;

uint64_t read_ctr(uncore_system& s, unsigned dev, unsigned fn, unsigned i) {
    const uint64_t lo = s.pci_read(kBus, dev, fn, 0xA0 + 8 * i, 4);
    const uint64_t hi = s.pci_read(kBus, dev, fn, 0xA4 + 8 * i, 4);
    return (hi << 32) | lo;
}

TEST(Scenario, IvbPreloadOverflowFreezesEveryBoxAndRaisesPmi) {
    uncore_config cfg;  // ivb-ep, 2 GHz UCLK, 8 GT/s (1 GHz QCLK), latency 3
    uncore_system sys("sys", cfg);
    const clock_domain uclk(cfg.uclk_hz()), qclk(cfg.qclk_hz());
    const uint64_t N = 1000;
    run_script([&] {
        sys.msr_write(0, 0xC00, 1u << 31);                         // frz_all
        sys.pci_write(kBus, kQpiDev, kPmon, 0xF4, 4, 0x30103);     // frz + reset ctrs/ctls
        sys.pci_write(kBus, kR2Dev, kR2Fn, 0xF4, 4, 0x30103);
        sys.pci_write(kBus, kQpiDev, kPmon, 0xD8, 4, 0x00500014);  // CLOCKTICKS, en, ov_en
        const uint64_t preload = (1ull << 48) - N;
        sys.pci_write(kBus, kQpiDev, kPmon, 0xA0, 4, preload & 0xFFFFFFFF);
        sys.pci_write(kBus, kQpiDev, kPmon, 0xA4, 4, preload >> 32);
        sys.pci_write(kBus, kR2Dev, kR2Fn, 0xD8, 4, 0x00400001);   // R2PCIe CLOCKTICKS, en
        sys.msr_write(0, 0xC08, 1u << 22);                         // UCLK fixed counter on
        sys.pci_write(kBus, kQpiDev, kPmon, 0xF4, 4, 0x30000);     // clear box freezes
        sys.pci_write(kBus, kR2Dev, kR2Fn, 0xF4, 4, 0x30000);
        wait_ns(10.25);
        const time_ps t0 = now_ps();
        sys.msr_write(0, 0xC00, (1u << 29) | 0x6);                 // unfrz_all, PMI to cores 1, 2
        wait_ns(5000);

        // The QPI counter carried in its N-th cycle and stopped right after.
        const cycle_t q0 = qclk.cycles_before(t0);
        const time_ps e = qclk.cycle_start(q0 + N);
        EXPECT_EQ(read_ctr(sys, kQpiDev, kPmon, 0), 0u);
        EXPECT_EQ(sys.pci_read(kBus, kQpiDev, kPmon, 0xF8, 4), 0x1u);
        uint64_t gs = 0;
        ASSERT_TRUE(sys.msr_read(0, 0xC01, gs));
        EXPECT_EQ(gs, 1u << 22);
        EXPECT_TRUE(sys.socket(0).global().frozen());
        // Everything else counted until `latency` UCLK cycles after the carry.
        const cycle_t u_stop = uclk.cycles_before(e) + cfg.freeze_latency;
        const cycle_t u0 = uclk.cycles_before(t0);
        EXPECT_EQ(read_ctr(sys, kR2Dev, kR2Fn, 0), u_stop - u0);
        uint64_t fixed = 0;
        ASSERT_TRUE(sys.msr_read(0, 0xC09, fixed));
        EXPECT_EQ(fixed, u_stop - u0);
        // 2 UCLK per QCLK, plus the latency, plus one UCLK cycle because the
        // unfreeze at 10.25 ns lets UCLK count from 10.5 ns but QCLK from 11 ns.
        EXPECT_EQ(u_stop - u0, 2 * N + 3 + 1);
        auto& g = sys.socket(0).global();
        EXPECT_EQ(g.pmi_count(0), 0u);
        EXPECT_EQ(g.pmi_count(1), 1u);
        EXPECT_EQ(g.pmi_count(2), 1u);
        EXPECT_EQ(g.freezes(), 2u);  // frz_all at setup, then the overflow

        // Re-arm (§2.1.4): reset, clear the status bits, reload, unfreeze.
        sys.pci_write(kBus, kQpiDev, kPmon, 0xF4, 4, 0x30002);
        sys.pci_write(kBus, kQpiDev, kPmon, 0xF8, 4, 0x1);
        sys.msr_write(0, 0xC01, 1u << 22);
        sys.pci_write(kBus, kQpiDev, kPmon, 0xA0, 4, ((1ull << 48) - 10) & 0xFFFFFFFF);
        sys.pci_write(kBus, kQpiDev, kPmon, 0xA4, 4, ((1ull << 48) - 10) >> 32);
        sys.msr_write(0, 0xC00, (1u << 29) | 0x6);
        wait_ns(100);
        EXPECT_EQ(read_ctr(sys, kQpiDev, kPmon, 0), 0u);
        EXPECT_EQ(g.pmi_count(1), 2u);
        EXPECT_EQ(g.freezes(), 3u);
    });
}

TEST(Scenario, IvbOverflowWhileGlobalBitSetRaisesNoNewFreeze) {
    uncore_config cfg;
    uncore_system sys("sys", cfg);
    run_script([&] {
        sys.msr_write(0, 0xC00, 0x1);                               // PMI to core 0
        sys.pci_write(kBus, kR2Dev, kR2Fn, 0xA0, 4, 0xFFFFFFFF - 9); // 2^44 - 10
        sys.pci_write(kBus, kR2Dev, kR2Fn, 0xA4, 4, 0xFFF);
        sys.pci_write(kBus, kR2Dev, kR2Fn, 0xD8, 4, 0x00500001);    // CLOCKTICKS, en, ov_en
        wait_ns(100);
        auto& g = sys.socket(0).global();
        EXPECT_TRUE(g.frozen());
        EXPECT_EQ(g.status(), 1u << 26);
        EXPECT_EQ(g.pmi_count(0), 1u);
        // Release the freeze but leave GLOBAL_STATUS.ov_rp set: the next
        // overflow sets the box bit again but neither freezes nor interrupts.
        sys.pci_write(kBus, kR2Dev, kR2Fn, 0xF8, 4, 0x1);
        sys.pci_write(kBus, kR2Dev, kR2Fn, 0xA0, 4, 0xFFFFFFFF - 9);
        sys.pci_write(kBus, kR2Dev, kR2Fn, 0xA4, 4, 0xFFF);
        sys.msr_write(0, 0xC00, (1u << 29) | 0x1);
        wait_ns(100);  // 200 UCLK cycles: wraps after 10
        EXPECT_FALSE(g.frozen());
        EXPECT_EQ(g.pmi_count(0), 1u);
        EXPECT_EQ(sys.pci_read(kBus, kR2Dev, kR2Fn, 0xF8, 4), 0x1u);
        EXPECT_EQ(read_ctr(sys, kR2Dev, kR2Fn, 0), 190u);
    });
}

// The carry of cycle 9 ends at 5 ns (2 GHz): software acting at exactly that
// instant already sees its consequences, whatever order SystemC runs things in.
TEST(Scenario, IvbOverflowIsVisibleAtTheInstantItHappens) {
    uncore_config cfg;
    uncore_system sys("sys", cfg);
    run_script([&] {
        sys.pci_write(kBus, kR2Dev, kR2Fn, 0xA0, 4, 0xFFFFFFFF - 9);  // 2^44 - 10
        sys.pci_write(kBus, kR2Dev, kR2Fn, 0xA4, 4, 0xFFF);
        sys.pci_write(kBus, kR2Dev, kR2Fn, 0xD8, 4, 0x00500001);     // CLOCKTICKS, en, ov_en
        wait_ns(5);
        uint64_t gs = 0;
        ASSERT_TRUE(sys.msr_read(0, 0xC01, gs));
        EXPECT_EQ(gs, 1u << 26);
        EXPECT_TRUE(sys.socket(0).global().frozen());
        // An unfrz_all at the same instant releases that freeze for good.
        sys.msr_write(0, 0xC00, 1u << 29);
        wait_ns(50);
        EXPECT_FALSE(sys.socket(0).global().frozen());
        EXPECT_EQ(read_ctr(sys, kR2Dev, kR2Fn, 0), 100u);  // 0 at 5 ns, then 100 cycles
    });
}

// A sampling counter preloaded far from the wrap on a flit event: the port
// does not predict its message exactly after every packet while the wrap is
// still far (box_module wakes at a bound and looks again), yet the message
// comes in the exact cycle of the K-th data flit, whether the packets were
// all posted up front or a little ahead at a time (as a replay does).
// (One system per process: a parameter per posting style.)
class FarPreload : public ::testing::TestWithParam<bool> {};

TEST_P(FarPreload, IvbFlitCounterMessagesInTheExactCycle) {
    {
        const bool up_front = GetParam();
        uncore_config cfg;
        uncore_system sys("sys", cfg);
        const uint64_t K = 35000, packets = 6000;  // 48000 data flits: the wrap is in there
        const cycle_t c0 = 10;                     // all headers ready then: back to back
        // Where the K-th data flit goes, and how many data flits its cycle ends with.
        const uint64_t s0 = 2 * c0, j = (K - 1) / 8, slot = s0 + 9 * j + 1 + (K - 1) % 8;
        const cycle_t carry = slot / 2;
        uint64_t through = 0;
        for (uint64_t s = s0; s <= 2 * carry + 1; ++s) through += (s - s0) % 9 != 0;
        run_script([&] {
            box_module& port = *sys.socket(0).boxes()[3];
            const uint64_t preload = (1ull << 48) - K;
            sys.pci_write(kBus, kQpiDev, kPmon, 0xA0, 4, preload & 0xFFFFFFFF);
            sys.pci_write(kBus, kQpiDev, kPmon, 0xA4, 4, preload >> 32);
            sys.pci_write(kBus, kQpiDev, kPmon, 0xD8, 4, 0x00500201);  // RxL_FLITS_G0.DATA, en, ov_en
            qpi_packet drs;
            drs.mc = qpi_mc::drs;  // 1 header + 8 data flits
            uint64_t posted = 0;
            while (posted < packets) {
                const uint64_t n = up_front ? packets : 100;  // 100 packets = 450 cycles
                for (uint64_t k = 0; k < n; ++k, ++posted) port.post_packet(qpi_dir::rx, c0, drs);
                if (!up_front) wait_ns(400);
            }
            wait_ns(30000 - sc_core::sc_time_stamp().to_seconds() * 1e9);
            EXPECT_EQ(port.messages(), 1u);
            EXPECT_EQ(read_ctr(sys, kQpiDev, kPmon, 0), through - K) << "frozen from the cycle after the carry";
            uint64_t gs = 0;
            ASSERT_TRUE(sys.msr_read(0, 0xC01, gs));
            EXPECT_EQ(gs, 1u << 22);
        });
    }
}

INSTANTIATE_TEST_SUITE_P(Scenario, FarPreload, ::testing::Values(true, false),
                         [](const auto& i) { return i.param ? "PostedUpFront" : "PostedInChunks"; });

TEST(Scenario, SnbFrzWithoutFrzEnDoesNotFreeze) {
    uncore_config cfg;
    cfg.cpu = cpu_model::snb_ep;
    uncore_system sys("sys", cfg);
    run_script([&] {
        sys.pci_write(kBus, kR2Dev, kR2Fn, 0xF4, 4, 0x100);          // frz alone
        sys.pci_write(kBus, kR2Dev, kR2Fn, 0xD8, 4, 0x00400001);     // CLOCKTICKS, en
        wait_ns(50);                                                  // 100 UCLK cycles
        EXPECT_EQ(read_ctr(sys, kR2Dev, kR2Fn, 0), 100u);
        sys.pci_write(kBus, kR2Dev, kR2Fn, 0xF4, 4, 0x10100);        // frz_en + frz
        wait_ns(50);
        EXPECT_EQ(read_ctr(sys, kR2Dev, kR2Fn, 0), 100u);
        EXPECT_EQ(sys.pci_read(kBus, kR2Dev, kR2Fn, 0xF4, 4), 0x10100u);  // reads back
        sys.pci_write(kBus, kR2Dev, kR2Fn, 0xF4, 4, 0x10000);        // unfreeze
        wait_ns(50);
        EXPECT_EQ(read_ctr(sys, kR2Dev, kR2Fn, 0), 200u);
        // No global registers on SNB-EP: an access is the model's #GP.
        uint64_t v = 0;
        EXPECT_FALSE(sys.msr_read(0, 0xC00, v));
        EXPECT_FALSE(sys.msr_write(0, 0xC01, 0));
        // A carry sets BOX_STATUS even without ov_en, and nothing freezes.
        sys.pci_write(kBus, kR2Dev, kR2Fn, 0xA0, 4, 0xFFFFFFFF - 4);
        sys.pci_write(kBus, kR2Dev, kR2Fn, 0xA4, 4, 0xFFF);
        wait_ns(50);
        EXPECT_EQ(sys.pci_read(kBus, kR2Dev, kR2Fn, 0xF8, 4), 0x1u);
        EXPECT_EQ(read_ctr(sys, kR2Dev, kR2Fn, 0), 95u);
    });
}

TEST(Scenario, UncoreFreezeStopsUboxCountersAndStartFrozenReadsZero) {
    uncore_config cfg;
    cfg.start_frozen = true;
    uncore_system sys("sys", cfg);
    run_script([&] {
        sys.msr_write(0, 0xC08, 1u << 22);
        sys.msr_write(0, 0xC10, 0x00400000);  // ev_sel 0: enabled, no event
        wait_ns(100);
        uint64_t v = 1;
        sys.msr_read(0, 0xC09, v);
        EXPECT_EQ(v, 0u);  // software that never writes unfrz_all reads zeros
        sys.msr_write(0, 0xC00, 1u << 29);
        wait_ns(100);
        sys.msr_read(0, 0xC09, v);
        EXPECT_EQ(v, 200u);
        sys.msr_write(0, 0xC00, 1u << 31);
        wait_ns(100);
        sys.msr_read(0, 0xC09, v);
        EXPECT_EQ(v, 200u);
        sys.msr_read(0, 0xC16, v);
        EXPECT_EQ(v, 0u);
        // Both actions in one write: frz_all wins, with a diagnostic.
        const size_t before = sys.diagnostics().records().size();
        sys.msr_write(0, 0xC00, (1u << 31) | (1u << 29));
        EXPECT_TRUE(sys.socket(0).global().frozen());
        ASSERT_EQ(sys.diagnostics().records().size(), before + 1);
        EXPECT_NE(sys.diagnostics().records().back().reason.find("frz_all wins"), std::string::npos);
    });
}

TEST(Scenario, PciDiscoveryAndAccessRules) {
    uncore_config cfg;
    cfg.sockets = 2;
    cfg.qpi_ports = 3;
    uncore_system sys("sys", cfg);
    run_script([&] {
        EXPECT_EQ(sys.pci_read(0xFF, 8, 2, 0, 4), 0x0E328086u);
        EXPECT_EQ(sys.pci_read(0x7F, 9, 2, 0, 4), 0x0E338086u);
        EXPECT_EQ(sys.pci_read(0x7F, 24, 2, 2, 2), 0x0E3Au);
        EXPECT_EQ(sys.pci_read(0xFF, 19, 1, 0, 4), 0x0E348086u);
        EXPECT_EQ(sys.pci_read(0xFF, 8, 6, 0, 4), 0x0E868086u);
        EXPECT_EQ(sys.pci_read(0xFF, 8, 0, 0xD4, 4), 5u);      // 8.0 GT/s
        EXPECT_EQ(sys.pci_read(0xFF, 20, 0, 0, 4), 0xFFFFFFFFu); // no such function
        EXPECT_EQ(sys.pci_read(0x3F, 8, 2, 0, 2), 0xFFFFu);       // no such bus
        // An unmodelled offset in an existing function reads 0 and is reported.
        EXPECT_EQ(sys.pci_read(0xFF, 8, 2, 0x40, 4), 0u);
        ASSERT_FALSE(sys.diagnostics().records().empty());
        EXPECT_EQ(sys.diagnostics().records().back().box, "qpi0");
        // cpu 16 is socket 1 with 16 cpus per socket.
        sys.msr_write(16, 0xC08, 1u << 22);
        wait_ns(10);
        uint64_t s0 = 0, s1 = 0;
        sys.msr_read(0, 0xC09, s0);
        sys.msr_read(31, 0xC09, s1);
        EXPECT_EQ(s0, 0u);
        EXPECT_EQ(s1, 20u);
        // Byte access to a counter control.
        sys.pci_write(0xFF, 19, 1, 0xDA, 1, 0x40);  // en is bit 22 = byte 2 bit 6
        EXPECT_EQ(sys.pci_read(0xFF, 19, 1, 0xD8, 4), 0x00400000u);
    });
}

}  // namespace
}  // namespace pmonsim

namespace pmonsim {
namespace {

// IVB-EP memory-controller channels (decisions.md B1, B3): a channel of
// controller 1 (D30) whose DCLK counter carries with ov_en sets
// GLOBAL_STATUS.ov_m1 (bit 21) and freezes every box, the channel's BOX_STATUS
// bit 0 set; a controller-0 channel's general counter sets ov_m0 (bit 20).
TEST(Scenario, IvbImcOverflowReachesTheGlobalStatusBitOfItsController) {
    uncore_config cfg;
    cfg.memory_controllers = 2;
    uncore_system sys("sys", cfg);
    run_script([&] {
        // imc5: controller 1, channel 1 at D30:F5. The fixed counter 10 DCLKs from its wrap.
        sys.pci_write(kBus, 30, 5, 0xD0, 4, 0xFFFFFFFF - 9);
        sys.pci_write(kBus, 30, 5, 0xD4, 4, 0xFFFF);
        sys.pci_write(kBus, 30, 5, 0xF0, 4, 0x00500000);  // en, ov_en
        sys.pci_write(kBus, 16, 4, 0xD8, 4, 0x00400000);  // imc0 DCLOCKTICKS, en: a witness
        wait_ns(20);  // 16 DCLK cycles at 800 MHz
        uint64_t gs = 0;
        ASSERT_TRUE(sys.msr_read(0, 0xC01, gs));
        EXPECT_EQ(gs, 1u << 21);
        EXPECT_EQ(sys.pci_read(kBus, 30, 5, 0xF8, 4), 0x1u) << "the fixed counter's status bit is 0";
        EXPECT_TRUE(sys.socket(0).global().frozen());
        const uint64_t frozen_at = read_ctr(sys, 16, 4, 0);
        wait_ns(100);
        EXPECT_EQ(read_ctr(sys, 16, 4, 0), frozen_at) << "the global freeze stops the other channels";
        // Release; a controller-0 general counter with ov_en sets ov_m0.
        sys.msr_write(0, 0xC01, gs);
        sys.msr_write(0, 0xC00, 1u << 29);
        sys.pci_write(kBus, 16, 5, 0xB8, 4, 0xFFFFFFFF - 4);  // CTR3
        sys.pci_write(kBus, 16, 5, 0xBC, 4, 0xFFFF);
        sys.pci_write(kBus, 16, 5, 0xE4, 4, 0x00500000);  // imc1 CTL3: DCLOCKTICKS, en, ov_en
        wait_ns(20);
        ASSERT_TRUE(sys.msr_read(0, 0xC01, gs));
        EXPECT_EQ(gs, 1u << 20);
        EXPECT_EQ(sys.pci_read(kBus, 16, 5, 0xF8, 4), 0x10u) << "CTR3's status bit is 4";
    });
}

}  // namespace
}  // namespace pmonsim

namespace pmonsim {
namespace {

// IVB-EP home agents and R3QPI links (decisions.md B5, B6): HA1 (D28:F1,
// with the second controller) reports to ov_h1, R3QPI link 0 to ov_rq0, and
// link 2 (D18:F5, with a third QPI port) to no bit: its overflow sets its
// BOX_STATUS and freezes nothing.
TEST(Scenario, IvbHomeAgentAndR3qpiOverflowsReachTheirGlobalBits) {
    uncore_config cfg;
    cfg.memory_controllers = 2;
    cfg.qpi_ports = 3;
    uncore_system sys("sys", cfg);
    run_script([&] {
        auto preload = [&](unsigned dev, unsigned fn, uint64_t v) {
            sys.pci_write(kBus, dev, fn, 0xA0, 4, v & 0xFFFFFFFF);
            sys.pci_write(kBus, dev, fn, 0xA4, 4, v >> 32);
        };
        preload(18, 5, (1ull << 44) - 5);                  // R3QPI link 2
        sys.pci_write(kBus, 18, 5, 0xD8, 4, 0x00500001);   // CLOCKTICKS, en, ov_en
        wait_ns(10);                                       // 20 UCLK cycles
        uint64_t gs = 1;
        ASSERT_TRUE(sys.msr_read(0, 0xC01, gs));
        EXPECT_EQ(gs, 0u);
        EXPECT_EQ(sys.pci_read(kBus, 18, 5, 0xF8, 4), 0x1u);
        EXPECT_FALSE(sys.socket(0).global().frozen());

        preload(28, 1, (1ull << 48) - 5);                  // HA1
        sys.pci_write(kBus, 28, 1, 0xD8, 4, 0x00500000);   // CLOCKTICKS, en, ov_en
        wait_ns(10);
        ASSERT_TRUE(sys.msr_read(0, 0xC01, gs));
        EXPECT_EQ(gs, 1u << 19);
        EXPECT_TRUE(sys.socket(0).global().frozen());
        sys.msr_write(0, 0xC01, gs);
        sys.msr_write(0, 0xC00, 1u << 29);

        preload(19, 5, (1ull << 44) - 5);                  // R3QPI link 0
        sys.pci_write(kBus, 19, 5, 0xD8, 4, 0x00500001);
        wait_ns(10);
        ASSERT_TRUE(sys.msr_read(0, 0xC01, gs));
        EXPECT_EQ(gs, 1u << 24);
    });
}

}  // namespace
}  // namespace pmonsim

namespace pmonsim {
namespace {

// IVB-EP caching agents (decisions.md B8): CBo 5's MSRs at 0xDA4.. (0xD04 +
// 0x20 x 5); its overflow with ov_en sets GLOBAL_STATUS bit 3 + 5 and freezes.
TEST(Scenario, IvbCachingAgentOverflowSetsItsGlobalBit) {
    uncore_config cfg;  // 16 CPUs: 8 cores, caching agents 0-7
    uncore_system sys("sys", cfg);
    run_script([&] {
        uint64_t v = 0;
        EXPECT_FALSE(sys.msr_read(0, 0xD04 + 0x20 * 8, v)) << "no caching agent 8 with 8 cores (#GP)";
        ASSERT_TRUE(sys.msr_write(0, 0xDB6, (1ull << 44) - 5));  // C5 CTR0
        ASSERT_TRUE(sys.msr_write(0, 0xDB0, 0x00500000));        // C5 CTL0: CLOCKTICKS, en, ov_en
        wait_ns(10);
        uint64_t gs = 0;
        ASSERT_TRUE(sys.msr_read(0, 0xC01, gs));
        EXPECT_EQ(gs, 1u << 8);
        EXPECT_TRUE(sys.socket(0).global().frozen());
        ASSERT_TRUE(sys.msr_read(0, 0xDB6, v));
        EXPECT_LT(v, 20u) << "wrapped and frozen";
    });
}

// IVB-EP PCU (decisions.md B10): its overflow with ov_en sets BOX_STATUS
// (0xC35) and GLOBAL_STATUS.ov_p (bit 2), and freezes every box.
TEST(Scenario, IvbPcuOverflowSetsOvP) {
    uncore_config cfg;
    uncore_system sys("sys", cfg);
    run_script([&] {
        ASSERT_TRUE(sys.msr_write(0, 0xC36, (1ull << 48) - 5));  // PCU CTR0
        ASSERT_TRUE(sys.msr_write(0, 0xC30, 0x00500000));        // CTL0: CLOCKTICKS, en, ov_en
        wait_ns(20);                                              // 16 PCLK cycles
        uint64_t gs = 0, st = 0, v = 0;
        ASSERT_TRUE(sys.msr_read(0, 0xC01, gs));
        EXPECT_EQ(gs, 1u << 2);
        ASSERT_TRUE(sys.msr_read(0, 0xC35, st));
        EXPECT_EQ(st, 1u);
        EXPECT_TRUE(sys.socket(0).global().frozen());
        ASSERT_TRUE(sys.msr_read(0, 0xC36, v));
        EXPECT_LT(v, 10u) << "wrapped and frozen";
    });
}

}  // namespace
}  // namespace pmonsim
