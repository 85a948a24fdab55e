// validate_trace() of a file (testbench/trace/trace_validate.cpp): a large
// file is checked as two halves on two threads, and must give exactly what
// one pass over the stream gives: the same summary, or the same error (a bad
// row in either half, time going back right at the split, a truncated binary
// file), named as asked.
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>

#include <unistd.h>

#include "trace/trace_binary.h"
#include "trace/trace_reader.h"
#include "trace/trace_validate.h"

namespace pmonsim::trace {
namespace {

trace_context ctx_of() {
    trace_context c;
    c.sockets = 2;
    c.qpi_ports = 2;
    return c;
}

// A file in the test's temporary directory, removed at the end. The name
// carries the process id: CTest runs each test in its own process, in
// parallel, and they all share TempDir().
struct temp_file {
    std::string path;
    temp_file(const std::string& name, const std::string& bytes)
        : path(::testing::TempDir() + std::to_string(::getpid()) + "_" + name) {
        std::ofstream(path, std::ios::binary) << bytes;
    }
    ~temp_file() { std::remove(path.c_str()); }
};

// validate_trace's result as text: the summary or the error.
template <class F>
std::string outcome(F&& validate) {
    try {
        const trace_summary s = validate();
        return std::to_string(int(s.kind)) + " " + std::to_string(s.records) + " " +
               std::to_string(s.first) + " " + std::to_string(s.last);
    } catch (const trace_error& e) {
        return std::string("error ") + e.what();
    }
}

// The file validated by path and as a stream (one pass): the same outcome.
// `halves`: whether the two halves settle it (a good file) or not.
void expect_same(const std::string& bytes, bool halves, const std::string& name = "big.csv") {
    temp_file f("trace_validate_" + name, bytes);
    const std::string by_path =
        outcome([&] { return validate_trace(f.path, name, ctx_of()); });
    std::istringstream in(bytes);
    const std::string one_pass = outcome([&] { return validate_trace(in, name, ctx_of()); });
    EXPECT_EQ(by_path, one_pass);
    trace_summary s{};
    EXPECT_EQ(detail::validate_in_halves(f.path, name, ctx_of(), s), halves) << one_pass;
    if (halves) {
        EXPECT_EQ(outcome([&] { return s; }), one_pass);
    }
}

// A packet trace of about 5 MB (above the size that is split).
std::string big_packets(const std::string& header = "cycle,socket,port,dir,mc,opc\n") {
    std::string t = "# a big trace\n\n" + header;
    for (unsigned i = 0; t.size() < (5u << 20); ++i)
        t += std::to_string(1000000 + i / 2) + ",1,0,rx,DRS," + std::to_string(i % 16) + "\n";
    return t;
}

// Where the second half starts: the first line after the middle.
std::size_t split_of(const std::string& t) { return t.find('\n', t.size() / 2) + 1; }

TEST(TraceValidateFile, LargeTextFilesGiveTheOnePassSummary) {
    const std::string t = big_packets();
    expect_same(t, true);
    temp_file f("trace_validate_summary.csv", t);
    const trace_summary s = validate_trace(f.path, ctx_of());
    EXPECT_EQ(s.kind, trace_kind::packets);
    EXPECT_GT(s.records, 100000u);
    EXPECT_EQ(s.first, 1000000u * 1000);
    // CR LF lines and a byte-order mark, an event trace.
    std::string crlf = "\xEF\xBB\xBF" "cycle,box,event,umask,count\r\n";
    for (unsigned i = 0; crlf.size() < (5u << 20); ++i)
        crlf += std::to_string(i) + ",qpi1,RxL_FLITS_G1,DRS_DATA,2\r\n";
    expect_same(crlf, true, "events.csv");
}

TEST(TraceValidateFile, ErrorsAreThoseOfOnePass) {
    const std::string t = big_packets();
    const std::size_t split = split_of(t);
    // A bad value early, just before the split, at it, and late.
    for (std::size_t at : {std::size_t(200), split - 30, split, t.size() - 30}) {
        std::string bad = t;
        const std::size_t row = bad.rfind('\n', at - 1) + 1;
        bad.replace(bad.find(",rx,", row), 4, ",rr,");
        expect_same(bad, false);
    }
    // Time going back exactly at the split: each half is in order by itself.
    std::string back = t;
    back[split] = '0';  // cycle 1xxxxxx becomes 0xxxxxx: earlier, same width
    expect_same(back, false);
    back[split] = '1';
    back[t.rfind('\n', split - 2) + 1] = '0';  // the row before it goes back: the first half says
    expect_same(back, false);
    // A header the rows do not fit (the second half fails on every row).
    expect_same(big_packets("cycle,port,dir,mc\n"), false);
    // Small files are not split.
    expect_same("cycle,port,dir,mc\n1,0,rx,NDR\n", false, "small.csv");
    // Missing file.
    EXPECT_EQ(outcome([] { return validate_trace("/nonexistent/t.csv", "t.csv", ctx_of()); }),
              "error t.csv: cannot open the file: No such file or directory");
}

TEST(TraceValidateFile, LargeBinaryFilesTooIncludingBrokenOnes) {
    std::ostringstream out;
    {
        binary_trace_writer w(out, trace_kind::packets, time_unit::cycles, ctx_of(), packet_layout::fixed);
        packet_record r;
        r.packet.mc = qpi_mc::drs;
        for (unsigned i = 0; i < 250000; ++i) {
            r.cycle = i / 3;
            r.port = i % 2;
            w.write(r);
        }
    }
    const std::string bin = out.str();
    expect_same(bin, true, "big.bin");
    // A bad record in the second half, time going back at the split, a tail.
    std::string bad = bin;
    bad[16 + 24 * 200000 + 11] = 7;  // port 7
    expect_same(bad, false, "big.bin");
    std::string back = bin;
    const std::size_t split = 16 + (250000 / 2) * 24;
    back[split] = 0;  // the first record of the second half goes back to cycle 0-ish
    back[split + 1] = 0;
    expect_same(back, false, "big.bin");
    expect_same(bin + "abc", false, "big.bin");
}

}  // namespace
}  // namespace pmonsim::trace
