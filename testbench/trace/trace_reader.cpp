// Streaming readers of the packet and event trace formats (trace_reader.h).
#include "trace/trace_reader.h"

#include "trace/trace_binary.h"
#include "trace/trace_detail.h"
#include "trace/trace_input.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <cstdio>
#include <fstream>
#include <limits>
#include <optional>

namespace pmonsim::trace {

// ---------------------------------------------------------------------------
// Errors

namespace {

std::string compose(const std::string& file, unsigned line, unsigned column,
                    const std::string& reason) {
    std::string s = file;
    if (line) {
        s += ':' + std::to_string(line);
        if (column) s += ':' + std::to_string(column);
    }
    return s + ": " + reason;
}

}  // namespace

trace_error::trace_error(std::string file, unsigned line, unsigned column, std::string reason)
    : std::runtime_error(compose(file, line, column, reason)),
      file_(std::move(file)),
      line_(line),
      column_(column),
      reason_(std::move(reason)) {}

const char* to_string(trace_kind k) {
    return k == trace_kind::packets ? "packet trace" : "event trace";
}

const char* to_string(trace_format f) {
    return f == trace_format::text ? "text" : "binary";
}

time_ps time_of(const trace_record& r) {
    return std::visit([](const auto& x) { return x.time; }, r);
}

unsigned line_of(const trace_record& r) {
    return std::visit([](const auto& x) { return x.line; }, r);
}

// ---------------------------------------------------------------------------
// Lexical helpers

namespace {

char lower(char c) { return static_cast<char>(std::tolower(static_cast<unsigned char>(c))); }

std::string lowered(std::string_view s) {
    std::string r(s);
    for (char& c : r) c = lower(c);
    return r;
}

bool ieq(std::string_view a, std::string_view b) {
    if (a.size() != b.size()) return false;
    for (std::size_t i = 0; i < a.size(); ++i)
        if (lower(a[i]) != lower(b[i])) return false;
    return true;
}

bool istarts(std::string_view s, std::string_view prefix) {
    return s.size() >= prefix.size() && ieq(s.substr(0, prefix.size()), prefix);
}

std::string_view trim(std::string_view s) {
    std::size_t a = 0, b = s.size();
    while (a < b && (s[a] == ' ' || s[a] == '\t')) ++a;
    while (b > a && (s[b - 1] == ' ' || s[b - 1] == '\t')) --b;
    return s.substr(a, b - a);
}

bool is_digit(char c) { return c >= '0' && c <= '9'; }

// Decimal or 0x hex, no sign.
bool parse_uint(std::string_view s, uint64_t& v) {
    constexpr uint64_t max = std::numeric_limits<uint64_t>::max();
    v = 0;
    if (s.empty()) return false;
    if (s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
        for (std::size_t i = 2; i < s.size(); ++i) {
            char c = lower(s[i]);
            unsigned d;
            if (is_digit(c)) d = unsigned(c - '0');
            else if (c >= 'a' && c <= 'f') d = unsigned(c - 'a' + 10);
            else return false;
            if (v > (max >> 4)) return false;
            v = (v << 4) | d;
        }
        return true;
    }
    for (char c : s) {
        if (!is_digit(c)) return false;
        unsigned d = unsigned(c - '0');
        if (v > (max - d) / 10) return false;
        v = v * 10 + d;
    }
    return true;
}

enum class num_result { ok, bad, too_large };

// "D+" or "D+.D+" ns to ps; digits past the third fractional one round half up.
num_result parse_ns(std::string_view s, time_ps& out) {
    constexpr uint64_t max = std::numeric_limits<uint64_t>::max();
    std::size_t i = 0, n = s.size();
    unsigned __int128 ip = 0;
    bool big = false;
    while (i < n && is_digit(s[i])) {
        if (!big) {
            ip = ip * 10 + unsigned(s[i] - '0');
            if (ip > max) big = true;
        }
        ++i;
    }
    if (i == 0) return num_result::bad;
    uint64_t frac = 0;
    unsigned round = 0;
    if (i < n && s[i] == '.') {
        ++i;
        std::size_t first = i;
        while (i < n && is_digit(s[i])) {
            std::size_t k = i - first;
            unsigned d = unsigned(s[i] - '0');
            if (k < 3) frac = frac * 10 + d;
            else if (k == 3) round = d;
            ++i;
        }
        std::size_t digits = i - first;
        if (digits == 0) return num_result::bad;
        for (std::size_t k = digits; k < 3; ++k) frac *= 10;
    }
    if (i != n) return num_result::bad;
    if (big) return num_result::too_large;
    unsigned __int128 ps = ip * 1000 + frac + (round >= 5 ? 1 : 0);
    if (ps > max) return num_result::too_large;
    out = static_cast<time_ps>(ps);
    return num_result::ok;
}

// "12.5 ns", "3 ns", "0.001 ns".
std::string fmt_ns(time_ps t) {
    std::string s = std::to_string(t / 1000);
    unsigned frac = unsigned(t % 1000);
    if (frac) {
        char buf[8];
        std::snprintf(buf, sizeof buf, ".%03u", frac);
        std::string f = buf;
        while (f.back() == '0') f.pop_back();
        s += f;
    }
    return s + " ns";
}

std::string hex2(unsigned v) {
    char buf[16];
    std::snprintf(buf, sizeof buf, "0x%02x", v);
    return buf;
}

// A value as it appears in a message: quoted, long values cut.
std::string quoted(std::string_view v) {
    constexpr std::size_t cut = 48;
    std::string s = "'";
    if (v.size() > cut) {
        s.append(v.substr(0, cut));
        s += "...";
    } else {
        s.append(v);
    }
    return s + "'";
}

std::string range_text(unsigned n, const char* one, const char* many, const char* prefix = "") {
    if (n == 0) return std::string("no ") + many;
    std::string s = std::to_string(n) + ' ' + (n == 1 ? one : many) + ": " + prefix + "0";
    if (n > 1) s += '-' + std::string(prefix) + std::to_string(n - 1);
    return s;
}

int popcount8(unsigned v) {
    int n = 0;
    for (; v; v &= v - 1) ++n;
    return n;
}

// ---------------------------------------------------------------------------
// Columns

enum col : int {
    c_time, c_cycle, c_socket,
    c_port, c_dir, c_mc, c_opc, c_vn, c_rnid, c_dnid, c_rds, c_flits, c_ring,  // packets
    c_box, c_event, c_count, c_umask, c_ext, c_repeat,                         // events
    n_cols
};

constexpr std::array<const char*, n_cols> col_name = {
    "time", "cycle", "socket", "port", "dir", "mc",  "opc",   "vn",  "rnid",  "dnid",
    "rds",  "flits", "ring",   "box",  "event", "count", "umask", "ext", "repeat"};

bool packet_column(int c) { return c <= c_ring; }
bool event_column(int c) { return c <= c_socket || c >= c_box; }

std::string column_list(bool events) {
    std::string s;
    for (int c = 0; c < n_cols; ++c)
        if (events ? event_column(c) : packet_column(c))
            s += std::string(s.empty() ? "" : ", ") + col_name[c];
    return s;
}

struct named_value {
    const char* name;
    unsigned value;
};

constexpr named_value mc_names[] = {{"HOM0", qpi_mc::hom0}, {"HOM1", qpi_mc::hom1},
                                    {"SNP", qpi_mc::snp},   {"NDR", qpi_mc::ndr},
                                    {"NCS", qpi_mc::ncs},   {"NCB", qpi_mc::ncb},
                                    {"DRS", qpi_mc::drs}};
constexpr named_value vn_names[] = {{"VN0", 0}, {"VN1", 1}, {"VNA", 2}};
constexpr named_value rds_names[] = {{"I", 0}, {"F", 1}, {"S", 2}, {"E", 4}, {"M", 8}};

template <std::size_t N>
bool parse_named(std::string_view v, const named_value (&names)[N], unsigned max,
                 unsigned& out) {
    for (const auto& n : names)
        if (ieq(v, n.name)) {
            out = n.value;
            return true;
        }
    uint64_t x;
    if (!parse_uint(v, x) || x > max) return false;
    out = static_cast<unsigned>(x);
    return true;
}

std::string mc_name(unsigned mc) {
    for (const auto& n : mc_names)
        if (n.value == mc) return n.name;
    return "MC " + std::to_string(mc);
}

const char* prefix_of(box_kind k) {
    switch (k) {
        case box_kind::ubox: return "UNC_U_";
        case box_kind::r2pcie: return "UNC_R2_";
        case box_kind::qpi: return "UNC_Q_";
        default: return "";
    }
}

}  // namespace

// ---------------------------------------------------------------------------
// Reader

struct trace_reader::impl {
    std::istream& in;
    std::string file;
    trace_context ctx;
    clock_domain uclk, qclk;
    const event_catalog* catalogs[3];  // ubox, r2pcie, qpi

