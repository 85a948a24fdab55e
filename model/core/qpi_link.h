// QPI link-layer flit accounting for one port (327043-001 §2.6.1, 329468-002
// §2.7.1 and the packet-format notes; DECISIONS.md "QPI link layer").
//
// Packets are serialized per direction into 2 flit slots per QCLK, in the order
// they are posted; a header takes the first free slot at or after its cycle.
// Each packet becomes one burst in the port's flit slots (flit_stream.h): its
// non-data flits (header first) count in G0 NON_DATA and their G1/G2 class,
// its data flits in G0 DATA and their class, and every slot no packet uses is
// an idle flit. Received headers go to the box's packet filter for CTO_COUNT.
// Work per packet is constant.
#pragma once
#include <algorithm>
#include <array>
#include <cstdint>
#include <optional>

#include "core/box_core.h"

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
    const uint64_t m0 = (uint64_t{(p.rnid >> 4) & 1u} << 31) | (uint64_t{p.dnid & 31u} << 13) |
                        (uint64_t{p.mc & 15u} << 9) | (uint64_t{p.opc & 15u} << 5) |
                        (uint64_t{p.vn & 3u} << 3);
    const uint64_t m1 = (uint64_t{p.rds & 15u} << 16) | (p.rnid & 15u);
    return (m1 << 32) | m0;
}

class qpi_link {
public:
    explicit qpi_link(box_core& box);

    // Place a packet whose header is ready in cycle `at` (QCLK). Returns the
    // cycle in which its header flit goes. (Inline: once per replayed packet.)
    cycle_t post_packet(qpi_dir dir, cycle_t at, const qpi_packet& p) {
        // Trace readers always give the size; the class's default is the
        // unusual path.
        if (p.flits == 0) [[unlikely]] return post_unsized(dir, at, p);
        const unsigned d = static_cast<unsigned>(dir);
        const dir_kinds& k = kinds_[d];
        const unsigned mc = p.mc & 15u;
        const unsigned data = data_flits(mc, p.flits);
        flit_burst b;
        b.start = std::max(next_slot_[d], 2 * at);
        b.nondata = p.flits - data;
        b.data = data;
        b.nondata_kind = k.nondata[unsigned{p.ring_ad} << 4 | mc];
        b.data_kind = k.data[mc];
        // Only received headers are filtered. (A mask, as above: directions
        // alternate in no predictable order.)
        b.fields = filter_fields(p) & (uint64_t{0} - (dir == qpi_dir::rx));
        box_.post_link_burst(d, b);
        next_slot_[d] = b.end();
        ++packets_[d];
        return b.start / 2;
    }
    // First free flit slot (2 per cycle) in a direction.
    uint64_t next_free_slot(qpi_dir dir) const { return next_slot_[static_cast<int>(dir)]; }
    uint64_t packets(qpi_dir dir) const { return packets_[static_cast<int>(dir)]; }

private:
    // Slot kinds per direction: idle, then non-data and data flits of each
    // message class (a class the catalog has no G1/G2 input for counts only
    // in G0).
    struct dir_kinds {
        // By message class, then again for packets tagged as AD ring traffic
        // (which only NDR's are: NDR_AD instead of NDR_AK).
        std::array<uint8_t, 32> nondata{};
        std::array<uint8_t, 16> data{};
    };
    // post_packet() of a packet of its class's default size (out of line).
    cycle_t post_unsized(qpi_dir dir, cycle_t at, const qpi_packet& p);

    box_core& box_;
    std::array<dir_kinds, 2> kinds_{};
    std::array<uint64_t, 2> next_slot_{};
    std::array<uint64_t, 2> packets_{};
};

}  // namespace pmonsim
