// The PMON session on the hardware target, against a fake machine tree:
// every write it makes (the manuals' setup sequence, 329468-002 §2.1.2) and
// the values it reports from what it reads, including deltas across the
// counters' wraparound.
#include <gtest/gtest.h>

#include <cstdarg>
#include <cstdio>

#include "driver/hw_target.h"
#include "driver/session.h"
#include "unit/fake_tree.h"

namespace pmonsim::driver {
namespace {

using test::add_uncore;
using test::fake_tree;

// Forwards to a hw_target and logs every write in order.
class recording_target : public hw_target {
public:
    using hw_target::hw_target;
    std::vector<std::string> log;
    bool msr_write(unsigned cpu, uint32_t msr, uint64_t v) override {
        log.push_back(fmt("wrmsr %u 0x%x 0x%llx", cpu, msr, static_cast<unsigned long long>(v)));
        return hw_target::msr_write(cpu, msr, v);
    }
    bool pci_write(const pci_address& a, uint32_t off, unsigned size, uint64_t v) override {
        log.push_back(fmt("setpci %02x:%02x.%u 0x%x.%u 0x%llx", a.bus, a.dev, a.fn, off, size,
                          static_cast<unsigned long long>(v)));
        return hw_target::pci_write(a, off, size, v);
    }

private:
    static std::string fmt(const char* f, ...) __attribute__((format(printf, 1, 2))) {
        char b[128];
        va_list ap;
        va_start(ap, f);
        std::vsnprintf(b, sizeof b, f, ap);
        va_end(ap);
        return b;
    }
};

struct machine {
    fake_tree tree;
    machine() {
        tree.cpuinfo(6, 62);  // ivb-ep
        for (unsigned c = 0; c < 4; ++c) tree.cpu(c, 0);
        add_uncore(tree, cpu_model::ivb_ep, "ff", {true, {0, 1}, {0, 1}, {0, 1}});
        tree.put(tree.config("0000:ff:08.0"), 0xD4, 5, 4);  // QPI_RATE_STATUS: 8.0 GT/s
    }
};

TEST(SessionHw, ProgramsTheManualsSequenceByteForByte) {
    machine m;
    recording_target t(m.tree.root());
    pmon_session s(t, discover(t, cpu_model::ivb_ep));
    s.add("qpi0/RxL_FLITS_G1.DRS_DATA");
    s.add("uncore_qpi_0/event=0x138,match_mc=0xe,mask_mc=0xf,mask_opc=0xc/");
    s.add("r2pcie/RxR_OCCUPANCY.DRS");
    s.add("ubox/EVENT_MSG.MSI_RCVD");
    s.add("ubox_fixed/UCLK");
    s.program();
    s.start();
    EXPECT_EQ(t.log, (std::vector<std::string>{
                         // freeze and reset each PCI box (bits 17:16 written 1 on IVB-EP)
                         "setpci ff:13.1 0xf4.4 0x30103", "setpci ff:08.2 0xf4.4 0x30103",
                         "setpci ff:08.2 0xd8.4 0x600802",
                         // the port's filter: MATCH0, MATCH1, MASK0, MASK1, then the control
                         "setpci ff:08.6 0x228.4 0x1c00", "setpci ff:08.6 0x22c.4 0x0",
                         "setpci ff:08.6 0x238.4 0x1f80", "setpci ff:08.6 0x23c.4 0x0",
                         "setpci ff:08.2 0xdc.4 0x600038", "setpci ff:13.1 0xd8.4 0x400813",
                         // UBox: enabled with ev_sel 0 until start; counters cleared
                         "wrmsr 0 0xc10 0x400000", "wrmsr 0 0xc16 0x0", "wrmsr 0 0xc08 0x0", "wrmsr 0 0xc09 0x0",
                         // start: the UBox events, then unfreeze the boxes
                         "wrmsr 0 0xc10 0x400242", "wrmsr 0 0xc08 0x400000", "setpci ff:13.1 0xf4.4 0x30000",
                         "setpci ff:08.2 0xf4.4 0x30000"}));
    // What the files hold now.
    EXPECT_EQ(m.tree.bytes(m.tree.config("0000:ff:08.2"), 0xD8, 4), (std::vector<uint8_t>{0x02, 0x08, 0x60, 0x00}));
    EXPECT_EQ(m.tree.bytes(m.tree.msr_file(0), 0xC10, 8),
              (std::vector<uint8_t>{0x42, 0x02, 0x40, 0x00, 0, 0, 0, 0}));
    EXPECT_DOUBLE_EQ(s.qpi_rate_gts(0, 0), 8.0);
    EXPECT_DOUBLE_EQ(s.qpi_rate_gts(0, 1), 0.0);  // D9:F0 reads 0: unknown rate
}

TEST(SessionHw, ReportsDeltasAcrossWraparoundAndFreezesEachBoxToRead) {
    machine m;
    recording_target t(m.tree.root());
    pmon_session s(t, discover(t, cpu_model::ivb_ep));
    s.add("qpi0/RxL_FLITS_G1.DRS_DATA");  // 48-bit
    s.add("ubox/LOCK_CYCLES");            // 44-bit
    s.start();
    const std::string cfg = m.tree.config("0000:ff:08.2");
    m.tree.put(cfg, 0xA0, 0xFFFFFFF0, 4);  // CTR0 = 2^48 - 16
    m.tree.put(cfg, 0xA4, 0xFFFF, 4);
    m.tree.msr(0, 0xC16, 1234);
    t.log.clear();
    auto r = s.read();
    ASSERT_EQ(r.size(), 2u);
    // In the order the events were added (perf's -e order); the boxes are
    // read box by box: ubox (no freeze: MSR reads are whole), then qpi0
    // frozen around its read.
    EXPECT_EQ(r[0].box, "qpi0");
    EXPECT_EQ(r[0].delta, (1ull << 48) - 16);
    EXPECT_EQ(r[1].box, "ubox");
    EXPECT_EQ(r[1].delta, 1234u);
    EXPECT_EQ(t.log, (std::vector<std::string>{"setpci ff:08.2 0xf4.4 0x30100", "setpci ff:08.2 0xf4.4 0x30000"}));
    m.tree.put(cfg, 0xA0, 0x20, 4);  // wrapped: 2^48 - 16 -> 0x20 is 48 events
    m.tree.put(cfg, 0xA4, 0, 4);
    m.tree.msr(0, 0xC16, (1ull << 44) - 1);  // 44-bit wrap seen from 1234
    r = s.read();
    EXPECT_EQ(r[0].delta, 48u);
    EXPECT_EQ(r[0].total, 1ull << 48 | 32);
    EXPECT_EQ(r[1].delta, (1ull << 44) - 1 - 1234);
    // An overflow status bit set by another agent's ov_en is reported and cleared (RW1C).
    m.tree.put(cfg, 0xF8, 0x1, 4);
    r = s.read();
    EXPECT_TRUE(r[0].overflowed);
    EXPECT_EQ(r[0].delta, 0u);
    EXPECT_EQ(t.log.back(), "setpci ff:08.2 0xf4.4 0x30000");
    EXPECT_EQ(t.log[t.log.size() - 2], "setpci ff:08.2 0xf8.4 0x1");
    s.stop();
    EXPECT_EQ(t.log.back(), "setpci ff:08.2 0xf4.4 0x30100");
}

// Nehalem-EP: no uncore bus; each CPU package is a socket whose uncore MSRs
// the session reaches through the package's lowest CPU. The counters stop and
// start by their global enables (read-modify-write of GLOBAL_CTRL).
TEST(SessionHw, NehalemUncoreByItsGlobalEnables) {
    fake_tree tree;
    tree.cpuinfo(6, 26);
    for (unsigned c = 0; c < 4; ++c) tree.cpu(c, c / 2);
    tree.msr(0, 0x391, 0x1ull << 48);  // EN_PMI_CORE0, set by someone else: kept
    tree.msr(2, 0x391, 0);
    recording_target t(tree.root());
    const cpu_model cpu = detect_cpu_model(tree.root()).value();
    EXPECT_EQ(cpu, cpu_model::nhm_ep);
    pmon_session s(t, discover(t, cpu));
    ASSERT_EQ(s.topo().sockets.size(), 2u);
    EXPECT_EQ(s.topo().sockets[1].first_cpu, 2u);
    s.add("uncore/QMC_NORMAL_READS.ANY,socket=0");
    s.add("uncore/event=0x20,umask=0x10,socket=0/");
    s.add("uncore/UCLK,socket=1");
    s.program();
    s.start();
    EXPECT_EQ(t.log, (std::vector<std::string>{
                         // stop the placed counters: clear their enables, keep EN_PMI_CORE0
                         "wrmsr 0 0x391 0x1000000000000", "wrmsr 2 0x391 0x0",
                         // each event with en, its counter cleared
                         "wrmsr 0 0x3c0 0x40072c", "wrmsr 0 0x3b0 0x0", "wrmsr 0 0x3c1 0x401020",
                         "wrmsr 0 0x3b1 0x0", "wrmsr 2 0x395 0x0", "wrmsr 2 0x394 0x0",
                         // start: the fixed counter's en, then the global enables
                         "wrmsr 2 0x395 0x1", "wrmsr 0 0x391 0x1000000000003", "wrmsr 2 0x391 0x100000000"}));
    tree.msr(0, 0x3B1, 77);
    t.log.clear();
    const auto r = s.read();
    ASSERT_EQ(r.size(), 3u);
    EXPECT_EQ(r[1].box, "uncore");
    EXPECT_EQ(r[1].delta, 77u);
    EXPECT_EQ(r[2].box, "uncore_fixed");
    // Each box stopped by its enables while it is read. (The fake tree keeps
    // an MSR's 8 bytes at its address, so 0x391-0x395 overlap there: the
    // fixed counter's value is not checked.)
    EXPECT_EQ(t.log, (std::vector<std::string>{"wrmsr 0 0x391 0x1000000000000", "wrmsr 0 0x391 0x1000000000003",
                                               "wrmsr 2 0x391 0x0", "wrmsr 2 0x391 0x100000000"}));
}

// The hardware target writes only to functions discovery found with their
// IDs (issue 14, item 1): an R2PCIe slot holding another device is refused,
// naming what is there. A failure in the middle of programming puts back what
// was written before it (item 2): here port 0 has no packet filter, found
// only when CTO_COUNT's filter is about to be written.
TEST(SessionHw, WritesOnlyToFoundFunctionsAndUndoesAFailedSetup) {
    fake_tree tree;
    tree.cpuinfo(6, 62);
    for (unsigned c = 0; c < 4; ++c) tree.cpu(c, 0);
    add_uncore(tree, cpu_model::ivb_ep, "ff", {false, {0, 1}, {1}, {0, 1}});
    tree.pci("0000:ff:13.1", 0x8086, 0x1234);  // not the R2PCIe
    const std::string qpi0 = tree.config("0000:ff:08.2");
    tree.put(qpi0, 0xF4, 0x00030000, 4);  // BOX_CTL before: bits 17:16 set, not frozen
    recording_target t(tree.root());
    {
        pmon_session s(t, discover(t, cpu_model::ivb_ep));
        s.add("r2pcie/RING_AD_USED.CW");
        try {
            s.program();
            FAIL() << "no error";
        } catch (const session_error& e) {
            EXPECT_EQ(std::string(e.what()),
                      "0000:ff:13.1 is not a PMON function discovery found (8086:1234 there): refusing to write to "
                      "it");
        }
        EXPECT_TRUE(t.log.empty());  // nothing written anywhere
    }
    pmon_session s(t, discover(t, cpu_model::ivb_ep));
    s.add("qpi0/RxL_FLITS_G1.DRS_DATA");
    s.add("qpi0/CTO_COUNT:DRS.AnyDataC");
    EXPECT_THROW(s.program(), session_error);
    EXPECT_EQ(t.log, (std::vector<std::string>{
                         "setpci ff:08.2 0xf4.4 0x30103",  // frozen and reset
                         "setpci ff:08.2 0xd8.4 0x600802",  // the first event
                         "setpci ff:08.2 0xd8.4 0x0",       // undone, last first
                         "setpci ff:08.2 0xf4.4 0x30000"}));
    EXPECT_EQ(tree.bytes(qpi0, 0xF4, 4), (std::vector<uint8_t>{0x00, 0x00, 0x03, 0x00}));
}

TEST(SessionHw, RefusesWhatCannotBeScheduled) {
    machine m;
    hw_target t(m.tree.root());
    pmon_session s(t, discover(t, cpu_model::ivb_ep));
    s.add("qpi0/CTO_COUNT:DRS.AnyDataC");
    s.add("qpi0/CTO_COUNT:NCB.AnyInt");
    EXPECT_THROW(s.program(), schedule_error);
    EXPECT_THROW(s.add("qpi0/NO_SUCH_EVENT"), event_error);
}

}  // namespace
}  // namespace pmonsim::driver
