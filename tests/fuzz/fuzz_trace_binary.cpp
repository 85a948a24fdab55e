// libFuzzer harness: the input as the records of a binary trace behind a valid
// header (packets or events, ps or cycles, fixed or compact records (version
// 3), bursts kept whole or not, read one by one or in batches, or in batches
// with a filter (keep_only(), against every record read and filtered here:
// a difference traps; a row of an event trace the filter skims is not checked
// whole, so an error there ends the comparison), chosen by the first byte),
// so the fuzzer spends its time in the record checks, not in finding the
// magic.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <sstream>
#include <string>
#include <vector>

#include "trace/trace_binary.h"
#include "trace/trace_boxes.h"
#include "trace/trace_reader.h"

using namespace pmonsim::trace;
namespace bf = pmonsim::trace::binary_format;

namespace {

// A record's fields as text (not its bytes: padding is not set), or an error.
std::string show(const packet_record& r) {
    const pmonsim::qpi_packet& p = r.packet;
    return std::to_string(r.line) + ' ' + std::to_string(r.time) + ' ' + std::to_string(r.cycle) + ' ' +
           std::to_string(r.socket) + ' ' + std::to_string(r.port) + ' ' + std::to_string(int(r.dir)) + ' ' +
           std::to_string(p.mc) + ' ' + std::to_string(p.opc) + ' ' + std::to_string(p.vn) + ' ' +
           std::to_string(p.rnid) + ' ' + std::to_string(p.dnid) + ' ' + std::to_string(p.rds) + ' ' +
           std::to_string(p.ring_ad) + ' ' + std::to_string(p.flits) + ' ' + std::to_string(r.run.repeat) + ' ' +
           std::to_string(r.run.spacing);
}
std::string show(const event_record& r) {
    return std::to_string(r.line) + ' ' + std::to_string(r.time) + ' ' + std::to_string(r.cycle) + ' ' +
           std::to_string(r.socket) + ' ' + std::to_string(int(r.kind)) + ' ' + std::to_string(r.unit) + ' ' +
           std::to_string(r.event) + ' ' + std::to_string(r.input) + ' ' + std::to_string(r.count) + ' ' +
           std::to_string(r.repeat);
}

// The records of `file` read until 64 Ki have been decoded (and the error
// that ends them): read() in batches of 64 with keep_only(f), or next() and
// f applied here. `whole`: the file's end or an error ended the reading, not
// the bound. `lines`: each record's line (a binary trace's record number);
// `error_line`: the error's record (0: none).
template <class Record>
std::vector<std::string> read_some(const std::string& file, const trace_context& ctx, bool bursts,
                                   const record_filter& f, bool filtered, bool& whole, std::vector<unsigned>& lines,
                                   unsigned& error_line) {
    constexpr uint64_t kBound = 1 << 16;
    std::istringstream in(file);
    std::vector<std::string> got;
    whole = true;
    try {
        trace_reader r(in, "fuzz.bin", ctx);
        if (bursts) r.keep_bursts();
        if (filtered) r.keep_only(f);
        Record batch[64];
        for (;;) {
            if (r.records() >= kBound) {
                whole = false;
                break;
            }
            const std::size_t n = filtered ? r.read(batch, 64) : (r.next(batch[0]) ? 1 : 0);
            if (n == 0) break;
            for (std::size_t i = 0; i < n; ++i)
                if (filtered || f.keeps(batch[i])) {
                    got.push_back(show(batch[i]));
                    lines.push_back(batch[i].line);
                }
        }
    } catch (const trace_error& e) {
        got.push_back(e.what());
        // (A binary trace's errors name their record in the reason: "record N: ...".)
        if (e.reason().rfind("record ", 0) == 0) error_line = static_cast<unsigned>(std::strtoul(e.reason().c_str() + 7, nullptr, 10));
    }
    return got;
}

// Whether a filtered read skims record n (1-based) of an event trace
// instead of checking it whole (record_filter): a row of a box of this
// machine that the filter drops, its socket in range, its last byte clear.
// (Byte offsets: docs/trace-binary-format.md.)
bool skimmed_row(const std::string& file, unsigned n, const trace_context& ctx, const record_filter& f) {
    constexpr std::size_t socket_at = 18, box_at = 19, last_at = 23;
    const std::size_t at = bf::header_size + std::size_t{n - 1} * bf::record_size;
    if (n == 0 || at + bf::record_size > file.size()) return false;
    const auto byte = [&](std::size_t k) { return static_cast<uint8_t>(file[at + k]); };
    const unsigned socket = byte(socket_at), box = byte(box_at);
    if (socket >= ctx.sockets || box >= trace_box_count || !boxes_on(ctx)[box] || byte(last_at) != 0) return false;
    event_record r;
    r.socket = socket;
    r.kind = trace_boxes[box].kind;
    r.unit = trace_boxes[box].unit;
    return !f.keeps(r);
}

void same_when_filtered(const std::string& file, const trace_context& ctx, bool bursts) {
    record_filter f;  // socket 0's port 1, socket 1's ports 0 and 2; the UBoxes, socket 1's R2PCIe
    f.packets.assign(record_filter::packet_index(ctx.sockets, 0), 0);
    f.packets[record_filter::packet_index(0, 1)] = 1;
    f.packets[record_filter::packet_index(1, 0)] = 1;
    f.packets[record_filter::packet_index(1, 2)] = 1;
    f.events.assign(record_filter::event_index(ctx.sockets, pmonsim::box_kind{}, 0), 0);
    f.events[record_filter::event_index(0, pmonsim::box_kind::ubox, 0)] = 1;
    f.events[record_filter::event_index(1, pmonsim::box_kind::ubox, 0)] = 1;
    f.events[record_filter::event_index(1, pmonsim::box_kind::r2pcie, 0)] = 1;
    std::istringstream in(file);
    trace_kind kind;
    try {
        kind = trace_reader(in, "fuzz.bin", ctx).kind();
    } catch (const trace_error&) {
        return;
    }
    // (Batches may read past the bound: where either stopped at it, the
    // records both read must agree.)
    bool whole_a = true, whole_b = true;
    std::vector<unsigned> lines_a, lines_b;
    unsigned error_a = 0, error_b = 0;
    std::vector<std::string> a = kind == trace_kind::packets
                                     ? read_some<packet_record>(file, ctx, bursts, f, true, whole_a, lines_a, error_a)
                                     : read_some<event_record>(file, ctx, bursts, f, true, whole_a, lines_a, error_a);
    const std::vector<std::string> b =
        kind == trace_kind::packets ? read_some<packet_record>(file, ctx, bursts, f, false, whole_b, lines_b, error_b)
                                    : read_some<event_record>(file, ctx, bursts, f, false, whole_b, lines_b, error_b);
    if (kind == trace_kind::events && error_b != 0 && skimmed_row(file, error_b, ctx, f)) {
        // The reading of everything stopped at a row the filtered reading
        // skims, which checks less of it and in another order (it passes the
        // row, or stops there for another reason): the filtered reading
        // cannot stop before it, the kept rows before it must agree, and
        // nothing after it can be compared.
        if (error_a != 0 && error_a < error_b) __builtin_trap();
        std::size_t keep = 0;
        while (keep < lines_a.size() && lines_a[keep] < error_b) ++keep;
        if (whole_a && keep != b.size() - 1) __builtin_trap();
        a.resize(keep);
        for (std::size_t i = 0; i < std::min(a.size(), b.size() - 1); ++i)
            if (a[i] != b[i]) __builtin_trap();
        return;
    }
    if (whole_a && whole_b && a.size() != b.size()) __builtin_trap();
    for (std::size_t i = 0; i < std::min(a.size(), b.size()); ++i)
        if (a[i] != b[i]) __builtin_trap();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    if (size < 1) return 0;
    std::string file(bf::header_size, '\0');
    std::memcpy(file.data(), bf::magic, bf::magic_size);
    const bool compact = data[0] & 4;
    file[7] = static_cast<char>(compact ? bf::version_compact : bf::version);
    file[8] = static_cast<char>(data[0] & 1 && !compact ? bf::kind_events : bf::kind_packets);
    file[9] = static_cast<char>(data[0] & 2 ? bf::unit_cycles : bf::unit_ps);
    file[10] = static_cast<char>(bf::header_size);
    file[12] = static_cast<char>(compact ? bf::record_size_compact : bf::record_size);
    file.append(reinterpret_cast<const char*>(data + 1), size - 1);
    trace_context ctx;
    ctx.sockets = 2;
    ctx.qpi_ports = 3;
    std::istringstream in(file);
    try {
        if (data[0] & 16) {  // validation: bursts counted whole
            validate_trace(in, "fuzz.bin", ctx);
            return 0;
        }
        trace_reader r(in, "fuzz.bin", ctx);
        if (data[0] & 8) r.keep_bursts();
        // (A few bytes may stand for billions of packets: read a bounded number.)
        // Filtered, against everything filtered here: times in cycles and
        // bursts whole, as a replay reads them, so that a burst is one record
        // (one read() of a filter drops a burst of other ports' packets
        // whole; in ps a spacing of no whole cycles makes it billions of
        // packets, which the harness's bound cannot stop within a read()).
        if (data[0] & 64 && data[0] & 2) {
            same_when_filtered(file, ctx, true);
            return 0;
        }
        if (data[0] & 32 && r.kind() == trace_kind::packets) {  // in batches (version 3: runs in one loop)
            packet_record batch[64];
            for (std::size_t k = 0, n; k < (1 << 20) && (n = r.read(batch, 64)) != 0; k += n) {
            }
            return 0;
        }
        trace_record rec;
        for (int k = 0; k < (1 << 20) && r.next(rec); ++k) {
        }
    } catch (const trace_error&) {
    }
    return 0;
}
