// Caching-agent (CBo) PMON MSRs: box n at 0xD04 + 0x20n (BOX_CTL), CTL0-3
// at 0xD10-0xD13, the filter at 0xD14 (IVB-EP FILTER0; FILTER1 at 0xD1A) and
// CTR0-3 at 0xD16-0xD19 (327043-001 Tables 2-8..2-11, 329468-002 Tables
// 2-12..2-17). Choices where the manuals are unclear (decisions.md B8):
// - no BOX_STATUS (none is documented; IVB-EP reports to GLOBAL_STATUS only);
// - the filters select the requests of qualified event-trace rows (state,
//   node, opcode, thread; B14); rows without them are what matched; the
//   SNB-EP layout is Linux's and PCM's (opc 31:23, state 22:18, nid 17:10,
//   tid 4:0), IVB-EP's the manual's with Linux's link (8:5) and c6
//   (FILTER1 29) bits, which are stored, as are nc and isoc;
// - tid_en (CTLn bit 19) makes a counter take only the filter's thread;
// - BOX_CTL with frz_en on SNB-EP (bit 17 reserved, Table 2-9) and IVB-EP's
//   bits 17:16 "write 1".
#include "tables/register_table.h"

#include <cstdio>
#include <stdexcept>

namespace pmonsim {

namespace {

std::vector<field_def> cbo_ctl_fields(const ctl_shape& s) {
    const attr a = s.rw_v ? attr::rw_v : attr::rw;
    return {
        {"rsv", 63, 32, attr::rv, "reserved"},
        fd(ctl_bits::thresh, a, "threshold compared with the per-cycle increment"),
        s.invert ? fd(ctl_bits::invert, a, "count cycles with increment < thresh")
                 : field_def{"rsv", 23, 23, attr::rv, "reserved (no invert on IVB-EP)"},
        fd(ctl_bits::en, a, "local counter enable"),
        {"rsv", 21, 21, attr::rv, "reserved"},
        s.ov_en ? fd(ctl_bits::ov_en, a, "overflow messages the UBox (GLOBAL_STATUS bit 3 + box)")
                : field_def{"rsv", 20, 20, attr::rv, "reserved"},
        fd(cbo_bits::tid_en, a, "take only requests of the filter's thread ID (decisions.md B14)"),
        fd(ctl_bits::edge, a, "count 0->1 transitions of the threshold compare"),
        fd(ctl_bits::rst, attr::wo, "writing 1 clears the paired counter"),
        {"rsv", 16, 16, attr::rv, "reserved"},
        fd(ctl_bits::umask, a, "sub-event select"),
        fd(ctl_bits::ev_sel, a, "event select"),
    };
}

}  // namespace

register_table cbo_register_table(cpu_model cpu, unsigned unit) {
    const box_desc& c = describe(cpu).need(box_kind::cbo);
    if (unit >= c.units) throw std::out_of_range("no caching agent " + std::to_string(unit));
    const uint32_t base = 0xD00 + 0x20 * unit;
    const std::string p = "C" + std::to_string(unit) + "_MSR_PMON_";
    register_table t;
    t.title = "caching agent " + std::to_string(unit) + " PMON MSRs";
    t.msr_space = true;
    t.regs.push_back({p + "BOX_CTL", base + 0x04, 8, 0, reg_role::box_ctl, 0, msr_box_ctl_fields(c.box_ctl)});
    for (uint8_t i = 0; i < c.counters; ++i)
        t.regs.push_back({p + "CTL" + std::to_string(i), base + 0x10 + i, 8, 0, reg_role::ctl, i, cbo_ctl_fields(c.ctl)});
    for (uint8_t i = 0; i < c.counters; ++i)
        t.regs.push_back(msr_counter(p + "CTR" + std::to_string(i), base + 0x16 + i, c.width, reg_role::ctr, i));
    // The filters: their fields per personality, applied to the requests of
    // qualified event-trace rows (decisions.md B14).
    namespace f = cbo_filter_bits;
    switch (c.filters) {
        case cbo_filters::none: break;
        case cbo_filters::one_filter:
            t.regs.push_back({p + "BOX_FILTER", base + 0x14, 8, 0, reg_role::stored, 0,
                              {{"rsv", 63, 32, attr::rv, "reserved"},
                               fd(f::snb_opc, attr::rw, "request opcode for the TOR events' _OPCODE sub-events"),
                               fd(f::snb_state, attr::rw, "LLC states for LLC_LOOKUP, a bit each (I S E M F from bit 18)"),
                               fd(f::snb_nid, attr::rw, "target node mask for the _NID sub-events, a bit per node"),
                               {"rsv", 9, 5, attr::rv, "reserved"},
                               fd(f::tid, attr::rw, "thread/core ID for counters with tid_en")}});
            break;
        case cbo_filters::two_filters:
            t.regs.push_back({p + "BOX_FILTER0", base + 0x14, 8, 0, reg_role::stored, 0,
                              {{"rsv", 63, 23, attr::rv, "reserved"},
                               fd(f::ivb_state, attr::rw, "LLC states for LLC_LOOKUP, a bit each (I S E M F M from bit 17)"),
                               {"rsv", 16, 9, attr::rv, "reserved"},
                               fd(f::ivb_link, attr::rw, "QPI link for RxR_IPQ_RETRY.QPI_CREDITS (Linux's; stored)"),
                               fd(f::tid, attr::rw, "thread/core ID for counters with tid_en")}});
            t.regs.push_back({p + "BOX_FILTER1", base + 0x1A, 8, 0, reg_role::stored, 1,
                              {{"rsv", 63, 32, attr::rv, "reserved"},
                               fd(f::ivb_isoc, attr::rw, "match isochronous requests (stored)"),
                               fd(f::ivb_nc, attr::rw, "match non-coherent requests (stored)"),
                               fd(f::ivb_c6, attr::rw, "Linux's filter_c6 (stored)"),
                               fd(f::ivb_opc, attr::rw, "request opcode for the TOR events' _OPCODE sub-events"),
                               {"rsv", 19, 16, attr::rv, "reserved"},
                               fd(f::ivb_nid, attr::rw, "target node mask for the _NID sub-events, a bit per node")}});
            break;
    }
    return t;
}

}  // namespace pmonsim
