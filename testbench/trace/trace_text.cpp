// The text trace formats: header, rows, and their checks (trace_text.h).
//
// Each row goes to the one-pass fast path first (trace_text_fast.h); the
// rows it declines, and the first of each event text, come here. The checks
// run in a fixed order whatever the order of the columns (socket, then the
// kind's own columns, then the time), so that a row with several bad values
// always names the same one. Error paths build their messages; the paths of
// good rows allocate nothing.
#include "trace/trace_text.h"

#include <array>
#include <limits>
#include <optional>
#include <unordered_map>
#include <vector>

#include "desc/box_spec.h"
#include "trace/trace_boxes.h"
#include "trace/trace_clock.h"
#include "trace/trace_detail.h"
#include "trace/trace_event_cache.h"
#include "trace/trace_input.h"
#include "trace/trace_lex.h"
#include "trace/trace_lines.h"
#include "trace/trace_text_columns.h"
#include "trace/trace_text_fast.h"

namespace pmonsim::trace {

using namespace text;
using lex::ieq;
using lex::istarts;

// ---------------------------------------------------------------------------
// Decoder

// Cache-line aligned: written for every row, often on a reading thread
// (batch_pipe.h), so it must not share a line with the simulation's data.
struct alignas(64) text_trace_decoder::impl {
    std::string file;
    trace_context ctx;
    trace_clock uclk, qclk;
    std::array<const event_catalog*, box_kind_count> catalogs;  // by box kind
    std::array<bool, trace_box_count> box_on;    // by trace box code
    row_clocks clocks;  // by trace box code: the clock rows count
    line_reader lines;

    trace_kind kind = trace_kind::packets;
    std::array<int, n_cols> pos{};        // field index of each column, or -1
    std::vector<std::string> header;      // canonical (lower-case) column names
    std::vector<std::string_view> fields; // of the current row: views of its line
    unsigned lineno = 0;
    uint64_t records = 0;
    bool have_prev = false;
    time_ps prev_time = 0;
    unsigned prev_line = 0;

    event_text_cache cache;
    std::optional<fast_rows> fast;  // rows go there first (unless tests say not to)
    bool use_fast = true;

    impl(source_buf& src, std::string f, const trace_context& c)
        : file(std::move(f)),
          ctx(c),
          uclk(c.uclk_hz),
          qclk(c.qclk_hz),
          clocks(c),
          lines(src, file, trace_reader::max_line_length) {
        catalogs = catalogs_of(ctx.cpu);
        box_on = boxes_on(ctx);
        read_header();
        fast.emplace(pos, header.size(), ctx, clocks, cache);
    }

    // --- Errors (cold: only bad rows get here)

    [[noreturn]] __attribute__((noinline, cold)) void fail(unsigned column,
                                                           const std::string& reason) const {
        throw trace_error(file, lineno, column, reason);
    }
    unsigned column_no(int c) const { return static_cast<unsigned>(pos[c] + 1); }
    // "column 'NAME': 'VALUE' what"
    [[noreturn]] __attribute__((noinline, cold)) void bad(int c, std::string_view value,
                                                          const std::string& what) const {
        fail(column_no(c),
             "column '" + std::string(col_name[c]) + "': " + detail::quoted(value) + ' ' + what);
    }
    [[noreturn]] __attribute__((noinline, cold)) void missing(int c) const {
        fail(column_no(c), "column '" + std::string(col_name[c]) + "': value is missing");
    }

    bool has(int c) const { return pos[c] >= 0; }
    std::string_view get(int c) const {
        return pos[c] >= 0 ? fields[static_cast<std::size_t>(pos[c])] : std::string_view();
    }
    std::string_view required(int c) const {
        const std::string_view v = get(c);
        if (v.empty()) missing(c);
        return v;
    }

    // --- Lines

    // The next line that is neither blank nor a comment.
    bool next_content_line(std::string_view& line) {
        while (lines.next(line)) {
            lineno = lines.number();
            if (!skipped_line(line)) return true;
        }
        return false;
    }

