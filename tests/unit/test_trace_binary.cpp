// The binary trace format, gzip input and conversion (testbench/trace:
// trace_binary.h, trace_input.h, trace_convert.h; docs/trace-binary-format.md):
// the header and record layouts byte by byte (encoded here from the document,
// not with the writer), round trips of both kinds with every field, header
// and record errors with their exact messages, the same checks and wording as
// text rows, gzip-compressed text and binary, merging binary with text,
// conversion errors that leave no output, and multi-million-record streams
// (plain and gzip) read in constant memory.
//
// Clocks unless a test says otherwise: UCLK 2 GHz (cycle k at k * 0.5 ns),
// QCLK 1 GHz (cycle k at k ns).
#include <gtest/gtest.h>
#include <zlib.h>

#include <cstdio>
#include <cstring>
#include <fstream>
#include <functional>
#include <iostream>
#include <iterator>
#include <limits>
#include <random>
#include <sstream>
#include <string>

#include <unistd.h>
#include <vector>

#include "catalog/catalog.h"
#include "trace/trace_binary.h"
#include "trace/trace_boxes.h"
#include "trace/trace_convert.h"
#include "trace/trace_reader.h"
#include "heap_in_use.h"
#include "trace_test_context.h"

namespace pmonsim::trace {
namespace {

trace_context ctx_of(cpu_model cpu = cpu_model::ivb_ep, unsigned sockets = 1,
                     unsigned ports = 2) {
    return test_trace_context(sockets, ports, cpu);
}

// (The process id: CTest runs tests in parallel processes sharing TempDir().)
std::string tmp(const std::string& name) {
    return ::testing::TempDir() + "trace_binary_" + std::to_string(::getpid()) + "_" + name;
}

void write_file(const std::string& path, const std::string& bytes) {
    std::ofstream(path, std::ios::binary) << bytes;
}

std::string read_file(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
}

bool exists(const std::string& path) { return std::ifstream(path).good(); }

// gzip with zlib's file API; `members` > 1 splits the data into that many
// concatenated gzip members.
void write_gz(const std::string& path, const std::string& data, int members = 1) {
    std::remove(path.c_str());
    const std::size_t step = data.size() / static_cast<std::size_t>(members) + 1;
    for (int m = 0; m < members; ++m) {
        gzFile f = gzopen(path.c_str(), m == 0 ? "wb" : "ab");
        ASSERT_NE(f, nullptr);
        const std::size_t from = std::min(data.size(), step * static_cast<std::size_t>(m));
        const std::size_t n = std::min(step, data.size() - from);
        if (n) {
            ASSERT_EQ(gzwrite(f, data.data() + from, static_cast<unsigned>(n)), int(n));
        }
        ASSERT_EQ(gzclose(f), Z_OK);
    }
}

// ---------------------------------------------------------------------------
// Encoding straight from docs/trace-binary-format.md

std::string le(uint64_t v, int bytes) {
    std::string s;
    for (int i = 0; i < bytes; ++i) s += static_cast<char>((v >> (8 * i)) & 0xFF);
    return s;
}

std::string header(uint8_t kind, uint8_t unit, uint8_t version = 1, uint16_t hsize = 16,
                   uint16_t rsize = 24, uint16_t reserved = 0) {
    return std::string("PMONTRC") + char(version) + char(kind) + char(unit) + le(hsize, 2) +
           le(rsize, 2) + le(reserved, 2);
}
const std::string packets_ps = header(1, 0), packets_cycles = header(1, 1);
const std::string events_ps = header(2, 0), events_cycles = header(2, 1);
// What the writer writes for event traces where boxes filter requests (B14).
const std::string events_cycles_v4 = header(2, 1, 4);

struct praw {
    uint64_t t = 0;
    uint16_t flits = 1;
    uint8_t socket = 0, port = 0, dir = 0, mc = 2, opc = 0, vn = 0, rnid = 0, dnid = 0, rds = 0,
            ring = 0;
    uint32_t reserved = 0;
};
std::string enc(const praw& p) {
    return le(p.t, 8) + le(p.flits, 2) + char(p.socket) + char(p.port) + char(p.dir) +
           char(p.mc) + char(p.opc) + char(p.vn) + char(p.rnid) + char(p.dnid) + char(p.rds) +
           char(p.ring) + le(p.reserved, 4);
}

struct eraw {
    uint64_t t = 0, repeat = 1;
    uint16_t count = 1;
    uint8_t socket = 0, box = 0, code = 0x44, ext = 0, sub = 0xFF, reserved = 0;
};
std::string enc(const eraw& e) {
    return le(e.t, 8) + le(e.repeat, 8) + le(e.count, 2) + char(e.socket) + char(e.box) +
           char(e.code) + char(e.ext) + char(e.sub) + char(e.reserved);
}

// ---------------------------------------------------------------------------
// Reading

template <class Rec>
std::vector<Rec> read_records(std::istream& in, const std::string& name, const trace_context& ctx) {
    trace_reader r(in, name, ctx);
    std::vector<Rec> out;
    Rec x;
    while (r.next(x)) out.push_back(x);
    EXPECT_EQ(r.records(), out.size());
    return out;
}
template <class Rec>
std::vector<Rec> read_path(const std::string& path, const trace_context& ctx) {
    std::ifstream in(path, std::ios::binary);
    EXPECT_TRUE(in.good()) << path;
    return read_records<Rec>(in, path, ctx);
}
template <class Rec>
std::vector<Rec> read_bytes(const std::string& bytes, const trace_context& ctx,
                            const std::string& name = "t.bin") {
    std::istringstream in(bytes);
    return read_records<Rec>(in, name, ctx);
}

// The what() of reading the whole input, or "no error".
std::string error_of(const std::string& bytes, const std::string& name,
                     const trace_context& ctx = ctx_of()) {
    std::istringstream in(bytes);
    try {
        validate_trace(in, name, ctx);
    } catch (const trace_error& e) {
        return e.what();
    }
    return "no error";
}

std::string convert_error(const std::string& in, const std::string& out,
                          const trace_context& ctx = ctx_of()) {
    try {
        convert_trace(in, out, ctx);
    } catch (const trace_error& e) {
        return e.what();
    }
    return "no error";
}

// Records compared field by field, all but `line`.
std::string show(const packet_record& r) {
    const qpi_packet& p = r.packet;
    std::ostringstream s;
    s << r.time << '/' << r.cycle << " s" << r.socket << " p" << r.port << ' '
      << (r.dir == qpi_dir::tx ? "tx" : "rx") << " mc" << int(p.mc) << " opc" << int(p.opc)
      << " vn" << int(p.vn) << " rnid" << int(p.rnid) << " dnid" << int(p.dnid) << " rds"
      << int(p.rds) << " flits" << p.flits << (p.ring_ad ? " AD" : " AK");
    return s.str();
}
std::string show(const event_record& r) {
    std::ostringstream s;
    s << r.time << '/' << r.cycle << " s" << r.socket << ' ' << r.box << " kind"
      << int(r.kind) << " unit" << r.unit << " ev" << r.event << " in" << r.input << " x"
      << r.count << " r" << r.repeat;
    const request_quals& q = r.quals;
    if (q.given)
        s << " q" << int(q.given) << '/' << int(q.state) << '/' << int(q.nid) << '/' << q.opc << '/' << q.addr << '/'
          << int(q.tid);
    return s.str();
}
template <class Rec>
std::vector<std::string> shown(const std::vector<Rec>& v) {
    std::vector<std::string> out;
    for (const auto& r : v) out.push_back(show(r));
    return out;
}

// ---------------------------------------------------------------------------
// Format

TEST(TraceBinaryFormat, HeaderAndRecordBytesFollowTheDocument) {
    std::ostringstream out;
    {
        binary_trace_writer w(out, trace_kind::packets, time_unit::ps, ctx_of(), packet_layout::fixed);
        packet_record r;
        r.time = 0x0102030405060708ull;
        r.socket = 0;
        r.port = 1;
        r.dir = qpi_dir::tx;
        r.packet.mc = qpi_mc::ndr;
        r.packet.opc = 9;
        r.packet.vn = 2;
        r.packet.rnid = 31;
        r.packet.dnid = 17;
        r.packet.rds = 8;
        r.packet.ring_ad = true;
        r.packet.flits = 0x1234;
        w.write(r);
        w.flush();
        EXPECT_EQ(w.records(), 1u);
    }
    praw want;
    want.t = 0x0102030405060708ull;
    want.flits = 0x1234;
    want.port = 1;
    want.dir = 1;
    want.mc = 2;
    want.opc = 9;
    want.vn = 2;
    want.rnid = 31;
    want.dnid = 17;
    want.rds = 8;
    want.ring = 1;
    EXPECT_EQ(out.str(), std::string("PMONTRC\x01\x01\x00\x10\x00\x18\x00\x00\x00", 16) + enc(want));
    EXPECT_EQ(enc(want).size(), 24u);

    std::ostringstream ev_out;
    {
        binary_trace_writer w(ev_out, trace_kind::events, time_unit::cycles, ctx_of());
        const event_catalog& qpi = catalog_for(box_kind::qpi, cpu_model::ivb_ep);
        event_record e;
        e.cycle = 77;
        e.socket = 0;
        e.kind = box_kind::qpi;
        e.unit = 1;
        e.box = "qpi1";
        e.event = *qpi.find("RxL_FLITS_G1");
        e.input = *qpi.input_of(e.event, 1);
        e.count = 0x0203;
        e.repeat = 0x1122334455667788ull;
        w.write(e);
    }  // the destructor flushes
    eraw ew;
    ew.t = 77;
    ew.repeat = 0x1122334455667788ull;
    ew.count = 0x0203;
    ew.box = 3;
    ew.code = 0x02;
    ew.ext = 1;
    ew.sub = 1;
    EXPECT_EQ(ev_out.str(), std::string("PMONTRC\x04\x02\x01\x10\x00\x18\x00\x00\x00", 16) + enc(ew))
        << "version 4: event records that may carry request attributes";
    EXPECT_EQ(ev_out.str().substr(0, 16), events_cycles_v4);
}

TEST(TraceBinaryFormat, ReaderTellsFormatsApartByContent) {
    const std::string text = "cycle,port,dir,mc\n5,1,tx,SNP\n";
    std::istringstream t(text);
    trace_reader rt(t, "x", ctx_of());
    EXPECT_EQ(rt.format(), trace_format::text);
    EXPECT_FALSE(rt.compressed());
    EXPECT_EQ(rt.unit(), time_unit::cycles);
    std::istringstream t2("time,box,event,count\n");
    trace_reader rt2(t2, "x", ctx_of());
    EXPECT_EQ(rt2.unit(), time_unit::ps);
    EXPECT_EQ(rt2.kind(), trace_kind::events);

    std::istringstream b(events_cycles);
    trace_reader rb(b, "x", ctx_of());
    EXPECT_EQ(rb.format(), trace_format::binary);
    EXPECT_EQ(rb.kind(), trace_kind::events);
    EXPECT_EQ(rb.unit(), time_unit::cycles);
    event_record e;
    EXPECT_FALSE(rb.next(e));
    packet_record p;
    EXPECT_THROW(rb.next(p), std::logic_error);
    EXPECT_STREQ(to_string(trace_format::binary), "binary");

    // Other compressions are named, not read as text.
    EXPECT_EQ(error_of(std::string("\xfd" "7zXZ\0\0\x04\xe6\xd6\xb4\x46\x02\x00\x21\x01", 16), "t.xz"),
              "t.xz: the data is xz-compressed: only text and binary traces, each possibly "
              "gzip- or zstd-compressed once, are read");
    EXPECT_EQ(error_of("BZh91AY&SY\x01\x02\x03", "t.bz2"),
              "t.bz2: the data is bzip2-compressed: only text and binary traces, each possibly "
              "gzip- or zstd-compressed once, are read");
    // zstd is read (TraceBinaryZstd): a cut frame is an error of its own.
    EXPECT_EQ(error_of("\x28\xb5\x2f\xfd\x24\x00\x01\x00\x00", "t.zst"),
              "t.zst: zstd: the compressed data ends early (the file is truncated)");
    // A text file that merely starts like them is text.
    EXPECT_EQ(error_of("BZh,time\n", "t.csv"),
              "t.csv:1: header: neither a packet trace (needs columns mc and dir) nor an event "
              "trace (needs columns box and event)");
}

// ---------------------------------------------------------------------------
// Header errors

TEST(TraceBinaryHeader, ErrorsHaveExactMessages) {
    const std::string rec = enc(praw{});
    EXPECT_EQ(error_of("PMONTRX\x01" + header(1, 0).substr(8) + rec, "h.bin"),
              "h.bin: binary header: the magic is 'PMONTRX', not 'PMONTRC'");
    EXPECT_EQ(error_of(std::string("PMON\x00\x01\x02\x03", 8) + header(1, 0).substr(8), "h.bin"),
              "h.bin: binary header: the magic is 'PMON...', not 'PMONTRC'");
    EXPECT_EQ(error_of(header(1, 0, 5) + rec, "h.bin"),
              "h.bin: binary header: version 5 is not supported (this reader reads versions 1, 2, 3 and 4)");
    EXPECT_EQ(error_of(header(1, 0, 4) + rec, "h.bin"),
              "h.bin: binary header: version 4 holds event traces (kind 2) only, not kind 1");
    // Version 3: compact packet records of no fixed size, kind 1 only.
    EXPECT_EQ(error_of(header(1, 0, 3) + rec, "h.bin"),
              "h.bin: binary header: record size 24 is not 0 (version 3 records have no fixed size)");
    EXPECT_EQ(error_of(header(2, 0, 3) + rec, "h.bin"),
              "h.bin: binary header: version 3 holds QPI link packets (kind 1) only, not kind 2");
    EXPECT_EQ(error_of(header(0, 0) + rec, "h.bin"),
              "h.bin: binary header: kind 0 is neither 1 (packets), 2 (events) nor 3 (requests)");
    // Kind 3 (requests at the home logic, N15): version 2, and only where packets take that route.
    EXPECT_EQ(error_of(header(3, 0) + rec, "h.bin"),
              "h.bin: binary header: kind 3 (requests) needs version 2, not 1");
    EXPECT_EQ(error_of(header(3, 0, 2) + rec, "h.bin"),
              "h.bin: binary header: kind 3 holds requests at the home logic, for nhm-ep, wsm-ep; packet "
              "records on ivb-ep are QPI link packets (kind 1)");
    EXPECT_EQ(error_of(header(1, 2) + rec, "h.bin"),
              "h.bin: binary header: time unit 2 is neither 0 (ps) nor 1 (cycles)");
    EXPECT_EQ(error_of(header(1, 0, 1, 32) + rec, "h.bin"),
              "h.bin: binary header: header size 32 is not 16");
    EXPECT_EQ(error_of(header(2, 0, 1, 16, 20) + rec, "h.bin"),
              "h.bin: binary header: record size 20 is not 24 (the size of a version 1 event "
              "record)");
    EXPECT_EQ(error_of(header(1, 0, 1, 16, 24, 0x100) + rec, "h.bin"),
              "h.bin: binary header: reserved bytes 14-15 are not zero");
    EXPECT_EQ(error_of(header(1, 0).substr(0, 9), "h.bin"),
              "h.bin: binary header: the file ends after 9 bytes (the header has 16)");
    EXPECT_EQ(error_of("PMON", "h.bin"),
              "h.bin: binary header: the file ends after 4 bytes (the header has 16)");
    // A header and no records is an empty trace.
    EXPECT_EQ(error_of(packets_ps, "h.bin"), "no error");
}

TEST(TraceBinaryHeader, TruncatedRecordAfterTheWholeOnes) {
    praw a, b;
    a.t = 1000;
    b.t = 2000;
    const std::string bytes = packets_ps + enc(a) + enc(b) + enc(b).substr(0, 10);
    std::istringstream in(bytes);
    trace_reader r(in, "t.bin", ctx_of());
    packet_record p;
    ASSERT_TRUE(r.next(p));
    EXPECT_EQ(p.line, 1u);
    ASSERT_TRUE(r.next(p));
    EXPECT_EQ(p.line, 2u);
    EXPECT_EQ(p.time, 2000u);
    try {
        r.next(p);
        FAIL() << "no error";
    } catch (const trace_error& e) {
        EXPECT_STREQ(e.what(),
                     "t.bin: record 3: the file ends inside this record (10 of its 24 bytes "
                     "are there)");
        EXPECT_EQ(e.file(), "t.bin");
        EXPECT_EQ(e.line(), 0u);
        EXPECT_EQ(e.reason(), "record 3: the file ends inside this record (10 of its 24 bytes are there)");
    }
    EXPECT_EQ(r.records(), 2u);
    // A record cut at the block boundary of the reader is found too.
    std::string big = packets_ps;
    for (std::size_t i = 0; i < binary_trace_decoder::block_records; ++i) big += enc(a);
    EXPECT_EQ(error_of(big + std::string(23, '\0'), "big.bin"),
              "big.bin: record 8193: the file ends inside this record (23 of its 24 bytes are "
              "there)");
    EXPECT_EQ(error_of(big, "big.bin"), "no error");
}

// ---------------------------------------------------------------------------
// Round trips

const char* const every_packet_field =
    "time,socket,port,dir,mc,opc,vn,rnid,dnid,rds,flits,ring\n"
    "0.001,0,0,rx,HOM0,0,VN0,0,0,I,,\n"
    "0.001,1,1,tx,HOM1,15,VN1,31,17,F,1,\n"
    "12.5,0,2,rx,SNP,3,VNA,1,2,S,,\n"
    "12.5,1,0,tx,NDR,4,3,4,5,E,,AD\n"
    "13,0,1,rx,ndr,5,vna,6,7,M,2,ak\n"
    "14.25,1,2,tx,NCS,8,VN0,8,9,3,,\n"
    "15.125,0,0,rx,NCB,9,VN1,10,11,15,,\n"
    "16,1,1,tx,DRS,7,VNA,12,13,I,65535,\n"
    "17,0,2,rx,7,1,VN0,14,15,F,,\n"
    "18446744073709551.615,1,0,tx,0xf,2,VN1,16,30,0x8,,\n";

// The same rows by QCLK cycle.
std::string every_packet_field_by_cycle() {
    const char* const cycles[] = {"0", "0", "12", "12", "13", "14", "15", "16", "17",
                                  "18446744073709551"};
    std::istringstream in(every_packet_field);
    std::string line, out;
    std::getline(in, line);
    out = "cycle" + line.substr(4) + "\n";
    for (const char* c : cycles) {
        std::getline(in, line);
        out += c + line.substr(line.find(',')) + "\n";
    }
    return out;
}

TEST(TraceBinaryRoundTrip, PacketsWithEveryFieldBothWays) {
    const trace_context ctx = ctx_of(cpu_model::ivb_ep, 2, 3);
    for (const char* unit : {"time", "cycle"}) {
        SCOPED_TRACE(unit);
        const std::string text =
            std::string(unit) == "time" ? every_packet_field : every_packet_field_by_cycle();
        const std::string csv = tmp("p.csv"), bin = tmp("p.bin"), csv2 = tmp("p2.csv"),
                          bin2 = tmp("p2.bin");
        write_file(csv, text);
        const auto from_text = read_path<packet_record>(csv, ctx);
        ASSERT_EQ(from_text.size(), 10u);

        convert_trace(csv, bin, ctx);
        EXPECT_EQ(read_file(bin).substr(7, 1), "\x03");  // compact records (version 3)
        {
            std::ifstream in(bin, std::ios::binary);
            trace_reader r(in, bin, ctx);
            EXPECT_EQ(r.format(), trace_format::binary);
            EXPECT_EQ(r.unit(), std::string(unit) == "time" ? time_unit::ps : time_unit::cycles);
        }
        const auto from_bin = read_path<packet_record>(bin, ctx);
        EXPECT_EQ(shown(from_bin), shown(from_text));
        for (std::size_t i = 0; i < from_bin.size(); ++i) EXPECT_EQ(from_bin[i].line, i + 1);

        convert_trace(bin, csv2, ctx);  // binary -> text
        const auto from_text2 = read_path<packet_record>(csv2, ctx);
        EXPECT_EQ(shown(from_text2), shown(from_text));
        convert_trace(csv2, bin2, ctx);  // -> binary again: the same bytes
        EXPECT_EQ(read_file(bin2), read_file(bin));
        for (const auto& f : {csv, bin, csv2, bin2}) std::remove(f.c_str());
    }
    // What the text writer writes: every column, names where they exist.
    std::istringstream in(every_packet_field);
    trace_reader r(in, "p.csv", ctx);
    std::ostringstream out;
    {
        text_trace_writer w(out, r.kind(), r.unit(), ctx);
        trace_record rec;
        while (r.next(rec)) w.write(rec);
    }
    EXPECT_EQ(out.str(),
              "time,socket,port,dir,mc,opc,vn,rnid,dnid,rds,flits,ring\n"
              "0.001,0,0,rx,HOM0,0,VN0,0,0,I,1,\n"
              "0.001,1,1,tx,HOM1,15,VN1,31,17,F,1,\n"
              "12.5,0,2,rx,SNP,3,VNA,1,2,S,1,\n"
              "12.5,1,0,tx,NDR,4,3,4,5,E,1,AD\n"
              "13,0,1,rx,NDR,5,VNA,6,7,M,2,AK\n"
              "14.25,1,2,tx,NCS,8,VN0,8,9,3,3,\n"
              "15.125,0,0,rx,NCB,9,VN1,10,11,15,11,\n"
              "16,1,1,tx,DRS,7,VNA,12,13,I,65535,\n"
              "17,0,2,rx,7,1,VN0,14,15,F,1,\n"
              "18446744073709551.615,1,0,tx,15,2,VN1,16,30,M,1,\n");
}

// Every drivable input of every catalog of both personalities, on every box,
// with the largest count: text -> binary -> text -> binary.
TEST(TraceBinaryRoundTrip, EventsWithEveryCatalogInputBothWays) {
    for (cpu_model cpu : {cpu_model::snb_ep, cpu_model::ivb_ep}) {
        SCOPED_TRACE(to_string(cpu));
        const unsigned ports = cpu == cpu_model::snb_ep ? 2 : 3;
        const trace_context ctx = ctx_of(cpu, 2, ports);
        std::vector<event_record> want;
        time_ps t = 0;
        // Every box the machine has rows for (the iMC channels, home agent and
        // R3QPI links too, the HA's enumerated ADDR_OPC_MATCH among them).
        const auto on = boxes_on(ctx);
        for (unsigned code = 0; code < trace_box_count; ++code) {
            if (!on[code]) continue;
            const box_kind k = trace_boxes[code].kind;
            const event_catalog& cat = catalog_for(k, cpu);
            const unsigned unit = trace_boxes[code].unit;
            for (unsigned i = 0; i < cat.input_count(); ++i) {
                const event_def& def = cat.events()[cat.input(i).event];
                if (def.name == describe(cpu).need(k).clock_event) continue;
                if (def.code == describe(cpu).need(k).mirror_code) continue;  // (counter 0's increment)
                ASSERT_EQ(cat.find(def.code, def.ext), cat.input(i).event) << def.name;
                event_record e;
                e.time = t;
                t += 250 + i % 3 * 1000;
                e.socket = i % 2;
                e.kind = k;
                e.unit = unit;
                e.box = unit_name(k, unit);
                e.event = cat.input(i).event;
                e.input = i;
                e.count = def.max_inc;
                e.repeat = i % 4 == 3 ? 1000000000000ull : 1 + i;
                want.push_back(e);
            }
        }
        // The text writer's output is a trace the reader takes.
        std::ostringstream text;
        {
            text_trace_writer w(text, trace_kind::events, time_unit::ps, ctx);
            for (const auto& e : want) w.write(e);
        }
        const std::string csv = tmp("e.csv"), bin = tmp("e.bin"), csv2 = tmp("e2.csv"),
                          bin2 = tmp("e2.bin");
        write_file(csv, text.str());
        auto from_text = read_path<event_record>(csv, ctx);
        ASSERT_EQ(from_text.size(), want.size());
        for (std::size_t i = 0; i < want.size(); ++i) {  // the reader fills the cycle in
            const box_clock c = describe(cpu).need(want[i].kind).clock;
            const uint64_t hz = c == box_clock::qclk   ? ctx.qclk_hz
                                : c == box_clock::dclk ? ctx.dclk_hz
                                : c == box_clock::pclk ? ctx.pclk_hz
                                                       : ctx.uclk_hz;
            EXPECT_EQ(from_text[i].cycle, clock_domain(hz).cycles_before(want[i].time));
            want[i].cycle = from_text[i].cycle;
        }
        EXPECT_EQ(shown(from_text), shown(want));

        convert_trace(csv, bin, ctx);
        EXPECT_EQ(read_file(bin).size(), 16 + 24 * want.size());
        EXPECT_EQ(shown(read_path<event_record>(bin, ctx)), shown(want));
        convert_trace(bin, csv2, ctx);
        EXPECT_EQ(read_file(csv2), text.str());  // the writer's own text comes back
        EXPECT_EQ(shown(read_path<event_record>(csv2, ctx)), shown(want));
        convert_trace(csv2, bin2, ctx);
        EXPECT_EQ(read_file(bin2), read_file(bin));
        for (const auto& f : {csv, bin, csv2, bin2}) std::remove(f.c_str());
    }
}

// B14: qualified rows keep their request attributes through text, binary
// (version 4: a qualifier record after the event record) and back; version 1
// cannot hold them; a bad qualifier record is reported as a text column is.
TEST(TraceBinaryRoundTrip, QualifiedRowsKeepTheirRequestAttributes) {
    const std::string text =
        "cycle,socket,box,event,umask,count,repeat,state,nid,opc,addr,tid\n"
        "1,0,cbo1,LLC_LOOKUP,NID,1,10,M,9,,,\n"
        "1,0,cbo1,TOR_INSERTS,OPCODE,1,2,,,0x182,,4\n"
        "2,0,cbo1,LLC_VICTIMS,E_STATE,1,1,,,,,31\n"
        "3,0,ha0,ADDR_OPC_MATCH,FILT,1,5,,,0x21,0x12345678c0,\n"
        "4,0,ubox,LOCK_CYCLES,,1,1,,,,,\n";
    const std::string csv = tmp("q.csv"), bin = tmp("q.bin"), csv2 = tmp("q2.csv"), bin1 = tmp("q1.bin");
    write_file(csv, text);
    convert_trace(csv, bin, ctx_of());
    EXPECT_EQ(read_file(bin).substr(0, 16), events_cycles_v4);
    EXPECT_EQ(read_file(bin).size(), 16u + 24u * (5 + 4)) << "four rows with a qualifier record each";
    convert_trace(bin, csv2, ctx_of());
    EXPECT_EQ(read_file(csv2), text);
    const auto rows = read_path<event_record>(bin, ctx_of());
    EXPECT_EQ(shown(rows), shown(read_path<event_record>(csv, ctx_of())));
    ASSERT_EQ(rows.size(), 5u);
    EXPECT_EQ(rows[1].quals.given, request_field::opc | request_field::tid);
    EXPECT_EQ(rows[1].quals.opc, 0x182);
    EXPECT_EQ(rows[3].quals.addr, 0x12345678C0ull);
    try {
        convert_trace(csv, bin1, ctx_of(), packet_layout::fixed);
        ADD_FAILURE() << "version 1 held a qualified row";
    } catch (const trace_error& e) {
        EXPECT_EQ(std::string(e.what()), csv + ":2: the row's request attributes (state, nid, opc, addr, tid) need "
                                               "version 4 event records, the default: --binary-version 1 cannot hold "
                                               "them");
    }
    EXPECT_FALSE(exists(bin1)) << "no half-written output";
    // A qualifier record with a node beyond the 16-bit node mask.
    std::string bytes = read_file(bin);
    bytes[16 + 24 + 3] = 16;
    EXPECT_EQ(error_of(bytes.substr(0, 16 + 48), "q.bin"),
              "q.bin: record 2: column 'nid': '16' is not a node of the filter's 16-bit node mask (0-15)");
    bytes[16 + 24] = 0x40;  // given: no such attribute
    EXPECT_EQ(error_of(bytes.substr(0, 16 + 48), "q.bin"),
              "q.bin: record 2: qualifier record: byte 0 (64) is not a set of request attributes (1-31)");
    for (const auto& f : {csv, bin, csv2, bin1}) std::remove(f.c_str());
}

TEST(TraceBinaryRoundTrip, EventsByCycleAndTheirText) {
    const std::string text =
        "cycle,socket,box,event,umask,count,repeat\n"
        "1,0,ubox,LOCK_CYCLES,,1,1\n"
        "2,0,qpi0,RxL_FLITS_G1,DRS_DATA,2,5\n"
        "4,0,r2pcie,RING_AD_USED,CW_VR0_EVEN,1,3\n"
        "4,0,qpi1,TxL_INSERTS,,1,18446744073709551611\n"
        "9,0,ubox,EVENT_MSG,DOORBELL_RCVD,0,1\n";
    const std::string csv = tmp("c.csv"), bin = tmp("c.bin"), csv2 = tmp("c2.csv");
    write_file(csv, text);
    convert_trace(csv, bin, ctx_of());
    EXPECT_EQ(read_file(bin).substr(0, 16), events_cycles_v4);
    convert_trace(bin, csv2, ctx_of());
    // The writer's form adds the request attributes' columns (B14), empty here.
    std::string form = "cycle,socket,box,event,umask,count,repeat,state,nid,opc,addr,tid\n";
    for (size_t at = text.find('\n') + 1; at < text.size();) {
        const size_t nl = text.find('\n', at);
        form += text.substr(at, nl - at) + ",,,,,\n";
        at = nl + 1;
    }
    EXPECT_EQ(read_file(csv2), form);
    EXPECT_EQ(shown(read_path<event_record>(bin, ctx_of())),
              shown(read_path<event_record>(csv, ctx_of())));
    for (const auto& f : {csv, bin, csv2}) std::remove(f.c_str());
}

TEST(TraceBinaryRoundTrip, WriterChecksWhatItCannotHold) {
    std::ostringstream out;
    binary_trace_writer w(out, trace_kind::packets, time_unit::ps, ctx_of());
    EXPECT_THROW(w.write(event_record{}), std::logic_error);
    packet_record p;
    p.packet.mc = qpi_mc::drs;
    p.packet.flits = 0;  // the class's size
    w.write(p);
    w.flush();
    EXPECT_EQ(unsigned{read_bytes<packet_record>(out.str(), ctx_of()).at(0).packet.flits}, 9u);  // (a copy: packed)

    std::ostringstream eout;
    binary_trace_writer we(eout, trace_kind::events, time_unit::ps, ctx_of());
    event_record e;  // ubox event 0
    e.input = 9999;
    EXPECT_THROW(we.write(e), std::invalid_argument);
    e.input = 0;
    e.count = 70000;
    EXPECT_THROW(we.write(e), std::invalid_argument);
    text_trace_writer wt(eout, trace_kind::events, time_unit::ps, ctx_of());
    EXPECT_THROW(wt.write(packet_record{}), std::logic_error);
    e.input = 9999;
    EXPECT_THROW(wt.write(e), std::invalid_argument);
}

// ---------------------------------------------------------------------------
// Records: the text reader's checks and words

// The reason of a text row's error and of a binary record's error must be the
// same: "FILE:LINE:COLUMN: R" and "FILE: record N: R".
std::string text_reason(const std::string& text, const trace_context& ctx) {
    const std::string e = error_of(text, "t.csv", ctx);
    const std::size_t at = e.find(": ");
    return at == std::string::npos ? e : e.substr(at + 2);
}
std::string bin_reason(const std::string& bytes, const trace_context& ctx) {
    const std::string e = error_of(bytes, "t.bin", ctx);
    const std::string prefix = "t.bin: record 1: ";
    return e.compare(0, prefix.size(), prefix) == 0 ? e.substr(prefix.size()) : "unexpected: " + e;
}

TEST(TraceBinaryRecords, PacketChecksAndWordsAreTheTextOnes) {
    const trace_context ctx = ctx_of();
    const std::string head = "cycle,socket,port,dir,mc,opc,vn,rnid,dnid,rds,flits,ring\n";
    struct row {
        std::string text;  // after "0,"
        praw bin;
    };
    auto with = [](auto f) {
        praw p;
        f(p);
        return p;
    };
    const std::vector<row> rows = {
        {"1,0,rx,NDR,,,,,,,", with([](praw& p) { p.socket = 1; })},
        {"0,2,rx,NDR,,,,,,,", with([](praw& p) { p.port = 2; })},
        {"0,0,2,NDR,,,,,,,", with([](praw& p) { p.dir = 2; })},
        {"0,0,rx,16,,,,,,,", with([](praw& p) { p.mc = 16; })},
        {"0,0,rx,NDR,16,,,,,,", with([](praw& p) { p.opc = 16; })},
        {"0,0,rx,NDR,,4,,,,,", with([](praw& p) { p.vn = 4; })},
        {"0,0,rx,NDR,,,32,,,,", with([](praw& p) { p.rnid = 32; })},
        {"0,0,rx,NDR,,,,32,,,", with([](praw& p) { p.dnid = 32; })},
        {"0,0,rx,NDR,,,,,16,,", with([](praw& p) { p.rds = 16; })},
        {"0,0,rx,NDR,,,,,,,2", with([](praw& p) { p.ring = 2; })},
        {"0,0,rx,SNP,,,,,,,AD", with([](praw& p) { p.mc = qpi_mc::snp, p.ring = 1; })},
        {"0,0,rx,NDR,,,,,,0,", with([](praw& p) { p.flits = 0; })},
    };
    for (const auto& r : rows) {
        const std::string want = text_reason(head + "0," + r.text + "\n", ctx);
        EXPECT_NE(want.find("column '"), std::string::npos) << want;
        EXPECT_EQ(bin_reason(packets_cycles + enc(r.bin), ctx), want) << r.text;
    }
    // Cycles whose start does not fit.
    praw big;
    big.t = std::numeric_limits<uint64_t>::max();
    EXPECT_EQ(bin_reason(packets_cycles + enc(big), ctx),
              text_reason(head + "18446744073709551615,0,0,rx,NDR,,,,,,,\n", ctx));
    // Reserved bytes (binary only).
    praw res;
    res.reserved = 0x01000000;
    EXPECT_EQ(error_of(packets_ps + enc(praw{}) + enc(res), "t.bin"),
              "t.bin: record 2: reserved bytes 20-23 are not zero");
}

// Validation checks packet records without making them (skim_packets): the
// same count, first and last time, and the same error at the same record as
// reading them.
TEST(TraceBinaryRecords, ValidationSkimsPacketsAsReadingChecksThem) {
    const trace_context ctx = ctx_of();
    std::mt19937 rng(3);
    for (int round = 0; round < 30; ++round) {
        std::string bytes = round % 2 ? packets_ps : packets_cycles;
        uint64_t t = rng() % 100;
        const int n = static_cast<int>(rng() % 9000);  // across the 4096-record skims
        const int bad = round % 3 == 0 && n ? static_cast<int>(rng() % static_cast<unsigned>(n)) : -1;
        for (int i = 0; i < n; ++i) {
            praw p;
            t += rng() % 3;
            p.t = t;
            p.port = static_cast<uint8_t>(rng() % 2);
            p.mc = qpi_mc::drs;
            p.flits = 9;
            if (i == bad) {
                switch (rng() % 3) {
                    case 0: p.dnid = 40; break;                                   // out of range
                    case 1: p.t = t > 5 ? t - 5 : (p.reserved = 1, t); break;   // out of order (or reserved)
                    default: p.t = ~uint64_t{0}; break;  // a cycle too large (in ps: the next one is out of order)
                }
            }
            bytes += enc(p);
        }
        std::string read_error = "no error";
        std::vector<packet_record> recs;
        try {
            std::istringstream in(bytes);
            trace_reader r(in, "t.bin", ctx);
            packet_record x;
            while (r.next(x)) recs.push_back(x);
        } catch (const trace_error& e) {
            read_error = e.what();
        }
        EXPECT_EQ(error_of(bytes, "t.bin", ctx), read_error) << round;
        if (read_error != "no error") continue;
        std::istringstream in(bytes);
        const trace_summary s = validate_trace(in, "t.bin", ctx);
        ASSERT_EQ(s.records, recs.size()) << round;
        if (!recs.empty()) {
            EXPECT_EQ(s.first, recs.front().time) << round;
            EXPECT_EQ(s.last, recs.back().time) << round;
        }
    }
}

// keep_only() on a binary event trace (trace_reader.h, record_filter): a
// row of a box the filter drops is skimmed, not checked whole (the replay
// thread that keeps it does that), but its socket, box, time and place in the
// time order still are, and a row with its last byte set is read whole.
std::vector<std::string> rows_kept(const std::string& bytes, const record_filter* f) {
    std::istringstream in(bytes);
    trace_reader r(in, "t.bin", ctx_of());
    if (f) r.keep_only(*f);
    std::vector<std::string> out;
    try {
        event_record batch[7];
        while (const std::size_t n = r.read(batch, 7))
            for (std::size_t i = 0; i < n; ++i) out.push_back(batch[i].box.str() + "@" + std::to_string(batch[i].cycle));
    } catch (const trace_error& e) {
        out.push_back(std::string("error: ") + e.what());
    }
    return out;
}

TEST(TraceBinaryRecords, KeepOnlySkimsTheDroppedBoxesRows) {
    const trace_context ctx = ctx_of();
    const event_catalog& r2 = catalog_for(box_kind::r2pcie, ctx.cpu);
    const uint8_t ad_used = r2.events()[*r2.find("RING_AD_USED")].code;
    // Rows every 10 cycles, the UBox's (LOCK_CYCLES) and the R2PCIe's
    // (RING_AD_USED.CW_VR0_EVEN) in turn; row 21 (an R2PCIe row) as `bad` makes it.
    auto trace = [&](const std::function<void(eraw&)>& bad) {
        std::string bytes = events_cycles;
        for (unsigned i = 0; i < 40; ++i) {
            eraw e;
            e.t = 10 * i;
            if (i % 2) e.box = 1, e.code = ad_used, e.sub = 0;
            if (i == 21) bad(e);
            bytes += enc(e);
        }
        return bytes;
    };
    const auto filter_of = [&](box_kind kept) {
        record_filter f;
        f.events.assign(record_filter::event_index(ctx.sockets, box_kind{}, 0), 0);
        f.events[record_filter::event_index(0, kept, 0)] = 1;
        return f;
    };
    const record_filter ubox = filter_of(box_kind::ubox), r2pcie = filter_of(box_kind::r2pcie);
    std::vector<std::string> ubox_rows;
    for (unsigned i = 0; i < 40; i += 2) ubox_rows.push_back("ubox@" + std::to_string(10 * i));
    ASSERT_EQ(rows_kept(trace([](eraw&) {}), &ubox), ubox_rows);
    ASSERT_EQ(rows_kept(trace([](eraw&) {}), &r2pcie).size(), 20u);

    // Wrong in its event, count or run (`skimmed`): an error where the row
    // is checked whole (no filter, or one that keeps the box), none where it
    // is skimmed. Wrong in what every reader checks: the same error with
    // either filter.
    struct fault {
        const char* what;
        std::function<void(eraw&)> make;
        bool skimmed;
    };
    const std::vector<fault> faults = {
        {"event code", [](eraw& e) { e.code = 0x99; }, true},
        {"sub-event", [](eraw& e) { e.sub = 8; }, true},
        {"count", [](eraw& e) { e.count = 300; }, true},
        {"ext", [](eraw& e) { e.ext = 2; }, true},
        {"repeat", [](eraw& e) { e.repeat = 0; }, true},
        {"time going back", [](eraw& e) { e.t = 5; }, false},
        {"cycle past the model's range", [](eraw& e) { e.t = std::numeric_limits<uint64_t>::max() / 2; }, false},
        {"box of no machine", [](eraw& e) { e.box = 40; }, false},
        {"box this machine lacks", [](eraw& e) { e.box = 4; }, false},
        {"socket", [](eraw& e) { e.socket = 1; }, false},
        {"last byte", [](eraw& e) { e.reserved = 1; }, false},
    };
    for (const fault& f : faults) {
        const std::string bytes = trace(f.make);
        const std::vector<std::string> whole = rows_kept(bytes, nullptr);
        ASSERT_FALSE(whole.empty());
        ASSERT_EQ(whole.back().rfind("error: t.bin: record 22: ", 0), 0u) << f.what << ": " << whole.back();
        EXPECT_EQ(rows_kept(bytes, &r2pcie).back(), whole.back()) << f.what;
        if (f.skimmed) EXPECT_EQ(rows_kept(bytes, &ubox), ubox_rows) << f.what;
        else EXPECT_EQ(rows_kept(bytes, &ubox).back(), whole.back()) << f.what;
    }
}

TEST(TraceBinaryRecords, EventChecksAndWordsAreTheTextOnes) {
    const trace_context ctx = ctx_of();
    const event_catalog& ubox = catalog_for(box_kind::ubox, ctx.cpu);
    const event_catalog& qpi = catalog_for(box_kind::qpi, ctx.cpu);
    const event_catalog& r2 = catalog_for(box_kind::r2pcie, ctx.cpu);
    const uint8_t lock = ubox.events()[*ubox.find("LOCK_CYCLES")].code;
    const uint8_t msg = ubox.events()[*ubox.find("EVENT_MSG")].code;
    const uint8_t g1 = qpi.events()[*qpi.find("RxL_FLITS_G1")].code;
    const uint8_t ticks = r2.events()[*r2.find("CLOCKTICKS")].code;
    const std::string head = "cycle,socket,box,event,umask,ext,count,repeat\n";
    struct row {
        std::string text;  // after "0,"
        eraw bin;
    };
    auto with = [&](auto f) {
        eraw e;
        e.code = lock;
        f(e);
        return e;
    };
    const std::vector<row> rows = {
        {"1,ubox,LOCK_CYCLES,,,1,", with([](eraw& e) { e.socket = 1; })},
        {"0,qpi2,LOCK_CYCLES,,,1,", with([](eraw& e) { e.box = 4; })},
        {"0,ubox,LOCK_CYCLES,,2,1,", with([](eraw& e) { e.ext = 2; })},
        {"0,ubox,LOCK_CYCLES,,1,1,", with([](eraw& e) { e.ext = 1; })},
        {"0,ubox,0x99,,,1,", with([](eraw& e) { e.code = 0x99; })},
        {"0,qpi1,0x99,,1,1,", with([](eraw& e) { e.box = 3, e.code = 0x99, e.ext = 1; })},
        {"0,r2pcie,0x01,,,1,", with([&](eraw& e) { e.box = 1, e.code = ticks; })},
        {"0,ubox,LOCK_CYCLES,0x08,,1,", with([](eraw& e) { e.sub = 3; })},
        {"0,ubox,EVENT_MSG,,,1,", with([&](eraw& e) { e.code = msg; })},
        {"0,ubox,EVENT_MSG,0x80,,1,", with([&](eraw& e) { e.code = msg, e.sub = 7; })},
        {"0,ubox,LOCK_CYCLES,,,2,", with([](eraw& e) { e.count = 2; })},
        {"0,qpi0,0x02,DRS_DATA,1,300,", with([&](eraw& e) {
             e.box = 2, e.code = g1, e.ext = 1, e.sub = 3;  // DRS_DATA is 0x08
             e.count = 300;
         })},
        {"0,ubox,LOCK_CYCLES,,,1,0", with([](eraw& e) { e.repeat = 0; })},
    };
    ASSERT_EQ(ticks, 0x01);
    for (const auto& r : rows) {
        const std::string want = text_reason(head + "0," + r.text + "\n", ctx);
        EXPECT_NE(want.find("column '"), std::string::npos) << want;
        EXPECT_EQ(bin_reason(events_cycles + enc(r.bin), ctx), want) << r.text;
    }
    // The run passing the last cycle.
    eraw last = with([](eraw& e) { e.t = 1000, e.repeat = std::numeric_limits<uint64_t>::max() - 999; });
    EXPECT_EQ(bin_reason(events_cycles + enc(last), ctx),
              text_reason(head + "1000,0,ubox,LOCK_CYCLES,,,1,18446744073709550616\n", ctx));
    // Binary-only: a sub-event byte out of its range, an unknown box code,
    // reserved bits.
    EXPECT_EQ(bin_reason(events_cycles + enc(with([](eraw& e) { e.sub = 8; })), ctx),
              "column 'umask': '8' is not a sub-event bit (0-7, or 255 for none)");
    EXPECT_EQ(bin_reason(events_cycles + enc(with([](eraw& e) { e.box = 40; })), ctx),
              "column 'box': '40' is not a box of this machine (ubox, r2pcie, qpi0, qpi1, imc0, imc1, imc2, imc3, ha0, r3qpi0, r3qpi1, cbo0, cbo1, cbo2, cbo3, cbo4, cbo5, cbo6, cbo7, pcu, irp)");
    EXPECT_EQ(bin_reason(events_cycles + enc(with([](eraw& e) { e.reserved = 1; })), ctx),
              "reserved bytes 23-23 are not zero");

    // The same errors after good rows (whose checks the decoder remembers by
    // their last eight bytes, count to reserved): each bad row as the third
    // record, after two rows that differ from it in one of those bytes, or
    // (repeat 0, the run past the last cycle) in none; the good rows come
    // back whole.
    std::vector<eraw> bad_rows;
    for (const auto& r : rows) bad_rows.push_back(r.bin);
    bad_rows.push_back(last);
    bad_rows.push_back(with([](eraw& e) { e.sub = 8; }));
    bad_rows.push_back(with([](eraw& e) { e.box = 40; }));
    bad_rows.push_back(with([](eraw& e) { e.reserved = 1; }));
    bad_rows.push_back(with([](eraw& e) {  // (the bytes of an empty entry)
        e.count = 0xFFFF, e.socket = 0xFF, e.box = 0xFF, e.code = 0xFF, e.ext = 0xFF, e.sub = 0xFF, e.reserved = 0xFF;
    }));
    const eraw good = with([](eraw& e) { e.t = 5, e.repeat = 3; });
    for (const eraw& b : bad_rows) {
        const std::string alone = bin_reason(events_cycles + enc(b), ctx);
        eraw later = b;
        later.t += 10;
        const std::string bytes = events_cycles + enc(good) + enc(good) + enc(later);
        const std::string e = error_of(bytes, "t.bin", ctx);
        EXPECT_EQ(e, "t.bin: record 3: " + alone) << e;
        std::istringstream in(bytes);
        trace_reader r(in, "t.bin", ctx);
        for (int i = 0; i < 2; ++i) {
            event_record got;
            ASSERT_TRUE(r.next(got));
            EXPECT_EQ(got.cycle, 5u);
            EXPECT_EQ(got.repeat, 3u);
            EXPECT_EQ(got.count, 1u);
            EXPECT_EQ(got.box.str(), "ubox");
            EXPECT_EQ(got.line, static_cast<unsigned>(i + 1));
            EXPECT_EQ(got.event, static_cast<unsigned>(*ubox.find("LOCK_CYCLES")));
        }
    }
}

TEST(TraceBinaryRecords, OrderErrorsNameTheRecords) {
    praw a, b;
    a.t = 2000;
    b.t = 1500;
    EXPECT_EQ(error_of(packets_ps + enc(a) + enc(a) + enc(b), "o.bin"),
              "o.bin: record 3: column 'time': '1.5' (1.5 ns) is before the previous row's time "
              "2 ns (record 2): rows must be in time order");
    // By cycle, across clocks: QCLK cycle 2 (2 ns) after UCLK cycle 5 (2.5 ns).
    eraw u, q;
    u.t = 5;
    q.t = 2;
    q.box = 2;
    q.code = catalog_for(box_kind::qpi, cpu_model::ivb_ep)
                 .events()[*catalog_for(box_kind::qpi, cpu_model::ivb_ep).find("TxL_INSERTS")]
                 .code;
    EXPECT_EQ(error_of(events_cycles + enc(u) + enc(q), "o.bin"),
              "o.bin: record 2: column 'cycle': '2' (QCLK cycle 2, at 2 ns) is before the "
              "previous row's time 2.5 ns (record 1): rows must be in time order");
    // Equal times are in order; the cycle comes from the time.
    u.t = 2;
    const auto ok = read_bytes<event_record>(events_cycles + enc(u) + enc(q), ctx_of());
    ASSERT_EQ(ok.size(), 2u);
    EXPECT_EQ(ok[0].time, 1000u);
    EXPECT_EQ(ok[1].time, 2000u);
    EXPECT_EQ(ok[1].box, "qpi0");
    praw t;
    t.t = 1500;  // ps: QCLK cycle 2 is the first at or after 1.5 ns
    EXPECT_EQ(read_bytes<packet_record>(packets_ps + enc(t), ctx_of()).at(0).cycle, 2u);
}

// ---------------------------------------------------------------------------
// gzip

TEST(TraceBinaryGzip, TextAndBinaryInputsAreReadTransparently) {
    const trace_context ctx = ctx_of(cpu_model::ivb_ep, 2, 3);
    const std::string csv = tmp("g.csv"), bin = tmp("g.bin");
    write_file(csv, every_packet_field);
    convert_trace(csv, bin, ctx);
    const auto want = shown(read_path<packet_record>(csv, ctx));
    for (int members : {1, 3}) {
        SCOPED_TRACE(members);
        for (const auto& [src, fmt] : {std::pair{csv, trace_format::text},
                                       std::pair{bin, trace_format::binary}}) {
            const std::string gz = src + ".gz";
            write_gz(gz, read_file(src), members);
            ASSERT_EQ(read_file(gz).substr(0, 2), "\x1f\x8b");
            std::ifstream in(gz, std::ios::binary);
            trace_reader r(in, gz, ctx);
            EXPECT_TRUE(r.compressed());
            EXPECT_EQ(r.format(), fmt);
            EXPECT_EQ(shown(read_path<packet_record>(gz, ctx)), want);
            const trace_summary s = validate_trace(gz, ctx);
            EXPECT_EQ(s.records, 10u);
            EXPECT_EQ(s.last, 18446744073709551615ull);
            // Conversion reads it too: .csv.gz gives the binary, .bin.gz the text.
            const std::string out = tmp("g.out");
            convert_trace(gz, out, ctx);
            if (fmt == trace_format::text) EXPECT_EQ(read_file(out), read_file(bin));
            else EXPECT_EQ(shown(read_path<packet_record>(out, ctx)), want);
            std::remove(out.c_str());
            std::remove(gz.c_str());
        }
    }
    // Events, gzip of binary.
    const std::string ebin = tmp("e.bin.gz");
    eraw e;
    e.t = 4;
    write_gz(ebin, events_cycles + enc(e));
    const auto ev = read_path<event_record>(ebin, ctx);
    ASSERT_EQ(ev.size(), 1u);
    EXPECT_EQ(ev[0].time, 2000u);
    std::remove(ebin.c_str());
    std::remove(csv.c_str());
    std::remove(bin.c_str());
}

TEST(TraceBinaryGzip, BrokenCompressedDataIsAnError) {
    std::string data = "time,port,dir,mc\n";
    for (int i = 0; i < 20000; ++i) data += std::to_string(i) + ",0,rx,NDR\n";
    const std::string gz = tmp("b.gz");
    write_gz(gz, data);
    const std::string good = read_file(gz);
    EXPECT_EQ(error_of(good, "b.gz"), "no error");
    EXPECT_EQ(error_of(good.substr(0, good.size() / 2), "b.gz"),
              "b.gz: gzip: the compressed data ends early (the file is truncated)");
    EXPECT_EQ(error_of(good.substr(0, good.size() - 4), "b.gz"),  // no length in the trailer
              "b.gz: gzip: the compressed data ends early (the file is truncated)");
    std::string bad = good;
    bad[bad.size() - 6] ^= 0x55;  // the CRC
    EXPECT_EQ(error_of(bad, "b.gz"), "b.gz: gzip: the compressed data is corrupt (incorrect data check)");
    bad = good;
    bad[3] = 0x40;  // reserved flag bits
    EXPECT_EQ(error_of(bad, "b.gz"), "b.gz: gzip: the compressed data is corrupt (unknown header flags set)");
    EXPECT_EQ(error_of(good + "junk", "b.gz"),
              "b.gz: gzip: data after the end of the compressed stream is not another gzip member");
    EXPECT_EQ(error_of("\x1f\x8b", "b.gz"),
              "b.gz: gzip: the compressed data ends early (the file is truncated)");
    // gzip of gzip is not unwrapped twice.
    write_gz(gz, good);
    EXPECT_EQ(error_of(read_file(gz), "b.gz"),
              "b.gz: the data is gzip-compressed twice (gzip inside): only text and binary traces, each "
              "possibly gzip- or zstd-compressed once, are read");
    // An error in a row names the row, as without compression.
    write_gz(gz, "time,port,dir,mc\n1,0,rx,NDR\n2,0,up,NDR\n");
    EXPECT_EQ(error_of(read_file(gz), "b.gz"), "b.gz:3:3: column 'dir': 'up' is not rx or tx");
    std::remove(gz.c_str());
}

// ---------------------------------------------------------------------------
// Merging

TEST(TraceBinaryMerge, BinaryAndTextFilesByTime) {
    const std::string bin = tmp("m.bin"), csv = tmp("m.csv"), gz = tmp("m.csv.gz");
    praw a, b, c;
    a.t = 1000;
    b.t = 2000;
    b.mc = qpi_mc::snp;
    c.t = 5000;
    write_file(bin, packets_ps + enc(a) + enc(b) + enc(c));
    write_file(csv, "cycle,box,event,count\n1,ubox,LOCK_CYCLES,1\n4,ubox,LOCK_CYCLES,1\n");
    write_gz(gz, "time,port,dir,mc\n2,1,tx,DRS\n");
    trace_merger m;
    EXPECT_EQ(m.open(bin, ctx_of()), 0u);
    EXPECT_EQ(m.open(csv, ctx_of()), 1u);
    EXPECT_EQ(m.open(gz, ctx_of()), 2u);
    EXPECT_EQ(m.reader(0).format(), trace_format::binary);
    EXPECT_EQ(m.reader(2).format(), trace_format::text);
    EXPECT_TRUE(m.reader(2).compressed());
    std::vector<std::string> got;
    trace_merger::merged_record r;
    while (m.next(r))
        got.push_back(std::to_string(r.source) + ":" + std::to_string(line_of(r.record)) + "@" +
                      std::to_string(time_of(r.record)));
    // Ties at 2 ns: the binary source (added first) before the text ones.
    EXPECT_EQ(got, (std::vector<std::string>{"1:2@500", "0:1@1000", "0:2@2000", "1:3@2000",
                                             "2:2@2000", "0:3@5000"}));
    // A bad record stops the merge with its file and record.
    write_file(bin, packets_ps + enc(a) + enc(c) + enc(b));
    trace_merger m2;
    m2.open(csv, ctx_of());
    m2.open(bin, ctx_of());
    try {
        while (m2.next(r)) {
        }
        FAIL() << "no error";
    } catch (const trace_error& e) {
        EXPECT_EQ(std::string(e.what()),
                  bin + ": record 3: column 'time': '2' (2 ns) is before the previous row's "
                        "time 5 ns (record 2): rows must be in time order");
    }
    for (const auto& f : {bin, csv, gz}) std::remove(f.c_str());
}

// ---------------------------------------------------------------------------
// Conversion errors

TEST(TraceBinaryConvert, ErrorsLeaveNoOutputFile) {
    const std::string csv = tmp("x.csv"), bin = tmp("x.bin"), out = tmp("x.out");
    // A bad row after enough good ones that output was already written.
    std::string text = "cycle,port,dir,mc\n";
    for (int i = 0; i < 100000; ++i) text += std::to_string(i) + ",0,rx,NDR\n";
    write_file(csv, text + "100000,0,up,NDR\n");
    write_file(out, "old contents");
    EXPECT_EQ(convert_error(csv, out), csv + ":100002:3: column 'dir': 'up' is not rx or tx");
    EXPECT_FALSE(exists(out));
    // A bad header: no output at all.
    write_file(csv, "cycle,port,dir\n");
    EXPECT_EQ(convert_error(csv, out), csv + ":1: header: packet trace needs column 'mc'");
    EXPECT_FALSE(exists(out));
    // A bad binary record, a truncated one.
    std::string records;
    for (int i = 0; i < 50000; ++i) records += enc(praw{});
    praw bad;
    bad.vn = 9;
    write_file(bin, packets_ps + records + enc(bad));
    EXPECT_EQ(convert_error(bin, out),
              bin + ": record 50001: column 'vn': '9' is not a virtual network (VN0, VN1, VNA "
                    "or 0-3)");
    EXPECT_FALSE(exists(out));
    write_file(bin, packets_ps + records + "\x01");
    EXPECT_EQ(convert_error(bin, out),
              bin + ": record 50001: the file ends inside this record (1 of its 24 bytes are "
                    "there)");
    EXPECT_FALSE(exists(out));
    // Inputs and outputs that cannot be used.
    EXPECT_EQ(convert_error(tmp("missing.csv"), out), tmp("missing.csv") + ": cannot open the file: No such file or directory");
    EXPECT_FALSE(exists(out));
    write_file(bin, packets_ps + records);
    EXPECT_EQ(convert_error(bin, "/nonexistent/dir/x.csv"), "/nonexistent/dir/x.csv: cannot create the file");
    EXPECT_EQ(convert_error(bin, bin), bin + ": is the input file: give another output");
    EXPECT_EQ(read_file(bin), packets_ps + records);  // untouched
    // Success, for contrast; a non-regular output is written, never removed.
    EXPECT_EQ(convert_error(bin, out), "no error");
    EXPECT_TRUE(exists(out));
    EXPECT_EQ(convert_error(bin, "/dev/null"), "no error");
    for (const auto& f : {csv, bin, out}) std::remove(f.c_str());
}

TEST(TraceBinaryConvert, StandardInputAndOutput) {
    std::istringstream in("time,port,dir,mc\n1,0,rx,NDR\n2.5,1,tx,DRS\n");
    std::ostringstream out;
    std::streambuf* const cin_buf = std::cin.rdbuf(in.rdbuf());
    std::streambuf* const cout_buf = std::cout.rdbuf(out.rdbuf());
    std::string err;
    try {
        convert_trace("-", "-", ctx_of());
    } catch (const std::exception& e) {
        err = e.what();
    }
    const std::string bin = out.str();
    std::istringstream in2(bin);
    std::ostringstream out2;
    std::cin.rdbuf(in2.rdbuf());
    std::cout.rdbuf(out2.rdbuf());
    try {
        convert_trace("-", "-", ctx_of());
    } catch (const std::exception& e) {
        err += e.what();
    }
    std::istringstream in3(packets_ps + enc(praw{}) + "\x01\x02");
    std::ostringstream out3;  // standard output keeps what was written before the error
    std::cin.rdbuf(in3.rdbuf());
    std::cout.rdbuf(out3.rdbuf());
    try {
        convert_trace("-", "-", ctx_of());
    } catch (const std::exception& e) {
        err += std::string("|") + e.what();
    }
    std::cin.rdbuf(cin_buf);
    std::cout.rdbuf(cout_buf);
    EXPECT_EQ(err, "|<stdin>: record 2: the file ends inside this record (2 of its 24 bytes are there)");
    // Version 3: word, time delta (1000 ps, then 1500 ps) as LEB128.
    EXPECT_EQ(bin, std::string("PMONTRC\x03\x01\x00\x10\x00\x00\x00\x00\x00", 16) +
                       std::string("\x02\x00\x00\x00\xe8\x07", 6) + std::string("\x0e\x00\x00\x06\xdc\x0b", 6));
    EXPECT_EQ(out2.str(),
              "time,socket,port,dir,mc,opc,vn,rnid,dnid,rds,flits,ring\n"
              "1,0,0,rx,NDR,0,VN0,0,0,I,1,AK\n"
              "2.5,0,1,tx,DRS,0,VN0,0,0,I,9,\n");
    EXPECT_EQ(out3.str(),
              "time,socket,port,dir,mc,opc,vn,rnid,dnid,rds,flits,ring\n"
              "0,0,0,rx,NDR,0,VN0,0,0,I,1,AK\n");
}

// ---------------------------------------------------------------------------
// Streaming: millions of records in constant memory

using test::heap_in_use;

// A streambuf that produces a binary header and then `records` records, a
// block of them at a time, from a generator (optionally gzip-compressed on
// the fly): the file never exists as a whole.
class generated_binary : public std::streambuf {
public:
    using record_fn = std::function<void(uint64_t, std::string&)>;
    generated_binary(std::string header, uint64_t records, record_fn make, bool gzip = false)
        : header_(std::move(header)), records_(records), make_(std::move(make)), gzip_(gzip) {
        raw_.reserve(64 * 24 + 64);
        out_.resize(1 << 16);
        if (gzip_) {
            EXPECT_EQ(deflateInit2(&zs_, 1, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY), Z_OK);
        }
    }
    ~generated_binary() override {
        if (gzip_) deflateEnd(&zs_);
    }
    uint64_t bytes() const { return bytes_; }

protected:
    int_type underflow() override {
        if (gptr() < egptr()) return traits_type::to_int_type(*gptr());
        for (;;) {
            // The next raw bytes: the header, then up to 64 records.
            if (raw_pos_ == raw_.size() && !raw_done_) {
                raw_.clear();
                raw_pos_ = 0;
                if (!header_done_) {
                    raw_ = header_;
                    header_done_ = true;
                } else {
                    for (int i = 0; i < 64 && next_ < records_; ++i) make_(next_++, raw_);
                    if (raw_.empty()) raw_done_ = true;
                }
            }
            if (!gzip_) {
                if (raw_pos_ == raw_.size()) return traits_type::eof();
                const std::size_t n = raw_.size() - raw_pos_;
                std::memcpy(out_.data(), raw_.data() + raw_pos_, n);
                raw_pos_ += n;
                return deliver(n);
            }
            if (finished_) return traits_type::eof();
            zs_.next_in = reinterpret_cast<Bytef*>(raw_.data() + raw_pos_);
            zs_.avail_in = static_cast<uInt>(raw_.size() - raw_pos_);
            zs_.next_out = reinterpret_cast<Bytef*>(out_.data());
            zs_.avail_out = static_cast<uInt>(out_.size());
            const int rc = deflate(&zs_, raw_done_ ? Z_FINISH : Z_NO_FLUSH);
            raw_pos_ = raw_.size() - zs_.avail_in;
            if (rc == Z_STREAM_END) finished_ = true;
            const std::size_t n = out_.size() - zs_.avail_out;
            if (n) return deliver(n);
        }
    }

private:
    int_type deliver(std::size_t n) {
        bytes_ += n;
        setg(out_.data(), out_.data(), out_.data() + n);
        return traits_type::to_int_type(*gptr());
    }