    // The bytes: `in` through a buffer, maybe a decompressor; a binary trace
    // is read by `bin`, text by the members below.
    std::unique_ptr<source_buf> raw, unzipped;
    source_buf* src = nullptr;
    std::unique_ptr<binary_trace_decoder> bin;
    trace_format format = trace_format::text;
    bool compressed = false;
    time_unit unit = time_unit::ps;

    trace_kind kind = trace_kind::packets;
    std::array<int, n_cols> pos{};         // field index of each column, or -1
    std::vector<std::string> header;       // canonical (lower-case) column names
    std::string line;
    std::vector<std::string_view> fields;  // into `line`
    unsigned lineno = 0;
    bool at_eof = false;
    uint64_t records = 0;
    bool have_prev = false;
    time_ps prev_time = 0;
    unsigned prev_line = 0;

    impl(std::istream& i, std::string f, const trace_context& c)
        : in(i), file(std::move(f)), ctx(c), uclk(c.uclk_hz), qclk(c.qclk_hz) {
        if (ctx.sockets == 0) throw std::invalid_argument("trace context: no sockets");
        if (ctx.qpi_ports > 3)
            throw std::invalid_argument("trace context: at most 3 QPI ports per socket");
        catalogs[0] = &catalog_for(box_kind::ubox, ctx.cpu);
        catalogs[1] = &catalog_for(box_kind::r2pcie, ctx.cpu);
        catalogs[2] = &catalog_for(box_kind::qpi, ctx.cpu);
        open_input();
        if (bin) {
            kind = bin->kind();
            unit = bin->unit();
        } else {
            read_header();
            unit = has(c_time) ? time_unit::ps : time_unit::cycles;
        }
    }

