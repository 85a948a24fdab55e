// The event terms that program a box's request filter (decisions.md B14):
// Linux's caching-agent formats (SNB-EP: filter_tid, filter_nid,
// filter_state, filter_opc; IVB-EP: filter_tid, filter_link, filter_state2,
// filter_nid2, filter_opc2, filter_c6, filter_nc, filter_isoc) and, for the
// home agent, whose match registers Linux has no formats for, filter_addr
// (a physical address: ADDRMATCH0/1) and filter_opc (OPCODEMATCH).
#pragma once
#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "desc/box_spec.h"

namespace pmonsim::driver {

struct request_term {
    const char* name;
    unsigned reg;        // the filter register, by index (box_spec's reg_role::stored index)
    bitfield field;      // where the value goes, after `shift`
    unsigned shift;      // bits of the value below the field (filter_addr: 6 and 32)
    unsigned value_bits; // the value's width
    uint8_t compares;    // the request_field the model compares with it; 0: stored only
};

// The terms of a box's filter (none for a box without one).
const std::vector<request_term>& request_terms(request_filter f);

// The filter values an event asks for: per register, the value and the bits
// it sets; the request fields they compare; the terms as given.
struct request_values {
    std::array<uint64_t, 3> value{}, mask{};
    uint8_t compares = 0;
    std::string first_term;
    bool any() const { return mask[0] | mask[1] | mask[2]; }
};

// Applies term `name`=v if it is one of the box's; false if not. Throws
// std::invalid_argument with the reason when the value does not fit.
bool apply_request_term(request_filter f, const std::string& name, uint64_t v, request_values& out);

// The fields an event that compares `uses` claims in its box's filter:
// those it compares (with the values given, 0 otherwise) and the stored-only
// fields given. The box's events must agree on the bits they both claim.
request_values claimed(request_filter f, const request_values& given, uint8_t uses);

}  // namespace pmonsim::driver
