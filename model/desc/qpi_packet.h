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

// (Packed, 9 bytes: a replayed packet record, which holds one, is then 32
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
    const unsigned by_class = 1u + 8u * data_class + ((data_class | (mc == qpi_mc::ncs)) ? 2u * opc3 : 0u);
    const unsigned flits = p.flits ? p.flits : by_class;
    return {flits, data_flits(mc, flits)};
}

// The packet's header fields in the {MATCH1, MATCH0} layout.
inline uint64_t filter_fields(const qpi_packet& p) {
    namespace m = match_bits;
    return m::rnid_4.put(p.rnid >> 4) | m::dnid.put(p.dnid) | m::mc.put(p.mc) | m::opc.put(p.opc) |
           m::vnw.put(p.vn) | m::rds.put(p.rds) | m::rnid_3_0.put(p.rnid);
}

}  // namespace pmonsim
