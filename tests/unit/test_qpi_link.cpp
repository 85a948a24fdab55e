// QPI link layer in plain C++ (no SystemC kernel): packet sizes, the filter's
// field layout, and the serialization of packets into flit slots on a
// box_core, checked against DECISIONS.md "QPI link layer" and qpi-ll.md §2
// (match/mask layout, derived events), §3.3 (two flits per QCLK), §4.1-4.3
// (message classes, opcodes, sizes).
//
// Every expected number below is literal and worked out by hand in the
// comments: slot s is slot (s % 2) of cycle s / 2; a packet whose header is
// ready in cycle c starts at slot max(next free slot, 2c).
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <iostream>
#include <random>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/box_core.h"
#include "core/qpi_link.h"

namespace pmonsim {
namespace {

constexpr cpu_model ivb = cpu_model::ivb_ep;
constexpr cpu_model snb = cpu_model::snb_ep;
constexpr uint64_t kDword = 0xFFFFFFFFull;

// Counter controls (ev_sel | umask << 8 | ext << 21 | en << 22), qpi-ll.md §3.1.
constexpr uint32_t kRxG0Idle = 0x00400101;      // RxL_FLITS_G0.IDLE
constexpr uint32_t kRxG0Data = 0x00400201;      // RxL_FLITS_G0.DATA
constexpr uint32_t kRxG0NonData = 0x00400401;   // RxL_FLITS_G0.NON_DATA
constexpr uint32_t kRxG0DataNon = 0x00400601;   // RxL_FLITS_G0.DATA|NON_DATA
constexpr uint32_t kRxG0All = 0x00400701;       // RxL_FLITS_G0.IDLE|DATA|NON_DATA
constexpr uint32_t kRxG1Snp = 0x00600102;       // RxL_FLITS_G1.SNP
constexpr uint32_t kRxG1Hom = 0x00600602;       // RxL_FLITS_G1.HOM (HOM_REQ|HOM_NONREQ)
constexpr uint32_t kRxG1DrsData = 0x00600802;   // RxL_FLITS_G1.DRS_DATA
constexpr uint32_t kRxG1DrsNon = 0x00601002;    // RxL_FLITS_G1.DRS_NONDATA
constexpr uint32_t kRxG2NdrAd = 0x00600103;     // RxL_FLITS_G2.NDR_AD
constexpr uint32_t kRxG2NdrAk = 0x00600203;     // RxL_FLITS_G2.NDR_AK
constexpr uint32_t kRxG2Ncb = 0x00600C03;       // RxL_FLITS_G2.NCB (NCB_DATA|NCB_NONDATA)
constexpr uint32_t kRxG2Ncs = 0x00601003;       // RxL_FLITS_G2.NCS
constexpr uint32_t kTxG0DataNon = 0x00400600;   // TxL_FLITS_G0.DATA|NON_DATA
constexpr uint32_t kTxG0Idle = 0x00400100;      // TxL_FLITS_G0.IDLE (SNB-EP only)
constexpr uint32_t kTxG1DrsData = 0x00600800;   // TxL_FLITS_G1.DRS_DATA
constexpr uint32_t kTxG2NdrAd = 0x00600101;     // TxL_FLITS_G2.NDR_AD
constexpr uint32_t kTxG2NdrAk = 0x00600201;     // TxL_FLITS_G2.NDR_AK
constexpr uint32_t kCto = 0x00600038;           // CTO_COUNT (0x38 + ext), en

qpi_packet pkt(uint8_t mc, uint8_t opc = 0, uint8_t rds = 0) {
    qpi_packet p;
    p.mc = mc;
    p.opc = opc;
    p.rds = rds;
    return p;
}

// One QPI port (box_core at QCLK = 1 GHz, so cycle c starts at c ns) and its link.
struct port {
    diagnostic_sink diags;
    box_core box;
    qpi_link link;

    explicit port(cpu_model cpu = ivb)
        : box(make_box_spec(box_kind::qpi, cpu, 0), clock_domain(1000000000ull), &diags), link(box) {}

    const register_def& reg(const std::string& name) const {
        const register_def* r = box.spec().table.find(name);
        if (!r) throw std::runtime_error("no register " + name);
        return *r;
    }
    // Per-cycle increments of the four counters, indexed by cycle, for every
    // cycle the box has walked through (writes walk it one cycle at a time too).
    std::vector<std::array<uint64_t, 4>> trace;

