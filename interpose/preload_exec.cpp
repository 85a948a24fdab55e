// libpmonsim-preload.so: programs started from a served one, and the
// kernel's perf interface.
#include "interpose/preload_state.h"

using namespace pmonsim;
using namespace pmonsim::interpose;
using namespace pmonsim::interpose::preload;

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
// glibc has no perf_event_open: programs call syscall(). The served machine's
// uncore and core PMUs, and ENOENT for a type it does not list, are
// preload_perf.cpp's; software and tracepoint events are the host kernel's.

EXPORT long syscall(long number, ...) {
    va_list ap;
    va_start(ap, number);
    long a[6];
    for (long& x : a) x = va_arg(ap, long);
    va_end(ap);
    if (g_active && number == SYS_perf_event_open && a[0]) {
        bool handled = false;
        // pid, cpu and group_fd are ints: the upper halves of their registers are undefined.
        const long r = perf_open(reinterpret_cast<const void*>(a[0]), static_cast<int>(a[1]), static_cast<int>(a[2]),
                                 static_cast<int>(a[3]), static_cast<unsigned long>(a[4]), handled);
        if (handled) return r;
    }
    return REAL(syscall, long (*)(long, ...))(number, a[0], a[1], a[2], a[3], a[4], a[5]);
}

