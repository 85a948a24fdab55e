// The binary trace format (docs/trace-binary-format.md): a 16-byte header and
// little-endian records carrying what a text row carries after parsing:
// fixed-size 24-byte records (versions 1 and 2), or compact records of QPI
// link packets with run-length bursts (version 3, trace_binary_compact.h).
// For replaying long captures quickly: records are read in large blocks and
// checked with the same rules, and the same messages, as text rows ("FILE:
// record N: reason" instead of "FILE:LINE:COLUMN: reason").
//
// trace_reader reads binary traces by itself (it tells them apart by content);
// this header is for writing them, and for the reader's decoder.
#pragma once
#include <cstddef>
#include <cstdint>
#include <exception>
#include <memory>
#include <ostream>
#include <string>

#include "trace/trace_reader.h"

namespace pmonsim::trace {

namespace binary_format {
// Header (16 bytes).
constexpr char magic[] = "PMONTRC";        // bytes 0-6
constexpr std::size_t magic_size = 7;
constexpr uint8_t version = 1;             // byte 7: of kinds 1 and 2
constexpr uint8_t version_requests = 2;    // version 2 adds kind 3
constexpr uint8_t version_compact = 3;     // version 3: kind 1 in compact records (trace_binary_compact.h)
// Version 4: kind 2 whose event records may carry request attributes: one
// with byte 23 set to 1 is followed by a 24-byte qualifier record (B14).
constexpr uint8_t version_quals = 4;
constexpr uint8_t kind_packets = 1;        // byte 8: QPI link packets
constexpr uint8_t kind_events = 2;
constexpr uint8_t kind_requests = 3;       // requests at the home logic (packet_route::home_logic)
constexpr uint8_t unit_ps = 0;             // byte 9
constexpr uint8_t unit_cycles = 1;
constexpr std::size_t header_size = 16;    // bytes 10-11 (u16)
constexpr std::size_t record_size = 24;    // bytes 12-13 (u16), every kind of versions 1 and 2
constexpr std::size_t record_size_compact = 0;  // version 3: no fixed size
                                           // bytes 14-15: reserved, 0
// Event records: the box byte is the trace box code (trace_boxes.h: 0 ubox,
// 1 r2pcie, 2-4 qpi0-qpi2, 5 uncore); the sub-event byte of an event
// without sub-events is:
constexpr uint8_t no_sub_event = 0xFF;
}  // namespace binary_format

// Which records a writer writes for QPI link packets: compact ones (version
// 3, bursts found and written as one record), or fixed 24-byte ones
// (version 1, for readers of the first format). Event traces are version 4
// where boxes filter requests (version 1 with `fixed`, which cannot hold a
// row's request attributes) and version 1 elsewhere; request traces are
// version 2 either way.
enum class packet_layout { compact, fixed };

// Writes a binary trace of one kind to `out` (which must outlive the writer):
// the header at once, then the records given, buffered in blocks. The
// records are written as they are (no range checks: the reader does those);
// values the format cannot hold throw std::invalid_argument (an event
// record's socket above 255 or port above 2, a count above 65535, an event or
// input that is not in the context's catalog, a kept burst of several packets
// (trace_reader::keep_bursts); in compact packet records a field wider than
// its bits, or a time before the previous packet's). A
// packet with flits 0 gets its class's size. Compact records hold back the
// packets of bursts still open (at most burst_finder::max_pending records):
// flush() writes them.
class binary_trace_writer {
public:
    binary_trace_writer(std::ostream& out, trace_kind kind, time_unit unit,
                        const trace_context& ctx, packet_layout layout = packet_layout::compact);
    // Flushes, ignoring errors: call flush() to see them.
    ~binary_trace_writer();
    binary_trace_writer(const binary_trace_writer&) = delete;
    binary_trace_writer& operator=(const binary_trace_writer&) = delete;

    // The time field is the record's time (unit ps) or its cycle (unit cycles).
    // The overloads throw std::logic_error for a record of the other kind.
    void write(const packet_record& r);
    void write(const event_record& r);
    void write(const trace_record& r);

    // Hands everything buffered to the stream (closing open bursts) and
    // flushes it; throws std::runtime_error if the stream fails.
    void flush();

    trace_kind kind() const { return kind_; }
    time_unit unit() const { return unit_; }
    uint64_t records() const { return records_; }  // packets or rows written (a burst counts its packets)
    uint64_t file_records() const { return file_records_; }  // records in the file so far

private:
    unsigned char* slot();
    void write_compact(const packet_record& r);
    void drain_compact();
    struct compact_state;
    std::unique_ptr<compact_state> compact_;  // null: fixed records

    std::ostream& out_;
    trace_kind kind_;
    time_unit unit_;
    cpu_model cpu_;
    std::unique_ptr<unsigned char[]> buf_;
    std::size_t used_ = 0;
    uint64_t records_ = 0;
    uint64_t file_records_ = 0;
    bool quals_ = false;  // version 4 event records: request attributes (B14)
};

class source_buf;

// The binary half of trace_reader: reads and checks the header at
// construction, then one record per next(), validated like a text row.
// Holds one block of records (fixed size) whatever the length of the input.
class binary_trace_decoder {
public:
    static constexpr std::size_t block_records = 8192;

    binary_trace_decoder(source_buf& src, std::string filename, const trace_context& ctx);
    ~binary_trace_decoder();
    binary_trace_decoder(const binary_trace_decoder&) = delete;
    binary_trace_decoder& operator=(const binary_trace_decoder&) = delete;

    trace_kind kind() const;
    time_unit unit() const;
    uint64_t records() const;

    // The next record (line = its 1-based record number); false at the end.
    bool next(packet_record& r);
    bool next(event_record& r);
    // Up to n records into `out`, as next() would return them; fewer only at
    // the end or at a bad record, whose exception is then kept in `error`
    // (the records before it are returned).
    std::size_t read(packet_record* out, std::size_t n, std::exception_ptr& error);
    std::size_t read(event_record* out, std::size_t n, std::exception_ptr& error);
    // Packet traces: up to n records checked as read() checks them, without
    // making records (validation keeps only the times): how many, and the
    // times of the first and last of them. (Version 3: a burst counts all its
    // packets at once, so more than n may come back, and `last` is the latest
    // time so far.)
    std::size_t check_packets(std::size_t n, time_ps& first, time_ps& last, std::exception_ptr& error);
    // Version 3: bursts whose spacing is a whole number of QCLK cycles within
    // 32 bits come as one record (trace_reader::keep_bursts).
    void keep_bursts();
    // read() returns only the records `f` keeps (null: all); next() is not
    // filtered (trace_reader filters it).
    void keep_only(const record_filter* f);

    // Whether version 3's usual records are walked eight at a time (AVX2;
    // the default where the CPU has it) or one at a time, for every decoder;
    // returns the setting before. (Tests: both walks give next()'s records.)
    static bool walk_eight_at_a_time(bool on);

private:
    struct impl;
    std::unique_ptr<impl> p_;
};

}  // namespace pmonsim::trace