    void read_header() {
        std::string_view line;
        if (!next_content_line(line))
            throw trace_error(file, 0, 0, "no header row (the file is empty or only comments)");
        fields.resize(split_fields(line, nullptr, 0));
        split_fields(line, fields.data(), fields.size());
        pos.fill(-1);
        header.clear();
        std::unordered_map<std::string, std::size_t> seen;  // (not a scan per column: headers may be long)
        for (std::size_t i = 0; i < fields.size(); ++i) {
            const unsigned colno = static_cast<unsigned>(i + 1);
            std::string name(fields[i]);
            for (char& ch : name) ch = lex::lower(ch);
            if (name.empty())
                fail(colno, "header: column " + std::to_string(colno) + " has no name");
            if (const auto [it, fresh] = seen.emplace(name, i); !fresh)
                fail(colno, "header: duplicate column '" + name + "' (also column " +
                                std::to_string(it->second + 1) + ")");
            header.push_back(name);
            for (int c = 0; c < n_cols; ++c)
                if (name == col_name[c]) pos[c] = static_cast<int>(i);
        }
        const bool ev = has(c_box) || has(c_event);
        const bool pk = has(c_mc) || has(c_dir);
        if (ev && pk)
            fail(0, "header: mixes event-trace columns (box, event) and packet-trace columns "
                    "(mc, dir)");
        if (!ev && !pk)
            fail(0, "header: neither a packet trace (needs columns mc and dir) nor an event "
                    "trace (needs columns box and event)");
        kind = ev ? trace_kind::events : trace_kind::packets;
        const packet_route route = describe(ctx.cpu).packets;
        for (std::size_t i = 0; i < header.size(); ++i) {
            int c = -1;
            for (int k = 0; k < n_cols; ++k)
                if (header[i] == col_name[k]) c = k;
            if (c >= 0 && !ev && !packet_column(c, route) && !cpus_with_packet_column(c).empty())
                fail(static_cast<unsigned>(i + 1),
                     "header: column '" + header[i] + "' is for the packet rows of " +
                         cpus_with_packet_column(c) + "; on " + to_string(ctx.cpu) + " " +
                         route_text(route) + " (columns " + column_list(false, route) + ")");
            if (c < 0 || !(ev ? event_column(c) : packet_column(c, route)))
                fail(static_cast<unsigned>(i + 1),
                     "header: unknown column '" + header[i] + "' (" +
                         std::string(ev ? "an event trace has columns "
                                        : "a packet trace has columns ") +
                         column_list(ev, route) + ")");
        }
        if (has(c_time) && has(c_cycle))
            fail(column_no(pos[c_time] > pos[c_cycle] ? c_time : c_cycle),
                 "header: columns 'time' and 'cycle' exclude each other: give one");
        if (!has(c_time) && !has(c_cycle)) fail(0, "header: needs a 'time' or a 'cycle' column");
        std::vector<int> req{c_box, c_event, c_count};
        if (!ev) switch (route) {
                case packet_route::qpi_link: req = {c_port, c_dir, c_mc}; break;
                case packet_route::home_logic: req = {c_src, c_mc}; break;
            }
        for (int c : req)
            if (!has(c))
                fail(0, "header: " + std::string(to_string(kind)) + " needs column '" +
                            col_name[c] + "'");
        fields.assign(header.size(), std::string_view());
    }

    // The row `line`, split into `fields`, as many as the header has.
    void split_row(std::string_view line) {
        const std::size_t n = split_fields(line, fields.data(), fields.size());
        if (n != fields.size()) wrong_field_count(n);
    }

    [[noreturn]] __attribute__((noinline, cold)) void wrong_field_count(std::size_t n) const {
        const std::string what = "row has " + std::to_string(n) + " fields but the header has " +
                                 std::to_string(header.size());
        if (n > header.size()) fail(static_cast<unsigned>(header.size() + 1), what);
        fail(static_cast<unsigned>(n + 1), what + ": no value for column '" + header[n] + "'");
    }

    // --- Values

    unsigned parse_socket() {
        const std::string_view v = get(c_socket);
        if (v.empty()) return 0;
        uint64_t s;
        if (!parse_uint(v, s) || s >= ctx.sockets)
            bad(c_socket, v, "is not a socket of this machine (" +
                                 detail::range_text(ctx.sockets, "socket", "sockets") + ")");
        return static_cast<unsigned>(s);
    }

