// Unit tests of driver/event_spec: catalog names and Linux perf syntax turned
// into CTL values, QPI filters and allowed counters. Encodings are pinned to the
// spec notes: qpi-ll.md §1.5/§5.2 (PCM's default QPI events), §2.1/§2.3/§2.4
// (match/mask fields, presets, the perf example), §5.1 (Linux formats),
// ubox-r2pcie-global.md §2.1/§4.2/§5.4/§6 (thresh5/thresh8, invert on SNB-EP only).
#include <gtest/gtest.h>

#include <cstdio>
#include <string>
#include <vector>

#include "driver/event_spec.h"

namespace pmonsim::driver {
namespace {

constexpr cpu_model snb = cpu_model::snb_ep;
constexpr cpu_model ivb = cpu_model::ivb_ep;

event_spec parse(const std::string& text, cpu_model cpu = ivb, unsigned ports = 2) {
    return parse_event(text, cpu, ports);
}

// The exact message of the event_error thrown for `text`.
std::string error_of(const std::string& text, cpu_model cpu = ivb, unsigned ports = 2) {
    try {
        parse_event(text, cpu, ports);
    } catch (const event_error& e) {
        return e.what();
    }
    return "(no error)";
}

void expect_same(const event_spec& a, const event_spec& b) {
    EXPECT_EQ(a.name, b.name);
    EXPECT_EQ(a.cpu, b.cpu);
    EXPECT_EQ(a.kind, b.kind);
    EXPECT_EQ(a.unit, b.unit);
    EXPECT_EQ(a.fixed, b.fixed);
    EXPECT_EQ(a.ctl, b.ctl);
    EXPECT_EQ(a.has_filter, b.has_filter);
    EXPECT_EQ(a.match, b.match);
    EXPECT_EQ(a.mask, b.mask);
    EXPECT_EQ(a.counters, b.counters);
    EXPECT_EQ(a.event, b.event);
    EXPECT_EQ(a.socket, b.socket);
}

// ---------------------------------------------------------------------------
// Catalog names: encodings

// PCM's QPI traffic events (qpi-ll.md §5.2): the CTL values PCM writes, less en.
TEST(EventSpecCatalog, PcmQpiEventsEncodeAsPcmWritesThem) {
    for (cpu_model cpu : {snb, ivb}) {
        const event_spec drs = parse("qpi0/RxL_FLITS_G1.DRS_DATA", cpu);
        EXPECT_EQ(drs.ctl, 0x00200802u);
        EXPECT_EQ(drs.ctl_enabled(), 0x00600802u);
        EXPECT_EQ(drs.name, "qpi0/RxL_FLITS_G1.DRS_DATA");
        EXPECT_EQ(drs.kind, box_kind::qpi);
        EXPECT_EQ(drs.unit, 0u);
        EXPECT_FALSE(drs.fixed);
        EXPECT_FALSE(drs.has_filter);
        EXPECT_EQ(drs.counters, 0xF);
        EXPECT_EQ(drs.event, catalog_for(box_kind::qpi, cpu).find("RxL_FLITS_G1"));

        EXPECT_EQ(parse("qpi0/RxL_FLITS_G2.NCB_DATA", cpu).ctl, 0x00200403u);
        const event_spec g0 = parse("qpi0/TxL_FLITS_G0.DATA|NON_DATA", cpu);
        EXPECT_EQ(g0.ctl, 0x00000600u);
        EXPECT_EQ(g0.ctl_enabled(), 0x00400600u);
        EXPECT_EQ(g0.name, "qpi0/TxL_FLITS_G0.DATA|NON_DATA");
        EXPECT_EQ(parse("qpi0/CLOCKTICKS", cpu).ctl, 0x14u);
        EXPECT_EQ(parse("qpi0/CLOCKTICKS", cpu).ctl_enabled(), 0x00400014u);
    }
}

TEST(EventSpecCatalog, CtoCountHasTheExtBitAndUsesTheFilter) {
    const event_spec e = parse("qpi1/CTO_COUNT");
    EXPECT_EQ(e.ctl, 0x00200038u);
    EXPECT_EQ(e.ctl_enabled(), 0x00600038u);  // qpi-ll.md §6
    EXPECT_TRUE(e.has_filter);
    EXPECT_EQ(e.match, 0u);
    EXPECT_EQ(e.mask, 0u);
    EXPECT_EQ(e.unit, 1u);
    EXPECT_EQ(e.name, "qpi1/CTO_COUNT");
    EXPECT_EQ(e.box_name(), "qpi1");
    EXPECT_EQ(e.local_name(), "CTO_COUNT");
}

TEST(EventSpecCatalog, PrefixAndCaseAreOptional) {
    const event_spec e = parse("QPI1/unc_q_rxl_flits_g1.drs_data");
    EXPECT_EQ(e.name, "qpi1/RxL_FLITS_G1.DRS_DATA");
    EXPECT_EQ(e.ctl, 0x00200802u);
    EXPECT_EQ(e.text, "QPI1/unc_q_rxl_flits_g1.drs_data");
    EXPECT_EQ(parse("r2pcie/UNC_R2_CLOCKTICKS").ctl, 0x01u);
    EXPECT_EQ(parse("ubox/UNC_U_LOCK_CYCLES").ctl, 0x44u);
    // A prefix of another box is not stripped.
    EXPECT_EQ(error_of("r2pcie/UNC_Q_CLOCKTICKS"),
              "r2pcie/UNC_Q_CLOCKTICKS: r2pcie has no event 'UNC_Q_CLOCKTICKS' on ivb-ep");
}

TEST(EventSpecCatalog, CombinedSubEventsAreNamedByTheCatalog) {
    // HOM_REQ|HOM_NONREQ is the catalog's combination HOM (umask 0x06).
    const event_spec hom = parse("qpi0/RxL_FLITS_G1.HOM_REQ|HOM_NONREQ");
    EXPECT_EQ(hom.ctl, 0x00200602u);
    EXPECT_EQ(hom.name, "qpi0/RxL_FLITS_G1.HOM");
    expect_same(hom, parse("qpi0/RxL_FLITS_G1.HOM"));
    // Bits without a single name are spelled bitN and parse back.
    const event_spec iv = parse("r2pcie/RING_IV_USED.bit0");
    EXPECT_EQ(iv.ctl, 0x010Au);
    EXPECT_EQ(iv.name, "r2pcie/RING_IV_USED.bit0");
}

// R2PCIe ring umasks differ by personality (ubox-r2pcie-global.md §5.7/§5.8).
TEST(EventSpecCatalog, R2pcieRingCwDependsOnThePersonality) {
    EXPECT_EQ(parse("r2pcie/RING_AD_USED.CW", ivb).ctl, 0x3307u);
    EXPECT_EQ(parse("r2pcie/RING_AD_USED.CW", snb).ctl, 0x0307u);
    const event_spec occ = parse("r2pcie/RxR_OCCUPANCY.DRS", ivb);
    EXPECT_EQ(occ.ctl, 0x0813u);
    EXPECT_EQ(occ.counters, 0x1);
    EXPECT_EQ(parse("r2pcie/IIO_CREDITS_USED.NCB").counters, 0x3);
    EXPECT_EQ(parse("r2pcie/TxR_CYCLES_NE.BL").counters, 0x1);
    EXPECT_EQ(parse("r2pcie/CLOCKTICKS").counters, 0xF);
    EXPECT_EQ(error_of("r2pcie/RxR_OCCUPANCY.DRS", snb),
              "r2pcie/RxR_OCCUPANCY.DRS: r2pcie has no event 'RxR_OCCUPANCY' on snb-ep "
              "(only ivb-ep has it)");
}

TEST(EventSpecCatalog, UmaskZeroMeansAllWhereTheCatalogSaysSo) {
    // IVB-EP RxR_AK_BOUNCES lists umask 0 (all) beside CW/CCW.
    const event_spec e = parse("r2pcie/RxR_AK_BOUNCES", ivb);
    EXPECT_EQ(e.ctl, 0x12u);
    EXPECT_EQ(e.name, "r2pcie/RxR_AK_BOUNCES");
    EXPECT_EQ(error_of("qpi0/RxL_FLITS_G1"),
              "qpi0/RxL_FLITS_G1: RxL_FLITS_G1 needs a sub-event: SNP, HOM_REQ, HOM_NONREQ, HOM, "
              "DRS_DATA, DRS_NONDATA, DRS");
}

// ---------------------------------------------------------------------------
// Modifiers: thresh5 / thresh8, edge, inv

TEST(EventSpecModifiers, UboxThresholdIsFiveBits) {
    const event_spec e = parse("ubox/EVENT_MSG.DOORBELL_RCVD,thresh=31,edge");
    EXPECT_EQ(e.ctl, 0x1F040842u);
    EXPECT_EQ(e.name, "ubox/EVENT_MSG.DOORBELL_RCVD,thresh=31,edge");
    EXPECT_EQ(error_of("ubox/LOCK_CYCLES,thresh=32"),
              "ubox/LOCK_CYCLES,thresh=32: thresh=32 does not fit the ubox 5-bit threshold (0-31)");
    EXPECT_EQ(error_of("uncore_ubox/event=0x44,thresh=0x20/"),
              "uncore_ubox/event=0x44,thresh=0x20/: thresh=0x20 does not fit the ubox 5-bit "
              "threshold (0-31)");
}

TEST(EventSpecModifiers, PciBoxThresholdIsEightBits) {
    EXPECT_EQ(parse("r2pcie/RxR_OCCUPANCY.DRS,thresh=255").ctl, 0xFF000813u);
    EXPECT_EQ(parse("qpi0/RxL_OCCUPANCY,thresh=128").ctl, 0x8000000Bu);
    EXPECT_EQ(error_of("qpi0/RxL_OCCUPANCY,thresh=256"),
              "qpi0/RxL_OCCUPANCY,thresh=256: thresh=256 does not fit the qpi0 8-bit threshold "
              "(0-255)");
}

TEST(EventSpecModifiers, EdgeAndInvNeedAThreshold) {
    EXPECT_EQ(error_of("qpi0/CLOCKTICKS,edge"),
              "qpi0/CLOCKTICKS,edge: edge needs thresh >= 1 (edge detection acts on the threshold "
              "comparison)");
    EXPECT_EQ(error_of("r2pcie/CLOCKTICKS,inv", snb),
              "r2pcie/CLOCKTICKS,inv: inv needs thresh >= 1 (invert acts on the threshold "
              "comparison)");
    EXPECT_EQ(parse("qpi0/CLOCKTICKS,thresh=1,edge").ctl, 0x01040014u);
    EXPECT_EQ(parse("qpi0/CLOCKTICKS,edge=0").ctl, 0x14u);
}

// Invert is CTL bit 23 on SNB-EP only (DECISIONS.md; 329468-002 marks it reserved).
TEST(EventSpecModifiers, InvertExistsOnSnbEpOnly) {
    const event_spec e = parse("r2pcie/RING_AD_USED.CW,thresh=1,inv", snb);
    EXPECT_EQ(e.ctl, 0x01800307u);
    EXPECT_EQ(e.name, "r2pcie/RING_AD_USED.CW,thresh=1,inv");
    EXPECT_EQ(parse("ubox/LOCK_CYCLES,thresh=1,inv", snb).ctl, 0x01800044u);
    EXPECT_EQ(parse("qpi0/CLOCKTICKS,thresh=1,inv", snb).ctl, 0x01800014u);
    EXPECT_EQ(error_of("r2pcie/RING_AD_USED.CW,thresh=1,inv", ivb),
              "r2pcie/RING_AD_USED.CW,thresh=1,inv: inv: invert does not exist on ivb-ep (CTL bit "
              "23 is reserved)");
    EXPECT_EQ(error_of("uncore_qpi_0/event=0x14,thresh=1,inv/", ivb),
              "uncore_qpi_0/event=0x14,thresh=1,inv/: inv: invert does not exist on ivb-ep (CTL "
              "bit 23 is reserved)");
    EXPECT_EQ(parse("uncore_qpi_0/event=0x14,inv=0/", ivb).ctl, 0x14u);
}

// ---------------------------------------------------------------------------
// The UCLK fixed counter

TEST(EventSpecFixed, AllSpellingsNameTheFixedCounter) {
    for (const char* text : {"ubox_fixed/UCLK", "ubox/UCLK", "ubox/CLOCKTICKS",
                             "ubox/UNC_U_CLOCKTICKS", "ubox_fixed/clockticks",
                             "uncore_ubox/event=0xff/"}) {
        SCOPED_TRACE(text);
        for (cpu_model cpu : {snb, ivb}) {
            const event_spec e = parse(text, cpu);
            EXPECT_TRUE(e.fixed);
            EXPECT_EQ(e.kind, box_kind::ubox_fixed);
            EXPECT_EQ(e.ctl, 0u);
            EXPECT_EQ(e.counters, 0x1);
            EXPECT_FALSE(e.event.has_value());
            EXPECT_FALSE(e.has_filter);
            EXPECT_EQ(e.name, "ubox_fixed/UCLK");
        }
    }
}

TEST(EventSpecFixed, TakesNoEventModifiers) {
    EXPECT_EQ(error_of("ubox_fixed/UCLK,thresh=1"),
              "ubox_fixed/UCLK,thresh=1: thresh=1: the UCLK fixed counter has no event select, "
              "threshold, edge, invert or filter");
    EXPECT_EQ(error_of("uncore_ubox/event=0xff,umask=0x1/"),
              "uncore_ubox/event=0xff,umask=0x1/: event=0xff is the UCLK fixed counter, which has "
              "no umask");
    EXPECT_EQ(error_of("uncore_ubox/event=0xff,thresh=1/"),
              "uncore_ubox/event=0xff,thresh=1/: thresh=1: the UCLK fixed counter has no "
              "threshold, edge or invert");
    EXPECT_EQ(error_of("ubox_fixed/LOCK_CYCLES"),
              "ubox_fixed/LOCK_CYCLES: ubox_fixed counts UCLK cycles only: its one event is UCLK, "
              "not 'LOCK_CYCLES'");
    EXPECT_EQ(parse("ubox/UCLK,socket=1").name, "ubox_fixed/UCLK,socket=1");
    // event=0xff is no event on the other boxes.
    EXPECT_EQ(error_of("uncore_r2pcie/event=0xff/"),
              "uncore_r2pcie/event=0xff/: event=0xff is not a r2pcie event on ivb-ep");
}

// ---------------------------------------------------------------------------
// CTO_COUNT filters (qpi-ll.md §2.1, §2.3, §2.4)

TEST(EventSpecFilter, PresetsGiveTheManualsMatchAndMask) {
    const event_spec any = parse("qpi0/CTO_COUNT:DRS.AnyDataC");
    EXPECT_EQ(any.ctl, 0x00200038u);
    EXPECT_TRUE(any.has_filter);
    EXPECT_EQ(any.match, 0x1C00u);
    EXPECT_EQ(any.mask, 0x1F80u);
    EXPECT_EQ(any.name, "qpi0/CTO_COUNT:DRS.AnyDataC");

    const event_spec m = parse("qpi0/CTO_COUNT:DRS.DataC_M");
    EXPECT_EQ(m.match, 0x0008000000001C00ull);
    EXPECT_EQ(m.mask, 0x000F000000001FE0ull);
    EXPECT_EQ(m.name, "qpi0/CTO_COUNT:DRS.DataC_M");
    // The IVB-EP perfmon names, with and without prefix, and CTO_COUNT.<preset>.
    for (const char* text : {"qpi0/MESSAGE.DRS.DataC_M", "qpi0/UNC_Q_MESSAGE.DRS.DataC_M",
                             "qpi0/cto_count.drs.datac_m", "qpi0/UNC_Q_CTO_COUNT:DRS.DataC_M"}) {
        SCOPED_TRACE(text);
        expect_same(parse(text), m);
    }
    // Presets apply on both personalities (one filter layout).
    EXPECT_EQ(parse("qpi1/CTO_COUNT:NCB.AnyInt", snb).match, 0x1900u);
}

TEST(EventSpecFilter, ModifiersRefineAPreset) {
    // DRS_DataC_FROM_QPI_TO_NODEx (329468-002 p141): MATCH0.DNID = x, MASK0[17:0] = 0x3FF80.
    const event_spec e = parse("qpi0/CTO_COUNT:DRS.AnyDataC,match_dnid=3,mask_dnid=0x1f,thresh=1");
    EXPECT_EQ(e.match, 0x7C00u);
    EXPECT_EQ(e.mask, 0x3FF80u);
    EXPECT_EQ(e.ctl, 0x01200038u);
    EXPECT_EQ(e.name, "qpi0/CTO_COUNT,thresh=1,match=0x7c00,mask=0x3ff80");
    expect_same(parse(e.name), e);
}

TEST(EventSpecFilter, RawRegistersAndFieldsAreEquivalent) {
    const event_spec preset = parse("qpi0/CTO_COUNT:DRS.DataC_M");
    for (const char* text :
         {"qpi0/CTO_COUNT,match0=0x1c00,match1=0x80000,mask0=0x1fe0,mask1=0xf0000",
          "qpi0/CTO_COUNT,match=0x0008000000001C00,mask=0x000F000000001FE0",
          "qpi0/MATCH_MASK,config1=0x0008000000001C00,config2=0x000F000000001FE0",
          "qpi0/CTO_COUNT,match_mc=0xe,match_rds=8,mask_mc=0xf,mask_opc=0xf,mask_rds=0xf"}) {
        SCOPED_TRACE(text);
        expect_same(parse(text), preset);
    }
    // A filter that is no preset keeps its values in the name.
    const event_spec raw = parse("qpi0/CTO_COUNT,match_mc=0xe,mask_mc=0xf,match_rnid4=1,mask_rnid4=1,"
                                 "match_rnid30=0x5,mask_rnid30=0xf,match_vnw=2,mask_vnw=2");
    EXPECT_EQ(raw.match, 0x0000000580001C10ull);
    EXPECT_EQ(raw.mask, 0x0000000F80001E10ull);
    EXPECT_EQ(raw.name, "qpi0/CTO_COUNT,match=0x580001c10,mask=0xf80001e10");
    expect_same(parse(raw.name), raw);
}

TEST(EventSpecFilter, UndocumentedFilterBitsAreRejected) {
    EXPECT_EQ(error_of("qpi0/CTO_COUNT,match0=0x7"),
              "qpi0/CTO_COUNT,match0=0x7: match0=0x7 sets MATCH0 bits 0x7 outside its documented "
              "fields (0x8003fff8)");
    EXPECT_EQ(error_of("qpi0/CTO_COUNT,mask1=0x100"),
              "qpi0/CTO_COUNT,mask1=0x100: mask1=0x100 sets MASK1 bits 0x100 outside its "
              "documented fields (0x000f000f)");
    EXPECT_EQ(error_of("uncore_qpi_0/event=0x138,config1=0x40000/"),
              "uncore_qpi_0/event=0x138,config1=0x40000/: config1=0x40000 sets MATCH0 bits "
              "0x40000 outside its documented fields (0x8003fff8)");
    EXPECT_EQ(error_of("qpi0/CTO_COUNT,match_mc=0x1f"),
              "qpi0/CTO_COUNT,match_mc=0x1f: match_mc=0x1f does not fit in 4 bits");
    EXPECT_EQ(error_of("qpi0/CTO_COUNT,match0=0x100000000"),
              "qpi0/CTO_COUNT,match0=0x100000000: match0=0x100000000 does not fit in 32 bits");
}

TEST(EventSpecFilter, FiltersOnlyOnCtoCount) {
    EXPECT_EQ(error_of("qpi0/CLOCKTICKS,match_mc=0xe"),
              "qpi0/CLOCKTICKS,match_mc=0xe: match_mc=0xe: match/mask filters apply only to QPI "
              "CTO_COUNT (event=0x138), not to CLOCKTICKS");
    EXPECT_EQ(error_of("r2pcie/CLOCKTICKS,mask0=0x1e00"),
              "r2pcie/CLOCKTICKS,mask0=0x1e00: mask0=0x1e00: match/mask filters apply only to QPI "
              "CTO_COUNT (event=0x138), not to CLOCKTICKS");
    EXPECT_EQ(error_of("qpi0/CLOCKTICKS:DRS.AnyDataC"),
              "qpi0/CLOCKTICKS:DRS.AnyDataC: 'DRS.AnyDataC' is a CTO_COUNT filter preset, and "
              "CLOCKTICKS uses no filter");
    EXPECT_EQ(error_of("qpi0/CTO_COUNT:DRS.Nothing"),
              "qpi0/CTO_COUNT:DRS.Nothing: no CTO_COUNT filter preset 'DRS.Nothing'");
    EXPECT_EQ(error_of("uncore_qpi_0/event=0x14,config2=0x1e00/"),
              "uncore_qpi_0/event=0x14,config2=0x1e00/: config2=0x1e00: match/mask filters apply "
              "only to QPI CTO_COUNT (event=0x138), not to CLOCKTICKS");
}

// ---------------------------------------------------------------------------
// Linux perf syntax (qpi-ll.md §5.1, ubox-r2pcie-global.md §6)

TEST(EventSpecPerf, QpiEventBit8IsTheExtBit) {
    for (cpu_model cpu : {snb, ivb}) {
        const event_spec perf = parse("uncore_qpi_0/event=0x102,umask=0x08/", cpu);
        expect_same(perf, parse("qpi0/RxL_FLITS_G1.DRS_DATA", cpu));
        EXPECT_EQ(perf.text, "uncore_qpi_0/event=0x102,umask=0x08/");
        EXPECT_EQ(perf.ctl, 0x00200802u);
        expect_same(parse("uncore_qpi_1/event=0x103,umask=0x4/", cpu),
                    parse("qpi1/RxL_FLITS_G2.NCB_DATA", cpu));
        expect_same(parse("uncore_qpi_0/event=0x00,umask=0x06/", cpu),
                    parse("qpi0/TxL_FLITS_G0.DATA|NON_DATA", cpu));
        expect_same(parse("uncore_qpi_0/event=0x14/", cpu), parse("qpi0/CLOCKTICKS", cpu));
        // The raw control value spells the same thing.
        expect_same(parse("uncore_qpi_0/config=0x200802/", cpu), perf);
    }
}

TEST(EventSpecPerf, LinuxCtoExampleGivesDrsAnyDataC) {
    const event_spec e = parse("uncore_qpi_0/event=0x138,match_mc=0xe,mask_mc=0xf,mask_opc=0xc/");
    EXPECT_EQ(e.ctl, 0x00200038u);
    EXPECT_TRUE(e.has_filter);
    EXPECT_EQ(e.match, 0x1C00u);
    EXPECT_EQ(e.mask, 0x1F80u);
    EXPECT_EQ(e.name, "qpi0/CTO_COUNT:DRS.AnyDataC");
    const event_spec m = parse("uncore_qpi_1/event=0x138,config1=0x0008000000001C00,"
                               "config2=0x000F000000001FE0/");
    EXPECT_EQ(m.match, 0x0008000000001C00ull);
    EXPECT_EQ(m.mask, 0x000F000000001FE0ull);
    EXPECT_EQ(m.name, "qpi1/CTO_COUNT:DRS.DataC_M");
}

TEST(EventSpecPerf, UboxAndR2pcieFormats) {
    expect_same(parse("uncore_ubox/event=0x42,umask=0x8,edge,thresh=1/"),
                parse("ubox/EVENT_MSG.DOORBELL_RCVD,thresh=1,edge"));
    expect_same(parse("uncore_r2pcie/event=0x7,umask=0x33/"), parse("r2pcie/RING_AD_USED.CW"));
    expect_same(parse("uncore_r2pcie/event=0x7,umask=0x3,thresh=2,inv/", snb),
                parse("r2pcie/RING_AD_USED.CW,thresh=2,inv", snb));
    EXPECT_EQ(parse("uncore_r2pcie/event=0x13,umask=0x8,thresh=0xff/").ctl, 0xFF000813u);
}

TEST(EventSpecPerf, CodesTheCatalogDoesNotDefineAreRejected) {
    EXPECT_EQ(error_of("uncore_qpi_0/event=0x145/"),
              "uncore_qpi_0/event=0x145/: event=0x145 is not a qpi event on ivb-ep");
    EXPECT_EQ(error_of("uncore_qpi_0/event=0x38/"),
              "uncore_qpi_0/event=0x38/: event=0x038 is not a qpi event on ivb-ep (CTO_COUNT is "
              "event=0x138: it needs the ext bit)");
    EXPECT_EQ(error_of("uncore_ubox/event=0x0/"),
              "uncore_ubox/event=0x0/: event=0x00 is not a ubox event on ivb-ep");
    EXPECT_EQ(error_of("uncore_r2pcie/event=0x13,umask=0x8/", snb),
              "uncore_r2pcie/event=0x13,umask=0x8/: event=0x13 is not a r2pcie event on snb-ep");
    EXPECT_EQ(error_of("uncore_qpi_0/event=0x102,umask=0x80/"),
              "uncore_qpi_0/event=0x102,umask=0x80/: RxL_FLITS_G1 does not define umask bits 0x80");
    EXPECT_EQ(error_of("uncore_qpi_0/event=0x102/"),
              "uncore_qpi_0/event=0x102/: RxL_FLITS_G1 with umask 0 selects no sub-event");
    EXPECT_EQ(error_of("uncore_r2pcie/event=0x101/"),
              "uncore_r2pcie/event=0x101/: event=0x101 does not fit uncore_r2pcie's event field "
              "(config:0-7: 0x0-0xff)");
    EXPECT_EQ(error_of("uncore_qpi_0/config=0x600802/"),
              "uncore_qpi_0/config=0x600802/: config=0x600802 sets bits 0x400000 that are not "
              "event, umask, edge, inv or thresh");
}

TEST(EventSpecPerf, SyntaxErrors) {
    EXPECT_EQ(error_of("uncore_qpi_0/event=0x14/u"),
              "uncore_qpi_0/event=0x14/u: nothing may follow the closing '/': 'u'");
    EXPECT_EQ(error_of("uncore_qpi_0/event=0x14"),
              "uncore_qpi_0/event=0x14: missing the closing '/'");
    EXPECT_EQ(error_of("uncore_sbox_0/event=0x14/"),
              "uncore_sbox_0/event=0x14/: unknown PMU 'uncore_sbox_0' (uncore_ubox, uncore_r2pcie, "
              "uncore_qpi_0..1, uncore_imc_0..7, uncore_ha_0..1, uncore_r3qpi_0..2, uncore_cbox_0..14, uncore_pcu, uncore_irp)");
    EXPECT_EQ(error_of("uncore_qpi_0/event=0x14,period=10/"),
              "uncore_qpi_0/event=0x14,period=10/: unknown term 'period=10' for uncore_qpi_0");
    EXPECT_EQ(error_of("uncore_qpi_0/umask=0x8/"), "uncore_qpi_0/umask=0x8/: no event= term");
    EXPECT_EQ(error_of("uncore_qpi_0/event=zz/"),
              "uncore_qpi_0/event=zz/: event=zz: 'zz' is not a number");
    EXPECT_EQ(error_of("uncore_qpi_0/event=0x14,,edge/"),
              "uncore_qpi_0/event=0x14,,edge/: empty term");
    EXPECT_EQ(error_of("uncore_qpi_2/event=0x14/"),
              "uncore_qpi_2/event=0x14/: qpi2 does not exist: 2 QPI ports configured");
}

// ---------------------------------------------------------------------------
// Catalog-name errors

TEST(EventSpecErrors, BoxesMustExist) {
    EXPECT_EQ(error_of("qpi2/CLOCKTICKS", snb, 3),
              "qpi2/CLOCKTICKS: qpi2 does not exist on snb-ep (2 QPI ports)");
    EXPECT_EQ(error_of("qpi2/CLOCKTICKS", ivb, 2),
              "qpi2/CLOCKTICKS: qpi2 does not exist: 2 QPI ports configured");
    EXPECT_EQ(parse("qpi2/CLOCKTICKS", ivb, 3).unit, 2u);
    EXPECT_EQ(parse("qpi2/CLOCKTICKS", ivb, 3).name, "qpi2/CLOCKTICKS");
    EXPECT_EQ(error_of("sbox0/CLOCKTICKS"),
              "sbox0/CLOCKTICKS: unknown box 'sbox0' (ubox, ubox_fixed, r2pcie, qpi0, qpi1, qpi2, imc0, imc1, imc2, imc3, imc4, imc5, imc6, imc7, ha0, ha1, r3qpi0, r3qpi1, r3qpi2, cbo0, cbo1, cbo2, cbo3, cbo4, cbo5, cbo6, cbo7, cbo8, cbo9, cbo10, cbo11, cbo12, cbo13, cbo14, pcu, irp) (did you mean ubox, cbo0 or cbo10?)");
    EXPECT_EQ(error_of("CLOCKTICKS"),
              "CLOCKTICKS: expected BOX/EVENT (box ubox, ubox_fixed, r2pcie, qpi0.., imc0.., ha0.., r3qpi0.., "
              "cbo0.., pcu, irp) or a Linux perf PMU/event=...,umask=.../");
    EXPECT_EQ(error_of("qpi0/"), "qpi0/: no event after 'qpi0/'");
    EXPECT_EQ(error_of("  "), "empty event specification");
}

TEST(EventSpecErrors, EventsAndSubEventsMustBeInTheCatalog) {
    EXPECT_EQ(error_of("r2pcie/RING_XX_USED.CW"),
              "r2pcie/RING_XX_USED.CW: r2pcie has no event 'RING_XX_USED' on ivb-ep (did you mean RING_AD_USED, "
              "RING_AK_USED or RING_BL_USED?)");
    EXPECT_EQ(error_of("qpi0/RxL_FLITS_G1.DRS_DATA|FOO"),
              "qpi0/RxL_FLITS_G1.DRS_DATA|FOO: RxL_FLITS_G1 has no sub-event 'FOO' (SNP, HOM_REQ, "
              "HOM_NONREQ, HOM, DRS_DATA, DRS_NONDATA, DRS)");
    EXPECT_EQ(error_of("qpi0/CLOCKTICKS.ANY"),
              "qpi0/CLOCKTICKS.ANY: CLOCKTICKS has no sub-events ('.ANY')");
    // TxL_FLITS_G0.IDLE exists on snb-ep only (qpi-ll.md §8 #21).
    EXPECT_EQ(parse("qpi0/TxL_FLITS_G0.IDLE", snb).ctl, 0x0100u);
    EXPECT_EQ(error_of("qpi0/TxL_FLITS_G0.IDLE", ivb),
              "qpi0/TxL_FLITS_G0.IDLE: TxL_FLITS_G0 has no sub-event 'IDLE' (DATA, NON_DATA)");
    EXPECT_EQ(error_of("ubox/LOCK_CYCLES,frobnicate"),
              "ubox/LOCK_CYCLES,frobnicate: unknown modifier 'frobnicate' (thresh=, edge, inv, "
              "socket=, for CTO_COUNT match0=/match1=/mask0=/mask1=, match=/mask=, "
              "config1=/config2=, match_*/mask_*, for the PCU occ_edge, occ_invert, filter_band0..3=, for the "
              "caching agents tid_en and their filter_*=, for the home agents filter_addr=, filter_opc=)");
    EXPECT_EQ(error_of("ubox/LOCK_CYCLES,"), "ubox/LOCK_CYCLES,: empty modifier");
    EXPECT_EQ(error_of("ubox/LOCK_CYCLES,thresh"),
              "ubox/LOCK_CYCLES,thresh: thresh needs a value (thresh=N)");
    EXPECT_EQ(error_of("ubox/LOCK_CYCLES,thresh=1,edge=2"),
              "ubox/LOCK_CYCLES,thresh=1,edge=2: edge=2: must be 0 or 1");
}

// ---------------------------------------------------------------------------
// Whole catalogs: every event parses by name, encodes its catalog entry, and
// its canonical name parses back to the same spec.

TEST(EventSpecCatalog, EveryCatalogEventParsesAndRoundTrips) {
    for (cpu_model cpu : {snb, ivb}) {
        for (box_kind kind : {box_kind::ubox, box_kind::r2pcie, box_kind::qpi}) {
            const event_catalog& cat = catalog_for(kind, cpu);
            const std::string box = kind == box_kind::qpi ? "qpi1" : to_string(kind);
            for (unsigned i = 0; i < cat.events().size(); ++i) {
                const event_def& ev = cat.events()[i];
                std::vector<uint8_t> umasks;
                for (const auto& u : ev.umasks) umasks.push_back(u.value);
                if (umasks.empty() || ev.umask0_all) umasks.push_back(0);
                for (uint8_t u : umasks) {
                    std::string text = box + "/" + ev.name;
                    for (const auto& d : ev.umasks)
                        if (d.value == u) {
                            text += "." + d.name;
                            break;
                        }
                    SCOPED_TRACE(text + " on " + to_string(cpu));
                    const event_spec e = parse(text, cpu);
                    EXPECT_EQ(e.event, i);
                    EXPECT_EQ(e.ctl, uint32_t{ev.code} | uint32_t{u} << 8 | uint32_t{ev.ext} << 21);
                    EXPECT_EQ(e.counters, ev.counters);
                    expect_same(parse(e.name, cpu), e);
                    // Linux perf spelling of the same event.
                    char perf[96];
                    std::snprintf(perf, sizeof perf, "%s/event=0x%x,umask=0x%x/",
                                  kind == box_kind::qpi    ? "uncore_qpi_1"
                                  : kind == box_kind::ubox ? "uncore_ubox"
                                                           : "uncore_r2pcie",
                                  ev.code | (ev.ext ? 0x100 : 0), u);
                    expect_same(parse(perf, cpu), e);
                }
            }
        }
    }
}

TEST(EventSpecCatalog, SocketModifierIsKept) {
    const event_spec e = parse("qpi0/CTO_COUNT:DRS.AnyDataC,socket=1");
    EXPECT_EQ(e.socket, 1u);
    EXPECT_EQ(e.name, "qpi0/CTO_COUNT:DRS.AnyDataC,socket=1");
    expect_same(parse(e.name), e);
    EXPECT_FALSE(parse("qpi0/CLOCKTICKS").socket.has_value());
}

}  // namespace
}  // namespace pmonsim::driver

