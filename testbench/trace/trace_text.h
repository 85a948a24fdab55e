// The text half of trace_reader (trace_reader.h describes the formats):
// reads and checks the header row at construction, then one row per next().
//
// Built for speed, since every row is read twice (validate_trace, then the
// replay): lines are split where the input's buffer holds them (trace_lines.h),
// fields are views of the line, numbers and names are parsed without
// allocating, and the sub-event an event row names is looked up once per
// distinct (box, event, umask, ext) text, not once per row.
#pragma once
#include <cstddef>
#include <cstdint>
#include <exception>
#include <memory>
#include <string>

#include "trace/trace_reader.h"

namespace pmonsim::trace {

class source_buf;

class text_trace_decoder {
public:
    // Reads up to and including the header row (throws trace_error if it is bad).
    text_trace_decoder(source_buf& src, std::string filename, const trace_context& ctx);
    ~text_trace_decoder();
    text_trace_decoder(const text_trace_decoder&) = delete;
    text_trace_decoder& operator=(const text_trace_decoder&) = delete;

    trace_kind kind() const;
    time_unit unit() const;   // a `time` column: ps; a `cycle` column: cycles
    uint64_t records() const; // rows returned

    // The next row (line = its line number); false at the end. Throws
    // trace_error on a bad row.
    bool next(packet_record& r);
    bool next(event_record& r);
    // Up to n records into `out`, as next() would return them; fewer only at
    // the end or at a bad row, whose exception is then kept in `error` (the
    // rows before it are returned).
    std::size_t read(packet_record* out, std::size_t n, std::exception_ptr& error);
    std::size_t read(event_record* out, std::size_t n, std::exception_ptr& error);

    // For tests: false sends every row through the general parser, without
    // the one-pass fast path and the cache of resolved events (the two ways
    // must give the same records and the same errors).
    void use_fast_paths(bool on);

private:
    struct impl;
    std::unique_ptr<impl> p_;
};

}  // namespace pmonsim::trace
