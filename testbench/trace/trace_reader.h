// Streaming readers of the two text trace formats (DECISIONS.md "QPI link
// layer": packets and per-cycle event increments drive the model).
//
// Both formats are CSV with a header row. The header tells them apart:
//
//   packet trace  (one QPI packet received or sent per row)
//     required  time | cycle, port, dir, mc
//     optional  socket, opc, vn, rnid, dnid, rds, flits, ring
//   or, on a CPU whose packet_route is home_logic (one request reaching the
//   home logic per row, in UCLK cycles)
//     required  time | cycle, src, mc
//     optional  socket, opc, addr
//   event trace   (per-cycle increments of any catalog event)
//     required  time | cycle, box, event, count
//     optional  socket, umask, ext, repeat
//
// Syntax: lines whose first non-blank character is `#` are comments; blank
// lines are ignored; CR LF line ends and a UTF-8 byte-order mark are accepted.
// Fields are separated by commas and trimmed of spaces and tabs; there is no
// quoting (no value of either format needs a comma). Column names and named
// values are case-insensitive, and columns may come in any order. An unknown
// column is an error (so a misspelt optional column such as `flit` cannot
// silently fall back to its default), and so is a duplicate one. A row must
// have exactly as many fields as the header; an empty field of an optional
// column means its default. Integers are decimal or 0x hex.
//
// Time: `time` is in ns, a decimal number (`12.5`); it is converted exactly to
// integer picoseconds, and digits beyond the third fractional one round half
// up to the nearest ps (traces produced from floating-point arithmetic, e.g. at
// 7.2 GT/s where a QCLK is 1111.1 ps, stay usable). `cycle` is an integer in
// the row's box clock (QCLK for packets and qpiN, UCLK for ubox and r2pcie).
// A `time` row keeps its time and gets cycle = the first cycle of its clock
// starting at or after it; a `cycle` row gets time = the start of that cycle.
// Rows must be in non-decreasing time order (in ps, across boxes and clocks).
//
// Every bad input throws trace_error with what() = "FILE:LINE:COLUMN: reason"
// (COLUMN is the 1-based field number; the reason names the column and the
// offending value). Memory use does not depend on the length of the file: one
// line is held at a time, and lines longer than max_line_length are an error.
//
// Binary and compressed traces: the reader tells formats apart by content, so
// every function here that reads a trace also reads the binary format
// (trace_binary.h, docs/trace-binary-format.md: the first bytes are "PMONTRC")
// and gzip-compressed text or binary (first bytes 1f 8b), streaming. Binary
// records get the same checks and messages as text rows, with "record N" for
// the place: what() = "FILE: record N: reason"; their `line` is the record
// number.
#pragma once
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <istream>
#include <ostream>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "catalog/catalog.h"
#include "desc/clock.h"
#include "desc/cpu.h"
#include "desc/qpi_packet.h"
#include "desc/request_quals.h"

namespace pmonsim::trace {

// Bad trace input. what() is "FILE:LINE:COLUMN: reason" ("FILE:LINE: reason"
// when the problem is not in one column, "FILE: reason" when not in one line).
class trace_error : public std::runtime_error {
public:
    trace_error(std::string file, unsigned line, unsigned column, std::string reason);
    const std::string& file() const { return file_; }
    unsigned line() const { return line_; }      // 1-based; 0: the file as a whole
    unsigned column() const { return column_; }  // 1-based field number; 0: the line
    const std::string& reason() const { return reason_; }

private:
    std::string file_;
    unsigned line_;
    unsigned column_;
    std::string reason_;
};

// The machine a trace is read for (fill it from uncore_config: cpu, sockets,
// qpi_ports, memory_controllers, cores_per_socket(), uclk_hz(), qclk_hz(), dclk_hz(), pclk_hz()).
struct trace_context {
    cpu_model cpu = default_cpu;
    unsigned sockets = 1;
    unsigned qpi_ports = 2;
    unsigned memory_controllers = 1;
    unsigned cores = 8;  // per socket: the caching agents
    uint64_t uclk_hz = 2000000000ull;
    uint64_t qclk_hz = 1000000000ull;
    uint64_t dclk_hz = 800000000ull;
    uint64_t pclk_hz = 800000000ull;
    // The latest time a record, or the end of an event row's run, may have
    // (trace_context_of() sets the model's: half of max_model_time).
    time_ps max_time = ~time_ps{0};

