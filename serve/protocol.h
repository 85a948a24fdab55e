// The wire protocol between `pmonsim serve` and its clients (the LD_PRELOAD
// interposer, pmonsim exec, tests, bench): fixed-size messages over a Unix
// SOCK_SEQPACKET socket, one request and one reply at a time per connection,
// in the host's byte order (client and server share a machine). Every reply
// carries the simulated time at which it was answered. Documented in
// docs/serve-protocol.md; a change of layout or meaning bumps kVersion, and
// a hello of another version is refused (EPROTO).
//
// Plain C++ with no dependency: the interposer includes it.
#pragma once
#include <cstdint>

namespace pmonsim::wire {

constexpr uint32_t kVersion = 3;

enum class op : uint32_t {
    hello = 1,       // value: the client's tid; first request of a connection
    msr_read = 2,    // a: cpu, b: MSR
    msr_write = 3,   // a: cpu, b: MSR, value
    pci_read = 4,    // a: bdf, b: offset, size: 1/2/4/8 (one register access)
    pci_write = 5,   // a: bdf, b: offset, size: 1/2/4/8, value
    pci_dump = 6,    // a: bdf, b: offset, size: 1..4096 bytes (a listing: no diagnostics)
    sleep = 7,       // value: nanoseconds the calling thread waits (virtual clock)
    now = 8,         // nothing: just the time
    note = 9,        // payload: one line for the log (e.g. what the interposer patched)
    pci_block_write = 10,  // a: bdf, b: offset, payload: bytes (write() of a config file)
    perf_open = 11,   // payload: perf_attr; reply value: the event's id
    perf_read = 12,   // a/b: id low/high; reply payload: 3 x u64 (count, ns enabled, ns running)
    perf_ctl = 13,    // a/b: id low/high, value: perf_ctl
    perf_close = 14,  // a/b: id low/high
};

// perf_ctl's value: what PERF_EVENT_IOC_ENABLE, _DISABLE and _RESET ask.
enum class perf_ctl : uint32_t { enable = 1, disable = 2, reset = 3 };

// What perf_event_open's arguments say that the server needs (the
// interposer keeps read_format and the descriptor).
struct perf_attr {
    uint32_t type;
    int32_t pid, cpu;
    uint32_t reserved;
    uint64_t config, config1, config2;
    uint64_t sample_period;  // (or sample_freq)
    uint64_t flags;          // the attribute's bit fields (disabled is bit 0)
    uint64_t group;          // the group leader's id (group_fd's event); 0: none
};
static_assert(sizeof(perf_attr) == 64);

// bdf as in the request: bus << 8 | dev << 3 | fn (PCI domain 0 only).
constexpr uint32_t bdf(unsigned bus, unsigned dev, unsigned fn) { return bus << 8 | dev << 3 | fn; }

constexpr uint32_t kMaxPayload = 4096;

struct request {
    uint32_t op;
    uint32_t a;
    uint32_t b;
    uint32_t size;
    uint64_t value;
    // followed by `size` payload bytes for note and pci_block_write
};
static_assert(sizeof(request) == 24);

struct reply {
    int32_t error;    // 0, or an errno value as the Linux kernel would give
    uint32_t size;    // payload bytes that follow (pci_dump, hello)
    uint64_t value;
    uint64_t now_ps;  // simulated time when answered
    // followed by `size` payload bytes
};
static_assert(sizeof(reply) == 24);

// What a served machine presents (the payload of hello's reply).
enum class clock_mode : uint32_t { virtual_time = 0, wall = 1 };

struct machine {
    uint32_t version;
    uint32_t family, model, stepping;
    uint32_t sockets, cpus_per_socket, threads_per_core;
    // x2APIC ID = socket << package_shift | core << smt_shift | thread (CPUID leaf 0xB)
    uint32_t smt_shift, package_shift;
    clock_mode clock;
    uint64_t tsc_hz;               // rdtsc ticks per second of simulated time
    double wall_scale;             // clock wall: simulated seconds per wall second
    int64_t epoch_realtime_ns;     // CLOCK_REALTIME when simulated time was 0
    int64_t epoch_monotonic_ns;    // CLOCK_MONOTONIC when simulated time was 0
    uint32_t leaf1_ecx, leaf1_edx, leaf7_ebx;  // CPUID feature flags
    uint32_t l3_kb;                // last-level cache per socket
    char brand[48];                // CPUID 0x80000002..4
    char root[512];                // the directory that holds the presented files
    // The host's own directories the machine hides (absolute, each ended by
    // '\n'): its hardware perf PMUs, which measure the host, not the machine.
    char hidden[2048];
};

}  // namespace pmonsim::wire
