// The QPI packet filter (CTO_COUNT) and the flit events through the SystemC
// platform, programmed the way the tools do it:
// - Linux perf (arch/x86/events/intel/uncore_snbep.c, qpi-ll.md §5.1): IVT
//   init_box writes BOX_CTL = 0x3, disable_box/enable_box read-modify-write
//   the frz bit, enable_event writes MATCH0, MATCH1, MASK0, MASK1 (in that
//   order) from config1/config2 when (config & 0xff) == 0x38, then CTLn =
//   config | EN; counters are read as two dwords, low first;
// - Intel PCM (qpi-ll.md §5.2): BOX_CTL 0x10000, 0x10100, CTLn <- EN then
//   EN | event for its 4 default events, BOX_CTL 0x10102, 0x10000, 64-bit reads.
// The filter presets are the manual's derived events (329468-002 Table 2-137,
// qpi-ll.md §2.3), typed in here literally and cross-checked against the
// catalog. Every expected count is worked out by hand below.
//
// QCLK is 1 GHz (8.0 GT/s): cycle c starts at c ns. Packets are posted at the
// start of the cycle in which their header is ready (never later).
#include <gtest/gtest.h>

#include <array>
#include <ostream>
#include <string>
#include <vector>

#include "catalog/catalog.h"
#include "sc/sc_harness.h"

namespace pmonsim {
namespace {

using test::run_script;
using test::wait_until_cycle;

constexpr unsigned kBus = 0xFF;
constexpr unsigned kPmon = 2, kFilter = 6;
constexpr unsigned kPort0Dev = 8, kPort1Dev = 9;
constexpr uint32_t kEn = 1u << 22;

// Raw perf configs (config:0-7,21 = event, so ext events have bit 21 set).
constexpr uint32_t kCtoCount = 0x00200038;        // event=0x138
constexpr uint32_t kRxG1DrsData = 0x00200802;     // event=0x102,umask=0x08
constexpr uint32_t kRxG2NcbNonData = 0x00200803;  // event=0x103,umask=0x08
constexpr uint32_t kRxG0Idle = 0x00000101;        // event=0x01,umask=0x01
constexpr uint32_t kTxG1DrsData = 0x00200800;     // event=0x100,umask=0x08
constexpr uint32_t kTxG2NcbNonData = 0x00200801;  // event=0x101,umask=0x08
constexpr uint32_t kTxG0DataNonData = 0x00000600; // event=0x00,umask=0x06
constexpr uint32_t kClockticks = 0x00000014;      // event=0x14

// The register writes Linux makes for one IVT uncore_qpi_N box.
struct linux_qpi_box {
    uncore_system& sys;
    unsigned dev;

    uint32_t rd(unsigned fn, uint32_t off) {
        return static_cast<uint32_t>(sys.pci_read(kBus, dev, fn, off, 4));
    }
    void wr(unsigned fn, uint32_t off, uint32_t v) { sys.pci_write(kBus, dev, fn, off, 4, v); }

