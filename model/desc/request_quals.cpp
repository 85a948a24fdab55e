// Qualified event-trace rows: their attributes and checks (request_quals.h).
#include "desc/request_quals.h"

#include <cctype>
#include <tuple>

#include "desc/box_spec.h"

namespace pmonsim {

namespace {

constexpr const char state_letters[llc_state_count + 1] = "ISEMF";

struct column_of {
    uint8_t field;
    const char* column;
};
constexpr column_of columns[] = {{request_field::state, "state"},
                                 {request_field::nid, "nid"},
                                 {request_field::opc, "opc"},
                                 {request_field::addr, "addr"},
                                 {request_field::tid, "tid"}};

std::string names_of(uint8_t fields) {
    std::string s;
    for (const auto& c : columns)
        if (fields & c.field) s += std::string(s.empty() ? "" : ", ") + c.column;
    return s.empty() ? "none" : s;
}

// The widths of the attributes the box's filter compares: nid the filter's
// node mask, opc its opcode field (0: the box has no such field).
struct widths {
    unsigned nid, opc, addr;
    bool tid;
};
widths widths_of(request_filter f) {
    switch (f) {
        case request_filter::none: return {0, 0, 0, false};
        case request_filter::cbo_one_filter: return {cbo_filter_bits::snb_nid.width(), cbo_filter_bits::snb_opc.width(), 0, true};
        case request_filter::cbo_two_filters: return {cbo_filter_bits::ivb_nid.width(), cbo_filter_bits::ivb_opc.width(), 0, true};
        case request_filter::ha_addr_opcode: return {0, ha_match_bits::opc.width(), 46, false};
    }
    return {0, 0, 0, false};
}

}  // namespace

std::optional<llc_state> parse_llc_state(std::string_view s) {
    if (s.size() != 1) return std::nullopt;
    const char c = static_cast<char>(std::toupper(static_cast<unsigned char>(s[0])));
    for (unsigned k = 0; k < llc_state_count; ++k)
        if (state_letters[k] == c) return static_cast<llc_state>(k);
    return std::nullopt;
}

char llc_state_letter(llc_state s) {
    const auto k = static_cast<unsigned>(s);
    return k < llc_state_count ? state_letters[k] : '?';
}

bool operator<(const request_quals& a, const request_quals& b) {
    return std::tie(a.given, a.state, a.tid, a.nid, a.opc, a.addr) <
           std::tie(b.given, b.state, b.tid, b.nid, b.opc, b.addr);
}

std::optional<quals_problem> check_quals(const box_spec& spec, unsigned input, const request_quals& q) {
    if (q.given == 0) return std::nullopt;
    const char* first = "state";
    for (const auto& c : columns)
        if (q.given & c.field) {
            first = c.column;
            break;
        }
    const widths w = widths_of(spec.requests);
    const std::string name = spec.catalog->input_name(input);
    if (spec.requests == request_filter::none)
        return quals_problem{first, "is given, but " + spec.name + " has no request filter: its rows give no request attributes"};
    const uint8_t uses = spec.catalog->input_filters(input);
    const uint8_t allowed = static_cast<uint8_t>(uses | (w.tid ? request_field::tid : 0));
    for (const auto& c : columns)
        if ((q.given & c.field) && !(allowed & c.field))
            return quals_problem{c.column, "is given, but " + name + " is not filtered by " + c.column +
                                               " (its request attributes: " + names_of(allowed) + ")"};
    for (const auto& c : columns)
        if ((uses & c.field) && !(q.given & c.field))
            return quals_problem{c.column, "is missing: " + name + " is filtered by " + names_of(uses) +
                                               ": a row that qualifies it gives all of them"};
    auto too_big = [&](const char* col, uint64_t v, unsigned bits) -> std::optional<quals_problem> {
        if (bits >= 64 || v < (uint64_t{1} << bits)) return std::nullopt;
        return quals_problem{col, "does not fit the filter's " + std::to_string(bits) + "-bit field (largest " +
                                      std::to_string((uint64_t{1} << bits) - 1) + ")"};
    };
    if ((q.given & request_field::state) && q.state >= llc_state_count)
        return quals_problem{"state", "is not an LLC state (I, S, E, M or F)"};
    if ((q.given & request_field::nid) && q.nid >= w.nid)
        return quals_problem{"nid", "is not a node of the filter's " + std::to_string(w.nid) + "-bit node mask (0-" +
                                        std::to_string(w.nid - 1) + ")"};
    if (q.given & request_field::opc)
        if (auto p = too_big("opc", q.opc, w.opc)) return p;
    if (q.given & request_field::addr)
        if (auto p = too_big("addr", q.addr, w.addr)) return p;
    if (q.given & request_field::tid)
        if (auto p = too_big("tid", q.tid, cbo_filter_bits::tid.width())) return p;
    return std::nullopt;
}

}  // namespace pmonsim
