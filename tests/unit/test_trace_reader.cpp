// The text trace formats (testbench/trace/trace_reader.h): packet traces and
// event traces, every column and value form, every error with its exact
// "FILE:LINE:COLUMN: reason", the time order across clocks, merging, and a
// 1,000,000-row stream read without storing it.
//
// Clocks unless a test says otherwise: UCLK 2 GHz (cycle k at k * 0.5 ns),
// QCLK 1 GHz (cycle k at k ns).
#include <gtest/gtest.h>

// The reader lives in testbench/trace (library pmonsim_trace). Until this test
// target sees that directory, the suite reports itself as skipped instead of
// breaking the build.

#include <cstdio>
#include <cstring>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>
#include <vector>

#include "catalog/catalog.h"
#include "trace/trace_reader.h"
#include "heap_in_use.h"
#include "trace_test_context.h"

namespace pmonsim::trace {
namespace {

trace_context ivb_ctx(unsigned sockets = 1, unsigned ports = 2) { return test_trace_context(sockets, ports); }

trace_context snb_ctx() {
    trace_context c = ivb_ctx();
    c.cpu = cpu_model::snb_ep;
    return c;
}

std::vector<packet_record> packets(const std::string& text, const trace_context& ctx = ivb_ctx()) {
    std::istringstream in(text);
    trace_reader r(in, "p.csv", ctx);
    EXPECT_EQ(r.kind(), trace_kind::packets);
    std::vector<packet_record> out;
    packet_record p;
    while (r.next(p)) out.push_back(p);
    EXPECT_EQ(r.records(), out.size());
    return out;
}

std::vector<event_record> events(const std::string& text, const trace_context& ctx = ivb_ctx()) {
    std::istringstream in(text);
    trace_reader r(in, "e.csv", ctx);
    EXPECT_EQ(r.kind(), trace_kind::events);
    std::vector<event_record> out;
    event_record e;
    while (r.next(e)) out.push_back(e);
    return out;
}

// The what() of reading the whole text, or "no error".
std::string error_of(const std::string& text, const std::string& file,
                     const trace_context& ctx = ivb_ctx()) {
    std::istringstream in(text);
    try {
        validate_trace(in, file, ctx);
    } catch (const trace_error& e) {
        return e.what();
    }
    return "no error";
}

unsigned input(box_kind box, const std::string& event, const std::string& sub,
               cpu_model cpu = cpu_model::ivb_ep) {
    auto i = catalog_for(box, cpu).find_input(event, sub);
    EXPECT_TRUE(i.has_value()) << event << "." << sub;
    return i.value_or(~0u);
}

std::string input_name(const event_record& e, cpu_model cpu = cpu_model::ivb_ep) {
    return catalog_for(e.kind, cpu).input_name(e.input);
}

// ---------------------------------------------------------------------------
// Lines, comments, whitespace, case

TEST(TraceFormat, CommentsBlankLinesCrLfBomWhitespaceAndCase) {
    const std::string text =
        "\xEF\xBB\xBF# a packet trace\r\n"
        "\r\n"
        "   # indented comment\r\n"
        " TIME ,\tPort, Dir ,MC\r\n"
        "  \t \r\n"
        " 1 , 0 ,\tRx , ndr \r\n"
        "#1,0,rx,ndr\r\n"
        "2,1,TX,Drs";  // no final line end
    auto p = packets(text);
    ASSERT_EQ(p.size(), 2u);
    EXPECT_EQ(p[0].line, 6u);
    EXPECT_EQ(p[0].time, 1000u);
    EXPECT_EQ(p[0].port, 0u);
    EXPECT_EQ(p[0].dir, qpi_dir::rx);
    EXPECT_EQ(p[0].packet.mc, qpi_mc::ndr);
    EXPECT_EQ(p[1].line, 8u);
    EXPECT_EQ(p[1].time, 2000u);
    EXPECT_EQ(p[1].port, 1u);
    EXPECT_EQ(p[1].dir, qpi_dir::tx);
    EXPECT_EQ(p[1].packet.mc, qpi_mc::drs);
}

TEST(TraceFormat, ColumnsInAnyOrderAndHeaderOnlyFile) {
    auto p = packets("mc,dir,port,cycle\nSNP,tx,1,7\n");
    ASSERT_EQ(p.size(), 1u);
    EXPECT_EQ(p[0].packet.mc, qpi_mc::snp);
    EXPECT_EQ(p[0].dir, qpi_dir::tx);
    EXPECT_EQ(p[0].port, 1u);
    EXPECT_EQ(p[0].cycle, 7u);
    EXPECT_TRUE(packets("time,port,dir,mc\n# nothing yet\n").empty());
    EXPECT_TRUE(events("count,event,box,cycle\n").empty());
}

TEST(TraceFormat, KindComesFromTheHeader) {
    std::istringstream a("time,port,dir,mc\n"), b("cycle,box,event,count\n");
    EXPECT_EQ(trace_reader(a, "a", ivb_ctx()).kind(), trace_kind::packets);
    EXPECT_EQ(trace_reader(b, "b", ivb_ctx()).kind(), trace_kind::events);
    // The typed next() of the other kind is a programming error.
    std::istringstream c("time,port,dir,mc\n1,0,rx,ndr\n");
    trace_reader r(c, "c", ivb_ctx());
    event_record e;
    EXPECT_THROW(r.next(e), std::logic_error);
}

TEST(TraceFormat, ErrorCarriesFileLineColumnAndReason) {
    std::istringstream in("time,port,dir,mc\n\n1,0,rxx,ndr\n");
    trace_reader r(in, "trace.csv", ivb_ctx());
    packet_record p;
    try {
        r.next(p);
        FAIL() << "no error";
    } catch (const trace_error& e) {
        EXPECT_STREQ(e.what(), "trace.csv:3:3: column 'dir': 'rxx' is not rx or tx");
        EXPECT_EQ(e.file(), "trace.csv");
        EXPECT_EQ(e.line(), 3u);
        EXPECT_EQ(e.column(), 3u);
        EXPECT_EQ(e.reason(), "column 'dir': 'rxx' is not rx or tx");
        const std::runtime_error& base = e;  // a std::runtime_error
        EXPECT_NE(std::string(base.what()).find("rxx"), std::string::npos);
    }
}

TEST(TraceFormat, LongValuesAreCutInMessages) {
    const std::string v(60, 'x');
    EXPECT_EQ(error_of("time,port,dir,mc\n1,0," + v + ",ndr\n", "p.csv"),
              "p.csv:2:3: column 'dir': '" + std::string(48, 'x') + "...' is not rx or tx");
}

TEST(TraceFormat, OverlongLineIsAnError) {
    const std::string v(trace_reader::max_line_length + 1, 'x');
    EXPECT_EQ(error_of("time,port,dir,mc\n" + v + "\n", "p.csv"),
              "p.csv:2: line is longer than 65536 characters");
    // A line of exactly the limit is fine (it then fails on its content).
    const std::string w(trace_reader::max_line_length, 'y');
    EXPECT_EQ(error_of("time,port,dir,mc\n" + w + "\n", "p.csv"),
              "p.csv:2:2: row has 1 fields but the header has 4: no value for column 'port'");
}

// ---------------------------------------------------------------------------
// Header

TEST(TraceHeader, Errors) {
    struct bad_header {
        std::string text, what;
    };
    const std::vector<bad_header> cases = {
        {"", "h.csv: no header row (the file is empty or only comments)"},
        {"# only a comment\n\n   \n", "h.csv: no header row (the file is empty or only comments)"},
        {"time,port,dir,mc,flit\n",
         "h.csv:1:5: header: unknown column 'flit' (a packet trace has columns time, cycle, "
         "socket, port, dir, mc, opc, vn, rnid, dnid, rds, flits, ring)"},
        {"# c\n\ntime,port,dir,mcx\n",
         "h.csv:3:4: header: unknown column 'mcx' (a packet trace has columns time, cycle, "
         "socket, port, dir, mc, opc, vn, rnid, dnid, rds, flits, ring)"},
        {"time,box,event,count,port\n",
         "h.csv:1:5: header: unknown column 'port' (an event trace has columns time, cycle, "
         "socket, box, event, count, umask, ext, repeat, state, nid, opc, addr, tid)"},
        {"time,box,event,count,flits\n",
         "h.csv:1:5: header: unknown column 'flits' (an event trace has columns time, cycle, "
         "socket, box, event, count, umask, ext, repeat, state, nid, opc, addr, tid)"},
        {"time,port,Port,dir,mc\n", "h.csv:1:3: header: duplicate column 'port' (also column 2)"},
        {"time,port, ,dir,mc\n", "h.csv:1:3: header: column 3 has no name"},
        {"time,box,event,mc,dir,count\n",
         "h.csv:1: header: mixes event-trace columns (box, event) and packet-trace columns "
         "(mc, dir)"},
        {"time,port,count\n",
         "h.csv:1: header: neither a packet trace (needs columns mc and dir) nor an event trace "
         "(needs columns box and event)"},
        {"time,port,dir,cycle,mc\n",
         "h.csv:1:4: header: columns 'time' and 'cycle' exclude each other: give one"},
        {"cycle,port,dir,time,mc\n",
         "h.csv:1:4: header: columns 'time' and 'cycle' exclude each other: give one"},
        {"port,dir,mc\n", "h.csv:1: header: needs a 'time' or a 'cycle' column"},
        {"time,dir,mc\n", "h.csv:1: header: packet trace needs column 'port'"},
        {"time,port,mc\n", "h.csv:1: header: packet trace needs column 'dir'"},
        {"time,port,dir\n", "h.csv:1: header: packet trace needs column 'mc'"},
        {"time,event,count\n", "h.csv:1: header: event trace needs column 'box'"},
        {"time,box,count\n", "h.csv:1: header: event trace needs column 'event'"},
        {"time,box,event\n", "h.csv:1: header: event trace needs column 'count'"},
    };
    for (const auto& c : cases) {
        std::istringstream in(c.text);
        try {
            trace_reader r(in, "h.csv", ivb_ctx());
            ADD_FAILURE() << "no error for: " << c.text;
        } catch (const trace_error& e) {
            EXPECT_EQ(std::string(e.what()), c.what) << c.text;
        }
    }
}

TEST(TraceHeader, RowsMustHaveTheHeaderFieldCount) {
    EXPECT_EQ(error_of("time,port,dir,mc\n1,0,rx,ndr,5\n", "p.csv"),
              "p.csv:2:5: row has 5 fields but the header has 4");
    EXPECT_EQ(error_of("time,port,dir,mc\n1,0,rx,ndr,\n", "p.csv"),
              "p.csv:2:5: row has 5 fields but the header has 4");
    EXPECT_EQ(error_of("time,port,dir,mc\n1,0,rx\n", "p.csv"),
              "p.csv:2:4: row has 3 fields but the header has 4: no value for column 'mc'");
}

TEST(TraceHeader, BadContextIsRejected) {
    std::istringstream in("time,port,dir,mc\n");
    trace_context c = ivb_ctx();
    c.sockets = 0;
    EXPECT_THROW(trace_reader(in, "x", c), std::invalid_argument);
    c = ivb_ctx(1, 4);
    EXPECT_THROW(trace_reader(in, "x", c), std::invalid_argument);
    c = ivb_ctx();
    c.qclk_hz = 0;
    EXPECT_THROW(trace_reader(in, "x", c), std::invalid_argument);
}

// ---------------------------------------------------------------------------
// Packet traces: values

TEST(TracePackets, EveryColumnWithNamedValues) {
    auto p = packets(
        "time,socket,port,dir,mc,opc,vn,rnid,dnid,rds,flits,ring\n"
        "0,0,0,rx,HOM0,0,VN0,0,0,I,,\n"
        "12.5,1,1,TX,drs,0x8,vna,31,0x1F,M,,\n"
        "13,1,0,tx,NDR,3,Vn1,5,6,e,,ad\n"
        "13,0,1,rx,ndr,,,,,,,AK\n",
        ivb_ctx(2, 2));
    ASSERT_EQ(p.size(), 4u);
    EXPECT_EQ(p[0].time, 0u);
    EXPECT_EQ(p[0].cycle, 0u);
    EXPECT_EQ(p[0].socket, 0u);
    EXPECT_EQ(p[0].packet.mc, qpi_mc::hom0);
    EXPECT_EQ(unsigned{p[0].packet.flits}, 1u);
    EXPECT_FALSE(p[0].packet.ring_ad);

    EXPECT_EQ(p[1].line, 3u);
    EXPECT_EQ(p[1].time, 12500u);
    EXPECT_EQ(p[1].cycle, 13u);  // first QCLK cycle at or after 12.5 ns
    EXPECT_EQ(p[1].socket, 1u);
    EXPECT_EQ(p[1].port, 1u);
    EXPECT_EQ(p[1].dir, qpi_dir::tx);
    EXPECT_EQ(p[1].packet.mc, qpi_mc::drs);
    EXPECT_EQ(p[1].packet.opc, 8);
    EXPECT_EQ(p[1].packet.vn, 2);
    EXPECT_EQ(p[1].packet.rnid, 31);
    EXPECT_EQ(p[1].packet.dnid, 31);
    EXPECT_EQ(p[1].packet.rds, 8);
    EXPECT_EQ(unsigned{p[1].packet.flits}, 11u);  // DRS with OPC[3] = 1

    EXPECT_EQ(p[2].cycle, 13u);
    EXPECT_EQ(p[2].packet.mc, qpi_mc::ndr);
    EXPECT_EQ(p[2].packet.opc, 3);
    EXPECT_EQ(p[2].packet.vn, 1);
    EXPECT_EQ(p[2].packet.rnid, 5);
    EXPECT_EQ(p[2].packet.dnid, 6);
    EXPECT_EQ(p[2].packet.rds, 4);
    EXPECT_TRUE(p[2].packet.ring_ad);

    // Empty optional fields take their defaults.
    EXPECT_EQ(p[3].packet.opc, 0);
    EXPECT_EQ(p[3].packet.vn, 0);
    EXPECT_EQ(p[3].packet.rnid, 0);
    EXPECT_EQ(p[3].packet.rds, 0);
    EXPECT_FALSE(p[3].packet.ring_ad);
}

TEST(TracePackets, MessageClassNamesAndNumbers) {
    auto p = packets(
        "cycle,port,dir,mc\n"
        "0,0,rx,HOM0\n0,0,rx,HOM1\n0,0,rx,SNP\n0,0,rx,NDR\n0,0,rx,NCS\n0,0,rx,NCB\n"
        "0,0,rx,DRS\n0,0,rx,0\n0,0,rx,15\n0,0,rx,0xe\n0,0,rx,5\n");
    const std::vector<unsigned> want = {0, 1, 3, 2, 4, 12, 14, 0, 15, 14, 5};
    ASSERT_EQ(p.size(), want.size());
    for (std::size_t i = 0; i < want.size(); ++i) EXPECT_EQ(p[i].packet.mc, want[i]) << i;
}

TEST(TracePackets, VirtualNetworkAndResponseStateForms) {
    auto p = packets(
        "cycle,port,dir,mc,vn,rds\n"
        "0,0,rx,DRS,VN0,I\n0,0,rx,DRS,VN1,F\n0,0,rx,DRS,VNA,S\n0,0,rx,DRS,3,E\n"
        "0,0,rx,DRS,0x2,M\n0,0,rx,DRS,1,15\n0,0,rx,DRS,vna,0x3\n");
    const std::vector<unsigned> vn = {0, 1, 2, 3, 2, 1, 2};
    const std::vector<unsigned> rds = {0, 1, 2, 4, 8, 15, 3};
    ASSERT_EQ(p.size(), vn.size());
    for (std::size_t i = 0; i < vn.size(); ++i) {
        EXPECT_EQ(p[i].packet.vn, vn[i]) << i;
        EXPECT_EQ(p[i].packet.rds, rds[i]) << i;
    }
}

TEST(TracePackets, FlitsDefaultToTheClassSizeAndCanBeGiven) {
    auto p = packets(
        "cycle,port,dir,mc,opc,flits\n"
        "0,0,rx,HOM0,,\n0,0,rx,HOM1,8,\n0,0,rx,SNP,,\n0,0,rx,NDR,,\n"
        "0,0,rx,NCS,0,\n0,0,rx,NCS,8,\n0,0,rx,NCB,0,\n0,0,rx,NCB,8,\n"
        "0,0,rx,DRS,7,\n0,0,rx,DRS,15,\n0,0,rx,DRS,0,5\n0,0,rx,NDR,,2\n0,0,rx,DRS,,65535\n");
    const std::vector<unsigned> want = {1, 1, 1, 1, 1, 3, 9, 11, 9, 11, 5, 2, 65535};
    ASSERT_EQ(p.size(), want.size());
    for (std::size_t i = 0; i < want.size(); ++i) {
        EXPECT_EQ(unsigned{p[i].packet.flits}, want[i]) << i;
        // Filling the size in explicitly does not change the packet's shape.
        qpi_packet dflt = p[i].packet;
        dflt.flits = 0;
        if (i < 10) {
            EXPECT_EQ(shape_of(p[i].packet).data, shape_of(dflt).data) << i;
        }
    }
}

// Each value in a file of its own (the list is not in time order).
TEST(TracePackets, TimeInNanosecondsRoundsHalfUpToPicoseconds) {
    struct tv {
        std::string text;
        time_ps ps;
    };
    const std::vector<tv> cases = {
        {"0", 0},          {"0.001", 1},       {"0.0004999", 0},       {"0.0005", 1},
        {"1.2344", 1234},  {"1.2345", 1235},   {"1.23449", 1234},      {"1.9995", 2000},
        {"7", 7000},       {"007.10", 7100},   {"999.999", 999999},    {"12.5", 12500},
        {"18446744073709551.615", 18446744073709551615ull},
        {"18446744073709551.6154", 18446744073709551615ull},
    };
    for (const auto& c : cases) {
        auto p = packets("time,port,dir,mc\n" + c.text + ",0,rx,NDR\n");
        ASSERT_EQ(p.size(), 1u) << c.text;
        EXPECT_EQ(p[0].time, c.ps) << c.text;
    }
}

TEST(TracePackets, CycleRowsUseQclkAndTimeRowsGetTheirCycle) {
    auto p = packets("cycle,port,dir,mc\n0,0,rx,NDR\n7,0,rx,NDR\n0x10,1,tx,DRS\n");
    ASSERT_EQ(p.size(), 3u);
    EXPECT_EQ(p[1].cycle, 7u);
    EXPECT_EQ(p[1].time, 7000u);
    EXPECT_EQ(p[2].cycle, 16u);
    EXPECT_EQ(p[2].time, 16000u);

    // 7.2 GT/s: QCLK 0.9 GHz, cycle k starts at floor(k * 1111.1) ps.
    trace_context c = ivb_ctx();
    c.qclk_hz = 900000000ull;
    p = packets("cycle,port,dir,mc\n1,0,rx,NDR\n9,0,rx,NDR\n", c);
    EXPECT_EQ(p[0].time, 1111u);
    EXPECT_EQ(p[1].time, 10000u);
    p = packets("time,port,dir,mc\n1.111,0,rx,NDR\n1.112,0,rx,NDR\n10,0,rx,NDR\n", c);
    EXPECT_EQ(p[0].cycle, 1u);   // 1111 ps is the start of cycle 1
    EXPECT_EQ(p[1].cycle, 2u);   // 1112 ps is inside cycle 1: the next start is cycle 2
    EXPECT_EQ(p[2].cycle, 9u);
}

TEST(TracePackets, ThirdPortOnlyWhenConfigured) {
    EXPECT_EQ(packets("time,port,dir,mc\n1,2,rx,NDR\n", ivb_ctx(1, 3))[0].port, 2u);
    EXPECT_EQ(error_of("time,port,dir,mc\n1,2,rx,NDR\n", "p.csv"),
              "p.csv:2:2: column 'port': '2' is not a QPI port of this machine (2 ports: 0-1)");
}

// ---------------------------------------------------------------------------
// Packet traces: errors

TEST(TracePackets, ValueErrors) {
    // Columns: time 1, socket 2, port 3, dir 4, mc 5, opc 6, vn 7, rnid 8, dnid 9,
    // rds 10, flits 11, ring 12.
    const std::string header = "time,socket,port,dir,mc,opc,vn,rnid,dnid,rds,flits,ring\n";
    struct bad_row {
        std::string row, what;
    };
    const std::vector<bad_row> cases = {
        {"1,0,0,rxx,NDR,,,,,,,", "p.csv:2:4: column 'dir': 'rxx' is not rx or tx"},
        {"1,0,0,,NDR,,,,,,,", "p.csv:2:4: column 'dir': value is missing"},
        {"1,1,0,rx,NDR,,,,,,,",
         "p.csv:2:2: column 'socket': '1' is not a socket of this machine (1 socket: 0)"},
        {"1,x,0,rx,NDR,,,,,,,",
         "p.csv:2:2: column 'socket': 'x' is not a socket of this machine (1 socket: 0)"},
        {"1,0,2,rx,NDR,,,,,,,",
         "p.csv:2:3: column 'port': '2' is not a QPI port of this machine (2 ports: 0-1)"},
        {"1,0,-1,rx,NDR,,,,,,,",
         "p.csv:2:3: column 'port': '-1' is not a QPI port of this machine (2 ports: 0-1)"},
        {"1,0,,rx,NDR,,,,,,,", "p.csv:2:3: column 'port': value is missing"},
        {"1,0,0,rx,XYZ,,,,,,,",
         "p.csv:2:5: column 'mc': 'XYZ' is not a message class (HOM0, HOM1, SNP, NDR, NCS, NCB, "
         "DRS or 0-15)"},
        {"1,0,0,rx,16,,,,,,,",
         "p.csv:2:5: column 'mc': '16' is not a message class (HOM0, HOM1, SNP, NDR, NCS, NCB, "
         "DRS or 0-15)"},
        {"1,0,0,rx,,,,,,,,", "p.csv:2:5: column 'mc': value is missing"},
        {"1,0,0,rx,NDR,16,,,,,,", "p.csv:2:6: column 'opc': '16' is not an opcode (0-15)"},
        {"1,0,0,rx,NDR,0x,,,,,,", "p.csv:2:6: column 'opc': '0x' is not an opcode (0-15)"},
        {"1,0,0,rx,NDR,,VN2,,,,,",
         "p.csv:2:7: column 'vn': 'VN2' is not a virtual network (VN0, VN1, VNA or 0-3)"},
        {"1,0,0,rx,NDR,,4,,,,,",
         "p.csv:2:7: column 'vn': '4' is not a virtual network (VN0, VN1, VNA or 0-3)"},
        {"1,0,0,rx,NDR,,,32,,,,", "p.csv:2:8: column 'rnid': '32' is not a node ID (0-31)"},
        {"1,0,0,rx,NDR,,,,-1,,,", "p.csv:2:9: column 'dnid': '-1' is not a node ID (0-31)"},
        {"1,0,0,rx,NDR,,,,,X,,",
         "p.csv:2:10: column 'rds': 'X' is not a response data state (I, F, S, E, M or 0-15)"},
        {"1,0,0,rx,NDR,,,,,16,,",
         "p.csv:2:10: column 'rds': '16' is not a response data state (I, F, S, E, M or 0-15)"},
        {"1,0,0,rx,NDR,,,,,,0,",
         "p.csv:2:11: column 'flits': '0' is not a packet size in flits (1-65535)"},
        {"1,0,0,rx,NDR,,,,,,65536,",
         "p.csv:2:11: column 'flits': '65536' is not a packet size in flits (1-65535)"},
        {"1,0,0,rx,NDR,,,,,,,BL", "p.csv:2:12: column 'ring': 'BL' is not a ring (AD or AK)"},
        {"1,0,0,rx,DRS,,,,,,,AD",
         "p.csv:2:12: column 'ring': 'AD' applies to NDR packets only (this packet's class is "
         "DRS)"},
        {"1,0,0,rx,5,,,,,,,ak",
         "p.csv:2:12: column 'ring': 'ak' applies to NDR packets only (this packet's class is "
         "MC 5)"},
        {",0,0,rx,NDR,,,,,,,", "p.csv:2:1: column 'time': value is missing"},
        {"abc,0,0,rx,NDR,,,,,,,",
         "p.csv:2:1: column 'time': 'abc' is not a time in ns (a decimal number such as 12.5)"},
        {"1e3,0,0,rx,NDR,,,,,,,",
         "p.csv:2:1: column 'time': '1e3' is not a time in ns (a decimal number such as 12.5)"},
        {"-1,0,0,rx,NDR,,,,,,,",
         "p.csv:2:1: column 'time': '-1' is not a time in ns (a decimal number such as 12.5)"},
        {"1.,0,0,rx,NDR,,,,,,,",
         "p.csv:2:1: column 'time': '1.' is not a time in ns (a decimal number such as 12.5)"},
        {".5,0,0,rx,NDR,,,,,,,",
         "p.csv:2:1: column 'time': '.5' is not a time in ns (a decimal number such as 12.5)"},
        {"1.2.3,0,0,rx,NDR,,,,,,,",
         "p.csv:2:1: column 'time': '1.2.3' is not a time in ns (a decimal number such as 12.5)"},
        {"0x10,0,0,rx,NDR,,,,,,,",
         "p.csv:2:1: column 'time': '0x10' is not a time in ns (a decimal number such as 12.5)"},
        {"18446744073709551.616,0,0,rx,NDR,,,,,,,",
         "p.csv:2:1: column 'time': '18446744073709551.616' is too large (times are 64-bit "
         "picoseconds)"},
        {"18446744073709551.6155,0,0,rx,NDR,,,,,,,",
         "p.csv:2:1: column 'time': '18446744073709551.6155' is too large (times are 64-bit "
         "picoseconds)"},
        {"99999999999999999999999,0,0,rx,NDR,,,,,,,",
         "p.csv:2:1: column 'time': '99999999999999999999999' is too large (times are 64-bit "
         "picoseconds)"},
    };
    for (const auto& c : cases)
        EXPECT_EQ(error_of(header + c.row + "\n", "p.csv"), c.what) << c.row;
}

TEST(TracePackets, CycleErrors) {
    EXPECT_EQ(error_of("cycle,port,dir,mc\nx,0,rx,NDR\n", "p.csv"),
              "p.csv:2:1: column 'cycle': 'x' is not a cycle number (a decimal or 0x hex integer)");
    EXPECT_EQ(error_of("cycle,port,dir,mc\n1.5,0,rx,NDR\n", "p.csv"),
              "p.csv:2:1: column 'cycle': '1.5' is not a cycle number (a decimal or 0x hex "
              "integer)");
    EXPECT_EQ(error_of("cycle,port,dir,mc\n18446744073709551616,0,rx,NDR\n", "p.csv"),
              "p.csv:2:1: column 'cycle': '18446744073709551616' is not a cycle number (a decimal "
              "or 0x hex integer)");
    // Cycle 18446744073709552 of a 1 GHz clock would start after 2^64 - 1 ps.
    EXPECT_EQ(error_of("cycle,port,dir,mc\n18446744073709552,0,rx,NDR\n", "p.csv"),
              "p.csv:2:1: column 'cycle': '18446744073709552' is too large (its start time does "
              "not fit in 64-bit picoseconds)");
    EXPECT_EQ(packets("cycle,port,dir,mc\n18446744073709551,0,rx,NDR\n")[0].time,
              18446744073709551000ull);
}

// ---------------------------------------------------------------------------
// Event traces: values

TEST(TraceEvents, BoxesEventNamesPrefixesAndCodes) {
    auto e = events(
        "cycle,box,event,count\n"
        "1,ubox,LOCK_CYCLES,1\n"
        "2,UBox,unc_u_lock_cycles,0\n"
        "3,ubox,0x44,1\n"
        "4,ubox,68,1\n"
        "5,qpi1,UNC_Q_TxL_INSERTS,1\n"
        "6,QPI0,RxL_OCCUPANCY,128\n"
        "7,qpi0,0x0B,127\n"
        "16,R2PCIE,UNC_R2_RxR_AK_BOUNCES.CW,1\n");
    ASSERT_EQ(e.size(), 8u);
    for (int i = 0; i < 4; ++i) {
        EXPECT_EQ(e[i].kind, box_kind::ubox) << i;
        EXPECT_EQ(e[i].box, "ubox") << i;
        EXPECT_EQ(e[i].unit, 0u) << i;
        EXPECT_EQ(input_name(e[i]), "LOCK_CYCLES") << i;
        EXPECT_EQ(e[i].input, input(box_kind::ubox, "LOCK_CYCLES", "")) << i;
        EXPECT_EQ(e[i].repeat, 1u) << i;
    }
    EXPECT_EQ(e[1].count, 0u);
    EXPECT_EQ(e[4].kind, box_kind::qpi);
    EXPECT_EQ(e[4].unit, 1u);
    EXPECT_EQ(e[4].box, "qpi1");
    EXPECT_EQ(input_name(e[4]), "TxL_INSERTS");
    EXPECT_EQ(e[5].box, "qpi0");
    EXPECT_EQ(e[5].count, 128u);
    EXPECT_EQ(input_name(e[6]), "RxL_OCCUPANCY");
    EXPECT_EQ(e[6].count, 127u);
    EXPECT_EQ(e[7].kind, box_kind::r2pcie);
    EXPECT_EQ(e[7].box, "r2pcie");
    EXPECT_EQ(input_name(e[7]), "RxR_AK_BOUNCES.CW");
    const auto& cat = catalog_for(box_kind::qpi, cpu_model::ivb_ep);
    EXPECT_EQ(cat.events()[e[6].event].name, "RxL_OCCUPANCY");
}

TEST(TraceEvents, SubEventForms) {
    auto e = events(
        "cycle,box,event,umask,ext,count\n"
        "0,qpi0,RxL_FLITS_G1.DRS_DATA,,,2\n"
        "0,qpi0,rxl_flits_g1 . drs_data,,,2\n"
        "0,qpi0,RxL_FLITS_G1,DRS_DATA,,1\n"
        "0,qpi0,RxL_FLITS_G1,0x08,,1\n"
        "0,qpi0,RxL_FLITS_G1,8,,1\n"
        "0,qpi0,RxL_FLITS_G1,bit3,,1\n"
        "0,qpi0,UNC_Q_RxL_FLITS_G1.0x08,,,1\n"
        "0,qpi0,0x02,SNP,1,1\n"          // code 0x02 with ext 1: RxL_FLITS_G1
        "0,qpi0,0x02,FULL,0,1\n"         // code 0x02 with ext 0: TxL_CRC_NO_CREDITS
        "0,qpi0,0x02,FULL,,1\n"          // ext defaults to 0
        "0,qpi0,RxL_FLITS_G1.SNP,,1,1\n" // ext agreeing with the name is fine
        "0,r2pcie,RING_AD_USED,CW_VR1_ODD,0,1\n");
    const std::vector<std::string> want = {
        "RxL_FLITS_G1.DRS_DATA", "RxL_FLITS_G1.DRS_DATA", "RxL_FLITS_G1.DRS_DATA",
        "RxL_FLITS_G1.DRS_DATA", "RxL_FLITS_G1.DRS_DATA", "RxL_FLITS_G1.DRS_DATA",
        "RxL_FLITS_G1.DRS_DATA", "RxL_FLITS_G1.SNP",      "TxL_CRC_NO_CREDITS.FULL",
        "TxL_CRC_NO_CREDITS.FULL", "RxL_FLITS_G1.SNP",    "RING_AD_USED.CW_VR1_ODD"};
    ASSERT_EQ(e.size(), want.size());
    for (std::size_t i = 0; i < want.size(); ++i) EXPECT_EQ(input_name(e[i]), want[i]) << i;
    EXPECT_EQ(e[0].input, input(box_kind::qpi, "RxL_FLITS_G1", "DRS_DATA"));
    EXPECT_EQ(e[11].input, input(box_kind::r2pcie, "RING_AD_USED", "CW_VR1_ODD"));
}

TEST(TraceEvents, PersonalityChoosesTheCatalog) {
    // TxL_FLITS_G0.IDLE exists on SNB-EP only; RING_IV_USED on SNB-EP has one
    // combination (ANY = 0x0F), so its single bits go by bitN or value.
    auto e = events(
        "cycle,box,event,count\n"
        "0,qpi0,TxL_FLITS_G0.IDLE,2\n"
        "0,r2pcie,RING_IV_USED.bit2,1\n"
        "0,r2pcie,RING_IV_USED.0x8,1\n"
        "0,ubox,MSG_CHNL_SIZE_COUNT.4B,1\n",
        snb_ctx());
    ASSERT_EQ(e.size(), 4u);
    EXPECT_EQ(input_name(e[0], cpu_model::snb_ep), "TxL_FLITS_G0.IDLE");
    EXPECT_EQ(input_name(e[1], cpu_model::snb_ep), "RING_IV_USED.bit2");
    EXPECT_EQ(input_name(e[2], cpu_model::snb_ep), "RING_IV_USED.bit3");
    EXPECT_EQ(input_name(e[3], cpu_model::snb_ep), "MSG_CHNL_SIZE_COUNT.4B");
    EXPECT_EQ(error_of("cycle,box,event,count\n0,qpi0,TxL_FLITS_G0.IDLE,2\n", "e.csv"),
              "e.csv:2:3: column 'event': 'TxL_FLITS_G0.IDLE': 'IDLE' is not a sub-event of "
              "TxL_FLITS_G0 (DATA, NON_DATA)");
    EXPECT_EQ(error_of("cycle,box,event,count\n0,r2pcie,RING_IV_USED.ANY,1\n", "e.csv", snb_ctx()),
              "e.csv:2:3: column 'event': 'RING_IV_USED.ANY': 'ANY' is a combination of several "
              "sub-events (0x0f) of RING_IV_USED: give one per row");
    EXPECT_EQ(error_of("cycle,box,event,count\n0,ubox,MSG_CHNL_SIZE_COUNT.4B,1\n", "e.csv"),
              "e.csv:2:3: column 'event': 'MSG_CHNL_SIZE_COUNT.4B' is not an event of the ubox "
              "catalog (ivb-ep)");
}

TEST(TraceEvents, SocketRepeatAndThirdPort) {
    auto e = events(
        "cycle,socket,box,event,count,repeat\n"
        "0,1,qpi2,RxL0_POWER_CYCLES,1,1000\n"
        "0,0,ubox,LOCK_CYCLES,1,0x10\n"
        "0,,ubox,LOCK_CYCLES,1,\n",
        ivb_ctx(2, 3));
    ASSERT_EQ(e.size(), 3u);
    EXPECT_EQ(e[0].socket, 1u);
    EXPECT_EQ(e[0].unit, 2u);
    EXPECT_EQ(e[0].box, "qpi2");
    EXPECT_EQ(e[0].repeat, 1000u);
    EXPECT_EQ(e[1].repeat, 16u);
    EXPECT_EQ(e[2].socket, 0u);
    EXPECT_EQ(e[2].repeat, 1u);
}

TEST(TraceEvents, TimeAndCycleUseTheBoxClock) {
    // UCLK 2 GHz: cycle k at k * 500 ps. QCLK 1 GHz: cycle k at k * 1000 ps.
    auto e = events(
        "time,box,event,count\n"
        "1.25,ubox,LOCK_CYCLES,1\n"      // UCLK: 2.5 cycles -> cycle 3
        "1.25,qpi0,TxL_INSERTS,1\n"      // QCLK: 1.25 cycles -> cycle 2
        "1.5,r2pcie,RxR_AK_BOUNCES.CW,1\n"  // UCLK cycle 3 exactly
        "2,qpi1,TxL_INSERTS,1\n");       // QCLK cycle 2 exactly
    ASSERT_EQ(e.size(), 4u);
    EXPECT_EQ(e[0].time, 1250u);
    EXPECT_EQ(e[0].cycle, 3u);
    EXPECT_EQ(e[1].time, 1250u);
    EXPECT_EQ(e[1].cycle, 2u);
    EXPECT_EQ(e[2].cycle, 3u);
    EXPECT_EQ(e[3].cycle, 2u);

    e = events(
        "cycle,box,event,count\n"
        "3,ubox,LOCK_CYCLES,1\n"
        "3,r2pcie,RxR_AK_BOUNCES.CW,1\n"
        "3,qpi0,TxL_INSERTS,1\n");
    EXPECT_EQ(e[0].time, 1500u);
    EXPECT_EQ(e[1].time, 1500u);
    EXPECT_EQ(e[2].time, 3000u);
}

// ---------------------------------------------------------------------------
// Event traces: errors

TEST(TraceEvents, ValueErrors) {
    // Columns: time 1, box 2, event 3, umask 4, ext 5, count 6, repeat 7, socket 8.
    const std::string header = "time,box,event,umask,ext,count,repeat,socket\n";
    const std::string g1_subs = "(SNP, HOM_REQ, HOM_NONREQ, DRS_DATA, DRS_NONDATA)";
    struct bad_row {
        std::string row, what;
    };
    const std::vector<bad_row> cases = {
        {"1,qpi2,RxL_FLITS_G1,SNP,,1,,",
         "e.csv:2:2: column 'box': 'qpi2' is not a box of this machine (ubox, r2pcie, qpi0, qpi1, imc0, imc1, imc2, imc3, ha0, r3qpi0, r3qpi1, cbo0, cbo1, cbo2, cbo3, cbo4, cbo5, cbo6, cbo7, pcu, irp)"},
        {"1,sbox0,RxL_FLITS_G1,SNP,,1,,",
         "e.csv:2:2: column 'box': 'sbox0' is not a box of this machine (ubox, r2pcie, qpi0, qpi1, imc0, imc1, imc2, imc3, ha0, r3qpi0, r3qpi1, cbo0, cbo1, cbo2, cbo3, cbo4, cbo5, cbo6, cbo7, pcu, irp)"},
        {"1,qpi,RxL_FLITS_G1,SNP,,1,,",
         "e.csv:2:2: column 'box': 'qpi' is not a box of this machine (ubox, r2pcie, qpi0, qpi1, imc0, imc1, imc2, imc3, ha0, r3qpi0, r3qpi1, cbo0, cbo1, cbo2, cbo3, cbo4, cbo5, cbo6, cbo7, pcu, irp)"},
        {"1,ubox_fixed,LOCK_CYCLES,,,1,,",
         "e.csv:2:2: column 'box': 'ubox_fixed' has no events to drive (the fixed counter "
         "counts UCLK cycles by itself)"},
        {"1,,LOCK_CYCLES,,,1,,", "e.csv:2:2: column 'box': value is missing"},
        {"1,qpi0,FOO,,,1,,",
         "e.csv:2:3: column 'event': 'FOO' is not an event of the qpi catalog (ivb-ep)"},
        {"1,ubox,RING_AD_USED,CW_EVEN,,1,,",
         "e.csv:2:3: column 'event': 'RING_AD_USED' is not an event of the ubox catalog (ivb-ep)"},
        {"1,qpi0,UNC_R2_RING_AD_USED,CW_EVEN,,1,,",
         "e.csv:2:3: column 'event': 'UNC_R2_RING_AD_USED' has the prefix of r2pcie events "
         "(qpi0 events are UNC_Q_*)"},
        {"1,r2pcie,UNC_U_LOCK_CYCLES,,,1,,",
         "e.csv:2:3: column 'event': 'UNC_U_LOCK_CYCLES' has the prefix of ubox events "
         "(r2pcie events are UNC_R2_*)"},
        {"1,qpi0,UNC_Z_FOO,,,1,,",
         "e.csv:2:3: column 'event': 'UNC_Z_FOO' is not an event of the qpi catalog (ivb-ep)"},
        {"1,qpi0,0x99,,,1,,",
         "e.csv:2:3: column 'event': '0x99' is not an event code of the qpi catalog (ivb-ep) "
         "with ext 0"},
        {"1,qpi0,0x38,,,1,,",  // CTO_COUNT needs ext
         "e.csv:2:3: column 'event': '0x38' is not an event code of the qpi catalog (ivb-ep) "
         "with ext 0"},
        {"1,qpi0,0x100,,,1,,",
         "e.csv:2:3: column 'event': '0x100' is not an event code of the qpi catalog (ivb-ep) "
         "with ext 0"},
        {"1,ubox,0x00,,,1,,",
         "e.csv:2:3: column 'event': '0x00' is not an event code of the ubox catalog (ivb-ep)"},
        {"1,,,,,1,,", "e.csv:2:2: column 'box': value is missing"},
        {"1,ubox,,,,1,,", "e.csv:2:3: column 'event': value is missing"},
        {"1,qpi0,CLOCKTICKS,,,1,,",
         "e.csv:2:3: column 'event': 'CLOCKTICKS' cannot be driven: CLOCKTICKS counts the box's "
         "own clock"},
        {"1,qpi1,unc_q_clockticks,,,0,,",
         "e.csv:2:3: column 'event': 'unc_q_clockticks' cannot be driven: CLOCKTICKS counts the "
         "box's own clock"},
        {"1,r2pcie,0x01,,,1,,",
         "e.csv:2:3: column 'event': '0x01' cannot be driven: CLOCKTICKS counts the box's own "
         "clock"},
        {"1,cbo3,COUNTER0_OCCUPANCY,,,1,,",
         "e.csv:2:3: column 'event': 'COUNTER0_OCCUPANCY' cannot be driven: COUNTER0_OCCUPANCY is counter 0's "
         "increment (drive counter 0's event)"},
        {"1,ha0,ADDR_OPC_MATCH,0x06,,1,,",  // (an enumerated event: 0x06 is no encoding)
         "e.csv:2:4: column 'umask': '0x06' is not an encoding of ADDR_OPC_MATCH (ADDR, OPC, FILT, AD, BL, AK)"},
        {"1,ha0,ADDR_OPC_MATCH.bit1,,,1,,",
         "e.csv:2:3: column 'event': 'ADDR_OPC_MATCH.bit1' is not an encoding of ADDR_OPC_MATCH (ADDR, OPC, FILT, "
         "AD, BL, AK)"},
        {"1,imc2,UNC_M_DCLOCKTICKS,,,1,,",  // (the iMC's clock event on ivb-ep)
         "e.csv:2:3: column 'event': 'UNC_M_DCLOCKTICKS' cannot be driven: DCLOCKTICKS counts the box's "
         "own clock"},
        {"1,qpi0,RxL_FLITS_G1,SNP,2,1,,", "e.csv:2:5: column 'ext': '2' is not 0 or 1"},
        {"1,ubox,LOCK_CYCLES,,1,1,,",
         "e.csv:2:5: column 'ext': '1' is not allowed for box 'ubox': only QPI and PCU events have an "
         "extra select bit"},
        {"1,qpi0,RxL_FLITS_G1,SNP,0,1,,",
         "e.csv:2:5: column 'ext': '0' does not match RxL_FLITS_G1, whose ext is 1"},
        {"1,qpi0,TxL_INSERTS,,1,1,,",
         "e.csv:2:5: column 'ext': '1' does not match TxL_INSERTS, whose ext is 0"},
        {"1,qpi0,RxL_FLITS_G1,HOM,,1,,",
         "e.csv:2:4: column 'umask': 'HOM' is a combination of several sub-events (0x06) of "
         "RxL_FLITS_G1: give one per row"},
        {"1,qpi0,RxL_FLITS_G1,0x18,,1,,",
         "e.csv:2:4: column 'umask': '0x18' is a combination of several sub-events (0x18) of "
         "RxL_FLITS_G1: give one per row"},
        {"1,qpi0,RxL_FLITS_G1,0x20,,1,,",
         "e.csv:2:4: column 'umask': '0x20' is not a sub-event of RxL_FLITS_G1 " + g1_subs},
        {"1,qpi0,RxL_FLITS_G1,0,,1,,",
         "e.csv:2:4: column 'umask': '0' is not a sub-event of RxL_FLITS_G1 " + g1_subs},
        {"1,qpi0,RxL_FLITS_G1,0x108,,1,,",
         "e.csv:2:4: column 'umask': '0x108' is not a sub-event of RxL_FLITS_G1 " + g1_subs},
        {"1,qpi0,RxL_FLITS_G1,bit5,,1,,",
         "e.csv:2:4: column 'umask': 'bit5' is not a sub-event of RxL_FLITS_G1 " + g1_subs},
        {"1,qpi0,RxL_FLITS_G1,FOO,,1,,",
         "e.csv:2:4: column 'umask': 'FOO' is not a sub-event of RxL_FLITS_G1 " + g1_subs},
        {"1,qpi0,RxL_FLITS_G1,,,1,,",
         "e.csv:2:4: column 'umask': value is missing: RxL_FLITS_G1 has sub-events " + g1_subs},
        {"1,qpi0,TxL_INSERTS,0x01,,1,,",
         "e.csv:2:4: column 'umask': '0x01' is not allowed: TxL_INSERTS has no sub-events"},
        {"1,qpi0,RxL_FLITS_G1.DRS_DATA,DRS_DATA,,1,,",
         "e.csv:2:4: column 'umask': 'DRS_DATA' is a second sub-event: column 'event' already "
         "gives one ('RxL_FLITS_G1.DRS_DATA')"},
        {"1,qpi0,RxL_FLITS_G1.FOO,,,1,,",
         "e.csv:2:3: column 'event': 'RxL_FLITS_G1.FOO': 'FOO' is not a sub-event of "
         "RxL_FLITS_G1 " + g1_subs},
        {"1,qpi0,RxL_FLITS_G1.HOM,,,1,,",
         "e.csv:2:3: column 'event': 'RxL_FLITS_G1.HOM': 'HOM' is a combination of several "
         "sub-events (0x06) of RxL_FLITS_G1: give one per row"},
        {"1,qpi0,TxL_INSERTS.X,,,1,,",
         "e.csv:2:3: column 'event': 'TxL_INSERTS.X' names a sub-event, but TxL_INSERTS has none"},
        {"1,qpi0,RxL_FLITS_G1.,,,1,,",
         "e.csv:2:3: column 'event': 'RxL_FLITS_G1.' is not EVENT or EVENT.SUB-EVENT"},
        {"1,qpi0,.SNP,,,1,,", "e.csv:2:3: column 'event': '.SNP' is not EVENT or EVENT.SUB-EVENT"},
        {"1,qpi0,RxL_FLITS_G1,SNP,,3,,",
         "e.csv:2:6: column 'count': '3' is not a count of RxL_FLITS_G1 (0-2 per cycle)"},
        {"1,qpi0,RxL_OCCUPANCY,,,129,,",
         "e.csv:2:6: column 'count': '129' is not a count of RxL_OCCUPANCY (0-128 per cycle)"},
        {"1,ubox,LOCK_CYCLES,,,2,,",
         "e.csv:2:6: column 'count': '2' is not a count of LOCK_CYCLES (0-1 per cycle)"},
        {"1,ubox,LOCK_CYCLES,,,x,,",
         "e.csv:2:6: column 'count': 'x' is not a count of LOCK_CYCLES (0-1 per cycle)"},
        {"1,ubox,LOCK_CYCLES,,,,,", "e.csv:2:6: column 'count': value is missing"},
        {"1,ubox,LOCK_CYCLES,,,1,0,",
         "e.csv:2:7: column 'repeat': '0' is not a repeat count (an integer >= 1)"},
        {"1,ubox,LOCK_CYCLES,,,1,-3,",
         "e.csv:2:7: column 'repeat': '-3' is not a repeat count (an integer >= 1)"},
        {"1,ubox,LOCK_CYCLES,,,1,,1",
         "e.csv:2:8: column 'socket': '1' is not a socket of this machine (1 socket: 0)"},
        {"x,ubox,LOCK_CYCLES,,,1,,",
         "e.csv:2:1: column 'time': 'x' is not a time in ns (a decimal number such as 12.5)"},
    };
    for (const auto& c : cases)
        EXPECT_EQ(error_of(header + c.row + "\n", "e.csv"), c.what) << c.row;
}

TEST(TraceEvents, MissingSubEventWithoutUmaskColumn) {
    EXPECT_EQ(error_of("cycle,box,event,count\n0,qpi0,RxL_FLITS_G1,1\n", "e.csv"),
              "e.csv:2:3: column 'event': 'RxL_FLITS_G1' has sub-events: give one (SNP, HOM_REQ, "
              "HOM_NONREQ, DRS_DATA, DRS_NONDATA) in a 'umask' column or as RxL_FLITS_G1.SUB");
}

TEST(TraceEvents, SocketRangeNamesTheMachine) {
    EXPECT_EQ(error_of("cycle,socket,box,event,count\n0,2,ubox,LOCK_CYCLES,1\n", "e.csv",
                       ivb_ctx(2, 2)),
              "e.csv:2:2: column 'socket': '2' is not a socket of this machine (2 sockets: 0-1)");
    EXPECT_EQ(error_of("cycle,box,event,count\n0,qpi3,TxL_INSERTS,1\n", "e.csv", ivb_ctx(1, 3)),
              "e.csv:2:2: column 'box': 'qpi3' is not a box of this machine (ubox, r2pcie, qpi0, "
              "qpi1, qpi2, imc0, imc1, imc2, imc3, ha0, r3qpi0, r3qpi1, r3qpi2, "
              "cbo0, cbo1, cbo2, cbo3, cbo4, cbo5, cbo6, cbo7, pcu, irp)");
}

// ---------------------------------------------------------------------------
// Time order

TEST(TraceOrder, TimeRowsMustNotGoBack) {
    EXPECT_EQ(packets("time,port,dir,mc\n5,0,rx,NDR\n5,1,rx,NDR\n5.001,0,tx,NDR\n").size(), 3u);
    EXPECT_EQ(error_of("time,port,dir,mc\n5,0,rx,NDR\n# c\n4.5,0,rx,NDR\n", "p.csv"),
              "p.csv:4:1: column 'time': '4.5' (4.5 ns) is before the previous row's time 5 ns "
              "(line 2): rows must be in time order");
    // Compared in ps after rounding: 5.0004 ns is 5 ns, 5.0005 ns is 5.001 ns.
    EXPECT_EQ(packets("time,port,dir,mc\n5,0,rx,NDR\n5.0004,0,rx,NDR\n").size(), 2u);
    EXPECT_EQ(error_of("time,port,dir,mc\n5.0005,0,rx,NDR\n5.0004,0,rx,NDR\n", "p.csv"),
              "p.csv:3:1: column 'time': '5.0004' (5 ns) is before the previous row's time "
              "5.001 ns (line 2): rows must be in time order");
}

TEST(TraceOrder, CycleRowsMustNotGoBack) {
    EXPECT_EQ(error_of("cycle,port,dir,mc\n5,0,rx,NDR\n3,1,rx,NDR\n", "p.csv"),
              "p.csv:3:1: column 'cycle': '3' (QCLK cycle 3, at 3 ns) is before the previous "
              "row's time 5 ns (line 2): rows must be in time order");
}

TEST(TraceOrder, AcrossBoxesWithDifferentClocksInPicoseconds) {
    // UCLK 2 GHz and QCLK 1 GHz: ubox cycle 4 and qpi0 cycle 2 both start at 2 ns.
    auto e = events(
        "cycle,box,event,count\n"
        "4,ubox,LOCK_CYCLES,1\n"
        "2,qpi0,TxL_INSERTS,1\n"
        "5,r2pcie,RxR_AK_BOUNCES.CW,1\n"
        "3,qpi1,TxL_INSERTS,1\n");
    ASSERT_EQ(e.size(), 4u);
    EXPECT_EQ(e[1].time, 2000u);
    EXPECT_EQ(e[2].time, 2500u);
    // qpi1 cycle 2 (2 ns) after r2pcie cycle 5 (2.5 ns): out of order although 2 < 5.
    EXPECT_EQ(error_of("cycle,box,event,count\n"
                       "4,ubox,LOCK_CYCLES,1\n"
                       "2,qpi0,TxL_INSERTS,1\n"
                       "5,r2pcie,RxR_AK_BOUNCES.CW,1\n"
                       "2,qpi1,TxL_INSERTS,1\n",
                       "e.csv"),
              "e.csv:5:1: column 'cycle': '2' (QCLK cycle 2, at 2 ns) is before the previous "
              "row's time 2.5 ns (line 4): rows must be in time order");
    // And the other way round: UCLK cycle 3 (1.5 ns) after QCLK cycle 2 (2 ns).
    EXPECT_EQ(error_of("cycle,box,event,count\n2,qpi0,TxL_INSERTS,1\n3,ubox,LOCK_CYCLES,1\n",
                       "e.csv"),
              "e.csv:3:1: column 'cycle': '3' (UCLK cycle 3, at 1.5 ns) is before the previous "
              "row's time 2 ns (line 2): rows must be in time order");
    // Time rows compare their own time, not their cycle's start: 1.2 ns on the
    // ubox is UCLK cycle 3 (1.5 ns), and 1.3 ns on qpi0 still follows it.
    e = events("time,box,event,count\n1.2,ubox,LOCK_CYCLES,1\n1.3,qpi0,TxL_INSERTS,1\n");
    EXPECT_EQ(e[0].cycle, 3u);
    EXPECT_EQ(e[1].time, 1300u);
    EXPECT_EQ(e[1].cycle, 2u);
}

TEST(TraceOrder, NonIntegerPeriods) {
    // QCLK 0.9 GHz (7.2 GT/s): cycle 9 starts at 10 ns, cycle 8 at 8.888 ns;
    // UCLK 2 GHz cycle 18 starts at 9 ns.
    trace_context c = ivb_ctx();
    c.qclk_hz = 900000000ull;
    auto e = events("cycle,box,event,count\n8,qpi0,TxL_INSERTS,1\n18,ubox,LOCK_CYCLES,1\n"
                    "9,qpi0,TxL_INSERTS,1\n20,ubox,LOCK_CYCLES,1\n", c);
    ASSERT_EQ(e.size(), 4u);
    EXPECT_EQ(e[0].time, 8888u);
    EXPECT_EQ(e[2].time, 10000u);
    EXPECT_EQ(error_of("cycle,box,event,count\n18,ubox,LOCK_CYCLES,1\n8,qpi0,TxL_INSERTS,1\n",
                       "e.csv", c),
              "e.csv:3:1: column 'cycle': '8' (QCLK cycle 8, at 8.888 ns) is before the previous "
              "row's time 9 ns (line 2): rows must be in time order");
}

// ---------------------------------------------------------------------------
// validate_trace and the merger

TEST(TraceValidate, SummaryOrFirstError) {
    std::istringstream ok("cycle,box,event,count\n2,ubox,LOCK_CYCLES,1\n4,qpi0,TxL_INSERTS,1\n");
    trace_summary s = validate_trace(ok, "e.csv", ivb_ctx());
    EXPECT_EQ(s.kind, trace_kind::events);
    EXPECT_EQ(s.records, 2u);
    EXPECT_EQ(s.first, 1000u);
    EXPECT_EQ(s.last, 4000u);
    std::istringstream empty("time,port,dir,mc\n");
    s = validate_trace(empty, "p.csv", ivb_ctx());
    EXPECT_EQ(s.kind, trace_kind::packets);
    EXPECT_EQ(s.records, 0u);
    // The first bad row is reported even when later rows are bad too.
    EXPECT_EQ(error_of("time,port,dir,mc\n1,0,rx,NDR\n2,0,up,NDR\n3,9,rx,NDR\n", "p.csv"),
              "p.csv:3:3: column 'dir': 'up' is not rx or tx");
}

std::string where(const trace_merger::merged_record& m) {
    return std::to_string(m.source) + ":" + std::to_string(line_of(m.record)) + "@" +
           std::to_string(time_of(m.record));
}

TEST(TraceMerge, TwoFilesByTimeStableOnTies) {
    std::istringstream a(
        "time,port,dir,mc\n"
        "1,0,rx,NDR\n"   // line 2
        "2,0,rx,NDR\n"   // line 3
        "2,1,tx,DRS\n"   // line 4
        "5,0,rx,SNP\n"); // line 5
    std::istringstream b(
        "cycle,box,event,count\n"
        "1,ubox,LOCK_CYCLES,1\n"    // line 2: 0.5 ns
        "4,ubox,LOCK_CYCLES,1\n"    // line 3: 2 ns
        "2,qpi0,TxL_INSERTS,1\n"    // line 4: 2 ns
        "6,r2pcie,RxR_AK_BOUNCES.CW,1\n");  // line 5: 3 ns
    trace_reader ra(a, "a.csv", ivb_ctx()), rb(b, "b.csv", ivb_ctx());
    trace_merger m;
    EXPECT_EQ(m.add(ra), 0u);
    EXPECT_EQ(m.add(rb), 1u);
    EXPECT_EQ(m.sources(), 2u);
    EXPECT_EQ(&m.reader(1), &rb);
    std::vector<std::string> got;
    trace_merger::merged_record r;
    while (m.next(r)) {
        got.push_back(where(r));
        EXPECT_EQ(std::holds_alternative<packet_record>(r.record), r.source == 0);
    }
    const std::vector<std::string> want = {"1:2@500",  "0:2@1000", "0:3@2000", "0:4@2000",
                                           "1:3@2000", "1:4@2000", "1:5@3000", "0:5@5000"};
    EXPECT_EQ(got, want);
    EXPECT_FALSE(m.next(r));
    std::istringstream c("time,port,dir,mc\n");
    trace_reader rc(c, "c.csv", ivb_ctx());
    EXPECT_THROW(m.add(rc), std::logic_error);
}

TEST(TraceMerge, TiesFollowTheOrderSourcesWereAdded) {
    auto in1 = std::make_unique<std::istringstream>("cycle,port,dir,mc\n3,0,rx,NDR\n3,0,rx,SNP\n");
    auto in2 = std::make_unique<std::istringstream>("cycle,port,dir,mc\n3,1,rx,NDR\n");
    trace_merger m;
    m.add(std::move(in2), "second.csv", ivb_ctx());
    m.add(std::move(in1), "first.csv", ivb_ctx());
    EXPECT_EQ(m.reader(0).filename(), "second.csv");
    std::vector<std::string> got;
    trace_merger::merged_record r;
    while (m.next(r)) got.push_back(where(r));
    EXPECT_EQ(got, (std::vector<std::string>{"0:2@3000", "1:2@3000", "1:3@3000"}));
    EXPECT_EQ(std::get<packet_record>(r.record).packet.mc, qpi_mc::snp);
}

TEST(TraceMerge, ErrorsNameTheirFile) {
    auto good = std::make_unique<std::istringstream>("time,port,dir,mc\n1,0,rx,NDR\n2,0,rx,NDR\n");
    auto bad = std::make_unique<std::istringstream>("time,port,dir,mc\n1.5,0,rx,NDR\n1,0,rx,NDR\n");
    trace_merger m;
    m.add(std::move(good), "good.csv", ivb_ctx());
    m.add(std::move(bad), "bad.csv", ivb_ctx());
    trace_merger::merged_record r;
    try {
        while (m.next(r)) {
        }
        FAIL() << "no error";
    } catch (const trace_error& e) {
        EXPECT_STREQ(e.what(),
                     "bad.csv:3:1: column 'time': '1' (1 ns) is before the previous row's time "
                     "1.5 ns (line 2): rows must be in time order");
    }
    // Once next() has run, no source can be added.
    EXPECT_THROW(m.add(std::make_unique<std::istringstream>("time,port,dir,mc\n"), "late.csv",
                       ivb_ctx()),
                 std::logic_error);
    // A bad header is reported by add().
    trace_merger m2;
    try {
        m2.add(std::make_unique<std::istringstream>("time,port\n"), "h.csv", ivb_ctx());
        FAIL() << "no error";
    } catch (const trace_error& e) {
        EXPECT_EQ(std::string(e.what()),
                  "h.csv:1: header: neither a packet trace (needs columns mc and dir) nor an "
                  "event trace (needs columns box and event)");
    }
    try {
        m2.open("/nonexistent/dir/t.csv", ivb_ctx());
        FAIL() << "no error";
    } catch (const trace_error& e) {
        EXPECT_EQ(std::string(e.what()), "/nonexistent/dir/t.csv: cannot open the file: No such file or directory");
    }
}

TEST(TraceMerge, OpensFiles) {
    const std::string dir = ::testing::TempDir();
    const std::string pa = dir + "trace_merge_a.csv", pb = dir + "trace_merge_b.csv";
    std::ofstream(pa) << "time,port,dir,mc\r\n3,0,rx,NDR\r\n";
    std::ofstream(pb) << "time,box,event,count\n1,ubox,LOCK_CYCLES,1\n";
    trace_merger m;
    m.open(pa, ivb_ctx());
    m.open(pb, ivb_ctx());
    trace_merger::merged_record r;
    ASSERT_TRUE(m.next(r));
    EXPECT_EQ(r.source, 1u);
    EXPECT_EQ(std::get<event_record>(r.record).box, "ubox");
    ASSERT_TRUE(m.next(r));
    EXPECT_EQ(r.source, 0u);
    EXPECT_EQ(time_of(r.record), 3000u);
    EXPECT_FALSE(m.next(r));
    std::remove(pa.c_str());
    std::remove(pb.c_str());
}

// ---------------------------------------------------------------------------
// Streaming: a generated 1,000,000-row stream is read in constant memory

// A streambuf that produces a header and then `rows` rows, one at a time, from
// a generator: the text never exists as a whole.
class generated_trace : public std::streambuf {
public:
    using row_fn = std::function<void(uint64_t, std::string&)>;
    generated_trace(std::string header, uint64_t rows, row_fn make)
        : header_(std::move(header)), rows_(rows), make_(std::move(make)) {
        buf_.reserve(256);
    }
    uint64_t bytes() const { return bytes_; }

protected:
    int_type underflow() override {
        if (gptr() < egptr()) return traits_type::to_int_type(*gptr());
        if (!header_done_) {
            buf_ = header_;
            header_done_ = true;
        } else if (next_ < rows_) {
            buf_.clear();
            make_(next_++, buf_);
        } else {
            return traits_type::eof();
        }
        bytes_ += buf_.size();
        setg(buf_.data(), buf_.data(), buf_.data() + buf_.size());
        return traits_type::to_int_type(*gptr());
    }

private:
    std::string header_;
    uint64_t rows_;
    row_fn make_;
    std::string buf_;
    bool header_done_ = false;
    uint64_t next_ = 0;
    uint64_t bytes_ = 0;
};

using test::heap_in_use;

TEST(TraceStreaming, MillionPacketRowsInConstantMemory) {
    constexpr uint64_t kRows = 1000000;
    static const char* const mcs[] = {"HOM0", "SNP", "NDR", "DRS", "ncb", "14"};
    generated_trace gen("# generated\ncycle,port,dir,mc,opc,rnid\n", kRows,
                        [](uint64_t i, std::string& out) {
                            char line[96];
                            int n = std::snprintf(line, sizeof line, "%llu,%u,%s,%s,%u,%u\r\n",
                                                  static_cast<unsigned long long>(i / 3),
                                                  unsigned(i % 2), (i & 4) ? "tx" : "rx",
                                                  mcs[i % 6], unsigned(i % 16), unsigned(i % 32));
                            out.append(line, static_cast<std::size_t>(n));
                        });
    std::istream in(&gen);
    trace_reader reader(in, "generated.csv", ivb_ctx());
    packet_record p;
    uint64_t n = 0, flits = 0;
    std::size_t heap_early = 0, heap_max = 0;
    while (reader.next(p)) {
        ASSERT_EQ(p.cycle, n / 3);
        ASSERT_EQ(p.line, n + 3);
        flits += p.packet.flits;
        ++n;
        if (n == 1000) heap_early = heap_in_use();
        if (n > 1000 && n % 50000 == 0) heap_max = std::max(heap_max, heap_in_use());
    }
    EXPECT_EQ(n, kRows);
    EXPECT_EQ(reader.records(), kRows);
    EXPECT_EQ(p.cycle, (kRows - 1) / 3);
    EXPECT_EQ(p.time, (kRows - 1) / 3 * 1000);
    EXPECT_GT(gen.bytes(), 20u * kRows);  // the text is far larger than any bound below
    EXPECT_GT(flits, kRows);
    if (heap_early == 0) GTEST_SKIP() << "heap usage is not measurable here";
    // Nothing accumulates: the heap in use after 1000 rows bounds it for the rest.
    EXPECT_LE(heap_max, heap_early + 4096) << "early " << heap_early << ", max " << heap_max;
}

TEST(TraceStreaming, MillionEventRowsValidatedInConstantMemory) {
    constexpr uint64_t kRows = 1000000;
    // The generator runs inside validate_trace(), so it samples the heap there.
    // It runs ahead of the reader (content detection alone takes 64 KiB, some
    // 1600 rows, before the reader is set up): the early sample is taken once
    // the reader has surely read rows, so its one-time setup is in it.
    std::size_t heap_early = 0, heap_max = 0;
    generated_trace gen("time,box,event,umask,count\n", kRows, [&](uint64_t i, std::string& out) {
        if (i == 10000) heap_early = heap_in_use();
        if (i > 10000 && i % 50000 == 0) heap_max = std::max(heap_max, heap_in_use());
        char line[96];
        const auto ns = static_cast<unsigned long long>(i / 1000);
        const unsigned ps = unsigned(i % 1000);
        int n;
        if (i % 3 == 0)
            n = std::snprintf(line, sizeof line, "%llu.%03u,qpi%u,RxL_FLITS_G1,DRS_DATA,2\n", ns,
                              ps, unsigned(i % 2));
        else if (i % 3 == 1)
            n = std::snprintf(line, sizeof line, "%llu.%03u,ubox,UNC_U_EVENT_MSG,0x04,1\n", ns, ps);
        else
            n = std::snprintf(line, sizeof line,
                              "%llu.%03u,r2pcie,RING_AD_USED.CW_VR0_EVEN,,1\n", ns, ps);
        out.append(line, static_cast<std::size_t>(n));
    });
    std::istream in(&gen);
    trace_summary s = validate_trace(in, "events.csv", ivb_ctx());
    EXPECT_EQ(s.kind, trace_kind::events);
    EXPECT_EQ(s.records, kRows);
    EXPECT_EQ(s.first, 0u);
    EXPECT_EQ(s.last, kRows - 1);  // row i is at i ps
    if (heap_early == 0) GTEST_SKIP() << "heap usage is not measurable here";
    EXPECT_LE(heap_max, heap_early + 4096) << "early " << heap_early << ", max " << heap_max;
}

}  // namespace
}  // namespace pmonsim::trace

