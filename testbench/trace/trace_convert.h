// Conversion between the text trace formats (trace_reader.h) and the binary
// format (trace_binary.h, docs/trace-binary-format.md), and a writer of the
// text formats.
#pragma once
#include <cstdint>
#include <memory>
#include <ostream>
#include <string>

#include "trace/trace_binary.h"
#include "trace/trace_reader.h"

namespace pmonsim::trace {

// Converts a trace. The output's format is the one its name ends in: .csv or
// .txt text, .bin binary (so text to text writes the text in the writer's
// form, binary to binary checks and rewrites the binary); any other name, and
// "-", gets the other format than the input's: binary becomes text, text
// becomes binary. The input's format is told by content; a gzip- or
// zstd-compressed input is read transparently, but an output named .gz is
// refused (trace_error "OUT: ..." before anything is read or written). "-" is
// standard input / standard output (named <stdin> / <stdout> in messages).
// Streams in constant memory, validating every record as it goes, exactly as
// replay does. On any error the partly written output file is removed (unless
// it is standard output or not a regular file) and the error is rethrown:
// trace_error for bad input ("IN: record N: ...", "IN:LINE:COLUMN: ..."), and
// trace_error "OUT: cannot create the file" / "OUT: cannot write the file" /
// "OUT: is the input file: give another output" for the output; the context's
// std::invalid_argument passes through. A bad header leaves no output at all.
//
// Round trips are exact: text -> binary -> text gives the same records (all
// fields but `line`), binary -> text -> binary gives identical bytes.
// A binary output of QPI link packets is written in `layout`'s records;
// an output named NAME.zst is compressed with zstd (zstd_sink.h) and gets the
// format NAME asks for.
void convert_trace(const std::string& in, const std::string& out, const trace_context& ctx,
                   packet_layout layout = packet_layout::compact);

// Writes a text trace of one kind to `out` (which must outlive the writer):
// the header row at once, then one row per record with every column given,
// in a form trace_reader reads back to the same record:
//   packets  time|cycle,socket,port,dir,mc,opc,vn,rnid,dnid,rds,flits,ring
//   events   time|cycle,socket,box,event,umask,count,repeat
// `time` is ns with up to three decimals (exact ps); named values are written
// by name (mc HOM0/HOM1/SNP/NDR/NCS/NCB/DRS, vn VN0/VN1/VNA, rds I/F/S/E/M,
// numbers otherwise); ring is AD/AK on NDR packets and empty on others; an
// event is its catalog name and its sub-event the umask bit's name (bitN
// when only a combination names it; empty for an event without sub-events).
// Records are written as they are: no range or order checks.
class text_trace_writer {
public:
    text_trace_writer(std::ostream& out, trace_kind kind, time_unit unit,
                      const trace_context& ctx);
    // Flushes, ignoring errors: call flush() to see them.
    ~text_trace_writer();
    text_trace_writer(const text_trace_writer&) = delete;
    text_trace_writer& operator=(const text_trace_writer&) = delete;

    // The overloads throw std::logic_error for a record of the other kind,
    // std::invalid_argument for an event or input not in the context's
    // catalog, or a kept burst of several packets (trace_reader::keep_bursts).
    void write(const packet_record& r);
    void write(const event_record& r);
    void write(const trace_record& r);

    // Hands everything buffered to the stream and flushes it; throws
    // std::runtime_error if the stream fails.
    void flush();

    uint64_t records() const { return records_; }

private:
    std::ostream& out_;
    trace_kind kind_;
    time_unit unit_;
    cpu_model cpu_;
    std::string buf_;
    bool quals_ = false;  // event rows carry request attributes (B14)
    uint64_t records_ = 0;
};

}  // namespace pmonsim::trace