    unsigned small_uint(int c, unsigned max, const char* what, unsigned dflt) {
        const std::string_view v = get(c);
        if (v.empty()) return dflt;
        unsigned x;
        if (!number_upto(v, max, x)) bad(c, v, what);
        return x;
    }

    // The row's time and cycle in `clk`, then the order check.
    void parse_time(const trace_clock& clk, const char* clk_name, time_ps& t, cycle_t& cyc) {
        if (pos[c_time] >= 0) {
            const std::string_view v = required(c_time);
            switch (lex::parse_ns(v, t)) {
                case lex::num_result::bad:
                    bad(c_time, v, "is not a time in ns (a decimal number such as 12.5)");
                case lex::num_result::too_large:
                    bad(c_time, v, "is too large (times are 64-bit picoseconds)");
                case lex::num_result::ok: break;
            }
            cyc = clk.cycles_before(t);
            if (t > ctx.max_time) beyond_range(c_time, v);
            if (have_prev && t < prev_time) time_goes_back(c_time, v, clk_name, t, cyc);
        } else {
            const std::string_view v = required(c_cycle);
            if (!parse_uint(v, cyc))
                bad(c_cycle, v, "is not a cycle number (a decimal or 0x hex integer)");
            if (cyc > clk.max_cycle())
                bad(c_cycle, v, "is too large (its start time does not fit in 64-bit picoseconds)");
            t = clk.cycle_start(cyc);
            if (t > ctx.max_time) beyond_range(c_cycle, v);
            if (have_prev && t < prev_time) time_goes_back(c_cycle, v, clk_name, t, cyc);
        }
    }

    [[noreturn]] __attribute__((noinline, cold)) void beyond_range(int c, std::string_view v) const {
        bad(c, v, "is beyond the model's time range (" + detail::time_range_text(ctx.max_time) + ")");
    }

    [[noreturn]] __attribute__((noinline, cold)) void time_goes_back(int c, std::string_view v,
                                                                     const char* clk_name,
                                                                     time_ps t, cycle_t cyc) {
        const std::string prev = detail::fmt_ns(prev_time) + " (line " +
                                 std::to_string(prev_line) + "): rows must be in time order";
        if (c == c_time)
            bad(c_time, v, "(" + detail::fmt_ns(t) + ") is before the previous row's time " + prev);
        bad(c_cycle, v, "(" + std::string(clk_name) + " cycle " + std::to_string(cyc) + ", at " +
                            detail::fmt_ns(t) + ") is before the previous row's time " + prev);
    }

    void accept_time(time_ps t) {
        have_prev = true;
        prev_time = t;
        prev_line = lineno;
        ++records;
    }

    // --- Packet rows

    static const char* route_text(packet_route route) {
        switch (route) {
            case packet_route::qpi_link: return "a packet row is a QPI packet a port receives or sends";
            case packet_route::home_logic: return "a packet row is a request reaching the home logic";
        }
        return "";
    }

    void parse_packet(packet_record& r) {
        r.line = lineno;
        r.socket = parse_socket();
        switch (describe(ctx.cpu).packets) {
            case packet_route::qpi_link:
                r.run = burst_run{};
                parse_link_packet(r);
                break;
            case packet_route::home_logic:
                r.addr = no_addr;
                parse_request(r);
                break;
        }
        accept_time(r.time);
    }

    // A request reaching the home logic: its source, class, opcode and
    // physical address, in UCLK cycles.
    void parse_request(packet_record& r) {
        std::string_view v = required(c_src);
        home_src src;
        if (!parse_src(v, src)) bad(c_src, v, "is not a request source (local, remote or ioh)");
        r.port = static_cast<uint8_t>(src);
        r.dir = qpi_dir::rx;
        qpi_packet& p = r.packet;
        parse_class_and_opcode(p);
        p.flits = 1;
        v = get(c_addr);
        if (!v.empty()) {
            uint64_t a;
            if (!parse_uint(v, a) || a > phys_addr_max)
                bad(c_addr, v, "is not a physical address (40 bits: 0-0xffffffffff)");
            r.addr = a;
        }
        parse_time(uclk, "UCLK", r.time, r.cycle);
    }