    // Tells the formats apart by the first bytes (trace_input.h).
    void open_input() {
        raw = std::make_unique<plain_source>(in.rdbuf());
        src = raw.get();
        content_kind c = detect_content(src->peek(detect_bytes));
        if (c == content_kind::gzip) {
            unzipped = std::make_unique<gzip_source>(*raw, file);
            src = unzipped.get();
            compressed = true;
            c = detect_content(src->peek(detect_bytes));
        }
        const char* other = nullptr;
        switch (c) {
            case content_kind::text: return;
            case content_kind::binary:
                format = trace_format::binary;
                bin = std::make_unique<binary_trace_decoder>(*src, file, ctx);
                return;
            case content_kind::gzip: other = "gzip-compressed twice"; break;
            case content_kind::xz: other = "xz-compressed"; break;
            case content_kind::zstd: other = "zstd-compressed"; break;
            case content_kind::bzip2: other = "bzip2-compressed"; break;
        }
        throw trace_error(file, 0, 0,
                          std::string("the data is ") + other +
                              ": only text and binary traces, each possibly gzip-compressed "
                              "once, are read");
    }

    [[noreturn]] void fail(unsigned column, const std::string& reason) const {
        throw trace_error(file, lineno, column, reason);
    }
    unsigned column_no(int c) const { return static_cast<unsigned>(pos[c] + 1); }
    // "column 'NAME': 'VALUE' what"
    [[noreturn]] void bad(int c, std::string_view value, const std::string& what) const {
        fail(column_no(c),
             "column '" + std::string(col_name[c]) + "': " + quoted(value) + ' ' + what);
    }
    [[noreturn]] void missing(int c) const {
        fail(column_no(c), "column '" + std::string(col_name[c]) + "': value is missing");
    }

    bool has(int c) const { return pos[c] >= 0; }
    std::string_view get(int c) const { return pos[c] >= 0 ? fields[pos[c]] : std::string_view(); }
    std::string_view required(int c) const {
        std::string_view v = get(c);
        if (v.empty()) missing(c);
        return v;
    }

    // One physical line into `line` (without its end); false at the end of input.
    bool read_line() {
        line.clear();
        std::streambuf* sb = src;
        if (at_eof || !sb) return false;
        bool any = false;
        for (;;) {
            int ch = sb->sbumpc();
            if (ch == std::char_traits<char>::eof()) {
                at_eof = true;
                if (!any) return false;
                break;
            }
            any = true;
            if (ch == '\n') break;
            if (line.size() >= max_line_length) {
                ++lineno;
                fail(0, "line is longer than " + std::to_string(max_line_length) + " characters");
            }
            line.push_back(static_cast<char>(ch));
        }
        ++lineno;
        if (!line.empty() && line.back() == '\r') line.pop_back();
        if (lineno == 1 && line.compare(0, 3, "\xEF\xBB\xBF") == 0) line.erase(0, 3);
        return true;
    }

