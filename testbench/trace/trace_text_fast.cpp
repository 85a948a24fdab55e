// The text decoder's fast path (trace_text_fast.h).
#include "trace/trace_text_fast.h"

#include <limits>

#include "trace/trace_swar.h"

namespace pmonsim::trace::text {

// The pieces below are forced inline into packet() and event(): they run
// several times per row, and a call each would cost as much as their work.

// Splits `line` into scan_; false unless it has as many fields as the header.
__attribute__((always_inline)) inline bool fast_rows::scan_fields(std::string_view line) {
    const char* const p = line.data();
    const std::size_t size = line.size(), n = fields_;
    span* f = scan_.data();
    if (size <= 64) {
        uint64_t commas = swar::comma_mask(p, size);
        unsigned at = 0;
        for (std::size_t i = 0; i + 1 < n; ++i) {
            if (commas == 0) return false;  // too few fields
            const unsigned c = static_cast<unsigned>(__builtin_ctzll(commas));
            commas &= commas - 1;
            f[i] = {p + at, c - at};
            at = c + 1;
        }
        f[n - 1] = {p + at, static_cast<unsigned>(size) - at};
        return commas == 0;  // or too many
    }
    const char* q = p;
    const char* const end = p + size;
    for (std::size_t i = 0;; ++i) {
        const char* const b = q;
        while (q < end && *q != ',') ++q;
        f[i] = {b, static_cast<unsigned>(q - b)};
        if (i + 1 == n) return q == end;
        if (q == end) return false;
        ++q;
    }
}

// A field of 1-19 decimal digits and nothing else: its value.
__attribute__((always_inline)) inline bool fast_rows::decimal(const span& f, uint64_t& v) {
    if (f.size - 1 < 2) {  // one or two digits (most columns): two bytes, no word arithmetic
        const unsigned c0 = static_cast<unsigned char>(f.begin[0]) - unsigned{'0'};
        const unsigned c1 = static_cast<unsigned char>(f.begin[1]) - unsigned{'0'};  // (padding if one)
        const bool two = f.size == 2;
        v = two ? c0 * 10 + c1 : c0;
        return (c0 <= 9) & (!two | (c1 <= 9));
    }
    if (f.size <= 8) return f.size != 0 && swar::digits8(f.begin, f.size, v);
    if (f.size <= 16) {
        uint64_t hi, lo;
        if (!swar::digits8(f.begin, f.size - 8, hi) || !swar::digits8(f.begin + f.size - 8, 8, lo))
            return false;
        v = hi * 100000000ull + lo;
        return true;
    }
    if (f.size > 19) return false;  // more could overflow: the general path decides
    uint64_t x = 0;
    for (unsigned i = 0; i < f.size; ++i) {
        if (!lex::is_digit(f.begin[i])) return false;
        x = x * 10 + unsigned(f.begin[i] - '0');
    }
    v = x;
    return true;
}

// Column c: absent or empty (true, v unchanged), a number (true, v set), or
// something else (false).
__attribute__((always_inline)) inline bool fast_rows::number_or_empty(int c, uint64_t& v) const {
    if (pos_[c] < 0 || field(c).size == 0) return true;
    return decimal(field(c), v);
}

// Column c's name key (swar::key7); 0 when absent, empty or too long.
__attribute__((always_inline)) inline uint64_t fast_rows::key(int c) const {
    if (pos_[c] < 0) return 0;
    const span& f = field(c);
    return f.size - 1 < 7 ? swar::key7(f.begin, f.size) : 0;
}

// Column c's text (empty if absent); false if a blank starts or ends it.
__attribute__((always_inline)) inline bool fast_rows::text(int c, std::string_view& v) const {
    if (pos_[c] < 0) {
        v = std::string_view();
        return true;
    }
    v = std::string_view(field(c).begin, field(c).size);
    return v.empty() || !(lex::is_blank(v.front()) || lex::is_blank(v.back()));
}

// A named column that may also be a number up to max: its value, or
// none_named. An absent or empty column gives `dflt`. (The name first: it is
// the usual spelling, and no name is all digits.)
template <unsigned Bits>
__attribute__((always_inline)) inline unsigned fast_rows::name_or_number(int c, const swar::name_table<Bits>& names,
                                                                         unsigned max, unsigned dflt) const {
    if (pos_[c] < 0 || field(c).size == 0) return dflt;
    const unsigned named = names.find(key(c));
    if (named != none_named) return named;
    uint64_t v;
    if (decimal(field(c), v)) return v <= max ? static_cast<unsigned>(v) : none_named;
    return none_named;
}

// The row's time or cycle, converted in `clk`, not before `after`.
__attribute__((always_inline)) inline bool fast_rows::time(const trace_clock& clk, bool ordered, time_ps after, time_ps& t,
                            cycle_t& cyc) const {
    if (pos_[c_time] >= 0) {
        std::string_view v;
        if (!text(c_time, v) || lex::parse_ns(v, t) != lex::num_result::ok) return false;
        cyc = clk.cycles_before(t);
    } else {
        uint64_t k;
        if (!decimal(field(c_cycle), k) || k > clk.max_cycle()) return false;
        cyc = k;
        t = clk.cycle_start(cyc);
    }
    return t <= max_time_ && !(ordered && t < after);
}

bool fast_rows::packet(std::string_view line, bool ordered, time_ps after, packet_record& r) {
    if (!link_packets_ || !scan_fields(line)) return false;
    constexpr uint64_t none = ~uint64_t{0};  // more than 19 digits can say
    uint64_t socket = 0, port = none, opc = 0, rnid = 0, dnid = 0, flits = none;
    if (!number_or_empty(c_socket, socket) || !number_or_empty(c_port, port) ||
        !number_or_empty(c_opc, opc) || !number_or_empty(c_rnid, rnid) ||
        !number_or_empty(c_dnid, dnid) || !number_or_empty(c_flits, flits))
        return false;
    const unsigned dir = dir_table.find(key(c_dir));
    const unsigned mc = name_or_number(c_mc, mc_table, 15, none_named);
    const unsigned vn = name_or_number(c_vn, vn_table, 3, 0);
    const unsigned rds = name_or_number(c_rds, rds_table, 15, 0);
    const bool ring_given = pos_[c_ring] >= 0 && field(c_ring).size != 0;
    const unsigned ring = ring_given ? ring_table.find(key(c_ring)) : 0;
    // The checks of the general parser, all at once (a missing port is `none`).
    if ((dir | mc | vn | rds | ring) == none_named || socket >= sockets_ ||
        port >= qpi_ports_ || opc > 15 || rnid > 31 || dnid > 31 ||
        (flits != none && (flits == 0 || flits > 0xFFFF)) || (ring_given && mc != qpi_mc::ndr))
        return false;
    qpi_packet p;
    p.mc = static_cast<uint8_t>(mc);
    p.opc = static_cast<uint8_t>(opc);
    p.vn = static_cast<uint8_t>(vn);
    p.rnid = static_cast<uint8_t>(rnid);
    p.dnid = static_cast<uint8_t>(dnid);
    p.rds = static_cast<uint8_t>(rds);
    p.ring_ad = ring == 1;
    p.flits = static_cast<uint16_t>(flits != none ? flits : shape_of(p).flits);
    if (!time(clocks_.qclk(), ordered, after, r.time, r.cycle)) return false;
    r.socket = static_cast<unsigned>(socket);
    r.port = static_cast<unsigned>(port);
    r.dir = dir ? qpi_dir::tx : qpi_dir::rx;
    r.packet = p;
    r.run = burst_run{};
    return true;
}

bool fast_rows::event(std::string_view line, bool ordered, time_ps after, event_record& r) {
    if (!events_ || !scan_fields(line)) return false;
    constexpr uint64_t none = ~uint64_t{0};
    uint64_t socket = 0, count = none, repeat = 1;
    if (!number_or_empty(c_socket, socket) || !number_or_empty(c_count, count) ||
        !number_or_empty(c_repeat, repeat) || socket >= sockets_ || repeat == 0)
        return false;
    std::string_view cell, um, ext_v;
    if (!text(c_event, cell) || !text(c_umask, um) || !text(c_ext, ext_v)) return false;
    if (quals_columns_)
        for (const quals_column& q : quals_columns) {  // a qualified row: the general parser's
            std::string_view v;
            if (!text(q.col, v) || !v.empty()) return false;
        }
    const unsigned b = box_table.find(key(c_box));
    if (b == none_named || !box_on_[b]) return false;
    const box_kind kind = trace_boxes[b].kind;
    const unsigned unit = trace_boxes[b].unit;
    // A missing count is `none`, above every max_inc.
    const resolved_event* res = cache_.find(kind, ext_v, cell, um);
    if (!res || count > res->def->max_inc) return false;
    const trace_clock& clk = clocks_.of(b);
    if (!time(clk, ordered, after, r.time, r.cycle) || r.cycle > std::numeric_limits<uint64_t>::max() - repeat ||
        !ctx_.run_fits(clk, r.cycle, repeat))
        return false;
    r.socket = static_cast<unsigned>(socket);
    r.kind = kind;
    r.unit = unit;
    r.box = box_name_of(b);
    r.event = res->event;
    r.input = res->input;
    r.count = static_cast<uint32_t>(count);
    r.repeat = repeat;
    r.quals = request_quals{};
    return true;
}

}  // namespace pmonsim::trace::text