    // A fresh packet with the row's `mc` and `opc`.
    void parse_class_and_opcode(qpi_packet& p) {
        p = qpi_packet{};
        unsigned x;
        const std::string_view v = required(c_mc);
        if (!parse_mc(v, x))
            bad(c_mc, v, "is not a message class (HOM0, HOM1, SNP, NDR, NCS, NCB, DRS or 0-15)");
        p.mc = static_cast<uint8_t>(x);
        p.opc = static_cast<uint8_t>(small_uint(c_opc, 15, "is not an opcode (0-15)", 0));
    }

    void parse_link_packet(packet_record& r) {
        std::string_view v = required(c_port);
        uint64_t port;
        if (!parse_uint(v, port) || port >= ctx.qpi_ports)
            bad(c_port, v, "is not a QPI port of this machine (" +
                               detail::range_text(ctx.qpi_ports, "port", "ports") + ")");
        r.port = static_cast<unsigned>(port);

        v = required(c_dir);
        switch (word_key(v)) {
            case word_key("RX"): r.dir = qpi_dir::rx; break;
            case word_key("TX"): r.dir = qpi_dir::tx; break;
            default: bad(c_dir, v, "is not rx or tx");
        }

        qpi_packet& p = r.packet;
        parse_class_and_opcode(p);
        unsigned x;
        v = get(c_vn);
        if (!v.empty()) {
            if (!parse_vn(v, x)) bad(c_vn, v, "is not a virtual network (VN0, VN1, VNA or 0-3)");
            p.vn = static_cast<uint8_t>(x);
        }
        p.rnid = static_cast<uint8_t>(small_uint(c_rnid, 31, "is not a node ID (0-31)", 0));
        p.dnid = static_cast<uint8_t>(small_uint(c_dnid, 31, "is not a node ID (0-31)", 0));
        v = get(c_rds);
        if (!v.empty()) {
            if (!parse_rds(v, x))
                bad(c_rds, v, "is not a response data state (I, F, S, E, M or 0-15)");
            p.rds = static_cast<uint8_t>(x);
        }
        v = get(c_ring);
        if (!v.empty()) {
            const uint64_t k = word_key(v);
            if (k == word_key("AD")) p.ring_ad = true;
            else if (k != word_key("AK")) bad(c_ring, v, "is not a ring (AD or AK)");
            if (p.mc != qpi_mc::ndr)
                bad(c_ring, v, "applies to NDR packets only (this packet's class is " +
                                   detail::mc_name(p.mc) + ")");
        }
        v = get(c_flits);
        if (!v.empty()) {
            uint64_t f;
            if (!parse_uint(v, f) || f == 0 || f > 0xFFFF)
                bad(c_flits, v, "is not a packet size in flits (1-65535)");
            p.flits = static_cast<uint16_t>(f);
        } else {
            p.flits = static_cast<uint16_t>(shape_of(p).flits);
        }

        parse_time(qclk, "QCLK", r.time, r.cycle);
    }

    // --- Event rows

    const event_catalog& catalog(box_kind k) const {
        return *catalogs[static_cast<unsigned>(k)];  // (set for every box a row may name)
    }
    std::string catalog_text(box_kind k) const {
        return std::string(to_string(k)) + " catalog (" + to_string(ctx.cpu) + ")";
    }

