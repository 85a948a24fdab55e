// libpmonsim-preload.so: the kernel's perf interface of the served machine.
// perf_event_open of an uncore PMU it presents (/sys/bus/event_source) is
// answered by the server, which programs the model's boxes as Linux's uncore
// driver does (serve/perf_pmu.h), and so is an event of its core PMU ("cpu":
// hardware, hardware-cache and raw types; serve/core_pmu.h). The program gets
// a real descriptor (an eventfd) whose read(), ioctl() and close() go to that
// event. Software, tracepoint and breakpoint events stay the host kernel's;
// any other type is the server's to accept or refuse (ENOENT).
#include <linux/perf_event.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>

#include "interpose/preload_state.h"

using namespace pmonsim;
using namespace pmonsim::interpose;
using namespace pmonsim::interpose::preload;

namespace {

// The attribute's first 72 bytes (PERF_ATTR_SIZE_VER1: up to config2).
struct attr_prefix {
    uint32_t type, size;
    uint64_t config, sample_period, sample_type, read_format, flags;
    uint32_t wakeup_events, bp_type;
    uint64_t config1, config2;
};
static_assert(sizeof(attr_prefix) == 72);

constexpr uint64_t kReadFormats = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING | PERF_FORMAT_ID |
                                  PERF_FORMAT_GROUP | (1u << 4) /* PERF_FORMAT_LOST */;

constexpr int kMaxFd = 1 << 16;
struct perf_fd {
    std::atomic<uint64_t> id{0};  // the server's event; 0: not a perf descriptor
    std::atomic<uint64_t> leader{0};  // its group leader's id; 0: it leads (or is alone)
    std::atomic<uint64_t> read_format{0};
    std::atomic<pid_t> owner{0};  // the process that opened it (a forked child's copy is not the event's)
};
perf_fd g_perf[kMaxFd];

uint64_t id_of(int fd) { return fd >= 0 && fd < kMaxFd ? g_perf[fd].id.load(std::memory_order_acquire) : 0; }

wire::request on_event(wire::op op, uint64_t id, uint64_t value = 0) {
    return make(op, static_cast<uint32_t>(id), static_cast<uint32_t>(id >> 32), 0, value);
}

}  // namespace

