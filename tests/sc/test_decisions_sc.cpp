// Decisions of DECISIONS.md (and the model's own, docs/decisions.md) that are
// only observable on a whole socket: dropped writes to missing functions and
// unmodelled offsets, GLOBAL_CTL/CONFIG read-back, the GLOBAL_STATUS bits of
// the UBox counters and QPI port 1, an unfrz_all inside the freeze latency,
// and two boxes overflowing within it.
#include <gtest/gtest.h>

#include "sc/sc_harness.h"

namespace pmonsim {
namespace {

using test::run_script;
using test::wait_ns;

constexpr unsigned kBus = 0xFF;

TEST(DecisionSocket, WritesToMissingFunctionsAndUnmodelledOffsetsAreDropped) {
    uncore_config cfg;
    uncore_system sys("sys", cfg);
    run_script([&] {
        sys.pci_write(kBus, 8, 2, 0x40, 4, 0x12345678);   // existing function, no register there
        EXPECT_EQ(sys.pci_read(kBus, 8, 2, 0x40, 4), 0u);
        sys.pci_write(kBus, 20, 0, 0x00, 4, 0x12345678);  // no such function
        EXPECT_EQ(sys.pci_read(kBus, 20, 0, 0x00, 4), 0xFFFFFFFFu);
        sys.pci_write(kBus, 8, 2, 0x00, 4, 0);             // read-only IDs
        EXPECT_EQ(sys.pci_read(kBus, 8, 2, 0x00, 4), 0x0E328086u);
    });
    // The unmodelled write and read are both reported; the missing function is not.
    const auto& d = sys.diagnostics().records();
    ASSERT_EQ(d.size(), 2u);
    EXPECT_NE(d[0].reason.find("write of 4 byte(s) not modelled"), std::string::npos);
    EXPECT_EQ(d[0].value, 0x12345678u);
    EXPECT_NE(d[1].reason.find("read of 4 byte(s) not modelled"), std::string::npos);
}

TEST(DecisionSocket, GlobalCtlAndConfigReadBack) {
    uncore_config cfg;
    uncore_system sys("sys", cfg);
    run_script([&] {
        uint64_t v = 0;
        sys.msr_write(0, 0xC00, (1u << 31) | (1u << 30) | 0x4005);  // frz_all, wk_on_pmi, cores 0, 2, 14
        ASSERT_TRUE(sys.msr_read(0, 0xC00, v));
        EXPECT_EQ(v, (1u << 30) | 0x4005u);  // the WO action bits read 0
        sys.msr_write(0, 0xC00, 1u << 29);
        ASSERT_TRUE(sys.msr_read(0, 0xC00, v));
        EXPECT_EQ(v, 0u);  // the write replaced pmi_core_sel and wk_on_pmi
        sys.msr_write(0, 0xC06, 0xFFFFFFFFDEADBEEFull);  // bits 63:32 reserved
        ASSERT_TRUE(sys.msr_read(0, 0xC06, v));
        EXPECT_EQ(v, 0xDEADBEEFu);
    });
    ASSERT_EQ(sys.diagnostics().records().size(), 1u);
    EXPECT_NE(sys.diagnostics().records()[0].reason.find("reserved bit(s) 0xffffffff00000000"), std::string::npos);
}

TEST(DecisionSocket, GlobalStatusBitsOfTheUboxCountersAndQpiPort1) {
    uncore_config cfg;
    uncore_system sys("sys", cfg);
    run_script([&] {
        uint64_t v = 0;
        // UBox fixed counter: 2^48 - 10 with ov_en -> bit 0 after 10 UCLK cycles.
        sys.msr_write(0, 0xC09, (1ull << 48) - 10);
        sys.msr_write(0, 0xC08, (1u << 22) | (1u << 20));
        wait_ns(10);
        ASSERT_TRUE(sys.msr_read(0, 0xC01, v));
        EXPECT_EQ(v, 1u << 0);
        EXPECT_EQ(sys.socket(0).global().freezes(), 1u);
        // QPI port 1: CLOCKTICKS from 2^48 - 5 with ov_en -> bit 23 (the freeze is already on,
        // so release it first).
        sys.msr_write(0, 0xC00, 1u << 29);
        sys.pci_write(kBus, 9, 2, 0xA0, 4, 0xFFFFFFFB);
        sys.pci_write(kBus, 9, 2, 0xA4, 4, 0xFFFF);
        sys.pci_write(kBus, 9, 2, 0xD8, 4, 0x00500014);
        wait_ns(10);
        ASSERT_TRUE(sys.msr_read(0, 0xC01, v));
        EXPECT_EQ(v, (1u << 0) | (1u << 23));
        // UBox general counter 0 with ev_sel LOCK_CYCLES driven by an input -> bit 1.
        sys.msr_write(0, 0xC00, 1u << 29);
        box_module* ubox = sys.socket(0).box("ubox");
        const unsigned lock = *ubox->core().spec().catalog->find_input("LOCK_CYCLES", "");
        sys.msr_write(0, 0xC16, (1ull << 44) - 3);
        sys.msr_write(0, 0xC10, 0x00500044);
        ubox->post_run(ubox->now_cycle(), 100, lock, 1);
        wait_ns(10);
        ASSERT_TRUE(sys.msr_read(0, 0xC01, v));
        EXPECT_EQ(v, (1u << 0) | (1u << 1) | (1u << 23));
        EXPECT_EQ(sys.socket(0).global().freezes(), 3u);
    });
}

// M5: an unfrz_all written while the overflow's freeze is still on its way
// to the other boxes cancels it; the overflowing box resumes too.
TEST(DecisionSocket, UnfreezeInsideTheFreezeLatencyCancelsTheFreeze) {
    uncore_config cfg;
    cfg.freeze_latency = 10;  // 5 ns at 2 GHz
    uncore_system sys("sys", cfg);
    run_script([&] {
        // R2PCIe CLOCKTICKS carries in cycle 9 (5 ns); the UBox fixed counter counts along.
        sys.msr_write(0, 0xC08, 1u << 22);
        sys.pci_write(kBus, 19, 1, 0xA0, 4, 0xFFFFFFFF - 9);
        sys.pci_write(kBus, 19, 1, 0xA4, 4, 0xFFF);
        sys.pci_write(kBus, 19, 1, 0xD8, 4, 0x00500001);
        wait_ns(6);                            // carry at 5 ns; the freeze would reach others at 10 ns
        EXPECT_TRUE(sys.socket(0).global().frozen());
        sys.msr_write(0, 0xC00, 1u << 29);    // unfrz_all at 6 ns
        wait_ns(44);                           // to 50 ns
        uint64_t fixed = 0;
        sys.msr_read(0, 0xC09, fixed);
        EXPECT_EQ(fixed, 100u);                // never frozen: 100 UCLK cycles
        const uint64_t r2 = sys.pci_read(kBus, 19, 1, 0xA0, 4);
        EXPECT_EQ(r2, 100u - 10u - 2u);        // wrapped at 5 ns, frozen 5-6 ns (2 cycles), then counting
        uint64_t gs = 0;
        sys.msr_read(0, 0xC01, gs);
        EXPECT_EQ(gs, 1u << 26);               // the status bit stays until software clears it
        EXPECT_FALSE(sys.socket(0).global().frozen());
    });
}

// M20: two boxes overflowing within the latency: one freeze, two PMIs, and the
// PMI line carries the core mask until one UCLK cycle after the latest PMI.
TEST(DecisionSocket, TwoOverflowsWithinTheLatencyGiveOneFreezeAndTwoPmis) {
    uncore_config cfg;
    uncore_system sys("sys", cfg);
    sc_core::sc_signal<uint32_t> pmi("pmi");
    sys.socket(0).pmi.bind(pmi);
    std::vector<std::pair<time_ps, uint32_t>> edges;
    struct watcher : sc_core::sc_module {
        watcher(sc_core::sc_module_name n, sc_core::sc_signal<uint32_t>& s,
                std::vector<std::pair<time_ps, uint32_t>>& out)
            : sc_module(n), s_(s), out_(out) {
            SC_HAS_PROCESS(watcher);
            SC_METHOD(seen);
            sensitive << s_;
            dont_initialize();
        }
        void seen() { out_.push_back({now_ps(), s_.read()}); }
        sc_core::sc_signal<uint32_t>& s_;
        std::vector<std::pair<time_ps, uint32_t>>& out_;
    } w("w", pmi, edges);
    run_script([&] {
        sys.msr_write(0, 0xC00, 0x3);  // PMI to cores 0 and 1
        sys.pci_write(kBus, 19, 1, 0xA0, 4, 0xFFFFFFFF - 9);  // carries at 5 ns
        sys.pci_write(kBus, 19, 1, 0xA4, 4, 0xFFF);
        sys.pci_write(kBus, 19, 1, 0xD8, 4, 0x00500001);
        sys.msr_write(0, 0xC09, (1ull << 48) - 11);           // carries at 5.5 ns, within the 1.5 ns latency
        sys.msr_write(0, 0xC08, (1u << 22) | (1u << 20));
        wait_ns(20);
    });
    auto& g = sys.socket(0).global();
    EXPECT_EQ(g.freezes(), 1u);
    EXPECT_EQ(g.pmi_count(0), 2u);
    EXPECT_EQ(g.pmi_count(1), 2u);
    EXPECT_EQ(g.status(), (1u << 26) | (1u << 0));
    ASSERT_EQ(edges.size(), 2u);
    EXPECT_EQ(edges[0], std::make_pair(time_ps{5000}, 3u));
    EXPECT_EQ(edges[1], std::make_pair(time_ps{6000}, 0u));  // a UCLK cycle after the second PMI
}

}  // namespace
}  // namespace pmonsim
