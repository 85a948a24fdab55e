#include "core/qpi_link.h"

#include <algorithm>

namespace pmonsim {

packet_shape shape_of(const qpi_packet& p) {
    const bool opc3 = (p.opc >> 3) & 1;
    unsigned flits = 1, data = 0;
    if (p.mc == qpi_mc::drs || p.mc == qpi_mc::ncb) {
        flits = opc3 ? 11 : 9;  // 1 or 3 non-data flits + 8 data flits
        data = 8;
    } else if (p.mc == qpi_mc::ncs) {
        flits = opc3 ? 3 : 1;
    }
    if (p.flits) {  // an explicit size keeps at least one header flit
        flits = p.flits;
        data = data ? std::min(8u, flits - 1) : 0;
    }
    return {flits, data};
}

uint64_t filter_fields(const qpi_packet& p) {
    const uint64_t m0 = (uint64_t{(p.rnid >> 4) & 1u} << 31) | (uint64_t{p.dnid & 31u} << 13) |
                        (uint64_t{p.mc & 15u} << 9) | (uint64_t{p.opc & 15u} << 5) |
                        (uint64_t{p.vn & 3u} << 3);
    const uint64_t m1 = (uint64_t{p.rds & 15u} << 16) | (p.rnid & 15u);
    return (m1 << 32) | m0;
}

qpi_link::qpi_link(box_core& box) : box_(box) {
    const event_catalog& cat = *box.spec().catalog;
    const char* g0[2] = {"RxL_FLITS_G0", "TxL_FLITS_G0"};
    const char* g1[2] = {"RxL_FLITS_G1", "TxL_FLITS_G1"};
    const char* g2[2] = {"RxL_FLITS_G2", "TxL_FLITS_G2"};
    for (int d = 0; d < 2; ++d) {
        dir_inputs& in = in_[d];
        in.idle = cat.find_input(g0[d], "IDLE");
        in.data = cat.find_input(g0[d], "DATA");
        in.non_data = cat.find_input(g0[d], "NON_DATA");
        in.snp = cat.find_input(g1[d], "SNP");
        in.hom_req = cat.find_input(g1[d], "HOM_REQ");
        in.hom_nonreq = cat.find_input(g1[d], "HOM_NONREQ");
        in.drs_data = cat.find_input(g1[d], "DRS_DATA");
        in.drs_nondata = cat.find_input(g1[d], "DRS_NONDATA");
        in.ndr_ad = cat.find_input(g2[d], "NDR_AD");
        in.ndr_ak = cat.find_input(g2[d], "NDR_AK");
        in.ncb_data = cat.find_input(g2[d], "NCB_DATA");
        in.ncb_nondata = cat.find_input(g2[d], "NCB_NONDATA");
        in.ncs = cat.find_input(g2[d], "NCS");
        // An idle link fills both slots of every cycle with idle flits.
        if (in.idle) box_.post_step(box_.cycle(), *in.idle, 2);
    }
}

// Slots [a, b): even slots are the first slot of cycle s/2, odd slots the
// second; each parity is one run of one flit per cycle, so four boundaries.
void qpi_link::post_slots(const box_core::input_change* c, unsigned n, uint64_t a, uint64_t b) {
    if (n == 0 || a >= b) return;
    box_core::input_change neg[3];
    for (unsigned k = 0; k < n; ++k) neg[k] = {c[k].input, -c[k].delta};
    const uint64_t even_from = (a + 1) / 2, even_to = (b + 1) / 2;  // cycles c with 2c in [a,b)
    const uint64_t odd_from = a / 2, odd_to = b / 2;                // cycles c with 2c+1 in [a,b)
    if (even_from < even_to) {
        box_.post_steps(even_from, c, n);
        box_.post_steps(even_to, neg, n);
    }
    if (odd_from < odd_to) {
        box_.post_steps(odd_from, c, n);
        box_.post_steps(odd_to, neg, n);
    }
}

cycle_t qpi_link::post_packet(qpi_dir dir, cycle_t at, const qpi_packet& p) {
    const int d = static_cast<int>(dir);
    const dir_inputs& in = in_[d];
    const packet_shape s = shape_of(p);
    const uint64_t start = std::max(next_slot_[d], 2 * at);
    const uint64_t data_from = start + (s.flits - s.data), end = start + s.flits;
    next_slot_[d] = end;
    ++packets_[d];

    std::optional<unsigned> nondata_class, data_class;
    switch (p.mc) {
        case qpi_mc::hom0: nondata_class = in.hom_req; break;
        case qpi_mc::hom1: nondata_class = in.hom_nonreq; break;
        case qpi_mc::snp: nondata_class = in.snp; break;
        case qpi_mc::ndr: nondata_class = p.ring_ad ? in.ndr_ad : in.ndr_ak; break;
        case qpi_mc::ncs: nondata_class = in.ncs; break;
        case qpi_mc::ncb: nondata_class = in.ncb_nondata; data_class = in.ncb_data; break;
        case qpi_mc::drs: nondata_class = in.drs_nondata; data_class = in.drs_data; break;
        default: break;  // other classes show only in G0
    }
    // Each flit takes an idle slot and counts in G0 and in its class.
    auto range = [&](std::optional<unsigned> g0, std::optional<unsigned> cls, uint64_t a, uint64_t b) {
        box_core::input_change c[3];
        unsigned n = 0;
        if (in.idle) c[n++] = {*in.idle, -1};
        if (g0) c[n++] = {*g0, +1};
        if (cls) c[n++] = {*cls, +1};
        post_slots(c, n, a, b);
    };
    range(in.non_data, nondata_class, start, data_from);
    range(in.data, data_class, data_from, end);
    if (dir == qpi_dir::rx) box_.post_rx_header(start / 2, filter_fields(p));
    return start / 2;
}

}  // namespace pmonsim
