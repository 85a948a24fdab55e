// The round trip of a register access through the interposer, beside the
// bare round trip of the mechanism it uses, measured in the same run: the
// shared-memory channel of serve/channel.h (a request and a reply of 24
// bytes in a page two processes share, each side spinning for the other),
// and, for comparison, a Unix SOCK_SEQPACKET socket (the protocol's
// fallback). Run it under the model:
//   pmonsim exec --report none -- pmonsim-bench-interposer [N]
// Prints median, 90th and 99th percentile of each, in ns, and the ratios
// (docs/performance.md, "Interposer round trip"). Goals, not asserted: at
// most 1.5x the bare round trip, and 2 us median where the mechanism allows.
#include <fcntl.h>
#include <linux/perf_event.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <ctime>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <vector>

#include "serve/channel.h"

namespace {

struct stats {
    double median, p90, p99;
};

// Real time. The interposer serves clock_gettime (and rdtsc) from the
// model's virtual clock, so ask the kernel directly; the system call's own
// cost is measured and taken off.
double real_ns() {
    timespec t{};
    ::syscall(SYS_clock_gettime, CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e9 + t.tv_nsec;
}

stats measure(size_t n, const std::function<void()>& once, double overhead = 0) {
    std::vector<double> ns(n);
    for (size_t i = 0; i < n / 10; ++i) once();  // warm up
    for (auto& v : ns) {
        const double t0 = real_ns();
        once();
        v = real_ns() - t0 - overhead;
    }
    std::sort(ns.begin(), ns.end());
    return {ns[n / 2], ns[n * 9 / 10], ns[n * 99 / 100]};
}

void row(const char* what, const stats& s, const stats& bare) {
    std::printf("%-34s %9.0f %9.0f %9.0f   %5.2fx\n", what, s.median, s.p90, s.p99, s.median / bare.median);
}

[[noreturn]] void die(const char* what) {
    std::perror(what);
    std::exit(1);
}

}  // namespace

int main(int argc, char** argv) {
    const size_t n = argc > 1 ? std::strtoul(argv[1], nullptr, 10) : 20000;
    if (n < 100) {
        std::fprintf(stderr, "usage: pmonsim-bench-interposer [N >= 100]\n");
        return 2;
    }
    if (!std::getenv("PMONSIM_SOCKET")) {
        std::fprintf(stderr, "run me under the model: pmonsim exec -- %s\n", argv[0]);
        return 2;
    }
    const double overhead = measure(n, [] {}).median;
    // The bare mechanism: a forked echo process on a socketpair, same sizes.
    int sv[2];
    if (::socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) != 0) die("socketpair");
    const pid_t echo = ::fork();
    if (echo < 0) die("fork");
    if (echo == 0) {
        ::close(sv[0]);  // (else it never sees the end of the conversation)
        char b[24];
        while (::recv(sv[1], b, sizeof b, 0) > 0) ::send(sv[1], b, sizeof b, MSG_NOSIGNAL);
        ::_exit(0);
    }
    char msg[24] = {};
    const stats bare = measure(n, [&] {
        if (::send(sv[0], msg, sizeof msg, 0) != sizeof msg || ::recv(sv[0], msg, sizeof msg, 0) != sizeof msg)
            die("ping-pong");
    }, overhead);
    ::close(sv[0]);
    ::waitpid(echo, nullptr, 0);

    // The bare channel: a forked process answering in a shared page.
    void* page = ::mmap(nullptr, sizeof(pmonsim::wire::channel), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS,
                        -1, 0);
    if (page == MAP_FAILED) die("mmap");
    auto* ch = new (page) pmonsim::wire::channel{};
    const pid_t answerer = ::fork();
    if (answerer < 0) die("fork");
    if (answerer == 0) {
        for (uint32_t served = 0;;) {
            const uint32_t seq = ch->request_seq.load(std::memory_order_seq_cst);
            if (seq == served) {
                pmonsim::wire::cpu_relax();
                continue;
            }
            if (ch->rq.op == 0) ::_exit(0);
            ch->rp.value = ch->rq.value;
            ch->reply_seq.store(served = seq, std::memory_order_seq_cst);
        }
    }
    uint32_t seq = 0;
    auto channel_call = [&](uint32_t op) {
        ch->rq.op = op;
        ch->rq.value = seq;
        ch->request_seq.store(++seq, std::memory_order_seq_cst);
        while (ch->reply_seq.load(std::memory_order_acquire) != seq) pmonsim::wire::cpu_relax();
    };
    const stats bare_channel = measure(n, [&] { channel_call(2); }, overhead);
    ch->rq.op = 0;
    ch->request_seq.store(++seq, std::memory_order_seq_cst);
    ::waitpid(answerer, nullptr, 0);

    const int msr = ::open("/dev/cpu/0/msr", O_RDONLY);
    const int cfg = ::open("/sys/bus/pci/devices/0000:ff:08.2/config", O_RDONLY);
    if (msr < 0 || cfg < 0) die("open (is this run under pmonsim exec?)");
    uint64_t v = 0;
    const stats rd_msr = measure(n, [&] {
        if (::pread(msr, &v, 8, 0xC16) != 8) die("pread msr");
    }, overhead);
    uint32_t d = 0;
    const stats rd_cfg = measure(n, [&] {
        if (::pread(cfg, &d, 4, 0xA0) != 4) die("pread config");
    }, overhead);
    // A counting uncore event read through perf_event_open's descriptor, as
    // perf stat reads it (the PMU's type from the served sysfs).
    stats rd_perf{-1, -1, -1};
    if (std::FILE* f = std::fopen("/sys/devices/uncore_qpi_0/type", "r")) {
        unsigned type = 0;
        if (std::fscanf(f, "%u", &type) == 1) {
            perf_event_attr a{};
            a.size = sizeof a;
            a.type = type;
            a.config = 0x14;  // QPI CLOCKTICKS
            const int pfd = static_cast<int>(::syscall(SYS_perf_event_open, &a, -1, 0, -1, 0));
            if (pfd >= 0) {
                rd_perf = measure(n, [&] {
                    uint64_t count = 0;
                    if (::read(pfd, &count, sizeof count) != sizeof count) die("read perf event");
                }, overhead);
                ::close(pfd);
            }
        }
        std::fclose(f);
    }
    std::printf("round trip, ns (%zu each; the timer's %.0f ns taken off)\n", n, overhead);
    std::printf("%-34s %9s %9s %9s   %s\n", "", "median", "p90", "p99", "vs the bare channel");
    row("bare shared-memory channel", bare_channel, bare_channel);
    row("MSR read (pread /dev/cpu/0/msr)", rd_msr, bare_channel);
    row("PCI config dword read (pread)", rd_cfg, bare_channel);
    if (rd_perf.median >= 0) row("perf_event read (uncore_qpi_0)", rd_perf, bare_channel);
    else std::printf("%-34s (not served: no uncore_qpi_0 PMU)\n", "perf_event read (uncore_qpi_0)");
    row("bare SOCK_SEQPACKET ping-pong", bare, bare_channel);
    return 0;
}
