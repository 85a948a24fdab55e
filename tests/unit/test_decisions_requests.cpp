// decisions.md B14: qualified event-trace rows on the caching agents and the
// home agents count where the box's filter, as it is in each cycle, takes
// their requests. Expected numbers are worked out by hand from the stimulus
// (cycle ranges half-open).
#include <gtest/gtest.h>

#include "unit/box_rig.h"

namespace pmonsim {
namespace {

using test::rig;

constexpr cpu_model snb = cpu_model::snb_ep;
constexpr cpu_model ivb = cpu_model::ivb_ep;
constexpr uint32_t en = 1u << 22, tid_en = 1u << 19, edge = 1u << 18;
constexpr uint32_t ev(uint32_t code) { return code; }
constexpr uint32_t umask(uint32_t u) { return u << 8; }
constexpr uint32_t thresh(uint32_t t) { return t << 24; }

request_quals state(llc_state s) {
    request_quals q;
    q.given = request_field::state;
    q.state = static_cast<uint8_t>(s);
    return q;
}
request_quals opcode(uint16_t opc) {
    request_quals q;
    q.given = request_field::opc;
    q.opc = opc;
    return q;
}

// IVB-EP: LLC_LOOKUP by state (FILTER0 22:17), the TOR by opcode and node
// (FILTER1 28:20, 15:0); a filter write applies from its cycle.
TEST(DecisionRequests, CachingAgentFiltersSelectQualifiedRows) {
    rig r(box_kind::cbo, ivb, 1);
    const unsigned read = r.input("LLC_LOOKUP", "DATA_READ"), opc = r.input("TOR_INSERTS", "OPCODE"),
                   nid_all = r.input("TOR_INSERTS", "NID_ALL");
    r.box.post_qualified_run(0, 40, read, state(llc_state::m), 1);
    r.box.post_qualified_run(0, 40, read, state(llc_state::e), 1);
    r.box.post_run(0, 5, read, 1);  // unqualified: what matched, whatever the filter
    r.box.post_qualified_run(0, 30, opc, opcode(0x182), 1);  // DRd
    r.box.post_qualified_run(0, 15, opc, opcode(0x180), 1);  // RFO
    request_quals node2;
    node2.given = request_field::nid;
    node2.nid = 2;
    r.box.post_qualified_run(0, 10, nid_all, node2, 1);
    r.write("BOX_FILTER0", 0x08u << 17, 0);                 // state M
    r.write("BOX_FILTER1", (0x182u << 20) | 0x0004u, 0);    // DRd, node 2
    r.write("CTL0", en | umask(0x03) | ev(0x34), 0);        // LLC_LOOKUP.DATA_READ
    r.write("CTL1", en | umask(0x01) | ev(0x35), 0);        // TOR_INSERTS.OPCODE
    EXPECT_EQ(r.read("CTR0", 10), 10u + 5u) << "the M lookups and the unqualified row";
    r.write("BOX_FILTER0", 0x0Cu << 17, 10);                // M and E from cycle 10
    r.write("CTL1", en | umask(0x48) | ev(0x35), 10);       // TOR_INSERTS.NID_ALL from cycle 10
    EXPECT_EQ(r.read("CTR0", 20), 15u + 20u);
    r.write("BOX_FILTER0", 0x20u << 17, 20);                // bit 5 alone: the manual's second M
    EXPECT_EQ(r.read("CTR0", 40), 35u + 20u);
    EXPECT_EQ(r.read("CTR1", 40), 10u) << "DRd in cycles 0-9; node 2's inserts end at cycle 10";
    r.write("CTL1", en | umask(0x01) | ev(0x35), 40);
    r.write("BOX_FILTER1", 0x180u << 20, 40);
    r.box.post_qualified_run(40, 3, opc, opcode(0x180), 1);
    EXPECT_EQ(r.read("CTR1", 50), 13u);
    EXPECT_EQ(r.diag_count(), 0u);
}

// SNB-EP's one BOX_FILTER: state 22:18, node 17:10, opcode 31:23; tid_en
// makes a counter take only the filter's thread (4:0), a row without a
// thread being a request of none (0x1F). Counters without tid_en take all.
TEST(DecisionRequests, TidEnTakesTheFiltersThreadOnly) {
    rig r(box_kind::cbo, snb, 0);
    const unsigned victims = r.input("LLC_VICTIMS", "M_STATE"), lookup_nid = r.input("LLC_LOOKUP", "NID");
    request_quals t3, t5, none;
    t3.given = t5.given = request_field::tid;
    t3.tid = 3;
    t5.tid = 5;
    none.given = request_field::tid;
    none.tid = 0x1F;
    r.box.post_qualified_run(0, 10, victims, t3, 1);
    r.box.post_qualified_run(0, 4, victims, t5, 1);
    r.box.post_run(0, 2, victims, 1);  // unqualified
    r.write("BOX_FILTER", 3, 0);
    r.write("CTL0", en | tid_en | umask(0x01) | ev(0x37), 0);
    r.write("CTL1", en | umask(0x01) | ev(0x37), 0);
    EXPECT_EQ(r.read("CTR0", 20), 10u + 2u);
    EXPECT_EQ(r.read("CTR1", 20), 16u);
    r.write("BOX_FILTER", 0x1F, 20);
    r.box.post_qualified_run(20, 6, victims, none, 1);
    r.box.post_qualified_run(20, 6, victims, request_quals{}, 1);  // no attributes: what matched
    EXPECT_EQ(r.read("CTR0", 30), 12u + 6u + 6u);
    // LLC_LOOKUP.NID: state and node both; thresh/edge apply to the sum.
    request_quals m_on_1 = state(llc_state::m);
    m_on_1.given |= request_field::nid;
    m_on_1.nid = 1;
    r.box.post_qualified_run(30, 10, lookup_nid, m_on_1, 1);
    r.write("BOX_FILTER", (0x08u << 18) | (0x02u << 10), 30);  // M, node 1
    r.write("CTL1", en | thresh(1) | edge | umask(0x41) | ev(0x34), 30);
    EXPECT_EQ(r.read("CTR1", 40), 16u + 12u + 1u) << "cycles 20-29 all, then one rising edge";
    r.write("CTL0", en | umask(0x41) | ev(0x34), 40);
    r.box.post_qualified_run(40, 10, lookup_nid, m_on_1, 1);
    r.write("BOX_FILTER", 0x02u << 10, 45);  // no state selected from cycle 45: nothing
    EXPECT_EQ(r.read("CTR0", 50), 24u + 5u);
}

// B7 + B14: the home agent compares a request's cache-line address (bits
// 45:6) with ADDRMATCH0/1 and its opcode with OPCODEMATCH, exactly; FILT
// needs both, ADDR the address, OPC/AD/BL/AK the opcode.
TEST(DecisionRequests, HomeAgentMatchesAddressAndOpcode) {
    rig r(box_kind::ha, ivb, 1);
    request_quals line, other, both;
    line.given = other.given = request_field::addr;
    line.addr = 0x12345678C0ull + 0x3F;  // bits 5:0 are not compared
    other.addr = 0x1234567900ull;
    both.given = request_field::addr | request_field::opc;
    both.addr = 0x12345678C0ull;
    both.opc = 0x21;
    r.box.post_qualified_run(0, 10, r.input("ADDR_OPC_MATCH", "ADDR"), line, 1);
    r.box.post_qualified_run(0, 7, r.input("ADDR_OPC_MATCH", "ADDR"), other, 1);
    r.box.post_qualified_run(0, 6, r.input("ADDR_OPC_MATCH", "OPC"), opcode(0x21), 1);
    r.box.post_qualified_run(0, 4, r.input("ADDR_OPC_MATCH", "OPC"), opcode(0x20), 1);
    r.box.post_qualified_run(0, 3, r.input("ADDR_OPC_MATCH", "FILT"), both, 1);
    r.write("BOX_ADDRMATCH0", 0x345678C0, 0);
    r.write("BOX_ADDRMATCH1", 0x12, 0);
    r.write("BOX_OPCODEMATCH", 0x21, 0);
    r.write("CTL0", en | umask(0x01) | ev(0x20), 0);
    r.write("CTL1", en | umask(0x02) | ev(0x20), 0);
    r.write("CTL2", en | umask(0x03) | ev(0x20), 0);
    EXPECT_EQ(r.read("CTR0", 20), 10u);
    EXPECT_EQ(r.read("CTR1", 20), 6u);
    EXPECT_EQ(r.read("CTR2", 20), 3u);
    r.box.post_qualified_run(20, 5, r.input("ADDR_OPC_MATCH", "FILT"), both, 1);
    r.write("BOX_ADDRMATCH1", 0x13, 22);  // another line from cycle 22
    EXPECT_EQ(r.read("CTR2", 30), 5u);
    rig s(box_kind::ha, snb, 0);
    s.box.post_qualified_run(0, 8, s.input("ADDR_OPC_MATCH", "FILT"), both, 1);
    s.write("BOX_ADDRMATCH0", 0x345678C0, 0);
    s.write("BOX_ADDRMATCH1", 0x12, 0);
    s.write("BOX_OPCODEMATCH", 0x21, 0);
    s.write("CTL3", en | umask(0x03) | ev(0x20), 0);
    EXPECT_EQ(s.read("CTR3", 10), 8u);
}

// What a qualified row may give: every filter field its sub-event uses
// (Intel's catalog's Filter column), the thread on a caching agent, values
// that fit the filter's fields; anything else is refused with its column.
TEST(DecisionRequests, RowsGiveExactlyTheFieldsTheirSubEventIsFilteredBy) {
    const box_spec& cbo = spec_for(box_kind::cbo, snb, 0);
    const box_spec& ivb_cbo = spec_for(box_kind::cbo, ivb, 0);
    const box_spec& ha = spec_for(box_kind::ha, ivb, 0);
    auto in = [](const box_spec& s, const char* e, const char* sub) { return *s.catalog->find_input(e, sub); };
    auto problem = [](const box_spec& s, unsigned input, const request_quals& q) {
        auto p = check_quals(s, input, q);
        return p ? std::string(p->column) + ": " + p->reason : std::string();
    };
    EXPECT_EQ(problem(cbo, in(cbo, "TOR_INSERTS", "OPCODE"), state(llc_state::m)),
              "state: is given, but TOR_INSERTS.OPCODE is not filtered by state (its request attributes: opc, tid)");
    request_quals s_only = state(llc_state::s);
    EXPECT_EQ(problem(cbo, in(cbo, "LLC_LOOKUP", "NID"), s_only),
              "nid: is missing: LLC_LOOKUP.NID is filtered by state, nid: a row that qualifies it gives all of them");
    request_quals n8 = s_only;
    n8.given |= request_field::nid;
    n8.nid = 8;
    EXPECT_EQ(problem(cbo, in(cbo, "LLC_LOOKUP", "NID"), n8),
              "nid: is not a node of the filter's 8-bit node mask (0-7)");
    EXPECT_EQ(problem(ivb_cbo, in(ivb_cbo, "LLC_LOOKUP", "NID"), n8), "");
    EXPECT_EQ(problem(cbo, in(cbo, "TOR_INSERTS", "OPCODE"), opcode(0x200)),
              "opc: does not fit the filter's 9-bit field (largest 511)");
    EXPECT_EQ(problem(ha, in(ha, "ADDR_OPC_MATCH", "OPC"), opcode(0x40)),
              "opc: does not fit the filter's 6-bit field (largest 63)");
    request_quals t;
    t.given = request_field::tid;
    EXPECT_EQ(problem(ha, in(ha, "ADDR_OPC_MATCH", "OPC"), t),
              "tid: is given, but ADDR_OPC_MATCH.OPC is not filtered by tid (its request attributes: opc)");
    const box_spec& ubox = spec_for(box_kind::ubox, ivb, 0);
    EXPECT_EQ(problem(ubox, in(ubox, "EVENT_MSG", "MSI_RCVD"), t),
              "tid: is given, but ubox has no request filter: its rows give no request attributes");
    EXPECT_EQ(problem(cbo, in(cbo, "TOR_INSERTS", "OPCODE"), request_quals{}), "") << "no attributes: what matched";
    rig r(box_kind::cbo, snb, 0);
    EXPECT_THROW(r.box.post_qualified_run(0, 1, in(cbo, "LLC_LOOKUP", "NID"), s_only, 1), std::invalid_argument);
}

// Each distinct (sub-event, attributes) is an input; a box holds a bounded
// number of them at once and says so beyond it.
TEST(DecisionRequests, DistinctQualifiedInputsAreBounded) {
    rig r(box_kind::ha, ivb, 0);
    const unsigned addr = r.input("ADDR_OPC_MATCH", "ADDR");
    request_quals q;
    q.given = request_field::addr;
    for (size_t k = 0; k < box_core::max_qualified; ++k) {
        q.addr = k << 6;
        r.box.post_qualified_run(0, 1, addr, q, 1);
    }
    r.box.post_qualified_run(1, 1, addr, q, 1);  // an attribute set it has
    q.addr = box_core::max_qualified << 6;
    EXPECT_THROW(r.box.post_qualified_run(1, 1, addr, q, 1), std::length_error);
    r.write("BOX_ADDRMATCH0", 5u << 6, 0);
    r.write("CTL0", en | umask(0x01) | ev(0x20), 0);
    EXPECT_EQ(r.read("CTR0", 10), 1u) << "the request to line 5 alone";
    // Once the runs are over, their inputs are reused: a trace may name any
    // number of addresses, 4096 at a time.
    r.write("BOX_ADDRMATCH0", 10005u << 6, 10);
    for (uint64_t k = 0; k < 2 * box_core::max_qualified; ++k) {
        q.addr = (k + 10000) << 6;
        r.box.advance_to(10 + k);  // (as a replay syncs its boxes)
        r.box.post_qualified_run(10 + k, 1, addr, q, 1);
    }
    EXPECT_EQ(r.read("CTR0", 10 + 2 * box_core::max_qualified), 2u) << "line 10005's request in cycle 15";
}

}  // namespace
}  // namespace pmonsim