    void init_box() { wr(kPmon, 0xF4, 0x3); }  // IVBEP_PMON_BOX_CTL_INT: rst_ctrl | rst_ctrs
    void disable_box() { wr(kPmon, 0xF4, rd(kPmon, 0xF4) | 0x100); }
    void enable_box() { wr(kPmon, 0xF4, rd(kPmon, 0xF4) & ~0x100u); }
    void enable_event(unsigned idx, uint32_t config, uint64_t config1 = 0, uint64_t config2 = 0) {
        if ((config & 0xFF) == 0x38) {
            wr(kFilter, 0x228, static_cast<uint32_t>(config1));
            wr(kFilter, 0x22C, static_cast<uint32_t>(config1 >> 32));
            wr(kFilter, 0x238, static_cast<uint32_t>(config2));
            wr(kFilter, 0x23C, static_cast<uint32_t>(config2 >> 32));
        }
        wr(kPmon, 0xD8 + 4 * idx, config | kEn);
    }
    uint64_t read_counter(unsigned idx) {
        const uint64_t lo = rd(kPmon, 0xA0 + 8 * idx);
        const uint64_t hi = rd(kPmon, 0xA4 + 8 * idx);
        return (hi << 32) | lo;
    }
};

qpi_packet mk(uint8_t mc, uint8_t opc, uint8_t rds = 0, uint8_t dnid = 0, uint8_t rnid = 0,
              uint8_t vn = 0) {
    qpi_packet p;
    p.mc = mc;
    p.opc = opc;
    p.rds = rds;
    p.dnid = dnid;
    p.rnid = rnid;
    p.vn = vn;
    return p;
}

struct timed_packet {
    cycle_t at;  // cycle in which the header is ready
    qpi_packet p;
};

// The mixed stream, with the slots each packet gets (slot s = cycle s/2):
//  #   cycle  packet                       MC   OPC  RDS  DNID RNID VN  flits  slots
//  P1  100    DRS DataC_M                  1110 0000 M    1    0    0   9      200-208
//  P2  100    SNP SnpCode                  0011 0001      0    0    0   1      209 (c104)
//  P3  110    DRS DataC_F                  1110 0000 F    3    0    2   9      220-228
//  P4  110    HOM0 RdData                  0000 0010                    1      229 (c114)
//  P5  110    HOM1 RspI                    0001 0000                    1      230 (c115)
//  P6  120    DRS DataC_E_Cmp              1110 0010 E    0             9      240-248
//  P7  130    DRS WbIData                  1110 0100 I                  9      260-268
//  P8  140    DRS WbIDataPtl               1110 1000 I                  11     280-290
//  P9  150    NCB NcWr                     1100 0000      0    0x15     9      300-308
//  P10 150    NDR Gnt_Cmp                  0010 0000                    1      309 (c154)
//  P11 160    NCB NcMsgB                   1100 1000                    11     320-330
//  P12 170    NCB IntLogical               1100 1001                3   11     340-350
//  P13 180    NCB IntPhysical              1100 1010                    11     360-370
//  P14 190    NCS NcRd                     0100 0000                    1      380 (c190)
//  P15 190    NCS NcIOWr                   0100 1011                    3      381-383 (hdr c190)
//  P16 200    DRS DataC_M                  1110 0000 M    3    5    1   9      400-408
//  P17 200    DRS DataC_E                  1110 0000 E    2             9      409-417 (hdr c204)
//  P18 210    DRS DataNc                   1110 0011 I    3             9      420-428
//  P19 220    SNP SnpCur                   0011 0000                    1      440 (c220)
//  P20 220    SNP SnpCur                   0011 0000                    1      441 (c220)
//  P21 220    SNP SnpCur                   0011 0000                    1      442 (c221)
//  P22 230    NCB NcWrPtl                  1100 1100                    11     460-470
// 22 packets, 138 flits: DRS 7*9 + 11 = 74 (64 data), NCB 9 + 4*11 = 53
// (non-data 1 + 4*3 = 13), SNP 4, HOM0 1, HOM1 1, NDR 1, NCS 1 + 3 = 4.
// The last flit (slot 470) is in cycle 235.
std::vector<timed_packet> mixed_stream() {
    using namespace qpi_mc;
    return {
        {100, mk(drs, 0x0, 0x8, 1, 0, 0)},   // P1
        {100, mk(snp, 0x1)},                 // P2
        {110, mk(drs, 0x0, 0x1, 3, 0, 2)},   // P3
        {110, mk(hom0, 0x2)},                // P4
        {110, mk(hom1, 0x0)},                // P5
        {120, mk(drs, 0x2, 0x4, 0)},         // P6
        {130, mk(drs, 0x4)},                 // P7
        {140, mk(drs, 0x8)},                 // P8
        {150, mk(ncb, 0x0, 0, 0, 0x15)},     // P9
        {150, mk(ndr, 0x0)},                 // P10
        {160, mk(ncb, 0x8)},                 // P11
        {170, mk(ncb, 0x9, 0, 0, 0, 3)},     // P12
        {180, mk(ncb, 0xA)},                 // P13
        {190, mk(ncs, 0x0)},                 // P14
        {190, mk(ncs, 0xB)},                 // P15
        {200, mk(drs, 0x0, 0x8, 3, 5, 1)},   // P16
        {200, mk(drs, 0x0, 0x4, 2)},         // P17
        {210, mk(drs, 0x3, 0x0, 3)},         // P18
        {220, mk(snp, 0x0)},                 // P19
        {220, mk(snp, 0x0)},                 // P20
        {220, mk(snp, 0x0)},                 // P21
        {230, mk(ncb, 0xC)},                 // P22
    };
}

// Counting window: enable_box just before cycle 50, disable_box just before
// cycle 400: 350 cycles, 700 flit slots per direction.
constexpr cycle_t kStart = 50, kStop = 400;

struct stream_run {
    bool rx = true, tx = false;
    std::array<uint32_t, 4> port0_events{kCtoCount, kRxG1DrsData, kRxG2NcbNonData, kRxG0Idle};
    uint64_t config1 = 0, config2 = 0;  // CTO_COUNT filter: MATCH1:MATCH0, MASK1:MASK0
};

struct stream_result {
    std::array<uint64_t, 4> port0{}, port1{};
    std::vector<diagnostic> diags;
    bool done = false;
};

// One platform, one simulation: the caller must be the only one in its process.
stream_result run_stream(const stream_run& r) {
    uncore_config cfg;  // ivb-ep, 1 socket, bus 0xFF, 8.0 GT/s
    uncore_system sys("sys", cfg);
    const clock_domain qclk(cfg.qclk_hz());
    stream_result out;
    run_script([&] {
        linux_qpi_box q0{sys, kPort0Dev}, q1{sys, kPort1Dev};
        q0.init_box();
        q1.init_box();
        q0.disable_box();
        q1.disable_box();
        for (unsigned i = 0; i < 4; ++i) q0.enable_event(i, r.port0_events[i], r.config1, r.config2);
        // Port 1 sees no packets: CLOCKTICKS, idle slots, and a match-all CTO_COUNT.
        q1.enable_event(0, kClockticks);
        q1.enable_event(1, kRxG0Idle);
        q1.enable_event(2, kCtoCount, 0, 0);
        q1.enable_event(3, kTxG0DataNonData);
        wait_until_cycle(qclk, kStart);
        q0.enable_box();
        q1.enable_box();
        box_module* port0 = sys.socket(0).box("qpi0");
        for (const timed_packet& tp : mixed_stream()) {
            wait_until_cycle(qclk, tp.at);  // posted at the start of the header's cycle
            if (r.tx) port0->post_packet(qpi_dir::tx, tp.at, tp.p);
            if (r.rx) port0->post_packet(qpi_dir::rx, tp.at, tp.p);
        }
        wait_until_cycle(qclk, kStop);
        q0.disable_box();
        q1.disable_box();
        for (unsigned i = 0; i < 4; ++i) {
            out.port0[i] = q0.read_counter(i);
            out.port1[i] = q1.read_counter(i);
        }
        out.done = true;
    });
    out.diags = sys.diagnostics().records();
    return out;
}

// What Linux's BOX_CTL writes cost on IVB-EP: bits 17:16 are "software must
// write 1" (DECISIONS.md "Counter control"), and the driver writes 0x3, 0x100
// and 0x0. Those are the only diagnostics a clean perf session gets.
void expect_only_linux_box_ctl_diagnostics(const std::vector<diagnostic>& d) {
    struct exp { const char* reg; uint64_t value; uint64_t time_ps; };
    const exp want[] = {
        {"Q_P0_PCI_PMON_BOX_CTL", 0x3, 0},         // q0.init_box
        {"Q_P1_PCI_PMON_BOX_CTL", 0x3, 0},         // q1.init_box
        {"Q_P0_PCI_PMON_BOX_CTL", 0x100, 0},       // q0.disable_box
        {"Q_P1_PCI_PMON_BOX_CTL", 0x100, 0},       // q1.disable_box
        {"Q_P0_PCI_PMON_BOX_CTL", 0x0, 50000},     // q0.enable_box
        {"Q_P1_PCI_PMON_BOX_CTL", 0x0, 50000},     // q1.enable_box
        {"Q_P0_PCI_PMON_BOX_CTL", 0x100, 400000},  // q0.disable_box
        {"Q_P1_PCI_PMON_BOX_CTL", 0x100, 400000},  // q1.disable_box
    };
    ASSERT_EQ(d.size(), 8u);
    for (size_t i = 0; i < d.size(); ++i) {
        SCOPED_TRACE("diagnostic " + std::to_string(i) + ": " + format_diagnostic(d[i]));
        EXPECT_EQ(d[i].reg, want[i].reg);
        EXPECT_EQ(d[i].box, i % 2 ? "qpi1" : "qpi0");
        EXPECT_EQ(d[i].value, want[i].value);
        EXPECT_EQ(d[i].time_ps, want[i].time_ps);
        EXPECT_EQ(d[i].cycle, want[i].time_ps / 1000);  // QCLK cycles
        EXPECT_EQ(d[i].socket, 0u);
        EXPECT_EQ(d[i].reason, "bits 0x30000 must be written as 1");
    }
}

// A derived event: the manual's MATCH/MASK values, and how many packets of
// the mixed stream it matches.
struct derived_case {
    const char* name;    // test name
    const char* preset;  // catalog preset with the same values, or null
    uint32_t match0, match1, mask0, mask1;
    uint64_t expected;
};

void PrintTo(const derived_case& c, std::ostream* os) { *os << c.name; }

class QpiFilter : public ::testing::TestWithParam<derived_case> {};

// Counts per case, from the table above (only P1-P22 exist):
const derived_case kDerived[] = {
    // MC = DRS, OPC[3:2] = 00: P1, P3, P6, P16, P17, P18.
    {"DRS_AnyDataC", "DRS.AnyDataC", 0x1C00, 0, 0x1F80, 0, 6},
    // DRS OPC 0000 RDS M: P1, P16.
    {"DRS_DataC_M", "DRS.DataC_M", 0x1C00, 0x80000, 0x1FE0, 0xF0000, 2},
    // DRS OPC 0000 RDS F: P3.
    {"DRS_DataC_F", "DRS.DataC_F", 0x1C00, 0x10000, 0x1FE0, 0xF0000, 1},
    // DRS OPC 0010 RDS E: P6 (P17 is E but OPC 0000).
    {"DRS_DataC_E_Cmp", "DRS.DataC_E_Cmp", 0x1C40, 0x40000, 0x1FE0, 0xF0000, 1},
    // DRS OPC 0100: P7 (not P8, OPC 1000).
    {"DRS_WbIData", "DRS.WbIData", 0x1C80, 0, 0x1FE0, 0, 1},
    // Any DRS: P1, P3, P6, P7, P8, P16, P17, P18.
    {"DRS_AnyResp", "DRS.AnyResp", 0x1C00, 0, 0x1E00, 0, 8},
    // DRS OPC[3] = 0: all DRS but P8.
    {"DRS_AnyResp9flits", "DRS.AnyResp9flits", 0x1C00, 0, 0x1F00, 0, 7},
    // DRS OPC[3] = 1: P8.
    {"DRS_AnyResp11flits", "DRS.AnyResp11flits", 0x1D00, 0, 0x1F00, 0, 1},
    // Any NCB: P9, P11, P12, P13, P22.
    {"NCB_AnyResp", "NCB.AnyResp", 0x1800, 0, 0x1E00, 0, 5},
    // NCB OPC[3] = 0: P9.
    {"NCB_AnyMsg9flits", "NCB.AnyMsg9flits", 0x1800, 0, 0x1F00, 0, 1},
    // NCB OPC[3] = 1: P11, P12, P13, P22.
    {"NCB_AnyMsg11flits", "NCB.AnyMsg11flits", 0x1900, 0, 0x1F00, 0, 4},
    // NCB OPC 10xx: P11 (1000), P12 (1001), P13 (1010); not P22 (1100).
    {"NCB_AnyInt", "NCB.AnyInt", 0x1900, 0, 0x1F80, 0, 3},
    // MASK all zero: every received packet, P1-P22.
    {"MaskZeroMatchesEverything", nullptr, 0, 0, 0, 0, 22},
    // MATCH bits outside the mask do not matter.
    {"MaskZeroIgnoresMatch", nullptr, 0x1C00, 0x80000, 0, 0, 22},
    // The manual's DRS_DataC_FROM_QPI_TO_NODEx with x = 3 (MATCH0.DNID = 3,
    // MASK0 = 0x3FF80): DRS OPC 00xx to DNID 3: P3, P16, P18.
    {"DRS_DataC_ToNode3", nullptr, 0x1C00 | (3u << 13), 0, 0x3FF80, 0, 3},
    // RNID = 5 across both halves: P16 only (P9 has RNID 0x15: bit 4 differs).
    {"Rnid5", nullptr, 0, 0x5, 0x80000000, 0xF, 1},
    // RNID = 0x15: P9 only.
    {"Rnid21", nullptr, 0x80000000, 0x5, 0x80000000, 0xF, 1},
    // VNA (VN = 1x): P3 (VN 2) and P12 (VN 3).
    {"Vna", nullptr, 0x10, 0, 0x10, 0, 2},
};

TEST_P(QpiFilter, DerivedEventCountsExactly) {
    const derived_case& c = GetParam();
    if (c.preset) {
        const filter_preset* p = catalog_for(box_kind::qpi, cpu_model::ivb_ep).find_preset(c.preset);
        ASSERT_NE(p, nullptr) << c.preset;
        EXPECT_EQ(p->match0, c.match0);
        EXPECT_EQ(p->match1, c.match1);
        EXPECT_EQ(p->mask0, c.mask0);
        EXPECT_EQ(p->mask1, c.mask1);
    }
    stream_run r;
    r.config1 = (uint64_t{c.match1} << 32) | c.match0;
    r.config2 = (uint64_t{c.mask1} << 32) | c.mask0;
    const stream_result res = run_stream(r);
    ASSERT_TRUE(res.done);
    EXPECT_EQ(res.port0[0], c.expected) << "CTO_COUNT";
    // The same window on the other counters of the port:
    EXPECT_EQ(res.port0[1], 64u);               // RxL_FLITS_G1.DRS_DATA: 8 DRS x 8
    EXPECT_EQ(res.port0[2], 13u);               // RxL_FLITS_G2.NCB_NONDATA: 1 + 4 x 3
    EXPECT_EQ(res.port0[3], 2u * 350 - 138);    // RxL_FLITS_G0.IDLE: 562
    // Port 1: CLOCKTICKS = 400 - 50; all 700 slots idle; nothing matched or sent.
    EXPECT_EQ(res.port1[0], 350u);
    EXPECT_EQ(res.port1[1], 700u);
    EXPECT_EQ(res.port1[2], 0u);
    EXPECT_EQ(res.port1[3], 0u);
    expect_only_linux_box_ctl_diagnostics(res.diags);
}

INSTANTIATE_TEST_SUITE_P(, QpiFilter, ::testing::ValuesIn(kDerived),
                         [](const ::testing::TestParamInfo<derived_case>& i) {
                             return std::string(i.param.name);
                         });

TEST_F(QpiFilter, SentStreamDoesNotCount) {
    // The same 22 packets transmitted instead of received: CTO_COUNT (mask 0,
    // matches anything) stays 0; the Tx flit events see the stream and the
    // receive side is idle for all 700 slots.
    stream_run r;
    r.rx = false;
    r.tx = true;
    r.port0_events = {kCtoCount, kTxG1DrsData, kTxG2NcbNonData, kRxG0Idle};
    const stream_result res = run_stream(r);
    ASSERT_TRUE(res.done);
    EXPECT_EQ(res.port0[0], 0u);
    EXPECT_EQ(res.port0[1], 64u);
    EXPECT_EQ(res.port0[2], 13u);
    EXPECT_EQ(res.port0[3], 700u);
    EXPECT_EQ(res.port1[0], 350u);
    expect_only_linux_box_ctl_diagnostics(res.diags);
}

TEST_F(QpiFilter, SentAndReceivedStreamCountsTheReceivedOnly) {
    // Both directions carry the stream: CTO_COUNT (mask 0) = 22, the received
    // packets only; Tx and Rx flit counts are the same stream's.
    stream_run r;
    r.rx = true;
    r.tx = true;
    r.port0_events = {kCtoCount, kTxG1DrsData, kRxG1DrsData, kRxG0Idle};
    const stream_result res = run_stream(r);
    ASSERT_TRUE(res.done);
    EXPECT_EQ(res.port0[0], 22u);
    EXPECT_EQ(res.port0[1], 64u);
    EXPECT_EQ(res.port0[2], 64u);
    EXPECT_EQ(res.port0[3], 562u);
    expect_only_linux_box_ctl_diagnostics(res.diags);
}

// --- Intel PCM ------------------------------------------------------------------

struct pcm_result {
    std::array<uint64_t, 4> before0{}, after0{}, before1{}, after1{};
    uint32_t box_ctl_readback = 0;
    std::vector<diagnostic> diags;
    bool done = false;
};

// PCM's default QPI events: RxL_FLITS_G1.DRS_DATA, RxL_FLITS_G2.NCB_DATA,
// TxL_FLITS_G0.DATA|NON_DATA, CLOCKTICKS (all with EN).
constexpr uint32_t kPcmEvents[4] = {0x00600802, 0x00600403, 0x00400600, 0x00400014};

// Programming at time 0 (steps 1-3), reset + unfreeze just before cycle 20
// (steps 4-5), reads at the start of cycles 30 and 200. Traffic on port 0:
//   rx c40 DRS DataC_M       slots  80-88   8 data
//   rx c40 DRS WbIDataPtl    slots  89-99   8 data (header c44)
//   rx c60 DRS DataC_F       slots 120-128  8 data
//   rx c60 NCB NcWr          slots 129-137  8 data (header c64)
//   rx c70 NCB NcMsgB        slots 140-150  8 data
//   tx c40 DRS WbIData       slots  80-88   9 flits
//   tx c40 SNP SnpData       slot   89      1 flit  (c44)
//   tx c50 NCB NcMsgB        slots 100-110  11 flits
pcm_result run_pcm(cpu_model cpu) {
    uncore_config cfg;
    cfg.cpu = cpu;
    uncore_system sys("sys", cfg);
    const clock_domain qclk(cfg.qclk_hz());
    pcm_result out;
    run_script([&] {
        const unsigned devs[2] = {kPort0Dev, kPort1Dev};
        auto wr = [&](unsigned dev, uint32_t off, uint32_t v) { sys.pci_write(kBus, dev, kPmon, off, 4, v); };
        auto rd64 = [&](unsigned dev, unsigned i) { return sys.pci_read(kBus, dev, kPmon, 0xA0 + 8 * i, 8); };
        for (unsigned dev : devs) {
            wr(dev, 0xF4, 0x10000);  // frz_en
            if (dev == kPort0Dev)    // PCM compares bits 16:0 to detect a hidden port
                out.box_ctl_readback = static_cast<uint32_t>(sys.pci_read(kBus, dev, kPmon, 0xF4, 4));
            wr(dev, 0xF4, 0x10100);  // frz_en | frz
            for (unsigned n = 0; n < 4; ++n) {
                wr(dev, 0xD8 + 4 * n, kEn);
                wr(dev, 0xD8 + 4 * n, kEn | kPcmEvents[n]);
            }
        }
        wait_until_cycle(qclk, 20);
        for (unsigned dev : devs) {
            wr(dev, 0xF4, 0x10102);  // frz_en | frz | rst_ctrs
            wr(dev, 0xF4, 0x10000);  // frz_en: unfreeze
        }
        wait_until_cycle(qclk, 30);
        for (unsigned n = 0; n < 4; ++n) {
            out.before0[n] = rd64(kPort0Dev, n);
            out.before1[n] = rd64(kPort1Dev, n);
        }
        using namespace qpi_mc;
        const struct { cycle_t at; qpi_dir dir; qpi_packet p; } traffic[] = {
            {40, qpi_dir::tx, mk(drs, 0x4)}, {40, qpi_dir::tx, mk(snp, 0x2)},
            {40, qpi_dir::rx, mk(drs, 0x0, 0x8)}, {40, qpi_dir::rx, mk(drs, 0x8)},
            {50, qpi_dir::tx, mk(ncb, 0x8)},
            {60, qpi_dir::rx, mk(drs, 0x0, 0x1)}, {60, qpi_dir::rx, mk(ncb, 0x0)},
            {70, qpi_dir::rx, mk(ncb, 0x8)},
        };
        box_module* port0 = sys.socket(0).box("qpi0");
        for (const auto& t : traffic) {
            wait_until_cycle(qclk, t.at);
            port0->post_packet(t.dir, t.at, t.p);
        }
        wait_until_cycle(qclk, 200);
        for (unsigned n = 0; n < 4; ++n) {
            out.after0[n] = rd64(kPort0Dev, n);
            out.after1[n] = rd64(kPort1Dev, n);
        }
        out.done = true;
    });
    out.diags = sys.diagnostics().records();
    return out;
}

void expect_pcm_counts(const pcm_result& r) {
    EXPECT_EQ(r.box_ctl_readback & 0x1FFFF, 0x10000u);  // the port is not "hidden"
    // Counting starts at cycle 20: CLOCKTICKS reads 30 - 20 = 10, then 200 - 20.
    EXPECT_EQ(r.before0, (std::array<uint64_t, 4>{0, 0, 0, 10}));
    EXPECT_EQ(r.before1, (std::array<uint64_t, 4>{0, 0, 0, 10}));
    // Port 0: DRS data 3 x 8 = 24; NCB data 2 x 8 = 16; Tx flits 9 + 1 + 11 = 21.
    EXPECT_EQ(r.after0, (std::array<uint64_t, 4>{24, 16, 21, 180}));
    EXPECT_EQ(r.after1, (std::array<uint64_t, 4>{0, 0, 0, 180}));
    // PCM's figures: incoming data packets (24 + 16) / 8 = 5, 5 x 64 bytes.
    EXPECT_EQ((r.after0[0] - r.before0[0] + r.after0[1] - r.before0[1]) / 8, 5u);
    EXPECT_EQ(r.after0[3] - r.before0[3], 170u);
}

TEST_F(QpiFilter, PcmProgrammingOnIvbCountsAndFlagsBit17) {
    const pcm_result r = run_pcm(cpu_model::ivb_ep);
    ASSERT_TRUE(r.done);
    expect_pcm_counts(r);
    // IVB-EP BOX_CTL bits 17:16 must be written as 1; PCM writes bit 16 only
    // (SNB-EP's frz_en), so each of its 4 BOX_CTL writes per port is reported.
    // Nothing else is: the CTLs written while frozen (including the bare EN,
    // TxL_FLITS_G0 with umask 0) are replaced before the box counts, and the
    // 64-bit counter reads cannot tear.
    struct exp { const char* box; const char* reg; uint64_t value; uint64_t time_ps; };
    const exp want[] = {
        {"qpi0", "Q_P0_PCI_PMON_BOX_CTL", 0x10000, 0},
        {"qpi0", "Q_P0_PCI_PMON_BOX_CTL", 0x10100, 0},
        {"qpi1", "Q_P1_PCI_PMON_BOX_CTL", 0x10000, 0},
        {"qpi1", "Q_P1_PCI_PMON_BOX_CTL", 0x10100, 0},
        {"qpi0", "Q_P0_PCI_PMON_BOX_CTL", 0x10102, 20000},
        {"qpi0", "Q_P0_PCI_PMON_BOX_CTL", 0x10000, 20000},
        {"qpi1", "Q_P1_PCI_PMON_BOX_CTL", 0x10102, 20000},
        {"qpi1", "Q_P1_PCI_PMON_BOX_CTL", 0x10000, 20000},
    };
    ASSERT_EQ(r.diags.size(), 8u);
    for (size_t i = 0; i < 8; ++i) {
        SCOPED_TRACE("diagnostic " + std::to_string(i) + ": " + format_diagnostic(r.diags[i]));
        EXPECT_EQ(r.diags[i].box, want[i].box);
        EXPECT_EQ(r.diags[i].reg, want[i].reg);
        EXPECT_EQ(r.diags[i].value, want[i].value);
        EXPECT_EQ(r.diags[i].time_ps, want[i].time_ps);
        EXPECT_EQ(r.diags[i].cycle, want[i].time_ps / 1000);
        EXPECT_EQ(r.diags[i].socket, 0u);
        EXPECT_EQ(r.diags[i].reason, "bits 0x30000 must be written as 1");
    }
}

TEST_F(QpiFilter, PcmProgrammingOnSnbIsClean) {
    // On SNB-EP bit 16 is frz_en and bit 17 is stored: PCM's sequence is
    // exactly right and the model has nothing to say.
    const pcm_result r = run_pcm(cpu_model::snb_ep);
    ASSERT_TRUE(r.done);
    expect_pcm_counts(r);
    for (const diagnostic& d : r.diags) ADD_FAILURE() << format_diagnostic(d);
}

}  // namespace
}  // namespace pmonsim
