// libpmonsim-preload.so: time on the served machine's clock. With the
// virtual clock, sleeps let simulated time pass (and return at once) and
// clock reads return simulated time; with the wall clock they are the host's.
#include "interpose/preload_state.h"

using namespace pmonsim;
using namespace pmonsim::interpose;
using namespace pmonsim::interpose::preload;

namespace {

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

}  // namespace

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

