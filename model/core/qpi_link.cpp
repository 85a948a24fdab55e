#include "core/qpi_link.h"

#include <algorithm>
#include <limits>

namespace pmonsim {

qpi_link::qpi_link(box_core& box) : box_(box) {
    const event_catalog& cat = *box.spec().catalog;
    const char* g0[2] = {"RxL_FLITS_G0", "TxL_FLITS_G0"};
    const char* g1[2] = {"RxL_FLITS_G1", "TxL_FLITS_G1"};
    const char* g2[2] = {"RxL_FLITS_G2", "TxL_FLITS_G2"};
    for (unsigned d = 0; d < 2; ++d) {
        auto inputs = [&](const char* ev, const char* sub) {
            std::vector<unsigned> v;
            if (auto i = cat.find_input(ev, sub)) v.push_back(*i);
            return v;
        };
        auto kind = [&](const char* g0_sub, const char* ev, const char* sub) {
            std::vector<unsigned> v = inputs(g0[d], g0_sub);
            if (ev)
                if (auto i = cat.find_input(ev, sub)) v.push_back(*i);
            return box_.add_slot_kind(d, std::move(v));
        };
        box_.add_slot_kind(d, inputs(g0[d], "IDLE"));  // kind 0: an idle slot
        dir_kinds& k = kinds_[d];
        k.nondata.fill(kind("NON_DATA", nullptr, nullptr));  // classes only G0 knows
        k.data.fill(kind("DATA", nullptr, nullptr));
        k.nondata[qpi_mc::hom0] = kind("NON_DATA", g1[d], "HOM_REQ");
        k.nondata[qpi_mc::hom1] = kind("NON_DATA", g1[d], "HOM_NONREQ");
        k.nondata[qpi_mc::snp] = kind("NON_DATA", g1[d], "SNP");
        k.nondata[qpi_mc::ndr] = kind("NON_DATA", g2[d], "NDR_AK");
        const uint8_t ndr_ad = kind("NON_DATA", g2[d], "NDR_AD");
        k.nondata[qpi_mc::ncs] = kind("NON_DATA", g2[d], "NCS");
        k.nondata[qpi_mc::ncb] = kind("NON_DATA", g2[d], "NCB_NONDATA");
        k.data[qpi_mc::ncb] = kind("DATA", g2[d], "NCB_DATA");
        k.nondata[qpi_mc::drs] = kind("NON_DATA", g1[d], "DRS_NONDATA");
        k.data[qpi_mc::drs] = kind("DATA", g1[d], "DRS_DATA");
        std::copy(k.nondata.begin(), k.nondata.begin() + 16, k.nondata.begin() + 16);
        k.nondata[16 | qpi_mc::ndr] = ndr_ad;  // the others the same as without the tag
    }
    box_.filter_headers_of(static_cast<unsigned>(qpi_dir::rx));
}

void qpi_link::post_packets(qpi_dir dir, cycle_t at, uint64_t spacing, uint64_t count, const qpi_packet& p) {
    if (count == 0) return;
    qpi_packet sized = p;
    if (!sized.flits) sized.flits = static_cast<uint16_t>(shape_of(p).flits);
    const uint64_t len = sized.flits, period = slots_per_cycle * spacing;
    const uint64_t max_run = std::numeric_limits<uint32_t>::max();
    if (count == 1 || period > max_run) {  // (spacings beyond a repeated burst's: one by one)
        for (uint64_t k = 0; k < count; ++k) post_packet(dir, at + k * spacing, sized);
        return;
    }
    const unsigned d = static_cast<unsigned>(dir);
    flit_burst b = burst_of(dir, sized);
    // Packet j starts at max(the previous one's end, its own cycle's first
    // slot): back to back from `first` while the delay first - 2 at is at
    // least j (period - len), then at its own slot.
    const uint64_t first = std::max(next_slot_[d], first_slot(at));
    const uint64_t delay = first - first_slot(at);
    const uint64_t behind = period <= len ? count : std::min(count, delay / (period - len) + 1);
    auto place = [&](uint64_t start, uint64_t n, uint64_t step) {
        while (n) {  // (in runs a repeated burst can count)
            b.start = start;
            b.repeat = static_cast<uint32_t>(std::min(n, max_run));
            b.period = b.repeat > 1 ? static_cast<uint32_t>(step) : 0;
            box_.post_link_burst(d, b);
            start += b.repeat * step;
            n -= b.repeat;
            next_slot_[d] = b.end();
        }
    };
    place(first, behind, len);
    place(first_slot(at + behind * spacing), count - behind, period);
    packets_[d] += count;
}

cycle_t qpi_link::post_unsized(qpi_dir dir, cycle_t at, const qpi_packet& p) {
    qpi_packet sized = p;
    sized.flits = static_cast<uint16_t>(shape_of(p).flits);
    return post_packet(dir, at, sized);
}

}  // namespace pmonsim
