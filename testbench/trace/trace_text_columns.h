// The columns of the text trace formats (trace_reader.h) and the spellings
// of their values, shared by the text decoder's general parser
// (trace_text.cpp) and its one-pass fast path (trace_text_fast.cpp).
#pragma once
#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "catalog/catalog.h"
#include "desc/qpi_packet.h"
#include "trace/trace_lex.h"
#include "trace/trace_boxes.h"
#include "trace/trace_reader.h"
#include "trace/trace_swar.h"

namespace pmonsim::trace::text {

using lex::parse_uint;
using lex::word_key;

// ---------------------------------------------------------------------------
// Columns

enum col : int {
    c_time, c_cycle, c_socket,
    c_port, c_dir, c_mc, c_opc, c_vn, c_rnid, c_dnid, c_rds, c_flits, c_ring,  // packets
    c_src, c_addr,                                                             // home requests
    c_box, c_event, c_count, c_umask, c_ext, c_repeat,                         // events
    c_state, c_nid, c_tid,  // qualified event rows (with opc and addr; decisions.md B14)
    n_cols
};

inline constexpr std::array<const char*, n_cols> col_name = {
    "time", "cycle", "socket", "port", "dir", "mc",  "opc",   "vn",  "rnid",  "dnid",
    "rds",  "flits", "ring",   "src",  "addr", "box",  "event", "count", "umask", "ext", "repeat",
    "state", "nid", "tid"};

// The columns of a packet row where packets take `route` (cpu_desc::packets).
inline bool packet_column(int c, packet_route route) {
    if (c <= c_socket) return true;  // time, cycle, socket
    switch (route) {
        case packet_route::qpi_link: return c <= c_ring;
        case packet_route::home_logic: return c == c_src || c == c_mc || c == c_opc || c == c_addr;
    }
    return false;
}
inline bool event_column(int c) { return c <= c_socket || c >= c_box || c == c_opc || c == c_addr; }
// An event row's request attributes: their columns and request_field bits.
struct quals_column {
    int col;
    uint8_t field;
};
inline constexpr quals_column quals_columns[] = {{c_state, request_field::state},
                                                 {c_nid, request_field::nid},
                                                 {c_opc, request_field::opc},
                                                 {c_addr, request_field::addr},
                                                 {c_tid, request_field::tid}};

inline std::string column_list(bool events, packet_route route) {
    std::string s;
    auto is_quals = [](int c) {
        for (const quals_column& q : quals_columns)
            if (q.col == c) return true;
        return false;
    };
    for (int c = 0; c < n_cols; ++c)
        if (events ? event_column(c) && !is_quals(c) : packet_column(c, route))
            s += std::string(s.empty() ? "" : ", ") + col_name[c];
    if (events)  // the request attributes last
        for (const quals_column& q : quals_columns) s += std::string(", ") + col_name[q.col];
    return s;
}

// The CPUs whose packet rows have column c, for messages ("nhm-ep, wsm-ep").
inline std::string cpus_with_packet_column(int c) {
    std::string s;
    for (const cpu_desc& d : cpu_registry())
        if (packet_column(c, d.packets)) s += std::string(s.empty() ? "" : ", ") + d.name;
    return s;
}

// ---------------------------------------------------------------------------
// Named values: a name (any case) or a number up to max.

inline bool number_upto(std::string_view v, unsigned max, unsigned& out) {
    uint64_t x;
    if (!parse_uint(v, x) || x > max) return false;
    out = static_cast<unsigned>(x);
    return true;
}

inline bool parse_mc(std::string_view v, unsigned& out) {
    switch (word_key(v)) {
        case word_key("HOM0"): out = qpi_mc::hom0; return true;
        case word_key("HOM1"): out = qpi_mc::hom1; return true;
        case word_key("SNP"): out = qpi_mc::snp; return true;
        case word_key("NDR"): out = qpi_mc::ndr; return true;
        case word_key("NCS"): out = qpi_mc::ncs; return true;
        case word_key("NCB"): out = qpi_mc::ncb; return true;
        case word_key("DRS"): out = qpi_mc::drs; return true;
        default: return number_upto(v, 15, out);
    }
}

inline bool parse_vn(std::string_view v, unsigned& out) {
    switch (word_key(v)) {
        case word_key("VN0"): out = 0; return true;
        case word_key("VN1"): out = 1; return true;
        case word_key("VNA"): out = 2; return true;
        default: return number_upto(v, 3, out);
    }
}

inline bool parse_src(std::string_view v, home_src& out) {
    switch (word_key(v)) {
        case word_key("LOCAL"): out = home_src::local; return true;
        case word_key("REMOTE"): out = home_src::remote; return true;
        case word_key("IOH"): out = home_src::ioh; return true;
        default: return false;
    }
}

inline bool parse_rds(std::string_view v, unsigned& out) {
    switch (word_key(v)) {
        case word_key("I"): out = 0; return true;
        case word_key("F"): out = 1; return true;
        case word_key("S"): out = 2; return true;
        case word_key("E"): out = 4; return true;
        case word_key("M"): out = 8; return true;
        default: return number_upto(v, 15, out);
    }
}

// ---------------------------------------------------------------------------
// Lines and fields

// Splits a line at commas into fields trimmed of spaces and tabs, storing the
// first `cap` of them; returns how many there are.
inline std::size_t split_fields(std::string_view line, std::string_view* out, std::size_t cap) {
    const char* p = line.data();
    const char* const end = p + line.size();
    std::size_t n = 0;
    for (;;) {
        const char* c = p;
        while (c < end && *c != ',') ++c;
        if (n < cap) {
            const char* a = p;
            const char* b = c;
            while (a < b && lex::is_blank(*a)) ++a;
            while (b > a && lex::is_blank(b[-1])) --b;
            out[n] = std::string_view(a, static_cast<std::size_t>(b - a));
        }
        ++n;
        if (c == end) return n;
        p = c + 1;
    }
}

// Blank (spaces and tabs only) or a comment.
inline bool skipped_line(std::string_view line) {
    const char* p = line.data();
    const char* const end = p + line.size();
    while (p < end && lex::is_blank(*p)) ++p;
    return p == end || *p == '#';
}

// ---------------------------------------------------------------------------
// Helpers of the checks

inline int popcount8(unsigned v) {
    int n = 0;
    for (; v; v &= v - 1) ++n;
    return n;
}

inline int lowest_bit(unsigned v) {
    int b = 0;
    while (!(v & (1u << b))) ++b;
    return b;
}

// A row's event may carry its box's prefix (not a fixed counter's: those
// have no events).
inline const char* prefix_of(box_kind k) {
    switch (k) {
        case box_kind::ubox_fixed:
        case box_kind::uncore_fixed: return "";
        case box_kind::ubox:
        case box_kind::r2pcie:
        case box_kind::qpi:
        case box_kind::uncore:
        case box_kind::imc:
        case box_kind::ha:
        case box_kind::r3qpi:
        case box_kind::cbo:
        case box_kind::pcu:
        case box_kind::irp: return event_prefix(k);
    }
    return "";
}

// The name of the trace box with that code ("ubox", "qpi1", "uncore").
inline const box_name& box_name_of(unsigned code) {
    static const std::array<box_name, trace_box_count> names = [] {
        std::array<box_name, trace_box_count> a;
        for (unsigned c = 0; c < trace_box_count; ++c) a[c] = trace_boxes[c].name;
        return a;
    }();
    return names[code];
}

// ---------------------------------------------------------------------------
// Named values as swar::key7() keys, for the fast path: the same names as
// parse_mc() and the others above.

inline constexpr uint64_t mc_keys[] = {
    swar::name_key("hom0"), swar::name_key("hom1"), swar::name_key("snp"),
    swar::name_key("ndr"),  swar::name_key("ncs"),  swar::name_key("ncb"),
    swar::name_key("drs")};
inline constexpr uint8_t mc_values[] = {qpi_mc::hom0, qpi_mc::hom1, qpi_mc::snp, qpi_mc::ndr,
                                        qpi_mc::ncs,  qpi_mc::ncb,  qpi_mc::drs};
inline constexpr uint64_t vn_keys[] = {swar::name_key("vn0"), swar::name_key("vn1"),
                                       swar::name_key("vna")};
inline constexpr uint8_t vn_values[] = {0, 1, 2};
inline constexpr uint64_t rds_keys[] = {swar::name_key("i"), swar::name_key("f"),
                                        swar::name_key("s"), swar::name_key("e"),
                                        swar::name_key("m")};
inline constexpr uint8_t rds_values[] = {0, 1, 2, 4, 8};
inline constexpr uint64_t dir_keys[] = {swar::name_key("rx"), swar::name_key("tx")};
inline constexpr uint8_t dir_values[] = {0, 1};
inline constexpr uint64_t ring_keys[] = {swar::name_key("ak"), swar::name_key("ad")};
inline constexpr uint8_t ring_values[] = {0, 1};
// (By trace box code: the value is the code.)
inline constexpr auto box_keys = [] {
    std::array<uint64_t, trace_box_count> k{};
    for (unsigned c = 0; c < trace_box_count; ++c) k[c] = swar::name_key(trace_boxes[c].name);
    return k;
}();
inline constexpr auto box_values = [] {
    std::array<uint8_t, trace_box_count> v{};
    for (unsigned c = 0; c < trace_box_count; ++c) v[c] = static_cast<uint8_t>(c);
    return v;
}();
// The same as tables looked up with one multiplication (swar::name_table).
inline constexpr auto mc_table = swar::make_name_table<4>(mc_keys, mc_values);
inline constexpr auto vn_table = swar::make_name_table<3>(vn_keys, vn_values);
inline constexpr auto rds_table = swar::make_name_table<4>(rds_keys, rds_values);
inline constexpr auto dir_table = swar::make_name_table<2>(dir_keys, dir_values);
inline constexpr auto ring_table = swar::make_name_table<2>(ring_keys, ring_values);
inline constexpr auto box_table = swar::make_name_table<8>(box_keys, box_values);

}  // namespace pmonsim::trace::text
