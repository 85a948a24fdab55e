// The Nehalem-EP / Westmere-EP uncore PMU on a whole socket (SDM Vol. 3B
// 18.8.2; docs/decisions.md N1-N9): global and local enables, status on every
// overflow, CHG, the PMI to the cores of EN_PMI_CORE, PMI_FRZ, the fields the
// SDM reserves, per-socket registers, and the programming sequences of Linux's
// `uncore` PMU and of likwid, with counts worked out by hand.
//
// UCLK is 2 GHz (the default): cycle k starts at k x 0.5 ns.
#include <gtest/gtest.h>

#include "catalog/catalog.h"
#include "sc/sc_harness.h"

namespace pmonsim {
namespace {

using test::run_script;
using test::wait_ns;

constexpr uint32_t kGlobalCtrl = 0x391, kGlobalStatus = 0x392, kOvfCtrl = 0x393, kFixedCtr = 0x394,
                   kFixedCtl = 0x395, kMatch = 0x396, kPmc0 = 0x3B0, kEvtsel0 = 0x3C0;
constexpr uint64_t kEnFc0 = 1ull << 32, kPmiFrz = 1ull << 63, kOvfPmi = 1ull << 61, kChg = 1ull << 63;
constexpr uint64_t kEn = 1u << 22, kPmi = 1u << 20;
constexpr uint64_t kWrap = 1ull << 48;

uncore_config nhm(unsigned sockets = 1) {
    uncore_config cfg;
    cfg.cpu = cpu_model::nhm_ep;
    cfg.sockets = sockets;
    return cfg;
}

uint64_t rd(uncore_system& sys, uint32_t msr, unsigned cpu = 0) {
    uint64_t v = ~0ull;
    EXPECT_TRUE(sys.msr_read(cpu, msr, v)) << std::hex << msr;
    return v;
}

// `n` cycles of one occurrence per cycle of EVENT.SUB, from cycle `from`.
void drive(uncore_system& sys, const char* event, const char* sub, cycle_t from, uint64_t n,
           cpu_model cpu = cpu_model::nhm_ep) {
    const auto in = catalog_for(box_kind::uncore, cpu).find_input(event, sub);
    ASSERT_TRUE(in.has_value()) << event << "." << sub;
    sys.socket(0).box("uncore")->post_run(from, n, *in, 1);
}

TEST(NhmUncore, CountsOnlyWithItsOwnAndItsGlobalEnable) {
    uncore_system sys("sys", nhm());
    drive(sys, "QMC_NORMAL_READS", "CH0", 0, 1000);
    run_script([&] {
        sys.msr_write(0, kFixedCtl, 1);                 // EN
        sys.msr_write(0, kEvtsel0, kEn | 0x012C);       // QMC_NORMAL_READS.CH0
        wait_ns(10);
        EXPECT_EQ(rd(sys, kFixedCtr), 0u);              // EN_FC0 clear
        EXPECT_EQ(rd(sys, kPmc0), 0u);                  // EN_PC0 clear
        sys.msr_write(0, kGlobalCtrl, kEnFc0 | 0x1);
        wait_ns(10);
        EXPECT_EQ(rd(sys, kFixedCtr), 20u);
        EXPECT_EQ(rd(sys, kPmc0), 20u);
        sys.msr_write(0, kFixedCtl, 0);                 // local enables off, global on
        sys.msr_write(0, kEvtsel0, 0x012C);
        wait_ns(5);
        EXPECT_EQ(rd(sys, kFixedCtr), 20u);
        EXPECT_EQ(rd(sys, kPmc0), 20u);
        EXPECT_EQ(rd(sys, kGlobalCtrl), kEnFc0 | 0x1);
    });
    EXPECT_TRUE(sys.diagnostics().records().empty());
}

TEST(NhmUncore, EveryOverflowSetsItsStatusBitAndChgUntilSoftwareClearsThem) {
    uncore_system sys("sys", nhm());
    drive(sys, "QMC_NORMAL_READS", "CH0", 0, 1000);
    run_script([&] {
        sys.msr_write(0, kPmc0, kWrap - 10);
        sys.msr_write(0, kEvtsel0, kEn | 0x012C);       // no PMI bit
        sys.msr_write(0, kGlobalCtrl, 0x1);
        wait_ns(20);                                    // 40 cycles: carried in cycle 9
        EXPECT_EQ(rd(sys, kPmc0), 30u);
        EXPECT_EQ(rd(sys, kGlobalStatus), kChg | 0x1);  // OVF_PC0 and CHG, no OVF_PMI
        sys.msr_write(0, kGlobalStatus, 0);             // read-only: a diagnostic, no change
        EXPECT_EQ(rd(sys, kGlobalStatus), kChg | 0x1);
        sys.msr_write(0, kOvfCtrl, 0x1);                // CLR_OVF_PC0: CHG stays
        EXPECT_EQ(rd(sys, kGlobalStatus), kChg);
        EXPECT_EQ(rd(sys, kOvfCtrl), 0u);               // write-only, reads 0
        sys.msr_write(0, kOvfCtrl, kChg);               // CLR_CHG
        EXPECT_EQ(rd(sys, kGlobalStatus), 0u);
        sys.msr_write(0, kGlobalCtrl, 0);               // (stopped while written)
        sys.msr_write(0, kPmc0, kWrap - 2);             // a second overflow sets both again
        sys.msr_write(0, kGlobalCtrl, 0x1);
        wait_ns(2);
        EXPECT_EQ(rd(sys, kGlobalStatus), kChg | 0x1);
    });
    EXPECT_EQ(sys.socket(0).global().pmi_count(0), 0u);
    ASSERT_EQ(sys.diagnostics().records().size(), 1u);
    EXPECT_EQ(sys.diagnostics().records()[0].reg, "MSR_UNCORE_PERF_GLOBAL_STATUS");
    EXPECT_NE(sys.diagnostics().records()[0].reason.find("read-only"), std::string::npos);
}

TEST(NhmUncore, APmiOverflowInterruptsTheCoresOfEnPmiCoreAndCountingGoesOn) {
    uncore_system sys("sys", nhm());
    drive(sys, "QMC_NORMAL_READS", "CH0", 0, 1000);
    run_script([&] {
        sys.msr_write(0, kPmc0, kWrap - 10);
        sys.msr_write(0, kEvtsel0, kEn | kPmi | 0x012C);
        sys.msr_write(0, kGlobalCtrl, (0x5ull << 48) | 0x1);  // EN_PMI_CORE0 and 2, EN_PC0; no PMI_FRZ
        wait_ns(20);
        EXPECT_EQ(rd(sys, kPmc0), 30u);
        EXPECT_EQ(rd(sys, kGlobalStatus), kChg | kOvfPmi | 0x1);
        EXPECT_EQ(rd(sys, kGlobalCtrl), (0x5ull << 48) | 0x1);  // enables untouched
        // While OVF_PMI is set, a further overflow raises no PMI; cleared, it does.
        sys.msr_write(0, kGlobalCtrl, 0x5ull << 48);
        sys.msr_write(0, kPmc0, kWrap - 4);
        sys.msr_write(0, kGlobalCtrl, (0x5ull << 48) | 0x1);
        wait_ns(5);
        EXPECT_EQ(sys.socket(0).global().pmi_count(0), 1u);
        sys.msr_write(0, kOvfCtrl, kOvfPmi);
        sys.msr_write(0, kGlobalCtrl, 0x5ull << 48);
        sys.msr_write(0, kPmc0, kWrap - 4);
        sys.msr_write(0, kGlobalCtrl, (0x5ull << 48) | 0x1);
        wait_ns(5);
        EXPECT_EQ(sys.socket(0).global().pmi_count(0), 2u);
    });
    const global_pmon& g = sys.socket(0).global();
    EXPECT_EQ(g.pmi_count(0), 2u);
    EXPECT_EQ(g.pmi_count(1), 0u);
    EXPECT_EQ(g.pmi_count(2), 2u);
    EXPECT_EQ(g.pmi_count(3), 0u);
}

// PMI_FRZ: the sender stops from the cycle after its carry (cycle 10); the
// enables clear when the freeze reaches the boxes, 3 UCLK cycles (the
// default latency) after the message at cycle 10: the fixed counter counts
// cycles 0-12. Software sets the enables again and both count on.
TEST(NhmUncore, PmiFrzClearsTheEnablesUntilSoftwareSetsThemAgain) {
    uncore_system sys("sys", nhm());
    drive(sys, "QMC_NORMAL_READS", "CH0", 0, 1000);
    run_script([&] {
        sys.msr_write(0, kPmc0, kWrap - 10);
        sys.msr_write(0, kEvtsel0, kEn | kPmi | 0x012C);
        sys.msr_write(0, kFixedCtl, 1);
        sys.msr_write(0, kGlobalCtrl, kPmiFrz | (1ull << 48) | kEnFc0 | 0x1);
        wait_ns(20);
        EXPECT_EQ(rd(sys, kPmc0), 0u);
        EXPECT_EQ(rd(sys, kFixedCtr), 13u);
        EXPECT_EQ(rd(sys, kGlobalCtrl), kPmiFrz | (1ull << 48));
        EXPECT_EQ(rd(sys, kGlobalStatus), kChg | kOvfPmi | 0x1);
        sys.msr_write(0, kOvfCtrl, kOvfPmi | 0x1);
        sys.msr_write(0, kGlobalCtrl, kPmiFrz | (1ull << 48) | kEnFc0 | 0x1);
        wait_ns(10);
        EXPECT_EQ(rd(sys, kPmc0), 20u);
        EXPECT_EQ(rd(sys, kFixedCtr), 33u);
    });
    EXPECT_EQ(sys.socket(0).global().pmi_count(0), 1u);
    EXPECT_EQ(sys.socket(0).global().freezes(), 1u);
}

// OCC_CTR_RST (bit 17) is write-only and clears no PMC; bit 21, which likwid
// sets as "any thread", is reserved: ignored, with a diagnostic.
TEST(NhmUncore, OccCtrRstAndBit21) {
    uncore_system sys("sys", nhm());
    run_script([&] {
        sys.msr_write(0, kPmc0, 1234);
        sys.msr_write(0, kEvtsel0, kEn | (1u << 17) | 0x0423);
        EXPECT_EQ(rd(sys, kPmc0), 1234u);
        EXPECT_EQ(rd(sys, kEvtsel0), kEn | 0x0423);
        sys.msr_write(0, kEvtsel0, kEn | (1u << 21) | 0x0423);
        EXPECT_EQ(rd(sys, kEvtsel0), kEn | 0x0423);
    });
    ASSERT_EQ(sys.diagnostics().records().size(), 1u);
    EXPECT_EQ(sys.diagnostics().records()[0].reg, "MSR_UNCORE_PERFEVTSEL0");
    EXPECT_NE(sys.diagnostics().records()[0].reason.find("reserved bit(s) 0x200000 set; ignored"),
              std::string::npos);
}

TEST(NhmUncore, AddrOpcodeMatchReadsBackItsFields) {
    uncore_system sys("sys", nhm());
    run_script([&] {
        sys.msr_write(0, kMatch, 0x40001A00'00000000ull);  // MatchSel 010 (opcode), opcode 0x1A
        EXPECT_EQ(rd(sys, kMatch), 0x40001A00'00000000ull);
        sys.msr_write(0, kMatch, 0x20000000'12345678ull | 0x7);  // bits 2:0 reserved
        EXPECT_EQ(rd(sys, kMatch), 0x20000000'12345678ull);
        sys.msr_write(0, kMatch, 0x60000000'00000000ull);  // MatchSel 011: not an encoding
        sys.msr_write(0, kMatch, 0);                       // off: nothing to say
    });
    const auto& d = sys.diagnostics().records();
    ASSERT_EQ(d.size(), 2u);
    EXPECT_NE(d[0].reason.find("reserved bit(s) 0x7"), std::string::npos);
    EXPECT_NE(d[1].reason.find("not one of the SDM's encodings"), std::string::npos);
}

// N15: requests reaching the home logic count in ADDR_OPCODE_MATCH's
// sub-event of their source when MSR_UNCORE_ADDR_OPCODE_MATCH, as it is in
// their cycle, matches them per MatchSel. The same six requests every 100
// cycles, the register rewritten before each batch; the counts by hand.
TEST(NhmUncore, AddrOpcodeMatchCountsTheMatchingRequestsPerMatchSel) {
    uncore_system sys("sys", nhm());
    box_core& core = sys.socket(0).box("uncore")->core();
    auto req = [](unsigned mc, unsigned opc) {
        qpi_packet p;
        p.mc = static_cast<uint8_t>(mc);
        p.opc = static_cast<uint8_t>(opc);
        return p;
    };
    constexpr unsigned kBatches = 7;
    for (unsigned b = 0; b < kBatches; ++b) {
        const cycle_t c = 100 * b + 10;
        core.post_request(c + 0, home_src::local, addr_match_fields(req(0, 2), 0x1000));   // A
        core.post_request(c + 1, home_src::local, addr_match_fields(req(0, 4), 0x1000));   // B: other opcode
        core.post_request(c + 2, home_src::remote, addr_match_fields(req(0, 2), 0x2000));  // C: other address
        core.post_request(c + 3, home_src::ioh, addr_match_fields(req(0, 2), no_addr));    // D: no address
        core.post_request(c + 4, home_src::local, addr_match_fields(req(14, 2), 0x1008));  // E: class DRS, bit 3
        core.post_request(c + 4, home_src::local, addr_match_fields(req(0, 2), 0x1004));   // F: bit 2 is not compared
    }
    // Register: address 0x1000, opcode byte 0x02 (HOM0, opcode 2), then MatchSel.
    const uint64_t base = 0x1000 | (0x02ull << 40);
    struct batch {
        uint64_t sel;
        uint64_t local, remote, ioh;
    };
    const batch want[kBatches] = {
        {0b100, 3, 0, 0},  // address: A, B, F
        {0b010, 2, 1, 1},  // opcode: A, C, D, F
        {0b110, 3, 1, 1},  // either: A, B, C, D, F
        {0b001, 2, 0, 0},  // both: A, F
        {0b000, 0, 0, 0},  // off
        {0b011, 0, 0, 0},  // not an encoding: nothing matches (and a diagnostic)
        {0b100, 3, 0, 0},  // address again
    };
    run_script([&] {
        sys.msr_write(0, kEvtsel0 + 0, kEn | 0x0435);  // ADDR_OPCODE_MATCH.LOCAL
        sys.msr_write(0, kEvtsel0 + 1, kEn | 0x0235);  // .REMOTE
        sys.msr_write(0, kEvtsel0 + 2, kEn | 0x0135);  // .IOH
        sys.msr_write(0, kEvtsel0 + 3, kEn | 0x0735);  // all three
        sys.msr_write(0, kGlobalCtrl, 0xF);
        uint64_t before[4] = {};
        for (unsigned b = 0; b < kBatches; ++b) {
            SCOPED_TRACE(b);
            sys.msr_write(0, kMatch, base | want[b].sel << 61);  // at cycle 100 b
            wait_ns(25);                                         // to cycle 100 b + 50
            uint64_t now[4];
            for (unsigned i = 0; i < 4; ++i) now[i] = rd(sys, kPmc0 + i);
            EXPECT_EQ(now[0] - before[0], want[b].local);
            EXPECT_EQ(now[1] - before[1], want[b].remote);
            EXPECT_EQ(now[2] - before[2], want[b].ioh);
            EXPECT_EQ(now[3] - before[3], want[b].local + want[b].remote + want[b].ioh);
            std::copy(now, now + 4, before);
            wait_ns(25);
        }
    });
    const auto& d = sys.diagnostics().records();
    ASSERT_EQ(d.size(), 1u);
    EXPECT_NE(d[0].reason.find("not one of the SDM's encodings"), std::string::npos);
}

// N15: several matching requests in one cycle add up; with cmask the counter
// counts the cycles with at least that many, as for any event.
TEST(NhmUncore, AddrOpcodeMatchRequestsOfOneCycleAddUp) {
    uncore_system sys("sys", nhm());
    box_core& core = sys.socket(0).box("uncore")->core();
    qpi_packet p;  // HOM0, opcode 0
    for (unsigned k = 0; k < 3; ++k) core.post_request(20, home_src::remote, addr_match_fields(p, 0x40));
    core.post_request(30, home_src::remote, addr_match_fields(p, 0x40));
    run_script([&] {
        sys.msr_write(0, kMatch, 0x40ull | 0b001ull << 61);  // both: address 0x40, opcode 0x00
        sys.msr_write(0, kEvtsel0, kEn | 0x0235);
        sys.msr_write(0, kEvtsel0 + 1, kEn | 0x02000235);  // cmask 2
        sys.msr_write(0, kGlobalCtrl, 0x3);
        wait_ns(20);
        EXPECT_EQ(rd(sys, kPmc0), 4u);
        EXPECT_EQ(rd(sys, kPmc0 + 1), 1u);
    });
    EXPECT_TRUE(sys.diagnostics().records().empty());
}

// The uncore MSRs are per socket: every CPU of a socket sees the same ones.
TEST(NhmUncore, EveryCpuOfASocketSeesItsSocketsRegisters) {
    uncore_config cfg = nhm(2);
    cfg.cpus_per_socket = 4;
    uncore_system sys("sys", cfg);
    run_script([&] {
        sys.msr_write(1, kGlobalCtrl, 0xF);
        EXPECT_EQ(rd(sys, kGlobalCtrl, 3), 0xFu);
        EXPECT_EQ(rd(sys, kGlobalCtrl, 4), 0u);
        sys.msr_write(7, kGlobalCtrl, 0x3);
        EXPECT_EQ(rd(sys, kGlobalCtrl, 0), 0xFu);
        EXPECT_EQ(rd(sys, kGlobalCtrl, 5), 0x3u);
    });
}

TEST(NhmUncore, NoUboxMsrsAndNoPciFunctions) {
    uncore_system sys("sys", nhm());
    run_script([&] {
        uint64_t v = 0;
        EXPECT_FALSE(sys.msr_read(0, 0xC00, v));  // #GP
        EXPECT_EQ(sys.pci_read(0xFF, 19, 1, 0, 4), 0xFFFFFFFFu);
    });
}

// Linux's uncore PMU (uncore_snb.c, nhm_uncore): perf stat of
// uncore/event=0x20,umask=0x10/ and uncore/event=0x2c,umask=0x02/ with the
// fixed counter: disable_box, enable_event (config | en), the fixed EN,
// enable_box (EN_PC0-7 | EN_FC0), reads as deltas; then the first event
// closed. Counts: 200 local reads (cycles 100-299), 50 channel-1 reads
// (cycles 150-199), 500 cycles between enable_box at 0 and the read at 250 ns.
TEST(NhmUncore, LinuxPerfSequence) {
    uncore_system sys("sys", nhm());
    drive(sys, "QHL_REQUESTS", "LOCAL_READS", 100, 200);
    drive(sys, "QMC_NORMAL_READS", "CH1", 150, 50);
    run_script([&] {
        sys.msr_write(0, kGlobalCtrl, 0);               // pmu_disable
        const uint64_t p0 = rd(sys, kPmc0), p1 = rd(sys, kPmc0 + 1), pf = rd(sys, kFixedCtr);
        sys.msr_write(0, kEvtsel0, 0x00401020);
        sys.msr_write(0, kEvtsel0 + 1, 0x0040022C);
        sys.msr_write(0, kFixedCtl, 0x1);
        sys.msr_write(0, kGlobalCtrl, 0x1000000FFull);  // pmu_enable
        wait_ns(250);
        EXPECT_EQ((rd(sys, kPmc0) - p0) & (kWrap - 1), 200u);
        EXPECT_EQ((rd(sys, kPmc0 + 1) - p1) & (kWrap - 1), 50u);
        EXPECT_EQ((rd(sys, kFixedCtr) - pf) & (kWrap - 1), 500u);
        sys.msr_write(0, kGlobalCtrl, 0);               // close the first event
        sys.msr_write(0, kEvtsel0, 0);
        EXPECT_EQ(rd(sys, kPmc0), 200u);
        sys.msr_write(0, kGlobalCtrl, 0x1000000FFull);
        wait_ns(10);
        EXPECT_EQ(rd(sys, kPmc0), 200u);
        EXPECT_EQ(rd(sys, kFixedCtr), 520u);
    });
    EXPECT_TRUE(sys.diagnostics().records().empty());
}

// likwid (perfmon_nehalem.h) on Westmere-EP: setup clears GLOBAL_CTRL and
// writes the event with en and its "any thread" bit 21; start zeroes the
// counters and sets EN_PC0 | EN_FC0; a read saves GLOBAL_CTRL, clears it,
// reads and restores it. Counts as in the Linux test; bit 21 is reported.
TEST(NhmUncore, LikwidSequence) {
    uncore_system sys("sys", [] {
        uncore_config c = nhm();
        c.cpu = cpu_model::wsm_ep;
        return c;
    }());
    drive(sys, "QHL_REQUESTS", "LOCAL_READS", 100, 200, cpu_model::wsm_ep);
    run_script([&] {
        sys.msr_write(0, kGlobalCtrl, 0);
        sys.msr_write(0, kEvtsel0, (1u << 22) | (1u << 21) | (0x10 << 8) | 0x20);
        sys.msr_write(0, kFixedCtl, 0x1);
        sys.msr_write(0, kPmc0, 0);
        sys.msr_write(0, kFixedCtr, 0);
        sys.msr_write(0, kGlobalCtrl, kEnFc0 | 0x1);
        wait_ns(250);
        const uint64_t saved = rd(sys, kGlobalCtrl);
        sys.msr_write(0, kGlobalCtrl, 0);
        EXPECT_EQ(rd(sys, kPmc0), 200u);
        EXPECT_EQ(rd(sys, kFixedCtr), 500u);
        sys.msr_write(0, kGlobalCtrl, saved);
        wait_ns(10);
        sys.msr_write(0, kGlobalCtrl, 0);  // stop
        EXPECT_EQ(rd(sys, kFixedCtr), 520u);
        EXPECT_EQ(rd(sys, kGlobalStatus), 0u);
    });
    ASSERT_EQ(sys.diagnostics().records().size(), 1u);
    EXPECT_NE(sys.diagnostics().records()[0].reason.find("0x200000"), std::string::npos);
}

}  // namespace
}  // namespace pmonsim
