// Differential test of QPI link-layer counting: qpi_link + box_core (packets
// turned into grouped input steps, counters walked in closed form) against a
// serialization built here, independently, one flit slot at a time
// (DECISIONS.md "QPI link layer"), fed cycle by cycle to reference_box.
//
// What it proves, for random traffic (dense bursts that queue, idle gaps of
// hundreds to thousands of cycles, every message class and some unknown ones,
// explicit sizes, both directions), random generic inputs on the same box,
// random controls biased to the flit events and CTO_COUNT, near-wrap preloads
// and random register writes (controls, counters, box control, status clears,
// match/mask halves, global freeze and re-arm):
//  - every counter, wrap count and BOX_STATUS equals the reference's at every
//    register access and at the end, and overflow messages come in the same
//    cycles;
//  - post_packet() returns the cycle of the packet's header flit, and the
//    link ends at the same slot as the serialization;
//  - input_now() of every input equals the serialization's value for the
//    current cycle (CTO_COUNT: this cycle's rx headers under the current filter);
//  - all of this whether the packets are posted up front or just ahead of the
//    walk, interleaved with advance_to() and register writes (as replay does);
//  - predict_message() names exactly the cycle of the next overflow message.
//
// Shared with the model on purpose: shape_of() and filter_fields() (they are
// the definitions of packet size and header layout, not the serialization) and
// the catalog's input numbering.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <array>
#include <limits>
#include <optional>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "desc/bits.h"
#include "core/qpi_link.h"
#include "reference/reference_box.h"