namespace pmonsim::interpose::preload {

bool perf_served(int fd) { return id_of(fd) != 0; }

long perf_open(const void* attr, long pid, long cpu, long group_fd, unsigned long flags, bool& handled) {
    handled = false;
    attr_prefix a{};
    memcpy(&a, attr, 8);
    if (a.type == PERF_TYPE_SOFTWARE || a.type == PERF_TYPE_TRACEPOINT || a.type == PERF_TYPE_BREAKPOINT) return 0;
    handled = true;
    const uint32_t size = a.size ? a.size : PERF_ATTR_SIZE_VER0;
    if (size < PERF_ATTR_SIZE_VER0) return fail(E2BIG);
    memcpy(&a, attr, size < sizeof a ? size : sizeof a);
    if (flags & ~static_cast<unsigned long>(PERF_FLAG_FD_NO_GROUP | PERF_FLAG_FD_OUTPUT | PERF_FLAG_PID_CGROUP |
                                            PERF_FLAG_FD_CLOEXEC))
        return fail(EINVAL);
    if (a.read_format & ~kReadFormats) return fail(EINVAL);
    // A group leader must be one of these events (the server checks the rest).
    uint64_t leader = 0;
    if (group_fd != -1) {
        leader = id_of(static_cast<int>(group_fd));
        if (!leader) return fail(EBADF);
    }
    wire::perf_attr w{};
    w.group = leader;
    w.type = a.type;
    w.pid = static_cast<int32_t>(pid);
    w.cpu = static_cast<int32_t>(cpu);
    w.config = a.config;
    w.config1 = a.config1;
    w.config2 = a.config2;
    w.sample_period = a.sample_period;
    w.flags = a.flags;
    wire::reply rp{};
    if (const int e = call(make(wire::op::perf_open, 0, 0, sizeof w), rp, &w)) return fail(e);
    const int fd = eventfd(0, (flags & PERF_FLAG_FD_CLOEXEC) ? EFD_CLOEXEC : 0);
    if (fd < 0 || fd >= kMaxFd) {
        const int e = fd < 0 ? errno : EMFILE;
        if (fd >= 0) ::syscall(SYS_close, fd);
        call(on_event(wire::op::perf_close, rp.value), rp);
        return fail(e);
    }
    g_perf[fd].read_format.store(a.read_format);
    g_perf[fd].leader.store(leader);
    g_perf[fd].owner.store(getpid());
    g_perf[fd].id.store(rp.value, std::memory_order_release);
    return fd;
}

// What read() gives, in read_format's layout. With PERF_FORMAT_GROUP: the
// leader's times, then each event of the group (leader first, then the
// members in the order opened), read at one simulated instant.
ssize_t perf_read(int fd, void* buf, size_t n) {
    const uint64_t id = id_of(fd), rf = g_perf[fd].read_format.load();
    const bool group = rf & PERF_FORMAT_GROUP;
    constexpr size_t kMaxGroup = 16;
    uint64_t ids[kMaxGroup];
    size_t nr = 0;
    const uint64_t leader = g_perf[fd].leader.load() ? g_perf[fd].leader.load() : id;
    ids[nr++] = group ? leader : id;
    if (group)  // members: the descriptors whose leader it is, by id (the order opened), once each
        for (int other = 0; other < kMaxFd; ++other) {
            const uint64_t m = g_perf[other].id.load();
            if (!m || g_perf[other].leader.load() != leader) continue;
            size_t at = 1;
            while (at < nr && ids[at] < m) ++at;
            if ((at < nr && ids[at] == m) || nr == kMaxGroup) continue;
            memmove(ids + at + 1, ids + at, (nr - at) * sizeof ids[0]);
            ids[at] = m;
            ++nr;
        }
    uint64_t out[3 + 3 * kMaxGroup];
    size_t k = 0;
    if (group) out[k++] = nr;
    for (size_t i = 0; i < nr; ++i) {
        uint64_t v[3] = {};
        wire::reply rp{};
        if (const int e = call(on_event(wire::op::perf_read, ids[i]), rp, nullptr, v, sizeof v)) return fail(e);
        if (i == 0) {
            if (!group) out[k++] = v[0];
            if (rf & PERF_FORMAT_TOTAL_TIME_ENABLED) out[k++] = v[1];
            if (rf & PERF_FORMAT_TOTAL_TIME_RUNNING) out[k++] = v[2];
        }
        if (group) out[k++] = v[0];
        if (rf & PERF_FORMAT_ID) out[k++] = ids[i];
        if (rf & (1u << 4)) out[k++] = 0;  // lost: nothing is ever lost when counting
    }
    if (n < k * 8) return fail(ENOSPC);
    memcpy(buf, out, k * 8);
    return static_cast<ssize_t>(k * 8);
}

// close(): the event goes with its last descriptor in the process that opened it.
void perf_close(int fd) {
    const uint64_t id = id_of(fd);
    if (!id) return;
    g_perf[fd].id.store(0, std::memory_order_release);
    g_perf[fd].leader.store(0);
    if (g_perf[fd].owner.load() != getpid()) return;
    for (int other = 0; other < kMaxFd; ++other)
        if (other != fd && g_perf[other].id.load() == id) return;
    wire::reply rp{};
    call(on_event(wire::op::perf_close, id), rp);
    // A closed leader's members lead themselves from now on (the server's view too).
    for (int other = 0; other < kMaxFd; ++other)
        if (g_perf[other].leader.load() == id) g_perf[other].leader.store(0);
}

void perf_dup(int from, int to) {
    if (to < 0 || to >= kMaxFd) return;
    const uint64_t id = id_of(from);
    if (id) {
        g_perf[to].read_format.store(g_perf[from].read_format.load());
        g_perf[to].leader.store(g_perf[from].leader.load());
        g_perf[to].owner.store(g_perf[from].owner.load());
    }
    g_perf[to].id.store(id, std::memory_order_release);
}

}  // namespace pmonsim::interpose::preload

EXPORT int ioctl(int fd, unsigned long request, ...) {
    va_list ap;
    va_start(ap, request);
    void* arg = va_arg(ap, void*);
    va_end(ap);
    const uint64_t id = id_of(fd);
    if (!id) return REAL(ioctl, int (*)(int, unsigned long, ...))(fd, request, arg);
    wire::perf_ctl what;
    switch (request) {
        case PERF_EVENT_IOC_ENABLE: what = wire::perf_ctl::enable; break;
        case PERF_EVENT_IOC_DISABLE: what = wire::perf_ctl::disable; break;
        case PERF_EVENT_IOC_RESET: what = wire::perf_ctl::reset; break;
        case PERF_EVENT_IOC_ID:
            if (!arg) return static_cast<int>(fail(EFAULT));
            memcpy(arg, &id, sizeof id);
            return 0;
        case PERF_EVENT_IOC_REFRESH:
        case PERF_EVENT_IOC_PERIOD: return static_cast<int>(fail(EINVAL));  // sampling only
        default: return static_cast<int>(fail(ENOTTY));
    }
    wire::reply rp{};
    if (const int e = call(on_event(wire::op::perf_ctl, id, static_cast<uint64_t>(what)), rp))
        return static_cast<int>(fail(e));
    return 0;
}

// A program built with _FORTIFY_SOURCE reads through __read_chk, which calls
// glibc's read inside glibc, past the read() above: a served event's read is
// caught here as well (others are left to glibc, checks and all).
extern "C" [[noreturn]] void __chk_fail();
EXPORT ssize_t __read_chk(int fd, void* buf, size_t n, size_t buflen) {
    if (id_of(fd)) {
        if (n > buflen) __chk_fail();
        return perf_read(fd, buf, n);
    }
    return REAL(__read_chk, ssize_t (*)(int, void*, size_t, size_t))(fd, buf, n, buflen);
}
