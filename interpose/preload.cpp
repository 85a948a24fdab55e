// libpmonsim-preload.so (this file: its state, start, traps and loading; the
// wrappers are in preload_files/_time/_cpus/_exec.cpp): an unmodified program, preloaded with this library
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
#include "interpose/preload_state.h"

using namespace pmonsim;
using namespace pmonsim::interpose;
using namespace pmonsim::interpose::preload;

namespace pmonsim::interpose::preload {


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
int call(const wire::request& rq, wire::reply& rp, const void* payload, void* out, size_t cap) {
    if (!connected()) return EIO;
    if (call_link(t_link, rq, payload, rp, out, cap) != 0) return EIO;
    return rp.error;
}

wire::request make(wire::op op, uint32_t a, uint32_t b, uint32_t size, uint64_t value) {
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

ssize_t fail(int e) {
    errno = e;
    return -1;
}

}  // namespace pmonsim::interpose::preload

namespace {

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

