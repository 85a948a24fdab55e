// A box instance as the counting engine and the driver see it.
#pragma once
#include <string>

#include "catalog/catalog.h"
#include "desc/cpu.h"
#include "desc/fields.h"
#include "tables/register_table.h"

namespace pmonsim {

// What a box's packet filter compares, and with which registers.
enum class packet_filter : uint8_t {
    none,
    // QPI: a received header's fields against {MATCH1,MATCH0} under
    // {MASK1,MASK0}; matches count in CTO_COUNT (cto_code, ext).
    qpi_match_mask,
    // Nehalem/Westmere: a request's address and opcode against
    // MSR_UNCORE_ADDR_OPCODE_MATCH per its MatchSel; matches count in event
    // ADDR_OPCODE_MATCH (addr_match_code), in the sub-event of their source.
    addr_opcode_match,
};

// How a global control reaches into a box's counters beyond freeze and PMI.
enum class global_gate : uint8_t {
    none,
    // Nehalem/Westmere: MSR_UNCORE_PERF_GLOBAL_CTRL.EN_PCn enables general
    // counter n, GLOBAL_STATUS.OVF_PCn is its status bit.
    uncore_general,
    // The same for the fixed counter: EN_FC0 and OVF_FC0.
    uncore_fixed,
};

// What the counting engine needs to know of one box instance: its
// descriptor's facts (desc/cpu.h) in the form the engine reads them, and the
// registers the box owns (built from the same descriptor).
struct box_spec {
    box_kind kind = box_kind::r2pcie;
    cpu_model cpu = default_cpu;
    std::string name;            // instance: "ubox", "ubox_fixed", "r2pcie", "qpi0"
    unsigned counters = 4;
    unsigned width = 44;
    unsigned thresh_bits = 8;
    bitfield thresh = ctl_bits::thresh;  // where CTL holds it
    bitfield en = ctl_bits::en;          // the local enable
    bitfield ov_en = ctl_bits::ov_en;    // overflow messages (the PMI bit on Nehalem)
    bool has_invert = false;
    bool has_ov_en = false;
    bool has_ext = false;
    bool has_box_ctl = false;
    bool freeze_needs_frz_en = false;  // SNB-EP: frozen iff frz_en && frz
    bool has_box_status = false;
    bool status_on_any_carry = false;  // SNB-EP: any carry sets BOX_STATUS
    bool fixed = false;                // counts its own clock; no event select
    // The box's counter that is a fixed counter beside the general ones (the
    // last, index counters - 1), -1 if none; its BOX_STATUS bit is 0 and
    // general counter i's is i + 1 (box_desc::fixed_counter).
    int fixed_index = -1;
    const char* clock_name = "UCLK";     // what a fixed counter counts, for reports
    std::string clock_event = "CLOCKTICKS";  // the catalog's event of the box's own clock
    int mirror_code = -1;  // the event with which counters 1-3 take counter 0's increment (box_desc)
    bool has_rst = true;               // CTL bit 17 clears the paired counter
    bool occupancy = false;            // the PCU's occupancy fields (ctl_shape::occupancy)
    // The first of the counters outside PMON (the PCU's C3 and C6 residency,
    // box_desc::residency_counters), -1 if none: they count cycles in which
    // their input is non-zero, always, whatever freeze, enables and resets do.
    int free_first = -1;
    int free_inputs[2] = {-1, -1};     // their inputs (the C3 and C6 occupancy)
    uint64_t free_rate_hz = 0;         // the rate they count at, the TSC's (decisions.md B12)
    bool ev_sel0_is_idle = false;      // UBox: ev_sel 0 counts nothing, silently
    int global_bit = -1;               // GLOBAL_STATUS bit, -1 if none
    uint32_t cto_code = 0x38;          // QPI CTO_COUNT (with ext)
    packet_filter filter = packet_filter::none;
    // What qualified event-trace rows' requests are compared with (B14).
    request_filter requests = request_filter::none;
    global_gate gate = global_gate::none;
    uint32_t addr_match_code = 0x35;   // Nehalem/Westmere ADDR_OPCODE_MATCH
    const event_catalog* catalog = nullptr;
    // The registers this box owns.
    register_table table;

    bool is_fixed(unsigned i) const { return fixed || static_cast<int>(i) == fixed_index; }
    bool is_free(unsigned i) const { return free_first >= 0 && static_cast<int>(i) >= free_first; }
    // Counter i's bit in BOX_STATUS.
    unsigned status_bit(unsigned i) const {
        if (fixed_index < 0) return i;
        return static_cast<int>(i) == fixed_index ? 0 : i + 1;
    }
};

box_spec make_box_spec(box_kind kind, cpu_model cpu, unsigned unit = 0);
// The spec of a unit of a box, made once (for those who only read it).
const box_spec& spec_for(box_kind kind, cpu_model cpu, unsigned unit = 0);

// Most counters any box has (the engine's fixed-size per-counter arrays).
constexpr unsigned max_box_counters = 8;

}  // namespace pmonsim
