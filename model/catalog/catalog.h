// Event catalog of the UBox, R2PCIe and QPI link-layer PMON boxes, per
// personality (327043-001 §2.2/§2.6/§2.8, 329468-002 §2.2/§2.7/§2.9, with Intel's
// perfmon JSON as the authority for codes, ext bits, umasks and counters).
//
// Each event has sub-events (named umask bits). The model takes one input per
// umask bit ("sub-event input"); a counter programmed with umask U adds the sum
// of the inputs of the bits set in U. An event without sub-events has one input.
// An enumerated event's umask values are encodings instead, not sums of bits
// (the HA's ADDR_OPC_MATCH: FILT 0x03 is "address and opcode", not ADDR +
// OPC): each distinct value is an input of its own, and a umask that is none
// of them selects nothing.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "desc/cpu.h"

namespace pmonsim {

// The request attributes a sub-event's filter registers compare (Intel's
// catalog's "Filter" column; decisions.md B14), a bit each. A qualified
// event-trace row gives them, and counts where the box's filter takes it.
namespace request_field {
inline constexpr uint8_t state = 0x01;  // the line's LLC state (CBo filter state)
inline constexpr uint8_t nid = 0x02;    // the target node (CBo filter nid)
inline constexpr uint8_t opc = 0x04;    // the opcode (CBo filter opc, HA OPCODEMATCH)
inline constexpr uint8_t addr = 0x08;   // the physical address (HA ADDRMATCH0/1)
inline constexpr uint8_t tid = 0x10;    // the thread (CBo filter tid, for counters with tid_en)
}  // namespace request_field

struct umask_def {
    std::string name;
    uint8_t value;  // one bit = a sub-event; several bits = a named combination
    uint8_t filters = 0;  // request_field bits its filter registers compare
};

struct event_def {
    std::string name;          // without the UNC_x_ prefix, e.g. "RxL_FLITS_G1"
    uint8_t code;              // ev_sel
    bool ext;                  // QPI extra select bit (CTL bit 21)
    std::vector<umask_def> umasks;
    uint8_t counters;          // bit i set: allowed on counter i
    uint16_t max_inc;          // largest increment per cycle
    bool umask0_all = false;   // umask 0 is a listed encoding and means "all sub-events"
    std::string description;
    // Further names of the same (code, umask) that Intel's catalog lists
    // (IVB-EP HA 0x59: IGR_AD_QPI2_ACCUMULATOR and IGR_CREDITS_AD_QPI2).
    std::vector<std::string> other_names = {};
    bool enumerated = false;   // umask values are encodings (see above)
    // The PCU's FREQ_BANDk_CYCLES: counts cycles whose frequency is at least
    // byte k of the band filter. The band events share one input, the
    // frequency in 100 MHz steps, which a row naming any of them sets
    // (decisions.md B11). -1: no band.
    int8_t band = -1;

    // An enumerated event's distinct umask values, in the order listed.
    std::vector<uint8_t> encodings() const;
    // A sub-event's umask value: bit b's (1 << b), or encoding b's.
    uint8_t sub_value(int sub) const;
    // Its name: the first umask named with that value, or "bitN".
    std::string sub_name(int sub) const;

    uint8_t valid_umask() const;
};

// A named match/mask preset for CTO_COUNT (e.g. DRS.AnyDataC), 329468-002 Table 2-137.
struct filter_preset {
    std::string name;
    uint32_t match0, mask0, match1, mask1;
};

struct input_ref {
    unsigned event;   // index into events()
    int bit;          // umask bit (enumerated: encoding index), or -1 for an event without sub-events
};

class event_catalog {
public:
    event_catalog(box_kind kind, cpu_model cpu, std::vector<event_def> events,
                  std::vector<filter_preset> presets = {});

    box_kind kind() const { return kind_; }
    cpu_model cpu() const { return cpu_; }
    const std::vector<event_def>& events() const { return events_; }
    const std::vector<filter_preset>& presets() const { return presets_; }

    std::optional<unsigned> find(uint8_t code, bool ext) const;
    std::optional<unsigned> find(const std::string& name) const;  // case-insensitive
    const filter_preset* find_preset(const std::string& name) const;

    // Sub-event inputs.
    unsigned input_count() const { return static_cast<unsigned>(inputs_.size()); }
    const input_ref& input(unsigned i) const { return inputs_[i]; }
    std::string input_name(unsigned i) const;  // "EVENT.SUB", "EVENT.bit3" or "EVENT"
    // Input of (event, sub-event name or single-bit umask value); nullopt if none.
    std::optional<unsigned> find_input(const std::string& event, const std::string& sub) const;
    std::optional<unsigned> input_of(unsigned event, int bit) const;
    // The request_field bits the filter registers compare for an input (its
    // sub-event's umask_def::filters; 0 for most).
    uint8_t input_filters(unsigned input) const;

    // What a (code, ext, umask) selection counts: the list of inputs, or an
    // error reason if the catalog does not define it.
    struct selection {
        std::vector<unsigned> inputs;
        std::optional<unsigned> event;
        std::string error;  // empty when valid
    };
    selection select(uint8_t code, bool ext, uint8_t umask) const;

private:
    box_kind kind_;
    cpu_model cpu_;
    std::vector<event_def> events_;
    std::vector<filter_preset> presets_;
    std::vector<input_ref> inputs_;
    std::vector<unsigned> first_input_;  // per event
    int band_input_ = -1;                // the band events' shared input
};

// An event without an extra select bit, allowed on the counters of mask
// `counters` (the usual shape outside the QPI and PCU boxes).
event_def plain_event(std::string name, uint8_t code, std::vector<umask_def> umasks, uint8_t counters,
                      uint16_t max_inc, std::string what);
// Sub-events NAME0..NAME<n-1> on bits 0..n-1 ("RANK", 8: RANK0=0x01 ... RANK7=0x80).
std::vector<umask_def> numbered_bits(const std::string& name, unsigned n, unsigned first = 0);

// The event of that name in a list being built (a catalog written as another
// CPU's plus differences); throws std::logic_error when there is none.
event_def& event_named(std::vector<event_def>& events, const std::string& name);

// The project's catalogs (catalog_*.cpp).
const event_catalog& catalog_for(box_kind kind, cpu_model cpu);

}  // namespace pmonsim