    void parse_event(event_record& r) {
        r.line = lineno;
        r.socket = parse_socket();

        // Box.
        const std::string_view v = required(c_box);
        unsigned code = 0;
        while (code < trace_box_count && !(box_on[code] && ieq(v, trace_boxes[code].name))) ++code;
        if (code == trace_box_count) bad_box(v);
        r.kind = trace_boxes[code].kind;
        r.unit = trace_boxes[code].unit;
        r.box = box_name_of(code);
        const trace_clock* clk = &clocks.of(code);
        const char* clk_name = clocks.name_of(code);

        // Event and sub-event: the same text resolves the same way (an empty
        // event is never in the cache: resolve() says it is missing).
        const std::string_view ext_v = get(c_ext), cell = get(c_event), um = get(c_umask);
        const resolved_event* found = use_fast ? cache.find(r.kind, ext_v, cell, um) : nullptr;
        const resolved_event res = found ? *found : resolve(r, ext_v, um);
        r.event = res.event;
        r.input = res.input;
        const event_def& def = *res.def;

        // count, repeat.
        std::string_view c = required(c_count);
        uint64_t n;
        if (!parse_uint(c, n) || n > def.max_inc)
            bad(c_count, c, "is not a count of " + def.name + " (0-" +
                                std::to_string(def.max_inc) + " per cycle)");
        r.count = static_cast<uint32_t>(n);
        r.repeat = 1;
        c = get(c_repeat);
        if (!c.empty() && (!parse_uint(c, r.repeat) || r.repeat == 0))
            bad(c_repeat, c, "is not a repeat count (an integer >= 1)");

        parse_quals(r);

        parse_time(*clk, clk_name, r.time, r.cycle);
        if (r.cycle > std::numeric_limits<uint64_t>::max() - r.repeat)
            bad(c_repeat, c, "is too large: the run would pass the last cycle");
        if (!ctx.run_fits(*clk, r.cycle, r.repeat))
            bad(c_repeat, c, "is too large: the run would end beyond the model's time range (" +
                                 detail::time_range_text(ctx.max_time) + ")");
        accept_time(r.time);
    }

    // A qualified row's request attributes (decisions.md B14), checked
    // against the box's filter and the sub-event's filter fields.
    void parse_quals(event_record& r) {
        request_quals& q = r.quals;
        q = request_quals{};
        for (const quals_column& qc : quals_columns) {
            const std::string_view v = get(qc.col);
            if (v.empty()) continue;
            q.given |= qc.field;
            if (qc.col == c_state) {
                const auto st = parse_llc_state(v);
                if (!st) bad(c_state, v, "is not an LLC state (I, S, E, M or F)");
                q.state = static_cast<uint8_t>(*st);
                continue;
            }
            uint64_t x;
            const uint64_t limit = qc.col == c_addr ? ~uint64_t{0} : qc.col == c_opc ? 0xFFFF : 0xFF;
            if (!parse_uint(v, x) || x > limit) bad(qc.col, v, "is not an integer up to " + std::to_string(limit));
            switch (qc.col) {
                case c_nid: q.nid = static_cast<uint8_t>(x); break;
                case c_opc: q.opc = static_cast<uint16_t>(x); break;
                case c_addr: q.addr = x; break;
                default: q.tid = static_cast<uint8_t>(x); break;
            }
        }
        if (q.given == 0) return;
        if (auto p = check_quals(spec_for(r.kind, ctx.cpu, r.unit), r.input, q))
            for (const quals_column& qc : quals_columns) {
                if (col_name[qc.col] != std::string_view(p->column)) continue;
                if (!get(qc.col).empty()) bad(qc.col, get(qc.col), p->reason);
                fail(column_no(has(qc.col) ? qc.col : c_event), "column '" + std::string(p->column) + "': " + p->reason);
            }
    }

    [[noreturn]] __attribute__((noinline, cold)) void bad_box(std::string_view v) const {
        std::string name(v);
        for (char& ch : name) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
        const std::string why = not_driven_reason(name, ctx.cpu);
        if (!why.empty()) bad(c_box, v, why);
        bad(c_box, v, "is not a box of this machine (" + box_list(ctx) + ")");
    }

