#include "interpose/cpuid_answers.h"

#include <cstring>

namespace pmonsim::interpose {

uint32_t apic_id_of(const wire::machine& m, unsigned cpu) {
    // As machine_view numbers them: thread t of core k is CPU k + t * cores.
    const unsigned per = m.cpus_per_socket, cores = per / m.threads_per_core;
    const unsigned s = cpu / per, i = cpu % per, core = i % cores, t = i / cores;
    return s << m.package_shift | core << m.smt_shift | t;
}

namespace {

uint32_t pack4(const char* s) {
    uint32_t v;
    std::memcpy(&v, s, 4);
    return v;
}

// Deterministic cache parameters (leaf 4): type, level, KiB, ways, shared per socket.
struct cache {
    uint32_t type, level, kb, ways;
    bool per_socket;
};

}  // namespace

void answer_cpuid(const wire::machine& m, unsigned cpu, uint32_t leaf, uint32_t sub, uint32_t out[4]) {
    out[0] = out[1] = out[2] = out[3] = 0;
    const uint32_t apic = apic_id_of(m, cpu);
    const uint32_t per = m.cpus_per_socket;
    switch (leaf) {
        case 0:
            out[0] = 0xD;
            out[1] = pack4("Genu");
            out[3] = pack4("ineI");
            out[2] = pack4("ntel");
            return;
        case 1:
            out[0] = (m.family > 15 ? ((m.family - 15) << 20 | 15u << 8) : m.family << 8) |
                     (m.model >> 4) << 16 | (m.model & 15) << 4 | m.stepping;
            out[1] = (apic & 0xFF) << 24 | (1u << m.package_shift) << 16 | 8u << 8;  // CLFLUSH 8 qwords
            out[2] = m.leaf1_ecx;
            out[3] = m.leaf1_edx;
            return;
        case 4: {
            const cache caches[] = {{1, 1, 32, 8, false}, {2, 1, 32, 8, false}, {3, 2, 256, 8, false},
                                    {3, 3, m.l3_kb, 20, true}};
            if (sub >= 4) return;  // type 0: no more caches
            const cache& c = caches[sub];
            const uint32_t sharing = c.per_socket ? (1u << m.package_shift) : (1u << m.smt_shift);
            out[0] = c.type | c.level << 5 | 1u << 8 | (sharing - 1) << 14 | ((1u << (m.package_shift - m.smt_shift)) - 1) << 26;
            out[1] = (c.ways - 1) << 22 | 0u << 12 | 63u;
            out[2] = c.kb * 1024 / 64 / c.ways - 1;
            return;
        }
        case 6:
            out[0] = 0x77;  // digital thermal sensor, turbo, ARAT, PLN, ECMD, PTM
            out[2] = 0x9;   // hardware coordination feedback, energy/performance bias
            return;
        case 7:
            if (sub == 0) out[1] = m.leaf7_ebx;
            return;
        case 0xA:
            // Version 3; 4 general counters per thread with two threads a core (8 with one); 48 bits; all
            // 7 architectural events; 3 fixed counters of 48 bits.
            out[0] = 3u | (m.threads_per_core == 2 ? 4u : 8u) << 8 | 48u << 16 | 7u << 24;
            out[3] = 3u | 48u << 5;
            return;
        case 0xB:
            out[3] = apic;
            if (sub == 0) {
                out[0] = m.smt_shift;
                out[1] = m.threads_per_core;
                out[2] = 1u << 8 | sub;
            } else if (sub == 1) {
                out[0] = m.package_shift;
                out[1] = per;
                out[2] = 2u << 8 | sub;
            } else {
                out[2] = sub;  // level type 0: no more levels
            }
            return;
        case 0x80000000: out[0] = 0x80000008; return;
        case 0x80000001:
            out[2] = 0x1;         // LAHF/SAHF in 64-bit mode
            out[3] = 0x2C100800;  // SYSCALL, NX, 1 GiB pages, RDTSCP, Intel 64
            return;
        case 0x80000002:
        case 0x80000003:
        case 0x80000004: std::memcpy(out, m.brand + 16 * (leaf - 0x80000002), 16); return;
        case 0x80000006: out[2] = 256u << 16 | 6u << 12 | 64u; return;  // L2: 256 KiB, 8-way, 64-byte lines
        case 0x80000007: out[3] = 1u << 8; return;                     // invariant TSC
        case 0x80000008: out[0] = 48u << 8 | 46u; return;              // 46 physical, 48 linear address bits
        default: return;
    }
}

}  // namespace pmonsim::interpose
