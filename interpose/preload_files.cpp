// libpmonsim-preload.so: the kernel's files of the served machine. Served
// paths (interpose/paths.h) are redirected into the directory the server
// wrote; reads and writes of /dev/cpu/N/msr and of PCI configuration files go
// to the model, with the msr driver's and sysfs's rules.
#include <sys/xattr.h>

#include "interpose/preload_state.h"

using namespace pmonsim;
using namespace pmonsim::interpose;
using namespace pmonsim::interpose::preload;

namespace {

TLS char t_path[PATH_MAX + 600];
TLS char t_norm[PATH_MAX];

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
    if (!normalize_path(abs, t_norm, sizeof t_norm) || !is_served(t_norm, g_machine.hidden)) return path;
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
// Extended attributes (ls -l asks for the SELinux label of every entry).
EXPORT ssize_t getxattr(const char* path, const char* name, void* value, size_t n) {
    return REAL(getxattr, ssize_t(*)(const char*, const char*, void*, size_t))(route(AT_FDCWD, path), name, value, n);
}
EXPORT ssize_t lgetxattr(const char* path, const char* name, void* value, size_t n) {
    return REAL(lgetxattr, ssize_t(*)(const char*, const char*, void*, size_t))(route(AT_FDCWD, path), name, value, n);
}
EXPORT ssize_t listxattr(const char* path, char* list, size_t n) {
    return REAL(listxattr, ssize_t(*)(const char*, char*, size_t))(route(AT_FDCWD, path), list, n);
}
EXPORT ssize_t llistxattr(const char* path, char* list, size_t n) {
    return REAL(llistxattr, ssize_t(*)(const char*, char*, size_t))(route(AT_FDCWD, path), list, n);
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
    if (perf_served(fd)) return perf_read(fd, buf, n);
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
    perf_close(fd);
    return REAL(close, int (*)(int))(fd);
}
EXPORT int dup(int fd) {
    const int r = REAL(dup, int (*)(int))(fd);
    if (r >= 0) {
        copy_entry(fd, r);
        perf_dup(fd, r);
    }
    return r;
}
EXPORT int dup2(int fd, int to) {
    const int r = REAL(dup2, int (*)(int, int))(fd, to);
    if (r >= 0 && r != fd) {
        perf_close(r);  // (what `to` was is closed)
        copy_entry(fd, r);
        perf_dup(fd, r);
    }
    return r;
}
EXPORT int dup3(int fd, int to, int flags) {
    const int r = REAL(dup3, int (*)(int, int, int))(fd, to, flags);
    if (r >= 0) {
        perf_close(r);  // (what `to` was is closed)
        copy_entry(fd, r);
        perf_dup(fd, r);
    }
    return r;
}
EXPORT int fcntl(int fd, int cmd, ...) {
    va_list ap;
    va_start(ap, cmd);
    const long arg = va_arg(ap, long);
    va_end(ap);
    const int r = REAL(fcntl, int (*)(int, int, ...))(fd, cmd, arg);
    if (r >= 0 && (cmd == F_DUPFD || cmd == F_DUPFD_CLOEXEC)) {
        copy_entry(fd, r);
        perf_dup(fd, r);
    }
    return r;
}

