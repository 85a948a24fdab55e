// A QPI packet as traces and the link see it, and the facts of its format
// that both need: message classes, flit counts, and the header fields in the
// packet filter's {MATCH1, MATCH0} layout (327043-001 §2.6.1, 329468-002
// §2.7.1; DECISIONS.md "QPI link layer").
#pragma once
#include <algorithm>
#include <cstdint>

#include "desc/fields.h"

namespace pmonsim {

enum class qpi_dir : uint8_t { rx = 0, tx = 1 };

// Message classes (MATCH0.MC encoding).
namespace qpi_mc {
constexpr uint8_t hom0 = 0, hom1 = 1, ndr = 2, snp = 3, ncs = 4, ncb = 12, drs = 14;
// The classes whose packets carry data flits, a bit each.
constexpr unsigned data_classes = 1u << drs | 1u << ncb;
}

// (Packed, 9 bytes: a replayed packet record, which holds one, is then 40
// bytes, and a dense replay hands hundreds of MB of them between cores.)
struct __attribute__((packed)) qpi_packet {
    uint8_t mc = 0;      // 0-15
    uint8_t opc = 0;     // 0-15
    uint8_t vn = 0;      // 0 VN0, 1 VN1, 2/3 VNA
    uint8_t rnid = 0;    // 0-31
    uint8_t dnid = 0;    // 0-31
    uint8_t rds = 0;     // 0-15 (one-hot M E S F, 0 = I)
    uint16_t flits = 0;  // 0: the class's default size
    bool ring_ad = false;  // NDR only: counted as NDR_AD instead of NDR_AK
};

// Size in flits and how many of them carry data.
struct packet_shape {
    unsigned flits;
    unsigned data;
};
// The data flits of a packet of `flits` (>= 1) flits in class `mc`: up to 8
// in a data class, after at least one header flit. (A mask, not a branch:
// a replay's message classes come in no predictable order.)
inline unsigned data_flits(unsigned mc, unsigned flits) {
    return std::min(8u, flits - 1u) & (0u - (qpi_mc::data_classes >> (mc & 15u) & 1u));
}
// (Inline: it runs for every packet a trace reader reads.)
inline packet_shape shape_of(const qpi_packet& p) {
    const unsigned mc = p.mc & 15u;
    const unsigned opc3 = (p.opc >> 3) & 1u;
    const unsigned data_class = qpi_mc::data_classes >> mc & 1u;
    // 1 or 3 non-data flits (opcode bit 3, on DRS, NCB and NCS), 8 data flits
    const unsigned by_class = 1u + 8u * data_class + 2u * opc3 * (data_class | unsigned{mc == qpi_mc::ncs});
    const unsigned flits = p.flits ? p.flits : by_class;
    return {flits, data_flits(mc, flits)};
}

// The packet's header fields in the {MATCH1, MATCH0} layout.
inline uint64_t filter_fields(const qpi_packet& p) {
    namespace m = match_bits;
    return m::rnid_4.put(p.rnid >> 4) | m::dnid.put(p.dnid) | m::mc.put(p.mc) | m::opc.put(p.opc) |
           m::vnw.put(p.vn) | m::rds.put(p.rds) | m::rnid_3_0.put(p.rnid);
}

// --- Requests reaching the home logic (packet_route::home_logic) -----------
// On Nehalem-EP/Westmere-EP a packet row is a request arriving at the
// socket's home logic; MSR_UNCORE_ADDR_OPCODE_MATCH compares its physical
// address and its QPI message class and opcode (SDM Vol. 3B 18.8.2.3;
// docs/decisions.md N15).

// Where a request comes from. The value is its umask bit in event
// ADDR_OPCODE_MATCH (IOH 0x01, REMOTE 0x02, LOCAL 0x04).
enum class home_src : uint8_t { ioh = 0, remote = 1, local = 2 };
constexpr unsigned home_src_count = 3;

// Physical addresses have 40 bits; `no_addr` is a request that gave none.
constexpr uint64_t phys_addr_max = (uint64_t{1} << 40) - 1;
constexpr uint64_t no_addr = ~uint64_t{0};
// A reserved bit of the register, set in a request's fields when it has no
// address, so that it never equals an address field written there.
inline constexpr bitfield addr_absent{"addr_absent", 48, 48};

// The request's fields in the register's layout: address bits 39:3, message
// class 47:44, opcode 43:40.
inline uint64_t addr_match_fields(const qpi_packet& p, uint64_t addr) {
    namespace n = nhm_bits;
    const uint64_t a = addr == no_addr ? addr_absent.put(1) : n::addr.put(addr >> n::addr.lo);
    return a | n::opcode.put(static_cast<uint64_t>(p.mc & 15u) << 4 | (p.opc & 15u));
}

}  // namespace pmonsim
