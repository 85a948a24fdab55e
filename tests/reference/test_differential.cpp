// Differential tests: box_core (closed-form, lazy) against reference_box
// (per cycle, one unit at a time) on random event streams, random control
// values, preloads near the wrap and random register writes at random cycles.
#include <gtest/gtest.h>

#include <array>
#include <map>
#include <random>

#include "desc/bits.h"
#include "reference/reference_box.h"

namespace pmonsim {
namespace {

using reference::reference_box;

struct scenario {
    box_kind kind;
    cpu_model cpu;
};

class Differential : public ::testing::TestWithParam<scenario> {};

const register_def& reg(const box_spec& s, reg_role role, unsigned index = 0) {
    for (const auto& r : s.table.regs)
        if (r.role == role && r.index == index) return r;
    throw std::runtime_error("no such register");
}

uint32_t random_ctl(const box_spec& s, unsigned counter, std::mt19937_64& rng, bool messages) {
    std::uniform_int_distribution<int> pct(0, 99);
    uint32_t v = 0;
    const bool fixed = s.is_fixed(counter);
    if (!fixed) {
        const auto& evs = s.catalog->events();
        const event_def* pick = &evs[rng() % evs.size()];
        // (Nehalem/Westmere: often the event the requests drive.)
        if (s.filter == packet_filter::addr_opcode_match && pct(rng) < 40)
            pick = &evs[*s.catalog->find(static_cast<uint8_t>(s.addr_match_code), false)];
        // (Caching agents: often counter 0's occupancy, for COUNTER0_OCCUPANCY.)
        if (s.mirror_code >= 0 && pct(rng) < 30)
            pick = &evs[*s.catalog->find(static_cast<uint8_t>(counter == 0 ? 0x11 : s.mirror_code), false)];
        // (Caching and home agents: often an event their filters select for.)
        if (s.requests != request_filter::none && pct(rng) < 40) {
            const char* filtered[] = {"LLC_LOOKUP", "TOR_INSERTS", "TOR_OCCUPANCY", "LLC_VICTIMS"};
            const auto e = s.catalog->find(s.kind == box_kind::ha ? "ADDR_OPC_MATCH" : filtered[rng() % 4]);
            if (e && (evs[*e].counters & (1u << counter))) pick = &evs[*e];
        }
        // (The PCU: often an occupancy or a band event.)
        if (s.occupancy && pct(rng) < 50)
            pick = &evs[*s.catalog->find(pct(rng) < 50 ? "POWER_STATE_OCCUPANCY" : "FREQ_BAND" + std::to_string(rng() % 4) + "_CYCLES")];
        const event_def& e = *pick;
        uint8_t umask = 0;
        if (!e.umasks.empty()) umask = e.umasks[rng() % e.umasks.size()].value;
        if (pct(rng) < 5) umask ^= 1u << (rng() % 8);  // sometimes undefined bits
        v = e.code | (uint32_t{umask} << 8);
        if (e.ext && s.has_ext && pct(rng) < 95) v |= 1u << 21;
        const uint32_t tmax = (1u << s.thresh_bits) - 1;
        if (pct(rng) < 60) v |= (static_cast<uint32_t>(rng() % std::min<uint32_t>(tmax, 4) + 1)) << 24;
        if (pct(rng) < 35) v |= 1u << 18;                       // edge
        if (pct(rng) < 30) v |= 1u << 23;                       // invert (reserved on IVB)
        if (s.requests != request_filter::none && s.kind == box_kind::cbo && pct(rng) < 30)
            v |= cbo_bits::tid_en.put(1);
        if (s.occupancy && pct(rng) < 30) v |= 1u << 30;        // occ_invert
        if (s.occupancy && pct(rng) < 30) v |= 1u << 31;        // occ_edge_det
    }
    if (pct(rng) < 90) v |= s.en.put(1);                        // en
    if (messages && pct(rng) < 50) v |= s.ov_en.put(1);         // ov_en (reserved on SNB)
    if (pct(rng) < 10) v |= 1u << 17;                           // rst pulse (Nehalem: OCC_CTR_RST)
    if (static_cast<int>(counter) == s.fixed_index && pct(rng) < 10) v |= 1u << 19;  // the iMC fixed counter's rst
    return v;
}

// `messages`: whether counters may set ov_en. Without it (and so always on
// SNB-EP) box_core counts UBox and R2PCIe lazily, per counter
// (advance_lazily); with it, the walk splits at every change.
void run_differential(const scenario sc, bool messages) {
    int compared = 0;
    for (uint64_t seed = 1; seed <= 40; ++seed) {
        std::mt19937_64 rng(seed * 7919 + static_cast<uint64_t>(sc.kind) * 31 +
                            static_cast<uint64_t>(sc.cpu));
        box_spec spec = make_box_spec(sc.kind, sc.cpu, 0);
        diagnostic_sink diags;
        box_core fast(spec, clock_domain(1000000000ull), &diags);
        reference_box ref(spec, clock_domain(1000000000ull));
        const uint64_t N = 3000;
        const uint64_t wrap = 1ull << spec.width;

        // Random inputs: runs of random values on a handful of inputs, posted ahead.
        const unsigned n_in = spec.catalog ? spec.catalog->input_count() : 0;
        std::vector<std::vector<uint64_t>> in(N, std::vector<uint64_t>(n_in, 0));
        int clock_input = -1;  // the box drives CLOCKTICKS itself, one per cycle
        if (spec.catalog)
            if (auto e = spec.catalog->find(spec.clock_event)) {
                clock_input = static_cast<int>(*spec.catalog->input_of(*e, -1));
                for (auto& row : in) row[clock_input] = 1;
            }
        // (The PCU: its occupancy inputs and the frequency always.)
        std::vector<unsigned> always;
        if (spec.occupancy) {
            for (const char* s : {"CORES_C0", "CORES_C3", "CORES_C6"})
                always.push_back(*spec.catalog->find_input("POWER_STATE_OCCUPANCY", s));
            always.push_back(*spec.catalog->find_input("FREQ_BAND0_CYCLES", ""));
        }
        for (unsigned k = 0; k < std::min(n_in, 48u) + always.size(); ++k) {
            unsigned input = k < always.size() ? always[k] : rng() % n_in;
            if (static_cast<int>(input) == clock_input) continue;
            const event_def& ed = spec.catalog->events()[spec.catalog->input(input).event];
            for (uint64_t c = 0; c < N;) {
                uint64_t len = 1 + rng() % 200;
                uint32_t v = rng() % 3 == 0 ? 0 : static_cast<uint32_t>(rng() % (ed.max_inc + 1u));
                len = std::min(len, N - c);
                for (uint64_t j = c; j < c + len; ++j) in[j][input] += v;
                fast.post_step(c, input, v);
                fast.post_step(c + len, input, -static_cast<int64_t>(v));
                c += len;
            }
        }
        // Random received headers (QPI): up to 2 per cycle.
        std::map<uint64_t, std::vector<uint64_t>> headers;
        if (spec.kind == box_kind::qpi)
            for (uint64_t c = 0; c < N; ++c)
                for (int h = rng() % 4; h > 0 && h <= 2; --h) {
                    uint64_t f = (uint64_t{rng() % 16} << 9) | (uint64_t{rng() % 16} << 5) |
                                 (uint64_t{rng() % 4} << 3) | (uint64_t{rng() % 16} << 48);
                    headers[c].push_back(f);
                    fast.post_rx_header(c, f);
                }
        // Qualified rows (B14): runs of requests with attributes drawn from
        // small sets, so that the random filters take some of them.
        const uint16_t cbo_opcodes[] = {0x180, 0x181, 0x182}, ha_opcodes[] = {0x21, 0x20, 0x03};
        const uint64_t lines[] = {0x1000, 0x1040, 0x12345678C0};
        const uint8_t tids[] = {0, 3, 0x1F};
        auto random_quals = [&](unsigned input) {
            request_quals q;
            q.given = spec.catalog->input_filters(input);
            if (spec.kind == box_kind::cbo && rng() % 2) q.given |= request_field::tid;
            q.state = static_cast<uint8_t>(rng() % llc_state_count);
            q.nid = static_cast<uint8_t>(rng() % 4);
            q.opc = spec.kind == box_kind::ha ? ha_opcodes[rng() % 3] : cbo_opcodes[rng() % 3];
            q.addr = lines[rng() % 3] + rng() % 64;
            q.tid = tids[rng() % 3];
            return q;
        };
        std::vector<reference_box::qualified_run> late_quals;  // posted in their first cycle
        if (spec.requests != request_filter::none) {
            std::vector<unsigned> qualifiable;
            for (unsigned i = 0; i < n_in; ++i)
                if (static_cast<int>(i) != clock_input &&
                    (spec.catalog->input_filters(i) != 0 || (spec.kind == box_kind::cbo && rng() % 8 == 0)))
                    qualifiable.push_back(i);
            // (Half of them on the lookups, whose state filter is the richest.)
            std::vector<unsigned> lookups;
            if (auto e = spec.catalog->find("LLC_LOOKUP"))
                for (unsigned i : qualifiable)
                    if (spec.catalog->input(i).event == *e) lookups.push_back(i);
            for (unsigned k = 0; k < 40; ++k) {
                const bool lookup = !lookups.empty() && k % 2 == 0;
                const unsigned input = lookup ? lookups[rng() % lookups.size()] : qualifiable[rng() % qualifiable.size()];
                const request_quals q = random_quals(input);
                const event_def& ed = spec.catalog->events()[spec.catalog->input(input).event];
                // (Half the attribute sets posted ahead, half each run in its
                // first cycle, when the counters are programmed, as a replay
                // posts them: the box then meets the set while counting.)
                const bool late = rng() % 2;
                for (uint64_t c = rng() % 1000; c < N;) {
                    const uint64_t len = std::min<uint64_t>(1 + rng() % 150, N - c);
                    const uint32_t v = static_cast<uint32_t>(1 + rng() % ed.max_inc);
                    if (late) late_quals.push_back({c, len, input, q, v});
                    else fast.post_qualified_run(c, len, input, q, v);
                    ref.qualified.push_back({c, len, input, q, v});
                    c += len + rng() % 100;
                }
            }
        }
        uint64_t match = 0, mask = 0;
        // Random requests at the home logic (Nehalem/Westmere, N15): up to 2
        // per cycle, from a few addresses and opcode bytes so that some match.
        struct request { unsigned src, opcode; uint64_t addr; };
        std::map<uint64_t, std::vector<request>> requests;
        const uint64_t addrs[] = {0x1000, 0x1008, 0x1004, 0xFFFFFFFFF8, ~uint64_t{0} /* none */};
        const unsigned opcodes[] = {0x00, 0x02, 0xE2};
        std::array<unsigned, home_src_count> src_input{};
        if (spec.filter == packet_filter::addr_opcode_match) {
            const auto e = spec.catalog->find(0x35, false);
            for (unsigned k = 0; k < home_src_count; ++k) src_input[k] = *spec.catalog->input_of(*e, int(k));
            for (uint64_t c = 0; c < N; ++c)
                for (int h = rng() % 4; h > 0 && h <= 2; --h) {
                    const request q{unsigned(rng() % 3), opcodes[rng() % 3], addrs[rng() % 5]};
                    requests[c].push_back(q);
                    qpi_packet p;
                    p.mc = static_cast<uint8_t>(q.opcode >> 4);
                    p.opc = static_cast<uint8_t>(q.opcode & 15);
                    fast.post_request(c, static_cast<home_src>(q.src), addr_match_fields(p, q.addr));
                }
        }
        uint64_t addr_match = 0;  // MSR_UNCORE_ADDR_OPCODE_MATCH
        // Its MatchSel, by literal bits (SDM 18.8.2.3): 100 address, 010
        // opcode, 110 either, 001 both; anything else matches nothing.
        auto matches = [&](const request& q) {
            const uint64_t granule = (uint64_t{1} << 37) - 1;  // address bits 39:3
            const bool a = q.addr != ~uint64_t{0} && ((q.addr >> 3) & granule) == ((addr_match >> 3) & granule);
            const bool o = ((addr_match >> 40) & 0xFF) == q.opcode;
            switch (addr_match >> 61) {
                case 4: return a;
                case 2: return o;
                case 6: return a || o;
                case 1: return a && o;
                default: return false;
            }
        };

        // Initial programming: near-wrap preloads.
        auto write = [&](const register_def& r, uint64_t v, uint64_t c) {
            fast.write_reg(r, v, width_mask(r.size * 8u), c * 1000);
        };
        // (The PCU's residency counters are 64 bits wide and have no control.)
        auto wrap_of = [&](unsigned i) { return spec.is_free(i) ? 0 : wrap; };
        for (unsigned i = 0; i < spec.counters; ++i) {
            uint64_t pre = wrap_of(i) - 1 - rng() % 400;
            write(reg(spec, spec.is_fixed(i) ? reg_role::fixed_ctr : reg_role::ctr, i), pre, 0);
            ref.write_ctr(i, pre);
            if (spec.is_free(i)) continue;
            uint32_t ctl = random_ctl(spec, i, rng, messages);
            write(reg(spec, spec.is_fixed(i) ? reg_role::fixed_ctl : reg_role::ctl, i), ctl, 0);
            ref.write_ctl(i, ctl);
        }

        auto compare = [&](uint64_t c) {
            for (unsigned i = 0; i < spec.counters; ++i) {
                ASSERT_EQ(fast.counter_value(i), ref.counter(i).value)
                    << "seed " << seed << " cycle " << c << " counter " << i << " ctl 0x"
                    << std::hex << ref.counter(i).ctl;
                ASSERT_EQ(fast.counter_wraps(i), ref.counter(i).wraps) << "seed " << seed;
                ASSERT_EQ(fast.counter_compare(i), ref.counter(i).prev)  // edge detection's memory
                    << "seed " << seed << " cycle " << c << " counter " << i;
            }
            ASSERT_EQ(fast.box_status(), ref.status) << "seed " << seed << " cycle " << c;
            ++compared;
        };
        auto fast_to = [&](uint64_t c) {
            while (auto m = fast.advance_to(c, true)) {
                fast.set_global_freeze(true);  // the owner's reaction to its message
                fast.set_armed(false);
            }
        };

        for (uint64_t c = 0; c < N; ++c) {
            if (rng() % 40 == 0) {  // a register access between cycles c-1 and c
                fast_to(c);
                compare(c);
                const unsigned i = rng() % spec.counters;
                switch (rng() % 8) {
                    case 0: {
                        if (spec.is_free(i)) break;
                        uint32_t ctl = random_ctl(spec, i, rng, messages);
                        write(reg(spec, spec.is_fixed(i) ? reg_role::fixed_ctl : reg_role::ctl, i), ctl, c);
                        ref.write_ctl(i, ctl);
                        break;
                    }
                    case 1: {
                        uint64_t pre = wrap_of(i) - 1 - rng() % 300;
                        write(reg(spec, spec.is_fixed(i) ? reg_role::fixed_ctr : reg_role::ctr, i), pre, c);
                        ref.write_ctr(i, pre);
                        break;
                    }
                    case 2:
                        if (spec.has_box_ctl) {
                            uint32_t v = static_cast<uint32_t>(rng() % 4) |
                                         (rng() % 2 ? 1u << 8 : 0) | (rng() % 2 ? 1u << 16 : 0);
                            write(reg(spec, reg_role::box_ctl), v, c);
                            ref.write_box_ctl(v);
                        }
                        break;
                    case 3:
                        if (spec.has_box_status) {
                            uint32_t v = static_cast<uint32_t>(rng() % 256);
                            if (spec.table.find("MSR_UNCORE_PMC0") || spec.table.find("MSR_UNCORE_FIXED_CTR0"))
                                fast.clear_status(v, c * 1000);  // (Nehalem: through GLOBAL_OVF_CTRL)
                            else
                                write(reg(spec, reg_role::box_status), v, c);
                            ref.clear_status(v & ((1u << spec.counters) - 1));
                        }
                        break;
                    case 4: {  // software releases the freeze and re-arms
                        bool f = rng() % 2;
                        fast.set_global_freeze(f);
                        ref.global_freeze = f;
                        fast.set_armed(true);
                        ref.armed = true;
                        break;
                    }
                    case 5:
                        if (spec.kind == box_kind::qpi) {
                            match = (uint64_t{rng() % 16} << 9) | (uint64_t{rng() % 16} << 48);
                            mask = (rng() % 2 ? 0xFull << 9 : 0) | (rng() % 2 ? 0x8ull << 9 : 0) |
                                   (rng() % 3 ? 0 : 0xFull << 48);
                            write(reg(spec, reg_role::pkt_match0), match & 0xFFFFFFFF, c);
                            write(reg(spec, reg_role::pkt_match1), match >> 32, c);
                            write(reg(spec, reg_role::pkt_mask0), mask & 0xFFFFFFFF, c);
                            write(reg(spec, reg_role::pkt_mask1), mask >> 32, c);
                        }
                        if (spec.requests != request_filter::none) {  // the request filter's registers
                            const unsigned k = static_cast<unsigned>(rng() % 3);
                            const register_def* f = nullptr;
                            for (const auto& r : spec.table.regs)
                                if (r.role == reg_role::stored && r.index == k) f = &r;
                            if (f) {
                                uint64_t v = rng() & 0xFFFFFFFF;
                                if (rng() % 2) {  // often values the rows have
                                    const uint64_t line = lines[rng() % 3];
                                    const uint64_t cbo[] = {
                                        (uint64_t{cbo_opcodes[rng() % 3]} << (spec.cpu == cpu_model::snb_ep ? 23 : 20)) |
                                            (rng() % 16) | (uint64_t{rng() % 64} << 17),
                                        (uint64_t{cbo_opcodes[rng() % 3]} << 20) | (rng() % 16),
                                        0};
                                    const uint64_t ha[] = {line, line >> 32, ha_opcodes[rng() % 3]};
                                    v = spec.kind == box_kind::ha ? ha[k] : cbo[k] | tids[rng() % 3];
                                }
                                write(*f, v, c);
                                ref.filter[k] = v & f->stored_mask();
                            }
                        }
                        if (spec.table.find("PCU_MSR_PMON_BOX_FILTER")) {  // four band thresholds
                            uint64_t v = 0;
                            for (int k = 0; k < 4; ++k) v |= uint64_t{rng() % 4 ? rng() % 256 : 0} << (8 * k);
                            write(reg(spec, reg_role::band_filter), v, c);
                            ref.band_filter = v;
                        }
                        break;
                    case 6:
                        if (spec.kind == box_kind::uncore || spec.kind == box_kind::uncore_fixed) {
                            // Nehalem's global enables: EN_PCn / EN_FC0
                            const uint32_t g = static_cast<uint32_t>(rng() % 4 ? rng() : 0xFF);
                            fast.set_counter_gate(g, c * 1000);
                            ref.gate = g;
                        }
                        break;
                    case 7:
                        if (spec.filter == packet_filter::addr_opcode_match) {
                            const uint64_t sels[] = {0, 4, 2, 6, 1, 3};
                            addr_match = (sels[rng() % 6] << 61) | (uint64_t{opcodes[rng() % 3]} << 40) |
                                         (addrs[rng() % 4] & ~uint64_t{7});
                            write(reg(spec, reg_role::addr_match), addr_match, c);
                        }
                        break;
                    default:
                        break;  // plain read
                }
            }
            for (const auto& r : late_quals)
                if (r.from == c) fast.post_qualified_run(r.from, r.len, r.base, r.q, r.value);
            uint32_t cto = 0;
            if (auto it = headers.find(c); it != headers.end())
                for (uint64_t f : it->second) cto += ((f ^ match) & mask) == 0;
            std::vector<uint64_t> now = in[c];
            if (auto it = requests.find(c); it != requests.end())
                for (const request& q : it->second) now[src_input[q.src]] += matches(q);
            if (ref.tick(now, cto)) {
                ref.global_freeze = true;
                ref.armed = false;
            }
        }
        fast_to(N);
        compare(N);
    }
    EXPECT_GT(compared, 40 * 10);
}

TEST_P(Differential, FastModelMatchesPerCycleReference) { run_differential(GetParam(), true); }

TEST_P(Differential, FastModelMatchesPerCycleReferenceWithoutMessages) { run_differential(GetParam(), false); }

INSTANTIATE_TEST_SUITE_P(
    AllBoxes, Differential,
    ::testing::Values(scenario{box_kind::ubox, cpu_model::snb_ep}, scenario{box_kind::ubox, cpu_model::ivb_ep},
                      scenario{box_kind::ubox_fixed, cpu_model::snb_ep},
                      scenario{box_kind::ubox_fixed, cpu_model::ivb_ep},
                      scenario{box_kind::r2pcie, cpu_model::snb_ep}, scenario{box_kind::r2pcie, cpu_model::ivb_ep},
                      scenario{box_kind::qpi, cpu_model::snb_ep}, scenario{box_kind::qpi, cpu_model::ivb_ep},
                      scenario{box_kind::uncore, cpu_model::nhm_ep}, scenario{box_kind::uncore, cpu_model::wsm_ep},
                      scenario{box_kind::uncore_fixed, cpu_model::nhm_ep},
                      scenario{box_kind::uncore_fixed, cpu_model::wsm_ep},
                      scenario{box_kind::imc, cpu_model::snb_ep}, scenario{box_kind::imc, cpu_model::ivb_ep},
                      scenario{box_kind::ha, cpu_model::snb_ep}, scenario{box_kind::ha, cpu_model::ivb_ep},
                      scenario{box_kind::r3qpi, cpu_model::snb_ep}, scenario{box_kind::r3qpi, cpu_model::ivb_ep},
                      scenario{box_kind::cbo, cpu_model::snb_ep}, scenario{box_kind::cbo, cpu_model::ivb_ep},
                      scenario{box_kind::pcu, cpu_model::snb_ep}, scenario{box_kind::pcu, cpu_model::ivb_ep},
                      scenario{box_kind::irp, cpu_model::ivb_ep}),
    [](const ::testing::TestParamInfo<scenario>& p) {
        std::string cpu = to_string(p.param.cpu);
        return std::string(to_string(p.param.kind)) + "_" + cpu.substr(0, cpu.find('-'));
    });

}  // namespace
}  // namespace pmonsim