    std::string header_;
    uint64_t records_;
    record_fn make_;
    bool gzip_;
    z_stream zs_{};
    std::string raw_;
    std::size_t raw_pos_ = 0;
    std::vector<char> out_;
    bool header_done_ = false, raw_done_ = false, finished_ = false;
    uint64_t next_ = 0;
    uint64_t bytes_ = 0;
};

TEST(TraceBinaryStreaming, MillionsOfPacketRecordsValidatedInConstantMemory) {
    constexpr uint64_t kRecords = 5000000;
    std::size_t heap_early = 0, heap_max = 0;
    generated_binary gen(packets_ps, kRecords, [&](uint64_t i, std::string& out) {
        // The reader's buffers exist once it has asked for the first ones.
        if (i == 100000) heap_early = heap_in_use();
        if (i > 100000 && i % 250000 == 0) heap_max = std::max(heap_max, heap_in_use());
        praw p;
        p.t = i * 250;
        p.port = i % 2;
        p.dir = (i >> 2) & 1;
        p.mc = (i % 3) ? qpi_mc::ndr : qpi_mc::drs;
        p.flits = p.mc == qpi_mc::drs ? 9 : 1;
        p.rnid = i % 32;
        out += enc(p);
    });
    std::istream in(&gen);
    const trace_summary s = validate_trace(in, "stream.bin", ctx_of());
    EXPECT_EQ(s.kind, trace_kind::packets);
    EXPECT_EQ(s.records, kRecords);
    EXPECT_EQ(s.first, 0u);
    EXPECT_EQ(s.last, (kRecords - 1) * 250);
    EXPECT_EQ(gen.bytes(), 16 + 24 * kRecords);  // 120 MB went through
    if (heap_early == 0) GTEST_SKIP() << "heap usage is not measurable here";
    EXPECT_LE(heap_max, heap_early + 4096) << "early " << heap_early << ", max " << heap_max;
}

TEST(TraceBinaryStreaming, MillionsOfGzipEventRecordsReadInConstantMemory) {
    constexpr uint64_t kRecords = 2000000;
    const event_catalog& qpi = catalog_for(box_kind::qpi, cpu_model::ivb_ep);
    const uint8_t g1 = qpi.events()[*qpi.find("RxL_FLITS_G1")].code;
    std::size_t heap_early = 0, heap_max = 0;
    generated_binary gen(
        events_cycles, kRecords,
        [&](uint64_t i, std::string& out) {
            eraw e;
            e.t = i;  // QCLK cycle i, and UCLK cycle 2i: the same time
            if (i % 2) {
                e.box = 2 + (i / 2) % 2;
                e.code = g1;
                e.ext = 1;
                e.sub = 1;
                e.count = 2;
            } else {
                e.t = 2 * i;
                e.repeat = 3;
            }
            out += enc(e);
        },
        true);
    std::istream in(&gen);
    trace_reader reader(in, "stream.bin.gz", ctx_of());
    EXPECT_TRUE(reader.compressed());
    event_record e;
    uint64_t n = 0, counted = 0;
    while (reader.next(e)) {
        ASSERT_EQ(e.line, n + 1);
        ASSERT_EQ(e.time, n * 1000);
        counted += e.count * e.repeat;
        ++n;
        // Sampled here, not in the generator: it runs ahead of the records
        // returned by two compressed blocks (some 100,000 records).
        if (n == 1000) heap_early = heap_in_use();
        if (n > 1000 && n % 250000 == 0) heap_max = std::max(heap_max, heap_in_use());
    }
    EXPECT_EQ(n, kRecords);
    EXPECT_EQ(counted, kRecords / 2 * 3 + kRecords / 2 * 2);
    EXPECT_LT(gen.bytes(), 24 * kRecords / 4);  // it was compressed
    if (heap_early == 0) GTEST_SKIP() << "heap usage is not measurable here";
    EXPECT_LE(heap_max, heap_early + 4096) << "early " << heap_early << ", max " << heap_max;
}

}  // namespace
}  // namespace pmonsim::trace
