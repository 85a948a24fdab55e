// libpmonsim-preload.so: the served machine's CPUs: affinity over the
// modeled CPUs (more than the host has), the CPU a thread is on, and the
// CPU counts of sysconf and get_nprocs.
#include "interpose/preload_state.h"

using namespace pmonsim;
using namespace pmonsim::interpose;
using namespace pmonsim::interpose::preload;

namespace pmonsim::interpose::preload {

// --- affinity over the modeled CPUs ----------------------------------------------
// One slot per thread that set its affinity, found by pthread_t without a
// lock (the CPUID trap reads it in a signal handler). The machine has at most
// 2 x 64 CPUs.

constexpr unsigned kMaskWords = 2, kSlots = 1024;
struct affinity_slot {
    std::atomic<uint64_t> owner{0};
    std::atomic<uint64_t> mask[kMaskWords];
};
affinity_slot g_affinity[kSlots];

affinity_slot* slot_of(pthread_t t, bool create) {
    const uint64_t key = static_cast<uint64_t>(t);
    const unsigned start = static_cast<unsigned>((key >> 12) % kSlots);
    for (unsigned i = 0; i < kSlots; ++i) {
        affinity_slot& s = g_affinity[(start + i) % kSlots];
        uint64_t o = s.owner.load(std::memory_order_acquire);
        if (o == key) return &s;
        if (o == 0) {
            if (!create) return nullptr;
            if (s.owner.compare_exchange_strong(o, key)) return &s;
            if (o == key) return &s;
        }
    }
    return nullptr;
}

// The CPU a thread runs on: the lowest of its affinity (CPU 0 when unset).
unsigned current_cpu() {
    if (const affinity_slot* s = slot_of(::pthread_self(), false))
        for (unsigned w = 0; w < kMaskWords; ++w)
            if (const uint64_t m = s->mask[w].load(std::memory_order_relaxed)) return w * 64 + __builtin_ctzll(m);
    return 0;
}

pthread_t g_main_thread;

// Sets a thread's affinity from a cpu_set of `size` bytes; EINVAL when it
// names no modeled CPU, as the kernel does for no usable CPU.
int set_affinity(pthread_t t, size_t size, const cpu_set_t* set) {
    uint64_t m[kMaskWords] = {};
    for (unsigned c = 0; c < g_cpus && c < size * 8; ++c)
        if (CPU_ISSET_S(c, size, set)) m[c / 64] |= 1ull << (c % 64);
    if (!(m[0] | m[1])) return EINVAL;
    affinity_slot* s = slot_of(t, true);
    if (!s) return ENOMEM;
    for (unsigned w = 0; w < kMaskWords; ++w) s->mask[w].store(m[w], std::memory_order_relaxed);
    return 0;
}

int get_affinity(pthread_t t, size_t size, cpu_set_t* set) {
    if (size * 8 < g_cpus) return EINVAL;
    CPU_ZERO_S(size, set);
    const affinity_slot* s = slot_of(t, false);
    for (unsigned c = 0; c < g_cpus; ++c)
        if (!s || (s->mask[c / 64].load(std::memory_order_relaxed) >> (c % 64) & 1)) CPU_SET_S(c, size, set);
    return 0;
}

}  // namespace pmonsim::interpose::preload

// --- CPUs ------------------------------------------------------------------------------

EXPORT int sched_setaffinity(pid_t pid, size_t size, const cpu_set_t* set) {
    if (!g_active) return REAL(sched_setaffinity, int (*)(pid_t, size_t, const cpu_set_t*))(pid, size, set);
    // Another process's threads are out of reach: accepted as the kernel would, with no effect.
    const pthread_t t = pid == 0 || pid == gettid_() ? ::pthread_self() : pid == ::getpid() ? g_main_thread : 0;
    if (!t) {
        uint64_t any = 0;
        for (unsigned c = 0; c < g_cpus && c < size * 8; ++c) any |= CPU_ISSET_S(c, size, set) ? 1 : 0;
        return any ? 0 : static_cast<int>(fail(EINVAL));
    }
    const int e = set_affinity(t, size, set);
    return e ? static_cast<int>(fail(e)) : 0;
}
EXPORT int sched_getaffinity(pid_t pid, size_t size, cpu_set_t* set) {
    if (!g_active) return REAL(sched_getaffinity, int (*)(pid_t, size_t, cpu_set_t*))(pid, size, set);
    const pthread_t t = pid == 0 || pid == gettid_() ? ::pthread_self() : pid == ::getpid() ? g_main_thread : 0;
    const int e = get_affinity(t, size, set);
    return e ? static_cast<int>(fail(e)) : 0;
}
EXPORT int pthread_setaffinity_np(pthread_t t, size_t size, const cpu_set_t* set) {
    if (!g_active)
        return REAL(pthread_setaffinity_np, int (*)(pthread_t, size_t, const cpu_set_t*))(t, size, set);
    return set_affinity(t, size, set);
}
EXPORT int pthread_getaffinity_np(pthread_t t, size_t size, cpu_set_t* set) {
    if (!g_active) return REAL(pthread_getaffinity_np, int (*)(pthread_t, size_t, cpu_set_t*))(t, size, set);
    return get_affinity(t, size, set);
}
EXPORT int sched_getcpu() {
    if (!g_active) return REAL(sched_getcpu, int (*)())();
    return static_cast<int>(current_cpu());
}
EXPORT int getcpu(unsigned* cpu, unsigned* node) {
    if (!g_active) return REAL(getcpu, int (*)(unsigned*, unsigned*))(cpu, node);
    const unsigned c = current_cpu();
    if (cpu) *cpu = c;
    if (node) *node = c / g_machine.cpus_per_socket;
    return 0;
}
EXPORT long sysconf(int name) {
    if (g_active && (name == _SC_NPROCESSORS_CONF || name == _SC_NPROCESSORS_ONLN)) return g_cpus;
    return REAL(sysconf, long (*)(int))(name);
}
EXPORT int get_nprocs() { return g_active ? static_cast<int>(g_cpus) : REAL(get_nprocs, int (*)())(); }
EXPORT int get_nprocs_conf() { return g_active ? static_cast<int>(g_cpus) : REAL(get_nprocs_conf, int (*)())(); }

