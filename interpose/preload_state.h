// What the pieces of libpmonsim-preload.so share (preload.cpp has the
// overview): the real functions behind the wrappers, the served machine, and
// each thread's connection to the server. Internal to the library (its
// symbols are hidden; only the wrappers are exported).
#pragma once
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

namespace pmonsim::interpose::preload {

// The real functions, found once each (RTLD_NEXT: the C library behind us).

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


// --- the served machine and the connection (preload.cpp) ---
extern bool g_active;  // PMONSIM_SOCKET was given and the server answered
extern char g_socket[108];
extern wire::machine g_machine;
extern size_t g_root_len;
extern unsigned g_cpus;
extern bool g_virtual;
extern char g_self[PATH_MAX];          // this library's file, for the LD_PRELOAD of programs started from here
extern char g_socket_entry[16 + 108];  // "PMONSIM_SOCKET=..."
extern TLS server_link t_link;         // this thread's connection (socket, and its channel)
extern TLS bool t_busy;                // inside the library (its own calls pass through)

pid_t gettid_();
// This thread's connection, made on first use; false when the server cannot be reached.
bool connected();
// One request on this thread's connection: 0, the reply's error, or EIO.
int call(const wire::request& rq, wire::reply& rp, const void* payload = nullptr, void* out = nullptr,
         size_t cap = 0);
wire::request make(wire::op op, uint32_t a = 0, uint32_t b = 0, uint32_t size = 0, uint64_t value = 0);
void note(const char* text);
// errno = e, and -1.
ssize_t fail(int e);

// --- the kernel's perf interface (preload_perf.cpp) ---
// perf_event_open's arguments; `handled` false: the host kernel's (software events).
long perf_open(const void* attr, long pid, long cpu, long group_fd, unsigned long flags, bool& handled);
bool perf_served(int fd);  // a descriptor of a served perf event
ssize_t perf_read(int fd, void* buf, size_t n);
void perf_close(int fd);
void perf_dup(int from, int to);

// --- CPUs (preload_cpus.cpp) ---
extern pthread_t g_main_thread;
// The CPU the calling thread runs on: the lowest of its affinity (CPU 0 when unset).
unsigned current_cpu();

}  // namespace pmonsim::interpose::preload