    // The whole lookup of an event row's event and sub-event, with every
    // check; the result is cached. Throws at the first bad value.
    resolved_event resolve(const event_record& r, std::string_view ext_v, std::string_view um) {
        const event_catalog& cat = catalog(r.kind);

        // ext.
        const bool ext_given = !ext_v.empty();
        bool ext = false;
        if (ext_given) {
            if (ext_v == "0") ext = false;
            else if (ext_v == "1") ext = true;
            else bad(c_ext, ext_v, "is not 0 or 1");
            if (ext && !describe(ctx.cpu).need(r.kind).ctl.ext)
                bad(c_ext, ext_v, "is not allowed for box '" + r.box.str() +
                                      "': only QPI and PCU events have an extra select bit");
        }

        // Event, optionally EVENT.SUB.
        const std::string_view cell = required(c_event);
        std::string_view ev_part = cell, sub;
        bool dotted = false;
        if (const std::size_t dot = cell.find('.'); dot != std::string_view::npos) {
            dotted = true;
            ev_part = lex::trim(cell.substr(0, dot));
            sub = lex::trim(cell.substr(dot + 1));
            if (ev_part.empty() || sub.empty())
                bad(c_event, cell, "is not EVENT or EVENT.SUB-EVENT");
        }
        unsigned e;
        if (!ev_part.empty() && lex::is_digit(ev_part.front())) {
            uint64_t code;
            std::optional<unsigned> found;
            if (parse_uint(ev_part, code) && code <= 0xFF)
                found = cat.find(static_cast<uint8_t>(code), ext);
            if (!found) {
                std::string what = "is not an event code of the " + catalog_text(r.kind);
                if (describe(ctx.cpu).need(r.kind).ctl.ext) what += ext ? " with ext 1" : " with ext 0";
                bad(c_event, cell, what);
            }
            e = *found;
        } else {
            std::string_view name = ev_part;
            if (istarts(name, "UNC_")) {
                const box_kind kinds[] = {box_kind::ubox, box_kind::r2pcie, box_kind::qpi,  box_kind::imc,
                                          box_kind::ha,   box_kind::r3qpi,  box_kind::cbo, box_kind::pcu,
                                          box_kind::irp};
                for (box_kind k : kinds) {
                    if (!istarts(name, prefix_of(k))) continue;
                    if (k != r.kind)
                        bad(c_event, cell, "has the prefix of " + std::string(to_string(k)) +
                                               " events (" + r.box.str() + " events are " +
                                               prefix_of(r.kind) + "*)");
                    name.remove_prefix(std::string_view(prefix_of(k)).size());
                    break;
                }
            }
            const auto found = cat.find(std::string(name));
            if (!found) bad(c_event, cell, "is not an event of the " + catalog_text(r.kind));
            e = *found;
            if (ext_given && ext != cat.events()[e].ext)
                bad(c_ext, ext_v, "does not match " + cat.events()[e].name + ", whose ext is " +
                                      (cat.events()[e].ext ? "1" : "0"));
        }
        const event_def& def = cat.events()[e];
        if (def.name == describe(ctx.cpu).need(r.kind).clock_event)
            bad(c_event, cell, "cannot be driven: " + def.name + " counts the box's own clock");
        if (describe(ctx.cpu).need(r.kind).mirror_code == def.code)
            bad(c_event, cell, "cannot be driven: " + def.name + " is counter 0's increment (drive counter 0's event)");

        // Sub-event.
        if (dotted && !um.empty())
            bad(c_umask, um, "is a second sub-event: column 'event' already gives one (" +
                                 detail::quoted(cell) + ")");
        unsigned input;
        if (def.umasks.empty()) {
            if (dotted)
                bad(c_event, cell, "names a sub-event, but " + def.name + " has none");
            if (!um.empty()) bad(c_umask, um, "is not allowed: " + def.name + " has no sub-events");
            input = *cat.input_of(e, -1);
        } else {
            int bit;
            if (dotted) {
                bit = resolve_sub(def, sub, c_event, cell);
            } else if (!um.empty()) {
                bit = resolve_sub(def, um, c_umask, um);
            } else {
                const std::string subs = detail::sub_list(def);
                if (has(c_umask))
                    fail(column_no(c_umask), "column 'umask': value is missing: " + def.name +
                                                 " has sub-events (" + subs + ")");
                bad(c_event, cell, "has sub-events: give one (" + subs +
                                       ") in a 'umask' column or as " + def.name + ".SUB");
            }
            input = *cat.input_of(e, bit);
        }

        const resolved_event res{e, input, &def};
        cache.insert(r.kind, ext_v, cell, um, res);
        return res;
    }

