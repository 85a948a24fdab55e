// The attributes of the requests a qualified event-trace row stands for
// (decisions.md B14): the caching agents' filters compare a request's LLC
// state, target node, opcode and thread, the home agent's match registers
// its address and opcode. A row without them states counts that already
// matched (B7, B8); a row with them counts where the box's filter, as it is
// in each cycle, takes its requests.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace pmonsim {

struct box_spec;

// A cache line's state as the CBo filter's state bits name it (bit 0 up).
enum class llc_state : uint8_t { i = 0, s = 1, e = 2, m = 3, f = 4 };
constexpr unsigned llc_state_count = 5;
std::optional<llc_state> parse_llc_state(std::string_view s);  // "I", "S", "E", "M", "F" (any case)
char llc_state_letter(llc_state s);

struct request_quals {
    uint8_t given = 0;   // request_field bits the row gives
    uint8_t state = 0;   // llc_state
    uint8_t tid = 0;     // thread: [4] not a thread's, [3:1] core, [0] thread
    uint8_t nid = 0;     // target node
    uint16_t opc = 0;    // CBo: 9-bit IDI opcode; HA: 6-bit (AD class 5:4, opcode 3:0)
    uint64_t addr = 0;   // physical address (bits 5:0 are not compared)

    // A row that gives no thread is a request of none: 0x1F, the manual's
    // thread ID for requests not associated with a thread.
    static constexpr uint8_t no_thread = 0x1F;
    friend bool operator==(const request_quals& a, const request_quals& b) {
        return a.given == b.given && a.state == b.state && a.tid == b.tid && a.nid == b.nid && a.opc == b.opc &&
               a.addr == b.addr;
    }
    friend bool operator<(const request_quals& a, const request_quals& b);
};

// What is wrong with qualifying catalog input `input` of a box with `q`: the
// column at fault and why (to follow the column's value: "is given, but
// ...", "is missing: ..."), or nothing. A row qualifies an input whose filter
// fields (event_catalog::input_filters) it gives all of, plus the thread on a
// caching agent; values must fit the box's filter fields.
struct quals_problem {
    const char* column;
    std::string reason;
};
std::optional<quals_problem> check_quals(const box_spec& spec, unsigned input, const request_quals& q);

}  // namespace pmonsim