namespace pmonsim::driver {
namespace {

// Nehalem-EP / Westmere-EP: the catalog box "uncore" and Linux's PMU of the
// same name (format: event, umask, edge, inv, cmask; event=0xff is the fixed
// counter), and boxes that CPU does not have.
// The PCU (decisions.md B10, B11): occ_sel as the occupancy event's
// sub-event, occ_edge/occ_invert, a band event's filter byte, ev_sel_ext.
TEST(EventSpecPcu, OccupancyBandsAndTheExtraSelectBit) {
    const event_spec c0 = parse("pcu/POWER_STATE_OCCUPANCY.CORES_C0");
    EXPECT_EQ(c0.ctl, 0x4080u);
    EXPECT_EQ(c0.name, "pcu/POWER_STATE_OCCUPANCY.CORES_C0");
    EXPECT_EQ(parse("uncore_pcu/event=0x80,occ_sel=1/").ctl, 0x4080u);
    const event_spec c6 = parse("uncore_pcu/event=0x80,occ_sel=3,thresh=2,occ_edge,occ_invert/");
    EXPECT_EQ(c6.ctl, 0xC200C080u);
    EXPECT_EQ(c6.name, "pcu/POWER_STATE_OCCUPANCY.CORES_C6,thresh=2,occ_edge,occ_invert");
    EXPECT_EQ(parse(c6.name).ctl, c6.ctl) << "the canonical name parses back";
    EXPECT_EQ(parse("uncore_pcu/config=0xc200c080/").ctl, 0xC200C080u);
    const event_spec band = parse("pcu/FREQ_BAND2_CYCLES,filter_band2=30");
    EXPECT_EQ(band.ctl, 0x0Du);
    EXPECT_EQ(band.band, 2);
    EXPECT_EQ(band.band_value, 30u);
    EXPECT_EQ(band.name, "pcu/FREQ_BAND2_CYCLES,filter_band2=30");
    EXPECT_EQ(parse("uncore_pcu/event=0xd,filter_band2=30/").band_value, 30u);
    EXPECT_EQ(parse("pcu/FREQ_BAND0_CYCLES").band_value, 0u) << "no byte given: 0, every cycle";
    EXPECT_EQ(parse("pcu/CLOCKTICKS").band, -1);
    // snb-ep: FREQ_TRANS_CYCLES is 0x00 with the extra select bit.
    EXPECT_EQ(parse("pcu/FREQ_TRANS_CYCLES", snb).ctl, 0x200000u);
    EXPECT_EQ(parse("uncore_pcu/event=0x100/", snb).name, "pcu/FREQ_TRANS_CYCLES");
    EXPECT_EQ(error_of("pcu/CLOCKTICKS,occ_edge,thresh=1"),
              "pcu/CLOCKTICKS,occ_edge,thresh=1: occ_edge applies to occupancy events (ev_sel bit 7: "
              "POWER_STATE_OCCUPANCY), not to CLOCKTICKS");
    EXPECT_EQ(error_of("pcu/POWER_STATE_OCCUPANCY.CORES_C3,thresh=1,edge"),
              "pcu/POWER_STATE_OCCUPANCY.CORES_C3,thresh=1,edge: edge does not apply to an occupancy event: use "
              "occ_edge");
    EXPECT_EQ(error_of("pcu/POWER_STATE_OCCUPANCY.CORES_C3,occ_invert"),
              "pcu/POWER_STATE_OCCUPANCY.CORES_C3,occ_invert: occ_edge and occ_invert need thresh >= 1 (they act "
              "on the threshold comparison)");
    EXPECT_EQ(error_of("pcu/FREQ_BAND1_CYCLES,filter_band0=20"),
              "pcu/FREQ_BAND1_CYCLES,filter_band0=20: filter_band0: FREQ_BAND1_CYCLES reads band 1");
    EXPECT_EQ(error_of("pcu/FREQ_BAND1_CYCLES,filter_band1=256"),
              "pcu/FREQ_BAND1_CYCLES,filter_band1=256: filter_band1=256 does not fit the band filter's byte "
              "(0-255, 100 MHz steps)");
    EXPECT_EQ(error_of("ubox/LOCK_CYCLES,occ_edge"), "ubox/LOCK_CYCLES,occ_edge: occ_edge: only the PCU's occupancy "
                                                     "events have occ_edge");
    EXPECT_EQ(error_of("uncore_pcu/event=0x80,occ_sel=4/"),
              "uncore_pcu/event=0x80,occ_sel=4/: occ_sel=4 does not fit occ_sel (config:14-15: 0-3)");
}

// B14: the caching agents' filter terms (Linux's formats) and the home
// agent's (the project's names) claim the fields the event compares, with
// the values given (0 otherwise); tid_en is CTL bit 19.
TEST(EventSpecRequests, FilterTermsClaimTheFieldsTheEventCompares) {
    const event_spec tor = parse("uncore_cbox_3/event=0x35,umask=0x1,filter_opc2=0x182,tid_en=1,filter_tid=2/");
    EXPECT_EQ(tor.ctl, 0x80135u);
    EXPECT_EQ(tor.req_mask[0], 0x1Fu) << "FILTER0: tid";
    EXPECT_EQ(tor.req_value[0], 0x2u);
    EXPECT_EQ(tor.req_mask[1], 0x1FF00000u) << "FILTER1: opc";
    EXPECT_EQ(tor.req_value[1], 0x18200000u);
    EXPECT_EQ(tor.name, "cbo3/TOR_INSERTS.OPCODE,tid_en,filter_tid=0x2,filter_opc2=0x182");
    EXPECT_EQ(parse(tor.name).req_value, tor.req_value) << "the canonical name parses back";
    const event_spec lookup = parse("cbo0/LLC_LOOKUP.NID");
    EXPECT_EQ(lookup.req_mask[0], 0x7E0000u) << "the state, 0: no state counts (as on silicon)";
    EXPECT_EQ(lookup.req_mask[1], 0xFFFFu) << "and the node mask";
    EXPECT_EQ(lookup.req_value[0] | lookup.req_value[1], 0u);
    const event_spec snb_lookup = parse("uncore_cbox_1/event=0x34,umask=0x3,filter_state=0x1f/", snb);
    EXPECT_EQ(snb_lookup.req_mask[0], 0x7C0000u);
    EXPECT_EQ(snb_lookup.req_value[0], 0x7C0000u);
    const event_spec ha = parse("uncore_ha_1/event=0x20,umask=0x3,filter_addr=0x12345678c0,filter_opc=0x21/");
    EXPECT_EQ(ha.req_value[0], 0x345678C0u);
    EXPECT_EQ(ha.req_value[1], 0x12u);
    EXPECT_EQ(ha.req_value[2], 0x21u);
    EXPECT_EQ(ha.name, "ha1/ADDR_OPC_MATCH.FILT,filter_addr=0x12345678c0,filter_opc=0x21");
    EXPECT_EQ(parse("cbo0/RING_AD_USED.UP_VR0_EVEN").req_mask[0], 0u) << "an event without filter fields";
    EXPECT_EQ(error_of("cbo0/LLC_LOOKUP.DATA_READ,filter_opc2=0x182"),
              "cbo0/LLC_LOOKUP.DATA_READ,filter_opc2=0x182: filter_opc2=0x182: LLC_LOOKUP.DATA_READ does not "
              "compare the opcode");
    EXPECT_EQ(error_of("cbo0/TOR_INSERTS.OPCODE,filter_tid=3"),
              "cbo0/TOR_INSERTS.OPCODE,filter_tid=3: filter_tid=3: TOR_INSERTS.OPCODE does not compare the thread "
              "without tid_en=1");
    EXPECT_EQ(error_of("cbo0/TOR_INSERTS.OPCODE,filter_opc2=0x200"),
              "cbo0/TOR_INSERTS.OPCODE,filter_opc2=0x200: filter_opc2=0x200 does not fit the filter's 9-bit field "
              "(largest 511)");
    EXPECT_EQ(error_of("cbo0/TOR_INSERTS.OPCODE,filter_opc=0x182"),
              "cbo0/TOR_INSERTS.OPCODE,filter_opc=0x182: filter_opc=0x182: not a filter term of cbo0 (filter_tid, "
              "filter_link, filter_state2, filter_nid2, filter_opc2, filter_c6, filter_nc, filter_isoc)");
    EXPECT_EQ(error_of("r2pcie/RING_AD_USED.CW_VR0_EVEN,tid_en"),
              "r2pcie/RING_AD_USED.CW_VR0_EVEN,tid_en: tid_en: only the caching agents' counters have tid_en");
}

TEST(EventSpecNehalem, CatalogNamesAndLinuxSyntax) {
    constexpr cpu_model nhm = cpu_model::nhm_ep;
    const event_spec a = parse_event("uncore/QMC_WRITES.FULL_ANY", nhm, 2);
    EXPECT_EQ(a.kind, box_kind::uncore);
    EXPECT_EQ(a.ctl, 0x072Fu);
    EXPECT_EQ(a.counters, 0xFFu);  // any of the eight
    EXPECT_EQ(a.name, "uncore/QMC_WRITES.FULL_ANY");
    const event_spec b = parse_event("uncore/event=0x23,umask=0x04,cmask=4,edge/", nhm, 2);
    EXPECT_EQ(b.ctl, 0x04040423u);
    EXPECT_EQ(b.name, "uncore/QHL_OCCUPANCY.LOCAL,thresh=4,edge");
    EXPECT_EQ(parse_event("uncore/QHL_OCCUPANCY.LOCAL,cmask=4,edge", nhm, 2).ctl, 0x04040423u);
    for (const char* fixed : {"uncore/UCLK", "uncore_fixed/UCLK", "uncore/event=0xff/"}) {
        const event_spec f = parse_event(fixed, nhm, 2);
        EXPECT_TRUE(f.fixed) << fixed;
        EXPECT_EQ(f.kind, box_kind::uncore_fixed) << fixed;
        EXPECT_EQ(f.name, "uncore_fixed/UCLK") << fixed;
    }
    // Westmere-only events.
    EXPECT_EQ(parse_event("uncore/GQ_SNOOP.GOTO_S_HIT", cpu_model::wsm_ep, 2).ctl & 0xFFu, 0x0Cu);
    EXPECT_EQ(error_of("uncore/QMC_NORMAL_FULL.CH0", cpu_model::wsm_ep),
              "uncore/QMC_NORMAL_FULL.CH0: uncore has no event 'QMC_NORMAL_FULL' on wsm-ep (only nhm-ep has it)");
}

TEST(EventSpecNehalem, BoxesMustBeThisCpus) {
    EXPECT_EQ(error_of("qpi0/RxL_FLITS_G1.DRS_DATA", cpu_model::nhm_ep),
              "qpi0/RxL_FLITS_G1.DRS_DATA: qpi0 does not exist on nhm-ep (uncore, uncore_fixed)");
    EXPECT_EQ(error_of("uncore/QMC_WRITES.FULL_ANY"),  // ivb-ep
              "uncore/QMC_WRITES.FULL_ANY: uncore does not exist on ivb-ep (ubox, ubox_fixed, r2pcie, qpi0, qpi1, "
              "qpi2, imc0, imc1, imc2, imc3, imc4, imc5, imc6, imc7, ha0, ha1, r3qpi0, r3qpi1, r3qpi2, cbo0, cbo1, cbo2, cbo3, cbo4, cbo5, cbo6, cbo7, cbo8, cbo9, cbo10, cbo11, cbo12, cbo13, cbo14, pcu, irp)");
    EXPECT_EQ(error_of("uncore_qpi_0/event=0x14/", cpu_model::nhm_ep),
              "uncore_qpi_0/event=0x14/: qpi0 does not exist on nhm-ep (uncore, uncore_fixed)");
    EXPECT_EQ(error_of("uncore_cbox_0/event=0x14/", cpu_model::nhm_ep),
              "uncore_cbox_0/event=0x14/: cbo0 does not exist on nhm-ep (uncore, uncore_fixed)");
    EXPECT_EQ(error_of("uncore_sbox_0/event=0x14/", cpu_model::nhm_ep),
              "uncore_sbox_0/event=0x14/: unknown PMU 'uncore_sbox_0' (uncore)");
}

}  // namespace
}  // namespace pmonsim::driver

