// Request-filter terms of events (request_terms.h).
#include "driver/request_terms.h"

#include <stdexcept>

namespace pmonsim::driver {

const std::vector<request_term>& request_terms(request_filter f) {
    namespace c = cbo_filter_bits;
    namespace h = ha_match_bits;
    namespace rf = request_field;
    static const std::vector<request_term> none;
    static const std::vector<request_term> one = {
        {"filter_tid", 0, c::tid, 0, c::tid.width(), rf::tid},
        {"filter_nid", 0, c::snb_nid, 0, c::snb_nid.width(), rf::nid},
        {"filter_state", 0, c::snb_state, 0, c::snb_state.width(), rf::state},
        {"filter_opc", 0, c::snb_opc, 0, c::snb_opc.width(), rf::opc}};
    static const std::vector<request_term> two = {
        {"filter_tid", 0, c::tid, 0, c::tid.width(), rf::tid},
        {"filter_link", 0, c::ivb_link, 0, c::ivb_link.width(), 0},
        {"filter_state2", 0, c::ivb_state, 0, c::ivb_state.width(), rf::state},
        {"filter_nid2", 1, c::ivb_nid, 0, c::ivb_nid.width(), rf::nid},
        {"filter_opc2", 1, c::ivb_opc, 0, c::ivb_opc.width(), rf::opc},
        {"filter_c6", 1, c::ivb_c6, 0, 1, 0},
        {"filter_nc", 1, c::ivb_nc, 0, 1, 0},
        {"filter_isoc", 1, c::ivb_isoc, 0, 1, 0}};
    static const std::vector<request_term> ha = {
        {"filter_addr", 0, h::lo_addr, 6, 46, rf::addr},
        {"filter_addr", 1, h::hi_addr, 32, 46, rf::addr},
        {"filter_opc", 2, h::opc, 0, h::opc.width(), rf::opc}};
    switch (f) {
        case request_filter::none: return none;
        case request_filter::cbo_one_filter: return one;
        case request_filter::cbo_two_filters: return two;
        case request_filter::ha_addr_opcode: return ha;
    }
    return none;
}

bool apply_request_term(request_filter f, const std::string& name, uint64_t v, request_values& out) {
    bool found = false;
    for (const request_term& t : request_terms(f)) {
        if (name != t.name) continue;
        if (t.value_bits < 64 && (v >> t.value_bits) != 0)
            throw std::invalid_argument("does not fit the filter's " + std::to_string(t.value_bits) +
                                        "-bit field (largest " +
                                        std::to_string((uint64_t{1} << t.value_bits) - 1) + ")");
        out.value[t.reg] = (out.value[t.reg] & ~t.field.mask()) | t.field.put(v >> t.shift);
        out.mask[t.reg] |= t.field.mask();
        out.compares |= t.compares;
        found = true;
    }
    return found;
}

request_values claimed(request_filter f, const request_values& given, uint8_t uses) {
    request_values out;
    for (const request_term& t : request_terms(f)) {
        const bool compared = t.compares != 0 && (uses & t.compares);
        const bool stored_given = t.compares == 0 && (given.mask[t.reg] & t.field.mask());
        if (!compared && !stored_given) continue;
        out.mask[t.reg] |= t.field.mask();
        out.value[t.reg] |= given.value[t.reg] & t.field.mask();
        out.compares |= t.compares;
    }
    return out;
}

}  // namespace pmonsim::driver