    // Walk to `to` one cycle at a time, recording each cycle's increments.
    const std::vector<std::array<uint64_t, 4>>& run(cycle_t to) {
        while (box.cycle() < to) {
            std::array<uint64_t, 4> before{};
            for (unsigned i = 0; i < 4; ++i) before[i] = box.counter_value(i);
            box.advance_to(box.cycle() + 1);
            std::array<uint64_t, 4> d{};
            for (unsigned i = 0; i < 4; ++i) d[i] = box.counter_value(i) - before[i];
            trace.push_back(d);
        }
        return trace;
    }
    // A dword write that happens just before cycle `before`.
    void write(const std::string& name, uint32_t v, cycle_t before = 0) {
        run(before);
        box.write_reg(reg(name), v, kDword, box.clock().cycle_start(before));
    }
    void ctl(unsigned i, uint32_t v, cycle_t before = 0) {
        write("Q_P0_PCI_PMON_CTL" + std::to_string(i), v, before);
    }
    void filter(uint32_t match0, uint32_t match1, uint32_t mask0, uint32_t mask1, cycle_t before = 0) {
        write("Q_P0_PCI_PMON_PKT_MATCH0", match0, before);
        write("Q_P0_PCI_PMON_PKT_MATCH1", match1, before);
        write("Q_P0_PCI_PMON_PKT_MASK0", mask0, before);
        write("Q_P0_PCI_PMON_PKT_MASK1", mask1, before);
    }
    unsigned input(const char* event, const char* sub) const {
        auto in = box.spec().catalog->find_input(event, sub);
        if (!in) throw std::runtime_error(std::string("no input ") + event + "." + sub);
        return *in;
    }
};

// Column i of a per-cycle trace, cycles [from, to).
std::vector<uint64_t> column(const std::vector<std::array<uint64_t, 4>>& t, unsigned i, size_t from,
                             size_t to) {
    std::vector<uint64_t> out;
    for (size_t c = from; c < to; ++c) out.push_back(t.at(c)[i]);
    return out;
}

using counts = std::vector<uint64_t>;

// ===========================================================================
// shape_of

TEST(QpiLinkShape, DefaultSizeOfEveryClass) {
    struct row { uint8_t mc, opc; unsigned flits, data; const char* what; };
    const row rows[] = {
        // 1-flit classes: OPC[3] does not change their size.
        {qpi_mc::hom0, 0x0, 1, 0, "HOM0 RdCur"},
        {qpi_mc::hom0, 0x8, 1, 0, "HOM0 InvItoE"},
        {qpi_mc::hom1, 0x0, 1, 0, "HOM1 RspI"},
        {qpi_mc::hom1, 0xC, 1, 0, "HOM1 RspFwdSWb"},
        {qpi_mc::ndr, 0x0, 1, 0, "NDR Gnt_Cmp"},
        {qpi_mc::ndr, 0x8, 1, 0, "NDR Cmp"},
        {qpi_mc::snp, 0x2, 1, 0, "SNP SnpData"},
        {qpi_mc::snp, 0xF, 1, 0, "SNP PrefetchHint"},
        // NCS: 1 flit with OPC[3] = 0, 3 (no data flits) with OPC[3] = 1.
        {qpi_mc::ncs, 0x0, 1, 0, "NCS NcRd"},
        {qpi_mc::ncs, 0x4, 1, 0, "NCS NcRdPtl"},
        {qpi_mc::ncs, 0xB, 3, 0, "NCS NcIOWr"},
        {qpi_mc::ncs, 0xC, 3, 0, "NCS NcMsgS"},
        // NCB and DRS: 1 header + 8 data, or 3 non-data + 8 data with OPC[3] = 1.
        {qpi_mc::ncb, 0x0, 9, 8, "NCB NcWr"},
        {qpi_mc::ncb, 0x8, 11, 8, "NCB NcMsgB"},
        {qpi_mc::ncb, 0x9, 11, 8, "NCB IntLogical"},
        {qpi_mc::ncb, 0xC, 11, 8, "NCB NcWrPtl"},
        {qpi_mc::drs, 0x0, 9, 8, "DRS DataC"},
        {qpi_mc::drs, 0x3, 9, 8, "DRS DataNc"},
        {qpi_mc::drs, 0x7, 9, 8, "DRS NonSnpWrData"},
        {qpi_mc::drs, 0x8, 11, 8, "DRS WbIDataPtl"},
        {qpi_mc::drs, 0xB, 11, 8, "DRS NonSnpWrDataPtl"},
        // An encoding with no class (MC 0101) is a single flit.
        {5, 0x8, 1, 0, "MC 0101"},
    };
    for (const row& r : rows) {
        const packet_shape s = shape_of(pkt(r.mc, r.opc));
        EXPECT_EQ(s.flits, r.flits) << r.what;
        EXPECT_EQ(s.data, r.data) << r.what;
    }
}

TEST(QpiLinkShape, ExplicitFlitsOverrideTheSize) {
    struct row { uint8_t mc, opc; uint16_t flits; unsigned exp_flits, exp_data; const char* what; };
    const row rows[] = {
        // Data classes keep one header and carry at most 8 data flits.
        {qpi_mc::drs, 0x0, 5, 5, 4, "DRS cut to 5: 1 header + 4 data"},
        {qpi_mc::drs, 0x0, 1, 1, 0, "DRS cut to 1: header only"},
        {qpi_mc::drs, 0x0, 11, 11, 8, "DRS DataC stretched to 11: 3 non-data + 8 data"},
        {qpi_mc::drs, 0x8, 9, 9, 8, "DRS WbIDataPtl as 9: 1 + 8"},
        {qpi_mc::drs, 0x0, 20, 20, 8, "DRS as 20: 12 non-data + 8 data"},
        {qpi_mc::ncb, 0x8, 2, 2, 1, "NCB NcMsgB as 2: 1 + 1"},
        // Other classes have no data flits whatever their size.
        {qpi_mc::ncs, 0x0, 2, 2, 0, "NCS NcRd as 2 (the 1-or-2-flit case)"},
        {qpi_mc::ncs, 0xB, 1, 1, 0, "NCS NcIOWr as 1"},
        {qpi_mc::hom0, 0x0, 3, 3, 0, "HOM0 as 3"},
        {qpi_mc::snp, 0x0, 2, 2, 0, "SNP as 2"},
        {qpi_mc::ndr, 0x0, 4, 4, 0, "NDR as 4"},
    };
    for (const row& r : rows) {
        qpi_packet p = pkt(r.mc, r.opc);
        p.flits = r.flits;
        const packet_shape s = shape_of(p);
        EXPECT_EQ(s.flits, r.exp_flits) << r.what;
        EXPECT_EQ(s.data, r.exp_data) << r.what;
    }
}

TEST(QpiLinkShape, OverrideSerializesWithTheGivenSize) {
    port q;
    q.ctl(0, kRxG1DrsData);
    q.ctl(1, kRxG1DrsNon);
    q.ctl(2, kRxG0Idle);
    qpi_packet p = pkt(qpi_mc::drs);
    p.flits = 5;  // slots 0..4: header 0, data 1..4
    EXPECT_EQ(q.link.post_packet(qpi_dir::rx, 0, p), 0u);
    EXPECT_EQ(q.link.next_free_slot(qpi_dir::rx), 5u);
    const auto& t = q.run(4);
    EXPECT_EQ(column(t, 0, 0, 4), (counts{1, 2, 1, 0}));  // data slots 1 | 2,3 | 4
    EXPECT_EQ(column(t, 1, 0, 4), (counts{1, 0, 0, 0}));
    EXPECT_EQ(column(t, 2, 0, 4), (counts{0, 0, 1, 2}));  // slot 5 is idle
}

// post_packet() works out a sized packet's flits on its own (a class mask,
// not shape_of()): the flits it places must be shape_of()'s for every class,
// opcode and size, default or given, in both directions.
TEST(QpiLinkShape, PostedFlitsAreShapeOfForEveryClassAndSize) {
    constexpr uint32_t kTxG0Data = 0x00400200, kTxG0NonData = 0x00400400;  // TxL_FLITS_G0.DATA, .NON_DATA
    for (uint8_t mc = 0; mc < 16; ++mc)
        for (uint8_t opc : {0x0, 0x8})
            for (uint16_t flits : {0, 1, 2, 3, 9, 11, 20})
                for (bool ring_ad : {false, true}) {
                    port q;
                    q.ctl(0, kRxG0Data);
                    q.ctl(1, kRxG0NonData);
                    q.ctl(2, kTxG0Data);
                    q.ctl(3, kTxG0NonData);
                    qpi_packet p = pkt(mc, opc);
                    p.flits = flits;
                    p.ring_ad = ring_ad;
                    q.link.post_packet(qpi_dir::rx, 0, p);
                    q.link.post_packet(qpi_dir::tx, 0, p);
                    q.box.advance_to(20);
                    const packet_shape s = shape_of(p);
                    const std::string what = "mc " + std::to_string(mc) + " opc " + std::to_string(opc) +
                                             " flits " + std::to_string(flits);
                    EXPECT_EQ(q.box.counter_value(0), s.data) << what;
                    EXPECT_EQ(q.box.counter_value(1), s.flits - s.data) << what;
                    EXPECT_EQ(q.box.counter_value(2), s.data) << what;
                    EXPECT_EQ(q.box.counter_value(3), s.flits - s.data) << what;
                    EXPECT_EQ(q.link.next_free_slot(qpi_dir::rx), s.flits) << what;
                    EXPECT_EQ(q.link.next_free_slot(qpi_dir::tx), s.flits) << what;
                }
}

// ===========================================================================
// filter_fields: the packet in the {MATCH1, MATCH0} layout (qpi-ll.md §2.1)

TEST(QpiLinkFilterFields, EachFieldInItsPlace) {
    auto f = [](auto set) {
        qpi_packet p;
        set(p);
        return filter_fields(p);
    };
    // RNID bit 4 -> MATCH0 bit 31; RNID 3:0 -> MATCH1 bits 3:0.
    EXPECT_EQ(f([](qpi_packet& p) { p.rnid = 0x10; }), 0x0000000080000000ull);
    EXPECT_EQ(f([](qpi_packet& p) { p.rnid = 0x0F; }), 0x0000000F00000000ull);
    EXPECT_EQ(f([](qpi_packet& p) { p.rnid = 0x15; }), 0x0000000580000000ull);
    // DNID -> MATCH0 17:13: 0x1F << 13 = 0x3E000; 0x05 << 13 = 0xA000.
    EXPECT_EQ(f([](qpi_packet& p) { p.dnid = 0x1F; }), 0x000000000003E000ull);
    EXPECT_EQ(f([](qpi_packet& p) { p.dnid = 0x05; }), 0x000000000000A000ull);
    // MC -> MATCH0 12:9: DRS 1110 -> 0x1C00, NCB 1100 -> 0x1800, 1111 -> 0x1E00.
    EXPECT_EQ(f([](qpi_packet& p) { p.mc = qpi_mc::drs; }), 0x1C00ull);
    EXPECT_EQ(f([](qpi_packet& p) { p.mc = qpi_mc::ncb; }), 0x1800ull);
    EXPECT_EQ(f([](qpi_packet& p) { p.mc = 0xF; }), 0x1E00ull);
    // OPC -> MATCH0 8:5: 0xF -> 0x1E0, 0x8 -> 0x100, 0x2 -> 0x40.
    EXPECT_EQ(f([](qpi_packet& p) { p.opc = 0xF; }), 0x1E0ull);
    EXPECT_EQ(f([](qpi_packet& p) { p.opc = 0x8; }), 0x100ull);
    EXPECT_EQ(f([](qpi_packet& p) { p.opc = 0x2; }), 0x40ull);
    // VN -> MATCH0 4:3: VN1 -> 0x8, VNA (3) -> 0x18.
    EXPECT_EQ(f([](qpi_packet& p) { p.vn = 1; }), 0x8ull);
    EXPECT_EQ(f([](qpi_packet& p) { p.vn = 3; }), 0x18ull);
    // RDS -> MATCH1 19:16: M (1000) -> 0x80000 in the high half.
    EXPECT_EQ(f([](qpi_packet& p) { p.rds = 0x8; }), 0x0008000000000000ull);
    EXPECT_EQ(f([](qpi_packet& p) { p.rds = 0xF; }), 0x000F000000000000ull);
    // Everything at once: DRS DataC_M (MC 1110, OPC 0000, RDS M) = the config1
    // of qpi-ll.md §2.4, plus RNID 0x1F, DNID 0x1F, VNA.
    qpi_packet all = pkt(qpi_mc::drs, 0x0, 0x8);
    EXPECT_EQ(filter_fields(all), 0x0008000000001C00ull);
    all.rnid = 0x1F;
    all.dnid = 0x1F;
    all.vn = 3;
    // MATCH0 = 0x80000000 | 0x3E000 | 0x1C00 | 0x18 = 0x8003FC18; MATCH1 = 0x8000F.
    EXPECT_EQ(filter_fields(all), 0x0008000F8003FC18ull);
    // Each layout stays within the registers' valid bits (likwid's masks,
    // qpi-ll.md §2.1: MATCH0 0x8003FFF8, MATCH1 0x000F000F).
    qpi_packet max;
    max.mc = max.opc = max.rds = 0xF;
    max.rnid = max.dnid = 0x1F;
    max.vn = 3;
    EXPECT_EQ(filter_fields(max), 0x000F000F8003FFF8ull);
}

TEST(QpiLinkFilterFields, RegistersFormOneFilterOverBothHalves) {
    port q;
    const event_catalog& cat = catalog_for(box_kind::qpi, ivb);
    const filter_preset* m = cat.find_preset("DRS.DataC_M");
    ASSERT_NE(m, nullptr);
    q.filter(m->match0, m->match1, m->mask0, m->mask1);
    EXPECT_EQ(q.box.filter_match(), 0x0008000000001C00ull);  // qpi-ll.md §2.4 config1
    EXPECT_EQ(q.box.filter_mask(), 0x000F000000001FE0ull);   // qpi-ll.md §2.4 config2
    qpi_packet p = pkt(qpi_mc::drs, 0x0, 0x8);
    p.rnid = 7;   // RNID, DNID and VN are outside the mask: don't care
    p.dnid = 3;
    p.vn = 2;
    EXPECT_TRUE(q.box.filter_matches(filter_fields(p)));
    p.rds = 0x1;  // DataC_F: differs in MATCH1 only
    EXPECT_FALSE(q.box.filter_matches(filter_fields(p)));
    p.rds = 0x8;
    p.opc = 0x2;  // DataC_M_Cmp: differs in OPC
    EXPECT_FALSE(q.box.filter_matches(filter_fields(p)));
    // RNID through both halves: match RNID 0x15 exactly.
    q.filter(0x80000000, 0x5, 0x80000000, 0xF);
    qpi_packet r = pkt(qpi_mc::snp);
    r.rnid = 0x15;
    EXPECT_TRUE(q.box.filter_matches(filter_fields(r)));
    r.rnid = 0x05;  // bit 4 differs (MATCH0 bit 31)
    EXPECT_FALSE(q.box.filter_matches(filter_fields(r)));
    r.rnid = 0x14;  // bit 0 differs (MATCH1 bit 0)
    EXPECT_FALSE(q.box.filter_matches(filter_fields(r)));
    // MASK all zero matches every packet, whatever MATCH holds.
    q.filter(0x1C00, 0x80000, 0, 0);
    EXPECT_TRUE(q.box.filter_matches(filter_fields(r)));
    EXPECT_TRUE(q.box.filter_matches(filter_fields(pkt(qpi_mc::ncs, 0xB))));
}

// ===========================================================================
// Serialization into flit slots, read through counters and inputs

TEST(QpiLinkSerialize, NineFlitPacketTakesTwoSlotsPerCycle) {
    port q;
    q.ctl(0, kRxG1DrsData);
    q.ctl(1, kRxG1DrsNon);
    q.ctl(2, kRxG0Idle);
    q.ctl(3, kRxG0Data);
    // DRS DataC at cycle 10: slots 20..28. Header slot 20 (cycle 10), data
    // slots 21 | 22,23 | 24,25 | 26,27 | 28 in cycles 10 | 11 | 12 | 13 | 14.
    EXPECT_EQ(q.link.post_packet(qpi_dir::rx, 10, pkt(qpi_mc::drs)), 10u);
    EXPECT_EQ(q.link.next_free_slot(qpi_dir::rx), 29u);
    EXPECT_EQ(q.link.packets(qpi_dir::rx), 1u);
    const auto& t = q.run(17);
    EXPECT_EQ(column(t, 0, 8, 17), (counts{0, 0, 1, 2, 2, 2, 1, 0, 0}));  // DRS_DATA, cycles 8..16
    EXPECT_EQ(column(t, 1, 8, 17), (counts{0, 0, 1, 0, 0, 0, 0, 0, 0}));  // DRS_NONDATA
    EXPECT_EQ(column(t, 2, 8, 17), (counts{2, 2, 0, 0, 0, 0, 1, 2, 2}));  // IDLE
    EXPECT_EQ(column(t, 3, 8, 17), (counts{0, 0, 1, 2, 2, 2, 1, 0, 0}));  // G0 DATA
    // Totals over cycles 0..16: 8 data flits, 1 header, 2*17 - 9 = 25 idle.
    EXPECT_EQ(q.box.counter_value(0), 8u);
    EXPECT_EQ(q.box.counter_value(1), 1u);
    EXPECT_EQ(q.box.counter_value(2), 25u);
    EXPECT_EQ(q.box.counter_value(3), 8u);
}

TEST(QpiLinkSerialize, BackToBackPacketsFillTheFreeSlotOfAHalfUsedCycle) {
    port q;
    q.ctl(0, kRxG1Snp);
    q.ctl(1, kRxG1DrsData);
    q.ctl(2, kRxG0Idle);
    q.ctl(3, kRxG0NonData);
    // DRS at 10: slots 20..28 (last data flit in the first slot of cycle 14).
    EXPECT_EQ(q.link.post_packet(qpi_dir::rx, 10, pkt(qpi_mc::drs)), 10u);
    // SNP ready at 10: slot 29 = second slot of cycle 14.
    EXPECT_EQ(q.link.post_packet(qpi_dir::rx, 10, pkt(qpi_mc::snp)), 14u);
    // NDR ready at 14: slot 30 (cycle 15); HOM0 ready at 15: slot 31 (cycle 15).
    EXPECT_EQ(q.link.post_packet(qpi_dir::rx, 14, pkt(qpi_mc::ndr)), 15u);
    EXPECT_EQ(q.link.post_packet(qpi_dir::rx, 15, pkt(qpi_mc::hom0)), 15u);
    // SNP ready at 15: slot 32 (cycle 16); now the link is at an odd slot,
    // so a DRS ready at 15 starts in the second slot of cycle 16: slots
    // 33..41, header 33 (cycle 16), data 34..41 = cycles 17..20, 2 each.
    EXPECT_EQ(q.link.post_packet(qpi_dir::rx, 15, pkt(qpi_mc::snp)), 16u);
    EXPECT_EQ(q.link.post_packet(qpi_dir::rx, 15, pkt(qpi_mc::drs)), 16u);
    EXPECT_EQ(q.link.next_free_slot(qpi_dir::rx), 42u);
    // SNP ready at 16 waits for slot 42 = cycle 21.
    EXPECT_EQ(q.link.post_packet(qpi_dir::rx, 16, pkt(qpi_mc::snp)), 21u);
    const auto& t = q.run(23);
    //                                      c13 c14 c15 c16 c17 c18 c19 c20 c21 c22
    EXPECT_EQ(column(t, 0, 13, 23), (counts{0, 1, 0, 1, 0, 0, 0, 0, 1, 0}));  // SNP
    EXPECT_EQ(column(t, 1, 13, 23), (counts{2, 1, 0, 0, 2, 2, 2, 2, 0, 0}));  // DRS_DATA
    EXPECT_EQ(column(t, 2, 13, 23), (counts{0, 0, 0, 0, 0, 0, 0, 0, 1, 2}));  // IDLE
    EXPECT_EQ(column(t, 3, 13, 23), (counts{0, 1, 2, 2, 0, 0, 0, 0, 1, 0}));  // NON_DATA
}

TEST(QpiLinkSerialize, HeaderTakesTheFirstFreeSlotAtOrAfterItsCycle) {
    port q;
    q.ctl(0, kRxG0Idle);
    q.ctl(1, kRxG0NonData);
    // The link is free, but a packet ready at cycle 3 does not go earlier:
    // slots 0..5 stay idle, the SNP takes slot 6 (first slot of cycle 3).
    EXPECT_EQ(q.link.post_packet(qpi_dir::rx, 3, pkt(qpi_mc::snp)), 3u);
    EXPECT_EQ(q.link.next_free_slot(qpi_dir::rx), 7u);
    EXPECT_EQ(q.link.post_packet(qpi_dir::rx, 3, pkt(qpi_mc::snp)), 3u);   // slot 7
    EXPECT_EQ(q.link.post_packet(qpi_dir::rx, 3, pkt(qpi_mc::snp)), 4u);   // slot 8
    // A packet stamped before the free slot waits for it: DRS ready at 2
    // gets slots 9..17, header in cycle 4.
    EXPECT_EQ(q.link.post_packet(qpi_dir::rx, 2, pkt(qpi_mc::drs)), 4u);
    EXPECT_EQ(q.link.next_free_slot(qpi_dir::rx), 18u);
    // Long after the link went idle: slot 2 * 100 = 200.
    EXPECT_EQ(q.link.post_packet(qpi_dir::rx, 100, pkt(qpi_mc::snp)), 100u);
    // NCS NcIOWr (3 flits) right after: slots 201..203, header in cycle 100.
    EXPECT_EQ(q.link.post_packet(qpi_dir::rx, 100, pkt(qpi_mc::ncs, 0xB)), 100u);
    EXPECT_EQ(q.link.next_free_slot(qpi_dir::rx), 204u);
    EXPECT_EQ(q.link.packets(qpi_dir::rx), 6u);
    const auto& t = q.run(103);
    EXPECT_EQ(column(t, 0, 0, 10), (counts{2, 2, 2, 0, 0, 0, 0, 0, 0, 2}));  // IDLE
    EXPECT_EQ(column(t, 1, 0, 10), (counts{0, 0, 0, 2, 2, 0, 0, 0, 0, 0}));  // NON_DATA
    // Cycles 100..102: SNP + NCS flit 1 | NCS flits 2, 3 | idle.
    EXPECT_EQ(column(t, 0, 100, 103), (counts{0, 0, 2}));
    EXPECT_EQ(column(t, 1, 100, 103), (counts{2, 2, 0}));
}

TEST(QpiLinkSerialize, FlitCountsByClassThroughCounters) {
    port q;
    q.ctl(0, kRxG1Hom);
    q.ctl(1, kRxG2Ncb);
    q.ctl(2, kRxG2Ncs);
    q.ctl(3, kRxG0DataNon);
    // HOM0 at 0 -> slot 0; HOM1 at 0 -> slot 1 (both in cycle 0).
    q.link.post_packet(qpi_dir::rx, 0, pkt(qpi_mc::hom0, 0x2));
    q.link.post_packet(qpi_dir::rx, 0, pkt(qpi_mc::hom1, 0x0));
    // NCB NcWr at 1 -> slots 2..10 (cycles 1-4 full, slot 10 = first of cycle 5).
    q.link.post_packet(qpi_dir::rx, 1, pkt(qpi_mc::ncb, 0x0));
    // NCS NcRd at 1 -> slot 11 (second of cycle 5).
    q.link.post_packet(qpi_dir::rx, 1, pkt(qpi_mc::ncs, 0x0));
    // NCS NcIOWr at 6 -> slots 12, 13, 14 (cycle 6 full, first of cycle 7).
    q.link.post_packet(qpi_dir::rx, 6, pkt(qpi_mc::ncs, 0xB));
    // NCB NcMsgB at 8 -> slots 16..26 (cycles 8-12 full, first of cycle 13).
    q.link.post_packet(qpi_dir::rx, 8, pkt(qpi_mc::ncb, 0x8));
    // SNP at 8 -> slot 27 (second of cycle 13): counted by none of CTR0-2.
    q.link.post_packet(qpi_dir::rx, 8, pkt(qpi_mc::snp));
    const auto& t = q.run(15);
    //                                     c0 c1 c2 c3 c4 c5 c6 c7 c8 c9 10 11 12 13 14
    EXPECT_EQ(column(t, 0, 0, 15), (counts{2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}));
    EXPECT_EQ(column(t, 1, 0, 15), (counts{0, 2, 2, 2, 2, 1, 0, 0, 2, 2, 2, 2, 2, 1, 0}));
    EXPECT_EQ(column(t, 2, 0, 15), (counts{0, 0, 0, 0, 0, 1, 2, 1, 0, 0, 0, 0, 0, 0, 0}));
    EXPECT_EQ(column(t, 3, 0, 15), (counts{2, 2, 2, 2, 2, 2, 2, 1, 2, 2, 2, 2, 2, 2, 0}));
    // Totals: HOM 2; NCB 9 + 11 = 20; NCS 1 + 3 = 4; all flits 2+9+1+3+11+1 = 27.
    EXPECT_EQ(q.box.counter_value(0), 2u);
    EXPECT_EQ(q.box.counter_value(1), 20u);
    EXPECT_EQ(q.box.counter_value(2), 4u);
    EXPECT_EQ(q.box.counter_value(3), 27u);
}

// post_packets(): a run of equal packets placed as one by one, in closed form.
TEST(QpiLinkRuns, PlacedAsOneByOne) {
    // DRS (9 flits) every 4 cycles (8 slots) from cycle 2 is more than the
    // link carries: behind a 36-flit packet in slots 4-39, all 100 go back to
    // back from slot 40.
    port one, runs;
    qpi_packet big = pkt(qpi_mc::ncb);
    big.flits = 36;
    one.link.post_packet(qpi_dir::rx, 2, big);
    runs.link.post_packet(qpi_dir::rx, 2, big);
    EXPECT_EQ(one.link.next_free_slot(qpi_dir::rx), 40u);
    const qpi_packet drs = pkt(qpi_mc::drs);
    for (uint64_t k = 0; k < 100; ++k) one.link.post_packet(qpi_dir::rx, 2 + 4 * k, drs);
    runs.link.post_packets(qpi_dir::rx, 2, 4, 100, drs);
    EXPECT_EQ(one.link.next_free_slot(qpi_dir::rx), 40u + 100 * 9);
    EXPECT_EQ(runs.link.next_free_slot(qpi_dir::rx), 40u + 100 * 9);
    EXPECT_EQ(runs.link.packets(qpi_dir::rx), 101u);
    // SNP (1 flit) every 3 cycles (6 slots) from cycle 0, behind a 36-flit
    // packet in slots 0-35: packet j goes back to back (slot 36 + j) while the
    // delay 36 >= j * (6 - 1), so j <= 7 (slots 36-43); packet 8 at its own
    // slot 48, then every 6 slots: the last (19) at slot 114.
    port a, b;
    a.link.post_packet(qpi_dir::tx, 0, big);
    b.link.post_packet(qpi_dir::tx, 0, big);
    for (uint64_t k = 0; k < 20; ++k) a.link.post_packet(qpi_dir::tx, 3 * k, pkt(qpi_mc::snp));
    b.link.post_packets(qpi_dir::tx, 0, 3, 20, pkt(qpi_mc::snp));
    EXPECT_EQ(a.link.next_free_slot(qpi_dir::tx), 6u * 19 + 1);
    EXPECT_EQ(b.link.next_free_slot(qpi_dir::tx), 6u * 19 + 1);
    a.ctl(0, kTxG0DataNon);
    b.ctl(0, kTxG0DataNon);
    a.box.advance_to(200);
    b.box.advance_to(200);
    EXPECT_EQ(a.box.counter_value(0), 36u + 20);
    EXPECT_EQ(b.box.counter_value(0), 36u + 20);
}

// post_packets_while() places packets exactly as post_packet() one by one:
// random packets (every class, sizes up to 40 flits, both directions, the
// link sometimes behind), posted in batches of random lengths that end where
// next() stops or at a packet without a size (posted the usual way), with the
// box walking between batches, and runs of equal packets (post_packets)
// between some. The slots, packet counts and four counters
// (thresholds, edge, a header filter) come out the same. A packet placed
// before the box's cycle throws as post_packet() does, the ones before it kept.
TEST(QpiLinkRuns, PostedWhileAsOneByOne) {
    const unsigned seed = std::random_device{}();
    std::cout << "seed " << seed << "\n";
    std::mt19937_64 rng(seed);
    const uint8_t classes[] = {qpi_mc::hom0, qpi_mc::hom1, qpi_mc::ndr, qpi_mc::snp,
                               qpi_mc::ncs,  qpi_mc::ncb,  qpi_mc::drs};
    for (int round = 0; round < 40; ++round) {
        SCOPED_TRACE("seed " + std::to_string(seed) + " round " + std::to_string(round));
        port one, many;
        for (port* q : {&one, &many}) {
            q->ctl(0, kRxG0All | 3u << 24);                   // thresh 3
            q->ctl(1, kRxG0NonData | 1u << 24 | 1u << 18);    // thresh 1, edge
            q->ctl(2, kTxG0DataNon | 2u << 24);                // thresh 2
            q->ctl(3, kCto);
            q->filter(uint32_t{qpi_mc::snp}, 0, 0xF, 0);     // CTO_COUNT: SNP headers
        }
        struct posted {
            qpi_dir dir;
            cycle_t at;
            qpi_packet p;
        };
        std::vector<posted> all;
        cycle_t at = 0;
        const unsigned mix = round % 3;  // all received, both ways, all sent
        for (int k = 0; k < 3000; ++k) {
            at += rng() % 4 == 0 ? rng() % 40 : rng() % 3;
            qpi_packet p = pkt(classes[rng() % 7], static_cast<uint8_t>(rng() % 16), static_cast<uint8_t>(rng() % 16));
            p.flits = static_cast<uint16_t>(rng() % 50 == 0 ? 0 : 1 + rng() % 40);
            p.ring_ad = rng() % 2;
            all.push_back({mix == 2 || (mix == 1 && rng() % 2) ? qpi_dir::tx : qpi_dir::rx, at, p});
        }
        // Before some packets, a run of equal packets (post_packets) on both.
        struct run_post {
            size_t before;
            qpi_dir dir;
            uint64_t spacing, count;
        };
        std::vector<run_post> runs;
        for (size_t i = 500; i < all.size(); i += 500 + rng() % 500)
            runs.push_back({i, rng() % 2 ? qpi_dir::tx : qpi_dir::rx, 1 + rng() % 12, 1 + rng() % 30});
        auto runs_at = [&](port& q, size_t i) {
            for (const run_post& r : runs)
                if (r.before == i) q.link.post_packets(r.dir, all[i].at, r.spacing, r.count, pkt(qpi_mc::drs));
        };
        auto next_run = [&](size_t i) {  // the first run after packet i
            for (const run_post& r : runs)
                if (r.before > i) return r.before;
            return all.size();
        };
        for (size_t i = 0; i < all.size(); ++i) {
            runs_at(one, i);
            one.link.post_packet(all[i].dir, all[i].at, all[i].p);
        }
        for (size_t i = 0; i < all.size();) {
            runs_at(many, i);
            const size_t n = std::min<size_t>(next_run(i) - i, 1 + rng() % 300);
            const size_t stop = rng() % 4 == 0 ? rng() % n : n;  // next() says stop there
            auto next = [&](size_t k, qpi_dir& dir, cycle_t& c) -> const qpi_packet* {
                EXPECT_LT(k, n);
                if (k == stop) return nullptr;
                dir = all[i + k].dir;
                c = all[i + k].at;
                return &all[i + k].p;
            };
            const size_t m = many.link.post_packets_while(n, next);
            size_t expect = std::min(stop, n);
            for (size_t k = 0; k < expect; ++k)
                if (all[i + k].p.flits == 0) {
                    expect = k;
                    break;
                }
            ASSERT_EQ(m, expect) << "batch at " << i;
            i += m;
            if (m < n) {  // the one it stopped at, the usual way
                many.link.post_packet(all[i].dir, all[i].at, all[i].p);
                ++i;
            }
            if (i < all.size() && rng() % 3 == 0) many.box.advance_to(all[i].at);  // walk between batches
        }
        for (qpi_dir d : {qpi_dir::rx, qpi_dir::tx}) {
            EXPECT_EQ(many.link.next_free_slot(d), one.link.next_free_slot(d));
            EXPECT_EQ(many.link.packets(d), one.link.packets(d));
        }
        const uint64_t last_slot = std::max(one.link.next_free_slot(qpi_dir::rx), one.link.next_free_slot(qpi_dir::tx));
        const cycle_t end = cycle_of_slot(last_slot) + 2;
        one.box.advance_to(end);
        many.box.advance_to(end);
        for (unsigned c = 0; c < 4; ++c)
            EXPECT_EQ(many.box.counter_value(c), one.box.counter_value(c)) << "counter " << c;
        if (mix != 2) {
            EXPECT_GT(one.box.counter_value(3), 0u);  // (the filter matched some headers)
        }
    }
    // Late: the box is at cycle 100; two packets sent at cycles 100 and 101
    // go, a packet received at 99 (a free link: its cycle's slot) throws.
    port q;
    q.box.advance_to(100);
    qpi_packet snp = pkt(qpi_mc::snp);
    snp.flits = 1;
    const cycle_t cycles[] = {100, 101, 99, 102};
    EXPECT_THROW(q.link.post_packets_while(4, [&](size_t k, qpi_dir& dir, cycle_t& c) -> const qpi_packet* {
        dir = k == 2 ? qpi_dir::rx : qpi_dir::tx;
        c = cycles[k];
        return &snp;
    }), std::logic_error);
    EXPECT_EQ(q.link.packets(qpi_dir::tx), 2u);
    EXPECT_EQ(q.link.next_free_slot(qpi_dir::tx), 2u * 101 + 1);
    EXPECT_EQ(q.link.packets(qpi_dir::rx), 0u);
    q.box.advance_to(110);
    q.ctl(0, kTxG0DataNon, 110);
    q.link.post_packet(qpi_dir::tx, 110, snp);
    q.box.advance_to(120);
    EXPECT_EQ(q.box.counter_value(0), 1u);  // (the ring still takes packets)
}

// A billion-packet run counted in closed form, with values worked out by
// hand: DRS (1 header + 8 data flits) every 5 cycles from cycle 0 on rx, so
// each 10-slot period is 1 non-data, 8 data and 1 idle slot.
TEST(QpiLinkRuns, ABillionPacketsInClosedForm) {
    port q;
    constexpr uint64_t n = 1000000000;
    q.ctl(0, kRxG1DrsData);
    q.ctl(1, kRxG0Idle);
    q.ctl(2, kRxG0DataNon | 2u << 24);       // thresh 2: cycles with both slots used
    q.ctl(3, kRxG0DataNon | 2u << 24 | 1u << 18);  // the same, edge: rising into such a run
    q.link.post_packets(qpi_dir::rx, 0, 5, n, pkt(qpi_mc::drs));
    q.box.advance_to(5 * n + 10);
    EXPECT_EQ(q.box.counter_value(0), 8 * n);
    // Idle: the last slot of each period but the last packet's, then slots
    // 10n - 1 .. 10n + 19 after the last packet: 21.
    EXPECT_EQ(q.box.counter_value(1), (n - 1) + 21);
    // Each period: cycles 5k .. 5k+4 hold slots 10k .. 10k+9; slot 10k+9 is idle, so
    // cycles 5k..5k+3 are full (4 a period) and 5k+4 is half: 4n, and one rise a period.
    EXPECT_EQ(q.box.counter_value(2), 4 * n);
    EXPECT_EQ(q.box.counter_value(3), n);
}

TEST(QpiLinkSerialize, FlitCountsByClassThroughInputs) {
    port q;
    // DRS WbIDataPtl (11 flits) at 0: slots 0..10; non-data 0, 1, 2; data 3..10.
    q.link.post_packet(qpi_dir::rx, 0, pkt(qpi_mc::drs, 0x8));
    // NDR on the AD ring at 0: slot 11 (cycle 5).
    qpi_packet ad = pkt(qpi_mc::ndr);
    ad.ring_ad = true;
    q.link.post_packet(qpi_dir::rx, 0, ad);
    // SNP and HOM0 at 6: slots 12, 13 (cycle 6). HOM1 at 7: slot 14 (cycle 7).
    q.link.post_packet(qpi_dir::rx, 6, pkt(qpi_mc::snp));
    q.link.post_packet(qpi_dir::rx, 6, pkt(qpi_mc::hom0));
    q.link.post_packet(qpi_dir::rx, 7, pkt(qpi_mc::hom1));
    // NCS NcRd and NDR (AK) at 8: slots 16, 17 (cycle 8).
    q.link.post_packet(qpi_dir::rx, 8, pkt(qpi_mc::ncs));
    q.link.post_packet(qpi_dir::rx, 8, pkt(qpi_mc::ndr));
    // NCB NcWr at 9: slots 18..26 (header 18 in cycle 9, data 19..26).
    q.link.post_packet(qpi_dir::rx, 9, pkt(qpi_mc::ncb));

    struct row { const char* ev; const char* sub; counts per_cycle; };
    const std::vector<row> rows = {
        //                              c0 c1 c2 c3 c4 c5 c6 c7 c8 c9 10 11 12 13 14
        {"RxL_FLITS_G0", "IDLE",        {0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 1, 2}},
        {"RxL_FLITS_G0", "DATA",        {0, 1, 2, 2, 2, 1, 0, 0, 0, 1, 2, 2, 2, 1, 0}},
        {"RxL_FLITS_G0", "NON_DATA",    {2, 1, 0, 0, 0, 1, 2, 1, 2, 1, 0, 0, 0, 0, 0}},
        {"RxL_FLITS_G1", "SNP",         {0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0}},
        {"RxL_FLITS_G1", "HOM_REQ",     {0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0}},
        {"RxL_FLITS_G1", "HOM_NONREQ",  {0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0}},
        {"RxL_FLITS_G1", "DRS_DATA",    {0, 1, 2, 2, 2, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0}},
        {"RxL_FLITS_G1", "DRS_NONDATA", {2, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}},
        {"RxL_FLITS_G2", "NDR_AD",      {0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0}},
        {"RxL_FLITS_G2", "NDR_AK",      {0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0}},
        {"RxL_FLITS_G2", "NCB_DATA",    {0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 2, 2, 2, 1, 0}},
        {"RxL_FLITS_G2", "NCB_NONDATA", {0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0}},
        {"RxL_FLITS_G2", "NCS",         {0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0}},
        // The transmit side saw nothing.
        {"TxL_FLITS_G0", "DATA",        {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}},
        {"TxL_FLITS_G0", "NON_DATA",    {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}},
        {"TxL_FLITS_G1", "DRS_DATA",    {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}},
        {"TxL_FLITS_G2", "NCB_DATA",    {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}},
    };
    std::vector<counts> seen(rows.size());
    for (cycle_t c = 0; c < 15; ++c) {
        q.box.advance_to(c);  // cycle c is the current one
        for (size_t r = 0; r < rows.size(); ++r)
            seen[r].push_back(q.box.input_now(q.input(rows[r].ev, rows[r].sub)));
    }
    for (size_t r = 0; r < rows.size(); ++r)
        EXPECT_EQ(seen[r], rows[r].per_cycle) << rows[r].ev << "." << rows[r].sub;
}

TEST(QpiLinkSerialize, IdleIsTwoPerCycleMinusUsedSlots) {
    port q;
    q.ctl(0, kRxG0Idle);
    q.ctl(1, kRxG0All);      // IDLE + DATA + NON_DATA: exactly 2 every cycle
    q.ctl(2, kRxG0DataNon);
    // 5 packets, 9 + 1 + 11 + 3 + 1 = 25 flits, all inside cycles 0..49.
    q.link.post_packet(qpi_dir::rx, 3, pkt(qpi_mc::drs));        // slots 6..14
    q.link.post_packet(qpi_dir::rx, 4, pkt(qpi_mc::snp));        // slot 15
    q.link.post_packet(qpi_dir::rx, 20, pkt(qpi_mc::ncb, 0x9));  // slots 40..50
    q.link.post_packet(qpi_dir::rx, 20, pkt(qpi_mc::ncs, 0xC));  // slots 51..53
    q.link.post_packet(qpi_dir::rx, 40, pkt(qpi_mc::hom1));      // slot 80
    const unsigned idle = q.input("RxL_FLITS_G0", "IDLE");
    const unsigned data = q.input("RxL_FLITS_G0", "DATA");
    const unsigned non = q.input("RxL_FLITS_G0", "NON_DATA");
    for (cycle_t c = 0; c < 50; ++c) {
        q.box.advance_to(c);
        EXPECT_EQ(q.box.input_now(idle) + q.box.input_now(data) + q.box.input_now(non), 2u)
            << "cycle " << c;
    }
    q.box.advance_to(50);
    // 2 * 50 = 100 slots, 25 used, 75 idle.
    EXPECT_EQ(q.box.counter_value(0), 75u);
    EXPECT_EQ(q.box.counter_value(1), 100u);
    EXPECT_EQ(q.box.counter_value(2), 25u);
}

TEST(QpiLinkSerialize, NdrCountsAsAkUnlessTaggedAd) {
    port q;
    q.ctl(0, kRxG2NdrAd);
    q.ctl(1, kRxG2NdrAk);
    q.ctl(2, kTxG2NdrAd);
    q.ctl(3, kTxG2NdrAk);
    qpi_packet ak = pkt(qpi_mc::ndr, 0x8);  // Cmp
    qpi_packet ad = ak;
    ad.ring_ad = true;
    qpi_packet snp_ad = pkt(qpi_mc::snp);  // the tag means nothing outside NDR
    snp_ad.ring_ad = true;
    q.link.post_packet(qpi_dir::rx, 0, ak);
    q.link.post_packet(qpi_dir::rx, 0, ak);
    q.link.post_packet(qpi_dir::rx, 0, ad);
    q.link.post_packet(qpi_dir::rx, 0, snp_ad);
    q.link.post_packet(qpi_dir::tx, 0, ad);
    q.link.post_packet(qpi_dir::tx, 0, ad);
    q.link.post_packet(qpi_dir::tx, 0, ak);
    q.box.advance_to(10);
    EXPECT_EQ(q.box.counter_value(0), 1u);  // rx AD: 1
    EXPECT_EQ(q.box.counter_value(1), 2u);  // rx AK: 2 (the SNP counts in neither)
    EXPECT_EQ(q.box.counter_value(2), 2u);  // tx AD: 2
    EXPECT_EQ(q.box.counter_value(3), 1u);  // tx AK: 1
}

TEST(QpiLinkSerialize, TransmitAndReceiveAreSeparateLinks) {
    port q;
    q.ctl(0, kTxG1DrsData);
    q.ctl(1, kRxG1DrsData);
    q.ctl(2, kTxG0DataNon);
    q.ctl(3, kRxG0DataNon);
    // tx DRS at 0: tx slots 0..8. rx SNP at 0: rx slot 0; rx DRS at 0: rx
    // slots 1..9. The directions do not share slots: the rx DRS header is in
    // cycle 0 although the tx link is busy.
    EXPECT_EQ(q.link.post_packet(qpi_dir::tx, 0, pkt(qpi_mc::drs)), 0u);
    EXPECT_EQ(q.link.post_packet(qpi_dir::rx, 0, pkt(qpi_mc::snp)), 0u);
    EXPECT_EQ(q.link.post_packet(qpi_dir::rx, 0, pkt(qpi_mc::drs)), 0u);
    EXPECT_EQ(q.link.next_free_slot(qpi_dir::tx), 9u);
    EXPECT_EQ(q.link.next_free_slot(qpi_dir::rx), 10u);
    EXPECT_EQ(q.link.packets(qpi_dir::tx), 1u);
    EXPECT_EQ(q.link.packets(qpi_dir::rx), 2u);
    const auto& t = q.run(6);
    EXPECT_EQ(column(t, 0, 0, 6), (counts{1, 2, 2, 2, 1, 0}));  // tx data slots 1..8
    EXPECT_EQ(column(t, 1, 0, 6), (counts{0, 2, 2, 2, 2, 0}));  // rx data slots 2..9
    EXPECT_EQ(column(t, 2, 0, 6), (counts{2, 2, 2, 2, 1, 0}));  // tx 9 flits
    EXPECT_EQ(column(t, 3, 0, 6), (counts{2, 2, 2, 2, 2, 0}));  // rx 10 flits
}

TEST(QpiLinkSerialize, TransmitIdleExistsOnSnbOnly) {
    // IVB-EP's TxL_FLITS_G0 has no IDLE umask (qpi-ll.md §3.2, §8 #21).
    EXPECT_FALSE(catalog_for(box_kind::qpi, ivb).find_input("TxL_FLITS_G0", "IDLE").has_value());
    port s(snb);
    s.ctl(0, kTxG0Idle);
    s.ctl(1, kRxG0Idle);
    s.link.post_packet(qpi_dir::tx, 2, pkt(qpi_mc::ncb, 0xA));  // tx slots 4..14
    s.link.post_packet(qpi_dir::rx, 0, pkt(qpi_mc::hom0));      // rx slot 0
    s.box.advance_to(20);
    EXPECT_EQ(s.box.counter_value(0), 40u - 11u);  // 29
    EXPECT_EQ(s.box.counter_value(1), 40u - 1u);   // 39
    EXPECT_TRUE(s.diags.records().empty());
}

// ===========================================================================
// CTO_COUNT

TEST(QpiLinkCto, CountsReceivedHeadersOnly) {
    port q;
    q.ctl(0, kCto);  // MASK = 0 after reset: every received packet matches
    q.ctl(1, kRxG0NonData);
    q.link.post_packet(qpi_dir::tx, 0, pkt(qpi_mc::drs));  // tx: never counted
    q.link.post_packet(qpi_dir::tx, 0, pkt(qpi_mc::snp));
    q.link.post_packet(qpi_dir::tx, 7, pkt(qpi_mc::hom0));
    // rx DRS WbIDataPtl at 5: slots 10..20, header in cycle 5 (its two other
    // non-data flits in cycle 5/6 do not count). rx SNP at 5: slot 21, cycle 10.
    q.link.post_packet(qpi_dir::rx, 5, pkt(qpi_mc::drs, 0x8));
    q.link.post_packet(qpi_dir::rx, 5, pkt(qpi_mc::snp));
    const auto& t = q.run(12);
    //                                     c0 c1 c2 c3 c4 c5 c6 c7 c8 c9 10 11
    EXPECT_EQ(column(t, 0, 0, 12), (counts{0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0}));
    EXPECT_EQ(column(t, 1, 0, 12), (counts{0, 0, 0, 0, 0, 2, 1, 0, 0, 0, 1, 0}));
    EXPECT_EQ(q.box.counter_value(0), 2u);
    EXPECT_TRUE(q.diags.records().empty());
}

TEST(QpiLinkCto, AtMostTwoPerCycle) {
    port q;
    q.ctl(0, kCto);
    q.ctl(1, 0x02000000u | kCto);  // thresh 2: cycles where both slots matched
    q.ctl(2, 0x02040000u | kCto);  // thresh 2 + edge: starts of such runs
    // 5 SNPs at 10: slots 20..24 -> cycles 10, 10, 11, 11, 12.
    for (int i = 0; i < 5; ++i) q.link.post_packet(qpi_dir::rx, 10, pkt(qpi_mc::snp));
    // 2 HOM0 at 20 but the filter (MASK = MC) lets only the HOM1 through.
    q.link.post_packet(qpi_dir::rx, 20, pkt(qpi_mc::hom0));
    q.link.post_packet(qpi_dir::rx, 20, pkt(qpi_mc::hom1));
    q.filter(0x0200, 0, 0x1E00, 0, 15);  // HOM.AnyResp from cycle 15
    const auto& t = q.run(22);
    EXPECT_EQ(column(t, 0, 9, 14), (counts{0, 2, 2, 1, 0}));
    EXPECT_EQ(column(t, 0, 20, 22), (counts{1, 0}));
    EXPECT_EQ(q.box.counter_value(0), 6u);  // 5 + 1
    EXPECT_EQ(q.box.counter_value(1), 2u);  // cycles 10 and 11
    EXPECT_EQ(q.box.counter_value(2), 1u);  // one run, 10..11
}

TEST(QpiLinkCto, FilterIsTheOneProgrammedAtTheHeaderCycle) {
    // DRS at 10 (header cycle 10), NCB at 30 (header cycle 30). The filter
    // starts as DRS.AnyResp (0x1C00/0x1E00) and is switched to NCB.AnyResp
    // (0x1800/0x1E00) just before cycle `switch_at`.
    auto run = [](cycle_t switch_at, std::vector<cycle_t>* hits) {
        port q;
        q.ctl(0, kCto);
        q.filter(0x1C00, 0, 0x1E00, 0);
        q.link.post_packet(qpi_dir::rx, 10, pkt(qpi_mc::drs));
        q.link.post_packet(qpi_dir::rx, 30, pkt(qpi_mc::ncb));
        q.filter(0x1800, 0, 0x1E00, 0, switch_at);
        const auto& t = q.run(40);
        for (cycle_t c = 0; c < 40; ++c)
            if (t[c][0]) hits->push_back(c);
        return q.box.counter_value(0);
    };
    std::vector<cycle_t> hits;
    // Switched after the DRS header's cycle: DRS counted under the old
    // filter, NCB under the new one.
    EXPECT_EQ(run(11, &hits), 2u);
    EXPECT_EQ(hits, (std::vector<cycle_t>{10, 30}));
    // Switched just before cycle 10 (an access at the start of cycle 10
    // governs cycle 10): the DRS header already sees the NCB filter.
    hits.clear();
    EXPECT_EQ(run(10, &hits), 1u);
    EXPECT_EQ(hits, (std::vector<cycle_t>{30}));
    // Switched after both headers: only the DRS matched.
    hits.clear();
    EXPECT_EQ(run(31, &hits), 1u);
    EXPECT_EQ(hits, (std::vector<cycle_t>{10}));
    // Switched before cycle 30 (the NCB header cycle) but after 10: both.
    hits.clear();
    EXPECT_EQ(run(30, &hits), 2u);
    EXPECT_EQ(hits, (std::vector<cycle_t>{10, 30}));
}

TEST(QpiLinkCto, WithoutExtIsNoEvent) {
    port q;
    q.ctl(0, 0x00400038);  // 0x38 without ext
    q.link.post_packet(qpi_dir::rx, 0, pkt(qpi_mc::snp));
    q.box.advance_to(5);
    EXPECT_EQ(q.box.counter_value(0), 0u);
    ASSERT_EQ(q.diags.records().size(), 1u);
    const diagnostic& d = q.diags.records()[0];
    EXPECT_EQ(d.box, "qpi0");
    EXPECT_EQ(d.reg, "Q_P0_PCI_PMON_CTL0");
    EXPECT_EQ(d.value, 0x00400038u);
    EXPECT_EQ(d.reason,
              "CTO_COUNT (0x38) needs the extra select bit 21; without it 0x38 is no event; "
              "the counter counts nothing");
}

}  // namespace
}  // namespace pmonsim
