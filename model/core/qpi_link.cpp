#include "core/qpi_link.h"

#include <algorithm>

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

cycle_t qpi_link::post_unsized(qpi_dir dir, cycle_t at, const qpi_packet& p) {
    qpi_packet sized = p;
    sized.flits = static_cast<uint16_t>(shape_of(p).flits);
    return post_packet(dir, at, sized);
}

}  // namespace pmonsim
