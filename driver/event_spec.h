// Event specifications of a PMON session: the text a user gives for one event,
// checked against the event catalog of the CPU personality and turned into what
// the driver programs: the counter control value, the QPI packet filter, and
// the counters the event may use.
//
// Two spellings are accepted.
//
//  * Catalog names: BOX/EVENT[.SUB[|SUB...]][:PRESET][,modifier...]
//      BOX     ubox, ubox_fixed, r2pcie, qpi0, qpi1, qpi2 (qpi2: ivb-ep with 3 ports)
//      EVENT   a catalog event name, with or without the UNC_U_ / UNC_R2_ / UNC_Q_
//              prefix; case-insensitive. ubox/UCLK, ubox/CLOCKTICKS and
//              ubox_fixed/UCLK (or /CLOCKTICKS) name the UCLK fixed counter.
//      SUB     a umask name of that event (single or combined, e.g. DRS_DATA,
//              HOM, CW), several joined with '|', or bitN for a bare umask bit.
//              Events whose umask 0 means "every sub-event" may omit SUB.
//      PRESET  a CTO_COUNT filter preset: qpi0/CTO_COUNT:DRS.AnyDataC; the IVB-EP
//              perfmon names qpi0/MESSAGE.DRS.AnyDataC (UNC_Q_MESSAGE.*) and
//              qpi0/CTO_COUNT.DRS.AnyDataC mean the same. MATCH_MASK (UNC_Q_MATCH_MASK)
//              is CTO_COUNT with the filter given by modifiers.
//      modifiers  thresh=N, edge[=0|1], inv[=0|1], socket=N, and for CTO_COUNT the
//              filter: match0= match1= mask0= mask1= (32-bit registers),
//              match= mask= config1= config2= (64-bit {X1,X0}), and Linux's fields
//              match_vnw match_opc match_mc match_dnid match_rnid4 match_rnid30
//              match_rds and the same mask_* (applied left to right, each
//              replacing its bits; a preset is applied first).
//
//  * Linux perf: PMU/term,term,.../ with PMU uncore_ubox, uncore_r2pcie,
//    uncore_qpi_0..2 and Linux's format fields: event (config:0-7, on QPI
//    config:0-7,21, so event=0x102 is code 0x02 with the ext bit), umask, edge,
//    inv, thresh (5 bits on the UBox, 8 elsewhere), config= (the raw control
//    value), config1=/config2= and the match_*/mask_* fields above.
//    uncore_ubox/event=0xff/ is the UCLK fixed counter (Linux's convention).
//    Nothing may follow the closing '/'.
//
// Checks (event_error, "<text>: <reason>"): the box exists for the personality
// and port count; the event and umask are in that personality's catalog (raw
// codes too); thresh fits the box's threshold field; edge and inv need thresh
// >= 1 (327043-001/329468-002 §2.1: they act "in series following thresh");
// inv does not exist on ivb-ep (CTL bit 23 reserved); filters only on QPI
// CTO_COUNT; filter values only in the documented MATCH/MASK fields.
#pragma once
#include <array>
#include <cstdint>
#include <functional>
#include <optional>
#include <stdexcept>
#include <string>

#include "catalog/catalog.h"
#include "desc/cpu.h"
#include "desc/fields.h"

namespace pmonsim::driver {

class event_error : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

struct event_spec {
    std::string text;          // as given
    std::string name;          // canonical, e.g. "qpi0/RxL_FLITS_G1.DRS_DATA"; parses back to this spec
    cpu_model cpu = default_cpu;
    box_kind kind = box_kind::r2pcie;
    unsigned unit = 0;         // QPI port; 0 for the other boxes
    bool fixed = false;        // the UBox UCLK fixed counter (kind ubox_fixed)
    // Counter control without the en bit (22):
    // ev_sel | umask<<8 | edge<<18 | ext<<21 | inv<<23 | thresh<<24 (the PCU: and
    // occ_invert<<30 | occ_edge<<31). 0 for the fixed counter.
    uint32_t ctl = 0;
    // QPI CTO_COUNT uses the port's one packet filter (always, even when it
    // matches everything): match = {MATCH1,MATCH0}, mask = {MASK1,MASK0}.
    bool has_filter = false;
    uint64_t match = 0, mask = 0;
    // The PCU's band events (FREQ_BANDk_CYCLES): k, and the byte its band
    // filter needs (decisions.md B11); -1: no band.
    int band = -1;
    uint8_t band_value = 0;
    // The box's request filter (the caching agents' FILTER/FILTER0/FILTER1,
    // the home agent's ADDRMATCH0/1 and OPCODEMATCH; decisions.md B14), per
    // register by index: the bits this event claims and their values. The
    // events of one box must agree where their claims overlap.
    std::array<uint64_t, 3> req_mask{}, req_value{};
    uint8_t counters = 0;              // allowed counters (bit i: counter i); fixed: 0x1
    std::optional<unsigned> event;     // index in catalog_for(kind, cpu); none for the fixed counter
    std::optional<unsigned> socket;    // socket=N: only that socket; none: every socket

    // The box instance: "ubox", "ubox_fixed", "r2pcie", "qpi0".
    std::string box_name() const;
    // The name inside its box: "RxL_FLITS_G1.DRS_DATA" (name without "box/").
    std::string local_name() const;
    // The CTL value with the enable bit.
    uint32_t ctl_enabled() const { return ctl | static_cast<uint32_t>(ctl_bits::en.mask()); }
};

// Parses one event. qpi_ports: QPI ports present per socket (2, or 3 on ivb-ep).
event_spec parse_event(const std::string& text, cpu_model cpu, unsigned qpi_ports);

// An event given by Intel's full name without a box (UNC_Q_RxL_FLITS_G1.DRS_DATA,
// UNC_U_EVENT_MSG.IPI_RCVD) as one event per box of its type ("qpi0/...",
// "qpi1/..."), as perf counts it on every PMU of the type; anything else as is.
// (present(kind): how many units of a numbered kind the machine has; without
// it, the descriptor's.)
std::vector<std::string> expand_full_name(const std::string& text, cpu_model cpu, unsigned qpi_ports,
                                          const std::function<unsigned(box_kind)>& present = {});

// Documented MATCH/MASK bits ({X1,X0}): MATCH0/MASK0 0x8003FFF8, MATCH1/MASK1 0x000F000F.
constexpr uint64_t filter_valid_bits = match_bits::vnw.mask() | match_bits::opc.mask() | match_bits::mc.mask() |
                                       match_bits::dnid.mask() | match_bits::rnid_4.mask() |
                                       match_bits::rnid_3_0.mask() | match_bits::rds.mask();
static_assert(filter_valid_bits == 0x000F000F8003FFF8ull);

}  // namespace pmonsim::driver
