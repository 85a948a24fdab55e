// chunked_text_rows (trace_chunks.h): a text trace's rows parsed in chunks on
// two threads are the records one reader gives, in file order; chunk errors
// come after the records before them; time order is checked across chunks.
#include <gtest/gtest.h>

#include <unistd.h>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "trace/trace_chunks.h"
#include "unit/trace_test_context.h"

namespace pmonsim::trace {
namespace {

std::string tmp(const std::string& name) {
    return ::testing::TempDir() + "trace_chunks_" + std::to_string(::getpid()) + "_" + name;
}

void write_file(const std::string& path, const std::string& text) { std::ofstream(path, std::ios::binary) << text; }

// What one reader gives (all but `line`, which names a chunk's line).
std::string shown(const event_record& r) {
    std::ostringstream s;
    s << r.time << '/' << r.cycle << ' ' << r.box << ' ' << r.event << '/' << r.input << " x" << r.count << " r"
      << r.repeat << " q" << int(r.quals.given);
    return s.str();
}
std::string shown(const packet_record& r) {
    std::ostringstream s;
    s << r.time << '/' << r.cycle << " s" << int(r.socket) << " p" << int(r.port) << ' ' << int(r.packet.mc) << '/'
      << int(r.packet.opc) << '/' << r.packet.flits;
    return s.str();
}
template <class Record>
std::vector<std::string> one_reader(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    trace_reader r(in, path, test_trace_context());
    std::vector<std::string> out;
    for (Record rec; r.next(rec);) out.push_back(shown(rec));
    return out;
}
template <class Record>
std::vector<std::string> chunked(chunked_text_rows& c) {
    std::vector<std::string> out;
    std::vector<Record> v;
    for (std::size_t n; (n = c.next(v)) != 0;) {
        EXPECT_GE(v.size(), n);
        for (std::size_t i = 0; i < n; ++i) out.push_back(shown(v[i]));
    }
    return out;
}

// An event trace with comments, blank lines and CRLF line ends, cut into
// chunks of 64 bytes: every record as one reader gives it, in order.
TEST(TraceChunks, EventRowsAsOneReaderGivesThem) {
    std::string text = "# a comment\r\n\r\ncycle,box,event,umask,count,repeat,state\r\n";
    for (int i = 0; i < 500; ++i) {
        text += std::to_string(2 * i) + ",r2pcie,RING_AD_USED,CW_VR0_EVEN,1," + std::to_string(1 + i % 3) + ",\r\n";
        if (i % 7 == 0) text += "# between rows\r\n\r\n";
        if (i % 5 == 0) text += std::to_string(2 * i) + ",cbo1,LLC_LOOKUP,DATA_READ,1,2,M\r\n";
    }
    const std::string path = tmp("events.csv");
    write_file(path, text);
    auto c = chunked_text_rows::open(path, path, test_trace_context(), nullptr, 3, 0, 64);
    ASSERT_NE(c, nullptr);
    EXPECT_EQ(c->kind(), trace_kind::events);
    const auto want = one_reader<event_record>(path);
    EXPECT_EQ(want.size(), 600u);
    EXPECT_EQ(chunked<event_record>(*c), want);
    std::remove(path.c_str());
}

TEST(TraceChunks, PacketRowsAndTheBytesRead) {
    std::string text = "cycle,port,dir,mc,opc\n";
    for (int i = 0; i < 3000; ++i) text += std::to_string(i) + "," + std::to_string(i % 2) + ",rx,DRS," + std::to_string(i % 4) + "\n";
    const std::string path = tmp("packets.csv");
    write_file(path, text);
    std::atomic<uint64_t> bytes{0};
    auto c = chunked_text_rows::open(path, path, test_trace_context(), &bytes, 2, 0, 1000);
    ASSERT_NE(c, nullptr);
    EXPECT_EQ(chunked<packet_record>(*c), one_reader<packet_record>(path));
    EXPECT_EQ(bytes.load(), text.size() - 22) << "every row's byte, once";
    std::vector<event_record> wrong;
    EXPECT_THROW(c->next(wrong), std::logic_error);
    // Small, compressed or not there: one reader instead.
    EXPECT_EQ(chunked_text_rows::open(path, path, test_trace_context()), nullptr) << "below 4 MiB";
    EXPECT_EQ(chunked_text_rows::open(path, path, test_trace_context(), nullptr, 1, 0, 1000), nullptr) << "one worker";
    EXPECT_EQ(chunked_text_rows::open(tmp("none.csv"), "none.csv", test_trace_context(), nullptr, 2, 0, 64), nullptr);
    std::remove(path.c_str());
}

// A bad row: the records of the chunks before it and of its chunk up to it,
// then its error. A chunk that starts before the one before it ends in time:
// an error when it is taken.
TEST(TraceChunks, ErrorsComeInFileOrder) {
    std::string text = "cycle,port,dir,mc\n";
    for (int i = 0; i < 400; ++i) text += std::to_string(10 + i) + ",0,rx," + (i == 300 ? "DRX" : "DRS") + "\n";
    const std::string path = tmp("bad.csv");
    write_file(path, text);
    auto c = chunked_text_rows::open(path, path, test_trace_context(), nullptr, 2, 0, 100);
    ASSERT_NE(c, nullptr);
    std::size_t n = 0;
    std::vector<packet_record> v;
    EXPECT_THROW(
        {
            for (std::size_t k; (k = c->next(v)) != 0;) n += k;
        },
        trace_error);
    EXPECT_EQ(n, 300u);
    // Rows in order within each 100-byte chunk, not across one chunk's start.
    text = "cycle,port,dir,mc\n";
    for (int i = 0; i < 400; ++i) text += std::to_string(i < 200 ? 1000 + i : 500 + i) + ",0,rx,DRS\n";
    write_file(path, text);
    auto d = chunked_text_rows::open(path, path, test_trace_context(), nullptr, 2, 0, 100);
    ASSERT_NE(d, nullptr);
    try {
        while (d->next(v) != 0) {
        }
        FAIL() << "no error";
    } catch (const trace_error& e) {
        EXPECT_NE(std::string(e.what()).find("rows must be in time order"), std::string::npos) << e.what();
    }
    std::remove(path.c_str());
}

}  // namespace
}  // namespace pmonsim::trace