namespace pmonsim::driver {
namespace {

// Memory-controller channels: imcN by name, uncore_imc_N by Linux's PMU
// name, Intel's UNC_M_ names on every channel the machine has.
TEST(EventSpecImc, ChannelsByNamePmuAndFullName) {
    const cpu_model ivb = cpu_model::ivb_ep, snb = cpu_model::snb_ep;
    const event_spec e = parse_event("imc5/CAS_COUNT.RD", ivb, 2);
    EXPECT_EQ(e.kind, box_kind::imc);
    EXPECT_EQ(e.unit, 5u);
    EXPECT_EQ(e.ctl & 0xFFFFu, 0x0304u);
    const event_spec p = parse_event("uncore_imc_7/event=0x04,umask=0x0c/", ivb, 2);
    EXPECT_EQ(p.kind, box_kind::imc);
    EXPECT_EQ(p.unit, 7u);
    try {
        parse_event("imc4/CAS_COUNT.RD", snb, 2);
        ADD_FAILURE() << "imc4 on snb-ep";
    } catch (const event_error& x) {
        EXPECT_EQ(std::string(x.what()), "imc4/CAS_COUNT.RD: imc4 does not exist on snb-ep (imc0..imc3)");
    }
    EXPECT_EQ(expand_full_name("UNC_M_CAS_COUNT.WR", ivb, 2, [](box_kind k) { return k == box_kind::imc ? 4u : 0u; }),
              (std::vector<std::string>{"imc0/UNC_M_CAS_COUNT.WR", "imc1/UNC_M_CAS_COUNT.WR", "imc2/UNC_M_CAS_COUNT.WR",
                                        "imc3/UNC_M_CAS_COUNT.WR"}));
    EXPECT_EQ(expand_full_name("UNC_M_CAS_COUNT.WR", ivb, 2).size(), 8u) << "without a machine: the descriptor's";
    // A box of one unit is not counted by discovery: its full names stay (the
    // UBox's were dropped when discovery listed no UBox); a numbered kind the
    // machine has none of is an error, not nothing.
    const auto none = [](box_kind) { return 0u; };
    EXPECT_EQ(expand_full_name("UNC_U_LOCK_CYCLES", ivb, 2, none), (std::vector<std::string>{"ubox/UNC_U_LOCK_CYCLES"}));
    try {
        expand_full_name("UNC_M_CAS_COUNT.WR", ivb, 2, none);
        FAIL() << "no channels, no error";
    } catch (const event_error& x) {
        EXPECT_EQ(std::string(x.what()), "UNC_M_CAS_COUNT.WR: this machine has no imc box to count it on");
    }
}

}  // namespace
}  // namespace pmonsim::driver