    // Sub-event of `ev` named by `sub` (a name, bitN, or a one-bit value): the
    // bit (an enumerated event's: the encoding's index, by name or value), or throws at column c, whose whole cell is `cell` (EVENT.SUB in the
    // event column, the value itself in the umask column).
    int resolve_sub(const event_def& ev, std::string_view sub, int c, std::string_view cell) {
        const uint8_t valid = ev.valid_umask();
        if (ev.enumerated) {  // an encoding, by name or value: its index
            const std::vector<uint8_t> enc = ev.encodings();
            uint64_t value = 0;
            for (const auto& u : ev.umasks)
                if (ieq(sub, u.name)) value = u.value;
            if (value == 0 && !parse_uint(sub, value)) value = 0;
            const auto k = std::find(enc.begin(), enc.end(), value);
            if (value != 0 && k != enc.end()) return static_cast<int>(k - enc.begin());
            bad(c, cell, "is not an encoding of " + ev.name + " (" + detail::sub_list(ev) + ")");
        }
        for (const auto& u : ev.umasks)
            if (ieq(sub, u.name)) {
                if (popcount8(u.value) != 1) bad_sub(ev, c, cell, sub, u.value);
                return lowest_bit(u.value);
            }
        if (sub.size() == 4 && istarts(sub, "bit") && sub[3] >= '0' && sub[3] <= '7') {
            const int b = sub[3] - '0';
            if (valid & (1u << b)) return b;
            bad_sub(ev, c, cell, sub, 0);
        }
        uint64_t value;
        if (parse_uint(sub, value) && value != 0 && value <= 0xFF) {
            if (popcount8(static_cast<unsigned>(value)) > 1)
                bad_sub(ev, c, cell, sub, static_cast<unsigned>(value));
            if (valid & value) return lowest_bit(static_cast<unsigned>(value));
        }
        bad_sub(ev, c, cell, sub, 0);
    }


    // --- Rows

    bool next(packet_record& r) {
        std::string_view line;
        if (!next_content_line(line)) return false;
        if (use_fast && fast->packet(line, have_prev, prev_time, r)) {
            r.line = lineno;
            accept_time(r.time);
            return true;
        }
        split_row(line);
        parse_packet(r);
        return true;
    }

    bool next(event_record& r) {
        std::string_view line;
        if (!next_content_line(line)) return false;
        if (use_fast && fast->event(line, have_prev, prev_time, r)) {
            r.line = lineno;
            accept_time(r.time);
            return true;
        }
        split_row(line);
        parse_event(r);
        return true;
    }

    // combination != 0: `sub` names several bits; otherwise it is not defined.
    [[noreturn]] __attribute__((noinline, cold)) void bad_sub(const event_def& ev, int c,
                                                              std::string_view cell,
                                                              std::string_view sub,
                                                              unsigned combination) const {
        std::string text = "column '" + std::string(col_name[c]) + "': " + detail::quoted(cell) +
                           (c == c_event ? ": " + detail::quoted(sub) : std::string()) + ' ';
        if (combination) {
            text += "is a combination of several sub-events (" + detail::hex2(combination) +
                    ") of " + ev.name + ": give one per row";
        } else {
            text += "is not a sub-event of " + ev.name + " (" + detail::sub_list(ev) + ")";
        }
        fail(column_no(c), text);
    }
};

text_trace_decoder::text_trace_decoder(source_buf& src, std::string filename,
                                       const trace_context& ctx)
    : p_(std::make_unique<impl>(src, std::move(filename), ctx)) {}

text_trace_decoder::~text_trace_decoder() = default;

trace_kind text_trace_decoder::kind() const { return p_->kind; }
time_unit text_trace_decoder::unit() const {
    return p_->has(c_time) ? time_unit::ps : time_unit::cycles;
}
uint64_t text_trace_decoder::records() const { return p_->records; }
void text_trace_decoder::use_fast_paths(bool on) { p_->use_fast = on; }
bool text_trace_decoder::next(packet_record& r) { return p_->next(r); }
bool text_trace_decoder::next(event_record& r) { return p_->next(r); }

std::size_t text_trace_decoder::read(packet_record* out, std::size_t n, std::exception_ptr& error) {
    return detail::read_batch(*p_, out, n, error);
}

std::size_t text_trace_decoder::read(event_record* out, std::size_t n, std::exception_ptr& error) {
    return detail::read_batch(*p_, out, n, error);
}

}  // namespace pmonsim::trace
