// Packet traces of a CPU whose packets are requests reaching the home logic
// (packet_route::home_logic, nhm-ep/wsm-ep; docs/decisions.md N15): the
// columns, their checks and messages, the binary kind 3 records, and the
// round trips text -> binary -> text.
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <unistd.h>
#include <vector>

#include "trace/trace_convert.h"
#include "trace/trace_reader.h"

namespace pmonsim::trace {
namespace {

trace_context ctx_of(cpu_model cpu) {
    trace_context c;
    c.cpu = cpu;
    c.sockets = 2;
    c.qpi_ports = 2;
    c.uclk_hz = 2000000000ull;  // a UCLK cycle is 0.5 ns
    c.qclk_hz = 1000000000ull;
    return c;
}
const trace_context nhm = ctx_of(cpu_model::nhm_ep);

std::vector<packet_record> read_all(const std::string& text, const trace_context& ctx, const std::string& name = "r.csv") {
    std::istringstream in(text);
    trace_reader r(in, name, ctx);
    std::vector<packet_record> out;
    for (packet_record p; r.next(p);) out.push_back(p);
    return out;
}

std::string error_of(const std::string& text, const trace_context& ctx = nhm) {
    try {
        read_all(text, ctx);
    } catch (const trace_error& e) {
        return e.what();
    }
    return "no error";
}

std::string tmp(const std::string& name) {
    return ::testing::TempDir() + "/req" + std::to_string(::getpid()) + "_" + name;
}
std::string slurp(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
}

const char* const sample =
    "cycle,socket,src,mc,opc,addr\n"
    "4,0,local,HOM0,2,0x1000\n"
    "4,1,remote,HOM1,15,0xffffffffff\n"
    "9,0,ioh,NCS,0,\n"
    "9,0,LOCAL,14,3,8\n";

TEST(TraceRequests, ColumnsAndValues) {
    const auto r = read_all(sample, nhm);
    ASSERT_EQ(r.size(), 4u);
    EXPECT_EQ(r[0].cycle, 4u);
    EXPECT_EQ(r[0].time, 2000u);  // UCLK cycles: 0.5 ns each
    EXPECT_EQ(r[0].source(), home_src::local);
    EXPECT_EQ(unsigned{r[0].packet.mc}, 0u);
    EXPECT_EQ(unsigned{r[0].packet.opc}, 2u);
    EXPECT_EQ(r[0].addr, 0x1000u);
    EXPECT_EQ(unsigned{r[1].socket}, 1u);
    EXPECT_EQ(r[1].source(), home_src::remote);
    EXPECT_EQ(r[1].addr, phys_addr_max);
    EXPECT_EQ(r[2].source(), home_src::ioh);
    EXPECT_EQ(r[2].addr, no_addr);  // an empty field: no address
    EXPECT_EQ(unsigned{r[2].packet.mc}, 4u);
    EXPECT_EQ(r[3].source(), home_src::local);
    EXPECT_EQ(unsigned{r[3].packet.mc}, 14u);
    // The request's fields as MSR_UNCORE_ADDR_OPCODE_MATCH lays them out.
    EXPECT_EQ(addr_match_fields(r[0].packet, r[0].addr), 0x0000'0200'0000'1000ull);
    EXPECT_EQ(addr_match_fields(r[1].packet, r[1].addr), 0x0000'1FFF'FFFF'FFF8ull);
    EXPECT_EQ(addr_match_fields(r[2].packet, r[2].addr), 0x0001'4000'0000'0000ull);  // bit 48: none
}

TEST(TraceRequests, ErrorsNameLineColumnAndWhy) {
    EXPECT_EQ(error_of("cycle,src,mc,addr\n1,core,HOM0,0\n"),
              "r.csv:2:2: column 'src': 'core' is not a request source (local, remote or ioh)");
    EXPECT_EQ(error_of("cycle,src,mc,addr\n1,local,HOM0,0x10000000000\n"),
              "r.csv:2:4: column 'addr': '0x10000000000' is not a physical address (40 bits: 0-0xffffffffff)");
    EXPECT_EQ(error_of("cycle,src,mc\n1,local,\n"), "r.csv:2:3: column 'mc': value is missing");
    EXPECT_EQ(error_of("cycle,mc,addr\n"), "r.csv:1: header: packet trace needs column 'src'");
    // QPI link columns on a home-logic CPU, and the other way round.
    EXPECT_EQ(error_of("cycle,src,mc,port\n"),
              "r.csv:1:4: header: column 'port' is for the packet rows of snb-ep, ivb-ep; on nhm-ep a "
              "packet row is a request reaching the home logic (columns time, cycle, socket, mc, opc, src, addr)");
    EXPECT_EQ(error_of("cycle,port,dir,mc,addr\n", ctx_of(cpu_model::ivb_ep)),
              "r.csv:1:5: header: column 'addr' is for the packet rows of nhm-ep, wsm-ep; on ivb-ep a "
              "packet row is a QPI packet a port receives or sends (columns time, cycle, socket, port, "
              "dir, mc, opc, vn, rnid, dnid, rds, flits, ring)");
}

TEST(TraceRequests, BinaryKind3RoundTrips) {
    for (const char* unit : {"cycle", "time"}) {
        SCOPED_TRACE(unit);
        std::string text = sample;
        if (std::string(unit) == "time") text = "time" + text.substr(5);  // the same numbers, in ns
        const std::string csv = tmp("a.csv"), bin = tmp("a.bin"), csv2 = tmp("b.csv"), bin2 = tmp("b.bin");
        std::ofstream(csv) << text;
        const auto want = read_all(text, nhm);
        convert_trace(csv, bin, nhm);
        const std::string bytes = slurp(bin);
        ASSERT_EQ(bytes.size(), 16u + 4 * 24);
        EXPECT_EQ(bytes[7], 2);  // version 2
        EXPECT_EQ(bytes[8], 3);  // kind 3: requests
        // Record 1: time 4 (cycles) or 4000 (ps), addr 0x1000, socket 0, src 2 (local), mc 0, opc 2.
        const std::string t = std::string(unit) == "cycle" ? std::string("\x04\0", 2) : std::string("\xa0\x0f", 2);
        EXPECT_EQ(bytes.substr(16, 24), t + std::string("\0\0\0\0\0\0\0\x10\0\0\0\0\0\0\0\x02\0\x02\0\0\0\0", 22));
        // Record 3 has no address: all ones.
        EXPECT_EQ(bytes.substr(16 + 2 * 24 + 8, 8), std::string(8, '\xff'));
        std::istringstream in(bytes);
        trace_reader r(in, "a.bin", nhm);
        std::vector<packet_record> got;
        for (packet_record p; r.next(p);) got.push_back(p);
        ASSERT_EQ(got.size(), want.size());
        for (std::size_t i = 0; i < got.size(); ++i) {
            EXPECT_EQ(got[i].time, want[i].time);
            EXPECT_EQ(got[i].cycle, want[i].cycle);
            EXPECT_EQ(got[i].addr, want[i].addr);
            EXPECT_EQ(got[i].port, want[i].port);
            EXPECT_EQ(unsigned{got[i].socket}, unsigned{want[i].socket});
            EXPECT_EQ(unsigned{got[i].packet.mc}, unsigned{want[i].packet.mc});
            EXPECT_EQ(unsigned{got[i].packet.opc}, unsigned{want[i].packet.opc});
        }
        convert_trace(bin, csv2, nhm);
        if (std::string(unit) == "cycle") {
            EXPECT_EQ(slurp(csv2),
                      "cycle,socket,src,mc,opc,addr\n4,0,local,HOM0,2,0x1000\n4,1,remote,HOM1,15,0xffffffffff\n"
                      "9,0,ioh,NCS,0,\n9,0,local,DRS,3,0x8\n");
        }
        convert_trace(csv2, bin2, nhm);
        EXPECT_EQ(slurp(bin2), bytes);
        // The same file on a CPU whose packets are QPI link packets, and a
        // QPI packet trace on nhm-ep.
        EXPECT_EQ(error_of(bytes, ctx_of(cpu_model::snb_ep)),
                  "r.csv: binary header: kind 3 holds requests at the home logic, for nhm-ep, wsm-ep; packet "
                  "records on snb-ep are QPI link packets (kind 1)");
        for (const auto& f : {csv, bin, csv2, bin2}) std::remove(f.c_str());
    }
    const std::string link = std::string("PMONTRC\x01\x01\x01\x10\0\x18\0\0\0", 16);
    EXPECT_EQ(error_of(link, nhm),
              "r.csv: binary header: kind 1 holds QPI link packets, for snb-ep, ivb-ep; packet records on "
              "nhm-ep are requests at the home logic (kind 3)");
}

TEST(TraceRequests, BinaryKind3ChecksEveryField) {
    auto rec = [](std::string r) { return std::string("PMONTRC\x02\x03\x01\x10\0\x18\0\0\0", 16) + r; };
    std::string good("\x04\0\0\0\0\0\0\0\0\x10\0\0\0\0\0\0\0\x02\0\x02\0\0\0\0", 24);
    EXPECT_EQ(error_of(rec(good)), "no error");
    std::string r = good;
    r[17] = 3;
    EXPECT_EQ(error_of(rec(r)), "r.csv: record 1: column 'src': '3' is not a request source (0 ioh, 1 remote, 2 local)");
    r = good;
    r[13] = 1;  // address bit 40
    EXPECT_EQ(error_of(rec(r)),
              "r.csv: record 1: column 'addr': '0x10000001000' is not a physical address (40 bits: "
              "0-0xffffffffff; all ones: none)");
    r = good;
    r[16] = 2;
    EXPECT_EQ(error_of(rec(r)), "r.csv: record 1: column 'socket': '2' is not a socket of this machine (2 sockets: 0-1)");
    r = good;
    r[19] = 16;
    EXPECT_EQ(error_of(rec(r)), "r.csv: record 1: column 'opc': '16' is not an opcode (0-15)");
    r = good;
    r[22] = 1;
    EXPECT_EQ(error_of(rec(r)), "r.csv: record 1: reserved bytes 20-23 are not zero");
}

}  // namespace
}  // namespace pmonsim::trace
