// Binary format version 3 (compact packet records and bursts;
// testbench/trace/trace_binary_compact.h, docs/trace-binary-format.md) and
// zstd-compressed traces (trace_input.h zstd_source, zstd_sink.h): the bytes
// of the document encoded here by hand, the writer's runs, random packet
// sequences written and read back exactly (seeds printed), the reader's
// order of bursts and records, every error with its message, and zstd
// round trips and refusals.
//
// QCLK 1 GHz (cycle k at k ns), as in test_trace_binary.cpp.
#include <gtest/gtest.h>
#include <zstd.h>

#include <cstdio>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "trace/trace_binary.h"
#include "trace/trace_binary_compact.h"
#include "trace/trace_convert.h"
#include "trace/trace_reader.h"
#include "trace/zstd_sink.h"
#include "trace_test_context.h"

namespace pmonsim::trace {
namespace {

trace_context ctx_of() { return test_trace_context(2, 3); }

std::string bytes(std::initializer_list<unsigned> b) {
    std::string s;
    for (unsigned x : b) s += static_cast<char>(x);
    return s;
}
// The version 3 header of a packet trace: unit 0 ps, 1 cycles; record size 0.
std::string header3(uint8_t unit) { return std::string("PMONTRC\x03\x01", 9) + char(unit) + bytes({16, 0, 0, 0, 0, 0}); }

std::string show(const packet_record& r) {
    const qpi_packet& p = r.packet;
    std::ostringstream s;
    s << r.time << '/' << r.cycle << " s" << unsigned{r.socket} << " p" << unsigned{r.port} << ' '
      << (r.dir == qpi_dir::tx ? "tx" : "rx") << " mc" << int(p.mc) << " opc" << int(p.opc) << " vn" << int(p.vn)
      << " rnid" << int(p.rnid) << " dnid" << int(p.dnid) << " rds" << int(p.rds) << " flits" << p.flits
      << (p.ring_ad ? " AD" : " AK") << " line" << r.line;
    return s.str();
}

std::vector<std::string> read_all(const std::string& data, const trace_context& ctx = ctx_of()) {
    std::istringstream in(data);
    trace_reader r(in, "t.bin", ctx);
    std::vector<std::string> out;
    packet_record p;
    while (r.next(p)) out.push_back(show(p));
    EXPECT_EQ(r.records(), out.size());
    return out;
}

std::string error_of(const std::string& data, const trace_context& ctx = ctx_of()) {
    std::istringstream in(data);
    try {
        validate_trace(in, "t.bin", ctx);
    } catch (const trace_error& e) {
        return e.what();
    }
    return "no error";
}

packet_record packet(uint64_t cycle, unsigned socket, unsigned port, qpi_dir dir, uint8_t mc) {
    packet_record r;
    r.cycle = cycle;
    r.time = cycle * 1000;
    r.socket = static_cast<uint8_t>(socket);
    r.port = static_cast<uint8_t>(port);
    r.dir = dir;
    r.packet.mc = mc;
    r.packet.flits = static_cast<uint16_t>(shape_of(r.packet).flits);
    return r;
}

std::string write(const std::vector<packet_record>& v, time_unit unit, packet_layout layout,
                  uint64_t* file_records = nullptr) {
    std::ostringstream out;
    binary_trace_writer w(out, trace_kind::packets, unit, ctx_of(), layout);
    for (const packet_record& r : v) w.write(r);
    w.flush();
    EXPECT_EQ(w.records(), v.size());
    if (file_records) *file_records = w.file_records();
    return out.str();
}

// ---------------------------------------------------------------------------
// The document's bytes

TEST(TraceCompact, BytesFollowTheDocument) {
    // Four equal DRS packets 5 cycles apart (a burst), an NDR packet between
    // them on socket 1 with 2 flits and ring AD, and an SNP packet at the
    // burst's last cycle, before its packet there (a burst's later packets
    // come after the records of their time).
    packet_record p = packet(5, 0, 1, qpi_dir::rx, qpi_mc::drs);
    p.packet.dnid = 3;
    p.packet.rds = 8;
    packet_record q = packet(12, 1, 0, qpi_dir::tx, qpi_mc::ndr);
    q.packet.ring_ad = true;
    q.packet.flits = 2;
    const packet_record r = packet(20, 1, 0, qpi_dir::tx, qpi_mc::snp);
    std::vector<packet_record> in = {p, p, q, p, r, p};
    in[1].cycle = 10, in[3].cycle = 15, in[5].cycle = 20;
    uint64_t records = 0;
    const std::string got = write(in, time_unit::cycles, packet_layout::compact, &records);
    // Word: mc 3:0, opc 7:4, vn 9:8, rnid 14:10, dnid 19:15, rds 23:20, ring 24,
    // dir 25, port 27:26, socket follows 28, flits follow 29, burst 30.
    const std::string want = header3(1) +
                             bytes({0x0e, 0x80, 0x81, 0x44, 5, 4, 5}) +  // 14 | 3<<15 | 8<<20 | 1<<26 | burst; t 5; x4 every 5
                             bytes({0x02, 0x00, 0x00, 0x33, 7, 1, 2}) +  // 2 | AD | tx | socket, flits; +7; socket 1; 2 flits
                             bytes({0x03, 0x00, 0x00, 0x02, 8});         // 3 | tx; +8 (socket 1 as before)
    EXPECT_EQ(got, want);
    EXPECT_EQ(records, 3u);
    const std::vector<std::string> back = read_all(got);
    ASSERT_EQ(back.size(), 6u);
    EXPECT_EQ(back[0], "5000/5 s0 p1 rx mc14 opc0 vn0 rnid0 dnid3 rds8 flits9 AK line1");
    EXPECT_EQ(back[1], "10000/10 s0 p1 rx mc14 opc0 vn0 rnid0 dnid3 rds8 flits9 AK line1");
    EXPECT_EQ(back[2], "12000/12 s1 p0 tx mc2 opc0 vn0 rnid0 dnid0 rds0 flits2 AD line2");
    EXPECT_EQ(back[3], "15000/15 s0 p1 rx mc14 opc0 vn0 rnid0 dnid3 rds8 flits9 AK line1");
    EXPECT_EQ(back[4], "20000/20 s1 p0 tx mc3 opc0 vn0 rnid0 dnid0 rds0 flits1 AK line3");
    EXPECT_EQ(back[5], "20000/20 s0 p1 rx mc14 opc0 vn0 rnid0 dnid3 rds8 flits9 AK line1");
}

TEST(TraceCompact, TimeInPicosecondsAndLongDeltas) {
    // ps: deltas of 1000 and 300000 ps (2 and 3 LEB128 bytes).
    std::vector<packet_record> in = {packet(1, 0, 0, qpi_dir::rx, qpi_mc::hom0),
                                     packet(301, 0, 0, qpi_dir::rx, qpi_mc::hom1)};
    EXPECT_EQ(write(in, time_unit::ps, packet_layout::compact),
              header3(0) + bytes({0, 0, 0, 0, 0xe8, 0x07}) + bytes({1, 0, 0, 0, 0xe0, 0xa7, 0x12}));
}

// ---------------------------------------------------------------------------
// Runs

TEST(TraceCompact, WriterFindsRunsOnlyWhereTheyReadBackTheSame) {
    const packet_record a = packet(0, 0, 0, qpi_dir::rx, qpi_mc::drs);
    auto at = [](packet_record r, uint64_t c) {
        r.cycle = c;
        return r;
    };
    uint64_t records = 0;
    // Equal spacing: one record; a changed spacing starts another.
    write({at(a, 0), at(a, 9), at(a, 18), at(a, 27), at(a, 30)}, time_unit::cycles, packet_layout::compact, &records);
    EXPECT_EQ(records, 2u);
    // A packet of another stream at the same cycle first: the burst still
    // takes its packet there (a burst's later packets come after the records
    // of their time).
    const packet_record b = packet(0, 0, 1, qpi_dir::rx, qpi_mc::snp);
    write({at(a, 0), at(a, 9), at(b, 18), at(a, 18), at(a, 27)}, time_unit::cycles, packet_layout::compact, &records);
    EXPECT_EQ(records, 2u);  // [a 0 .. 27] b
    // Another stream's packet at the same cycle after it: the packet is a
    // record of its own, which starts the next run.
    write({at(a, 0), at(a, 9), at(a, 18), at(b, 18), at(a, 27)}, time_unit::cycles, packet_layout::compact, &records);
    EXPECT_EQ(records, 3u);  // [a 0, 9] [a 18, 27] b
    // Two bursts extended at one cycle: in the order of their records, or the
    // later one gives its packet back.
    const packet_record c2 = packet(0, 1, 0, qpi_dir::tx, qpi_mc::hom0);
    write({at(a, 0), at(c2, 1), at(a, 4), at(c2, 4), at(c2, 7), at(a, 8)}, time_unit::cycles, packet_layout::compact,
          &records);
    EXPECT_EQ(records, 2u);  // [a 0, 4, 8] [c2 1, 4, 7]
    const std::vector<packet_record> out_of_order = {at(a, 0), at(c2, 1), at(c2, 4), at(a, 4), at(c2, 7), at(a, 8)};
    const std::string f2 = write(out_of_order, time_unit::cycles, packet_layout::compact, &records);
    EXPECT_EQ(records, 4u);  // [a 0] [c2 1] [c2 4, 7] [a 4, 8]
    std::vector<std::string> want2;
    for (const std::string& r : read_all(write(out_of_order, time_unit::cycles, packet_layout::fixed)))
        want2.push_back(r.substr(0, r.rfind(" line")));
    std::vector<std::string> got2;
    for (const std::string& r : read_all(f2)) got2.push_back(r.substr(0, r.rfind(" line")));
    EXPECT_EQ(got2, want2);
    // A field that differs (opc) ends the run.
    packet_record c = at(a, 18);
    c.packet.opc = 1;
    write({at(a, 0), at(a, 9), c, at(a, 27)}, time_unit::cycles, packet_layout::compact, &records);
    EXPECT_EQ(records, 3u);
    // Streams interleaved: each stream's run is one record.
    std::vector<packet_record> two;
    for (uint64_t i = 0; i < 1000; ++i) {
        two.push_back(at(a, 10 * i));
        two.push_back(at(b, 10 * i + 3));
    }
    const std::string f = write(two, time_unit::cycles, packet_layout::compact, &records);
    EXPECT_EQ(records, 2u);
    EXPECT_LT(f.size(), 40u);
    std::vector<std::string> want;
    for (const packet_record& r : two) {
        packet_record x = r;
        x.time = x.cycle * 1000;
        x.line = x.port == 0 ? 1 : 2;
        want.push_back(show(x));
    }
    EXPECT_EQ(read_all(f), want);
}

// Random packets of few kinds on a few streams, with runs, ties and idle
// stretches: read back from version 3 exactly as from version 1.
TEST(TraceCompact, RandomSequencesReadBackExactly) {
    const unsigned seed = std::random_device{}();
    std::cout << "seed " << seed << "\n";
    SCOPED_TRACE("seed " + std::to_string(seed));
    std::mt19937_64 rng(seed);
    for (int round = 0; round < 40; ++round) {
        std::vector<packet_record> v;
        uint64_t t = rng() % 100;
        const unsigned streams = 1 + static_cast<unsigned>(rng() % 6);
        std::vector<packet_record> last(streams);
        std::vector<uint64_t> gap(streams, 1);
        for (unsigned s = 0; s < streams; ++s) last[s] = packet(0, s % 2, s / 2 % 3, s % 3 ? qpi_dir::tx : qpi_dir::rx, qpi_mc::drs);
        const std::size_t n = 1 + rng() % 3000;
        for (std::size_t i = 0; i < n; ++i) {
            const unsigned s = static_cast<unsigned>(rng() % streams);
            packet_record r = last[s];
            if (rng() % 4 == 0) {  // another packet
                r.packet.mc = static_cast<uint8_t>(rng() % 2 ? qpi_mc::drs : qpi_mc::ndr);
                r.packet.opc = static_cast<uint8_t>(rng() % 3);
                r.packet.dnid = static_cast<uint8_t>(rng() % 32);
                r.packet.flits = static_cast<uint16_t>(rng() % 5 == 0 ? 1 + rng() % 20 : shape_of(qpi_packet{r.packet.mc, r.packet.opc}).flits);
                gap[s] = rng() % 12;
            }
            t += rng() % 8 == 0 ? rng() % 50 : (rng() % 3 == 0 ? 0 : gap[s] % 3);
            r.cycle = t;
            r.time = t * 1000;
            last[s] = r;
            v.push_back(r);
        }
        uint64_t records = 0;
        for (time_unit unit : {time_unit::cycles, time_unit::ps}) {
            const std::string v1 = write(v, unit, packet_layout::fixed);
            const std::string v3 = write(v, unit, packet_layout::compact, &records);
            std::vector<std::string> a = read_all(v1), b = read_all(v3);
            ASSERT_EQ(a.size(), v.size());
            ASSERT_EQ(b.size(), v.size());
            for (std::size_t i = 0; i < a.size(); ++i) {  // (lines differ: records against packets)
                a[i] = a[i].substr(0, a[i].rfind(" line"));
                b[i] = b[i].substr(0, b[i].rfind(" line"));
            }
            ASSERT_EQ(a, b) << "round " << round;
            EXPECT_LE(records, v.size());
            // Validation counts bursts whole: the same summary as reading.
            std::istringstream in(v3);
            const trace_summary sum = validate_trace(in, "t.bin", ctx_of());
            EXPECT_EQ(sum.records, v.size());
            EXPECT_EQ(sum.first, unit == time_unit::ps ? v.front().time : v.front().cycle * 1000);
            EXPECT_EQ(sum.last, unit == time_unit::ps ? v.back().time : v.back().cycle * 1000);
        }
    }
}

// Validation takes a burst's packets at once: a record of a few bytes may
// stand for billions of them.
TEST(TraceCompact, ValidationCountsABurstWhole) {
    // NDR at cycle 1, 4294967295 of them 3 cycles apart; an SNP at cycle 2.
    const std::string f = header3(1) + bytes({0x02, 0, 0, 0x40, 1, 0xff, 0xff, 0xff, 0xff, 0x0f, 3}) +
                          bytes({0x03, 0, 0, 0, 1});
    std::istringstream in(f);
    const trace_summary sum = validate_trace(in, "t.bin", ctx_of());
    EXPECT_EQ(sum.records, 4294967296u);
    EXPECT_EQ(sum.first, 1000u);
    EXPECT_EQ(sum.last, (1 + 3 * uint64_t{4294967294}) * 1000);
}

// At one time, the file's records come before the bursts' later packets;
// of two bursts, the one read first comes first.
TEST(TraceCompact, ReaderOrdersRecordsBeforeBurstPacketsAtEqualTimes) {
    const std::string file = header3(1) +
                             bytes({0x02, 0, 0, 0x40, 0, 3, 2}) +    // NDR port 0 rx at 0, x3 every 2
                             bytes({0x03, 0, 0, 0x44, 0, 2, 4}) +    // SNP port 1 at 0, x2 every 4
                             bytes({0x00, 0, 0, 0x02, 2});           // HOM0 tx at 2
    const std::vector<std::string> got = read_all(file);
    std::vector<std::string> kinds;
    for (const std::string& s : got) kinds.push_back(s.substr(0, s.find(" vn")));
    EXPECT_EQ(kinds, (std::vector<std::string>{
                         "0/0 s0 p0 rx mc2 opc0", "0/0 s0 p1 rx mc3 opc0", "2000/2 s0 p0 tx mc0 opc0",
                         "2000/2 s0 p0 rx mc2 opc0", "4000/4 s0 p0 rx mc2 opc0", "4000/4 s0 p1 rx mc3 opc0"}));
}

// A reader that keeps bursts returns one as one record, its spacing in
// QCLK cycles; in ps only when that is a whole number of cycles.
TEST(TraceCompact, KeptBurstsAreOneRecordInCycles) {
    auto kept = [](const std::string& data) {
        std::istringstream in(data);
        trace_reader r(in, "t.bin", ctx_of());
        r.keep_bursts();
        std::vector<std::string> out;
        packet_record p;
        while (r.next(p))
            out.push_back(std::to_string(p.cycle) + " x" + std::to_string(p.run.repeat) + "/" +
                          std::to_string(p.run.spacing));
        EXPECT_EQ(r.records(), 7u);
        return out;
    };
    // NDR at 2, x5 every 3 (cycles); an SNP at 4.
    const std::string body = bytes({0x02, 0, 0, 0x40, 2, 5, 3}) + bytes({0x03, 0, 0, 0, 2}) + bytes({0x03, 0, 0, 0, 9});
    EXPECT_EQ(kept(header3(1) + body), (std::vector<std::string>{"2 x5/3", "4 x1/0", "13 x1/0"}));
    // In ps at 1 GHz: 3000 ps apart is 3 cycles; 2500 ps is not a whole number of them.
    const std::string ps3 = bytes({0x02, 0, 0, 0x40, 0xd0, 0x0f, 5, 0xb8, 0x17}) + bytes({0x03, 0, 0, 0, 0xd0, 0x0f}) +
                            bytes({0x03, 0, 0, 0, 0xd8, 0x36});
    EXPECT_EQ(kept(header3(0) + ps3), (std::vector<std::string>{"2 x5/3", "4 x1/0", "11 x1/0"}));
    const std::string ps25 = bytes({0x02, 0, 0, 0x40, 0xd0, 0x0f, 5, 0xc4, 0x13}) + bytes({0x03, 0, 0, 0, 0xd0, 0x0f}) +
                             bytes({0x03, 0, 0, 0, 0xd8, 0x36});
    EXPECT_EQ(kept(header3(0) + ps25),
              (std::vector<std::string>{"2 x1/0", "4 x1/0", "5 x1/0", "7 x1/0", "10 x1/0", "11 x1/0", "12 x1/0"}));
}

// ---------------------------------------------------------------------------
// Errors

TEST(TraceCompact, ErrorsNameTheRecordAndTheField) {
    const std::string ndr = bytes({0x02, 0, 0, 0});
    const std::string c = header3(1), ps = header3(0);
    EXPECT_EQ(error_of(c + ndr + bytes({1}) + bytes({0x02, 0, 0, 0x80, 1})),
              "t.bin: record 2: reserved bit 31 of the packet word is not zero");
    EXPECT_EQ(error_of(c + ndr + bytes({1}) + bytes({0x02, 0})),
              "t.bin: record 2: the file ends inside this record (the 2 bytes left are not a whole record)");
    EXPECT_EQ(error_of(c + ndr + bytes({0x80, 0x80})),
              "t.bin: record 1: the file ends inside this record (the 6 bytes left are not a whole record)");
    EXPECT_EQ(error_of(c + ndr + std::string(9, '\xff') + bytes({2})),
              "t.bin: record 1: column 'time': is a varint of more than 64 bits");
    EXPECT_EQ(error_of(ps + ndr + std::string(9, '\xff') + bytes({1}) + ndr + bytes({1})),
              "t.bin: record 2: column 'time': '1' (a delta) passes the largest time a record can hold (2^64 - 1)");
    // Field checks are version 1's, with its words.
    EXPECT_EQ(error_of(c + bytes({0x02, 0, 0, 0x0c, 0})),  // port 3
              "t.bin: record 1: column 'port': '3' is not a QPI port of this machine (3 ports: 0-2)");
    EXPECT_EQ(error_of(c + bytes({0x02, 0, 0, 0x10, 0, 2})),  // socket 2
              "t.bin: record 1: column 'socket': '2' is not a socket of this machine (2 sockets: 0-1)");
    EXPECT_EQ(error_of(c + bytes({0x03, 0, 0, 0x01, 0})),  // SNP on ring AD
              "t.bin: record 1: column 'ring': 'AD' applies to NDR packets only (this packet's class is SNP)");
    EXPECT_EQ(error_of(c + bytes({0x02, 0, 0, 0x20, 0, 0})),
              "t.bin: record 1: column 'flits': '0' is not a packet size in flits (1-65535)");
    EXPECT_EQ(error_of(c + bytes({0x02, 0, 0, 0x20, 0, 0xf0, 0xa2, 0x04})),  // 70000
              "t.bin: record 1: column 'flits': '70000' is not a packet size in flits (1-65535)");
    // Bursts.
    EXPECT_EQ(error_of(c + bytes({0x02, 0, 0, 0x40, 0, 1, 1})),
              "t.bin: record 1: column 'repeat': '1' is not a burst's packet count (2-4294967295)");
    EXPECT_EQ(error_of(c + bytes({0x02, 0, 0, 0x40, 0, 0x80, 0x80, 0x80, 0x80, 0x10, 1})),
              "t.bin: record 1: column 'repeat': '4294967296' is not a burst's packet count (2-4294967295)");
    EXPECT_EQ(error_of(c + bytes({0x02, 0, 0, 0x40, 0, 2, 0})),
              "t.bin: record 1: column 'spacing': '0' is not a burst's spacing (an integer >= 1)");
    EXPECT_EQ(error_of(c + bytes({0x02, 0, 0, 0x40, 1, 2}) + std::string(9, '\xff') + bytes({1})),
              "t.bin: record 1: column 'repeat': '2' is too large: the burst would pass the largest time a record "
              "can hold");
    // QCLK 1 GHz: cycles above 2^64 / 1000 have no start time.
    EXPECT_EQ(error_of(c + bytes({0x02, 0, 0, 0x40, 0, 2, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x40})),
              "t.bin: record 1: column 'repeat': '2' is too large: the burst's last packet would be at cycle "
              "4611686018427387904, whose start time does not fit in 64-bit picoseconds");
    trace_context limited = ctx_of();
    limited.max_time = 10000;  // 10 ns
    EXPECT_EQ(error_of(c + bytes({0x02, 0, 0, 0x40, 5, 2, 6}), limited),
              "t.bin: record 1: column 'repeat': '2' is too large: the burst's last packet would be at cycle 11, "
              "beyond the model's time range (10 ns, about 0 days)");
    EXPECT_EQ(error_of(c + bytes({0x02, 0, 0, 0, 11}), limited),
              "t.bin: record 1: column 'cycle': '11' is beyond the model's time range (10 ns, about 0 days)");
    // A reader holds at most max_open_bursts bursts at once.
    std::string many = c;
    for (std::size_t i = 0; i <= compact::max_open_bursts; ++i) many += bytes({0x02, 0, 0, 0x40, 0, 2, 100});
    const std::string too_many = "t.bin: record 2049: more than 2048 bursts would be open at once (a reader holds "
                                 "that many at most)";
    EXPECT_EQ(error_of(many), too_many);  // validation, counting bursts whole
    std::string read_error = "no error";  // reading, packet by packet
    try {
        read_all(many);
    } catch (const trace_error& e) {
        read_error = e.what();
    }
    EXPECT_EQ(read_error, too_many);
    // Bursts that ended before a record do not count: 2048 of them, one at a time, and more.
    std::string ended = c;
    for (std::size_t i = 0; i <= compact::max_open_bursts; ++i) ended += bytes({0x02, 0, 0, 0x40, 10, 2, 1});
    EXPECT_EQ(error_of(ended), "no error");
    // Bad headers of version 3.
    EXPECT_EQ(error_of(std::string("PMONTRC\x03\x02\x01\x10\x00\x18\x00\x00\x00", 16)),
              "t.bin: binary header: version 3 holds QPI link packets (kind 1) only, not kind 2");
}

TEST(TraceCompact, WriterRefusesWhatTheRecordCannotHold) {
    std::ostringstream out;
    binary_trace_writer w(out, trace_kind::packets, time_unit::cycles, ctx_of());
    packet_record r = packet(5, 0, 4, qpi_dir::rx, qpi_mc::ndr);
    EXPECT_THROW(w.write(r), std::invalid_argument);  // port 4
    r.port = 0;
    w.write(r);
    r.cycle = 4;
    EXPECT_THROW(w.write(r), std::invalid_argument);  // before the previous packet
    // A kept burst (keep_bursts) is several packets: no writer takes it as one.
    r.cycle = 6;
    r.run = burst_run{3, 2};
    EXPECT_THROW(w.write(r), std::invalid_argument);
    std::ostringstream out1, text;
    binary_trace_writer fixed(out1, trace_kind::packets, time_unit::cycles, ctx_of(), packet_layout::fixed);
    EXPECT_THROW(fixed.write(r), std::invalid_argument);
    text_trace_writer tw(text, trace_kind::packets, time_unit::cycles, ctx_of());
    EXPECT_THROW(tw.write(r), std::invalid_argument);
    r.run = burst_run{};
    EXPECT_NO_THROW(w.write(r));
    EXPECT_NO_THROW(tw.write(r));
}

// ---------------------------------------------------------------------------
// zstd

// zstd's own compression of `data` as one frame with a checksum; with
// window_log, streamed without its size so that the frame keeps that window.
std::string zstd_of(const std::string& data, int window_log = 0) {
    ZSTD_CCtx* c = ZSTD_createCCtx();
    ZSTD_CCtx_setParameter(c, ZSTD_c_checksumFlag, 1);
    std::string out(ZSTD_compressBound(data.size()) + 64, '\0');
    ZSTD_inBuffer in{data.data(), data.size(), 0};
    ZSTD_outBuffer o{out.data(), out.size(), 0};
    if (window_log) {
        ZSTD_CCtx_setParameter(c, ZSTD_c_windowLog, window_log);
        EXPECT_FALSE(ZSTD_isError(ZSTD_compressStream2(c, &o, &in, ZSTD_e_continue)));
        ZSTD_inBuffer none{nullptr, 0, 0};
        EXPECT_EQ(ZSTD_compressStream2(c, &o, &none, ZSTD_e_end), 0u);
    } else {
        EXPECT_EQ(ZSTD_compressStream2(c, &o, &in, ZSTD_e_end), 0u);
    }
    ZSTD_freeCCtx(c);
    out.resize(o.pos);
    return out;
}

TEST(TraceZstd, TextAndBinaryAreReadThroughZstd) {
    const std::string text = "cycle,port,dir,mc\n1,0,rx,NDR\n2,1,tx,DRS\n";
    std::vector<std::string> plain;
    {
        std::istringstream in(text);
        trace_reader r(in, "t.csv", ctx_of());
        packet_record p;
        while (r.next(p)) plain.push_back(show(p));
    }
    ASSERT_EQ(plain.size(), 2u);
    {
        std::istringstream in(zstd_of(text));
        trace_reader r(in, "t.csv.zst", ctx_of());
        EXPECT_TRUE(r.compressed());
        EXPECT_EQ(r.format(), trace_format::text);
        std::vector<std::string> got;
        packet_record p;
        while (r.next(p)) got.push_back(show(p));
        EXPECT_EQ(got, plain);
    }
    // Two frames, as `cat a.zst b.zst` makes; binary inside.
    const packet_record a = packet(3, 0, 0, qpi_dir::rx, qpi_mc::drs);
    const std::string bin = write({a, a, a}, time_unit::cycles, packet_layout::compact);
    const std::size_t half = bin.size() / 2;
    const std::vector<std::string> want = read_all(bin);
    EXPECT_EQ(read_all(zstd_of(bin.substr(0, half)) + zstd_of(bin.substr(half))), want);
    // zstd_sink writes what zstd_source reads.
    std::ostringstream out;
    {
        zstd_sink sink(out);
        std::ostream os(&sink);
        os << bin;
        sink.finish();
    }
    EXPECT_EQ(read_all(out.str()), want);
}

TEST(TraceZstd, BrokenAndOversizedFramesAreErrors) {
    const std::string text = "cycle,port,dir,mc\n1,0,rx,NDR\n";
    const std::string z = zstd_of(text);
    EXPECT_EQ(error_of(z.substr(0, z.size() - 3)), "t.bin: zstd: the compressed data ends early (the file is truncated)");
    std::string bad = z;
    bad[bad.size() / 2 + 2] ^= 0x5a;
    const std::string e = error_of(bad);
    EXPECT_EQ(e.rfind("t.bin: zstd: the compressed data is corrupt (", 0), 0u) << e;
    EXPECT_EQ(error_of(z + "junk"), "t.bin: zstd: the compressed data is corrupt (Unknown frame descriptor)");
    EXPECT_EQ(error_of(zstd_of(z)),
              "t.bin: the data is zstd-compressed twice (zstd inside): only text and binary traces, each possibly "
              "gzip- or zstd-compressed once, are read");
    // A window above 32 MiB is refused, naming the window the frame asks for.
    const std::string big(1 << 20, 'x');
    EXPECT_EQ(error_of(zstd_of(text + "#" + big + "\n", 27)),
              "t.bin: zstd: a frame needs a window of 128 MiB, more than the 32 MiB this reader allows (compress "
              "without --long, or with --long=25 at most)");
}

}  // namespace
}  // namespace pmonsim::trace
