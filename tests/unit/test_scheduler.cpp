// Unit tests of driver/scheduler: counter assignment per box instance with the
// real catalog constraints (R2PCIe occupancy/egress events on counter 0, IIO
// credit and ingress events on 0-1: ubox-r2pcie-global.md §5.6-§5.8), a true
// matching rather than first-fit, the one QPI packet filter per port shared as
// Linux shares it (qpi-ll.md §2.2, §5.1 step 5), and the UBox fixed counter as
// its own box.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "driver/scheduler.h"

namespace pmonsim::driver {
namespace {

constexpr cpu_model snb = cpu_model::snb_ep;
constexpr cpu_model ivb = cpu_model::ivb_ep;

std::vector<event_spec> parse_all(const std::vector<std::string>& texts, cpu_model cpu = ivb,
                                  unsigned ports = 2) {
    std::vector<event_spec> out;
    for (const auto& t : texts) out.push_back(parse_event(t, cpu, ports));
    return out;
}

std::string error_of(const std::vector<std::string>& texts, unsigned sockets = 1,
                     cpu_model cpu = ivb) {
    const auto events = parse_all(texts, cpu);
    try {
        schedule(events, sockets);
    } catch (const schedule_error& e) {
        return e.what();
    }
    return "(no error)";
}

// Counter of each event on socket 0, in event order.
std::vector<unsigned> counters_on_socket0(const std::vector<assignment>& a, std::size_t n) {
    std::vector<unsigned> out(n, 99);
    for (const auto& x : a)
        if (x.socket == 0) out.at(x.event) = x.counter;
    return out;
}

// Every assignment honours the event's mask, and no counter is used twice.
void expect_valid(const std::vector<event_spec>& events, const std::vector<assignment>& a) {
    for (std::size_t i = 0; i < a.size(); ++i) {
        const event_spec& e = events.at(a[i].event);
        EXPECT_EQ(a[i].kind, e.kind);
        EXPECT_EQ(a[i].unit, e.unit);
        EXPECT_TRUE(e.counters & (1u << a[i].counter)) << e.name << " on counter " << a[i].counter;
        for (std::size_t j = 0; j < i; ++j)
            EXPECT_FALSE(a[j].socket == a[i].socket && a[j].kind == a[i].kind &&
                         a[j].unit == a[i].unit && a[j].counter == a[i].counter)
                << events[a[i].event].name << " and " << events[a[j].event].name << " share a counter";
    }
}

using counters = std::vector<unsigned>;

// ---------------------------------------------------------------------------
// Placement

TEST(SchedulerPlacement, PcmQpiEventsFillAPortInOrder) {
    const auto events = parse_all({"qpi0/RxL_FLITS_G1.DRS_DATA", "qpi0/RxL_FLITS_G2.NCB_DATA",
                                   "qpi0/TxL_FLITS_G0.DATA|NON_DATA", "qpi0/CLOCKTICKS",
                                   "qpi1/RxL_FLITS_G1.DRS_DATA", "qpi1/CLOCKTICKS"});
    const auto a = schedule(events, 1);
    ASSERT_EQ(a.size(), 6u);
    expect_valid(events, a);
    EXPECT_EQ(counters_on_socket0(a, events.size()), (counters{0, 1, 2, 3, 0, 1}));
    EXPECT_EQ(a[4].kind, box_kind::qpi);
    EXPECT_EQ(a[4].unit, 1u);
}

TEST(SchedulerPlacement, R2pcieCatalogConstraintsAreHonoured) {
    const auto events = parse_all({"r2pcie/CLOCKTICKS", "r2pcie/RING_AD_USED.CW",
                                   "r2pcie/IIO_CREDITS_USED.DRS", "r2pcie/RxR_OCCUPANCY.DRS"});
    const auto a = schedule(events, 1);
    expect_valid(events, a);
    // RxR_OCCUPANCY only on 0, IIO_CREDITS_USED on 0-1: both moved there.
    EXPECT_EQ(counters_on_socket0(a, events.size()), (counters{2, 3, 1, 0}));
}

// First-fit would give IIO_CREDITS_USED counter 0 and then find no counter
// for RxR_OCCUPANCY; the matching moves IIO_CREDITS_USED to counter 1.
TEST(SchedulerPlacement, MatchingSucceedsWhereFirstFitFails) {
    const auto two = parse_all({"r2pcie/IIO_CREDITS_USED.DRS", "r2pcie/RxR_OCCUPANCY.DRS"});
    EXPECT_EQ(counters_on_socket0(schedule(two, 1), 2), (counters{1, 0}));

    // Longer chain: CLOCKTICKS and RING take 0 and 1 first-fit, leaving
    // IIO_CREDITS (0-1) and TxR_CYCLES_NE (0) nowhere.
    const auto four = parse_all({"r2pcie/CLOCKTICKS", "r2pcie/RING_BL_USED.ANY",
                                 "r2pcie/IIO_CREDITS_ACQUIRED.NCB", "r2pcie/TxR_CYCLES_NE.AD"});
    const auto a = schedule(four, 1);
    expect_valid(four, a);
    const auto c = counters_on_socket0(a, 4);
    EXPECT_EQ(c[3], 0u);
    EXPECT_EQ(c[2], 1u);
    EXPECT_EQ((c[0] == 2 && c[1] == 3) || (c[0] == 3 && c[1] == 2), true);

    // The same on snb-ep, where TxR_CYCLES_FULL is counter 0 only too.
    const auto snb_events = parse_all({"r2pcie/IIO_CREDITS_REJECT.NCS", "r2pcie/CLOCKTICKS",
                                       "r2pcie/TxR_CYCLES_FULL.BL"},
                                      snb);
    const auto s = schedule(snb_events, 1);
    expect_valid(snb_events, s);
    EXPECT_EQ(counters_on_socket0(s, 3), (counters{1, 2, 0}));
}

TEST(SchedulerPlacement, FixedCounterIsSeparateFromTheGeneralCounters) {
    const auto events =
        parse_all({"ubox/UCLK", "ubox/EVENT_MSG.VLW_RCVD", "uncore_ubox/event=0x44/"});
    const auto a = schedule(events, 1);
    ASSERT_EQ(a.size(), 3u);
    expect_valid(events, a);
    EXPECT_EQ(a[0].kind, box_kind::ubox_fixed);
    EXPECT_EQ(a[0].counter, 0u);
    EXPECT_EQ(a[1].kind, box_kind::ubox);
    EXPECT_EQ(a[1].counter, 0u);
    EXPECT_EQ(a[2].kind, box_kind::ubox);
    EXPECT_EQ(a[2].counter, 1u);
}

TEST(SchedulerPlacement, EveryEventOnEverySocketUnlessItNamesOne) {
    const auto events = parse_all({"qpi0/CLOCKTICKS", "r2pcie/RxR_OCCUPANCY.DRS,socket=1",
                                   "r2pcie/RxR_AK_BOUNCES,socket=0"});
    const auto a = schedule(events, 2);
    ASSERT_EQ(a.size(), 4u);
    expect_valid(events, a);
    // Ordered by socket, then event.
    EXPECT_EQ(a[0].socket, 0u);
    EXPECT_EQ(a[0].event, 0u);
    EXPECT_EQ(a[1].socket, 0u);
    EXPECT_EQ(a[1].event, 2u);
    EXPECT_EQ(a[1].counter, 0u);
    EXPECT_EQ(a[2].socket, 1u);
    EXPECT_EQ(a[2].event, 0u);
    EXPECT_EQ(a[3].socket, 1u);
    EXPECT_EQ(a[3].event, 1u);
    EXPECT_EQ(a[3].counter, 0u);
}

TEST(SchedulerPlacement, EmptyListSchedulesNothing) {
    EXPECT_TRUE(schedule({}, 2).empty());
}

// ---------------------------------------------------------------------------
// Refusals

TEST(SchedulerRefusal, TooManyEventsForABox) {
    EXPECT_EQ(error_of({"qpi0/CLOCKTICKS", "qpi0/RxL_FLITS_G1.DRS_DATA", "qpi0/RxL_FLITS_G2.NCB_DATA",
                        "qpi0/TxL_FLITS_G0.DATA", "qpi0/CTO_COUNT", "qpi1/CLOCKTICKS"}),
              "qpi0: 5 events but 4 counters: CLOCKTICKS, RxL_FLITS_G1.DRS_DATA, "
              "RxL_FLITS_G2.NCB_DATA, TxL_FLITS_G0.DATA and CTO_COUNT");
    EXPECT_EQ(error_of({"ubox/LOCK_CYCLES", "ubox/EVENT_MSG.MSI_RCVD", "ubox/EVENT_MSG.IPI_RCVD",
                        "ubox/UCLK"}),
              "ubox: 3 events but 2 counters: LOCK_CYCLES, EVENT_MSG.MSI_RCVD and "
              "EVENT_MSG.IPI_RCVD");
    EXPECT_EQ(error_of({"ubox/UCLK", "uncore_ubox/event=0xff/"}),
              "ubox_fixed: 2 events but 1 counter: UCLK and UCLK");
}

TEST(SchedulerRefusal, EventsThatNeedTheSameCounter) {
    EXPECT_EQ(error_of({"r2pcie/RxR_OCCUPANCY.DRS", "r2pcie/RxR_AK_BOUNCES"}),
              "r2pcie: RxR_OCCUPANCY.DRS and RxR_AK_BOUNCES both need counter 0");
    EXPECT_EQ(error_of({"r2pcie/TxR_CYCLES_NE.AD", "r2pcie/TxR_CYCLES_FULL.AD",
                        "r2pcie/RxR_OCCUPANCY.DRS"}),
              "r2pcie: TxR_CYCLES_NE.AD, TxR_CYCLES_FULL.AD and RxR_OCCUPANCY.DRS all need "
              "counter 0");
    EXPECT_EQ(error_of({"r2pcie/IIO_CREDITS_USED.DRS", "r2pcie/IIO_CREDITS_ACQUIRED.DRS",
                        "r2pcie/RxR_INSERTS.NCB"}),
              "r2pcie: IIO_CREDITS_USED.DRS, IIO_CREDITS_ACQUIRED.DRS and RxR_INSERTS.NCB need "
              "counters 0-1 (3 events for 2 counters)");
    // Only the events that cannot share are named, not CLOCKTICKS, which could move.
    EXPECT_EQ(error_of({"r2pcie/CLOCKTICKS", "r2pcie/TxR_CYCLES_NE.AD", "r2pcie/RxR_OCCUPANCY.DRS"}),
              "r2pcie: TxR_CYCLES_NE.AD and RxR_OCCUPANCY.DRS both need counter 0");
    EXPECT_EQ(error_of({"r2pcie/TxR_CYCLES_NE.AD", "r2pcie/RxR_AK_BOUNCES"}, 1, snb),
              "r2pcie: TxR_CYCLES_NE.AD and RxR_AK_BOUNCES both need counter 0");
}

// ---------------------------------------------------------------------------
// The QPI packet filter, one per port

TEST(SchedulerFilter, IdenticalFiltersShareThePort) {
    const auto events = parse_all({"qpi0/CTO_COUNT:DRS.AnyDataC",
                                   "uncore_qpi_0/event=0x138,match_mc=0xe,mask_mc=0xf,mask_opc=0xc,"
                                   "thresh=2/",
                                   "qpi0/MESSAGE.DRS.AnyDataC,thresh=1,edge", "qpi0/CLOCKTICKS"});
    const auto a = schedule(events, 1);
    ASSERT_EQ(a.size(), 4u);
    expect_valid(events, a);
}

TEST(SchedulerFilter, DifferentFiltersOnOnePortAreRefused) {
    EXPECT_EQ(error_of({"qpi0/CTO_COUNT:DRS.AnyDataC", "qpi0/CLOCKTICKS", "qpi0/CTO_COUNT:DRS.DataC_M"}),
              "qpi0: CTO_COUNT filters differ: CTO_COUNT:DRS.AnyDataC and CTO_COUNT:DRS.DataC_M "
              "(a QPI port has one match/mask filter)");
    // An unfiltered CTO_COUNT (MASK 0: every packet) is a filter too.
    EXPECT_EQ(error_of({"qpi1/CTO_COUNT", "qpi1/CTO_COUNT,match_dnid=1,mask_dnid=0x1f"}),
              "qpi1: CTO_COUNT filters differ: CTO_COUNT and "
              "CTO_COUNT,match=0x2000,mask=0x3e000 (a QPI port has one match/mask filter)");
    // Filters only differing in a don't-care MATCH bit still differ, as in Linux.
    EXPECT_EQ(error_of({"qpi0/CTO_COUNT,match_mc=0xe,mask_mc=0xf",
                        "qpi0/CTO_COUNT,match_mc=0xe,mask_mc=0xf,match_vnw=1"}),
              "qpi0: CTO_COUNT filters differ: CTO_COUNT:DRS.AnyResp and "
              "CTO_COUNT,match=0x1c08,mask=0x1e00 (a QPI port has one match/mask filter)");
}

// The PCU's band filter: one byte per band (decisions.md B11).
TEST(SchedulerFilter, BandEventsShareABandOnlyWithItsByte) {
    const auto events = parse_all({"pcu/FREQ_BAND0_CYCLES,filter_band0=10", "pcu/FREQ_BAND1_CYCLES,filter_band1=20",
                                   "pcu/FREQ_BAND1_CYCLES,filter_band1=20,thresh=1,edge", "pcu/CLOCKTICKS"});
    const auto a = schedule(events, 1);
    ASSERT_EQ(a.size(), 4u);
    expect_valid(events, a);
    EXPECT_EQ(error_of({"pcu/FREQ_BAND1_CYCLES,filter_band1=20", "pcu/FREQ_BAND1_CYCLES,filter_band1=30,thresh=1"}),
              "pcu: band filters differ: FREQ_BAND1_CYCLES,filter_band1=20 and "
              "FREQ_BAND1_CYCLES,thresh=1,filter_band1=30 (the band filter has one byte per band)");
}

// B14: a caching agent has one filter: events agree on the fields both
// compare; fields only one of them compares are free.
TEST(SchedulerFilter, RequestFiltersAgreeWhereTheirEventsCompareTheSameField) {
    const auto events = parse_all({"cbo0/LLC_LOOKUP.DATA_READ,filter_state2=0x8", "cbo0/TOR_INSERTS.OPCODE,filter_opc2=0x182",
                                   "cbo1/LLC_LOOKUP.DATA_READ,filter_state2=0x1", "cbo0/RING_AD_USED.UP_VR0_EVEN"});
    const auto a = schedule(events, 1);
    ASSERT_EQ(a.size(), 4u);
    expect_valid(events, a);
    EXPECT_EQ(error_of({"cbo0/LLC_LOOKUP.DATA_READ,filter_state2=0x8", "cbo0/LLC_LOOKUP.WRITE,filter_state2=0x1"}),
              "cbo0: request filters differ: LLC_LOOKUP.DATA_READ,filter_state2=0x8 and "
              "LLC_LOOKUP.WRITE,filter_state2=0x1 (the box has one filter)");
    EXPECT_EQ(error_of({"cbo0/LLC_LOOKUP.DATA_READ,filter_state2=0x8", "cbo0/LLC_LOOKUP.NID,filter_state2=0x8,filter_nid2=1",
                        "cbo0/TOR_INSERTS.NID_ALL,filter_nid2=2"}),
              "cbo0: request filters differ: LLC_LOOKUP.NID,filter_state2=0x8,filter_nid2=0x1 and "
              "TOR_INSERTS.NID_ALL,filter_nid2=0x2 (the box has one filter)");
}

TEST(SchedulerFilter, EachPortHasItsOwnFilter) {
    const auto events = parse_all({"qpi0/CTO_COUNT:DRS.AnyDataC", "qpi1/CTO_COUNT:DRS.DataC_M",
                                   "qpi2/CTO_COUNT:NCB.AnyInt"},
                                  ivb, 3);
    const auto a = schedule(events, 2);
    ASSERT_EQ(a.size(), 6u);
    expect_valid(events, a);
    EXPECT_EQ(a[2].unit, 2u);
    EXPECT_EQ(a[2].counter, 0u);
}

// ---------------------------------------------------------------------------
// Inputs the scheduler checks itself

TEST(SchedulerRefusal, SocketsAndPersonalities) {
    EXPECT_EQ(error_of({"qpi0/CLOCKTICKS,socket=2"}, 2),
              "qpi0/CLOCKTICKS,socket=2: socket 2 does not exist (2 sockets)");
    EXPECT_EQ(error_of({"qpi0/CLOCKTICKS"}, 0), "no sockets to schedule on");
    // With socket-specific events, the box is named with its socket.
    EXPECT_EQ(error_of({"r2pcie/RxR_OCCUPANCY.DRS", "r2pcie/RxR_AK_BOUNCES,socket=1"}, 2),
              "socket 1 r2pcie: RxR_OCCUPANCY.DRS and RxR_AK_BOUNCES,socket=1 both need counter 0");
    std::vector<event_spec> mixed = {parse_event("qpi0/CLOCKTICKS", snb, 2),
                                     parse_event("qpi0/CLOCKTICKS", ivb, 2)};
    try {
        schedule(mixed, 1);
        FAIL() << "mixed personalities accepted";
    } catch (const schedule_error& e) {
        EXPECT_STREQ(e.what(), "events for different CPU personalities: qpi0/CLOCKTICKS (snb-ep) "
                               "and qpi0/CLOCKTICKS (ivb-ep)");
    }
}

}  // namespace
}  // namespace pmonsim::driver