    // Whether an event run of `repeat` cycles from `cycle` ends in time.
    // (Without a limit, a run only has to stay within 64-bit cycles.)
    template <class Clock>
    bool run_fits(const Clock& clk, cycle_t cycle, uint64_t repeat) const {
        if (max_time == ~time_ps{0}) return true;
        return cycle <= clk.max_cycle() - std::min(repeat, clk.max_cycle()) && clk.cycle_start(cycle + repeat) <= max_time;
    }
};

enum class trace_kind { packets, events };
const char* to_string(trace_kind k);

// How a trace gives its times: `time` (ps; ns in the text format) or `cycle`.
enum class time_unit { ps, cycles };
// How a trace is stored (either may be gzip-compressed).
enum class trace_format { text, binary };
const char* to_string(trace_format f);

// A packet row. Where it goes is the CPU's packet_route: a QPI port's link
// (qpi_link), or the socket's home logic (home_logic: a request, whose
// source is held in `port` and whose cycle is a UCLK cycle).
// A run-length burst of QPI link packets, from a reader that keeps them
// (trace_reader::keep_bursts): `repeat` equal packets, the k-th in cycle
// cycle + k * spacing. Every other record is one packet: repeat 1.
struct burst_run {
    uint32_t repeat = 1;
    uint32_t spacing = 0;  // QCLK cycles
};

struct packet_record {
    time_ps time = 0;    // the row's time (for a `cycle` row: the start of that cycle)
    cycle_t cycle = 0;   // cycle in which the packet's header is ready (QCLK; home_logic: UCLK)
    // Where the CPU's packet_route says which: the run of a QPI link packet
    // (qpi_link), or the request's physical address, no_addr for none
    // (home_logic; a reader sets it). They share 8 bytes.
    union {
        burst_run run{};
        uint64_t addr;
    };
    unsigned line = 0;   // line of the row in its file (binary: record number)
    uint8_t socket = 0;
    uint8_t port = 0;    // QPI port; home_logic: the request's home_src
    qpi_dir dir = qpi_dir::rx;
    qpi_packet packet;   // packet.flits is always set: the `flits` column or shape_of()

    home_src source() const { return static_cast<home_src>(port); }
};
// The reading thread writes them on one core and the replay reads them on
// the other, 40 bytes per packet.
static_assert(sizeof(packet_record) == 40);

// The name of the box an event record drives: "ubox", "r2pcie", "qpi0",
// "qpi1" or "qpi2", held in place (up to 7 characters; longer ones are cut).
// Not a std::string so that records are plain bytes: the merger and the
// replayer copy one per record.
class box_name {
public:
    box_name() = default;
    box_name& operator=(std::string_view s) {
        const std::size_t n = s.size() < sizeof s_ - 1 ? s.size() : sizeof s_ - 1;
        for (std::size_t i = 0; i < sizeof s_; ++i) s_[i] = i < n ? s[i] : '\0';
        return *this;
    }
    box_name& operator=(const char* s) { return *this = std::string_view(s); }
    box_name& operator=(const std::string& s) { return *this = std::string_view(s); }
    void assign(std::string_view s) { *this = s; }

    const char* c_str() const { return s_; }
    std::string_view view() const { return std::string_view(s_); }
    std::string str() const { return std::string(s_); }
    operator std::string_view() const { return view(); }
    bool empty() const { return s_[0] == '\0'; }
    std::size_t size() const { return view().size(); }

