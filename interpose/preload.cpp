// libpmonsim-preload.so: an unmodified program, preloaded with this library
// and given PMONSIM_SOCKET, runs against the machine `pmonsim serve` models
// (docs/validating-profilers.md). What it serves, with the Linux kernel's
// errno values:
//   - the kernel's files for that machine (interpose/paths.h): opens, stats,
//     directory listings and links of those paths go to the directory the
//     server wrote; reads and writes of /dev/cpu/N/msr and PCI configuration
//     files go to the model, with the msr driver's and sysfs/procfs rules;
//   - CPUID (and, with the virtual clock, rdtsc/rdtscp), patched into traps
//     (insn_patch.h) and answered for the modeled CPU the thread is on;
//   - with the virtual clock, sleeps (nanosleep, clock_nanosleep, usleep,
//     sleep, the timeouts of select/pselect/poll/ppoll) last in simulated
//     time (the server answers when time reaches their end; a signal handler
//     interrupts them with EINTR as it does the kernel's), and clock reads
//     (clock_gettime, gettimeofday, time) return simulated time;
//   - CPU affinity over the modeled CPUs, and the CPU counts of sysconf and
//     get_nprocs;
//   - programs started from here (exec*, posix_spawn*) run on the same
//     machine, whatever environment they are given; perf_event_open of a
//     hardware event is ENOENT (the machine's kernel has no core PMU driver).
// Everything else passes through. Without PMONSIM_SOCKET the library does
// nothing; with it and no server to answer, the program is stopped before it
// can touch the host's registers.
#include <alloca.h>
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/select.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysinfo.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include <atomic>
#include <cstdint>

#include "interpose/client.h"
#include "interpose/cpuid_answers.h"
#include "interpose/paths.h"
#include "insn_patch.h"

#define EXPORT extern "C" __attribute__((visibility("default")))
#define TLS __attribute__((tls_model("initial-exec"))) thread_local

using namespace pmonsim;
using namespace pmonsim::interpose;