    // The next line that is neither blank nor a comment, split into fields.
    bool next_content_line() {
        while (read_line()) {
            std::string_view t = trim(line);
            if (t.empty() || t.front() == '#') continue;
            fields.clear();
            std::string_view rest(line);
            for (;;) {
                std::size_t comma = rest.find(',');
                fields.push_back(trim(rest.substr(0, comma)));
                if (comma == std::string_view::npos) break;
                rest.remove_prefix(comma + 1);
            }
            return true;
        }
        return false;
    }

    void read_header() {
        if (!next_content_line())
            throw trace_error(file, 0, 0, "no header row (the file is empty or only comments)");
        pos.fill(-1);
        header.clear();
        for (std::size_t i = 0; i < fields.size(); ++i) {
            unsigned colno = static_cast<unsigned>(i + 1);
            std::string name = lowered(fields[i]);
            if (name.empty())
                fail(colno, "header: column " + std::to_string(colno) + " has no name");
            for (std::size_t j = 0; j < i; ++j)
                if (header[j] == name)
                    fail(colno, "header: duplicate column '" + name + "' (also column " +
                                    std::to_string(j + 1) + ")");
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
        for (std::size_t i = 0; i < header.size(); ++i) {
            int c = -1;
            for (int k = 0; k < n_cols; ++k)
                if (header[i] == col_name[k]) c = k;
            if (c < 0 || !(ev ? event_column(c) : packet_column(c)))
                fail(static_cast<unsigned>(i + 1),
                     "header: unknown column '" + header[i] + "' (" +
                         std::string(ev ? "an event trace has columns "
                                        : "a packet trace has columns ") +
                         column_list(ev) + ")");
        }
        if (has(c_time) && has(c_cycle))
            fail(column_no(pos[c_time] > pos[c_cycle] ? c_time : c_cycle),
                 "header: columns 'time' and 'cycle' exclude each other: give one");
        if (!has(c_time) && !has(c_cycle)) fail(0, "header: needs a 'time' or a 'cycle' column");
        const std::array<int, 3> req = ev ? std::array<int, 3>{c_box, c_event, c_count}
                                          : std::array<int, 3>{c_port, c_dir, c_mc};
        for (int c : req)
            if (!has(c))
                fail(0, "header: " + std::string(to_string(kind)) + " needs column '" +
                            col_name[c] + "'");
        fields.reserve(header.size());
    }

    // The next data row, with as many fields as the header.
    bool next_row() {
        if (!next_content_line()) return false;
        if (fields.size() != header.size()) {
            std::string what = "row has " + std::to_string(fields.size()) +
                               " fields but the header has " + std::to_string(header.size());
            if (fields.size() > header.size())
                fail(static_cast<unsigned>(header.size() + 1), what);
            fail(static_cast<unsigned>(fields.size() + 1),
                 what + ": no value for column '" + header[fields.size()] + "'");
        }
        return true;
    }

    unsigned parse_socket() {
        std::string_view v = get(c_socket);
        if (v.empty()) return 0;
        uint64_t s;
        if (!parse_uint(v, s) || s >= ctx.sockets)
            bad(c_socket, v, "is not a socket of this machine (" +
                                 range_text(ctx.sockets, "socket", "sockets") + ")");
        return static_cast<unsigned>(s);
    }

    unsigned small_uint(int c, unsigned max, const std::string& what, unsigned dflt) {
        std::string_view v = get(c);
        if (v.empty()) return dflt;
        uint64_t x;
        if (!parse_uint(v, x) || x > max) bad(c, v, what);
        return static_cast<unsigned>(x);
    }

    // The row's time and cycle in `clk`, then the order check.
    void parse_time(const clock_domain& clk, const char* clk_name, time_ps& t, cycle_t& cyc) {
        if (has(c_time)) {
            std::string_view v = required(c_time);
            switch (parse_ns(v, t)) {
                case num_result::bad:
                    bad(c_time, v, "is not a time in ns (a decimal number such as 12.5)");
                case num_result::too_large:
                    bad(c_time, v, "is too large (times are 64-bit picoseconds)");
                case num_result::ok: break;
            }
            cyc = clk.cycles_before(t);
            if (have_prev && t < prev_time)
                bad(c_time, v, "(" + fmt_ns(t) + ") is before the previous row's time " +
                                   fmt_ns(prev_time) + " (line " + std::to_string(prev_line) +
                                   "): rows must be in time order");
        } else {
            std::string_view v = required(c_cycle);
            if (!parse_uint(v, cyc))
                bad(c_cycle, v, "is not a cycle number (a decimal or 0x hex integer)");
            unsigned __int128 start =
                static_cast<unsigned __int128>(cyc) * 1000000000000ull / clk.hz();
            if (start > std::numeric_limits<uint64_t>::max())
                bad(c_cycle, v, "is too large (its start time does not fit in 64-bit picoseconds)");
            t = clk.cycle_start(cyc);
            if (have_prev && t < prev_time)
                bad(c_cycle, v, "(" + std::string(clk_name) + " cycle " + std::to_string(cyc) +
                                    ", at " + fmt_ns(t) + ") is before the previous row's time " +
                                    fmt_ns(prev_time) + " (line " + std::to_string(prev_line) +
                                    "): rows must be in time order");
        }
    }

    void accept_time(time_ps t) {
        have_prev = true;
        prev_time = t;
        prev_line = lineno;
        ++records;
    }

    void parse_packet(packet_record& r) {
        r.line = lineno;
        r.socket = parse_socket();

        std::string_view v = required(c_port);
        uint64_t port;
        if (!parse_uint(v, port) || port >= ctx.qpi_ports)
            bad(c_port, v, "is not a QPI port of this machine (" +
                               range_text(ctx.qpi_ports, "port", "ports") + ")");
        r.port = static_cast<unsigned>(port);

        v = required(c_dir);
        if (ieq(v, "rx")) r.dir = qpi_dir::rx;
        else if (ieq(v, "tx")) r.dir = qpi_dir::tx;
        else bad(c_dir, v, "is not rx or tx");

        qpi_packet& p = r.packet;
        p = qpi_packet{};
        unsigned x;
        v = required(c_mc);
        if (!parse_named(v, mc_names, 15, x))
            bad(c_mc, v, "is not a message class (HOM0, HOM1, SNP, NDR, NCS, NCB, DRS or 0-15)");
        p.mc = static_cast<uint8_t>(x);
        p.opc = static_cast<uint8_t>(small_uint(c_opc, 15, "is not an opcode (0-15)", 0));
        v = get(c_vn);
        if (!v.empty()) {
            if (!parse_named(v, vn_names, 3, x))
                bad(c_vn, v, "is not a virtual network (VN0, VN1, VNA or 0-3)");
            p.vn = static_cast<uint8_t>(x);
        }
        p.rnid = static_cast<uint8_t>(small_uint(c_rnid, 31, "is not a node ID (0-31)", 0));
        p.dnid = static_cast<uint8_t>(small_uint(c_dnid, 31, "is not a node ID (0-31)", 0));
        v = get(c_rds);
        if (!v.empty()) {
            if (!parse_named(v, rds_names, 15, x))
                bad(c_rds, v, "is not a response data state (I, F, S, E, M or 0-15)");
            p.rds = static_cast<uint8_t>(x);
        }
        v = get(c_ring);
        if (!v.empty()) {
            if (ieq(v, "ad")) p.ring_ad = true;
            else if (!ieq(v, "ak")) bad(c_ring, v, "is not a ring (AD or AK)");
            if (p.mc != qpi_mc::ndr)
                bad(c_ring, v, "applies to NDR packets only (this packet's class is " +
                                   mc_name(p.mc) + ")");
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
        accept_time(r.time);
    }

    // Sub-event of `ev` named by `sub` (a name, bitN, or a one-bit value): the
    // bit, or throws at column c, whose whole cell is `cell` (EVENT.SUB in the
    // event column, the value itself in the umask column).
    int resolve_sub(const event_def& ev, std::string_view sub, int c, std::string_view cell) {
        const uint8_t valid = ev.valid_umask();
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

    static int lowest_bit(unsigned v) {
        int b = 0;
        while (!(v & (1u << b))) ++b;
        return b;
    }

    // combination != 0: `sub` names several bits; otherwise it is not defined.
    [[noreturn]] void bad_sub(const event_def& ev, int c, std::string_view cell,
                              std::string_view sub, unsigned combination) const {
        std::string text = "column '" + std::string(col_name[c]) + "': " + quoted(cell) +
                           (c == c_event ? ": " + quoted(sub) : std::string()) + ' ';
        if (combination) {
            text += "is a combination of several sub-events (" + hex2(combination) + ") of " +
                    ev.name + ": give one per row";
        } else {
            text += "is not a sub-event of " + ev.name + " (" + sub_list(ev) + ")";
        }
        fail(column_no(c), text);
    }

    // The one-bit sub-events of an event: their names, or bitN for a bit
    // that only a combination names.
    static std::string sub_list(const event_def& ev) { return detail::sub_list(ev); }

    void parse_event(event_record& r) {
        r.line = lineno;
        r.socket = parse_socket();

        // Box.
        std::string_view v = required(c_box);
        const clock_domain* clk = &uclk;
        const char* clk_name = "UCLK";
        if (ieq(v, "ubox")) {
            r.kind = box_kind::ubox;
            r.unit = 0;
            r.box.assign("ubox");
        } else if (ieq(v, "r2pcie")) {
            r.kind = box_kind::r2pcie;
            r.unit = 0;
            r.box.assign("r2pcie");
        } else if (ieq(v, "ubox_fixed")) {
            bad(c_box, v,
                "has no events to drive (the fixed counter counts UCLK cycles by itself)");
        } else if (v.size() == 4 && istarts(v, "qpi") && is_digit(v[3]) &&
                   unsigned(v[3] - '0') < ctx.qpi_ports) {
            r.kind = box_kind::qpi;
            r.unit = unsigned(v[3] - '0');
            r.box.assign("qpi");
            r.box.push_back(v[3]);
            clk = &qclk;
            clk_name = "QCLK";
        } else {
            std::string boxes = "ubox, r2pcie";
            for (unsigned q = 0; q < ctx.qpi_ports; ++q) boxes += ", qpi" + std::to_string(q);
            bad(c_box, v, "is not a box of this machine (" + boxes + ")");
        }
        const event_catalog& cat =
            *catalogs[r.kind == box_kind::ubox ? 0 : r.kind == box_kind::r2pcie ? 1 : 2];
        const std::string cat_text = std::string(to_string(r.kind)) + " catalog (" +
                                     to_string(ctx.cpu) + ")";

        // ext.
        std::string_view ext_v = get(c_ext);
        bool ext_given = !ext_v.empty(), ext = false;
        if (ext_given) {
            if (ieq(ext_v, "0")) ext = false;
            else if (ieq(ext_v, "1")) ext = true;
            else bad(c_ext, ext_v, "is not 0 or 1");
            if (ext && r.kind != box_kind::qpi)
                bad(c_ext, ext_v, "is not allowed for box '" + r.box +
                                      "': only QPI events have an extra select bit");
        }

        // Event, optionally EVENT.SUB.
        std::string_view cell = required(c_event);
        std::string_view ev_part = cell, sub;
        bool dotted = false;
        if (std::size_t dot = cell.find('.'); dot != std::string_view::npos) {
            dotted = true;
            ev_part = trim(cell.substr(0, dot));
            sub = trim(cell.substr(dot + 1));
            if (ev_part.empty() || sub.empty())
                bad(c_event, cell, "is not EVENT or EVENT.SUB-EVENT");
        }
        unsigned e;
        if (!ev_part.empty() && is_digit(ev_part.front())) {
            uint64_t code;
            std::optional<unsigned> found;
            if (parse_uint(ev_part, code) && code <= 0xFF)
                found = cat.find(static_cast<uint8_t>(code), ext);
            if (!found) {
                std::string what = "is not an event code of the " + cat_text;
                if (r.kind == box_kind::qpi) what += ext ? " with ext 1" : " with ext 0";
                bad(c_event, cell, what);
            }
            e = *found;
        } else {
            std::string_view name = ev_part;
            if (istarts(name, "UNC_")) {
                const box_kind kinds[] = {box_kind::ubox, box_kind::r2pcie, box_kind::qpi};
                for (box_kind k : kinds) {
                    if (!istarts(name, prefix_of(k))) continue;
                    if (k != r.kind)
                        bad(c_event, cell, "has the prefix of " + std::string(to_string(k)) +
                                               " events (" + r.box + " events are " +
                                               prefix_of(r.kind) + "*)");
                    name.remove_prefix(std::string_view(prefix_of(k)).size());
                    break;
                }
            }
            auto found = cat.find(std::string(name));
            if (!found) bad(c_event, cell, "is not an event of the " + cat_text);
            e = *found;
            if (ext_given && ext != cat.events()[e].ext)
                bad(c_ext, ext_v, "does not match " + cat.events()[e].name + ", whose ext is " +
                                      (cat.events()[e].ext ? "1" : "0"));
        }
        const event_def& def = cat.events()[e];
        if (def.name == "CLOCKTICKS")
            bad(c_event, cell, "cannot be driven: CLOCKTICKS counts the box's own clock");
        r.event = e;

        // Sub-event.
        std::string_view um = get(c_umask);
        if (dotted && !um.empty())
            bad(c_umask, um, "is a second sub-event: column 'event' already gives one (" +
                                 quoted(cell) + ")");
        if (def.umasks.empty()) {
            if (dotted)
                bad(c_event, cell, "names a sub-event, but " + def.name + " has none");
            if (!um.empty()) bad(c_umask, um, "is not allowed: " + def.name + " has no sub-events");
            r.input = *cat.input_of(e, -1);
        } else {
            int bit;
            if (dotted) {
                bit = resolve_sub(def, sub, c_event, cell);
            } else if (!um.empty()) {
                bit = resolve_sub(def, um, c_umask, um);
            } else {
                const std::string subs = sub_list(def);
                if (has(c_umask))
                    fail(column_no(c_umask), "column 'umask': value is missing: " + def.name +
                                                 " has sub-events (" + subs + ")");
                bad(c_event, cell, "has sub-events: give one (" + subs +
                                       ") in a 'umask' column or as " + def.name + ".SUB");
            }
            r.input = *cat.input_of(e, bit);
        }

        // count, repeat.
        v = required(c_count);
        uint64_t n;
        if (!parse_uint(v, n) || n > def.max_inc)
            bad(c_count, v, "is not a count of " + def.name + " (0-" +
                                std::to_string(def.max_inc) + " per cycle)");
        r.count = static_cast<uint32_t>(n);
        r.repeat = 1;
        v = get(c_repeat);
        if (!v.empty() && (!parse_uint(v, r.repeat) || r.repeat == 0))
            bad(c_repeat, v, "is not a repeat count (an integer >= 1)");

        parse_time(*clk, clk_name, r.time, r.cycle);
        if (r.cycle > std::numeric_limits<uint64_t>::max() - r.repeat)
            bad(c_repeat, v, "is too large: the run would pass the last cycle");
        accept_time(r.time);
    }
};

trace_reader::trace_reader(std::istream& in, std::string filename, const trace_context& ctx)
    : p_(std::make_unique<impl>(in, std::move(filename), ctx)) {}

trace_reader::~trace_reader() = default;

trace_kind trace_reader::kind() const { return p_->kind; }
trace_format trace_reader::format() const { return p_->format; }
bool trace_reader::compressed() const { return p_->compressed; }
time_unit trace_reader::unit() const { return p_->unit; }
const std::string& trace_reader::filename() const { return p_->file; }
uint64_t trace_reader::records() const { return p_->bin ? p_->bin->records() : p_->records; }

bool trace_reader::next(packet_record& r) {
    if (p_->kind != trace_kind::packets)
        throw std::logic_error(p_->file + " is an event trace, not a packet trace");
    if (p_->bin) return p_->bin->next(r);
    if (!p_->next_row()) return false;
    p_->parse_packet(r);
    return true;
}

bool trace_reader::next(event_record& r) {
    if (p_->kind != trace_kind::events)
        throw std::logic_error(p_->file + " is a packet trace, not an event trace");
    if (p_->bin) return p_->bin->next(r);
    if (!p_->next_row()) return false;
    p_->parse_event(r);
    return true;
}

bool trace_reader::next(trace_record& r) {
    if (p_->kind == trace_kind::packets) {
        if (!std::holds_alternative<packet_record>(r)) r.emplace<packet_record>();
        return next(std::get<packet_record>(r));
    }
    if (!std::holds_alternative<event_record>(r)) r.emplace<event_record>();
    return next(std::get<event_record>(r));
}

trace_summary validate_trace(std::istream& in, const std::string& filename,
                             const trace_context& ctx) {
    trace_reader reader(in, filename, ctx);
    trace_summary s{reader.kind()};
    trace_record rec;
    while (reader.next(rec)) {
        const time_ps t = time_of(rec);
        if (s.records++ == 0) s.first = t;
        s.last = t;
    }
    return s;
}

trace_summary validate_trace(const std::string& path, const trace_context& ctx) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw trace_error(path, 0, 0, "cannot open the file");
    return validate_trace(in, path, ctx);
}

// ---------------------------------------------------------------------------
// The wording of messages, for the binary decoder (trace_detail.h)

namespace detail {
std::string fmt_ns(time_ps t) { return trace::fmt_ns(t); }
std::string hex2(unsigned v) { return trace::hex2(v); }
std::string range_text(unsigned n, const char* one, const char* many) {
    return trace::range_text(n, one, many);
}
std::string mc_name(unsigned mc) { return trace::mc_name(mc); }
std::string sub_list(const event_def& ev) {
    const uint8_t valid = ev.valid_umask();
    std::string s;
    for (int b = 0; b < 8; ++b) {
        if (!(valid & (1u << b))) continue;
        std::string n = "bit" + std::to_string(b);
        for (const auto& u : ev.umasks)
            if (u.value == (1u << b)) n = u.name;
        s += (s.empty() ? "" : ", ") + n;
    }
    return s;
}
}  // namespace detail

// ---------------------------------------------------------------------------
// Merger

struct trace_merger::impl {
    struct source {
        std::unique_ptr<std::istream> stream;   // owned input, if any
        std::unique_ptr<trace_reader> owned;    // owned reader, if any
        trace_reader* reader = nullptr;
        trace_record pending;
    };
    std::vector<std::unique_ptr<source>> sources;
    std::vector<std::size_t> heap;  // sources with a pending record
    bool started = false;

    // Heap order: the top is the smallest (time, source index).
    bool after(std::size_t a, std::size_t b) const {
        const time_ps ta = time_of(sources[a]->pending), tb = time_of(sources[b]->pending);
        return ta != tb ? ta > tb : a > b;
    }
    void push(std::size_t i) {
        heap.push_back(i);
        std::push_heap(heap.begin(), heap.end(),
                       [this](std::size_t a, std::size_t b) { return after(a, b); });
    }
    std::size_t add(std::unique_ptr<source> s) {
        if (started) throw std::logic_error("trace_merger: add() after next()");
        sources.push_back(std::move(s));
        return sources.size() - 1;
    }
};

trace_merger::trace_merger() : p_(std::make_unique<impl>()) {}
trace_merger::~trace_merger() = default;

std::size_t trace_merger::add(trace_reader& reader) {
    auto s = std::make_unique<impl::source>();
    s->reader = &reader;
    return p_->add(std::move(s));
}

std::size_t trace_merger::add(std::unique_ptr<std::istream> in, std::string filename,
                              const trace_context& ctx) {
    if (p_->started) throw std::logic_error("trace_merger: add() after next()");
    auto s = std::make_unique<impl::source>();
    s->stream = std::move(in);
    s->owned = std::make_unique<trace_reader>(*s->stream, std::move(filename), ctx);
    s->reader = s->owned.get();
    return p_->add(std::move(s));
}

std::size_t trace_merger::open(const std::string& path, const trace_context& ctx) {
    auto f = std::make_unique<std::ifstream>(path, std::ios::binary);
    if (!*f) throw trace_error(path, 0, 0, "cannot open the file");
    return add(std::move(f), path, ctx);
}

std::size_t trace_merger::sources() const { return p_->sources.size(); }

const trace_reader& trace_merger::reader(std::size_t source) const {
    return *p_->sources.at(source)->reader;
}

bool trace_merger::next(merged_record& out) {
    impl& m = *p_;
    if (!m.started) {
        m.started = true;
        for (std::size_t i = 0; i < m.sources.size(); ++i)
            if (m.sources[i]->reader->next(m.sources[i]->pending)) m.push(i);
    }
    if (m.heap.empty()) return false;
    std::pop_heap(m.heap.begin(), m.heap.end(),
                  [&m](std::size_t a, std::size_t b) { return m.after(a, b); });
    const std::size_t i = m.heap.back();
    m.heap.pop_back();
    out.source = i;
    std::swap(out.record, m.sources[i]->pending);  // keeps both objects' storage
    if (m.sources[i]->reader->next(m.sources[i]->pending)) m.push(i);
    return true;
}

}  // namespace pmonsim::trace
