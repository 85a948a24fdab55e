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
#include "desc/qpi_packet.h"

namespace pmonsim {

class qpi_link {
public:
    explicit qpi_link(box_core& box);

    // Place a packet whose header is ready in cycle `at` (QCLK). Returns the
    // cycle in which its header flit goes. (Inline: once per replayed packet.)
    [[gnu::always_inline]] cycle_t post_packet(qpi_dir dir, cycle_t at, const qpi_packet& p) {
        // Trace readers always give the size; the class's default is the
        // unusual path.
        if (p.flits == 0) [[unlikely]] return post_unsized(dir, at, p);
        const unsigned d = static_cast<unsigned>(dir);
        flit_burst b = burst_of(dir, p);
        b.start = std::max(next_slot_[d], first_slot(at));
        box_.post_link_burst(d, b);
        next_slot_[d] = b.end();
        ++packets_[d];
        return cycle_of_slot(b.start);
    }
    // post_packet() for packets k = 0, 1, ... (at most n): next(k, dir, at)
    // returns packet k and sets its direction and cycle. Stops before a
    // packet for which it returns null or that has no size (flits 0: the
    // caller posts that one with post_packet()); returns how many were
    // placed. (Inline: a replay's run of one port's packets, the link's state
    // held in registers meanwhile.)
    template <class Next>
    [[gnu::always_inline]] size_t post_packets_while(size_t n, Next&& next) {
        burst_ring::appender out[2] = {box_.link_append(0, n), box_.link_append(1, n)};
        uint64_t slot[2] = {next_slot_[0], next_slot_[1]};
        const size_t tail0[2] = {out[0].tail, out[1].tail};
        const uint64_t earliest = first_slot(box_.cycle());
        size_t k = 0;
        auto keep = [&] {
            for (unsigned d = 0; d < 2; ++d) {
                const size_t m = out[d].tail - tail0[d];
                if (m == 0) continue;
                box_.link_appended(d, out[d], slot[d]);
                next_slot_[d] = slot[d];
                packets_[d] += m;
            }
        };
        for (; k < n; ++k) {
            qpi_dir dir;
            cycle_t at;
            const qpi_packet* p = next(k, dir, at);
            if (!p || p->flits == 0) break;
            const unsigned d = static_cast<unsigned>(dir);
            flit_burst b = burst_of(dir, *p);
            b.start = std::max(slot[d], first_slot(at));
            if (b.start < earliest) [[unlikely]] {
                keep();
                box_.reject_late_burst(b.start);
            }
            out[d].push(b);
            slot[d] = b.end();
        }
        keep();
        return k;
    }
    // `count` equal packets, the k-th ready in cycle at + k * spacing: placed
    // exactly as post_packet() would place them one by one, as at most two
    // repeated bursts (back to back while the link is behind, then one every
    // `spacing` cycles), so that the walks count them in closed form.
    void post_packets(qpi_dir dir, cycle_t at, uint64_t spacing, uint64_t count, const qpi_packet& p);
    // First free flit slot (2 per cycle) in a direction.
    uint64_t next_free_slot(qpi_dir dir) const { return next_slot_[static_cast<int>(dir)]; }
    uint64_t packets(qpi_dir dir) const { return packets_[static_cast<int>(dir)]; }

private:
    // The burst of one sized packet (p.flits != 0), but for its start.
    [[gnu::always_inline]] flit_burst burst_of(qpi_dir dir, const qpi_packet& p) const {
        const dir_kinds& k = kinds_[static_cast<unsigned>(dir)];
        const unsigned mc = p.mc & 15u;
        const unsigned data = data_flits(mc, p.flits);
        flit_burst b;
        b.nondata = static_cast<uint16_t>(p.flits - data);
        b.data = static_cast<uint16_t>(data);
        b.nondata_kind = k.nondata[unsigned{p.ring_ad} << 4 | mc];
        b.data_kind = k.data[mc];
        // Only received headers are filtered. (A mask, not a branch:
        // directions alternate in no predictable order.)
        b.fields = filter_fields(p) & (uint64_t{0} - (dir == qpi_dir::rx));
        return b;
    }
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