    friend bool operator==(const box_name& a, const box_name& b) { return a.view() == b.view(); }
    friend bool operator==(const box_name& a, const char* b) { return a.view() == b; }
    friend bool operator==(const char* a, const box_name& b) { return b == a; }
    friend bool operator==(const box_name& a, const std::string& b) { return a.view() == b; }
    friend bool operator==(const std::string& a, const box_name& b) { return b == a; }
    template <class T>
    friend bool operator!=(const box_name& a, const T& b) { return !(a == b); }
    friend std::ostream& operator<<(std::ostream& os, const box_name& b) { return os << b.s_; }

private:
    char s_[8] = {};
};

struct event_record {
    unsigned line = 0;
    time_ps time = 0;    // the row's time (for a `cycle` row: the start of that cycle)
    cycle_t cycle = 0;   // first cycle, in the box's clock
    unsigned socket = 0;
    box_kind kind = box_kind::ubox;  // ubox, r2pcie or qpi
    unsigned unit = 0;               // QPI port (0 for ubox and r2pcie)
    box_name box;                    // "ubox", "r2pcie", "qpi0", "qpi1" or "qpi2"
    unsigned event = 0;              // index into catalog_for(kind, cpu).events()
    unsigned input = 0;              // catalog input (sub-event) index
    uint32_t count = 0;              // increment per cycle, 0..max_inc
    uint64_t repeat = 1;             // number of consecutive cycles, >= 1
    // A qualified row's request attributes (decisions.md B14); given == 0:
    // the row states counts that already matched.
    request_quals quals;
};

// Which records a reader returns: a parallel replay's thread reads every
// trace itself and keeps the records of the boxes it owns (replay.h). Every
// record is still read and checked, and those of other boxes dropped, but
// for read() of a binary event trace: a row of another box of this machine
// is skimmed (its time and place in the time order checked, its event not:
// the thread that keeps it checks it whole). An empty table keeps everything
// of its kind; an index past it is kept.
struct record_filter {
    // Packets by socket * 256 + port (a QPI port, or a request's home_src).
    std::vector<uint8_t> packets;
    // Event rows by (socket * box_kind_count + kind) * max_units + unit.
    std::vector<uint8_t> events;
    static constexpr std::size_t max_units = 64;

    static std::size_t packet_index(unsigned socket, unsigned port) { return std::size_t{socket} * 256 + port; }
    static std::size_t event_index(unsigned socket, box_kind kind, unsigned unit) {
        return (std::size_t{socket} * box_kind_count + static_cast<unsigned>(kind)) * max_units + unit;
    }
    bool keeps(const packet_record& r) const {
        const std::size_t i = packet_index(r.socket, r.port);
        return i >= packets.size() || packets[i];
    }
    bool keeps(const event_record& r) const {
        const std::size_t i = r.unit < max_units ? event_index(r.socket, r.kind, r.unit) : events.size();
        return i >= events.size() || events[i];
    }
};

using trace_record = std::variant<packet_record, event_record>;
// Inline: the merger and the replayer ask once or twice per record.
inline time_ps time_of(const trace_record& r) {
    if (const auto* p = std::get_if<packet_record>(&r)) return p->time;
    return std::get_if<event_record>(&r)->time;
}
inline unsigned line_of(const trace_record& r) {
    if (const auto* p = std::get_if<packet_record>(&r)) return p->line;
    return std::get_if<event_record>(&r)->line;
}

class trace_reader {
public:
    static constexpr std::size_t max_line_length = 65536;

    // Reads up to and including the header row (a binary trace: its header);
    // throws trace_error if it is bad, std::invalid_argument if the context is
    // (no socket, more than 3 QPI ports, a zero clock). `in` must outlive the
    // reader, which reads it through its own buffer (in blocks, ahead of the
    // records returned).
    trace_reader(std::istream& in, std::string filename, const trace_context& ctx);
    ~trace_reader();
    trace_reader(const trace_reader&) = delete;
    trace_reader& operator=(const trace_reader&) = delete;

    trace_kind kind() const;
    trace_format format() const;
    bool compressed() const;  // gzip
    time_unit unit() const;   // text: a `time` column is ps, a `cycle` column cycles
    const std::string& filename() const;
    // Records returned so far.
    uint64_t records() const;

    // The next row: false at the end of the file. Throws trace_error on a bad
    // row; the typed overloads throw std::logic_error for the other kind.
    bool next(packet_record& r);
    bool next(event_record& r);
    bool next(trace_record& r);

    // The next rows, up to n of them, into `out`: what n calls of next()
    // would return, for a fraction of the cost per record. 0 at the end of
    // the file. A bad row ends the batch before it, and the next call (of
    // read() or next()) throws its error: callers see the same records and
    // the same error in the same order as with next().
    std::size_t read(packet_record* out, std::size_t n);
    std::size_t read(event_record* out, std::size_t n);
    // Packet traces: what read() would return, up to n rows, keeping only
    // how many and the times of the first and last (binary traces are then
    // checked without making records; a version 3 burst counts all its
    // packets at once, so more than n may come back, and `last` is the
    // latest time so far). The same checks and errors as read().
    std::size_t skim_packets(std::size_t n, time_ps& first, time_ps& last);

