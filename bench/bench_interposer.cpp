// The round trip of a register access through the interposer, beside the
// bare round trip of the mechanism it uses (a Unix SOCK_SEQPACKET socket:
// one 24-byte message each way between two processes), measured in the same
// run. Run it under the model:
//   pmonsim exec --report none -- pmonsim-bench-interposer [N]
// Prints median, 90th and 99th percentile of each, in ns, and the ratios
// (docs/performance.md, "Interposer round trip"). Goals, not asserted: at
// most 1.5x the bare round trip, and 2 us median where the mechanism allows.
#include <fcntl.h>
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
    std::printf("round trip, ns (%zu each; the timer's %.0f ns taken off)\n", n, overhead);
    std::printf("%-34s %9s %9s %9s   %s\n", "", "median", "p90", "p99", "vs bare");
    row("bare SOCK_SEQPACKET ping-pong", bare, bare);
    row("MSR read (pread /dev/cpu/0/msr)", rd_msr, bare);
    row("PCI config dword read (pread)", rd_cfg, bare);
    return 0;
}