namespace pmonsim {
namespace {

using reference::reference_box;

constexpr uint64_t kDword = 0xFFFFFFFFull;

const register_def& reg(const box_spec& s, reg_role role, unsigned index = 0) {
    for (const auto& r : s.table.regs)
        if (r.role == role && r.index == index) return r;
    throw std::runtime_error("no such register");
}

// ---------------------------------------------------------------------------
// Flit inputs, looked up by name in the catalog

// The inputs one flit of a direction adds 1 to.
struct dir_inputs {
    std::optional<unsigned> idle, data, non_data;  // G0
    // G1/G2 class input of a flit: [mc][ndr ring AD][data flit].
    std::array<std::array<std::array<std::optional<unsigned>, 2>, 2>, 16> cls{};
};

// Which G1/G2 sub-event a flit of each message class counts in, written out
// here from DECISIONS.md and qpi-ll.md §3 rather than taken from qpi_link.
struct class_sub {
    const char* group;    // "G1" or "G2"
    const char* nondata;  // header and other non-data flits
    const char* data;     // data flits (nullptr: the class has none)
};

std::optional<class_sub> class_of(unsigned mc, bool ring_ad) {
    switch (mc) {
        case qpi_mc::hom0: return class_sub{"G1", "HOM_REQ", nullptr};
        case qpi_mc::hom1: return class_sub{"G1", "HOM_NONREQ", nullptr};
        case qpi_mc::snp: return class_sub{"G1", "SNP", nullptr};
        case qpi_mc::drs: return class_sub{"G1", "DRS_NONDATA", "DRS_DATA"};
        case qpi_mc::ndr: return class_sub{"G2", ring_ad ? "NDR_AD" : "NDR_AK", nullptr};
        case qpi_mc::ncs: return class_sub{"G2", "NCS", nullptr};
        case qpi_mc::ncb: return class_sub{"G2", "NCB_NONDATA", "NCB_DATA"};
        default: return std::nullopt;  // other encodings count only in G0
    }
}

std::optional<unsigned> need(const event_catalog& cat, const std::string& ev, const std::string& sub) {
    auto in = cat.find_input(ev, sub);
    if (!in) throw std::runtime_error("catalog has no input " + ev + "." + sub);
    return in;
}

dir_inputs lookup_inputs(const event_catalog& cat, qpi_dir dir) {
    const std::string side = dir == qpi_dir::rx ? "RxL_FLITS_" : "TxL_FLITS_";
    dir_inputs in;
    // TxL_FLITS_G0.IDLE exists only on SNB-EP: a missing input simply is not counted.
    in.idle = cat.find_input(side + "G0", "IDLE");
    if (dir == qpi_dir::rx || cat.cpu() == cpu_model::snb_ep) need(cat, side + "G0", "IDLE");
    in.data = need(cat, side + "G0", "DATA");
    in.non_data = need(cat, side + "G0", "NON_DATA");
    for (unsigned mc = 0; mc < 16; ++mc)
        for (int ad = 0; ad < 2; ++ad) {
            const auto c = class_of(mc, ad);
            if (!c) continue;
            in.cls[mc][ad][0] = need(cat, side + c->group, c->nondata);
            if (c->data) in.cls[mc][ad][1] = need(cat, side + c->group, c->data);
        }
    return in;
}

// ---------------------------------------------------------------------------
// Random stimulus and its per-cycle serialization

struct timed_packet {
    cycle_t at;  // the cycle its header is ready
    qpi_packet p;
};

struct generic_step {
    cycle_t at;
    unsigned input;
    int64_t delta;
};

struct stimulus {
    std::array<std::vector<timed_packet>, 2> packets;  // per direction, in `at` order
    std::array<std::vector<cycle_t>, 2> header_cycle;  // per packet: its header's cycle
    std::array<uint64_t, 2> end_slot{};                // first slot after the last flit
    std::vector<generic_step> steps;                   // generic inputs, sorted by `at`
    std::vector<std::vector<uint64_t>> in;             // [cycle][input] increments
    std::vector<std::vector<uint64_t>> rx_headers;     // [cycle] fields of received headers
};

qpi_packet random_packet(std::mt19937_64& rng) {
    static constexpr uint8_t classes[] = {qpi_mc::hom0, qpi_mc::hom1, qpi_mc::snp, qpi_mc::ndr, qpi_mc::ncs,
                                          qpi_mc::ncb,  qpi_mc::drs,  5,           9};
    qpi_packet p;
    p.mc = rng() % 12 == 0 ? static_cast<uint8_t>(rng() % 16) : classes[rng() % 9];
    p.opc = static_cast<uint8_t>(rng() % 16);  // bit 3 picks the NCS/NCB/DRS size
    p.vn = static_cast<uint8_t>(rng() % 4);
    // Few distinct node IDs, so that filters on them match now and then.
    p.rnid = static_cast<uint8_t>(rng() % 3 == 0 ? rng() % 32 : rng() % 4);
    p.dnid = static_cast<uint8_t>(rng() % 3 == 0 ? rng() % 32 : rng() % 4);
    p.rds = static_cast<uint8_t>(rng() % 2 ? 0 : rng() % 16);
    p.ring_ad = rng() % 2;
    if (rng() % 7 == 0) p.flits = static_cast<uint16_t>(1 + rng() % 20);
    return p;
}

// Packets with header times in [0, until), in `at` order. With `streams`,
// also runs of equal packets at a constant spacing (a trace's run-length
// bursts): some faster than the link drains them, some slower.
std::vector<timed_packet> random_traffic(std::mt19937_64& rng, cycle_t until, bool streams = false) {
    std::vector<timed_packet> out;
    cycle_t t = rng() % 20;
    while (t < until) {
        if (streams && rng() % 3 == 0) {
            const qpi_packet p = random_packet(rng);
            const cycle_t spacing = 1 + rng() % (rng() % 2 ? 12 : 3);
            const unsigned n = 2 + rng() % (rng() % 4 ? 40 : 400);
            for (unsigned k = 0; k < n && t < until; ++k, t += spacing) out.push_back({t, p});
            t += rng() % 30;
            continue;
        }
        switch (rng() % 8) {
            case 0:
            case 1:
            case 2: {  // dense burst: headers come faster than slots free, so packets queue
                const unsigned n = 5 + rng() % 60;
                for (unsigned k = 0; k < n && t < until; ++k) {
                    out.push_back({t, random_packet(rng)});
                    if (rng() % 3 == 0) ++t;
                }
                break;
            }
            case 3:  // a long idle gap: the link sends only idle flits
                t += 100 + rng() % 2500;
                break;
            default: {  // a few packets with short gaps, the link partly idle
                const unsigned n = 1 + rng() % 8;
                for (unsigned k = 0; k < n; ++k) {
                    t += rng() % 12;
                    if (t >= until) break;
                    out.push_back({t, random_packet(rng)});
                }
                break;
            }
        }
    }
    return out;
}

// One flit slot of a direction: 2 per cycle, slot s in cycle s / 2.
struct flit_slot {
    bool used = false;                  // false: an idle flit
    std::optional<unsigned> g0, cls;    // inputs the flit adds 1 to
    bool header = false;                // a received packet's header
    uint64_t fields = 0;                // its filter fields
};

// Serializes the packets into slots, literally as DECISIONS.md says: per
// direction in posting order, a header takes the first free slot at or after
// slot 2*at, the packet's flits follow it; then sums each cycle's two slots.
void serialize(const std::array<dir_inputs, 2>& ins, cycle_t horizon, stimulus& st) {
    for (int d = 0; d < 2; ++d) {
        const dir_inputs& in = ins[d];
        std::vector<flit_slot> slots(2 * horizon);
        uint64_t prev_end = 0;
        st.header_cycle[d].clear();
        for (const timed_packet& tp : st.packets[d]) {
            const packet_shape s = shape_of(tp.p);
            uint64_t start = 2 * tp.at;
            while (start < slots.size() && slots[start].used) ++start;
            if (start < prev_end) throw std::logic_error("a packet overtook an earlier one");
            if (start + s.flits > slots.size()) slots.resize(start + s.flits);
            for (unsigned k = 0; k < s.flits; ++k) {
                flit_slot& f = slots[start + k];
                if (f.used) throw std::logic_error("slot taken twice");
                const bool data = k >= s.flits - s.data;  // data flits come last
                f.used = true;
                f.g0 = data ? in.data : in.non_data;
                f.cls = in.cls[tp.p.mc & 15][tp.p.ring_ad][data];
            }
            slots[start].header = d == static_cast<int>(qpi_dir::rx);
            slots[start].fields = filter_fields(tp.p);
            st.header_cycle[d].push_back(start / 2);
            prev_end = start + s.flits;
        }
        st.end_slot[d] = prev_end;
        for (cycle_t c = 0; c < horizon; ++c)
            for (uint64_t s = 2 * c; s < 2 * c + 2; ++s) {
                const flit_slot& f = slots[s];
                if (!f.used) {
                    if (in.idle) ++st.in[c][*in.idle];
                    continue;
                }
                if (f.g0) ++st.in[c][*f.g0];
                if (f.cls) ++st.in[c][*f.cls];
                if (f.header) st.rx_headers[c].push_back(f.fields);
            }
    }
}

// Traffic in [0, traffic_until), runs of generic inputs, and the per-cycle
// serialization over [0, horizon).
stimulus make_stimulus(std::mt19937_64& rng, const box_spec& spec, const std::array<dir_inputs, 2>& ins,
                       cycle_t horizon, cycle_t traffic_until, unsigned generic_inputs, bool streams = false) {
    const event_catalog& cat = *spec.catalog;
    const unsigned n_in = cat.input_count();
    const unsigned clock_input = *cat.input_of(*cat.find("CLOCKTICKS"), -1);
    const unsigned cto_input = *cat.input_of(*cat.find(0x38, true), -1);
    stimulus st;
    st.in.assign(horizon, std::vector<uint64_t>(n_in, 0));
    st.rx_headers.assign(horizon, {});
    for (int d = 0; d < 2; ++d) st.packets[d] = random_traffic(rng, traffic_until, streams);
    serialize(ins, horizon, st);
    // The box drives CLOCKTICKS itself: one in every cycle.
    for (auto& row : st.in) row[clock_input] = 1;

    // Generic inputs on the same box; on a flit or CTO input they add to the packets'.
    std::vector<unsigned> flit_like{cto_input};
    for (const dir_inputs& in : ins) {
        for (auto i : {in.idle, in.data, in.non_data})
            if (i) flit_like.push_back(*i);
        for (const auto& per_mc : in.cls)
            for (const auto& per_ring : per_mc)
                for (const auto& i : per_ring)
                    if (i) flit_like.push_back(*i);
    }
    for (unsigned k = 0; k < generic_inputs; ++k) {
        const unsigned input = rng() % 3 == 0 ? flit_like[rng() % flit_like.size()] : rng() % n_in;
        if (input == clock_input) continue;
        const event_def& ed = cat.events()[cat.input(input).event];
        for (cycle_t c = rng() % 500; c < traffic_until;) {
            const cycle_t len = 1 + rng() % 300;
            const uint32_t v = rng() % 3 == 0 ? 0 : static_cast<uint32_t>(1 + rng() % ed.max_inc);
            if (v) {
                for (cycle_t j = c; j < std::min(c + len, horizon); ++j) st.in[j][input] += v;
                st.steps.push_back({c, input, v});
                st.steps.push_back({c + len, input, -static_cast<int64_t>(v)});
            }
            c += len + (rng() % 4 == 0 ? rng() % 800 : 0);
        }
    }
    std::stable_sort(st.steps.begin(), st.steps.end(),
                     [](const generic_step& a, const generic_step& b) { return a.at < b.at; });
    return st;
}

// ---------------------------------------------------------------------------
// Random register values

// A counter control biased to the flit events and CTO_COUNT, with thresholds,
// edge, invert (reserved on IVB-EP), ov_en (reserved on SNB-EP) and rst.
uint32_t qpi_ctl(const box_spec& s, std::mt19937_64& rng) {
    static const char* hot[] = {"RxL_FLITS_G0", "TxL_FLITS_G0", "RxL_FLITS_G1", "TxL_FLITS_G1",
                                "RxL_FLITS_G2", "TxL_FLITS_G2", "CTO_COUNT",    "CTO_COUNT"};
    std::uniform_int_distribution<int> pct(0, 99);
    const event_catalog& cat = *s.catalog;
    const event_def& e = pct(rng) < 80 ? cat.events()[*cat.find(hot[rng() % 8])]
                                       : cat.events()[rng() % cat.events().size()];
    uint8_t umask = 0;
    if (!e.umasks.empty()) {
        const int how = pct(rng);
        if (how < 55) {
            umask = e.umasks[rng() % e.umasks.size()].value;
        } else if (how < 90) {  // several sub-events summed
            for (int k = 0; k < 3; ++k) umask |= e.umasks[rng() % e.umasks.size()].value;
        } else {
            umask = static_cast<uint8_t>(rng());  // undefined bits too
        }
    }
    uint32_t v = e.code | (uint32_t{umask} << 8);
    if (e.ext && pct(rng) < 95) v |= 1u << 21;  // sometimes 0x38 without ext: no event
    if (pct(rng) < 45) v |= static_cast<uint32_t>(1 + rng() % 3) << 24;  // thresh 1..3
    if (pct(rng) < 30) v |= 1u << 18;                                     // edge
    if (pct(rng) < 25) v |= 1u << 23;                                     // invert
    if (pct(rng) < 90) v |= 1u << 22;                                     // en
    if (pct(rng) < 40) v |= 1u << 20;                                     // ov_en
    if (pct(rng) < 10) v |= 1u << 17;                                     // rst pulse
    return v;
}

// A counter preload close below the wrap, so that wraps, status bits and
// overflow messages happen within a run even on slow events.
uint64_t near_wrap(const box_spec& s, std::mt19937_64& rng) {
    const uint64_t wrap = 1ull << s.width;
    return wrap - 1 - (rng() % 2 ? rng() % 40 : rng() % 400);
}

// A filter {MATCH1,MATCH0} or {MASK1,MASK0} value.
uint64_t random_match(std::mt19937_64& rng) {
    if (rng() % 8 == 0) return rng();  // reserved bits too
    return filter_fields(random_packet(rng));
}

uint64_t random_mask(std::mt19937_64& rng) {
    static constexpr uint64_t fields[] = {
        1ull << 31,          // RNID[4]
        0x1Full << 13,       // DNID
        0xFull << 9,         // MC
        0xFull << 5,         // OPC
        0x3ull << 3,         // VN
        0xFull << 48,        // RDS
        0xFull << 32,        // RNID[3:0]
    };
    switch (rng() % 8) {
        case 0: return 0;      // matches every packet
        case 1: return rng();  // reserved bits too
        default: {
            uint64_t m = 0;
            for (int k = rng() % 4; k > 0; --k) m |= fields[rng() % 7];
            return m;
        }
    }
}

// ---------------------------------------------------------------------------
// The differential run

struct qpi_case {
    cpu_model cpu;
    bool incremental;  // post packets just ahead of the walk instead of all up front
    bool bursts = false;  // traffic with streams of equal packets, posted as runs (qpi_link::post_packets)
};

// The run of packets from `i` that are equal and evenly spaced, before `limit`.
size_t run_length(const std::vector<timed_packet>& v, size_t i, cycle_t limit) {
    size_t j = i + 1;
    if (j >= v.size() || v[j].at >= limit || v[j].at == v[i].at) return 1;
    const cycle_t spacing = v[j].at - v[i].at;
    auto same = [](const qpi_packet& a, const qpi_packet& b) { return std::memcmp(&a, &b, sizeof a) == 0; };
    while (j < v.size() && v[j].at < limit && v[j].at - v[j - 1].at == spacing && same(v[j].p, v[i].p)) ++j;
    return j - i;
}

class QpiDifferential : public ::testing::TestWithParam<qpi_case> {};

TEST_P(QpiDifferential, LinkCountingMatchesPerCycleReference) {
    const qpi_case qc = GetParam();
    const box_spec spec = make_box_spec(box_kind::qpi, qc.cpu, 0);
    const event_catalog& cat = *spec.catalog;
    const std::array<dir_inputs, 2> ins{lookup_inputs(cat, qpi_dir::rx), lookup_inputs(cat, qpi_dir::tx)};
    const unsigned n_in = cat.input_count();
    const unsigned cto_input = *cat.input_of(*cat.find(0x38, true), -1);
    constexpr cycle_t N = 4000;
    constexpr uint64_t kSeeds = 80;
    uint64_t compared = 0, input_checks = 0, predictions = 0, packets = 0, messages = 0, wraps = 0, cto_counted = 0;
    uint64_t runs_posted = 0;

    for (uint64_t seed = 1; seed <= kSeeds; ++seed) {
        std::mt19937_64 rng(seed * 104729 + static_cast<uint64_t>(qc.cpu) * 17 + (qc.incremental ? 5 : 0) +
                            (qc.bursts ? 11 : 0));
        diagnostic_sink diags;
        box_core box(spec, clock_domain(1000000000ull), &diags);
        qpi_link link(box);
        reference_box ref(spec);
        const stimulus st = make_stimulus(rng, spec, ins, N, N, 6, qc.bursts);

        // Posting to the model under test: everything whose time is before `limit`.
        std::array<size_t, 2> next_pkt{};
        size_t next_step = 0;
        auto post_before = [&](cycle_t limit) {
            for (int d = 0; d < 2; ++d)
                for (; next_pkt[d] < st.packets[d].size() && st.packets[d][next_pkt[d]].at < limit; ++next_pkt[d]) {
                    const timed_packet& tp = st.packets[d][next_pkt[d]];
                    if (const size_t n = qc.bursts ? run_length(st.packets[d], next_pkt[d], limit) : 1; n > 1) {
                        link.post_packets(static_cast<qpi_dir>(d), tp.at, st.packets[d][next_pkt[d] + 1].at - tp.at, n,
                                          tp.p);
                        runs_posted += n;
                        next_pkt[d] += n - 1;
                        continue;
                    }
                    const cycle_t h = link.post_packet(static_cast<qpi_dir>(d), tp.at, tp.p);
                    ASSERT_EQ(h, st.header_cycle[d][next_pkt[d]])
                        << "seed " << seed << " dir " << d << " packet " << next_pkt[d] << " at " << tp.at
                        << " mc " << int(tp.p.mc) << " opc " << int(tp.p.opc) << " flits " << tp.p.flits;
                }
            for (; next_step < st.steps.size() && st.steps[next_step].at < limit; ++next_step)
                box.post_step(st.steps[next_step].at, st.steps[next_step].input, st.steps[next_step].delta);
        };
        // How far ahead of the walk the incremental variant posts (1: only the
        // current cycle's packets are known when the box reaches it).
        static constexpr cycle_t lookaheads[] = {1, 1, 2, 7, 60, 500};
        const cycle_t lookahead = lookaheads[rng() % 6];
        if (!qc.incremental) post_before(std::numeric_limits<cycle_t>::max());
        if (HasFatalFailure()) return;

        uint64_t match = 0, mask = 0;  // the reference's copy of the filter
        std::vector<cycle_t> model_msgs, ref_msgs;
        auto write = [&](const register_def& r, uint64_t v, cycle_t c) {
            box.write_reg(r, v, width_mask(r.size * 8u), box.clock().cycle_start(c));
        };
        auto write_filter = [&](cycle_t c, bool all) {
            const uint64_t m = random_match(rng), k = random_mask(rng);
            const reg_role roles[4] = {reg_role::pkt_match0, reg_role::pkt_match1, reg_role::pkt_mask0,
                                       reg_role::pkt_mask1};
            for (int h = 0; h < 4; ++h) {
                if (!all && rng() % 4 == 0) continue;  // some halves keep their old value
                const register_def& r = reg(spec, roles[h]);
                uint64_t v = ((h < 2 ? m : k) >> (h % 2 ? 32 : 0)) & kDword;
                if (rng() % 10 == 0) v = rng() & kDword;  // reserved bits: not stored
                write(r, v, c);
                uint64_t& target = h < 2 ? match : mask;
                const unsigned shift = h % 2 ? 32 : 0;
                target = (target & ~(kDword << shift)) | ((v & r.stored_mask()) << shift);
            }
        };
        auto matches = [&](cycle_t c) {
            uint64_t n = 0;
            for (uint64_t f : st.rx_headers[c]) n += ((f ^ match) & mask) == 0;
            return n;
        };
        auto fast_to = [&](cycle_t c) {
            while (auto m = box.advance_to(c, true)) {
                model_msgs.push_back(m->cycle);
                box.set_global_freeze(true);  // the owner's reaction to its message
                box.set_armed(false);
            }
        };
        auto compare = [&](cycle_t c) {
            for (unsigned i = 0; i < spec.counters; ++i) {
                ASSERT_EQ(box.counter_value(i), ref.counter(i).value)
                    << "seed " << seed << " cycle " << c << " counter " << i << " ctl 0x" << std::hex
                    << ref.counter(i).ctl;
                ASSERT_EQ(box.counter_wraps(i), ref.counter(i).wraps)
                    << "seed " << seed << " cycle " << c << " counter " << i;
                // The compare result (shown in waveforms; edge detection's memory).
                ASSERT_EQ(box.counter_compare(i), ref.counter(i).prev)
                    << "seed " << seed << " cycle " << c << " counter " << i << " ctl 0x" << std::hex
                    << ref.counter(i).ctl;
            }
            ASSERT_EQ(box.box_status(), ref.status) << "seed " << seed << " cycle " << c;
            ++compared;
        };
        // input_now() in the current cycle, every input: flits, idle, CLOCKTICKS,
        // generic runs, and CTO_COUNT with this cycle's headers under the current filter.
        auto check_inputs = [&](cycle_t c) {
            ASSERT_EQ(box.cycle(), c);
            for (unsigned i = 0; i < n_in; ++i) {
                const uint64_t want = st.in[c][i] + (i == cto_input ? matches(c) : 0);
                ASSERT_EQ(box.input_now(i), want) << "seed " << seed << " cycle " << c << " input "
                                                  << cat.input_name(i) << " match 0x" << std::hex << match
                                                  << " mask 0x" << mask;
            }
            ++input_checks;
        };

        // predict_message() in the middle of the run names the reference's
        // next message if nothing else is written (SNB-EP: never). With packets
        // still unposted (incremental) the model predicts from what it has, so
        // there it is only called: its trial walk must leave the box alone.
        auto check_prediction = [&](cycle_t c) {
            const std::optional<cycle_t> pred = box.predict_message();
            if (qc.incremental) return;
            std::optional<cycle_t> want;
            // Disarmed or globally frozen, the reference cannot message until
            // the owner acts: no need to tick it (this keeps the test fast).
            if (spec.has_ov_en && ref.armed && !ref.global_freeze) {
                reference_box trial = ref;
                for (cycle_t t = c; t < N && !want; ++t)
                    if (trial.tick(st.in[t], static_cast<uint32_t>(matches(t)))) want = t;
            }
            if (want) {
                ASSERT_EQ(pred, want) << "seed " << seed << " predicted at cycle " << c;
            } else {
                ASSERT_TRUE(!pred || *pred >= N) << "seed " << seed << " cycle " << c << ": " << *pred;
            }
            ++predictions;
        };

        // Initial programming before cycle 0: near-wrap preloads, random controls.
        if (qc.incremental) post_before(lookahead);
        if (HasFatalFailure()) return;
        if (rng() % 4) write_filter(0, true);
        for (unsigned i = 0; i < spec.counters; ++i) {
            const uint64_t pre = near_wrap(spec, rng);
            write(reg(spec, reg_role::ctr, i), pre, 0);
            ref.write_ctr(i, pre);
            const uint32_t ctl = qpi_ctl(spec, rng);
            write(reg(spec, reg_role::ctl, i), ctl, 0);
            ref.write_ctl(i, ctl);
        }

        for (cycle_t c = 0; c < N; ++c) {
            if (qc.incremental) post_before(c + lookahead);
            if (HasFatalFailure()) return;
            if (rng() % 30 == 0) {  // a register access between cycles c-1 and c
                fast_to(c);
                compare(c);
                if (HasFatalFailure()) return;
                if (rng() % 3 == 0) check_inputs(c);  // before the write: the old filter
                if (HasFatalFailure()) return;
                const unsigned i = rng() % spec.counters;
                switch (rng() % 11) {
                    case 0:
                    case 1: {
                        const uint32_t ctl = qpi_ctl(spec, rng);
                        write(reg(spec, reg_role::ctl, i), ctl, c);
                        ref.write_ctl(i, ctl);
                        break;
                    }
                    case 2:
                    case 3: {
                        const uint64_t pre = rng() % 8 ? near_wrap(spec, rng) : rng() % 1000;
                        write(reg(spec, reg_role::ctr, i), pre, c);
                        ref.write_ctr(i, pre);
                        break;
                    }
                    case 4: {  // box control: rst pulses, freeze (frz_en on SNB-EP)
                        // The resets are rare: after them nothing wraps until a preload.
                        const uint32_t v = (rng() % 8 == 0 ? 1u : 0) | (rng() % 8 == 0 ? 2u : 0) |
                                           (rng() % 4 == 0 ? 1u << 8 : 0) | (rng() % 2 ? 1u << 16 : 0);
                        write(reg(spec, reg_role::box_ctl), v, c);
                        ref.write_box_ctl(v);
                        break;
                    }
                    case 5: {
                        const uint32_t v = static_cast<uint32_t>(rng() % 16);
                        write(reg(spec, reg_role::box_status), v, c);
                        ref.clear_status(v & ((1u << spec.counters) - 1));
                        break;
                    }
                    case 6:
                    case 9: {  // software sets or releases the global freeze and re-arms
                        const bool f = rng() % 6 == 0;
                        box.set_global_freeze(f);
                        ref.global_freeze = f;
                        box.set_armed(true);
                        ref.armed = true;
                        break;
                    }
                    case 7:
                    case 8:
                        write_filter(c, rng() % 2);
                        break;
                    default:
                        break;  // plain read
                }
                if (rng() % 2) box.settle();          // replay settles before sampling
                if (rng() % 3 == 0) check_inputs(c);  // after the write: the new filter
                if (HasFatalFailure()) return;
                if (rng() % 5 == 0) check_prediction(c);
                if (HasFatalFailure()) return;
            } else if (rng() % 80 == 0) {  // a look at the inputs without an access
                fast_to(c);
                check_inputs(c);
                if (HasFatalFailure()) return;
            }
            const uint64_t cto = matches(c);
            cto_counted += cto;
            if (ref.tick(st.in[c], static_cast<uint32_t>(cto))) {
                ref_msgs.push_back(c);
                ref.global_freeze = true;
                ref.armed = false;
            }
        }
        fast_to(N);
        compare(N);
        if (HasFatalFailure()) return;
        ASSERT_EQ(model_msgs, ref_msgs) << "seed " << seed << ": overflow message cycles";
        for (int d = 0; d < 2; ++d) {
            ASSERT_EQ(next_pkt[d], st.packets[d].size()) << "seed " << seed;
            ASSERT_EQ(link.packets(static_cast<qpi_dir>(d)), st.packets[d].size()) << "seed " << seed;
            ASSERT_EQ(link.next_free_slot(static_cast<qpi_dir>(d)), st.end_slot[d]) << "seed " << seed;
            packets += st.packets[d].size();
        }
        messages += ref_msgs.size();
        for (unsigned i = 0; i < spec.counters; ++i) wraps += ref.counter(i).wraps;
    }
    // The stimulus really exercised what it is meant to.
    EXPECT_GT(compared, kSeeds * 50);
    EXPECT_GT(input_checks, kSeeds * 20);
    EXPECT_GT(packets, kSeeds * 100);
    EXPECT_GT(wraps, kSeeds * 2);
    EXPECT_GT(cto_counted, kSeeds * 10);
    if (!qc.incremental) {
        EXPECT_GT(predictions, kSeeds * 5);
    }
    if (qc.cpu == cpu_model::ivb_ep) {  // SNB-EP has no ov_en: no messages
        EXPECT_GT(messages, kSeeds / 2);
    }
    if (qc.bursts) {  // (incremental posting sees only the runs inside its lookahead)
        EXPECT_GT(runs_posted, qc.incremental ? kSeeds * 10 : kSeeds * 100);
    }
}

INSTANTIATE_TEST_SUITE_P(
    Qpi, QpiDifferential,
    ::testing::Values(qpi_case{cpu_model::snb_ep, false}, qpi_case{cpu_model::snb_ep, true},
                      qpi_case{cpu_model::ivb_ep, false}, qpi_case{cpu_model::ivb_ep, true},
                      qpi_case{cpu_model::snb_ep, false, true}, qpi_case{cpu_model::snb_ep, true, true},
                      qpi_case{cpu_model::ivb_ep, false, true}, qpi_case{cpu_model::ivb_ep, true, true}),
    [](const ::testing::TestParamInfo<qpi_case>& p) {
        return std::string(p.param.cpu == cpu_model::snb_ep ? "snb" : "ivb") +
               (p.param.incremental ? "_incremental" : "_up_front") + (p.param.bursts ? "_runs" : "");
    });

// ---------------------------------------------------------------------------
// predict_message(): the cycle of the next overflow message, exactly

// IVB-EP only: SNB-EP has no ov_en, so its boxes never message. Several rounds
// per seed: predict, walk to the end of time stopping at the message, compare
// with the reference's first message, then react (freeze, or reload a counter
// near the wrap, or reprogram) and predict again from there.
TEST(QpiDifferentialPredict, PredictMessageIsTheNextMessageCycle) {
    const box_spec spec = make_box_spec(box_kind::qpi, cpu_model::ivb_ep, 0);
    const event_catalog& cat = *spec.catalog;
    const std::array<dir_inputs, 2> ins{lookup_inputs(cat, qpi_dir::rx), lookup_inputs(cat, qpi_dir::tx)};
    constexpr cycle_t H = 5000;          // reference horizon
    constexpr cycle_t kTraffic = 2500;   // packets and generic runs before this
    constexpr uint64_t kSeeds = 40;
    constexpr cycle_t kForever = std::numeric_limits<cycle_t>::max();
    unsigned predicted = 0;

    for (uint64_t seed = 1; seed <= kSeeds; ++seed) {
        std::mt19937_64 rng(seed * 6151 + 3);
        diagnostic_sink diags;
        box_core box(spec, clock_domain(1000000000ull), &diags);
        qpi_link link(box);
        reference_box ref(spec);
        const stimulus st = make_stimulus(rng, spec, ins, H, kTraffic, 3);
        for (int d = 0; d < 2; ++d)
            for (const timed_packet& tp : st.packets[d]) link.post_packet(static_cast<qpi_dir>(d), tp.at, tp.p);
        for (const generic_step& s : st.steps) box.post_step(s.at, s.input, s.delta);

        uint64_t match = 0, mask = 0;
        auto write = [&](const register_def& r, uint64_t v, cycle_t c) {
            box.write_reg(r, v, width_mask(r.size * 8u), box.clock().cycle_start(c));
        };
        // Counters that reach the wrap within the horizon most of the time:
        // CTO_COUNT (headers are walked apart from the input steps), G0 flits
        // (idle included, so they count after the traffic too), or anything.
        auto program = [&](unsigned i, cycle_t c) {
            uint32_t ctl = 0;
            switch (rng() % 3) {
                case 0: ctl = 0x38 | 1u << 21; break;
                case 1: ctl = (rng() % 2 ? 0x01 : 0x00) | static_cast<uint32_t>(1 + rng() % 7) << 8; break;
                default: ctl = qpi_ctl(spec, rng) & ~(1u << 17); break;
            }
            if (rng() % 4 == 0) ctl |= static_cast<uint32_t>(1 + rng() % 2) << 24;  // thresh
            if (rng() % 6 == 0) ctl |= 1u << 18;                                     // edge
            ctl |= 1u << 22;                                                          // en
            if (i == 0 || rng() % 3) ctl |= 1u << 20;  // most can message
            const uint64_t pre = near_wrap(spec, rng);
            write(reg(spec, reg_role::ctr, i), pre, c);
            ref.write_ctr(i, pre);
            write(reg(spec, reg_role::ctl, i), ctl, c);
            ref.write_ctl(i, ctl);
        };
        auto set_filter = [&](cycle_t c) {
            match = random_match(rng) & 0x000F000F8003FFF8ull;  // the stored (RW) bits
            mask = rng() % 2 ? 0 : random_mask(rng) & 0x000F000F8003FFF8ull;  // 0: every header
            write(reg(spec, reg_role::pkt_match0), match & kDword, c);
            write(reg(spec, reg_role::pkt_match1), match >> 32, c);
            write(reg(spec, reg_role::pkt_mask0), mask & kDword, c);
            write(reg(spec, reg_role::pkt_mask1), mask >> 32, c);
        };
        set_filter(0);
        for (unsigned i = 0; i < spec.counters; ++i) program(i, 0);

        cycle_t rc = 0;  // the next cycle the reference ticks
        for (int round = 0; round < 8; ++round) {
            ASSERT_EQ(box.cycle(), rc) << "seed " << seed;
            const std::optional<cycle_t> pred = box.predict_message();
            std::optional<cycle_t> ref_msg;
            for (; rc < H && !ref_msg; ++rc) {
                uint32_t cto = 0;
                for (uint64_t f : st.rx_headers[rc]) cto += ((f ^ match) & mask) == 0;
                if (ref.tick(st.in[rc], cto)) ref_msg = rc;
            }
            if (ref_msg) {
                ASSERT_EQ(pred, ref_msg) << "seed " << seed << " round " << round;
            } else {
                ASSERT_TRUE(!pred || *pred >= H) << "seed " << seed << " round " << round << " predicted " << *pred;
            }
            const auto m = box.advance_to(kForever, true);
            ASSERT_EQ(m ? std::optional<cycle_t>(m->cycle) : std::nullopt, pred)
                << "seed " << seed << " round " << round;
            if (!ref_msg) break;  // past the reference's horizon: nothing more to compare
            ++predicted;
            ASSERT_EQ(box.cycle(), *ref_msg + 1) << "seed " << seed;
            for (unsigned i = 0; i < spec.counters; ++i) {
                ASSERT_EQ(box.counter_value(i), ref.counter(i).value) << "seed " << seed << " counter " << i;
                ASSERT_EQ(box.counter_wraps(i), ref.counter(i).wraps) << "seed " << seed << " counter " << i;
            }
            ASSERT_EQ(box.box_status(), ref.status) << "seed " << seed;

            // The owner's reaction: freeze and disarm. Frozen, nothing messages.
            box.set_global_freeze(true);
            box.set_armed(false);
            ASSERT_FALSE(box.predict_message()) << "seed " << seed;
            // Software handles it in the same cycle and lets the box run again.
            box.set_global_freeze(false);
            box.set_armed(true);
            switch (rng() % 4) {
                case 0: program(m->counter, rc); break;  // reprogram the one that messaged
                case 1: {                                // reload it near the wrap
                    const uint64_t pre = near_wrap(spec, rng);
                    write(reg(spec, reg_role::ctr, m->counter), pre, rc);
                    ref.write_ctr(m->counter, pre);
                    break;
                }
                case 2: set_filter(rc); break;
                default: break;  // carry on: the next message is a whole wrap away unless another counter is close
            }
        }
    }
    EXPECT_GT(predicted, kSeeds);
}

}  // namespace
}  // namespace pmonsim