    // From now on, return a run-length burst of a binary trace (version 3;
    // its spacing in QCLK cycles a whole number within 32 bits) as one record
    // (run.repeat > 1)
    // instead of its packets one by one; its packets then follow the
    // records after it only in time. For a replay that places bursts in
    // closed form (replay.h); every other reader sees packets.
    void keep_bursts();

    // From now on, return only the records `f` keeps (read() and next()
    // alike; the others are read, checked and dropped, or skimmed:
    // record_filter). `f` must outlive the reader's reading.
    void keep_only(const record_filter& f);

private:
    struct impl;
    std::unique_ptr<impl> p_;
};

struct trace_summary {
    trace_kind kind;
    uint64_t records = 0;
    time_ps first = 0;  // time of the first and last record (0 when there are none)
    time_ps last = 0;
};

// Reads a whole trace once to check it (nothing is stored), throwing
// trace_error on the first bad row.
trace_summary validate_trace(std::istream& in, const std::string& filename,
                             const trace_context& ctx);
// The same for a file (trace_error "PATH: cannot open the file" if it cannot).
// A large uncompressed file is checked as two halves on two threads; when
// that does not settle it (some row is bad), by one pass as above, so the
// result and the error are always those of one pass (trace_validate.cpp).
trace_summary validate_trace(const std::string& path, const trace_context& ctx);
// The same, naming the file `name` in messages.
trace_summary validate_trace(const std::string& path, const std::string& name,
                             const trace_context& ctx);

// Merges several traces (either kind, mixed) by time. Stable: among records
// with equal times, earlier-added sources come first, and one source's rows
// keep their order. Holds one pending record per source.
class chunked_text_rows;  // trace_chunks.h

class trace_merger {
public:
    struct merged_record {
        std::size_t source = 0;  // index returned by add()
        trace_record record;
    };

    trace_merger();
    ~trace_merger();
    trace_merger(const trace_merger&) = delete;
    trace_merger& operator=(const trace_merger&) = delete;

    // A reader owned by the caller (it must outlive the merger).
    std::size_t add(trace_reader& reader);
    // A stream the merger owns, read with a reader it creates (throws on a bad header).
    std::size_t add(std::unique_ptr<std::istream> in, std::string filename,
                    const trace_context& ctx);
    // Opens a file (throws trace_error "FILE: cannot open" if it cannot).
    std::size_t open(const std::string& path, const trace_context& ctx);

    // Source `source` takes its rows from `rows` (the same file's, parsed on
    // its own threads: trace_chunks.h) instead of from its reader, which
    // has read the header. Before the first next(); `rows` must outlive the
    // merger's reading.
    void read_rows_with(std::size_t source, chunked_text_rows& rows);

    // Read every source on a background thread, in batches of `batch`
    // records, up to `depth` batches ahead (batch_pipe.h). Before the
    // first next(); the readers are then the thread's until the merger goes.
    void use_reading_thread(std::size_t batch = 1024, std::size_t depth = 8);

    std::size_t sources() const;
    const trace_reader& reader(std::size_t source) const;

    // The next record in time order; false when every source is exhausted.
    // Sources cannot be added once next() has been called.
    bool next(merged_record& out);

    // The next records in time order that all come from one source and are
    // before `until`, in place: a view of the merger's batch, valid until
    // the next call to next(), next_run() or next_time(). Exactly one of
    // `packets` and `events` is set unless the run is empty (n == 0: every
    // source is exhausted or the next record is at or after `until`). A
    // replay loop takes records this way without copying each one, but a bad
    // record in a source's next batch is then reported by the call after the
    // run that ends its current batch, not by that run.
    struct run {
        const packet_record* packets = nullptr;
        const event_record* events = nullptr;
        std::size_t n = 0;
        std::size_t source = 0;
    };
    run next_run(time_ps until);
    // The time of the next record; the largest time_ps when there is none.
    time_ps next_time();
    // The latest time among the records the merger has read and not yet
    // moved past (0 when it holds none): no later than the last record of
    // the traces, and not earlier than next_time() while there are records.
    // A replay that does not know where its traces end runs to here.
    time_ps last_in_hand() const;

private:
    struct impl;
    std::unique_ptr<impl> p_;
};

}  // namespace pmonsim::trace