namespace {

// --- the real functions ------------------------------------------------------

template <typename F>
F next_symbol(F& slot, const char* name) {
    if (!slot) slot = reinterpret_cast<F>(::dlsym(RTLD_NEXT, name));
    return slot;
}
#define REAL(name, ...)                         \
    ([]() {                                     \
        using fn_type = __VA_ARGS__;            \
        static fn_type slot = nullptr;          \
        return next_symbol(slot, #name);        \
    }())

// --- state ---------------------------------------------------------------------

bool g_active = false;  // PMONSIM_SOCKET was given and the server answered
char g_socket[108];
wire::machine g_machine;
size_t g_root_len = 0;
unsigned g_cpus = 0;
bool g_virtual = true;
pthread_key_t g_conn_key;
char g_self[PATH_MAX];             // this library's file, for the LD_PRELOAD of programs started from here
char g_socket_entry[16 + 108];     // "PMONSIM_SOCKET=..."

TLS server_link t_link;           // this thread's connection (socket, and its channel)
TLS bool t_busy = false;   // inside the library (its own calls pass through)
TLS char t_path[PATH_MAX + 600];
TLS char t_norm[PATH_MAX];

pid_t gettid_() { return static_cast<pid_t>(::syscall(SYS_gettid)); }

void close_connection(void*) { close_link(t_link); }

// A receive timeout on the connection, so long that it never passes, makes
// the kernel end a wait for a reply with EINTR whenever a signal handler runs,
// even one installed with SA_RESTART (signal(7)): a sleep can then be
// interrupted as the kernel's nanosleep is.
void set_receive_timeout(int fd) {
    const timeval day{86400, 0};
    ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &day, sizeof day);
}

// This thread's connection, made on first use; false when the server cannot be reached.
bool connected() {
    if (t_link.fd >= 0) return true;
    if (open_link(t_link, g_socket, static_cast<uint32_t>(gettid_()), nullptr) != 0) return false;
    set_receive_timeout(t_link.fd);
    ::pthread_setspecific(g_conn_key, &t_link);
    return true;
}

// One request on this thread's connection.
int call(const wire::request& rq, wire::reply& rp, const void* payload = nullptr, void* out = nullptr,
         size_t cap = 0) {
    if (!connected()) return EIO;
    if (call_link(t_link, rq, payload, rp, out, cap) != 0) return EIO;
    return rp.error;
}

wire::request make(wire::op op, uint32_t a = 0, uint32_t b = 0, uint32_t size = 0, uint64_t value = 0) {
    wire::request rq{};
    rq.op = static_cast<uint32_t>(op);
    rq.a = a;
    rq.b = b;
    rq.size = size;
    rq.value = value;
    return rq;
}

void note(const char* text) {
    wire::reply rp{};
    call(make(wire::op::note, 0, 0, static_cast<uint32_t>(strlen(text))), rp, text);
}

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

// --- time ---------------------------------------------------------------------

// Simulated time in ns, or -1 when the server cannot be reached.
int64_t sim_now_ns() {
    wire::reply rp{};
    if (call(make(wire::op::now), rp) != 0) return -1;
    return static_cast<int64_t>(rp.now_ps / 1000);
}

bool virtual_clock(clockid_t id, int64_t& epoch) {
    switch (id) {
        case CLOCK_REALTIME:
        case CLOCK_REALTIME_COARSE:
        case CLOCK_TAI: epoch = g_machine.epoch_realtime_ns; return true;
        case CLOCK_MONOTONIC:
        case CLOCK_MONOTONIC_RAW:
        case CLOCK_MONOTONIC_COARSE:
        case CLOCK_BOOTTIME: epoch = g_machine.epoch_monotonic_ns; return true;
        default: return false;
    }
}

// Sends a request without waiting for its reply; false when the connection broke.
bool send_only(const wire::request& rq) {
    ssize_t n;
    do n = ::send(t_link.fd, &rq, sizeof rq, MSG_NOSIGNAL);
    while (n < 0 && errno == EINTR);
    if (n == static_cast<ssize_t>(sizeof rq)) return true;
    close_link(t_link);
    return false;
}

// Waits for a reply without payload. EINTR (only when `interruptible`) when
// a signal handler ran meanwhile; EIO when the connection broke.
int receive(wire::reply& rp, bool interruptible) {
    for (;;) {
        const ssize_t n = ::recv(t_link.fd, &rp, sizeof rp, 0);
        if (n == static_cast<ssize_t>(sizeof rp)) return 0;
        if (n < 0 && errno == EAGAIN) continue;  // (a day without an answer: keep waiting)
        if (n < 0 && errno == EINTR) {
            if (interruptible) return EINTR;
            continue;
        }
        close_link(t_link);
        return EIO;
    }
}

// Lets `ns` of simulated time pass for this thread: 0, or EINTR when a
// signal handler ran first (`*left`: the ns not slept), or another errno.
int sim_sleep(uint64_t ns, uint64_t* left = nullptr) {
    if (left) *left = 0;
    if (!connected() || !send_only(make(wire::op::sleep, 0, 0, 0, ns))) return EIO;
    wire::reply rp{};
    int e = receive(rp, true);
    if (e == EINTR) {
        // Any request from a sleeping thread ends its sleep: the server
        // answers the sleep (EINTR and the time left, or 0 when it had ended
        // already), then this request.
        wire::reply now{};
        if (!send_only(make(wire::op::now))) return EIO;
        if ((e = receive(rp, false)) != 0 || (e = receive(now, false)) != 0) return e;
        if (rp.error == EINTR && left) *left = rp.value;
    } else if (e) {
        return e;
    }
    return rp.error;
}

// A timespec's length in ns (saturating), or -1 when it is not valid.
int64_t span_ns(const timespec* t) {
    if (t->tv_sec < 0 || t->tv_nsec < 0 || t->tv_nsec >= 1'000'000'000) return -1;
    if (t->tv_sec > INT64_MAX / 1'000'000'000 - 1) return INT64_MAX;
    return t->tv_sec * 1'000'000'000 + t->tv_nsec;
}

timespec as_timespec(uint64_t ns) {
    return {static_cast<time_t>(ns / 1'000'000'000), static_cast<long>(ns % 1'000'000'000)};
}

bool serving_time() { return g_active && g_virtual && !t_busy; }

// --- traps --------------------------------------------------------------------

void trap_cpuid(uint32_t leaf, uint32_t sub, uint32_t out[4]) {
    answer_cpuid(g_machine, current_cpu(), leaf, sub, out);
}

uint64_t trap_rdtsc() {
    wire::reply rp{};
    if (call(make(wire::op::now), rp) != 0) return 0;
    return static_cast<uint64_t>(static_cast<unsigned __int128>(rp.now_ps) * g_machine.tsc_hz / 1'000'000'000'000u);
}

uint32_t trap_tsc_aux() { return current_cpu(); }

// --- paths ----------------------------------------------------------------------

// Where a path really is: the served directory for a served path, else the
// path itself. `served` tells which.
const char* route(int dirfd, const char* path, bool* served = nullptr) {
    if (served) *served = false;
    if (!g_active || t_busy || !path) return path;
    const char* abs = path;
    if (path[0] != '/') {
        // Relative: to the working directory or to dirfd. Inside the served
        // directory it is served already; elsewhere it may name a served path.
        char base[PATH_MAX];
        if (dirfd == AT_FDCWD) {
            if (!REAL(getcwd, char* (*)(char*, size_t))(base, sizeof base)) return path;
        } else {
            char link[64];
            snprintf(link, sizeof link, "/proc/self/fd/%d", dirfd);
            const ssize_t n = REAL(readlink, ssize_t(*)(const char*, char*, size_t))(link, base, sizeof base - 1);
            if (n <= 0) return path;
            base[n] = 0;
        }
        if (strncmp(base, g_machine.root, g_root_len) == 0 && (base[g_root_len] == '/' || !base[g_root_len])) {
            if (served) *served = true;
            return path;
        }
        if (snprintf(t_path, sizeof t_path, "%s/%s", base, path) >= static_cast<int>(sizeof t_path)) return path;
        abs = t_path;
    }
    if (!normalize_path(abs, t_norm, sizeof t_norm) || !is_served(t_norm)) return path;
    if (snprintf(t_path, sizeof t_path, "%s%s", g_machine.root, t_norm) >= static_cast<int>(sizeof t_path))
        return path;
    if (served) *served = true;
    return t_path;
}

// Strips the served directory from a path the kernel gave back.
void unroute(char* p) {
    if (!g_active || !p || strncmp(p, g_machine.root, g_root_len) != 0 || p[g_root_len] != '/') return;
    memmove(p, p + g_root_len, strlen(p + g_root_len) + 1);
}

// --- live files ------------------------------------------------------------------

constexpr int kMaxFd = 1 << 16;
struct fd_entry {
    std::atomic<uint32_t> live{0};  // live_file::kind << 24 | id, 0 for none
    std::atomic<int64_t> pos{0};
};
fd_entry g_fds[kMaxFd];

live_file live_of(int fd) {
    live_file f;
    if (fd < 0 || fd >= kMaxFd) return f;
    const uint32_t v = g_fds[fd].live.load(std::memory_order_acquire);
    f.kind = static_cast<live_file::kind_t>(v >> 24);
    f.id = v & 0xFFFFFF;
    return f;
}

// After an open of a served path: a register file becomes live.
int adopt(int fd) {
    if (fd < 0) return fd;
    char link[64], target[PATH_MAX];
    snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
    const ssize_t n = REAL(readlink, ssize_t(*)(const char*, char*, size_t))(link, target, sizeof target - 1);
    if (n <= static_cast<ssize_t>(g_root_len)) return fd;
    target[n] = 0;
    if (strncmp(target, g_machine.root, g_root_len) != 0 || target[g_root_len] != '/') return fd;
    const live_file f = classify(target + g_root_len + 1);
    if (f.kind == live_file::none) return fd;
    if (fd >= kMaxFd) {
        ::syscall(SYS_close, fd);
        errno = EMFILE;
        return -1;
    }
    g_fds[fd].pos.store(0);
    g_fds[fd].live.store(static_cast<uint32_t>(f.kind) << 24 | f.id, std::memory_order_release);
    return fd;
}

void forget(int fd) {
    if (fd >= 0 && fd < kMaxFd) g_fds[fd].live.store(0, std::memory_order_release);
}

void copy_entry(int from, int to) {
    if (to < 0 || to >= kMaxFd) return;
    const live_file f = live_of(from);
    g_fds[to].pos.store(from >= 0 && from < kMaxFd ? g_fds[from].pos.load() : 0);
    g_fds[to].live.store(f.kind == live_file::none ? 0 : static_cast<uint32_t>(f.kind) << 24 | f.id);
}

ssize_t fail(int e) {
    errno = e;
    return -1;
}

// /dev/cpu/N/msr: 8 bytes per MSR at offset = MSR number; a longer count
// repeats the same MSR (the msr driver's loop); EINVAL unless a multiple of 8.
ssize_t msr_io(unsigned cpu, bool write, void* buf, size_t n, int64_t pos) {
    if (n % 8) return fail(EINVAL);
    size_t done = 0;
    int err = 0;
    for (; done < n; done += 8) {
        uint64_t v = 0;
        if (write) memcpy(&v, static_cast<char*>(buf) + done, 8);
        wire::reply rp{};
        err = call(make(write ? wire::op::msr_write : wire::op::msr_read, cpu, static_cast<uint32_t>(pos), 8, v), rp);
        if (err) break;
        if (!write) memcpy(static_cast<char*>(buf) + done, &rp.value, 8);
    }
    return done ? static_cast<ssize_t>(done) : err ? fail(err) : 0;
}

// A PCI configuration file of 4096 bytes: up to 8 bytes are register
// accesses in naturally aligned pieces of at most 4 (as the kernel makes
// them); more is a listing (read) or a block of such pieces (write).
ssize_t config_io(uint32_t bdf, bool write, void* buf, size_t n, int64_t pos) {
    if (pos < 0) return fail(EINVAL);
    if (pos >= 4096 || n == 0) return 0;
    if (n > static_cast<size_t>(4096 - pos)) n = static_cast<size_t>(4096 - pos);
    const uint32_t off = static_cast<uint32_t>(pos);
    char* p = static_cast<char*>(buf);
    if (n > 8) {
        wire::reply rp{};
        const int e = write ? call(make(wire::op::pci_block_write, bdf, off, static_cast<uint32_t>(n)), rp, p)
                            : call(make(wire::op::pci_dump, bdf, off, static_cast<uint32_t>(n)), rp, nullptr, p, n);
        return e ? fail(e) : static_cast<ssize_t>(n);
    }
    for (uint32_t at = off, end = off + static_cast<uint32_t>(n); at < end;) {
        const uint32_t sz = (at % 4 == 0 && end - at >= 4) ? 4 : (at % 2 == 0 && end - at >= 2) ? 2 : 1;
        uint64_t v = 0;
        if (write) memcpy(&v, p + (at - off), sz);
        wire::reply rp{};
        if (const int e = call(make(write ? wire::op::pci_write : wire::op::pci_read, bdf, at, sz, v), rp)) {
            if (at > off) return static_cast<ssize_t>(at - off);
            return fail(e);
        }
        if (!write) memcpy(p + (at - off), &rp.value, sz);
        at += sz;
    }
    return static_cast<ssize_t>(n);
}

ssize_t live_io(const live_file& f, bool write, void* buf, size_t n, int64_t pos) {
    switch (f.kind) {
        case live_file::msr: return msr_io(f.id, write, buf, n, pos);
        case live_file::pci_config: return config_io(f.id, write, buf, n, pos);
        case live_file::none: break;
    }
    return fail(EBADF);
}

// read()/write() at the file position: the msr driver never moves it; a
// configuration file moves by what was transferred.
ssize_t live_stream(int fd, const live_file& f, bool write, void* buf, size_t n) {
    const int64_t pos = g_fds[fd].pos.load();
    const ssize_t r = live_io(f, write, buf, n, pos);
    if (r > 0 && f.kind == live_file::pci_config) g_fds[fd].pos.store(pos + r);
    return r;
}

// --- start ----------------------------------------------------------------------

void child_after_fork() {
    drop_link(t_link);  // the parent's connection stays the parent's
    // Connect now, not at the first request: the server then knows this
    // process while it works, even once it has left its parent (a daemon),
    // and does not let a sleep elsewhere end before it blocks. (System calls
    // only: the parent may have had other threads.)
    if (g_active && open_link(t_link, g_socket, static_cast<uint32_t>(gettid_()), nullptr) == 0)
        set_receive_timeout(t_link.fd);
}

__attribute__((constructor)) void start() {
    const char* s = getenv("PMONSIM_SOCKET");
    if (!s || !*s) return;
    t_busy = true;
    if (strlen(s) >= sizeof g_socket) {
        fprintf(stderr, "pmonsim-preload: PMONSIM_SOCKET is too long\n");
        _exit(1);
    }
    strcpy(g_socket, s);
    snprintf(g_socket_entry, sizeof g_socket_entry, "PMONSIM_SOCKET=%s", g_socket);
    Dl_info self{};
    if (::dladdr(reinterpret_cast<void*>(&start), &self) && self.dli_fname)
        snprintf(g_self, sizeof g_self, "%s", self.dli_fname);
    if (const int e = open_link(t_link, g_socket, static_cast<uint32_t>(gettid_()), &g_machine)) {
        fprintf(stderr, "pmonsim-preload: cannot reach pmonsim serve at %s: %s; stopping before anything touches "
                        "the host\n", g_socket, strerror(e));
        _exit(1);
    }
    set_receive_timeout(t_link.fd);
    ::pthread_key_create(&g_conn_key, close_connection);
    ::pthread_setspecific(g_conn_key, &t_link);
    ::pthread_atfork(nullptr, nullptr, child_after_fork);
    g_main_thread = ::pthread_self();
    g_root_len = strlen(g_machine.root);
    g_cpus = g_machine.sockets * g_machine.cpus_per_socket;
    g_virtual = g_machine.clock == wire::clock_mode::virtual_time;
    g_active = true;
    std::string error;
    const trap_answers answers{trap_cpuid, trap_rdtsc, trap_tsc_aux};
    char line[512];
    if (!install_traps(answers, g_virtual, &error)) {
        snprintf(line, sizeof line, "interposer: instructions not trapped: %s", error.c_str());
    } else {
        const patch_counts c = patched_counts();
        char exe[PATH_MAX] = "?";
        const ssize_t n = REAL(readlink, ssize_t(*)(const char*, char*, size_t))("/proc/self/exe", exe, sizeof exe - 1);
        if (n > 0) exe[n] = 0;
        snprintf(line, sizeof line, "interposer in %s: %zu cpuid, %zu rdtsc, %zu rdtscp sites trapped", exe, c.cpuid,
                 c.rdtsc, c.rdtscp);
    }
    note(line);
    t_busy = false;
}

}  // namespace

// --- opening and finding files ------------------------------------------------------

namespace {
mode_t mode_arg(int flags, va_list ap) {
    return (flags & O_CREAT) || (flags & O_TMPFILE) == O_TMPFILE ? static_cast<mode_t>(va_arg(ap, int)) : 0;
}

int open_at(int dirfd, const char* path, int flags, mode_t mode) {
    bool served = false;
    const char* p = route(dirfd, path, &served);
    const int fd = REAL(openat, int (*)(int, const char*, int, ...))(dirfd, p, flags, mode);
    return served ? adopt(fd) : fd;
}
}  // namespace

EXPORT int open(const char* path, int flags, ...) {
    va_list ap;
    va_start(ap, flags);
    const mode_t m = mode_arg(flags, ap);
    va_end(ap);
    return open_at(AT_FDCWD, path, flags, m);
}
EXPORT int open64(const char* path, int flags, ...) {
    va_list ap;
    va_start(ap, flags);
    const mode_t m = mode_arg(flags, ap);
    va_end(ap);
    return open_at(AT_FDCWD, path, flags, m);
}
EXPORT int openat(int dirfd, const char* path, int flags, ...) {
    va_list ap;
    va_start(ap, flags);
    const mode_t m = mode_arg(flags, ap);
    va_end(ap);
    return open_at(dirfd, path, flags, m);
}
EXPORT int openat64(int dirfd, const char* path, int flags, ...) {
    va_list ap;
    va_start(ap, flags);
    const mode_t m = mode_arg(flags, ap);
    va_end(ap);
    return open_at(dirfd, path, flags, m);
}
EXPORT int __open_2(const char* path, int flags) { return open_at(AT_FDCWD, path, flags, 0); }
EXPORT int __open64_2(const char* path, int flags) { return open_at(AT_FDCWD, path, flags, 0); }
EXPORT int __openat_2(int dirfd, const char* path, int flags) { return open_at(dirfd, path, flags, 0); }
EXPORT int __openat64_2(int dirfd, const char* path, int flags) { return open_at(dirfd, path, flags, 0); }

EXPORT FILE* fopen(const char* path, const char* mode) {
    return REAL(fopen, FILE* (*)(const char*, const char*))(route(AT_FDCWD, path), mode);
}
EXPORT FILE* fopen64(const char* path, const char* mode) {
    return REAL(fopen64, FILE* (*)(const char*, const char*))(route(AT_FDCWD, path), mode);
}
EXPORT FILE* freopen(const char* path, const char* mode, FILE* f) {
    return REAL(freopen, FILE* (*)(const char*, const char*, FILE*))(route(AT_FDCWD, path), mode, f);
}
EXPORT FILE* freopen64(const char* path, const char* mode, FILE* f) {
    return REAL(freopen64, FILE* (*)(const char*, const char*, FILE*))(route(AT_FDCWD, path), mode, f);
}
EXPORT DIR* opendir(const char* path) { return REAL(opendir, DIR* (*)(const char*))(route(AT_FDCWD, path)); }
EXPORT int scandir(const char* dir, struct dirent*** list, int (*filter)(const struct dirent*),
                   int (*compar)(const struct dirent**, const struct dirent**)) {
    using fn = int (*)(const char*, struct dirent***, int (*)(const struct dirent*),
                       int (*)(const struct dirent**, const struct dirent**));
    return REAL(scandir, fn)(route(AT_FDCWD, dir), list, filter, compar);
}
EXPORT int scandir64(const char* dir, struct dirent64*** list, int (*filter)(const struct dirent64*),
                     int (*compar)(const struct dirent64**, const struct dirent64**)) {
    using fn = int (*)(const char*, struct dirent64***, int (*)(const struct dirent64*),
                       int (*)(const struct dirent64**, const struct dirent64**));
    return REAL(scandir64, fn)(route(AT_FDCWD, dir), list, filter, compar);
}

EXPORT int stat(const char* path, struct stat* st) {
    return REAL(stat, int (*)(const char*, struct stat*))(route(AT_FDCWD, path), st);
}
EXPORT int stat64(const char* path, struct stat64* st) {
    return REAL(stat64, int (*)(const char*, struct stat64*))(route(AT_FDCWD, path), st);
}
EXPORT int lstat(const char* path, struct stat* st) {
    return REAL(lstat, int (*)(const char*, struct stat*))(route(AT_FDCWD, path), st);
}
EXPORT int lstat64(const char* path, struct stat64* st) {
    return REAL(lstat64, int (*)(const char*, struct stat64*))(route(AT_FDCWD, path), st);
}
EXPORT int fstatat(int dirfd, const char* path, struct stat* st, int flags) {
    return REAL(fstatat, int (*)(int, const char*, struct stat*, int))(dirfd, route(dirfd, path), st, flags);
}
EXPORT int fstatat64(int dirfd, const char* path, struct stat64* st, int flags) {
    return REAL(fstatat64, int (*)(int, const char*, struct stat64*, int))(dirfd, route(dirfd, path), st, flags);
}
EXPORT int __xstat(int ver, const char* path, struct stat* st) {
    return REAL(__xstat, int (*)(int, const char*, struct stat*))(ver, route(AT_FDCWD, path), st);
}
EXPORT int __xstat64(int ver, const char* path, struct stat64* st) {
    return REAL(__xstat64, int (*)(int, const char*, struct stat64*))(ver, route(AT_FDCWD, path), st);
}
EXPORT int __lxstat(int ver, const char* path, struct stat* st) {
    return REAL(__lxstat, int (*)(int, const char*, struct stat*))(ver, route(AT_FDCWD, path), st);
}
EXPORT int __lxstat64(int ver, const char* path, struct stat64* st) {
    return REAL(__lxstat64, int (*)(int, const char*, struct stat64*))(ver, route(AT_FDCWD, path), st);
}
EXPORT int __fxstatat(int ver, int dirfd, const char* path, struct stat* st, int flags) {
    return REAL(__fxstatat, int (*)(int, int, const char*, struct stat*, int))(ver, dirfd, route(dirfd, path), st,
                                                                                  flags);
}
EXPORT int __fxstatat64(int ver, int dirfd, const char* path, struct stat64* st, int flags) {
    return REAL(__fxstatat64, int (*)(int, int, const char*, struct stat64*, int))(ver, dirfd, route(dirfd, path),
                                                                                      st, flags);
}
EXPORT int statx(int dirfd, const char* path, int flags, unsigned mask, struct statx* st) {
    return REAL(statx, int (*)(int, const char*, int, unsigned, struct statx*))(dirfd, route(dirfd, path), flags,
                                                                                   mask, st);
}
EXPORT int access(const char* path, int mode) {
    return REAL(access, int (*)(const char*, int))(route(AT_FDCWD, path), mode);
}
EXPORT int faccessat(int dirfd, const char* path, int mode, int flags) {
    return REAL(faccessat, int (*)(int, const char*, int, int))(dirfd, route(dirfd, path), mode, flags);
}
EXPORT int euidaccess(const char* path, int mode) {
    return REAL(euidaccess, int (*)(const char*, int))(route(AT_FDCWD, path), mode);
}
EXPORT int eaccess(const char* path, int mode) {
    return REAL(eaccess, int (*)(const char*, int))(route(AT_FDCWD, path), mode);
}
EXPORT ssize_t readlink(const char* path, char* buf, size_t n) {
    return REAL(readlink, ssize_t(*)(const char*, char*, size_t))(route(AT_FDCWD, path), buf, n);
}
EXPORT ssize_t readlinkat(int dirfd, const char* path, char* buf, size_t n) {
    return REAL(readlinkat, ssize_t(*)(int, const char*, char*, size_t))(dirfd, route(dirfd, path), buf, n);
}
EXPORT char* realpath(const char* path, char* resolved) {
    char* r = REAL(realpath, char* (*)(const char*, char*))(route(AT_FDCWD, path), resolved);
    unroute(r);
    return r;
}
EXPORT char* canonicalize_file_name(const char* path) {
    char* r = REAL(canonicalize_file_name, char* (*)(const char*))(route(AT_FDCWD, path));
    unroute(r);
    return r;
}

// --- reading and writing register files ------------------------------------------------

EXPORT ssize_t pread(int fd, void* buf, size_t n, off_t off) {
    const live_file f = live_of(fd);
    if (f.kind != live_file::none) return live_io(f, false, buf, n, off);
    return REAL(pread, ssize_t(*)(int, void*, size_t, off_t))(fd, buf, n, off);
}
EXPORT ssize_t pread64(int fd, void* buf, size_t n, off64_t off) {
    const live_file f = live_of(fd);
    if (f.kind != live_file::none) return live_io(f, false, buf, n, off);
    return REAL(pread64, ssize_t(*)(int, void*, size_t, off64_t))(fd, buf, n, off);
}
EXPORT ssize_t pwrite(int fd, const void* buf, size_t n, off_t off) {
    const live_file f = live_of(fd);
    if (f.kind != live_file::none) return live_io(f, true, const_cast<void*>(buf), n, off);
    return REAL(pwrite, ssize_t(*)(int, const void*, size_t, off_t))(fd, buf, n, off);
}
EXPORT ssize_t pwrite64(int fd, const void* buf, size_t n, off64_t off) {
    const live_file f = live_of(fd);
    if (f.kind != live_file::none) return live_io(f, true, const_cast<void*>(buf), n, off);
    return REAL(pwrite64, ssize_t(*)(int, const void*, size_t, off64_t))(fd, buf, n, off);
}
EXPORT ssize_t read(int fd, void* buf, size_t n) {
    const live_file f = live_of(fd);
    if (f.kind != live_file::none) return live_stream(fd, f, false, buf, n);
    return REAL(read, ssize_t(*)(int, void*, size_t))(fd, buf, n);
}
EXPORT ssize_t write(int fd, const void* buf, size_t n) {
    const live_file f = live_of(fd);
    if (f.kind != live_file::none) return live_stream(fd, f, true, const_cast<void*>(buf), n);
    return REAL(write, ssize_t(*)(int, const void*, size_t))(fd, buf, n);
}
namespace {
off64_t live_seek(int fd, const live_file& f, off64_t off, int whence) {
    int64_t base;
    switch (whence) {
        case SEEK_SET: base = 0; break;
        case SEEK_CUR: base = g_fds[fd].pos.load(); break;
        case SEEK_END:
            if (f.kind == live_file::msr) return fail(EINVAL);  // the msr driver: SET and CUR only
            base = 4096;
            break;
        default: return fail(EINVAL);
    }
    if ((off > 0 && base > INT64_MAX - off) || base + off < 0) return fail(EINVAL);
    g_fds[fd].pos.store(base + off);
    return base + off;
}
}  // namespace
EXPORT off_t lseek(int fd, off_t off, int whence) {
    const live_file f = live_of(fd);
    if (f.kind != live_file::none) return live_seek(fd, f, off, whence);
    return REAL(lseek, off_t(*)(int, off_t, int))(fd, off, whence);
}
EXPORT off64_t lseek64(int fd, off64_t off, int whence) {
    const live_file f = live_of(fd);
    if (f.kind != live_file::none) return live_seek(fd, f, off, whence);
    return REAL(lseek64, off64_t(*)(int, off64_t, int))(fd, off, whence);
}
EXPORT int close(int fd) {
    forget(fd);
    return REAL(close, int (*)(int))(fd);
}
EXPORT int dup(int fd) {
    const int r = REAL(dup, int (*)(int))(fd);
    if (r >= 0) copy_entry(fd, r);
    return r;
}
EXPORT int dup2(int fd, int to) {
    const int r = REAL(dup2, int (*)(int, int))(fd, to);
    if (r >= 0 && r != fd) copy_entry(fd, r);
    return r;
}
EXPORT int dup3(int fd, int to, int flags) {
    const int r = REAL(dup3, int (*)(int, int, int))(fd, to, flags);
    if (r >= 0) copy_entry(fd, r);
    return r;
}
EXPORT int fcntl(int fd, int cmd, ...) {
    va_list ap;
    va_start(ap, cmd);
    const long arg = va_arg(ap, long);
    va_end(ap);
    const int r = REAL(fcntl, int (*)(int, int, ...))(fd, cmd, arg);
    if (r >= 0 && (cmd == F_DUPFD || cmd == F_DUPFD_CLOEXEC)) copy_entry(fd, r);
    return r;
}

// --- time ---------------------------------------------------------------------------

EXPORT int clock_gettime(clockid_t id, struct timespec* ts) {
    int64_t epoch;
    if (serving_time() && virtual_clock(id, epoch)) {
        const int64_t now = sim_now_ns();
        if (now < 0) return static_cast<int>(fail(EIO));
        const int64_t t = epoch + now;
        ts->tv_sec = t / 1'000'000'000;
        ts->tv_nsec = t % 1'000'000'000;
        return 0;
    }
    return REAL(clock_gettime, int (*)(clockid_t, struct timespec*))(id, ts);
}
EXPORT int gettimeofday(struct timeval* tv, void* tz) {
    if (serving_time()) {  // (tv is declared non-null)
        const int64_t now = sim_now_ns();
        if (now < 0) return static_cast<int>(fail(EIO));
        const int64_t t = g_machine.epoch_realtime_ns + now;
        tv->tv_sec = t / 1'000'000'000;
        tv->tv_usec = (t % 1'000'000'000) / 1000;
        if (tz) memset(tz, 0, 8);
        return 0;
    }
    return REAL(gettimeofday, int (*)(struct timeval*, void*))(tv, tz);
}
EXPORT time_t time(time_t* out) {
    if (serving_time()) {
        const int64_t now = sim_now_ns();
        const time_t t = now < 0 ? static_cast<time_t>(-1)
                                 : static_cast<time_t>((g_machine.epoch_realtime_ns + now) / 1'000'000'000);
        if (out) *out = t;
        return t;
    }
    return REAL(time, time_t(*)(time_t*))(out);
}
EXPORT int nanosleep(const struct timespec* req, struct timespec* rem) {
    if (serving_time()) {
        const int64_t ns = span_ns(req);
        if (ns < 0) return static_cast<int>(fail(EINVAL));
        uint64_t left = 0;
        const int e = sim_sleep(static_cast<uint64_t>(ns), &left);
        if (rem) *rem = as_timespec(left);
        return e ? static_cast<int>(fail(e)) : 0;
    }
    return REAL(nanosleep, int (*)(const struct timespec*, struct timespec*))(req, rem);
}
EXPORT int clock_nanosleep(clockid_t id, int flags, const struct timespec* req, struct timespec* rem) {
    int64_t epoch;
    if (serving_time() && virtual_clock(id, epoch)) {
        int64_t ns = span_ns(req);
        if (ns < 0) return EINVAL;
        if (flags & TIMER_ABSTIME) {
            const int64_t now = sim_now_ns();
            if (now < 0) return EIO;
            ns = ns - epoch - now;
            if (ns <= 0) return 0;
        }
        uint64_t left = 0;
        const int e = sim_sleep(static_cast<uint64_t>(ns), &left);
        if (rem && !(flags & TIMER_ABSTIME)) *rem = as_timespec(left);
        return e;
    }
    return REAL(clock_nanosleep, int (*)(clockid_t, int, const struct timespec*, struct timespec*))(id, flags, req, rem);
}
EXPORT int usleep(useconds_t us) {
    if (serving_time()) {
        const int e = sim_sleep(uint64_t{us} * 1000);
        return e ? static_cast<int>(fail(e)) : 0;
    }
    return REAL(usleep, int (*)(useconds_t))(us);
}
EXPORT unsigned sleep(unsigned s) {
    if (serving_time()) {
        // Interrupted: the seconds left, rounded as glibc's sleep() does.
        uint64_t left = 0;
        const int e = sim_sleep(uint64_t{s} * 1'000'000'000, &left);
        return e == EINTR ? static_cast<unsigned>((left + 500'000'000) / 1'000'000'000) : e ? s : 0;
    }
    return REAL(sleep, unsigned (*)(unsigned))(s);
}
// select/poll: ready descriptors are answered at once; with none ready, the
// timeout passes in simulated time and the call times out.
EXPORT int select(int n, fd_set* r, fd_set* w, fd_set* e, struct timeval* tv) {
    using fn = int (*)(int, fd_set*, fd_set*, fd_set*, struct timeval*);
    if (!serving_time() || !tv) return REAL(select, fn)(n, r, w, e, tv);
    if (tv->tv_sec < 0 || tv->tv_usec < 0 || tv->tv_usec >= 1'000'000) return static_cast<int>(fail(EINVAL));
    timeval zero{0, 0};
    const int ready = REAL(select, fn)(n, r, w, e, &zero);
    if (ready != 0) return ready;
    uint64_t left = 0;
    const int err = sim_sleep(static_cast<uint64_t>(tv->tv_sec) * 1'000'000'000 + tv->tv_usec * 1000ull, &left);
    // Linux leaves the time not slept in the timeout.
    tv->tv_sec = static_cast<time_t>(left / 1'000'000'000);
    tv->tv_usec = static_cast<suseconds_t>(left % 1'000'000'000 / 1000);
    return err ? static_cast<int>(fail(err)) : 0;
}
EXPORT int pselect(int n, fd_set* r, fd_set* w, fd_set* e, const struct timespec* ts, const sigset_t* mask) {
    using fn = int (*)(int, fd_set*, fd_set*, fd_set*, const struct timespec*, const sigset_t*);
    if (!serving_time() || !ts) return REAL(pselect, fn)(n, r, w, e, ts, mask);
    const int64_t ns = span_ns(ts);
    if (ns < 0) return static_cast<int>(fail(EINVAL));
    const timespec zero{0, 0};
    const int ready = REAL(pselect, fn)(n, r, w, e, &zero, mask);
    if (ready != 0) return ready;
    if (const int err = sim_sleep(static_cast<uint64_t>(ns))) return static_cast<int>(fail(err));
    return 0;
}
EXPORT int poll(struct pollfd* fds, nfds_t n, int timeout) {
    using fn = int (*)(struct pollfd*, nfds_t, int);
    if (!serving_time() || timeout <= 0) return REAL(poll, fn)(fds, n, timeout);
    const int ready = REAL(poll, fn)(fds, n, 0);
    if (ready != 0) return ready;
    if (const int err = sim_sleep(static_cast<uint64_t>(timeout) * 1'000'000)) return static_cast<int>(fail(err));
    return 0;
}
EXPORT int ppoll(struct pollfd* fds, nfds_t n, const struct timespec* ts, const sigset_t* mask) {
    using fn = int (*)(struct pollfd*, nfds_t, const struct timespec*, const sigset_t*);
    if (!serving_time() || !ts) return REAL(ppoll, fn)(fds, n, ts, mask);
    const int64_t ns = span_ns(ts);
    if (ns < 0) return static_cast<int>(fail(EINVAL));
    const timespec zero{0, 0};
    const int ready = REAL(ppoll, fn)(fds, n, &zero, mask);
    if (ready != 0) return ready;
    if (const int err = sim_sleep(static_cast<uint64_t>(ns))) return static_cast<int>(fail(err));
    return 0;
}

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

// --- programs started from here --------------------------------------------------------
// A program started from a served one runs on the same machine: an exec or a
// spawn whose environment lacks the interposer or the server's address gets
// them back (likwid starts its access daemon with an empty environment), so no
// process of the run reaches the host's registers. Built on the stack: an exec
// may come from a vfork child.

namespace {
constexpr size_t kPreloadEntry = PATH_MAX + 4096;

size_t env_count(char* const* env) {
    size_t n = 0;
    while (env && env[n]) ++n;
    return n;
}

// `out` holds env_count(env) + 3 pointers, `entry` kPreloadEntry bytes.
char* const* served_env(char* const* env, char** out, char* entry) {
    size_t n = 0;
    bool preload = false, socket = false;
    for (size_t i = 0; env && env[i]; ++i) {
        char* e = env[i];
        if (strncmp(e, "PMONSIM_SOCKET=", 15) == 0) socket = true;
        if (strncmp(e, "LD_PRELOAD=", 11) == 0 && !preload) {
            preload = true;
            if (!strstr(e + 11, g_self)) {  // ours first, then the program's own
                const int len = snprintf(entry, kPreloadEntry, "LD_PRELOAD=%s %s", g_self, e + 11);
                if (len >= static_cast<int>(kPreloadEntry)) snprintf(entry, kPreloadEntry, "LD_PRELOAD=%s", g_self);
                e = entry;
            }
        }
        out[n++] = e;
    }
    if (!preload) {
        snprintf(entry, kPreloadEntry, "LD_PRELOAD=%s", g_self);
        out[n++] = entry;
    }
    if (!socket) out[n++] = g_socket_entry;
    out[n] = nullptr;
    return out;
}

bool serving_children() { return g_active && g_self[0]; }

// The environment a child gets: `env` itself when nothing is served, else
// `env` completed (in alloca'd room of the calling function, before the call).
#define SERVED_ENV(name, env)                                                                               \
    char* const* name = (env);                                                                             \
    if (serving_children())                                                                                \
    name = served_env((env), static_cast<char**>(alloca((env_count(env) + 3) * sizeof(char*))),            \
                      static_cast<char*>(alloca(kPreloadEntry)))

// The arguments of execl/execlp/execle as an argv (on the caller's stack).
#define COLLECT_ARGS(first, ap, argv, envp_out)                                                          \
    do {                                                                                                 \
        va_list count_;                                                                                  \
        va_copy(count_, ap);                                                                             \
        size_t n_ = 1;                                                                                   \
        while (va_arg(count_, const char*)) ++n_;                                                        \
        va_end(count_);                                                                                  \
        argv = static_cast<char**>(alloca((n_ + 1) * sizeof(char*)));                                   \
        argv[0] = const_cast<char*>(first);                                                              \
        for (size_t i_ = 1; i_ <= n_; ++i_) argv[i_] = va_arg(ap, char*);                                \
        envp_out = va_arg(ap, char* const*);                                                             \
    } while (0)
}  // namespace

EXPORT int execve(const char* path, char* const argv[], char* const envp[]) {
    using fn = int (*)(const char*, char* const*, char* const*);
    SERVED_ENV(env, envp);
    return REAL(execve, fn)(path, argv, env);
}
EXPORT int execvpe(const char* file, char* const argv[], char* const envp[]) {
    using fn = int (*)(const char*, char* const*, char* const*);
    SERVED_ENV(env, envp);
    return REAL(execvpe, fn)(file, argv, env);
}
EXPORT int fexecve(int fd, char* const argv[], char* const envp[]) {
    using fn = int (*)(int, char* const*, char* const*);
    SERVED_ENV(env, envp);
    return REAL(fexecve, fn)(fd, argv, env);
}
// glibc's own execv/execvp/execl* reach execve inside the library, past this one.
EXPORT int execv(const char* path, char* const argv[]) { return execve(path, argv, environ); }
EXPORT int execvp(const char* file, char* const argv[]) { return execvpe(file, argv, environ); }
EXPORT int execl(const char* path, const char* arg, ...) {
    va_list ap;
    va_start(ap, arg);
    char** argv;
    char* const* unused;
    COLLECT_ARGS(arg, ap, argv, unused);
    (void)unused;
    va_end(ap);
    return execve(path, argv, environ);
}
EXPORT int execlp(const char* file, const char* arg, ...) {
    va_list ap;
    va_start(ap, arg);
    char** argv;
    char* const* unused;
    COLLECT_ARGS(arg, ap, argv, unused);
    (void)unused;
    va_end(ap);
    return execvpe(file, argv, environ);
}
EXPORT int execle(const char* path, const char* arg, ...) {
    va_list ap;
    va_start(ap, arg);
    char** argv;
    char* const* envp;
    COLLECT_ARGS(arg, ap, argv, envp);
    va_end(ap);
    return execve(path, argv, envp);
}
EXPORT int posix_spawn(pid_t* pid, const char* path, const posix_spawn_file_actions_t* actions,
                       const posix_spawnattr_t* attr, char* const argv[], char* const envp[]) {
    using fn = int (*)(pid_t*, const char*, const posix_spawn_file_actions_t*, const posix_spawnattr_t*,
                       char* const*, char* const*);
    SERVED_ENV(env, envp);
    return REAL(posix_spawn, fn)(pid, path, actions, attr, argv, env);
}
EXPORT int posix_spawnp(pid_t* pid, const char* file, const posix_spawn_file_actions_t* actions,
                        const posix_spawnattr_t* attr, char* const argv[], char* const envp[]) {
    using fn = int (*)(pid_t*, const char*, const posix_spawn_file_actions_t*, const posix_spawnattr_t*,
                       char* const*, char* const*);
    SERVED_ENV(env, envp);
    return REAL(posix_spawnp, fn)(pid, file, actions, attr, argv, env);
}

// --- the kernel's perf interface ------------------------------------------------------
// The served machine's kernel has no hardware PMU driver (its uncore is
// reached through the msr driver and PCI configuration space only, and
// /sys/bus/event_source lists no "cpu" PMU), so perf_event_open of a hardware,
// cache or raw event, or of a PMU type it does not list, fails with ENOENT as
// such a kernel's does; software and tracepoint events are the host kernel's.

EXPORT long syscall(long number, ...) {
    va_list ap;
    va_start(ap, number);
    long a[6];
    for (long& x : a) x = va_arg(ap, long);
    va_end(ap);
    if (g_active && number == SYS_perf_event_open && a[0]) {
        uint32_t type;
        memcpy(&type, reinterpret_cast<const void*>(a[0]), sizeof type);  // perf_event_attr.type
        if (type != 1 /* PERF_TYPE_SOFTWARE */ && type != 2 /* TRACEPOINT */ && type != 5 /* BREAKPOINT */)
            return fail(ENOENT);
    }
    return REAL(syscall, long (*)(long, ...))(number, a[0], a[1], a[2], a[3], a[4], a[5]);
}

// --- loading code and SIGILL -----------------------------------------------------------

EXPORT void* dlopen(const char* file, int mode) {
    void* h = REAL(dlopen, void* (*)(const char*, int))(file, mode);
    if (h && g_active && traps_installed()) {
        std::string error;
        const patch_counts before = patched_counts();
        char line[512];
        if (!patch_new_objects(&error)) {
            snprintf(line, sizeof line, "interposer: after dlopen(%s): %s", file ? file : "NULL", error.c_str());
            note(line);
        } else {
            const patch_counts after = patched_counts();
            // As the line at start, for the library (liblikwid and its hwloc hold likwid's CPUID sites).
            if (after.cpuid + after.rdtsc + after.rdtscp != before.cpuid + before.rdtsc + before.rdtscp) {
                snprintf(line, sizeof line, "interposer after dlopen(%s): %zu cpuid, %zu rdtsc, %zu rdtscp more sites "
                         "trapped", file ? file : "NULL", after.cpuid - before.cpuid, after.rdtsc - before.rdtsc,
                         after.rdtscp - before.rdtscp);
                note(line);
            }
        }
    }
    return h;
}
EXPORT int sigaction(int sig, const struct sigaction* act, struct sigaction* old) {
    if (sig == SIGILL && g_active && traps_installed()) return hold_sigill_action(act, old);
    return REAL(sigaction, int (*)(int, const struct sigaction*, struct sigaction*))(sig, act, old);
}
EXPORT sighandler_t signal(int sig, sighandler_t handler) {
    if (sig == SIGILL && g_active && traps_installed()) {
        struct sigaction act {}, old{};
        act.sa_handler = handler;
        sigemptyset(&act.sa_mask);
        act.sa_flags = SA_RESTART;
        if (hold_sigill_action(&act, &old) != 0) return SIG_ERR;
        return old.sa_handler;
    }
    return REAL(signal, sighandler_t(*)(int, sighandler_t))(sig, handler);
}
